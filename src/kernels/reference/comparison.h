// Comparing quantized values: TFLite brings both sides to a common fixed-point scale before it
// compares, so that inputs with different scales or zero points compare as real numbers.
#pragma once

#include <cstdint>

#include "quant/fixed_point.h"

namespace edgerun::reference::math {

struct ComparisonScaling {
  int32_t zero_point = 0;
  int32_t multiplier = 0;  // the input scale as a Q0.31 multiplier and shift
  int shift = 0;
};

// 8 bits of headroom keep neighbouring quantized values distinct after rescaling.
inline constexpr int kComparisonLeftShift = 8;

inline bool MakeComparisonScaling(float scale, int32_t zero_point, ComparisonScaling* out) {
  out->zero_point = zero_point;
  return quant::QuantizeMultiplier(scale, &out->multiplier, &out->shift) && out->shift <= 7 && out->shift >= -31;
}

// (q - zero_point) * 2^8 * scale in fixed point. Scales below 1 (all real models) follow TFLite's
// rounding exactly; scales of 1 and more, undefined there, use the general multiply.
inline int32_t RescaleForComparison(int32_t q, const ComparisonScaling& s) {
  const int32_t shifted = (q - s.zero_point) * (1 << kComparisonLeftShift);
  if (s.shift <= 0) return quant::MultiplyByQuantizedMultiplierSmallerThanOneExp(shifted, s.multiplier, s.shift);
  return quant::MultiplyByQuantizedMultiplier(shifted, s.multiplier, s.shift);
}

}  // namespace edgerun::reference::math
