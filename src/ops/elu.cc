// ELU: x < 0 ? exp(x) - 1 : x. int8 through a table built at prepare, as TFLite (in
// kLiteRtDefault mode the table XNNPACK builds, whose final rounding differs).
#include <cmath>

#include "ops/activation_util.h"
#include "ops/xnnpack_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

float EluFloat(float x) { return x < 0.0f ? std::expm1(x) : x; }

Status Prepare(OpContext& ctx, Lut8State& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt8}));
  const Tensor* input = ctx.input(0);
  if (input->type == TensorType::kInt8) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, ctx.output(0), "output"));
    if (XnnpackTakes8Bit(ctx, 1)) {
      PopulateXnnpackLut8(input, ctx.output(0), quant::xnn::Elu, &state);
    } else {
      PopulateLut8(input, ctx.output(0), EluFloat, &state);
    }
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, Lut8State& state) {
  if (ctx.input(0)->type == TensorType::kInt8) {
    ApplyLut8(ctx, state);
  } else {
    MapUnary<float>(ctx, EluFloat);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterElu() {
  return MakeBuiltinWithState<Lut8State>(tflite::BuiltinOperator_ELU, 1, "float32, int8", Prepare, Eval);
}

}  // namespace edgerun::ops
