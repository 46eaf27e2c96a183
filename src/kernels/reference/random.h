// The random number generation of TFLite's RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and
// MULTINOMIAL: the Philox4x32-10 counter-based generator (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3") seeded as TensorFlow seeds it, and TensorFlow's conversions of
// its 32-bit outputs to floats. With the same seeds the sequences are TensorFlow's.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace edgerun::reference::math {

class Philox4x32 {
 public:
  using Block = std::array<uint32_t, 4>;

  Philox4x32() = default;
  // TensorFlow's PhiloxRandom(seed_lo, seed_hi): the low seed is the key, the high seed the
  // upper half of the 128-bit counter.
  Philox4x32(uint64_t seed_lo, uint64_t seed_hi) {
    key_ = {static_cast<uint32_t>(seed_lo), static_cast<uint32_t>(seed_lo >> 32)};
    counter_ = {0, 0, static_cast<uint32_t>(seed_hi), static_cast<uint32_t>(seed_hi >> 32)};
  }

  // The next four 32-bit values.
  Block Next() {
    Block block = counter_;
    std::array<uint32_t, 2> key = key_;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += kWeylA;
        key[1] += kWeylB;
      }
      block = Round(block, key);
    }
    Skip(1);
    return block;
  }

  // Advances the 128-bit counter by `count` blocks.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

 private:
  static constexpr uint32_t kWeylA = 0x9E3779B9, kWeylB = 0xBB67AE85;
  static constexpr uint32_t kMulA = 0xD2511F53, kMulB = 0xCD9E8D57;

  static Block Round(const Block& c, const std::array<uint32_t, 2>& key) {
    const uint64_t p0 = static_cast<uint64_t>(kMulA) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMulB) * c[2];
    return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ key[0], static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ key[1], static_cast<uint32_t>(p0)};
  }

  Block counter_{};
  std::array<uint32_t, 2> key_{};
};

// A float in [0, 1) from the 23 low bits of x (as a mantissa of a number in [1, 2), minus 1).
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, 4);
  return f - 1.0f;
}

// A double in [0, 1) from 52 bits of (x0, x1).
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  std::memcpy(&d, &bits, 8);
  return d - 1.0;
}

// Two standard normal values from two uniform 32-bit values (Box-Muller).
inline void BoxMuller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float u1 = std::max(Uint32ToFloat(x0), 1.0e-7f);  // keep log() finite
  const float v1 = static_cast<float>(2.0 * M_PI * Uint32ToFloat(x1));
  const float radius = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * radius;
  *f1 = std::cos(v1) * radius;
}

}  // namespace edgerun::reference::math
