// CONV_2D: 2-D convolution, NHWC input, OHWI filter, optional bias, padding SAME/VALID,
// strides, dilation, grouped filters (input channels a multiple of the filter's), fused activation.
// Types: float32; uint8 (per-tensor, asymmetric weights); int8 x int8/int4 weights (per-tensor or
// per-channel, int32 bias); int16 x int8/int4 weights (int32 or int64 bias); hybrid float32
// input x int8/int4 weights, the input quantized per image at run time.
#include "edgerun/interpreter.h"
#include "kernels/optimized/conv.h"
#include "kernels/optimized/integer.h"
#include "kernels/optimized/winograd.h"
#include "ops/conv_util.h"
#include "ops/fully_connected_util.h"
#include "ops/row_bands.h"

namespace edgerun::ops {
namespace {

struct ConvState {
  reference::ConvParams params;
  Activation activation = Activation::kNone;
  QuantizedOutput q;
  // Hybrid: filter scale per output channel; TFLite quantizes the input symmetrically when all
  // the scales are equal and asymmetrically (its per-channel kernel) otherwise or when grouped.
  std::vector<float> hybrid_scales;
  bool hybrid_asymmetric = false;
  std::vector<int8_t> unpacked_filter;  // int4 filters as int8
  // The filter packed for the optimized kernels (at the first eval, so that nodes a delegate
  // takes never pack).
  optimized::ConvFilterF32 packed_f32;
  optimized::ConvFilterI16 packed_i16;
  optimized::ConvFilterI8 packed_i8;  // int8 x int8 on CPUs with byte dot products
  Int32SumCheck int32_sums;           // int16 x int8 with int64 sums: whether int32 ones are exact
  Int64Requant requant64;             // and the vector requantization of those
};

bool IsHybrid(const Tensor* input, const Tensor* filter) {
  return input->type == TensorType::kFloat32 && filter->type != TensorType::kFloat32;
}

Status Prepare(OpContext& ctx, ConvState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, output, "input and output"));
  switch (input->type) {
    case TensorType::kFloat32:
      ER_RETURN_IF_ERROR(
          CheckType(ctx, filter, "filter", {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt4}));
      break;
    case TensorType::kUInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kUInt8}));
      break;
    default:
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kInt8, TensorType::kInt4}));
      break;
  }
  ER_RETURN_IF_ERROR(CheckDenseWeights(ctx, filter));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  ER_RETURN_IF_ERROR(CheckRank(ctx, filter, "filter", 4, 4));
  const auto* o = Options<tflite::Conv2DOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing Conv2DOptions");
  const int in_c = input->dim(3), out_c = filter->dim(0), f_c = filter->dim(3);
  if (f_c <= 0 || in_c <= 0 || in_c % f_c != 0) {
    return ctx.Error("input channels (", in_c, ") must be a multiple of the filter's (", Describe(filter), ")");
  }
  const int groups = in_c / f_c;
  if (out_c % groups != 0) return ctx.Error("output channels ", out_c, " are not divisible into ", groups, " groups");
  const ConvGeometry geometry{o->padding(),           o->stride_h(),          o->stride_w(),
                              o->dilation_h_factor(), o->dilation_w_factor(), o->fused_activation_function()};
  int out_h = 0, out_w = 0;
  ER_RETURN_IF_ERROR(PrepareConvGeometry(ctx, geometry, input, filter->dim(1), filter->dim(2), &state.params, &out_h,
                                         &out_w, &state.activation));
  if (input->type == TensorType::kFloat32) {
    if (bias) {
      ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
      if (bias->num_elements() != out_c) return ctx.Error("bias ", Describe(bias), " must have ", out_c, " elements");
    }
    if (IsHybrid(input, filter)) {
      ER_RETURN_IF_ERROR(PrepareHybridScales(ctx, filter, out_c, &state.hybrid_scales));
      const auto& scales = state.hybrid_scales;
      state.hybrid_asymmetric =
          groups != 1 || std::any_of(scales.begin(), scales.end(), [&](float s) { return s != scales[0]; });
      ER_RETURN_IF_ERROR(RequestHybridRows(ctx, input->num_elements(), input->dim(0)));
    }
  } else {
    QuantizedRules rules;
    rules.out_channels = out_c;
    rules.quantized_bias_type = o->quantized_bias_type();
    ER_RETURN_IF_ERROR(PrepareQuantizedOutput(ctx, input, filter, bias, output, state.activation, rules, &state.q));
  }
  return ctx.ResizeOutput(0, {input->dim(0), out_h, out_w, out_c});
}

// How the float32 kernel runs this convolution: by the direct sum, by Winograd F(2x2, 3x3) on
// transformed filters packed once, or by F(2x2, 3x3) from the direct packing.
enum class FloatConvWay { kDirect, kWinograd, kWinogradFromDirect };
FloatConvWay FloatWay(const OpContext& ctx, const ConvState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  if (input->type != TensorType::kFloat32 || filter->type != TensorType::kFloat32 ||
      !ctx.interpreter().options().float_winograd || filter->dim(3) <= 0) {
    return FloatConvWay::kDirect;
  }
  const int groups = input->dim(3) / filter->dim(3);
  if (optimized::WinogradF23Applies(state.params, filter->shape, groups)) return FloatConvWay::kWinograd;
  if (optimized::WinogradF23FromDirectApplies(state.params, filter->shape, groups, ctx.output(0)->shape)) {
    return FloatConvWay::kWinogradFromDirect;
  }
  return FloatConvWay::kDirect;
}

// Packs a float32 filter for the optimized kernel (once for a constant filter).
void PackFloatFilter(OpContext& ctx, ConvState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  if (!filter->is_constant()) state.packed_f32.clear();
  const bool packed_before = !state.packed_f32.empty();
  const int groups = input->dim(3) / filter->dim(3);
  // From now on the packed copy is read, not the file: its pages can leave the process, so that
  // the weights are not resident twice (a no-op for models loaded from memory). They go row by
  // row as the packing proceeds (in the subgraph's batches of a MiB), every row of the filter
  // once: released only at the end, a 9 MiB filter was resident twice for a moment, the peak RSS
  // of a model with large layers.
  const size_t row_bytes = filter->dim(0) > 0 ? filter->bytes / static_cast<size_t>(filter->dim(0)) : 0;
  const optimized::ConsumedRowsFn release = [&](const float* rows, int64_t count) {
    ctx.subgraph().ReleaseWeightPages(rows, static_cast<size_t>(count) * row_bytes);
  };
  const optimized::ConsumedRowsFn* consumed = !packed_before && filter->is_constant() ? &release : nullptr;
  const FloatConvWay way = FloatWay(ctx, state);
  if (way == FloatConvWay::kWinograd) {
    optimized::PackWinogradF23(filter->shape, filter->data_as<float>(), optimized::ActiveIsa(),
                               &state.packed_f32.winograd, consumed);
  } else {
    state.packed_f32.winograd.clear();
    optimized::PackConvFilterF32(filter->shape, filter->data_as<float>(), groups, optimized::ActiveIsa(),
                                 &state.packed_f32, consumed);
  }
  state.packed_f32.winograd_from_direct = way == FloatConvWay::kWinogradFromDirect;
}

// Packs the filter (plus its offset) for the integer kernels: once for a constant filter.
template <class Filter>
const optimized::ConvFilterI16& PackedInteger(ConvState& s, const Tensor* filter, const Filter* filter_data,
                                              int32_t offset, int groups) {
  if (!filter->is_constant()) s.packed_i16.groups.clear();
  optimized::PackConvFilterI16(filter->shape, filter_data, offset, groups, &s.packed_i16);
  return s.packed_i16;
}

// 8-bit activations and weights (int8 x int8, uint8 x uint8) on byte dot products
// (optimized::HasGemmI8).
template <class In, class Filter>
void PackByteDotFilter(OpContext& ctx, ConvState& s, const Tensor* filter, const Filter* filter_data, int groups) {
  if (!filter->is_constant()) s.packed_i8.groups.clear();
  const bool packed_before = !s.packed_i8.groups.empty();
  optimized::PackConvFilterI8<In>(filter->shape, filter_data, s.q.filter_offset, s.q.input_offset, groups,
                                  &s.packed_i8);
  // As for float filters: the packed copy is what is read from now on.
  if (!packed_before && filter->is_constant() && filter_data == filter->data_as<Filter>()) {
    ctx.subgraph().ReleaseWeightPages(filter->data, filter->bytes);
  }
}

template <class In, class Filter>
void EvalOnByteDots(OpContext& ctx, ConvState& s, const Tensor* input, const Tensor* filter, const Filter* filter_data,
                    const int32_t* bias, Tensor* output) {
  const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
  const int f_c = filter->dim(3), groups = d.in_c / f_c, per_group = d.out_c / groups;
  PackByteDotFilter<In>(ctx, s, filter, filter_data, groups);
  for (int b = 0; b < input->dim(0); ++b) {
    const In* in = input->data_as<In>() + b * ImageSize(input->shape);
    In* out = output->data_as<In>() + b * ImageSize(output->shape);
    optimized::IntegerConv2DI8(ctx.thread_pool(), s.params, d, f_c, in, s.q.input_offset, s.packed_i8,
                               [&](int g) { return RequantStageFor<In>(s.q, bias, out, d.out_c, g * per_group); });
  }
}

template <class Acc, class In, class Filter, class Out, class Bias>
void EvalQuantized(OpContext& ctx, ConvState& s, const Tensor* input, const Tensor* filter, const Filter* filter_data,
                   const Bias* bias, Tensor* output) {
  const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
  const int f_c = filter->dim(3), groups = d.in_c / f_c, per_group = d.out_c / groups;
  if constexpr (std::is_same_v<Acc, int32_t> && sizeof(In) == 1 && std::is_same_v<In, Filter> &&
                std::is_same_v<In, Out>) {
    if (optimized::HasGemmI8(optimized::ActiveIsa())) {
      EvalOnByteDots<In>(ctx, s, input, filter, filter_data, bias, output);
      return;
    }
  }
  const optimized::ConvFilterI16& packed = PackedInteger(s, filter, filter_data, s.q.filter_offset, groups);
  for (int b = 0; b < input->dim(0); ++b) {
    const In* in = input->data_as<In>() + b * ImageSize(input->shape);
    Out* out = output->data_as<Out>() + b * ImageSize(output->shape);
    if constexpr (std::is_same_v<Acc, int32_t>) {
      optimized::IntegerConv2D<false>(ctx.thread_pool(), s.params, d, f_c, in, s.q.input_offset, packed, [&](int g) {
        return RequantStageFor<Out>(s.q, bias, out, d.out_c, g * per_group);
      });
    } else {
      const reference::Requantizer<Acc, Bias, Out> emit{s.q.requantization(), bias};
      auto stage = [&](int g) { return optimized::MakeEmitStage<Out, Acc>(emit, out, d.out_c, g * per_group); };
      if (s.int32_sums.Fits<In>(filter, filter_data, d.out_c, s.q.input_offset, s.q.filter_offset)) {
        if (!s.requant64.made) s.requant64.Make(s.q, d.out_c);
        if constexpr (std::is_same_v<Out, int16_t> && std::is_same_v<Bias, int64_t>) {
          if (s.requant64.usable) {
            optimized::IntegerConv2D<false>(ctx.thread_pool(), s.params, d, f_c, in, s.q.input_offset, packed,
                                            [&](int g) { return s.requant64.StageFor(s.q, bias, out, d.out_c, g * per_group); });
            continue;
          }
        }
        optimized::IntegerConv2D<false>(ctx.thread_pool(), s.params, d, f_c, in, s.q.input_offset, packed, stage);
      } else {
        optimized::IntegerConv2D<true>(ctx.thread_pool(), s.params, d, f_c, in, s.q.input_offset, packed, stage);
      }
    }
  }
}

void EvalHybrid(OpContext& ctx, ConvState& s, const Tensor* input, const int8_t* filter_data, const Tensor* filter,
                const Tensor* bias, Tensor* output) {
  const HybridRows rows = GetHybridRows(ctx);
  const int batches = input->dim(0);
  const int64_t image = ImageSize(input->shape);
  QuantizeRows(input->data_as<float>(), batches, image, s.hybrid_asymmetric, rows);
  const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
  const int f_c = filter->dim(3), groups = d.in_c / f_c, per_group = d.out_c / groups;
  const optimized::ConvFilterI16& packed = PackedInteger(s, filter, filter_data, 0, groups);
  const float* bias_data = bias ? bias->data_as<float>() : nullptr;
  for (int b = 0; b < batches; ++b) {
    // TFLite folds a per-tensor filter scale into the row scale first.
    const float row_scale = rows.scales[b] * (s.hybrid_asymmetric ? 1.0f : s.hybrid_scales[0]);
    auto emit = [&](int c, uint32_t sum) {
      const float channel_scale = s.hybrid_asymmetric ? s.hybrid_scales[c] * row_scale : row_scale;
      float v = static_cast<float>(static_cast<int32_t>(sum)) * channel_scale;
      if (bias_data) v += bias_data[c];
      return std::min(std::max(v, s.params.act_min), s.params.act_max);
    };
    float* out = output->data_as<float>() + b * ImageSize(output->shape);
    optimized::IntegerConv2D<false>(ctx.thread_pool(), s.params, d, f_c, rows.quantized + b * image,
                                    -rows.zero_points[b], packed, [&](int g) {
                                      return optimized::MakeEmitStage<float, int32_t>(emit, out, d.out_c,
                                                                                      g * per_group);
                                    });
  }
}

Status Eval(OpContext& ctx, ConvState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  // Nothing to compute, however large the other dimensions (fuzz_invoke: an int16 input of
  // [181264129, 6373376, 0, 32] spent seconds walking empty rows).
  if (output->num_elements() == 0) return Status::Ok();
  if (input->type == TensorType::kFloat32 && filter->type == TensorType::kFloat32) {
    if (FloatConvIsMatVecInPlace(input->shape, filter->shape, output->shape, filter->is_constant(), filter->bytes)) {
      optimized::MatVecF32(ctx.thread_pool(), filter->data_as<float>(), output->dim(3), input->dim(3),
                           input->data_as<float>(), bias ? bias->data_as<float>() : nullptr, state.params.act_min,
                           state.params.act_max, output->data_as<float>());
      return Status::Ok();
    }
    PackFloatFilter(ctx, state);
    optimized::Conv2DF32(ctx.thread_pool(), state.params, input->shape, input->data_as<float>(), filter->shape,
                         state.packed_f32, bias ? bias->data_as<float>() : nullptr, output->shape,
                         output->data_as<float>());
    return Status::Ok();
  }
  if (input->type == TensorType::kUInt8) {
    EvalQuantized<int32_t, uint8_t, uint8_t, uint8_t>(ctx, state, input, filter, filter->data_as<uint8_t>(),
                                                      bias ? bias->data_as<int32_t>() : nullptr, output);
    return Status::Ok();
  }
  const int8_t* filter_data = WeightsAsInt8(filter, &state.unpacked_filter);
  if (input->type == TensorType::kFloat32) {
    EvalHybrid(ctx, state, input, filter_data, filter, bias, output);
  } else if (input->type == TensorType::kInt8) {
    EvalQuantized<int32_t, int8_t, int8_t, int8_t>(ctx, state, input, filter, filter_data,
                                                   bias ? bias->data_as<int32_t>() : nullptr, output);
  } else if (state.q.wide) {
    EvalQuantized<int64_t, int16_t, int8_t, int16_t>(ctx, state, input, filter, filter_data,
                                                     bias ? bias->data_as<int64_t>() : nullptr, output);
  } else {
    EvalQuantized<int32_t, int16_t, int8_t, int16_t>(ctx, state, input, filter, filter_data,
                                                     bias ? bias->data_as<int32_t>() : nullptr, output);
  }
  return Status::Ok();
}

// CONV_2D by bands of rows (ops/row_bands.h): the float32 kernel and the 8-bit one on byte dot
// products, the same kernels and arithmetic as Eval, on the calling thread.
class Conv2DRows final : public WindowRowKernel, public PixelKernel {
 public:
  Conv2DRows(ConvState* state, int in_h, int kernel_h, bool pointwise)
      : WindowRowKernel(state->params, in_h, kernel_h), s_(*state), pointwise_(pointwise) {}

  void Begin(OpContext& ctx) override {
    const Tensor* input = ctx.input(0);
    const Tensor* filter = ctx.input(1);
    const int groups = input->dim(3) / filter->dim(3);
    if (input->type == TensorType::kFloat32) {
      PackFloatFilter(ctx, s_);
    } else if (input->type == TensorType::kUInt8) {
      PackByteDotFilter<uint8_t>(ctx, s_, filter, filter->data_as<uint8_t>(), groups);
    } else {
      PackByteDotFilter<int8_t>(ctx, s_, filter, WeightsAsInt8(filter, &s_.unpacked_filter), groups);
    }
  }

  void EvalRows(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const override {
    const BandImage b = Band(ctx, in, out);
    EvalImage(ctx, b.params, b.in_shape, in.data, b.out_shape, out.data);
  }

  const PixelKernel* pixels() const override { return pointwise_ ? this : nullptr; }

  // A 1x1 window of stride 1 without padding: the pixels are an image of one row.
  void EvalPixels(const OpContext& ctx, const void* in, void* out, int64_t, int64_t count) const override {
    const int n = static_cast<int>(count);
    EvalImage(ctx, s_.params, {1, 1, n, ctx.input(0)->dim(3)}, in, {1, 1, n, ctx.output(0)->dim(3)}, out);
  }

 private:
  void EvalImage(const OpContext& ctx, const reference::ConvParams& params, const Shape& in_shape, const void* in,
                 const Shape& out_shape, void* out) const {
    const TensorType type = ctx.input(0)->type;
    const Tensor* filter = ctx.input(1);
    const Tensor* bias = ctx.input(2);
    if (type == TensorType::kFloat32) {
      optimized::Conv2DF32(nullptr, params, in_shape, static_cast<const float*>(in), filter->shape, s_.packed_f32,
                           bias ? bias->data_as<float>() : nullptr, out_shape, static_cast<float*>(out));
    } else if (type == TensorType::kUInt8) {
      EvalBand<uint8_t>(params, in_shape, in, filter, bias, out_shape, out);
    } else {
      EvalBand<int8_t>(params, in_shape, in, filter, bias, out_shape, out);
    }
  }

  template <class In>
  void EvalBand(const reference::ConvParams& p, const Shape& in_shape, const void* in, const Tensor* filter,
                const Tensor* bias, const Shape& out_shape, void* out) const {
    const reference::ConvDims d = ImageDims(in_shape, filter->dim(1), filter->dim(2), out_shape);
    const int f_c = filter->dim(3), per_group = d.out_c / (d.in_c / f_c);
    const int32_t* bias_data = bias ? bias->data_as<int32_t>() : nullptr;
    optimized::IntegerConv2DI8(
        nullptr, p, d, f_c, static_cast<const In*>(in), s_.q.input_offset, s_.packed_i8,
        [&](int g) { return RequantStageFor<In>(s_.q, bias_data, static_cast<In*>(out), d.out_c, g * per_group); });
  }

  ConvState& s_;
  const bool pointwise_;
};

}  // namespace

std::unique_ptr<RowKernel> MakeConv2DRowKernel(const OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* output = ctx.output(0);
  ConvState* state = OwnState<ConvState>(ctx);
  if (state == nullptr || input->dim(0) != 1 || output->num_elements() == 0) return nullptr;
  const bool float_path = input->type == TensorType::kFloat32 && filter->type == TensorType::kFloat32;
  // The 8-bit kernels Eval runs on byte dot products (int8 x int8/int4, uint8 x uint8).
  const bool byte_dots =
      optimized::HasGemmI8(optimized::ActiveIsa()) &&
      ((input->type == TensorType::kUInt8 && filter->type == TensorType::kUInt8) ||
       (input->type == TensorType::kInt8 && (filter->type == TensorType::kInt8 || filter->type == TensorType::kInt4)));
  if (!float_path && !byte_dots) return nullptr;
  // Winograd's tiles would start at each band's first row instead of the image's: other
  // rounding than the same convolution unfused.
  if (float_path && FloatWay(ctx, *state) != FloatConvWay::kDirect) return nullptr;
  const reference::ConvParams& p = state->params;
  const bool pointwise = filter->dim(1) == 1 && filter->dim(2) == 1 && p.stride_h == 1 && p.stride_w == 1 &&
                         p.pad_h == 0 && p.pad_w == 0 && input->dim(1) == output->dim(1) &&
                         input->dim(2) == output->dim(2);
  return std::make_unique<Conv2DRows>(state, input->dim(1), filter->dim(1), pointwise);
}

OpRegistration RegisterConv2D() {
  return MakeBuiltinWithState<ConvState>(tflite::BuiltinOperator_CONV_2D, 8,
                                         "float32, uint8, int8, int16 (int8/int4 weights), hybrid float32 x int8",
                                         Prepare, Eval);
}

}  // namespace edgerun::ops
