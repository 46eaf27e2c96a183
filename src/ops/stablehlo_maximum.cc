// STABLEHLO_MAXIMUM: element-wise max(a, b) of two tensors of the same shape and type, as
// std::max (a NaN in `a` is kept, one in `b` is not). Types: float16/32/64, int8/16/32/64,
// uint8/16/32/64, bool.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(ctx, [](auto a, auto b) { return a < b ? b : a; });
}

}  // namespace

OpRegistration RegisterStablehloMaximum() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_MAXIMUM, 1,
                     "float16, float32, float64, int8/16/32/64, uint8/16/32/64, bool",
                     stablehlo::PrepareElementwiseBinary, Eval);
}

}  // namespace edgerun::ops
