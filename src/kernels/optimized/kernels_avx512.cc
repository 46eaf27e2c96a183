// AVX-512 kernels (compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma; see
// CMakeLists.txt). The VNNI dot product is used only when the CPU has it; it is written in inline
// assembly so that the rest of this file cannot contain VNNI instructions.
#include "kernels/optimized/isa_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
// GCC 12's AVX-512 intrinsics start from a deliberately undefined vector (`__Y = __Y`), which
// -Wmaybe-uninitialized reports at every use (clang has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <utility>

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

  static I ZeroI() { return _mm512_setzero_si512(); }
  static I Set1I(int32_t v) { return _mm512_set1_epi32(v); }
  static I LoadI(const void* p) { return _mm512_loadu_si512(p); }
  static I LoadIn(const int32_t* p, int n) { return _mm512_maskz_loadu_epi32(Mask(n), p); }
  static void StoreIn(int32_t* p, I v, int n) { _mm512_mask_storeu_epi32(p, Mask(n), v); }
  static I AddI(I a, I b) { return _mm512_add_epi32(a, b); }
  static I MulLoI(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I DotPairs(I c, I a, I b) {
    if constexpr (kVnni) {
      asm("vpdpwssd %2, %1, %0" : "+v"(c) : "v"(a), "v"(b));
      return c;
    } else {
      return _mm512_add_epi32(c, _mm512_madd_epi16(a, b));
    }
  }
  static I LoadWidenU8(const uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI8(const int8_t* p) {
    return _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I LoadWidenI16(const int16_t* p) {
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static I LoadWidenI8x2(const int8_t* p) {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static int32_t HorizontalSumI(I v) { return _mm512_reduce_add_epi32(v); }
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

}  // namespace

bool FillAvx512Kernels(IsaKernels* k, bool vnni) {
  k->isa = Isa::kAvx512;
  if (vnni) {
    FillSimdKernels<Avx512<true>>(k, std::make_integer_sequence<int, 12>{});
  } else {
    FillSimdKernels<Avx512<false>>(k, std::make_integer_sequence<int, 12>{});
  }
  k->requantize_fixed = &Requantize<false>;
  k->requantize_float = &Requantize<true>;
  return true;
}

}  // namespace edgerun::optimized

#else

namespace edgerun::optimized {
bool FillAvx512Kernels(IsaKernels*, bool) { return false; }
}  // namespace edgerun::optimized

#endif
