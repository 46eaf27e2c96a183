// Helpers for the tests of quantized convolution and matrix ops: deterministic random integers,
// quantization parameters, and the two requantizations of an accumulator, written from their
// definitions: TFLite's fixed-point one (on top of the fixed-point helpers, tested on their own
// in fixed_point_test.cc) and XNNPACK's float one, which TFLite uses for 8-bit convolutions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "edgerun/tensor.h"
#include "quant/fixed_point.h"

namespace edgerun::testing {

// Deterministic integers in [lo, hi].
template <class T>
std::vector<T> RandomInts(size_t n, uint32_t seed, int64_t lo, int64_t hi) {
  std::vector<T> v(n);
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<T>(lo + static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(hi - lo + 1)));
  }
  return v;
}

inline QuantizationParams Quant(float scale, int64_t zero_point = 0) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

inline QuantizationParams PerChannel(std::vector<float> scales, int32_t dimension) {
  QuantizationParams q;
  q.zero_point.assign(scales.size(), 0);
  q.scale = std::move(scales);
  q.quantized_dimension = dimension;
  return q;
}

// acc * real_multiplier as TFLite computes it: the multiplier in Q31 with a shift, then the
// 32-bit (narrow) or 64-bit (wide: 16-bit activations with int64 bias) rounding multiply.
inline int32_t Requantize(int64_t acc, double real_multiplier, bool wide) {
  int32_t multiplier = 0;
  int shift = 0;
  quant::QuantizeMultiplier(real_multiplier, &multiplier, &shift);
  if (wide) return quant::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
  return quant::MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), multiplier, shift);
}

// XNNPACK's float requantization of 8-bit ops: acc * scale in float (scale computed in float as
// input_scale * filter_scale / output_scale), rounded to nearest with ties to even.
inline int32_t RequantizeFloat(int64_t acc, float scale) {
  return static_cast<int32_t>(std::nearbyint(static_cast<float>(acc) * scale));
}

inline int32_t Clamp(int64_t v, int32_t lo, int32_t hi) { return static_cast<int32_t>(std::clamp<int64_t>(v, lo, hi)); }

// Output size and leading padding of SAME/VALID, from the definition.
inline void SameOrValid(bool same, int in, int k, int stride, int dilation, int* out, int* pad) {
  const int eff = (k - 1) * dilation + 1;
  *out = same ? (in + stride - 1) / stride : (in - eff + stride) / stride;
  *pad = same ? std::max(0, ((*out - 1) * stride + eff - in) / 2) : 0;
}

}  // namespace edgerun::testing
