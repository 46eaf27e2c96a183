// CONV_3D_TRANSPOSE: float transposed 3-D convolution. Inputs: output shape (int32 [5]), filter
// [KD,KH,KW,O,C], input NDHWC, optional bias. A non-constant output shape makes the output dynamic.
#include "ops/conv3d_util.h"

namespace edgerun::ops {
namespace {

struct Conv3DTransposeState {
  reference::Conv3DParams params;
  tflite::Padding padding = tflite::Padding_SAME;
};

Status OutputShape(OpContext& ctx, Conv3DTransposeState& state, Shape* out) {
  const Tensor* shape = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* input = ctx.input(2);
  std::vector<int64_t> dims;
  ER_RETURN_IF_ERROR(ReadInts(ctx, shape, "output shape", &dims));
  if (dims.size() != 5) return ctx.Error("output shape ", Describe(shape), " must have 5 values");
  out->assign(5, 0);
  for (int i = 0; i < 5; ++i) {
    if (dims[i] < 0 || dims[i] > (1 << 24)) return ctx.Error("output dimension ", dims[i], " out of range");
    (*out)[i] = static_cast<int32_t>(dims[i]);
  }
  if ((*out)[0] != input->dim(0) || (*out)[4] != filter->dim(3)) {
    return ctx.Error("output shape ", ShapeToString(*out), " does not match batch ", input->dim(0), " and filter ",
                     Describe(filter));
  }
  for (int i = 0; i < 3; ++i) {
    // The padding of the forward convolution that maps the output back to the input.
    const int k = filter->dim(i), effective = (k - 1) * state.params.dilation[i] + 1;
    const int total = (input->dim(1 + i) - 1) * state.params.stride[i] + effective - (*out)[1 + i];
    state.params.pad[i] = state.padding == tflite::Padding_SAME ? std::max(0, total / 2) : 0;
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, Conv3DTransposeState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 4, 1));
  const Tensor* filter = ctx.input(1);
  const Tensor* input = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 5, 5));
  ER_RETURN_IF_ERROR(CheckRank(ctx, filter, "filter", 5, 5));
  if (input->dim(4) != filter->dim(4)) {
    return ctx.Error("input channels ", input->dim(4), " do not match filter ", Describe(filter));
  }
  if (bias) {
    ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
    if (bias->num_elements() != filter->dim(3)) return ctx.Error("bias ", Describe(bias), " does not match the filter");
  }
  ER_RETURN_IF_ERROR(ParseConv3DOptions(ctx, &state.padding, &state.params));
  if (!ctx.input(0)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape out;
  ER_RETURN_IF_ERROR(OutputShape(ctx, state, &out));
  return ctx.ResizeOutput(0, out);
}

Status Eval(OpContext& ctx, Conv3DTransposeState& state) {
  if (ctx.output(0)->is_dynamic()) {
    Shape out;
    ER_RETURN_IF_ERROR(OutputShape(ctx, state, &out));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, out));
  }
  const Tensor* bias = ctx.input(3);
  reference::Conv3DTranspose(state.params, ctx.input(2)->shape, ctx.input(2)->data_as<float>(), ctx.input(1)->shape,
                             ctx.input(1)->data_as<float>(), bias ? bias->data_as<float>() : nullptr,
                             ctx.output(0)->shape, ctx.output(0)->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterConv3DTranspose() {
  return MakeBuiltinWithState<Conv3DTransposeState>(tflite::BuiltinOperator_CONV_3D_TRANSPOSE, 1, "float32", Prepare,
                                                    Eval);
}

}  // namespace edgerun::ops
