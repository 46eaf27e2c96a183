// Run-time quantization of float activations for hybrid ("dynamic range") kernels: float inputs,
// int8 weights. Each row of the input is quantized to int8 on its own, exactly as TFLite's
// portable tensor utils do (SymmetricQuantizeFloats / AsymmetricQuantizeFloats), and int4
// weights are unpacked the way TFLite unpacks them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace edgerun::quant {

// float -> int32 as a static_cast does on x86 (NaN and out-of-range give INT32_MIN), without
// the undefined behaviour, so that NaN inputs quantize as they do in TFLite.
inline int32_t FloatToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
  return static_cast<int32_t>(v);
}

// FloatToInt32(std::round(v)) (half away from zero) without a call to roundf, which this
// library's SSE2 code cannot inline (ToyCar hybrid spent 40% of its run quantizing inputs):
// truncate, then step away from zero when the remainder (exact below 2^24; 0 above, where floats
// are integers) is at least a half.
inline int32_t RoundToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
  const int32_t t = static_cast<int32_t>(v);
  const float remainder = v - static_cast<float>(t);
  return t + static_cast<int32_t>(remainder >= 0.5f) - static_cast<int32_t>(remainder <= -0.5f);
}

// q = round(x * 127 / max|x|) in [-127, 127]; scale = max|x| / 127 (1 for an all-zero row).
inline void SymmetricQuantizeFloats(const float* values, int64_t n, int8_t* quantized, float* scale) {
  if (n <= 0) {
    *scale = 1.0f;
    return;
  }
  const auto [min_it, max_it] = std::minmax_element(values, values + n);
  const float range = std::max(std::fabs(*min_it), std::fabs(*max_it));
  if (range == 0.0f) {
    std::memset(quantized, 0, static_cast<size_t>(n));
    *scale = 1.0f;
    return;
  }
  constexpr int32_t kScale = 127;
  *scale = range / kScale;
  const float inverse = kScale / range;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t q = RoundToInt32(values[i] * inverse);
    quantized[i] = static_cast<int8_t>(std::clamp(q, -kScale, kScale));
  }
}

// Affine int8 over [min(x, 0), max(x, 0)]: the scale and the nudged zero point TFLite computes in
// double, then q = round(zero_point + x / scale) in [-128, 127].
inline void AsymmetricQuantizeFloats(const float* values, int64_t n, int8_t* quantized, float* scale,
                                     int32_t* zero_point) {
  constexpr int32_t kMin = -128, kMax = 127;
  if (n <= 0) {
    *scale = 1.0f;
    *zero_point = 0;
    return;
  }
  const auto [min_it, max_it] = std::minmax_element(values, values + n);
  const double rmin = static_cast<double>(std::min(0.0f, *min_it));
  const double rmax = static_cast<double>(std::max(0.0f, *max_it));
  if (rmin == rmax) {
    std::memset(quantized, 0, static_cast<size_t>(n));
    *scale = 1.0f;
    *zero_point = 0;
    return;
  }
  const double qmin = kMin, qmax = kMax;
  const double s = (rmax - rmin) / (qmax - qmin);
  const double zero_from_min = qmin - rmin / s;
  const double zero_from_max = qmax - rmax / s;
  const double error_from_min = std::fabs(qmin) + std::fabs(rmin / s);
  const double error_from_max = std::fabs(qmax) + std::fabs(rmax / s);
  const double zero_double = error_from_min < error_from_max ? zero_from_min : zero_from_max;
  int32_t nudged = 0;
  if (zero_double <= qmin) {
    nudged = kMin;
  } else if (zero_double >= qmax) {
    nudged = kMax;
  } else {
    nudged = static_cast<int32_t>(std::round(zero_double));
  }
  *scale = static_cast<float>(s);
  *zero_point = nudged;
  const float inverse = 1.0f / *scale;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t q = RoundToInt32(static_cast<float>(nudged) + values[i] * inverse);
    quantized[i] = static_cast<int8_t>(std::clamp(q, kMin, kMax));
  }
}

// Packed int4 (two per byte, the low nibble first) to one int8 per value, sign-extended.
inline void UnpackInt4(const uint8_t* packed, int64_t n, int8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t byte = packed[i / 2];
    const int nibble = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
    out[i] = static_cast<int8_t>(nibble >= 8 ? nibble - 16 : nibble);
  }
}

}  // namespace edgerun::quant
