// Element functions of TFLite's quantized binary arithmetic (ADD, SUB, MUL, DIV) and of
// requantization, on stored integer values. Offsets are the negated input zero points and the
// output zero point; every result is clamped to [act_min, act_max], the fused activation's range
// in the output type.
#pragma once

#include <algorithm>
#include <cstdint>

#include "quant/arith_helpers.h"
#include "quant/fixed_point.h"

namespace edgerun::reference {

struct QuantizedBinaryParams {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  // ADD/SUB: inputs are shifted left by `left_shift`, then scaled by their own multipliers.
  // The power-of-two int16 path uses only input1_shift / input2_shift (<= 0: right shifts).
  int left_shift = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0;
  int input1_shift = 0, input2_shift = 0;
  int32_t output_multiplier = 0;
  int output_shift = 0;
  int32_t act_min = 0, act_max = 0;
  // MUL whose rescaling factor is 2^31 or more (degenerate output scales seen in real files):
  // every non-zero product saturates, as float rescaling (XNNPACK, LiteRT.js) gives.
  bool saturate_nonzero = false;
};

inline int32_t ClampToActivation(int64_t v, const QuantizedBinaryParams& p) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, p.act_min, p.act_max));
}

// ADD / SUB with general scales: both inputs are brought to a common scale with 20 (8-bit) or 15
// (16-bit) bits of headroom, added, then rescaled to the output.
// Its two steps: each input on the common scale (input 1 or 2), then their sum or difference on
// the output's (the 8-bit kernel tabulates the first for all 256 stored values).
inline int32_t AddSubScaledInput(int32_t value, int input, const QuantizedBinaryParams& p) {
  // |offset + value| <= 65535 and 65535 << 15 < 2^31: the shift never overflows.
  const int32_t shifted = ((input == 1 ? p.input1_offset : p.input2_offset) + value) * (1 << p.left_shift);
  return input == 1 ? quant::MultiplyByQuantizedMultiplier(shifted, p.input1_multiplier, p.input1_shift)
                    : quant::MultiplyByQuantizedMultiplier(shifted, p.input2_multiplier, p.input2_shift);
}
inline int32_t AddSubOutput(int32_t raw, const QuantizedBinaryParams& p) {
  return ClampToActivation(
      int64_t{quant::MultiplyByQuantizedMultiplier(raw, p.output_multiplier, p.output_shift)} + p.output_offset, p);
}
inline int32_t QuantizedAddSub(int32_t a, int32_t b, const QuantizedBinaryParams& p, bool subtract) {
  const int32_t scaled_a = AddSubScaledInput(a, 1, p), scaled_b = AddSubScaledInput(b, 2, p);
  return AddSubOutput(subtract ? scaled_a - scaled_b : scaled_a + scaled_b, p);
}

// int16 ADD / SUB with power-of-two scales and zero points 0: one input is shifted right (rounding)
// onto the output's scale, the other already has it.
inline int32_t PotInt16AddSub(int32_t a, int32_t b, const QuantizedBinaryParams& p, bool subtract) {
  const int32_t scaled_a = quant::RoundingShiftRight(a, -p.input1_shift);
  const int32_t scaled_b = quant::RoundingShiftRight(b, -p.input2_shift);
  return ClampToActivation(subtract ? int64_t{scaled_a} - scaled_b : int64_t{scaled_a} + scaled_b, p);
}

// MUL: (a - za) * (b - zb) rescaled by s_a * s_b / s_out. The product fits int32 for 8-bit
// values and for int16 with zero points 0 (|product| <= 2^30).
inline int32_t QuantizedMul(int32_t a, int32_t b, const QuantizedBinaryParams& p) {
  const int32_t product = (p.input1_offset + a) * (p.input2_offset + b);
  if (p.saturate_nonzero) {
    return ClampToActivation(product == 0 ? int64_t{p.output_offset} : (product > 0 ? INT64_MAX : INT64_MIN), p);
  }
  return ClampToActivation(
      int64_t{quant::MultiplyByQuantizedMultiplier(product, p.output_multiplier, p.output_shift)} + p.output_offset, p);
}

// MUL of two int16 Q0.15 values into an 8-bit output: the Q0.15 product divided by 2^8
// (TFLite's int16 x int16 -> int8 kernel, which ignores the scales).
inline int32_t Int16MulToInt8(int16_t a, int16_t b, const QuantizedBinaryParams& p) {
  const int16_t product = quant::SaturatingRoundingDoublingHighMul16(a, b);
  const int32_t rescaled = quant::RoundingDivideByPOT(product, 8);
  return std::clamp(rescaled, p.act_min - p.output_offset, p.act_max - p.output_offset) + p.output_offset;
}

// DIV: (a - za) / (b - zb) rescaled by s_a / (s_b * s_out), through a fixed-point reciprocal of
// the divisor (TFLite's quantized DIV). A zero divisor saturates by the dividend's sign (0 / 0
// gives the output zero point) instead of reaching undefined shifts.
inline int32_t QuantizedDiv(int32_t a, int32_t b, const QuantizedBinaryParams& p) {
  int32_t dividend = p.input1_offset + a;
  int32_t divisor = p.input2_offset + b;
  if (divisor == 0) {
    if (dividend == 0) return ClampToActivation(p.output_offset, p);
    return dividend > 0 ? p.act_max : p.act_min;
  }
  if (divisor < 0) {  // the reciprocal multiplier must be positive
    dividend = -dividend;
    divisor = -divisor;
  }
  int reciprocal_shift;
  const int32_t reciprocal = quant::GetReciprocal(divisor, 31, &reciprocal_shift);
  const int headroom = quant::CountLeadingSignBits(dividend);
  const int32_t unscaled_quotient = quant::MultiplyByQuantizedMultiplierGreaterThanOne(dividend, reciprocal, headroom);
  const int total_shift = p.output_shift - reciprocal_shift - headroom;
  const int32_t scaled = quant::RoundingShiftRight(
      quant::SaturatingRoundingDoublingHighMul(unscaled_quotient, p.output_multiplier), -total_shift);
  return ClampToActivation(int64_t{scaled} + p.output_offset, p);
}

// QUANTIZE between integer types: (x - z_in) * s_in / s_out + z_out, saturated to [lo, hi]
// (TFLite's Requantize). The subtraction wraps like TFLite's int32 arithmetic.
inline int32_t Requantize(int32_t x, int32_t input_zero_point, int32_t multiplier, int shift, int32_t output_zero_point,
                          int32_t lo, int32_t hi) {
  const int32_t centered = static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(input_zero_point));
  const int64_t out = int64_t{quant::MultiplyByQuantizedMultiplier(centered, multiplier, shift)} + output_zero_point;
  return static_cast<int32_t>(std::clamp<int64_t>(out, lo, hi));
}

}  // namespace edgerun::reference
