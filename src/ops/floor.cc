// FLOOR: largest integer <= x, float32.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::floor(x); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFloor() { return MakeBuiltin(tflite::BuiltinOperator_FLOOR, 1, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
