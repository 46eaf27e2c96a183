// RELU_N1_TO_1: min(max(x, -1), 1). Quantized types requantize to the output scale, then clamp.
#include <cmath>

#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReluState& state) {
  return PrepareRelu(ctx, state, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8});
}

Status Eval(OpContext& ctx, ReluState& state) { return EvalRelu(ctx, state, -1.0f, 1.0f); }

}  // namespace

OpRegistration RegisterReluN1To1() {
  return MakeBuiltinWithState<ReluState>(tflite::BuiltinOperator_RELU_N1_TO_1, 1, "float32, uint8, int8", Prepare,
                                         Eval);
}

}  // namespace edgerun::ops
