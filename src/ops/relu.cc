// RELU: max(x, 0).
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::max(x, 0.0f); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRelu() { return MakeBuiltin(tflite::BuiltinOperator_RELU, 3, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
