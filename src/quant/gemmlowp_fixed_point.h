// gemmlowp-style fixed-point numbers and the math functions TFLite's integer kernels evaluate
// with them (exp on negative values, tanh, logistic, 1/sqrt). Scalar only; raw types int16_t and
// int32_t. Results are bit-exact with gemmlowp's scalar code: every rounding, saturation and
// wrap-around below mirrors it.
//
// A FixedPoint<Raw, I> holds raw / 2^F with F = bits(Raw) - 1 - I fractional bits, i.e. values in
// [-2^I, 2^I).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace edgerun::quant::fp {

// ---- raw integer primitives

template <class Raw>
constexpr int kRawBits = 8 * static_cast<int>(sizeof(Raw));

// Plain +, - and negation wrap around (modular), as gemmlowp's scalar code does on its targets.
template <class Raw>
Raw WrapAdd(Raw a, Raw b) {
  using U = std::make_unsigned_t<Raw>;
  return static_cast<Raw>(static_cast<U>(static_cast<uint32_t>(static_cast<U>(a)) + static_cast<U>(b)));
}
template <class Raw>
Raw WrapSub(Raw a, Raw b) {
  using U = std::make_unsigned_t<Raw>;
  return static_cast<Raw>(static_cast<U>(static_cast<uint32_t>(static_cast<U>(a)) - static_cast<U>(b)));
}
template <class Raw>
Raw WrapNeg(Raw a) {
  return WrapSub<Raw>(0, a);
}

// round(a * b / 2^(bits-1)), the one overflowing product (min * min) saturated (ARM VQRDMULH).
template <class Raw>
Raw SaturatingRoundingDoublingHighMul(Raw a, Raw b) {
  constexpr Raw kMin = std::numeric_limits<Raw>::min();
  if (a == kMin && b == kMin) return std::numeric_limits<Raw>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  constexpr int64_t kHalf = int64_t{1} << (kRawBits<Raw> - 2);
  const int64_t nudge = ab >= 0 ? kHalf : 1 - kHalf;
  // Division truncates toward zero, which is what makes the nudge round to nearest.
  return static_cast<Raw>((ab + nudge) / (int64_t{1} << (kRawBits<Raw> - 1)));
}

// x / 2^exponent, rounded to nearest with ties away from zero.
template <class Raw>
Raw RoundingDivideByPOT(Raw x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = static_cast<int32_t>(x) & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<Raw>((static_cast<int32_t>(x) >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^Exponent: a saturating left shift for Exponent > 0, a rounding right shift for < 0.
template <int Exponent, class Raw>
Raw SaturatingRoundingMultiplyByPOT(Raw x) {
  if constexpr (Exponent == 0) {
    return x;
  } else if constexpr (Exponent < 0) {
    return RoundingDivideByPOT<Raw>(x, -Exponent);
  } else {
    constexpr int32_t kThreshold = (int32_t{1} << (kRawBits<Raw> - 1 - Exponent)) - 1;
    if (x > kThreshold) return std::numeric_limits<Raw>::max();
    if (x < -kThreshold) return std::numeric_limits<Raw>::min();
    return static_cast<Raw>(static_cast<int64_t>(x) * (int64_t{1} << Exponent));
  }
}

// The same with a run-time exponent (TFLite's SaturatingRoundingMultiplyByPOTParam, exponent >= 0).
template <class Raw>
Raw SaturatingLeftShiftParam(Raw x, int exponent) {
  if (exponent == 0) return x;
  const int64_t threshold = (int64_t{1} << (kRawBits<Raw> - 1 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<Raw>::max();
  if (x < -threshold) return std::numeric_limits<Raw>::min();
  return static_cast<Raw>(static_cast<int64_t>(x) * (int64_t{1} << exponent));
}

// (a + b) / 2 rounded to nearest, ties away from zero (ARM VRHADD for the ranges used here).
template <class Raw>
Raw RoundingHalfSum(Raw a, Raw b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<Raw>((sum + sign) / 2);
}

// a + b, saturating for 16-bit raw values and wrapping for 32-bit ones (gemmlowp's
// AddSaturatingIf16Bit).
template <class Raw>
Raw AddSaturatingIf16Bit(Raw a, Raw b) {
  if constexpr (sizeof(Raw) == 2) {
    return static_cast<Raw>(std::clamp<int32_t>(int32_t{a} + int32_t{b}, -32768, 32767));
  } else {
    return WrapAdd<Raw>(a, b);
  }
}

// ---- the fixed-point type

template <class Raw, int IntegerBits>
struct FixedPoint {
  static_assert(std::is_same_v<Raw, int16_t> || std::is_same_v<Raw, int32_t>);
  static_assert(IntegerBits >= 0 && IntegerBits < kRawBits<Raw>);
  static constexpr int kIntegerBits = IntegerBits;
  static constexpr int kFractionalBits = kRawBits<Raw> - 1 - IntegerBits;

  Raw raw = 0;

  static FixedPoint FromRaw(Raw r) { return FixedPoint{r}; }
  static FixedPoint Zero() { return FromRaw(0); }
  // 1.0, or the largest value below it when there are no integer bits.
  static FixedPoint One() {
    if constexpr (IntegerBits == 0) {
      return FromRaw(std::numeric_limits<Raw>::max());
    } else {
      return FromRaw(static_cast<Raw>(Raw{1} << kFractionalBits));
    }
  }
  // 2^Exponent, exactly representable.
  template <int Exponent>
  static FixedPoint ConstantPOT() {
    static_assert(kFractionalBits + Exponent >= 0 && kFractionalBits + Exponent < kRawBits<Raw> - 1);
    return FromRaw(static_cast<Raw>(Raw{1} << (kFractionalBits + Exponent)));
  }
  // A constant given as its 32-bit raw value; 16-bit types take it rounded to their precision.
  static FixedPoint FromInt32Constant(int32_t raw32) {
    if constexpr (sizeof(Raw) == 2) {
      return FromRaw(static_cast<Raw>(RoundingDivideByPOT<int32_t>(raw32, 16)));
    } else {
      return FromRaw(raw32);
    }
  }
};

template <class Raw, int A, int B>
FixedPoint<Raw, A + B> operator*(FixedPoint<Raw, A> a, FixedPoint<Raw, B> b) {
  return FixedPoint<Raw, A + B>::FromRaw(SaturatingRoundingDoublingHighMul<Raw>(a.raw, b.raw));
}
template <class Raw, int I>
FixedPoint<Raw, I> operator+(FixedPoint<Raw, I> a, FixedPoint<Raw, I> b) {
  return FixedPoint<Raw, I>::FromRaw(WrapAdd<Raw>(a.raw, b.raw));
}
template <class Raw, int I>
FixedPoint<Raw, I> operator-(FixedPoint<Raw, I> a, FixedPoint<Raw, I> b) {
  return FixedPoint<Raw, I>::FromRaw(WrapSub<Raw>(a.raw, b.raw));
}
template <class Raw, int I>
FixedPoint<Raw, I> operator-(FixedPoint<Raw, I> a) {
  return FixedPoint<Raw, I>::FromRaw(WrapNeg<Raw>(a.raw));
}

// Same raw value, the binary point moved: an exact multiplication by 2^Exponent.
template <int Exponent, class Raw, int I>
FixedPoint<Raw, I + Exponent> ExactMulByPot(FixedPoint<Raw, I> a) {
  return FixedPoint<Raw, I + Exponent>::FromRaw(a.raw);
}

// Same value in a format with Dst integer bits (saturating when it does not fit).
template <int Dst, class Raw, int Src>
FixedPoint<Raw, Dst> Rescale(FixedPoint<Raw, Src> x) {
  return FixedPoint<Raw, Dst>::FromRaw(SaturatingRoundingMultiplyByPOT<Src - Dst>(x.raw));
}

template <int Exponent, class Raw, int I>
FixedPoint<Raw, I> SaturatingRoundingMultiplyByPOT(FixedPoint<Raw, I> a) {
  return FixedPoint<Raw, I>::FromRaw(SaturatingRoundingMultiplyByPOT<Exponent>(a.raw));
}

// ---- math functions

// exp(x) for x in [-1/4, 0): Taylor expansion around -1/8.
template <class Raw>
FixedPoint<Raw, 0> ExpOnIntervalNegativeQuarterTo0(FixedPoint<Raw, 0> a) {
  using F = FixedPoint<Raw, 0>;
  const F exp_minus_one_eighth = F::FromInt32Constant(1895147668);
  const F one_third = F::FromInt32Constant(715827883);
  const F x = a + F::template ConstantPOT<-3>();
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4_over_4 = SaturatingRoundingMultiplyByPOT<-2>(x4);
  const F poly = SaturatingRoundingMultiplyByPOT<-1>(((x4_over_4 + x3) * one_third) + x2);
  return F::FromRaw(AddSaturatingIf16Bit<Raw>(exp_minus_one_eighth.raw, (exp_minus_one_eighth * (x + poly)).raw));
}

// exp(x) for x <= 0: exp of the remainder modulo 1/4, times exp(-2^k) for each set bit above.
template <class Raw, int I>
FixedPoint<Raw, 0> ExpOnNegativeValues(FixedPoint<Raw, I> a) {
  using InF = FixedPoint<Raw, I>;
  using OutF = FixedPoint<Raw, 0>;
  constexpr int kFrac = InF::kFractionalBits;
  const InF one_quarter = InF::template ConstantPOT<-2>();
  const InF mask = one_quarter - InF::FromRaw(1);
  const InF a_mod_quarter_minus_quarter = InF::FromRaw(static_cast<Raw>(a.raw & mask.raw)) - one_quarter;
  OutF result = ExpOnIntervalNegativeQuarterTo0(Rescale<0>(a_mod_quarter_minus_quarter));
  const Raw remainder = (a_mod_quarter_minus_quarter - a).raw;

  // exp(-2^k) for k = -2..4, as Q0.31 constants.
  constexpr int32_t kExpMinusPow2[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (I <= k) continue;
    const int shift = kFrac + k;
    if (shift >= kRawBits<Raw>) continue;
    if ((static_cast<int64_t>(remainder) & (int64_t{1} << shift)) != 0) {
      result = result * OutF::FromInt32Constant(kExpMinusPow2[k + 2]);
    }
  }
  if constexpr (I > 5) {
    // Below -32 the result is 0.
    const InF clamp = InF::FromInt32Constant(-(int32_t{1} << (36 - I)));
    if (a.raw < clamp.raw) result = OutF::Zero();
  }
  if (a.raw == 0) result = OutF::One();
  return result;
}

// (1 - x) / (1 + x) for x in (0, 1): Newton-Raphson division.
template <class Raw>
FixedPoint<Raw, 0> OneMinusXOverOnePlusX(FixedPoint<Raw, 0> a) {
  using F0 = FixedPoint<Raw, 0>;
  using F2 = FixedPoint<Raw, 2>;
  const F0 half_denominator = F0::FromRaw(RoundingHalfSum<Raw>(a.raw, F0::One().raw));
  const F2 c48_over_17 = F2::FromInt32Constant(1515870810);
  const F2 c_neg32_over_17 = F2::FromInt32Constant(-1010580540);
  F2 x = c48_over_17 + half_denominator * c_neg32_over_17;
  for (int i = 0; i < 3; ++i) {
    const F2 half_denominator_times_x = half_denominator * x;
    const F2 one_minus = F2::One() - half_denominator_times_x;
    x = x + Rescale<2>(x * one_minus);
  }
  return Rescale<0>(x - F2::One());
}

// 1 / (1 + x) for x in (0, 1): Newton-Raphson division.
template <class Raw>
FixedPoint<Raw, 0> OneOverOnePlusX(FixedPoint<Raw, 0> a) {
  using F0 = FixedPoint<Raw, 0>;
  using F2 = FixedPoint<Raw, 2>;
  const F0 half_denominator = F0::FromRaw(RoundingHalfSum<Raw>(a.raw, F0::One().raw));
  const F2 c48_over_17 = F2::FromInt32Constant(1515870810);
  const F2 c_neg32_over_17 = F2::FromInt32Constant(-1010580540);
  F2 x = c48_over_17 + half_denominator * c_neg32_over_17;
  for (int i = 0; i < 3; ++i) {
    const F2 half_denominator_times_x = half_denominator * x;
    const F2 one_minus = F2::One() - half_denominator_times_x;
    x = x + Rescale<2>(x * one_minus);
  }
  return Rescale<0>(ExactMulByPot<-1>(x));
}

// tanh(x) = (1 - exp(-2|x|)) / (1 + exp(-2|x|)) with the sign of x.
template <class Raw, int I>
FixedPoint<Raw, 0> Tanh(FixedPoint<Raw, I> a) {
  using InF = FixedPoint<Raw, I>;
  using OutF = FixedPoint<Raw, 0>;
  if (a.raw == 0) return OutF::Zero();
  const bool negative = a.raw < 0;
  const InF non_positive = negative ? a : -a;
  const OutF t = OneMinusXOverOnePlusX(ExpOnNegativeValues(ExactMulByPot<1>(non_positive)));
  return negative ? -t : t;
}

// logistic(x) = 1 / (1 + exp(-x)), through |x| and 1 - f(|x|) for negative x.
template <class Raw, int I>
FixedPoint<Raw, 0> Logistic(FixedPoint<Raw, I> a) {
  using InF = FixedPoint<Raw, I>;
  using OutF = FixedPoint<Raw, 0>;
  if (a.raw == 0) return OutF::FromInt32Constant(int32_t{1} << 30);  // 0.5
  const bool positive = a.raw > 0;
  const InF magnitude = positive ? a : -a;
  const OutF on_positive = OneOverOnePlusX(ExpOnNegativeValues(-magnitude));
  return positive ? on_positive : OutF::One() - on_positive;
}

// 1/sqrt(input) as a multiplier and shift for MultiplyByQuantizedMultiplier (TFLite's
// GetInvSqrtQuantizedMultiplierExp): Newton-Raphson in Q3.28. reverse_shift is -1 to return a
// right shift as a negative left shift.
inline void InvSqrtQuantizedMultiplierExp(int32_t input, int reverse_shift, int32_t* multiplier, int* shift) {
  if (input <= 1) {
    // 0 (invalid) and 1 are treated alike, as TFLite does.
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  *shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++*shift;
  }
  const int leading_zeros = __builtin_clz(static_cast<uint32_t>(input));
  const int max_left_shift_bit_pairs = (leading_zeros - 1) / 2;
  const int left_shift_bit_pairs = max_left_shift_bit_pairs - 1;
  *shift -= left_shift_bit_pairs;
  input <<= 2 * left_shift_bit_pairs;
  using F3 = FixedPoint<int32_t, 3>;
  using F0 = FixedPoint<int32_t, 0>;
  const F3 fixed_input = F3::FromRaw(input >> 1);
  const F3 half_input = SaturatingRoundingMultiplyByPOT<-1>(fixed_input);
  const F3 three_halves = F3::FromRaw((1 << 28) + (1 << 27));
  F3 x = F3::One();
  for (int i = 0; i < 5; ++i) {
    const F3 x3 = Rescale<3>(x * x * x);
    x = Rescale<3>(three_halves * x - half_input * x3);
  }
  const F0 half_sqrt2 = F0::FromRaw(1518500250);
  x = x * half_sqrt2;
  *multiplier = x.raw;
  if (*shift < 0) {
    *multiplier <<= -*shift;
    *shift = 0;
  }
  *shift *= reverse_shift;
}

}  // namespace edgerun::quant::fp
