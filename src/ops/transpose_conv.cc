// TRANSPOSE_CONV: the gradient of CONV_2D with respect to its input ("deconvolution").
// Inputs: output_shape (int32 [4]), weights [O,KH,KW,I], input [N,H,W,I], optional bias [O];
// options: padding, strides, fused activation (version 4+). The padding is the one a CONV_2D
// from the output back to the input would use. A non-constant output_shape makes the output
// dynamic. Types: float32; uint8 (per-tensor); int8 x int8 weights (per-tensor or per-channel);
// int16 x int8 weights (int64 or int32 bias); hybrid float32 x int8 weights, the input quantized
// per image (asymmetric) at run time.

#include "kernels/optimized/transpose_conv.h"
#include "ops/conv_util.h"

namespace edgerun::ops {
namespace {

struct TransposeConvState {
  tflite::Padding padding = tflite::Padding_SAME;
  reference::ConvParams params;  // strides and clamp range; padding is set in eval
  Activation activation = Activation::kNone;
  QuantizedOutput q;
  std::vector<float> hybrid_scales;  // filter scale per output channel
  // The optimized kernels' packed filter (made at the first eval; again each time for a filter
  // that is not constant) and their scratch.
  optimized::TransposeConvFilterF32 packed_f32;
  optimized::PackedI16 packed_i16;
  optimized::AlignedBuffer<float> col_f32;
  optimized::AlignedBuffer<int64_t> col_int;
  Int32SumCheck int32_sums;  // int16 x int8 with int64 sums: whether int32 ones are exact
  Int64Requant requant64;    // and the vector requantization of those
};

template <class Filter>
const optimized::PackedI16& PackedInteger(TransposeConvState& s, const Tensor* weights, const Filter* data,
                                          const reference::ConvDims& d, int32_t offset) {
  if (!weights->is_constant() || s.packed_i16.source != data || s.packed_i16.isa != optimized::ActiveIsa()) {
    optimized::PackTransposeConvFilterI16(data, d, offset, &s.packed_i16);
  }
  return s.packed_i16;
}

// The output shape from the output_shape tensor, checked against the input and the weights.
Status ReadOutputShape(const OpContext& ctx, Shape* shape) {
  const Tensor* shape_tensor = ctx.input(0);
  const Tensor* weights = ctx.input(1);
  const Tensor* input = ctx.input(2);
  std::vector<int64_t> dims;
  ER_RETURN_IF_ERROR(ReadInts(ctx, shape_tensor, "output_shape", &dims));
  if (dims.size() != 4) return ctx.Error("output_shape ", Describe(shape_tensor), " must have 4 elements");
  for (int64_t d : dims) {
    if (d < 0 || d > std::numeric_limits<int32_t>::max()) return ctx.Error("invalid output dimension ", d);
  }
  shape->assign(dims.begin(), dims.end());
  if ((*shape)[0] != input->dim(0)) {
    return ctx.Error("output batch ", (*shape)[0], " differs from the input's ", Describe(input));
  }
  if ((*shape)[3] != weights->dim(0)) {
    return ctx.Error("output channels ", (*shape)[3], " differ from the weights' ", Describe(weights));
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, TransposeConvState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 4, 1));
  const Tensor* output_shape = ctx.input(0);
  const Tensor* weights = ctx.input(1);
  const Tensor* input = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, output_shape, "output_shape", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, output_shape, "output_shape", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, output, "input and output"));
  switch (input->type) {
    case TensorType::kFloat32:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kFloat32, TensorType::kInt8}));
      break;
    case TensorType::kUInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kUInt8}));
      break;
    default:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kInt8}));
      break;
  }
  ER_RETURN_IF_ERROR(CheckDenseWeights(ctx, weights));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights, "weights", 4, 4));
  if (input->dim(3) != weights->dim(3)) {
    return ctx.Error("input channels of ", Describe(input), " differ from those of weights ", Describe(weights));
  }
  if (weights->dim(1) <= 0 || weights->dim(2) <= 0) return ctx.Error("weights ", Describe(weights), " are empty");
  const auto* o = Options<tflite::TransposeConvOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing TransposeConvOptions");
  if (o->stride_h() <= 0 || o->stride_w() <= 0) {
    return ctx.Error("strides (", o->stride_h(), ",", o->stride_w(), ") must be positive");
  }
  // The kernels place input row y at output row y * stride - pad: that must fit an int.
  if ((int64_t{input->dim(1)} - 1) * o->stride_h() + weights->dim(1) > kMaxConvSpan ||
      (int64_t{input->dim(2)} - 1) * o->stride_w() + weights->dim(2) > kMaxConvSpan) {
    return ctx.Error("input ", Describe(input), " with strides (", o->stride_h(), ",", o->stride_w(),
                     ") spans more than 2^30 output rows or columns");
  }
  state.padding = o->padding();
  state.params.stride_h = o->stride_h();
  state.params.stride_w = o->stride_w();
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &state.activation));
  if (state.activation == Activation::kTanh || state.activation == Activation::kSignBit) {
    return ctx.Unsupported("fused activation TANH/SIGN_BIT is not supported by ", ctx.op_name());
  }
  ActivationRange(state.activation, &state.params.act_min, &state.params.act_max);
  const int out_c = weights->dim(0);
  if (input->type == TensorType::kFloat32) {
    if (bias) {
      ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
      if (bias->num_elements() != out_c) return ctx.Error("bias ", Describe(bias), " must have ", out_c, " elements");
    }
    if (weights->type == TensorType::kInt8) {
      ER_RETURN_IF_ERROR(PrepareHybridScales(ctx, weights, out_c, &state.hybrid_scales));
      ER_RETURN_IF_ERROR(RequestHybridRows(ctx, input->num_elements(), input->dim(0)));
    }
  } else {
    QuantizedRules rules;
    rules.out_channels = out_c;
    rules.quantized_bias_type = o->quantized_bias_type();
    // XNNPACK takes the op only when the output shape is known before running.
    rules.xnnpack_for_8bit = output_shape->is_constant();
    ER_RETURN_IF_ERROR(PrepareQuantizedOutput(ctx, input, weights, bias, output, state.activation, rules, &state.q));
  }
  if (!output_shape->is_constant()) {
    ctx.MarkDynamic(output);
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(ReadOutputShape(ctx, &shape));
  return ctx.ResizeOutput(0, shape);
}

template <class Acc, class In, class Filter, class Out, class Bias>
void EvalQuantized(OpContext& ctx, TransposeConvState& s, const reference::ConvParams& p, const reference::ConvDims& d,
                   const Tensor* input, const Tensor* weights, const Bias* bias, Tensor* output) {
  const QuantizedOutput& q = s.q;
  const optimized::PackedI16& packed = PackedInteger(s, weights, weights->data_as<Filter>(), d, q.filter_offset);
  for (int b = 0; b < input->dim(0); ++b) {
    const In* in = input->data_as<In>() + b * ImageSize(input->shape);
    Out* out = output->data_as<Out>() + b * ImageSize(output->shape);
    if constexpr (std::is_same_v<Acc, int32_t>) {
      const auto stage = RequantStageFor<Out>(q, bias, out, d.out_c);
      optimized::IntegerTransposeConv<false>(ctx.thread_pool(), p, d, in, q.input_offset, packed, &s.col_int, stage);
    } else {
      const reference::Requantizer<Acc, Bias, Out> emit{q.requantization(), bias};
      const auto stage = optimized::MakeEmitStage<Out, Acc>(emit, out, d.out_c);
      if (s.int32_sums.Fits<In>(weights, weights->data_as<Filter>(), d.out_c, q.input_offset, q.filter_offset)) {
        if (!s.requant64.made) s.requant64.Make(q, d.out_c);
        if constexpr (std::is_same_v<Out, int16_t> && std::is_same_v<Bias, int64_t>) {
          if (s.requant64.usable) {
            optimized::IntegerTransposeConv<false>(ctx.thread_pool(), p, d, in, q.input_offset, packed, &s.col_int,
                                                   s.requant64.StageFor(q, bias, out, d.out_c));
            continue;
          }
        }
        optimized::IntegerTransposeConv<false>(ctx.thread_pool(), p, d, in, q.input_offset, packed, &s.col_int, stage);
      } else {
        optimized::IntegerTransposeConv<true>(ctx.thread_pool(), p, d, in, q.input_offset, packed, &s.col_int, stage);
      }
    }
  }
}

void EvalHybrid(OpContext& ctx, TransposeConvState& s, const reference::ConvParams& p, const reference::ConvDims& d,
                const Tensor* input, const Tensor* weights, const Tensor* bias, Tensor* output) {
  const HybridRows rows = GetHybridRows(ctx);
  const int batches = input->dim(0);
  const int64_t image = ImageSize(input->shape);
  QuantizeRows(input->data_as<float>(), batches, image, /*asymmetric=*/true, rows);
  const float* bias_data = bias ? bias->data_as<float>() : nullptr;
  const optimized::PackedI16& packed = PackedInteger(s, weights, weights->data_as<int8_t>(), d, 0);
  for (int b = 0; b < batches; ++b) {
    const float row_scale = rows.scales[b];
    auto emit = [&](int c, uint32_t sum) {
      float v = static_cast<float>(static_cast<int32_t>(sum)) * s.hybrid_scales[c] * row_scale;
      if (bias_data) v += bias_data[c];
      return std::min(std::max(v, p.act_min), p.act_max);
    };
    float* out = output->data_as<float>() + b * ImageSize(output->shape);
    optimized::IntegerTransposeConv<false>(ctx.thread_pool(), p, d, rows.quantized + b * image, -rows.zero_points[b],
                                           packed, &s.col_int, optimized::MakeEmitStage<float, int32_t>(emit, out, d.out_c));
  }
}

Status Eval(OpContext& ctx, TransposeConvState& state) {
  const Tensor* weights = ctx.input(1);
  const Tensor* input = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    Shape shape;
    ER_RETURN_IF_ERROR(ReadOutputShape(ctx, &shape));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  const int kh = weights->dim(1), kw = weights->dim(2);
  const reference::ConvDims d = ImageDims(input->shape, kh, kw, output->shape);
  // The padding of the CONV_2D that maps this output back to the input.
  reference::ConvParams p = state.params;
  const int conv_h = ComputeOutSize(state.padding, d.out_h, kh, p.stride_h, 1);
  const int conv_w = ComputeOutSize(state.padding, d.out_w, kw, p.stride_w, 1);
  const PaddingValues pad = ComputePadding(p.stride_h, p.stride_w, 1, 1, d.out_h, d.out_w, kh, kw, conv_h, conv_w);
  p.pad_h = pad.height;
  p.pad_w = pad.width;
  switch (input->type) {
    case TensorType::kFloat32:
      if (weights->type == TensorType::kInt8) {
        EvalHybrid(ctx, state, p, d, input, weights, bias, output);
      } else {
        if (!weights->is_constant()) state.packed_f32.source = nullptr;
        optimized::PackTransposeConvFilterF32(weights->data_as<float>(), d, optimized::ActiveIsa(), &state.packed_f32);
        optimized::TransposeConvF32(ctx.thread_pool(), p, d, input->dim(0), input->data_as<float>(), state.packed_f32,
                                 bias ? bias->data_as<float>() : nullptr, output->data_as<float>(), &state.col_f32);
      }
      break;
    case TensorType::kUInt8:
      EvalQuantized<int32_t, uint8_t, uint8_t, uint8_t>(ctx, state, p, d, input, weights,
                                                        bias ? bias->data_as<int32_t>() : nullptr, output);
      break;
    case TensorType::kInt8:
      EvalQuantized<int32_t, int8_t, int8_t, int8_t>(ctx, state, p, d, input, weights,
                                                     bias ? bias->data_as<int32_t>() : nullptr, output);
      break;
    default:
      if (state.q.wide) {
        EvalQuantized<int64_t, int16_t, int8_t, int16_t>(ctx, state, p, d, input, weights,
                                                         bias ? bias->data_as<int64_t>() : nullptr, output);
      } else {
        EvalQuantized<int32_t, int16_t, int8_t, int16_t>(ctx, state, p, d, input, weights,
                                                         bias ? bias->data_as<int32_t>() : nullptr, output);
      }
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTransposeConv() {
  return MakeBuiltinWithState<TransposeConvState>(tflite::BuiltinOperator_TRANSPOSE_CONV, 5,
                                                  "float32, uint8, int8, int16 (int8 weights), hybrid float32 x int8",
                                                  Prepare, Eval);
}

}  // namespace edgerun::ops
