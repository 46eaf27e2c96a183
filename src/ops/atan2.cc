// ATAN2: the angle of the point (x = b, y = a) in (-pi, pi], with broadcasting; float32, float64.
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareBinary(ctx, {TensorType::kFloat32, TensorType::kFloat64}); }

Status Eval(OpContext& ctx) {
  if (ctx.input(0)->type == TensorType::kFloat32) {
    elementwise::BroadcastInputs<float, float>(ctx, [](float y, float x) { return std::atan2(y, x); });
  } else {
    elementwise::BroadcastInputs<double, double>(ctx, [](double y, double x) { return std::atan2(y, x); });
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterAtan2() {
  return MakeBuiltin(tflite::BuiltinOperator_ATAN2, 1, "float32, float64", Prepare, Eval);
}

}  // namespace edgerun::ops
