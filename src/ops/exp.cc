// EXP: e^x; float32 (on the vector kernel where the CPU has one, within 1 ulp), and quantized
// int8 / int16 through a lookup table (as TFLite).
#include <cmath>

#include "ops/activation_util.h"
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, elementwise::LutState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}));
  if (ctx.input(0)->type == TensorType::kFloat32) return Status::Ok();
  return elementwise::PrepareLut(ctx, state, [](float x) { return std::exp(x); });
}

Status Eval(OpContext& ctx, elementwise::LutState& state) {
  if (ctx.input(0)->type == TensorType::kFloat32) {
    MapFloatUnary(ctx, optimized::ActiveKernels().exp_f32, [](float x) { return std::exp(x); });
  } else {
    elementwise::EvalLut(ctx, state);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterExp() {
  return MakeBuiltinWithState<elementwise::LutState>(tflite::BuiltinOperator_EXP, 2, "float32, int8, int16 (quantized)",
                                                     Prepare, Eval);
}

}  // namespace edgerun::ops
