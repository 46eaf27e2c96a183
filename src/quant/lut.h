// Look-up tables for quantized element-wise functions, built the way TFLite builds them in its
// ops' Prepare (LUTPopulate), so that table-driven kernels give TFLite's exact bytes.
//   8-bit: 256 entries, one per input byte (an int8 value v is stored at index uint8_t(v)).
//   16-bit: 513 entries sampling the input range in 512 steps; a lookup interpolates linearly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace edgerun::quant {

// Fills lut[256]: out = clamp(round(f(in_scale * (q - in_zp)) / out_scale) + out_zp), in float.
template <class T, class Fn>
void PopulateLut8(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point, Fn f,
                  T* lut) {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>);
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  const float inverse_scale = 1.0f / output_scale;
  for (int32_t q = kMin; q <= kMax; ++q) {
    const float real = input_scale * static_cast<float>(q - input_zero_point);
    const float rescaled = std::round(static_cast<float>(f(real)) * inverse_scale);
    const float shifted = rescaled + static_cast<float>(output_zero_point);
    // Saturate in float first: converting an out-of-range float to int is undefined.
    int32_t value = kMin;
    if (shifted >= static_cast<float>(kMax)) {
      value = kMax;
    } else if (shifted > static_cast<float>(kMin)) {
      value = static_cast<int32_t>(shifted);
    }
    lut[static_cast<uint8_t>(static_cast<T>(q))] = static_cast<T>(value);
  }
}

template <class T>
T LookupLut8(T value, const T* lut) {
  return lut[static_cast<uint8_t>(value)];
}

constexpr int kLut16Size = 513;

// Fills lut[513] for an int16 -> int16 function. Each entry is the sample at the start of its
// step, corrected by half the error that linear interpolation would make at the step's midpoint.
// FloatT is the precision TFLite uses for that table (double for the softmax tables).
template <class FloatT, class Fn>
void PopulateLut16(FloatT input_scale, int32_t input_zero_point, FloatT output_scale, int32_t output_zero_point, Fn f,
                   int16_t* lut) {
  constexpr int32_t kMin = std::numeric_limits<int16_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int16_t>::max();
  const FloatT input_min = input_scale * static_cast<FloatT>(kMin - input_zero_point);
  const FloatT input_max = input_scale * static_cast<FloatT>(kMax - input_zero_point);
  const FloatT output_min = output_scale * static_cast<FloatT>(kMin - output_zero_point);
  const FloatT output_max = output_scale * static_cast<FloatT>(kMax - output_zero_point);
  constexpr int kSteps = kLut16Size - 1;
  const FloatT step = (input_max - input_min) / kSteps;
  const FloatT half_step = step / 2;
  const FloatT output_scaling_inv = static_cast<FloatT>(kMax - kMin + 1) / (output_max - output_min);
  // A NaN sample (RSQRT or LOG of a negative input) becomes 0: converting it to int is undefined.
  auto saturate = [](FloatT v) {
    if (std::isnan(v)) return int16_t{0};
    return static_cast<int16_t>(
        std::min<FloatT>(std::max<FloatT>(v, static_cast<FloatT>(kMin)), static_cast<FloatT>(kMax)));
  };
  for (int i = 0; i < kSteps; ++i) {
    const FloatT value = f(input_min + i * step);
    const FloatT value_midpoint = f(input_min + i * step + half_step);
    const FloatT value_next = f(input_min + (i + 1) * step);
    const FloatT sample = std::round(value * output_scaling_inv);
    const FloatT midpoint_interpolated =
        std::round((value_next * output_scaling_inv + std::round(value * output_scaling_inv)) / 2);
    const FloatT midpoint = std::round(value_midpoint * output_scaling_inv);
    const FloatT bias = std::round((midpoint_interpolated - midpoint) / 2);
    lut[i] = saturate(sample - bias);
  }
  lut[kSteps] = saturate(std::round(f(input_max) * output_scaling_inv));
}

// Interpolated lookup: the top 9 bits of the value pick the step, the low 7 bits the position in it.
inline int16_t LookupLut16(int16_t value, const int16_t* lut) {
  const int index = 256 + (value >> 7);
  const int32_t offset = value & 0x7f;
  const int32_t base = lut[index];
  // The slope is an int16 in TFLite (it wraps for a table with steps over 32767).
  const int32_t slope = static_cast<int16_t>(lut[index + 1] - lut[index]);
  const int32_t delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

}  // namespace edgerun::quant
