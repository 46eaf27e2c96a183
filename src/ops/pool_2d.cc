#include "ops/pool_2d.h"

namespace edgerun::ops {

Status PreparePool(OpContext& ctx, PoolState& state, std::initializer_list<TensorType> types) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", types));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, output, "input and output"));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  const auto* o = Options<tflite::Pool2DOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing Pool2DOptions");
  const ConvGeometry geometry{o->padding(), o->stride_h(), o->stride_w(), 1, 1, o->fused_activation_function()};
  reference::ConvParams conv;
  int out_h = 0, out_w = 0;
  ER_RETURN_IF_ERROR(PrepareConvGeometry(ctx, geometry, input, o->filter_height(), o->filter_width(), &conv, &out_h,
                                         &out_w, &state.activation));
  auto& p = state.params;
  p.stride_h = conv.stride_h;
  p.stride_w = conv.stride_w;
  p.filter_h = o->filter_height();
  p.filter_w = o->filter_width();
  p.pad_h = conv.pad_h;
  p.pad_w = conv.pad_w;
  p.act_min = conv.act_min;
  p.act_max = conv.act_max;
  if (input->type != TensorType::kFloat32) {
    // The scale only matters for a fused activation's bounds.
    if (state.activation != Activation::kNone && !(output->scale() > 0.0f)) {
      return ctx.Error("quantized output ", Describe(output), " needs a positive scale for its fused activation");
    }
    QuantizedActivationRange(state.activation, output, &p.quant_min, &p.quant_max);
  }
  return ctx.ResizeOutput(0, {input->dim(0), out_h, out_w, input->dim(3)});
}

}  // namespace edgerun::ops
