// RELU: max(x, 0). Quantized types requantize to the output scale, then clamp.
#include <cmath>

#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReluState& state) {
  return PrepareRelu(ctx, state, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16});
}

Status Eval(OpContext& ctx, ReluState& state) { return EvalRelu(ctx, state, 0.0f, INFINITY); }

}  // namespace

OpRegistration RegisterRelu() {
  return MakeBuiltinWithState<ReluState>(tflite::BuiltinOperator_RELU, 3, "float32, uint8, int8, int16", Prepare, Eval);
}

}  // namespace edgerun::ops
