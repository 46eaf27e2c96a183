// LOGISTIC: 1 / (1 + exp(-x)). float32 on the vector kernel (within 2 ulp, see MapFloatUnary);
// uint8/int8 through a table built at prepare (output scale must be 1/256), int16 in fixed point
// (see PrepareSigmoidInt16), as TFLite's default kernel. In kLiteRtDefault mode 8-bit nodes use
// the table XNNPACK builds (any output scale).
#include <cmath>

#include "kernels/optimized/recurrent.h"
#include "kernels/reference/activation.h"
#include "ops/activation_util.h"
#include "ops/xnnpack_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct LogisticState {
  Lut8State lut;
  SigmoidInt16State int16;
};

float LogisticFloat(float x) { return 1.0f / (1.0f + std::exp(-x)); }

Status Prepare(OpContext& ctx, LogisticState& state) {
  ER_RETURN_IF_ERROR(
      PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (IsQuantized8(input->type)) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    if (XnnpackTakes8Bit(ctx, 1)) {
      PopulateXnnpackLut8(input, output, quant::xnn::Sigmoid, &state.lut);
      return Status::Ok();
    }
    if (output->scale() != 1.0f / 256) {
      return ctx.Error("output ", Describe(output), " must have scale 1/256, has ", output->scale());
    }
    PopulateLut8(input, output, LogisticFloat, &state.lut);
  } else if (input->type == TensorType::kInt16) {
    ER_RETURN_IF_ERROR(PrepareSigmoidInt16(ctx, /*is_tanh=*/false, &state.int16));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, LogisticState& state) {
  const Tensor* input = ctx.input(0);
  switch (input->type) {
    case TensorType::kUInt8:
    case TensorType::kInt8: ApplyLut8(ctx, state.lut); break;
    case TensorType::kInt16: {
      const int16_t* in = input->data_as<int16_t>();
      int16_t* out = ctx.output(0)->data_as<int16_t>();
      if (state.int16.fixed_point) {
        optimized::LogisticFixed16(in, input->num_elements(), 3, out);  // = reference::LogisticInt16Pot
      } else {
        reference::LogisticInt16Lut(state.int16.multiplier, state.int16.shift, in, out, input->num_elements());
      }
      break;
    }
    default: MapFloatUnary(ctx, optimized::ActiveKernels().logistic_f32, LogisticFloat); break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLogistic() {
  return MakeBuiltinWithState<LogisticState>(tflite::BuiltinOperator_LOGISTIC, 3, "float32, uint8, int8, int16",
                                             Prepare, Eval);
}

}  // namespace edgerun::ops
