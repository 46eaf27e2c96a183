// STABLEHLO_MULTIPLY: element-wise a * b of two tensors of the same shape and type (no broadcasting).
// Integers wrap, float16 rounds from float, bool * bool is AND. Types: float16/32/64,
// int8/16/32/64, uint8/16/32/64, bool.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(stablehlo::PrepareSameShapeBinary(ctx));
  if (!stablehlo::IsElementwiseType(ctx.input(0)->type)) {
    return ctx.Unsupported("type ", TensorTypeName(ctx.input(0)->type), " is not supported");
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(ctx, [](auto a, auto b) { return stablehlo::Mul(a, b); });
}

}  // namespace

OpRegistration RegisterStablehloMultiply() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, 1,
                     "float16, float32, float64, int8/16/32/64, uint8/16/32/64, bool", Prepare, Eval);
}

}  // namespace edgerun::ops
