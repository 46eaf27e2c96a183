// FarmHash's 64-bit fingerprint (farmhash::Fingerprint64, the portable "na" variant), which
// TFLite's LSH_PROJECTION hashes its keys with. Written from the published algorithm; the
// values are fixed forever by design (a fingerprint, not a seeded hash), little-endian loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace edgerun::reference::farmhash {

inline constexpr uint64_t kPrime0 = 0xc3a5c85c97cb3127ULL;
inline constexpr uint64_t kPrime1 = 0xb492b66fbe98f273ULL;
inline constexpr uint64_t kPrime2 = 0x9ae16a3b2f90404fULL;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint32_t Load32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t RotateRight(uint64_t v, int shift) { return shift == 0 ? v : (v >> shift) | (v << (64 - shift)); }
inline uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

// Murmur-style mix of two words with a multiplier.
inline uint64_t Mix16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

inline uint64_t HashUpTo16(const uint8_t* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kPrime2 + len * 2;
    const uint64_t a = Load64(s) + kPrime2;
    const uint64_t b = Load64(s + len - 8);
    const uint64_t c = RotateRight(b, 37) * mul + a;
    const uint64_t d = (RotateRight(a, 25) + b) * mul;
    return Mix16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kPrime2 + len * 2;
    const uint64_t a = Load32(s);
    return Mix16(len + (a << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint32_t y = static_cast<uint32_t>(s[0]) + (static_cast<uint32_t>(s[len >> 1]) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(s[len - 1]) << 2);
    return ShiftMix(y * kPrime2 ^ z * kPrime0) * kPrime2;
  }
  return kPrime2;
}

inline uint64_t Hash17To32(const uint8_t* s, size_t len) {
  const uint64_t mul = kPrime2 + len * 2;
  const uint64_t a = Load64(s) * kPrime1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kPrime2;
  return Mix16(RotateRight(a + b, 43) + RotateRight(c, 30) + d, a + RotateRight(b + kPrime2, 18) + c, mul);
}

inline uint64_t Hash33To64(const uint8_t* s, size_t len) {
  const uint64_t mul = kPrime2 + len * 2;
  const uint64_t a = Load64(s) * kPrime2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kPrime2;
  const uint64_t y = RotateRight(a + b, 43) + RotateRight(c, 30) + d;
  const uint64_t z = Mix16(y, a + RotateRight(b + kPrime2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return Mix16(RotateRight(e + f, 43) + RotateRight(g, 30) + h, e + RotateRight(f + a, 18) + g, mul);
}

// Two words from 32 bytes and two seeds.
inline std::pair<uint64_t, uint64_t> WeakHash32(const uint8_t* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = RotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

inline uint64_t Fingerprint64(const void* data, size_t len) {
  const auto* s = static_cast<const uint8_t*>(data);
  if (len <= 16) return HashUpTo16(s, len);
  if (len <= 32) return Hash17To32(s, len);
  if (len <= 64) return Hash33To64(s, len);

  // Longer inputs: 64-byte blocks through a 56-byte state, then the last 64 bytes.
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed;
  uint64_t y = kSeed * kPrime1 + 113;
  uint64_t z = ShiftMix(y * kPrime2 + 113) * kPrime2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * kPrime2 + Load64(s);
  const uint8_t* end = s + ((len - 1) / 64) * 64;
  const uint8_t* last64 = s + len - 64;
  do {
    x = RotateRight(x + y + v.first + Load64(s + 8), 37) * kPrime1;
    y = RotateRight(y + v.second + Load64(s + 48), 42) * kPrime1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = RotateRight(z + w.first, 33) * kPrime1;
    v = WeakHash32(s, v.second * kPrime1, x + w.first);
    w = WeakHash32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kPrime1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = RotateRight(x + y + v.first + Load64(s + 8), 37) * mul;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = RotateRight(z + w.first, 33) * mul;
  v = WeakHash32(s, v.second * mul, x + w.first);
  w = WeakHash32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Mix16(Mix16(v.first, w.first, mul) + ShiftMix(y) * kPrime0 + z, Mix16(v.second, w.second, mul) + x, mul);
}

}  // namespace edgerun::reference::farmhash
