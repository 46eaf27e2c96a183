// TANH: hyperbolic tangent.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::tanh(x); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTanh() { return MakeBuiltin(tflite::BuiltinOperator_TANH, 3, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
