// NEG: -x; float32, int32, int64 (the lowest integer wraps to itself).
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  return PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64});
}

Status Eval(OpContext& ctx) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      MapUnary<float>(ctx, [](float x) { return -x; });
      break;
    case TensorType::kInt32:
      MapUnary<int32_t>(ctx, [](int32_t x) { return WrapSub<int32_t>(0, x); });
      break;
    default:
      MapUnary<int64_t>(ctx, [](int64_t x) { return WrapSub<int64_t>(0, x); });
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterNeg() {
  return MakeBuiltin(tflite::BuiltinOperator_NEG, 1, "float32, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
