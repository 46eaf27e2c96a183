// AVX2 + FMA kernels (compiled with -mavx2 -mfma; see CMakeLists.txt). Without those flags (a
// non-x86 build) this file only says that it has nothing.
#include "kernels/optimized/isa_kernels.h"
#include "quant/lstm_quant.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace edgerun::optimized {
namespace {

struct Avx2 {
  static constexpr int kLanes = 8;
  using F = __m256;
  using I = __m256i;

  // Lanes below n set (n may be <= 0 or >= 8).
  static __m256i Mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static F ZeroF() { return _mm256_setzero_ps(); }
  static F Set1F(float v) { return _mm256_set1_ps(v); }
  // r[k] becomes column k of the 8 x 8 block whose rows were r[0..7].
  static void TransposeF(F* r) {
    const F t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const F t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const F t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const F t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    // Columns c and c + 4 of rows 0-3 (s0-s3) and of rows 4-7 (s4-s7), c = 0..3.
    const F s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const F s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const F s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const F s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
  }
  static F LoadF(const float* p) { return _mm256_loadu_ps(p); }
  static F LoadFn(const float* p, int n) {
    if (n >= kLanes) return _mm256_loadu_ps(p);
    return _mm256_maskload_ps(p, Mask(n));
  }
  static void StoreF(float* p, F v) { _mm256_storeu_ps(p, v); }
  static void StoreFn(float* p, F v, int n) {
    if (n >= kLanes) {
      _mm256_storeu_ps(p, v);
    } else if (n > 0) {
      _mm256_maskstore_ps(p, Mask(n), v);
    }
  }
  static F BroadcastF(const float* p) { return _mm256_broadcast_ss(p); }
  static F Fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F AddF(F a, F b) { return _mm256_add_ps(a, b); }
  static F MaxF(F a, F b) { return _mm256_max_ps(a, b); }
  static F MinF(F a, F b) { return _mm256_min_ps(a, b); }
  static float HorizontalSumF(F v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static float HorizontalMaxF(F v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
  }
  static float HorizontalMinF(F v) {
    __m128 s = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_min_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_min_ss(s, _mm_movehdup_ps(s)));
  }
  // BATCH_MATMUL's float tiles (simd_kernels.inc, BlockedTile): 2 x 3 outputs of two 8-lane
  // vectors each, 12 accumulators of the 16 registers beside two rows of a, a column of bt and a
  // product (the fold takes 8 outputs, the last two zero). 2 x 2 ran 1.3x slower on Zen 4 (its
  // fold shared by 4 outputs, one load a multiply).
  static constexpr int kFoldOutputs = 8, kTileRows = 2, kTileCols = 3;
  // acc[2o], acc[2o + 1] hold output o's lanes 0-7 and 8-15; lane o of the result is their sum
  // folded as reference::DotBlocked does (l += l + 8, l += l + 4, l += l + 2, l += l + 1), for
  // 8 outputs at once. Slot s is fed output 4 * (s % 2) + s / 2, so that the last step leaves
  // output o in lane o.
  static F FoldSums(const F* acc) {
    F eight[8], four[4];
    for (int s = 0; s < 8; ++s) {
      const int o = 4 * (s % 2) + s / 2;
      eight[s] = _mm256_add_ps(acc[2 * o], acc[2 * o + 1]);
    }
    for (int p = 0; p < 4; ++p) {  // 128-bit lane j: slot 2p + j's 4 lanes
      const F x = eight[2 * p], y = eight[2 * p + 1];
      four[p] = _mm256_add_ps(_mm256_permute2f128_ps(x, y, 0x20), _mm256_permute2f128_ps(x, y, 0x31));
    }
    // 128-bit lane j: slots j, 2 + j (two lanes each), then slots 4 + j, 6 + j.
    const F lo = _mm256_add_ps(_mm256_shuffle_ps(four[0], four[1], 0x44), _mm256_shuffle_ps(four[0], four[1], 0xEE));
    const F hi = _mm256_add_ps(_mm256_shuffle_ps(four[2], four[3], 0x44), _mm256_shuffle_ps(four[2], four[3], 0xEE));
    // Element 4j + q: slot 2q + j, which holds output 4j + q.
    return _mm256_add_ps(_mm256_shuffle_ps(lo, hi, 0x88), _mm256_shuffle_ps(lo, hi, 0xDD));
  }

  static F MulF(F a, F b) { return _mm256_mul_ps(a, b); }
  static F SubF(F a, F b) { return _mm256_sub_ps(a, b); }
  static F DivF(F a, F b) { return _mm256_div_ps(a, b); }
  static F AbsF(F v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
  // |magnitude| with the sign bit of sign.
  static F CopySignF(F magnitude, F sign) {
    const __m256 sign_bit = _mm256_set1_ps(-0.0f);
    return _mm256_or_ps(_mm256_andnot_ps(sign_bit, magnitude), _mm256_and_ps(sign_bit, sign));
  }
  static F SelectLessF(F a, F b, F if_less, F otherwise) {  // a < b ? if_less : otherwise
    return _mm256_blendv_ps(otherwise, if_less, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
  }
  static F KeepNanF(F x, F v) {  // x where x is NaN, else v
    return _mm256_blendv_ps(v, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  }
  static F BitsToF(I v) { return _mm256_castsi256_ps(v); }
  static F ToFloat(I v) { return _mm256_cvtepi32_ps(v); }
  static I RoundToInt(F v) { return _mm256_cvtps_epi32(v); }  // nearest, ties to even
  static I TruncToInt(F v) { return _mm256_cvttps_epi32(v); }  // toward zero; INT32_MIN when out of range
  // The low byte of each of the first n lanes (values already in the byte's range).
  static void StoreBytesN(int8_t* p, I v, int n) {
    // int32 -> int16 (in range, so no saturation), then the low byte of each int16.
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    const __m128i bytes = _mm_shuffle_epi8(words, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
    if (n >= kLanes) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
      return;
    }
    alignas(16) int8_t part[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(part), bytes);
    for (int i = 0; i < n; ++i) p[i] = part[i];
  }

  // The low bytes of the 16 lanes of a and b (values in the int16 range), a's first.
  static void StoreBytes2(int8_t* p, I a, I b) {
    // int16 [a0..3 b0..3 | a4..7 b4..7], their low bytes at the bottom of each half, then the
    // dwords a0..3 a4..7 b0..3 b4..7.
    const __m256i words = _mm256_packs_epi32(a, b);
    const __m256i low = _mm256_shuffle_epi8(
        words, _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1, 0, 2, 4, 6, 8, 10, 12, 14,
                                -1, -1, -1, -1, -1, -1, -1, -1));
    const __m256i order = _mm256_permutevar8x32_epi32(low, _mm256_setr_epi32(0, 4, 1, 5, 2, 3, 6, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(order));
  }

  static I ZeroI() { return _mm256_setzero_si256(); }
  static I Set1I(int32_t v) { return _mm256_set1_epi32(v); }
  static I LoadI(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static void StoreI(void* p, I v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
  // Lane-wise max / min and broadcast of 8- or 16-bit integers (MAX_POOL_2D).
  template <class T>
  static I MaxT(I a, I b) {
    if constexpr (std::is_same_v<T, uint8_t>) return _mm256_max_epu8(a, b);
    if constexpr (std::is_same_v<T, int8_t>) return _mm256_max_epi8(a, b);
    if constexpr (std::is_same_v<T, int16_t>) return _mm256_max_epi16(a, b);
  }
  template <class T>
  static I MinT(I a, I b) {
    if constexpr (std::is_same_v<T, uint8_t>) return _mm256_min_epu8(a, b);
    if constexpr (std::is_same_v<T, int8_t>) return _mm256_min_epi8(a, b);
    if constexpr (std::is_same_v<T, int16_t>) return _mm256_min_epi16(a, b);
  }
  template <class T>
  static I Set1T(T v) {
    if constexpr (sizeof(T) == 1) return _mm256_set1_epi8(static_cast<char>(v));
    if constexpr (sizeof(T) == 2) return _mm256_set1_epi16(static_cast<short>(v));
  }
  static I LoadIn(const int32_t* p, int n) {
    if (n >= kLanes) return LoadI(p);
    if (n <= 0) return ZeroI();
    return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), Mask(n));
  }
  static void StoreIn(int32_t* p, I v, int n) {
    if (n >= kLanes) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
    } else if (n > 0) {
      _mm256_maskstore_epi32(reinterpret_cast<int*>(p), Mask(n), v);
    }
  }
  static I AddI(I a, I b) { return _mm256_add_epi32(a, b); }
  static I SubI(I a, I b) { return _mm256_sub_epi32(a, b); }
  template <int kBits>
  static I ShiftLeftI(I v) {
    return _mm256_slli_epi32(v, kBits);
  }
  template <int kBits>
  static I ShiftRightI(I v) {  // arithmetic
    return _mm256_srai_epi32(v, kBits);
  }
  static I ShiftRightByI(I v, __m128i count) { return _mm256_sra_epi32(v, count); }  // arithmetic, count in the low lane
  static I MulLoI(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I MaxI(I a, I b) { return _mm256_max_epi32(a, b); }
  static I MinI(I a, I b) { return _mm256_min_epi32(a, b); }
  static I DotPairs(I c, I a, I b) { return _mm256_add_epi32(c, _mm256_madd_epi16(a, b)); }
  // Each lane's low 16 bits from lo, its high 16 bits from hi's low 16: int16 pairs for DotPairs.
  static I PackPairs(I lo, I hi) { return _mm256_blend_epi16(lo, _mm256_slli_epi32(hi, 16), 0xAA); }
  static I LoadWidenU8(const uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI8(const int8_t* p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI16(const int16_t* p) {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  // The first n (< 8) bytes only, zeros after (a channel tail: rare at 8 lanes).
  static I LoadWidenU8n(const uint8_t* p, int n) {
    alignas(8) uint8_t part[8] = {};
    for (int i = 0; i < n; ++i) part[i] = p[i];
    return LoadWidenU8(part);
  }
  static I LoadWidenI8n(const int8_t* p, int n) {
    alignas(8) int8_t part[8] = {};
    for (int i = 0; i < n; ++i) part[i] = p[i];
    return LoadWidenI8(part);
  }
  // 16 int8 values as int16.
  static I LoadWidenI8x2(const int8_t* p) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenU8x2(const uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  // The first n (< 16) of them, zeros after: nothing past p + n is read.
  static I LoadWidenI8x2N(const int8_t* p, int n) {
    alignas(16) int8_t bytes[16] = {};
    std::memcpy(bytes, p, static_cast<size_t>(n < 16 ? n : 16));
    return LoadWidenI8x2(bytes);
  }
  static int32_t HorizontalSumI(I v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
  }

  // ---- int16 lanes (gemmlowp's 16-bit fixed point: LSTM gates, int16 TANH / LOGISTIC)
  static constexpr int kLanes16 = 16;
  using M16 = __m256i;  // a condition per int16 lane: all ones or zero
  static I Load16n(const int16_t* p, int n) {
    if (n >= 16) return LoadI(p);
    alignas(32) int16_t part[16] = {};
    std::memcpy(part, p, sizeof(int16_t) * n);
    return LoadI(part);
  }
  static void Store16n(int16_t* p, I v, int n) {
    if (n >= 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
      return;
    }
    alignas(32) int16_t part[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(part), v);
    std::memcpy(p, part, sizeof(int16_t) * n);
  }
  static I Set1_16(int16_t v) { return _mm256_set1_epi16(v); }
  static I Add16(I a, I b) { return _mm256_add_epi16(a, b); }  // wraps
  static I Sub16(I a, I b) { return _mm256_sub_epi16(a, b); }
  static I AddSat16(I a, I b) { return _mm256_adds_epi16(a, b); }
  static I And16(I a, I b) { return _mm256_and_si256(a, b); }
  static I ShiftRight16(I v, int bits) { return _mm256_sra_epi16(v, _mm_cvtsi32_si128(bits)); }  // arithmetic
  static I ShiftLeft16(I v, int bits) { return _mm256_sll_epi16(v, _mm_cvtsi32_si128(bits)); }
  // (a * b + 2^14) >> 15, which for every product but -1 * -1 equals gemmlowp's rounded
  // doubling high multiply (ties away from zero); that one saturates to 32767.
  static I MulQ15(I a, I b) {
    const I r = _mm256_mulhrs_epi16(a, b);
    return _mm256_xor_si256(r, _mm256_cmpeq_epi16(r, _mm256_set1_epi16(-32768)));
  }
  static M16 Greater16(I a, I b) { return _mm256_cmpgt_epi16(a, b); }
  static M16 Equal16(I a, I b) { return _mm256_cmpeq_epi16(a, b); }
  static I Select16(M16 m, I if_true, I otherwise) { return _mm256_blendv_epi8(otherwise, if_true, m); }
};

#include "kernels/optimized/simd_kernels.inc"

// ---- requantization (8 channels per step)

// reference MultiplyByQuantizedMultiplier(x, multiplier, shift) in every lane.
__m256i MultiplyByQuantizedMultiplier(__m256i x, __m256i multiplier, __m256i shift) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i left = _mm256_max_epi32(shift, zero);
  const __m256i right = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
  x = _mm256_sllv_epi32(x, left);
  // Doubling high multiply with rounding: (x * m + 2^30) >> 31 in 64 bits gives the same value
  // as the reference's nudge and division toward zero, for both signs.
  const __m256i nudge = _mm256_set1_epi64x(int64_t{1} << 30);
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, multiplier), nudge);
  __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(multiplier, 32)), nudge);
  even = _mm256_srli_epi64(even, 31);  // bits 31..62 into the low half
  odd = _mm256_slli_epi64(odd, 1);     // bits 31..62 into the high half
  __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
  const __m256i int_min = _mm256_set1_epi32(INT32_MIN);
  const __m256i overflow = _mm256_and_si256(_mm256_cmpeq_epi32(x, int_min), _mm256_cmpeq_epi32(multiplier, int_min));
  high = _mm256_blendv_epi8(high, _mm256_set1_epi32(INT32_MAX), overflow);
  // Rounding right shift, ties away from zero.
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
  const __m256i remainder = _mm256_and_si256(high, mask);
  const __m256i threshold = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_cmpgt_epi32(zero, high));
  return _mm256_sub_epi32(_mm256_srav_epi32(high, right), _mm256_cmpgt_epi32(remainder, threshold));
}

// Stores n (<= 8) int32 lanes, already in the output type's range.
void StoreOut(__m256i v, int n, OutType type, void* out) {
  const __m128i packed16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  if (type == OutType::kInt16) {
    if (n == 8) {
      _mm_storeu_si128(static_cast<__m128i*>(out), packed16);
    } else {
      alignas(16) int16_t tmp[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(tmp), packed16);
      __builtin_memcpy(out, tmp, static_cast<size_t>(n) * 2);
    }
    return;
  }
  const __m128i packed8 =
      type == OutType::kUInt8 ? _mm_packus_epi16(packed16, packed16) : _mm_packs_epi16(packed16, packed16);
  if (n == 8) {
    _mm_storel_epi64(static_cast<__m128i*>(out), packed8);
  } else {
    alignas(16) uint8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), packed8);
    __builtin_memcpy(out, tmp, static_cast<size_t>(n));
  }
}

template <bool kFloat>
void Requantize(const int32_t* sums, int n, int c0, const RequantArgs& r, void* out) {
  const int size = r.out_type == OutType::kInt16 ? 2 : 1;
  const __m256i zero_point = _mm256_set1_epi32(r.zero_point);
  const __m256i act_min = _mm256_set1_epi32(r.act_min), act_max = _mm256_set1_epi32(r.act_max);
  const __m256 lo = _mm256_set1_ps(static_cast<float>(r.act_min - r.zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(r.act_max - r.zero_point));
  for (int i = 0; i < n; i += 8) {
    const int count = MinInt(8, n - i);
    const int c = c0 + i;
    __m256i x = Avx2::LoadIn(sums + i, count);
    if (r.bias) x = _mm256_add_epi32(x, Avx2::LoadIn(r.bias + c, count));
    __m256i v;
    if constexpr (kFloat) {
      __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(x), Avx2::LoadFn(r.scale + c, count));
      f = _mm256_min_ps(_mm256_max_ps(f, lo), hi);
      v = _mm256_add_epi32(_mm256_cvtps_epi32(f), zero_point);
    } else {
      v = MultiplyByQuantizedMultiplier(x, Avx2::LoadIn(r.multiplier + c, count), Avx2::LoadIn(r.shift + c, count));
      v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, zero_point), act_min), act_max);
    }
    StoreOut(v, count, r.out_type, static_cast<char*>(out) + static_cast<int64_t>(i) * size);
  }
}

}  // namespace

bool FillAvx2Kernels(IsaKernels* k) {
  k->isa = Isa::kAvx2;
  FillSimdKernels<Avx2>(k, std::make_integer_sequence<int, 6>{}, std::make_integer_sequence<int, 4>{});
  k->requantize_fixed = &Requantize<false>;
  k->requantize_float = &Requantize<true>;
  return true;
}

}  // namespace edgerun::optimized

#else

namespace edgerun::optimized {
bool FillAvx2Kernels(IsaKernels*) { return false; }
}  // namespace edgerun::optimized

#endif
