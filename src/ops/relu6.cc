// RELU6: min(max(x, 0), 6).
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::min(std::max(x, 0.0f), 6.0f); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRelu6() { return MakeBuiltin(tflite::BuiltinOperator_RELU6, 3, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
