#include "ops/conv_util.h"

namespace edgerun::ops {

Status PrepareConvGeometry(const OpContext& ctx, const ConvGeometry& g, const Tensor* input, int kh, int kw,
                           reference::ConvParams* params, int* out_h, int* out_w, Activation* activation) {
  ER_RETURN_IF_ERROR(ParseActivation(ctx, g.activation, activation));
  if (*activation == Activation::kTanh || *activation == Activation::kSignBit) {
    return ctx.Unsupported("fused activation TANH/SIGN_BIT is not supported by ", ctx.op_name());
  }
  if (g.stride_h <= 0 || g.stride_w <= 0 || g.dilation_h <= 0 || g.dilation_w <= 0) {
    return ctx.Error("strides (", g.stride_h, ",", g.stride_w, ") and dilations (", g.dilation_h, ",", g.dilation_w,
                     ") must be positive");
  }
  if (kh <= 0 || kw <= 0) return ctx.Error("window ", kh, "x", kw, " must not be empty");
  *out_h = ComputeOutSize(g.padding, input->dim(1), kh, g.stride_h, g.dilation_h);
  *out_w = ComputeOutSize(g.padding, input->dim(2), kw, g.stride_w, g.dilation_w);
  if (*out_h < 0 || *out_w < 0) {
    return ctx.Error("window ", kh, "x", kw, " (dilation ", g.dilation_h, ",", g.dilation_w,
                     ") does not fit input ", Describe(input));
  }
  const PaddingValues pad = ComputePadding(g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, input->dim(1),
                                           input->dim(2), kh, kw, *out_h, *out_w);
  params->stride_h = g.stride_h;
  params->stride_w = g.stride_w;
  params->dilation_h = g.dilation_h;
  params->dilation_w = g.dilation_w;
  params->pad_h = pad.height;
  params->pad_w = pad.width;
  ActivationRange(*activation, &params->act_min, &params->act_max);
  return Status::Ok();
}

}  // namespace edgerun::ops
