// Integer helpers of TFLite's quantized arithmetic beyond fixed_point.h: the int16 Q0.15 multiply,
// rounding shifts that tolerate any exponent, gemmlowp's Newton-Raphson reciprocal (quantized
// DIV) and the power-of-two scale test of the int16 ADD/SUB path.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "quant/fixed_point.h"

namespace edgerun::quant {

// round(a * b / 2^15) for two Q0.15 values, saturating -1 * -1 to the largest value
// (gemmlowp's int16 SaturatingRoundingDoublingHighMul).
inline int16_t SaturatingRoundingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// x / 2^exponent rounded to nearest (ties away from zero) for any exponent: a negative exponent
// is a saturating left shift, and 32 or more shifts everything out.
inline int32_t RoundingShiftRight(int32_t x, int exponent) {
  if (exponent <= 0) return SaturatingLeftShift(x, std::min(-exponent, 32));
  if (exponent >= 32) return 0;
  return RoundingDivideByPOT(x, exponent);
}

// Redundant sign bits of x: 31 for 0 and -1, 0 for values using every bit.
inline int CountLeadingSignBits(int32_t x) { return __builtin_clrsb(x); }

// Leading zero bits of x (32 for 0).
inline int CountLeadingZeros(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }

// 1 / (1 + a) for a in [0, 1) as Q0.31, by three Newton-Raphson steps in gemmlowp's fixed-point
// formats (Q2.29 iterate), reproducing gemmlowp's one_over_one_plus_x_for_x_in_0_1 bit for bit.
inline int32_t OneOverOnePlusX(int32_t a_q0_31) {
  const int32_t one_q0_31 = std::numeric_limits<int32_t>::max();
  // (a + 1) / 2, rounded half away from zero.
  const int64_t sum = int64_t{a_q0_31} + one_q0_31;
  const int32_t half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  constexpr int32_t k48Over17 = 1515870810;     // 48/17 in Q2.29
  constexpr int32_t kNeg32Over17 = -1010580540;  // -32/17 in Q2.29
  constexpr int32_t kOneQ2_29 = 1 << 29;
  // Q0.31 * Q2.29 -> Q2.29 and Q2.29 * Q2.29 -> Q4.27 are both the doubling high multiply.
  int32_t x = static_cast<int32_t>(static_cast<uint32_t>(k48Over17) +
                                   static_cast<uint32_t>(SaturatingRoundingDoublingHighMul(half_denominator, kNeg32Over17)));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus = static_cast<int32_t>(static_cast<uint32_t>(kOneQ2_29) -
                                                   static_cast<uint32_t>(half_denominator_times_x));
    // Q4.27 back to Q2.29: saturating shift left by 2.
    const int32_t correction = SaturatingLeftShift(SaturatingRoundingDoublingHighMul(x, one_minus), 2);
    x = static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(correction));
  }
  // x / 2 reinterpreted in Q1.30, then back to Q0.31: saturating shift left by 1.
  return SaturatingLeftShift(x, 1);
}

// 1 / x for x > 0 (an integer with `integer_digits` integer bits) as a Q0.31 multiplier and the
// number of bits it lies above one (TFLite's GetReciprocal).
inline int32_t GetReciprocal(int32_t x, int integer_digits, int* bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros(static_cast<uint32_t>(x));
  *bits_over_unit = integer_digits - headroom_plus_one;
  const int32_t shifted_minus_one = static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) -
                                                         (uint32_t{1} << 31));
  return OneOverOnePlusX(shifted_minus_one);
}

// True when `scale` is a power of two (within TFLite's 1e-3 tolerance on log2); `log2` gets the
// rounded exponent (TFLite's CheckedLog2).
inline bool CheckedLog2(float scale, int* log2) {
  const float x_log2 = std::log(scale) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  if (!std::isfinite(rounded)) return false;
  *log2 = static_cast<int>(rounded);
  return std::fabs(x_log2 - rounded) < 1e-3f;
}

}  // namespace edgerun::quant
