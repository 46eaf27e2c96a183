#include "ops/quant_arith_util.h"

#include <cmath>
#include <limits>

#include "quant/fixed_point.h"

namespace edgerun::ops {

bool IsQuantizedIntType(TensorType type) {
  return type == TensorType::kUInt8 || type == TensorType::kInt8 || type == TensorType::kInt16;
}

int32_t TypeMin(TensorType type) {
  switch (type) {
    case TensorType::kUInt8: return 0;
    case TensorType::kInt8: return -128;
    case TensorType::kInt16: return -32768;
    default: return std::numeric_limits<int32_t>::min();
  }
}

int32_t TypeMax(TensorType type) {
  switch (type) {
    case TensorType::kUInt8: return 255;
    case TensorType::kInt8: return 127;
    case TensorType::kInt16: return 32767;
    default: return std::numeric_limits<int32_t>::max();
  }
}

Status CheckQuantized(const OpContext& ctx, const Tensor* t, const char* role) {
  if (t->quantization.empty()) return ctx.Error(role, " ", Describe(t), " has no quantization parameters");
  const float scale = t->scale();
  if (!(scale > 0) || !std::isfinite(scale)) {
    return ctx.Error(role, " ", Describe(t), " has scale ", scale, "; expected a positive finite scale");
  }
  const int64_t zero_point = t->quantization.zero_point.empty() ? 0 : t->quantization.zero_point[0];
  if (zero_point < TypeMin(t->type) || zero_point > TypeMax(t->type)) {
    return ctx.Error(role, " ", Describe(t), " has zero point ", zero_point, " outside the range of ",
                     TensorTypeName(t->type));
  }
  return Status::Ok();
}

Status QuantizeScale(const OpContext& ctx, double real_multiplier, int32_t* multiplier, int* shift) {
  if (!(real_multiplier > 0) || !quant::QuantizeMultiplier(real_multiplier, multiplier, shift)) {
    return ctx.Error("quantization scales give the rescaling factor ", real_multiplier,
                     "; expected a positive finite number");
  }
  // The fixed-point multiply shifts left by `shift` bits within 32-bit values.
  if (*shift > 31) {
    return ctx.Error("quantization scales give the rescaling factor ", real_multiplier, ", too large (over 2^31)");
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
