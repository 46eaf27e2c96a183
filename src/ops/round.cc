// ROUND: nearest integer, ties to even (TFLite rounds 0.5 -> 0, 1.5 -> 2, -2.5 -> -2), float32.
#include "kernels/reference/elementwise.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, reference::math::RoundHalfToEven);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRound() { return MakeBuiltin(tflite::BuiltinOperator_ROUND, 1, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
