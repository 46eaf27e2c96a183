// Integer helpers of TFLite's fully quantized LSTM (8-bit activations, 16-bit gates and cell
// state) and integer SVDF: 16-bit fixed-point sigmoid and tanh (gemmlowp's algorithms on int16
// raw values, bit for bit), the inverse square root multiplier of the integer layer norm, and
// the element-wise gate arithmetic. Everything wraps or saturates exactly where TFLite does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "quant/fixed_point.h"

namespace edgerun::quant {

// ---- 16-bit fixed point (gemmlowp's FixedPoint<int16_t, IntegerBits> arithmetic)
//
// A raw int16 value with k integer bits represents raw / 2^(15 - k). The helpers below take k
// at run time; plain additions wrap to 16 bits as gemmlowp's int16 arithmetic does.

namespace fp16 {

inline int16_t Wrap(int32_t v) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v))); }

// round(a * b / 2^15), saturating -1 * -1.
inline int16_t Mul(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return Wrap((ab + nudge) / (1 << 15));  // division truncates toward zero, as gemmlowp
}

// x / 2^exponent, rounded to nearest with ties away from zero.
inline int16_t RoundingDivideByPOT(int16_t x, int exponent) {
  const int32_t mask = (1 << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return Wrap((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^exponent: saturating for exponent > 0, rounding for exponent < 0.
inline int16_t MultiplyByPOT(int16_t x, int exponent) {
  if (exponent < 0) return RoundingDivideByPOT(x, -exponent);
  if (exponent == 0) return x;
  const int32_t threshold = (1 << (15 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<int16_t>::max();
  if (x < -threshold) return std::numeric_limits<int16_t>::min();
  return Wrap(static_cast<int32_t>(x) * (1 << exponent));
}

// (a + b) / 2 rounded half away from zero.
inline int16_t RoundingHalfSum(int16_t a, int16_t b) {
  const int32_t sum = static_cast<int32_t>(a) + b;
  return Wrap((sum + (sum >= 0 ? 1 : -1)) / 2);
}

inline int16_t SaturatingAdd(int16_t a, int16_t b) {
  return static_cast<int16_t>(std::clamp<int32_t>(static_cast<int32_t>(a) + b, -32768, 32767));
}

// gemmlowp writes its constants as 32-bit raw values and rounds them to 16 bits.
constexpr int16_t Constant(int32_t raw32) {
  const int32_t mask = (1 << 16) - 1;
  const int32_t remainder = raw32 & mask;
  const int32_t threshold = (mask >> 1) + (raw32 < 0 ? 1 : 0);
  return static_cast<int16_t>((raw32 >> 16) + (remainder > threshold ? 1 : 0));
}

constexpr int16_t kOne = 32767;  // 1.0 with 0 integer bits (the largest value)

// exp(a) for a in [-1/4, 0), a with 0 integer bits.
inline int16_t ExpOnIntervalNegativeQuarterToZero(int16_t a) {
  const int16_t constant_term = Constant(1895147668);     // exp(-1/8)
  const int16_t constant_1_over_3 = Constant(715827883);  // 1/3
  const int16_t x = Wrap(a + (1 << 12));                  // a + 1/8
  const int16_t x2 = Mul(x, x);
  const int16_t x3 = Mul(x2, x);
  const int16_t x4 = Mul(x2, x2);
  const int16_t x4_over_4 = RoundingDivideByPOT(x4, 2);
  const int16_t poly = RoundingDivideByPOT(Wrap(Mul(Wrap(x4_over_4 + x3), constant_1_over_3) + x2), 1);
  return SaturatingAdd(constant_term, Mul(constant_term, Wrap(x + poly)));
}

// exp(a) for a <= 0 with `integer_bits` integer bits; the result has 0 integer bits.
inline int16_t ExpOnNegativeValues(int16_t a, int integer_bits) {
  const int fractional_bits = 15 - integer_bits;
  const int16_t one_quarter = static_cast<int16_t>(1 << (fractional_bits - 2));
  const int16_t mask = static_cast<int16_t>(one_quarter - 1);
  const int16_t a_mod_quarter_minus_one_quarter = Wrap((a & mask) - one_quarter);
  int16_t result = ExpOnIntervalNegativeQuarterToZero(MultiplyByPOT(a_mod_quarter_minus_one_quarter, integer_bits));
  const int16_t remainder = Wrap(a_mod_quarter_minus_one_quarter - a);
  // exp(-2^e) for e = -2..4, applied for each bit of the remainder.
  static constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int exponent = -2; exponent <= 4; ++exponent) {
    if (integer_bits <= exponent) continue;
    const int shift = fractional_bits + exponent;
    if (remainder & (1 << shift)) result = Mul(result, Constant(kMultipliers[exponent + 2]));
  }
  if (integer_bits > 5) {
    const int16_t clamp = Constant(-(1 << (36 - integer_bits)));  // -32
    if (a < clamp) result = 0;
  }
  if (a == 0) result = kOne;
  return result;
}

// Newton-Raphson reciprocal shared by tanh and logistic: returns x ~ 1 / (1 + a) with 2 integer
// bits, for a in (0, 1) with 0 integer bits.
inline int16_t ReciprocalOfOnePlus(int16_t a) {
  const int16_t half_denominator = RoundingHalfSum(a, kOne);
  const int16_t constant_48_over_17 = Constant(1515870810);
  const int16_t constant_neg_32_over_17 = Constant(-1010580540);
  const int16_t one_f2 = 1 << 13;  // 1.0 with 2 integer bits
  int16_t x = Wrap(constant_48_over_17 + Mul(half_denominator, constant_neg_32_over_17));
  for (int i = 0; i < 3; ++i) {
    const int16_t half_denominator_times_x = Mul(half_denominator, x);
    const int16_t one_minus = Wrap(one_f2 - half_denominator_times_x);
    x = Wrap(x + MultiplyByPOT(Mul(x, one_minus), 2));
  }
  return x;
}

// tanh(a) for a raw value with `integer_bits` integer bits (0..6); result has 0 integer bits.
inline int16_t Tanh(int16_t a, int integer_bits) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int16_t n = negative ? a : Wrap(-a);
  // -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)) for n < 0; 2n is n with one more integer bit.
  const int16_t e = ExpOnNegativeValues(n, integer_bits + 1);
  const int16_t x = ReciprocalOfOnePlus(e);  // (1 - e) / (1 + e) = 2 / (1 + e) - 1
  const int16_t one_f2 = 1 << 13;
  const int16_t t = MultiplyByPOT(Wrap(x - one_f2), 2);
  return negative ? Wrap(-t) : t;
}

// logistic(a) for a raw value with `integer_bits` integer bits; result has 0 integer bits.
inline int16_t Logistic(int16_t a, int integer_bits) {
  if (a == 0) return 1 << 14;  // 0.5
  const bool positive = a > 0;
  const int16_t abs_input = positive ? a : Wrap(-a);
  const int16_t e = ExpOnNegativeValues(Wrap(-abs_input), integer_bits);
  // 1 / (1 + e): the reciprocal has 2 integer bits; halve it exactly (1 integer bit) and rescale.
  const int16_t result_if_positive = MultiplyByPOT(ReciprocalOfOnePlus(e), 1);
  return positive ? result_if_positive : Wrap(kOne - result_if_positive);
}

}  // namespace fp16

// ---- 32-bit helpers

// 1 / sqrt(input) as a multiplier and shift (TFLite's GetInvSqrtQuantizedMultiplierExp): the
// result is applied with MultiplyByQuantizedMultiplier(x, *multiplier, *shift) when
// reverse_shift is -1.
inline void InvSqrtQuantizedMultiplier(int32_t input, int reverse_shift, int32_t* multiplier, int* shift) {
  if (input <= 1) {
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  *shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++*shift;
  }
  int leading_zeros = 0;
  for (uint32_t v = static_cast<uint32_t>(input); (v & 0x80000000u) == 0; v <<= 1) ++leading_zeros;
  const unsigned max_left_shift_bit_pairs = static_cast<unsigned>(leading_zeros - 1) / 2;
  const unsigned left_shift_bit_pairs = max_left_shift_bit_pairs - 1;
  *shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;
  // Newton-Raphson on 32-bit fixed point with 3 integer bits (raw / 2^28); gemmlowp's
  // saturating rescales are saturating left shifts.
  const int32_t fixed_input = input >> 1;
  const int32_t half_input = RoundingDivideByPOT(fixed_input, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);  // 1.5
  int32_t x = 1 << 28;                               // 1.0
  for (int i = 0; i < 5; ++i) {
    // x*x*x has 9 integer bits; back to 3 is a saturating left shift by 6.
    const int32_t x3 = SaturatingLeftShift(
        SaturatingRoundingDoublingHighMul(SaturatingRoundingDoublingHighMul(x, x), x), 6);
    const int32_t difference = static_cast<int32_t>(
        static_cast<uint32_t>(SaturatingRoundingDoublingHighMul(half_three, x)) -
        static_cast<uint32_t>(SaturatingRoundingDoublingHighMul(half_input, x3)));
    x = SaturatingLeftShift(difference, 3);
  }
  const int32_t half_sqrt_2 = 1518500250;  // sqrt(2)/2 with 0 integer bits
  x = SaturatingRoundingDoublingHighMul(x, half_sqrt_2);
  *multiplier = x;
  if (*shift < 0) {
    *multiplier = static_cast<int32_t>(static_cast<uint32_t>(*multiplier) << -*shift);
    *shift = 0;
  }
  *shift *= reverse_shift;
}

// log2(x) when x is a power of two (within TFLite's 1e-3 tolerance), as TFLite's CheckedLog2.
inline bool CheckedLog2(float x, int* log2_result) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float x_log2_rounded = std::round(x_log2);
  if (!std::isfinite(x_log2_rounded)) return false;
  *log2_result = static_cast<int>(x_log2_rounded);
  return std::abs(x_log2 - x_log2_rounded) < 1e-3f;
}

}  // namespace edgerun::quant
