// FAKE_QUANT: quantizes and dequantizes float32 values with the range [min, max] nudged so that
// 0 is exactly representable (TensorFlow's FakeQuantWithMinMaxArgs): clamp to the nudged range,
// round to the grid of 2^num_bits - 1 steps. narrow_range is rejected, as by TFLite.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct FakeQuantState {
  float nudged_min = 0, nudged_max = 0, scale = 1;
};

// TFLite's NudgeQuantizationRange, in float as there.
void Nudge(float min, float max, int quant_max, FakeQuantState& s) {
  const float qmin = 0.0f, qmax = static_cast<float>(quant_max);
  s.scale = (max - min) / (qmax - qmin);
  const float zero_point_from_min = qmin - min / s.scale;
  uint16_t zero_point;
  if (zero_point_from_min < qmin) zero_point = 0;
  else if (zero_point_from_min > qmax) zero_point = static_cast<uint16_t>(quant_max);
  else zero_point = static_cast<uint16_t>(std::round(zero_point_from_min));
  s.nudged_min = (qmin - zero_point) * s.scale;
  s.nudged_max = (qmax - zero_point) * s.scale;
}

Status Prepare(OpContext& ctx, FakeQuantState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32}));
  const auto* o = Options<tflite::FakeQuantOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing FakeQuantOptions");
  if (o->narrow_range()) return ctx.Error("narrow_range is not supported at run time (it is meant for weights)");
  if (o->num_bits() < 1 || o->num_bits() > 16) return ctx.Error("num_bits ", o->num_bits(), " is outside [1, 16]");
  // TensorFlow requires min <= 0 <= max; TFLite only asserts it in debug builds and runs any
  // non-empty range, so do we.
  if (!(o->min() < o->max())) return ctx.Error("the range [", o->min(), ", ", o->max(), "] is empty");
  Nudge(o->min(), o->max(), (1 << o->num_bits()) - 1, state);
  return Status::Ok();
}

Status Eval(OpContext& ctx, FakeQuantState& s) {
  const float inverse_scale = 1.0f / s.scale;
  MapUnary<float>(ctx, [&](float x) {
    const float clamped = std::min(s.nudged_max, std::max(s.nudged_min, x));
    return std::round((clamped - s.nudged_min) * inverse_scale) * s.scale + s.nudged_min;
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFakeQuant() {
  return MakeBuiltinWithState<FakeQuantState>(tflite::BuiltinOperator_FAKE_QUANT, 2, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
