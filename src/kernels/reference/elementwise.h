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
