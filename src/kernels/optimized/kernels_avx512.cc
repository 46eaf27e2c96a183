// AVX-512 kernels (compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma; see
// CMakeLists.txt). The VNNI dot product is used only when the CPU has it; it is written in inline
// assembly so that the rest of this file cannot contain VNNI instructions.
#include "kernels/optimized/isa_kernels.h"
#include "quant/lstm_quant.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
// GCC 12's AVX-512 intrinsics start from a deliberately undefined vector (`__Y = __Y`), which
// -Wmaybe-uninitialized (and, where it can prove the path, -Wuninitialized) reports at every use
// (clang has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace edgerun::optimized {
namespace {

template <bool kVnni>
struct Avx512 {
  static constexpr int kLanes = 16;
  using F = __m512;
  using I = __m512i;

  static __mmask16 Mask(int n) {
    if (n >= 16) return 0xFFFF;
    if (n <= 0) return 0;
    return static_cast<__mmask16>((1u << n) - 1);
  }
  static F ZeroF() { return _mm512_setzero_ps(); }
  static F Set1F(float v) { return _mm512_set1_ps(v); }
  // r[k] becomes column k of the 16 x 16 block whose rows were r[0..15].
  static void TransposeF(F* r) {
    F t[16], u[16];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // u[4j + c], 128-bit block b: column 4b + c of rows 4j .. 4j + 3.
    for (int j = 0; j < 4; ++j) {
      u[4 * j + 0] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0x44);
      u[4 * j + 1] = _mm512_shuffle_ps(t[4 * j], t[4 * j + 2], 0xEE);
      u[4 * j + 2] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0x44);
      u[4 * j + 3] = _mm512_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0xEE);
    }
    // Column 4b + c gathers block b of u[c], u[4 + c], u[8 + c], u[12 + c].
    for (int c = 0; c < 4; ++c) {
      const F x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
      const F x2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
      const F x3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
      r[0 + c] = _mm512_shuffle_f32x4(x0, x2, 0x88);
      r[4 + c] = _mm512_shuffle_f32x4(x0, x2, 0xDD);
      r[8 + c] = _mm512_shuffle_f32x4(x1, x3, 0x88);
      r[12 + c] = _mm512_shuffle_f32x4(x1, x3, 0xDD);
    }
  }
  static F LoadF(const float* p) { return _mm512_loadu_ps(p); }
  static F LoadFn(const float* p, int n) { return _mm512_maskz_loadu_ps(Mask(n), p); }
  static void StoreF(float* p, F v) { _mm512_storeu_ps(p, v); }
  static void StoreFn(float* p, F v, int n) { _mm512_mask_storeu_ps(p, Mask(n), v); }
  static F BroadcastF(const float* p) { return _mm512_set1_ps(*p); }
  static F Fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F AddF(F a, F b) { return _mm512_add_ps(a, b); }
  static F MaxF(F a, F b) { return _mm512_max_ps(a, b); }
  static F MinF(F a, F b) { return _mm512_min_ps(a, b); }
  static float HorizontalSumF(F v) { return _mm512_reduce_add_ps(v); }
  static float HorizontalMaxF(F v) { return _mm512_reduce_max_ps(v); }
  static float HorizontalMinF(F v) { return _mm512_reduce_min_ps(v); }
  // BATCH_MATMUL's float tiles (simd_kernels.inc, BlockedTile): 4 x 4 outputs of one 16-lane
  // vector each, 16 accumulators.
  static constexpr int kFoldOutputs = 16, kTileRows = 4, kTileCols = 4;
  // acc[o] holds output o's 16 lanes; lane o of the result is their sum folded as
  // reference::DotBlocked does (l += l + 8, l += l + 4, l += l + 2, l += l + 1), for all 16
  // outputs in 15 adds. Each step adds the upper half of every output's remaining lanes to the
  // lower half while packing two outputs' halves into one vector; slot s is fed output
  // 4 * (s % 4) + s / 4, so that the last step leaves output o in lane o.
  static F FoldSums(const F* acc) {
    auto slot = [&](int s) { return acc[4 * (s % 4) + s / 4]; };
    F eight[8], four[4];
    for (int p = 0; p < 8; ++p) {  // outputs 2p, 2p + 1: 8 lanes each
      const F x = slot(2 * p), y = slot(2 * p + 1);
      eight[p] = _mm512_add_ps(_mm512_shuffle_f32x4(x, y, 0x44), _mm512_shuffle_f32x4(x, y, 0xEE));
    }
    for (int q = 0; q < 4; ++q) {  // 128-bit lane j: slot 4q + j's 4 lanes
      const F x = eight[2 * q], y = eight[2 * q + 1];
      four[q] = _mm512_add_ps(_mm512_shuffle_f32x4(x, y, 0x88), _mm512_shuffle_f32x4(x, y, 0xDD));
    }
    // 128-bit lane j: slots j, 4 + j (two lanes each), then slots 8 + j, 12 + j.
    const F lo = _mm512_add_ps(_mm512_shuffle_ps(four[0], four[1], 0x44), _mm512_shuffle_ps(four[0], four[1], 0xEE));
    const F hi = _mm512_add_ps(_mm512_shuffle_ps(four[2], four[3], 0x44), _mm512_shuffle_ps(four[2], four[3], 0xEE));
    // Element 4j + q: slot 4q + j, which holds output 4j + q.
    return _mm512_add_ps(_mm512_shuffle_ps(lo, hi, 0x88), _mm512_shuffle_ps(lo, hi, 0xDD));
  }

  static F MulF(F a, F b) { return _mm512_mul_ps(a, b); }
  static F SubF(F a, F b) { return _mm512_sub_ps(a, b); }
  static F DivF(F a, F b) { return _mm512_div_ps(a, b); }
  static F AbsF(F v) { return _mm512_abs_ps(v); }
  // |magnitude| with the sign bit of sign.
  static F CopySignF(F magnitude, F sign) {
    const __m512 sign_bit = _mm512_set1_ps(-0.0f);
    return _mm512_or_ps(_mm512_andnot_ps(sign_bit, magnitude), _mm512_and_ps(sign_bit, sign));
  }
  static F SelectLessF(F a, F b, F if_less, F otherwise) {  // a < b ? if_less : otherwise
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), otherwise, if_less);
  }
  static F KeepNanF(F x, F v) {  // x where x is NaN, else v
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), v, x);
  }
  static F BitsToF(I v) { return _mm512_castsi512_ps(v); }
  static F ToFloat(I v) { return _mm512_cvtepi32_ps(v); }
  static I RoundToInt(F v) { return _mm512_cvtps_epi32(v); }  // nearest, ties to even
  static I TruncToInt(F v) { return _mm512_cvttps_epi32(v); }  // toward zero; INT32_MIN when out of range
  // The low byte of each of the first n lanes (values already in the byte's range).
  static void StoreBytesN(int8_t* p, I v, int n) { _mm512_mask_cvtepi32_storeu_epi8(p, Mask(n), v); }
  // The low bytes of the 32 lanes of a and b, a's first.
  static void StoreBytes2(int8_t* p, I a, I b) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(a));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 16), _mm512_cvtepi32_epi8(b));
  }

  static I ZeroI() { return _mm512_setzero_si512(); }
  static I Set1I(int32_t v) { return _mm512_set1_epi32(v); }
  static I LoadI(const void* p) { return _mm512_loadu_si512(p); }
  static void StoreI(void* p, I v) { _mm512_storeu_si512(p, v); }
  // Lane-wise max / min and broadcast of 8- or 16-bit integers (MAX_POOL_2D).
  template <class T>
  static I MaxT(I a, I b) {
    if constexpr (std::is_same_v<T, uint8_t>) return _mm512_max_epu8(a, b);
    if constexpr (std::is_same_v<T, int8_t>) return _mm512_max_epi8(a, b);
    if constexpr (std::is_same_v<T, int16_t>) return _mm512_max_epi16(a, b);
  }
  template <class T>
  static I MinT(I a, I b) {
    if constexpr (std::is_same_v<T, uint8_t>) return _mm512_min_epu8(a, b);
    if constexpr (std::is_same_v<T, int8_t>) return _mm512_min_epi8(a, b);
    if constexpr (std::is_same_v<T, int16_t>) return _mm512_min_epi16(a, b);
  }
  template <class T>
  static I Set1T(T v) {
    if constexpr (sizeof(T) == 1) return _mm512_set1_epi8(static_cast<char>(v));
    if constexpr (sizeof(T) == 2) return _mm512_set1_epi16(static_cast<short>(v));
  }
  static I LoadIn(const int32_t* p, int n) { return _mm512_maskz_loadu_epi32(Mask(n), p); }
  static void StoreIn(int32_t* p, I v, int n) { _mm512_mask_storeu_epi32(p, Mask(n), v); }
  static I AddI(I a, I b) { return _mm512_add_epi32(a, b); }
  static I SubI(I a, I b) { return _mm512_sub_epi32(a, b); }
  template <int kBits>
  static I ShiftLeftI(I v) {
    return _mm512_slli_epi32(v, kBits);
  }
  template <int kBits>
  static I ShiftRightI(I v) {  // arithmetic
    return _mm512_srai_epi32(v, kBits);
  }
  static I ShiftRightByI(I v, __m128i count) { return _mm512_sra_epi32(v, count); }  // arithmetic, count in the low lane
  static I MulLoI(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I MaxI(I a, I b) { return _mm512_max_epi32(a, b); }
  static I MinI(I a, I b) { return _mm512_min_epi32(a, b); }
  static I DotPairs(I c, I a, I b) {
    if constexpr (kVnni) {
      asm("vpdpwssd %2, %1, %0" : "+v"(c) : "v"(a), "v"(b));
      return c;
    } else {
      return _mm512_add_epi32(c, _mm512_madd_epi16(a, b));
    }
  }
  // Each lane's low 16 bits from lo, its high 16 bits from hi's low 16: int16 pairs for DotPairs.
  static I PackPairs(I lo, I hi) { return _mm512_mask_blend_epi16(0xAAAAAAAAu, lo, _mm512_slli_epi32(hi, 16)); }
  static I LoadWidenU8(const uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI8(const int8_t* p) {
    return _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI16(const int16_t* p) {
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  // The first n (< 16) bytes only, zeros after.
  static I LoadWidenU8n(const uint8_t* p, int n) {
    return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(Mask(n), p));
  }
  static I LoadWidenI8n(const int8_t* p, int n) {
    return _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(Mask(n), p));
  }
  static I LoadWidenI8x2(const int8_t* p) {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static I LoadWidenU8x2(const uint8_t* p) {
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  // The first n (< 32) of them, zeros after: nothing past p + n is read.
  static I LoadWidenI8x2N(const int8_t* p, int n) {
    const __mmask32 m = n >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1);
    return _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, p));
  }
  static int32_t HorizontalSumI(I v) { return _mm512_reduce_add_epi32(v); }

  // ---- int16 lanes (gemmlowp's 16-bit fixed point: LSTM gates, int16 TANH / LOGISTIC)
  static constexpr int kLanes16 = 32;
  using M16 = __mmask32;  // a condition per int16 lane
  static I Load16n(const int16_t* p, int n) {
    return _mm512_maskz_loadu_epi16(n >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1), p);
  }
  static void Store16n(int16_t* p, I v, int n) {
    _mm512_mask_storeu_epi16(p, n >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1), v);
  }
  static I Set1_16(int16_t v) { return _mm512_set1_epi16(v); }
  static I Add16(I a, I b) { return _mm512_add_epi16(a, b); }  // wraps
  static I Sub16(I a, I b) { return _mm512_sub_epi16(a, b); }
  static I AddSat16(I a, I b) { return _mm512_adds_epi16(a, b); }
  static I And16(I a, I b) { return _mm512_and_si512(a, b); }
  static I ShiftRight16(I v, int bits) { return _mm512_sra_epi16(v, _mm_cvtsi32_si128(bits)); }  // arithmetic
  static I ShiftLeft16(I v, int bits) { return _mm512_sll_epi16(v, _mm_cvtsi32_si128(bits)); }
  // (a * b + 2^14) >> 15, which for every product but -1 * -1 equals gemmlowp's rounded
  // doubling high multiply (ties away from zero); that one saturates to 32767.
  static I MulQ15(I a, I b) {
    const I r = _mm512_mulhrs_epi16(a, b);
    return _mm512_mask_mov_epi16(r, _mm512_cmpeq_epi16_mask(r, _mm512_set1_epi16(-32768)), _mm512_set1_epi16(32767));
  }
  static M16 Greater16(I a, I b) { return _mm512_cmpgt_epi16_mask(a, b); }
  static M16 Equal16(I a, I b) { return _mm512_cmpeq_epi16_mask(a, b); }
  static I Select16(M16 m, I if_true, I otherwise) { return _mm512_mask_blend_epi16(m, otherwise, if_true); }
};

#include "kernels/optimized/simd_kernels.inc"

// reference MultiplyByQuantizedMultiplier(x, multiplier, shift) in every lane (see the AVX2 file).
__m512i MultiplyByQuantizedMultiplier(__m512i x, __m512i multiplier, __m512i shift) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i left = _mm512_max_epi32(shift, zero);
  const __m512i right = _mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero);
  x = _mm512_sllv_epi32(x, left);
  const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
  __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, multiplier), nudge);
  __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(multiplier, 32)), nudge);
  even = _mm512_srli_epi64(even, 31);
  odd = _mm512_slli_epi64(odd, 1);
  __m512i high = _mm512_mask_blend_epi32(0xAAAA, even, odd);
  const __m512i int_min = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 overflow =
      _mm512_cmpeq_epi32_mask(x, int_min) & _mm512_cmpeq_epi32_mask(multiplier, int_min);
  high = _mm512_mask_mov_epi32(high, overflow, _mm512_set1_epi32(INT32_MAX));
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
  const __m512i remainder = _mm512_and_si512(high, mask);
  __m512i threshold = _mm512_srai_epi32(mask, 1);
  threshold = _mm512_mask_add_epi32(threshold, _mm512_cmplt_epi32_mask(high, zero), threshold, one);
  const __m512i shifted = _mm512_srav_epi32(high, right);
  return _mm512_mask_add_epi32(shifted, _mm512_cmpgt_epi32_mask(remainder, threshold), shifted, one);
}

template <bool kFloat>
void Requantize(const int32_t* sums, int n, int c0, const RequantArgs& r, void* out) {
  using V = Avx512<false>;
  const __m512i zero_point = _mm512_set1_epi32(r.zero_point);
  const __m512i act_min = _mm512_set1_epi32(r.act_min), act_max = _mm512_set1_epi32(r.act_max);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(r.act_min - r.zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(r.act_max - r.zero_point));
  for (int i = 0; i < n; i += 16) {
    const int count = MinInt(16, n - i);
    const __mmask16 m = V::Mask(count);
    const int c = c0 + i;
    __m512i x = V::LoadIn(sums + i, count);
    if (r.bias) x = _mm512_add_epi32(x, V::LoadIn(r.bias + c, count));
    __m512i v;
    if constexpr (kFloat) {
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(x), V::LoadFn(r.scale + c, count));
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      v = _mm512_add_epi32(_mm512_cvtps_epi32(f), zero_point);
    } else {
      v = MultiplyByQuantizedMultiplier(x, V::LoadIn(r.multiplier + c, count), V::LoadIn(r.shift + c, count));
      v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, zero_point), act_min), act_max);
    }
    // The values are inside the output type's range: truncating stores are exact.
    if (r.out_type == OutType::kInt16) {
      _mm512_mask_cvtepi32_storeu_epi16(static_cast<int16_t*>(out) + i, m, v);
    } else {
      _mm512_mask_cvtepi32_storeu_epi8(static_cast<int8_t*>(out) + i, m, v);
    }
  }
}

// Eight channels at a time in int64 lanes, the scalar steps of quant::MultiplyByQuantizedMultiplier
// (int64) and reference::Requantizer: the same values (the multiply and the rounding add wrap
// as its unsigned arithmetic does).
void RequantizeI64(const int32_t* sums, int n, int c0, const RequantI64Args& r, int16_t* out) {
  const __m256i zero_point = _mm256_set1_epi32(r.zero_point);
  const __m256i act_min = _mm256_set1_epi32(r.act_min), act_max = _mm256_set1_epi32(r.act_max);
  const __m512i one = _mm512_set1_epi64(1);
  for (int i = 0; i < n; i += 8) {
    const int count = MinInt(8, n - i);
    const __mmask8 m = static_cast<__mmask8>((1u << count) - 1);
    const int c = c0 + i;
    __m512i acc = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(m, sums + i));
    if (r.bias) acc = _mm512_add_epi64(acc, _mm512_maskz_loadu_epi64(m, r.bias + c));
    const __m512i shift = _mm512_maskz_loadu_epi64(m, r.total_shift + c);
    const __m512i product = _mm512_mullo_epi64(acc, _mm512_maskz_loadu_epi64(m, r.reduced + c));
    const __m512i rounding = _mm512_sllv_epi64(one, _mm512_sub_epi64(shift, one));
    const __m512i scaled = _mm512_srav_epi64(_mm512_add_epi64(product, rounding), shift);
    __m256i v = _mm256_add_epi32(_mm512_cvtepi64_epi32(scaled), zero_point);  // truncated to int32
    v = _mm256_min_epi32(_mm256_max_epi32(v, act_min), act_max);
    _mm256_mask_cvtepi32_storeu_epi16(out + i, m, v);
  }
}

// TFLite's int16 ADD / SUB / MUL (see BinaryI16Args), 16 lanes at a time with the reference's
// fixed-point steps: the same values.
void BinaryI16(const int16_t* a, const int16_t* b, int64_t n, const BinaryI16Args& p, int16_t* out) {
  const __m512i act_min = _mm512_set1_epi32(p.act_min), act_max = _mm512_set1_epi32(p.act_max);
  const __m512i m1 = _mm512_set1_epi32(p.multiplier1), s1 = _mm512_set1_epi32(p.shift1);
  const __m512i m2 = _mm512_set1_epi32(p.multiplier2), s2 = _mm512_set1_epi32(p.shift2);
  const __m512i mo = _mm512_set1_epi32(p.output_multiplier), so = _mm512_set1_epi32(p.output_shift);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Avx512<false>::Mask(static_cast<int>(std::min<int64_t>(16, n - i)));
    const __m512i x = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, a + i));
    const __m512i y = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, b + i));
    __m512i raw;
    if (p.op == 2) {
      raw = _mm512_mullo_epi32(x, y);  // |product| <= 2^30
    } else {
      const __m512i sx = MultiplyByQuantizedMultiplier(_mm512_slli_epi32(x, p.left_shift), m1, s1);
      const __m512i sy = MultiplyByQuantizedMultiplier(_mm512_slli_epi32(y, p.left_shift), m2, s2);
      raw = p.op == 1 ? _mm512_sub_epi32(sx, sy) : _mm512_add_epi32(sx, sy);
    }
    __m512i v = MultiplyByQuantizedMultiplier(raw, mo, so);
    v = _mm512_min_epi32(_mm512_max_epi32(v, act_min), act_max);
    _mm256_mask_storeu_epi16(out + i, m, _mm512_cvtepi32_epi16(v));
  }
}

// int16 LEAKY_RELU (LeakyReluI16Args): both sides' rescalings in every lane, the sign picks one.
void LeakyReluI16(const int16_t* in, int64_t n, const LeakyReluI16Args& p, int16_t* out) {
  const __m512i im = _mm512_set1_epi32(p.identity_multiplier), is = _mm512_set1_epi32(p.identity_shift);
  const __m512i am = _mm512_set1_epi32(p.alpha_multiplier), as = _mm512_set1_epi32(p.alpha_shift);
  const __m512i lo = _mm512_set1_epi32(-32768), hi = _mm512_set1_epi32(32767);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Avx512<false>::Mask(static_cast<int>(std::min<int64_t>(16, n - i)));
    const __m512i x = _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, in + i));
    const __m512i identity = MultiplyByQuantizedMultiplier(x, im, is);
    const __m512i alpha = MultiplyByQuantizedMultiplier(x, am, as);
    __m512i v = _mm512_mask_blend_epi32(_mm512_cmplt_epi32_mask(x, _mm512_setzero_si512()), identity, alpha);
    v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
    _mm256_mask_storeu_epi16(out + i, m, _mm512_cvtepi32_epi16(v));
  }
}

// ---- int8 GEMM on vpdpbusd (VNNI CPUs only; see GemmI8Fn). Each step broadcasts 4 bytes of a
// row of A (signed) against NV vectors of 16 columns x 4 depths of B (unsigned): 64 products per
// instruction, against 32 for vpdpwssd on int16 pairs, and A is read as it is (no widening copy).
inline __m512i DotBytes(__m512i c, __m512i u8, __m512i s8) {
  asm("vpdpbusd %2, %1, %0" : "+v"(c) : "v"(u8), "v"(s8));
  return c;
}

template <int MR, int NV, bool kFlip = false>
void GemmI8Vnni(int kc4, const int8_t* a, int64_t lda, const uint8_t* b, int32_t* c, int64_t ldc, int nc,
                bool accumulate, const I8Epilogue* ep) {
  using V = Avx512<true>;
  // kFlip: A holds uint8 values, read as the signed bytes a - 128 (top bit flipped).
  const __m512i flip = _mm512_set1_epi32(kFlip ? static_cast<int32_t>(0x80808080u) : 0);
  __m512i acc[NV][MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[v][i] = _mm512_setzero_si512();
  }
  for (int g = 0; g < kc4; ++g) {
    __m512i bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_si512(b + v * 64);
    b += NV * 64;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      int32_t quad;
      __builtin_memcpy(&quad, a + i * lda + 4 * g, sizeof(quad));
      __m512i av = _mm512_set1_epi32(quad);
      if constexpr (kFlip) av = _mm512_xor_si512(av, flip);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[v][i] = DotBytes(acc[v][i], bv[v], av);
    }
  }
  if (ep && ep->scale) {
    const __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
    const __m512i zero_point = _mm512_set1_epi32(ep->zero_point);
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      const int n = nc - v * 16;
      const __mmask16 mask = V::Mask(n);
      __m512i col = V::LoadIn(ep->col + v * 16, n);
      if (ep->bias) col = _mm512_add_epi32(col, V::LoadIn(ep->bias + v * 16, n));
      const __m512 scale = _mm512_maskz_loadu_ps(mask, ep->scale + v * 16);
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        __m512i r = acc[v][i];
        if (accumulate) r = _mm512_add_epi32(r, V::LoadIn(c + i * ldc + v * 16, n));
        r = _mm512_add_epi32(r, _mm512_add_epi32(col, _mm512_set1_epi32(ep->row[i])));
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(r), scale);
        f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
        // In range after the clamp: the truncating store is exact.
        _mm512_mask_cvtepi32_storeu_epi8(ep->out + i * ep->ldo + v * 16, mask,
                                         _mm512_add_epi32(_mm512_cvtps_epi32(f), zero_point));
      }
    }
    return;
  }
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    const int n = nc - v * 16;
    const __m512i col = ep ? V::LoadIn(ep->col + v * 16, n) : _mm512_setzero_si512();
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      __m512i r = acc[v][i];
      if (accumulate) r = _mm512_add_epi32(r, V::LoadIn(c + i * ldc + v * 16, n));
      if (ep) r = _mm512_add_epi32(r, _mm512_add_epi32(col, _mm512_set1_epi32(ep->row[i])));
      V::StoreIn(c + i * ldc + v * 16, r, n);
    }
  }
}

// Row sums of int8 values, 64 at a time: vpdpbusd against bytes of 1. kUnsigned: the rows hold
// uint8 values a and the sums are of a - 128 (the signed bytes the flipping GEMM reads): the
// bytes are the unsigned operand against signed ones, minus 128 per value.
template <bool kUnsigned>
void RowSumsVnni(const int8_t* a, int64_t lda, int rows, int k, int32_t scale, int32_t* out) {
  const __m512i ones = _mm512_set1_epi8(1);
  for (int r = 0; r < rows; ++r) {
    const int8_t* row = a + r * lda;
    __m512i s = _mm512_setzero_si512();
    for (int i = 0; i < k; i += 64) {
      const int left = k - i;
      const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      const __m512i bytes = _mm512_maskz_loadu_epi8(m, row + i);
      s = kUnsigned ? DotBytes(s, bytes, ones) : DotBytes(s, ones, bytes);
    }
    uint32_t sum = static_cast<uint32_t>(_mm512_reduce_add_epi32(s));
    if (kUnsigned) sum -= 128u * static_cast<uint32_t>(k);
    // Multiplied as unsigned: the product wraps like the reference's sums.
    out[r] = static_cast<int32_t>(sum * static_cast<uint32_t>(scale));
  }
}

// ---- float GEMM on panels of 24 columns (GemmF32Fn, GemmF32RowsFn with NR 24): each tile row a
// 16-lane and an 8-lane vector, the 8-lane FMAs on the low half of the same broadcast. Where the
// CPU splits a 512-bit FMA in two (SplitsWideFma) the row costs 1.5 FMA slots, not the 2 of a
// 32-column panel whose last 8 columns are zeros: MobileNet v2's projections to 24 channels, and
// 144 columns as 6 panels instead of 4.5 of 32.
struct MidRow {
  __m512 lo;  // columns [0, 16)
  __m256 hi;  // columns [16, 24)
};

inline __mmask16 MidLoMask(int nc) { return Avx512<false>::Mask(nc); }
inline __mmask8 MidHiMask(int nc) {
  const int n = nc - 16;
  return n >= 8 ? 0xFF : n <= 0 ? 0 : static_cast<__mmask8>((1u << n) - 1);
}
inline MidRow LoadMid(const float* p, int nc) {
  if (nc == 24) return {_mm512_loadu_ps(p), _mm256_loadu_ps(p + 16)};
  return {_mm512_maskz_loadu_ps(MidLoMask(nc), p), _mm256_maskz_loadu_ps(MidHiMask(nc), p + 16)};
}
inline void StoreMid(float* p, const MidRow& v, int nc) {
  if (nc == 24) {
    _mm512_storeu_ps(p, v.lo);
    _mm256_storeu_ps(p + 16, v.hi);
  } else {
    _mm512_mask_storeu_ps(p, MidLoMask(nc), v.lo);
    _mm256_mask_storeu_ps(p + 16, MidHiMask(nc), v.hi);
  }
}
// min(hi, max(lo, v)) as Clamp in simd_kernels.inc (NaN and signed zeros alike).
inline MidRow ClampMid(const MidRow& v, float lo, float hi) {
  return {_mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), v.lo)),
          _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), v.hi))};
}
// acc += broadcast(*a) * b, b a panel row of 24.
inline void FmaMid(MidRow& acc, const float* a, const __m512& b_lo, const __m256& b_hi) {
  const __m512 av = _mm512_set1_ps(*a);
  acc.lo = _mm512_fmadd_ps(av, b_lo, acc.lo);
  acc.hi = _mm256_fmadd_ps(_mm512_castps512_ps256(av), b_hi, acc.hi);
}

template <int MR>
void GemmF32Mid(int kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int nc, bool accumulate,
                const F32Epilogue* ep, const float* prefetch) {
  constexpr int kNr = 24;
  MidRow acc[MR];
  // As GemmF32: one depth block with its epilogue starts from the bias.
  const bool bias_first = !accumulate && ep != nullptr && ep->bias != nullptr;
  const MidRow bias0 = bias_first ? LoadMid(ep->bias, nc) : MidRow{_mm512_setzero_ps(), _mm256_setzero_ps()};
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc[i] = accumulate ? LoadMid(c + i * ldc, nc) : bias0;
  for (int k = 0; k < kc; ++k) {
    const __m512 b_lo = _mm512_loadu_ps(b);
    const __m256 b_hi = _mm256_loadu_ps(b + 16);
    b += kNr;
    if (prefetch != nullptr) {
      // 96 bytes a depth step: a line each step and a second every other step covers them.
      __builtin_prefetch(prefetch, 0, 2);
      if (k & 1) __builtin_prefetch(prefetch + 16, 0, 2);
      prefetch += kNr;
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) FmaMid(acc[i], a + i * lda + k, b_lo, b_hi);
  }
  if (ep) {
    const MidRow bias = ep->bias && !bias_first ? LoadMid(ep->bias, nc) : MidRow{_mm512_setzero_ps(), _mm256_setzero_ps()};
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      MidRow r = acc[i];
      if (ep->bias && !bias_first) r = {_mm512_add_ps(r.lo, bias.lo), _mm256_add_ps(r.hi, bias.hi)};
      acc[i] = ClampMid(r, ep->lo, ep->hi);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) StoreMid(c + i * ldc, acc[i], nc);
}

template <int MR>
void GemmF32RowsMid(int parts, const float* const* a, int64_t lda, const float* const* b, int kc, float* c,
                    int64_t ldc, int nc, const F32Epilogue* ep) {
  constexpr int kNr = 24;
  MidRow acc[MR];
  const MidRow bias = ep->bias ? LoadMid(ep->bias, nc) : MidRow{_mm512_setzero_ps(), _mm256_setzero_ps()};
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc[i] = bias;
  for (int j = 0; j < parts; ++j) {
    const float* aj = a[j];
    const float* bj = b[j];
    for (int k = 0; k < kc; ++k) {
      const __m512 b_lo = _mm512_loadu_ps(bj);
      const __m256 b_hi = _mm256_loadu_ps(bj + 16);
      bj += kNr;
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) FmaMid(acc[i], aj + i * lda + k, b_lo, b_hi);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) StoreMid(c + i * ldc, ClampMid(acc[i], ep->lo, ep->hi), nc);
}

template <int... MR>
void FillGemmF32Mid(IsaKernels* k, std::integer_sequence<int, MR...>) {
  static_assert(sizeof...(MR) <= kMaxMr);
  ((k->gemm_f32_mid[MR + 1] = &GemmF32Mid<MR + 1>), ...);
  ((k->gemm_f32_rows_mid[MR + 1] = &GemmF32RowsMid<MR + 1>), ...);
  k->f32_nr_mid = 24;
}

template <int... MR>
void FillGemmI8(IsaKernels* k, std::integer_sequence<int, MR...>) {
  ((k->gemm_i8[MR + 1] = &GemmI8Vnni<MR + 1, 2>), ...);
  ((k->gemm_i8_narrow[MR + 1] = &GemmI8Vnni<MR + 1, 1>), ...);
  ((k->gemm_i8_flip[MR + 1] = &GemmI8Vnni<MR + 1, 2, true>), ...);
  ((k->gemm_i8_flip_narrow[MR + 1] = &GemmI8Vnni<MR + 1, 1, true>), ...);
  k->i8_mr = static_cast<int>(sizeof...(MR));
  k->i8_nr = 32;
  k->i8_nr_narrow = 16;
  k->row_sums_i8 = &RowSumsVnni<false>;
  k->row_sums_u8 = &RowSumsVnni<true>;
}

}  // namespace

bool FillAvx512Kernels(IsaKernels* k, bool vnni) {
  k->isa = Isa::kAvx512;
  if (vnni) {
    FillSimdKernels<Avx512<true>>(k, std::make_integer_sequence<int, 12>{}, std::make_integer_sequence<int, 12>{});
    FillGemmI8(k, std::make_integer_sequence<int, 12>{});
  } else {
    FillSimdKernels<Avx512<false>>(k, std::make_integer_sequence<int, 12>{}, std::make_integer_sequence<int, 12>{});
  }
  FillGemmF32Mid(k, std::make_integer_sequence<int, 12>{});
  k->requantize_fixed = &Requantize<false>;
  k->binary_i16 = &BinaryI16;
  k->leaky_relu_i16 = &LeakyReluI16;
  k->requantize_i64 = &RequantizeI64;
  k->requantize_float = &Requantize<true>;
  return true;
}

}  // namespace edgerun::optimized

#else

namespace edgerun::optimized {
bool FillAvx512Kernels(IsaKernels*, bool) { return false; }
}  // namespace edgerun::optimized

#endif
