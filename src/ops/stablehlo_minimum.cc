// STABLEHLO_MINIMUM: element-wise min(a, b) of two tensors of the same shape and type, as
// std::min (a NaN in `a` is kept, one in `b` is not). Types: float16/32/64, int8/16/32/64,
// uint8/16/32/64, bool.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(ctx, [](auto a, auto b) { return b < a ? b : a; });
}

}  // namespace

OpRegistration RegisterStablehloMinimum() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_MINIMUM, 1,
                     "float16, float32, float64, int8/16/32/64, uint8/16/32/64, bool",
                     stablehlo::PrepareElementwiseBinary, Eval);
}

}  // namespace edgerun::ops
