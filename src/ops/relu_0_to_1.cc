// RELU_0_TO_1: min(max(x, 0), 1).
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::min(std::max(x, 0.0f), 1.0f); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRelu0To1() { return MakeBuiltin(tflite::BuiltinOperator_RELU_0_TO_1, 1, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
