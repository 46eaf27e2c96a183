// CONV_3D: float 3-D convolution over NDHWC with a DHWIO filter, optional bias, SAME/VALID
// padding, strides, dilations, fused activation.
#include <algorithm>
#include <cstdint>

#include "ops/conv3d_util.h"
#include "ops/conv_util.h"

namespace edgerun::ops {
namespace {

struct Conv3DState {
  reference::Conv3DParams params;
};

Status Prepare(OpContext& ctx, Conv3DState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 5, 5));
  ER_RETURN_IF_ERROR(CheckRank(ctx, filter, "filter", 5, 5));
  if (input->dim(4) != filter->dim(3)) {
    return ctx.Error("input channels ", input->dim(4), " do not match filter ", Describe(filter));
  }
  const int out_c = filter->dim(4);
  if (bias) {
    ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
    if (bias->num_elements() != out_c) return ctx.Error("bias ", Describe(bias), " must have ", out_c, " elements");
  }
  tflite::Padding padding;
  ER_RETURN_IF_ERROR(ParseConv3DOptions(ctx, &padding, &state.params));
  Shape out = {input->dim(0), 0, 0, 0, out_c};
  for (int i = 0; i < 3; ++i) {
    const int in = input->dim(1 + i), k = filter->dim(i);
    if (k <= 0) return ctx.Error("empty filter ", Describe(filter));
    out[1 + i] = ComputeOutSize(padding, in, k, state.params.stride[i], state.params.dilation[i]);
    if (out[1 + i] < 0) return ctx.Error("filter ", Describe(filter), " does not fit input ", Describe(input));
    // In 64 bits: dilations and strides come from the file.
    const int64_t effective = (int64_t{k} - 1) * state.params.dilation[i] + 1;
    if (effective > kMaxConvSpan) {
      return ctx.Error("filter ", Describe(filter), " with dilation ", state.params.dilation[i],
                       " spans more than 2^30 elements");
    }
    const int64_t total = (int64_t{out[1 + i]} - 1) * state.params.stride[i] + effective - in;
    state.params.pad[i] = static_cast<int>(std::clamp<int64_t>(total / 2, 0, INT32_MAX));
  }
  return ctx.ResizeOutput(0, out);
}

Status Eval(OpContext& ctx, Conv3DState& state) {
  const Tensor* bias = ctx.input(2);
  reference::Conv3D(state.params, ctx.input(0)->shape, ctx.input(0)->data_as<float>(), ctx.input(1)->shape,
                    ctx.input(1)->data_as<float>(), bias ? bias->data_as<float>() : nullptr, ctx.output(0)->shape,
                    ctx.output(0)->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterConv3D() {
  return MakeBuiltinWithState<Conv3DState>(tflite::BuiltinOperator_CONV_3D, 1, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
