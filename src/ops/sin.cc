// SIN: sine (radians), float32.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::sin(x); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSin() { return MakeBuiltin(tflite::BuiltinOperator_SIN, 1, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
