// DEPTHWISE_CONV_2D: per-channel 2-D convolution, NHWC input, [1,KH,KW,C*M] filter, optional
// bias, padding SAME/VALID, strides, dilation, fused activation. The multiplier M comes from the
// shapes (the depth_multiplier option is redundant and newer converters leave it wrong).
#include "ops/conv_util.h"

namespace edgerun::ops {
namespace {

struct DepthwiseState {
  reference::ConvParams params;
  int depth_multiplier = 1;
};

Status Prepare(OpContext& ctx, DepthwiseState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  ER_RETURN_IF_ERROR(CheckRank(ctx, filter, "filter", 4, 4));
  const auto* o = Options<tflite::DepthwiseConv2DOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing DepthwiseConv2DOptions");
  const int in_c = input->dim(3), out_c = filter->dim(3);
  if (filter->dim(0) != 1) return ctx.Error("filter ", Describe(filter), " must have 1 as first dimension");
  if (in_c <= 0 || out_c % in_c != 0) {
    return ctx.Error("filter channels (", out_c, ") must be a multiple of input channels (", in_c, ")");
  }
  state.depth_multiplier = out_c / in_c;
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

Status Eval(OpContext& ctx, DepthwiseState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  reference::DepthwiseConv2D(state.params, state.depth_multiplier, input->shape, input->data_as<float>(),
                             filter->shape, filter->data_as<float>(), bias ? bias->data_as<float>() : nullptr,
                             output->shape, output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDepthwiseConv2D() {
  return MakeBuiltinWithState<DepthwiseState>(tflite::BuiltinOperator_DEPTHWISE_CONV_2D, 7, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
