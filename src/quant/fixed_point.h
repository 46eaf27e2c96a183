// Fixed-point arithmetic of TFLite's quantized kernels (gemmlowp conventions), in one place.
// Every quantized kernel uses these so that results match TFLite bit for bit:
//   real_multiplier ~= quantized_multiplier * 2^(shift - 31), quantized_multiplier in [2^30, 2^31)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace edgerun::quant {

// round(a * b / 2^31), saturating the one overflowing case (INT32_MIN * INT32_MIN).
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // Division (not a shift) rounds toward zero, as gemmlowp does.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero. exponent in [0, 31].
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * 2^exponent, saturating to int32 (gemmlowp's SaturatingRoundingMultiplyByPOT for
// non-negative exponents).
inline int32_t SaturatingLeftShift(int32_t x, int exponent) {
  const int64_t v = static_cast<int64_t>(x) * (int64_t{1} << exponent);
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

// x * real_multiplier with TFLite's default (double) rounding: a left shift for shift > 0,
// the doubling high multiply, then a rounding right shift.
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t quantized_multiplier, int shift) {
  // A shift of 32 or more only comes from an absurd scale in a crafted file; shifting a 32-bit
  // value that far is undefined, so it stops at 31.
  const int left_shift = shift > 0 ? std::min(shift, 31) : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // The left shift wraps like TFLite's `x * (1 << left_shift)` on its targets.
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, quantized_multiplier), right_shift);
}

// The 64-bit accumulator variant (int16 activations x int8 weights): the multiplier is reduced to
// 16 bits first, exactly as TFLite does.
// The product and the rounding term wrap (in unsigned arithmetic) where TFLite's int64 arithmetic
// would overflow, e.g. on a crafted int64 bias; for every sum that fits, the result is TFLite's.
// The Q0.31 multiplier rounded to the 16 bits the int64 variant multiplies by; its right shift is
// then 15 - shift.
inline int32_t ReducedMultiplier16(int32_t quantized_multiplier) {
  return quantized_multiplier < 0x7FFF0000 ? ((quantized_multiplier + (1 << 15)) >> 16) : 0x7FFF;
}
inline int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t quantized_multiplier, int shift) {
  const int32_t reduced = ReducedMultiplier16(quantized_multiplier);
  const int total_shift = 15 - shift;
  const uint64_t product = static_cast<uint64_t>(x) * static_cast<uint64_t>(static_cast<int64_t>(reduced));
  if (total_shift <= 0) {  // a multiplier of 2^15 or more: no rounding, a left shift
    return static_cast<int32_t>(static_cast<int64_t>(product << std::min(-total_shift, 63)));
  }
  const uint64_t rounded = product + (uint64_t{1} << (std::min(total_shift, 64) - 1));
  return static_cast<int32_t>(static_cast<int64_t>(rounded) >> std::min(total_shift, 63));
}

// For multipliers < 1 (shift <= 0): high multiply, then rounding right shift by -shift.
inline int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t quantized_multiplier, int shift) {
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, quantized_multiplier), -shift);
}

// For multipliers > 1 (left_shift >= 0).
inline int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t quantized_multiplier, int left_shift) {
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return SaturatingRoundingDoublingHighMul(shifted, quantized_multiplier);
}

// Splits a positive real multiplier into a Q0.31 multiplier and a power-of-two shift (TFLite's
// QuantizeMultiplier). Returns false for a multiplier that is negative, NaN or infinite.
inline bool QuantizeMultiplier(double real_multiplier, int32_t* quantized_multiplier, int* shift) {
  if (real_multiplier == 0.0) {
    *quantized_multiplier = 0;
    *shift = 0;
    return true;
  }
  if (!(real_multiplier > 0.0) || !std::isfinite(real_multiplier)) return false;
  const double q = std::frexp(real_multiplier, shift);
  auto q_fixed = static_cast<int64_t>(std::round(q * (int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  // Shifting out every bit: represent the multiplier as zero instead.
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *quantized_multiplier = static_cast<int32_t>(q_fixed);
  return true;
}

// TFLite's QuantizeMultiplierSmallerThanOneExp: the multiplier must be in (0, 1).
inline bool QuantizeMultiplierSmallerThanOneExp(double real_multiplier, int32_t* quantized_multiplier, int* shift) {
  if (!(real_multiplier < 1.0)) return false;
  return QuantizeMultiplier(real_multiplier, quantized_multiplier, shift) && *shift <= 0;
}

// TFLite's QuantizeMultiplierGreaterThanOne: the multiplier must be > 1.
inline bool QuantizeMultiplierGreaterThanOne(double real_multiplier, int32_t* quantized_multiplier, int* left_shift) {
  if (!(real_multiplier > 1.0)) return false;
  return QuantizeMultiplier(real_multiplier, quantized_multiplier, left_shift) && *left_shift >= 0;
}

// Clamp to the range of T.
template <class T>
T SaturateCast(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

}  // namespace edgerun::quant
