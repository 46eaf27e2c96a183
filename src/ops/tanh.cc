// TANH. float32 on the vector kernel (within 2 ulp, see MapFloatUnary); uint8/int8 through a
// table built at prepare, int16 in fixed point (see PrepareSigmoidInt16), as TFLite's default
// kernel. In kLiteRtDefault mode 8-bit nodes use the table XNNPACK builds.
#include <cmath>

#include "kernels/optimized/recurrent.h"
#include "kernels/reference/activation.h"
#include "ops/activation_util.h"
#include "ops/xnnpack_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct TanhState {
  Lut8State lut;
  SigmoidInt16State int16;
};

float TanhFloat(float x) { return std::tanh(x); }

Status Prepare(OpContext& ctx, TanhState& state) {
  ER_RETURN_IF_ERROR(
      PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (IsQuantized8(input->type)) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
    if (XnnpackTakes8Bit(ctx, 1)) {
      PopulateXnnpackLut8(input, output, quant::xnn::Tanh, &state.lut);
    } else {
      PopulateLut8(input, output, TanhFloat, &state.lut);
    }
  } else if (input->type == TensorType::kInt16) {
    ER_RETURN_IF_ERROR(PrepareSigmoidInt16(ctx, /*is_tanh=*/true, &state.int16));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, TanhState& state) {
  const Tensor* input = ctx.input(0);
  switch (input->type) {
    case TensorType::kUInt8:
    case TensorType::kInt8: ApplyLut8(ctx, state.lut); break;
    case TensorType::kInt16: {
      const int16_t* in = input->data_as<int16_t>();
      int16_t* out = ctx.output(0)->data_as<int16_t>();
      if (state.int16.fixed_point) {
        // = reference::TanhInt16Pot: an input scale of 2^-11 is doubled (saturating) to 2^-12 first.
        const int64_t n = input->num_elements();
        if (state.int16.double_input) {
          for (int64_t i = 0; i < n; ++i) out[i] = quant::fp::SaturatingRoundingMultiplyByPOT<1>(in[i]);
          in = out;
        }
        optimized::TanhFixed16(in, n, 3, out);
      } else {
        reference::TanhInt16Lut(state.int16.multiplier, state.int16.shift, in, out, input->num_elements());
      }
      break;
    }
    default: MapFloatUnary(ctx, optimized::ActiveKernels().tanh_f32, TanhFloat); break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTanh() {
  return MakeBuiltinWithState<TanhState>(tflite::BuiltinOperator_TANH, 3, "float32, uint8, int8, int16", Prepare,
                                         Eval);
}

}  // namespace edgerun::ops
