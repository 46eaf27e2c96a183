// Element-wise math on plain values: rounding, floor division, and the integer machinery of
// TFLite's quantized unary kernels (lookup tables, the fixed-point inverse square root).
// Everything lives in reference::math so that helpers of other areas cannot collide with these.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/reference/broadcast.h"
#include "quant/fixed_point.h"

namespace edgerun::reference::math {

// Round half to even (TFLite's ROUND, numpy's round).
inline float RoundHalfToEven(float x) {
  const float floor_value = std::floor(x);
  const float diff = x - floor_value;
  if (diff < 0.5f) return floor_value;
  if (diff > 0.5f) return floor_value + 1.0f;
  return std::fmod(floor_value, 2.0f) == 0.0f ? floor_value : floor_value + 1.0f;
}

// floor(a / b) for integers; b != 0 (the caller checks). The one overflowing quotient
// (lowest / -1) wraps as two's complement, like TFLite on its targets.
template <class T>
T FloorDivInt(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(0) - static_cast<std::make_unsigned_t<T>>(a));
  }
  // Narrow types promote to int, so a / b cannot overflow there.
  T q = static_cast<T>(a / b);
  if ((a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
  return q;
}

// a - floor(a / b) * b with the sign of b; integers (b != 0) and floats (fmod based, as TFLite).
template <class T>
T FloorMod(T a, T b) {
  T trunc_mod;
  if constexpr (std::is_integral_v<T>) {
    if (std::is_signed_v<T> && b == static_cast<T>(-1)) return 0;  // avoids lowest % -1
    trunc_mod = static_cast<T>(a % b);
  } else {
    trunc_mod = std::fmod(a, b);
  }
  if (trunc_mod != 0 && ((b < 0) != (trunc_mod < 0))) return static_cast<T>(trunc_mod + b);
  return trunc_mod;
}

// Calls f(a_index, b_index, c_index, out_index) for every element of out_shape, with a, b and c
// broadcast to it (numpy rules; each shape's rank is at most the output's).
template <class F>
void ForEachBroadcast3(const Shape& a_shape, const Shape& b_shape, const Shape& c_shape, const Shape& out_shape,
                       F&& f) {
  const int64_t total = NumElements(out_shape);
  if (total <= 0) return;
  const size_t rank = out_shape.size();
  if (rank == 0) {
    f(0, 0, 0, 0);
    return;
  }
  const std::vector<int64_t> sa = BroadcastStrides(a_shape, rank);
  const std::vector<int64_t> sb = BroadcastStrides(b_shape, rank);
  const std::vector<int64_t> sc = BroadcastStrides(c_shape, rank);
  const int64_t inner = out_shape[rank - 1];
  std::vector<int32_t> index(rank, 0);
  int64_t a = 0, b = 0, c = 0;
  for (int64_t out = 0; out < total; out += inner) {
    for (int64_t k = 0; k < inner; ++k) f(a + k * sa[rank - 1], b + k * sb[rank - 1], c + k * sc[rank - 1], out + k);
    // Advance the outer index (all but the last dim) like an odometer.
    for (int d = static_cast<int>(rank) - 2; d >= 0; --d) {
      if (++index[d] < out_shape[d]) {
        a += sa[d];
        b += sb[d];
        c += sc[d];
        break;
      }
      a -= sa[d] * (out_shape[d] - 1);
      b -= sb[d] * (out_shape[d] - 1);
      c -= sc[d] * (out_shape[d] - 1);
      index[d] = 0;
    }
  }
}

// ---- lookup tables of quantized unary functions (TFLite's LUTPopulate / LUTLookup)

// 256 entries indexed by the input's byte: lut[uint8(q)] = quantize(fn(dequantize(q))).
template <class T, class Fn>
void PopulateLut8(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point, Fn fn,
                  T* lut) {
  static_assert(sizeof(T) == 1, "8-bit table");
  const float inverse_scale = 1.0f / output_scale;
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int32_t q = lo; q <= hi; ++q) {
    const float x = input_scale * static_cast<float>(q - input_zero_point);
    const float rescaled = std::round(fn(x) * inverse_scale);
    // Clamping in float keeps the conversion defined for huge values and infinities.
    const float clamped = std::isnan(rescaled) ? static_cast<float>(lo)
                                               : std::clamp(rescaled + static_cast<float>(output_zero_point),
                                                            static_cast<float>(lo), static_cast<float>(hi));
    lut[static_cast<uint8_t>(static_cast<T>(q))] = static_cast<T>(clamped);
  }
}

template <class T>
T LookupLut8(T value, const T* lut) {
  return lut[static_cast<uint8_t>(value)];
}

inline constexpr int kLut16Size = 513;

// int16 -> int16 table of 512 segments plus an end point, sampled over the whole input range
// with a bias that centres each segment's linear interpolation error (symmetric int16 only).
template <class Fn>
void PopulateLut16(float input_scale, int32_t input_zero_point, float output_scale, Fn fn, int16_t* lut) {
  const float input_min = input_scale * static_cast<float>(std::numeric_limits<int16_t>::min() - input_zero_point);
  const float input_max = input_scale * static_cast<float>(std::numeric_limits<int16_t>::max() - input_zero_point);
  const float output_min = output_scale * static_cast<float>(std::numeric_limits<int16_t>::min());
  const float output_max = output_scale * static_cast<float>(std::numeric_limits<int16_t>::max());
  constexpr int kSteps = 512;
  const float step = (input_max - input_min) / kSteps;
  const float half_step = step / 2;
  const float to_output = 65536.0f / (output_max - output_min);
  const float table_min = std::numeric_limits<int16_t>::min(), table_max = std::numeric_limits<int16_t>::max();
  auto clamp_to_table = [&](float v) { return std::isnan(v) ? 0.0f : std::clamp(v, table_min, table_max); };
  for (int i = 0; i < kSteps; ++i) {
    const float value = fn(input_min + i * step);
    const float value_mid = fn(input_min + i * step + half_step);
    const float value_next = fn(input_min + (i + 1) * step);
    const float sample = std::round(value * to_output);
    const float interpolated_mid = std::round((value_next * to_output + std::round(value * to_output)) / 2);
    const float exact_mid = std::round(value_mid * to_output);
    const float bias = std::round((interpolated_mid - exact_mid) / 2);
    lut[i] = static_cast<int16_t>(clamp_to_table(sample - bias));
  }
  lut[kSteps] = static_cast<int16_t>(clamp_to_table(std::round(fn(input_max) * to_output)));
}

// The high 9 bits pick the segment, the low 7 bits interpolate inside it.
inline int16_t LookupLut16(int16_t value, const int16_t* lut) {
  const int index = 256 + (value >> 7);
  const int offset = value & 0x7f;
  const int base = lut[index];
  const int slope = lut[index + 1] - lut[index];
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

// ---- fixed-point inverse square root (TFLite's GetInvSqrtQuantizedMultiplierExp)

// 1 / sqrt(input) as a Q0.31 multiplier and a left shift (for input >= 0; 0 and 1 map to the
// largest multiplier). Newton-Raphson in gemmlowp's fixed point with 3 integer bits.
inline void InvSqrtQuantizedMultiplierExp(int32_t input, int32_t* multiplier, int* left_shift) {
  using quant::RoundingDivideByPOT;
  using quant::SaturatingLeftShift;
  using quant::SaturatingRoundingDoublingHighMul;
  if (input <= 1) {
    *multiplier = std::numeric_limits<int32_t>::max();
    *left_shift = 0;
    return;
  }
  int right_shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++right_shift;
  }
  const int headroom_pairs = (__builtin_clz(static_cast<uint32_t>(input)) - 1) / 2 - 1;
  right_shift -= headroom_pairs;
  input <<= 2 * headroom_pairs;  // now in [2^27, 2^29)
  // Raw values of FixedPoint<int32, 3> (one is 2^28); a product of F3 values is F6, of three F9.
  const int32_t half_input = RoundingDivideByPOT(input >> 1, 1);
  const int32_t three_halves = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    const int32_t x_cubed =
        SaturatingLeftShift(SaturatingRoundingDoublingHighMul(SaturatingRoundingDoublingHighMul(x, x), x), 6);
    const int32_t difference =
        static_cast<int32_t>(static_cast<uint32_t>(SaturatingRoundingDoublingHighMul(three_halves, x)) -
                             static_cast<uint32_t>(SaturatingRoundingDoublingHighMul(half_input, x_cubed)));
    x = SaturatingLeftShift(difference, 3);
  }
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2) / 2 in Q0.31
  x = SaturatingRoundingDoublingHighMul(x, kHalfSqrt2);
  if (right_shift < 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x) << -right_shift);
    right_shift = 0;
  }
  *multiplier = x;
  *left_shift = -right_shift;
}

}  // namespace edgerun::reference::math
