// STABLEHLO_ADD: element-wise a + b of two tensors of the same shape and type (no broadcasting).
// Integers wrap, float16 rounds from float, bool + bool is OR. Types: float16/32/64,
// int8/16/32/64, uint8/16/32/64, bool.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(ctx, [](auto a, auto b) { return stablehlo::Add(a, b); });
}

}  // namespace

OpRegistration RegisterStablehloAdd() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_ADD, 1,
                     "float16, float32, float64, int8/16/32/64, uint8/16/32/64, bool",
                     stablehlo::PrepareElementwiseBinary, Eval);
}

}  // namespace edgerun::ops
