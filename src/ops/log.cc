// LOG: natural logarithm; float32, and quantized int8 / int16 through a lookup table (as
// TFLite: non-positive reals map to the output's lowest value).
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, elementwise::LutState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}));
  const Tensor* output = ctx.output(0);
  if (output->type == TensorType::kFloat32) return Status::Ok();
  const int32_t qmin = output->type == TensorType::kInt8 ? -128 : -32768;
  const float output_min = static_cast<float>(qmin - output->zero_point()) * output->scale();
  return elementwise::PrepareLut(ctx, state, [output_min](float x) { return x <= 0.0f ? output_min : std::log(x); });
}

Status Eval(OpContext& ctx, elementwise::LutState& state) {
  if (ctx.input(0)->type == TensorType::kFloat32) {
    MapUnary<float>(ctx, [](float x) { return std::log(x); });
  } else {
    elementwise::EvalLut(ctx, state);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLog() {
  return MakeBuiltinWithState<elementwise::LutState>(tflite::BuiltinOperator_LOG, 2, "float32, int8, int16 (quantized)",
                                                     Prepare, Eval);
}

}  // namespace edgerun::ops
