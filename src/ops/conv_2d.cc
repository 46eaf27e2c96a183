// CONV_2D: 2-D convolution, NHWC input, OHWI filter, optional bias, padding SAME/VALID,
// strides, dilation, grouped filters (input channels a multiple of the filter's), fused activation.
#include "ops/conv_util.h"

namespace edgerun::ops {
namespace {

struct ConvState {
  reference::ConvParams params;
};

Status Prepare(OpContext& ctx, ConvState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  ER_RETURN_IF_ERROR(CheckRank(ctx, filter, "filter", 4, 4));
  const auto* o = Options<tflite::Conv2DOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing Conv2DOptions");
  const int in_c = input->dim(3), out_c = filter->dim(0), f_c = filter->dim(3);
  if (f_c <= 0 || in_c % f_c != 0) {
    return ctx.Error("input channels (", in_c, ") must be a multiple of the filter's (", Describe(filter), ")");
  }
  const int groups = in_c / f_c;
  if (out_c % groups != 0) return ctx.Error("output channels ", out_c, " are not divisible into ", groups, " groups");
  if (bias) {
    ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
    if (bias->num_elements() != out_c) return ctx.Error("bias ", Describe(bias), " must have ", out_c, " elements");
  }
  const ConvGeometry geometry{o->padding(), o->stride_h(), o->stride_w(), o->dilation_h_factor(),
                              o->dilation_w_factor(), o->fused_activation_function()};
  int out_h = 0, out_w = 0;
  Activation act;
  ER_RETURN_IF_ERROR(PrepareConvGeometry(ctx, geometry, input, filter->dim(1), filter->dim(2), &state.params, &out_h,
                                         &out_w, &act));
  return ctx.ResizeOutput(0, {input->dim(0), out_h, out_w, out_c});
}

Status Eval(OpContext& ctx, ConvState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  reference::Conv2D(state.params, input->shape, input->data_as<float>(), filter->shape, filter->data_as<float>(),
                    bias ? bias->data_as<float>() : nullptr, output->shape, output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterConv2D() {
  return MakeBuiltinWithState<ConvState>(tflite::BuiltinOperator_CONV_2D, 8, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
