#include "ops/conv3d_util.h"

namespace edgerun::ops {

Status ParseConv3DOptions(const OpContext& ctx, tflite::Padding* padding, reference::Conv3DParams* p) {
  const auto* o = Options<tflite::Conv3DOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing Conv3DOptions");
  *padding = o->padding();
  p->stride[0] = o->stride_d();
  p->stride[1] = o->stride_h();
  p->stride[2] = o->stride_w();
  p->dilation[0] = o->dilation_d_factor();
  p->dilation[1] = o->dilation_h_factor();
  p->dilation[2] = o->dilation_w_factor();
  for (int i = 0; i < 3; ++i) {
    if (p->stride[i] <= 0 || p->dilation[i] <= 0) return ctx.Error("strides and dilations must be positive");
  }
  Activation act;
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &act));
  if (act == Activation::kTanh || act == Activation::kSignBit) return ctx.Unsupported("fused activation TANH/SIGN_BIT");
  ActivationRange(act, &p->act_min, &p->act_max);
  return Status::Ok();
}

}  // namespace edgerun::ops
