// DEPTHWISE_CONV_2D: per-channel 2-D convolution, NHWC input, [1,KH,KW,C*M] filter, optional
// bias, padding SAME/VALID, strides, dilation, fused activation. The multiplier M comes from the
// shapes (the depth_multiplier option is redundant and newer converters leave it wrong).
// A one-channel input with a multiplier above 1 (audio models: micro speech's 10x8 filter makes 8
// channels of its spectrogram) is a CONV_2D, and runs on CONV_2D's GEMM kernels.
// Types: float32; uint8 (per-tensor); int8 x int8/int4 weights (per-tensor or per-channel);
// int16 x int8 weights (int64 or int32 bias); hybrid float32 x int8 weights, the input quantized
// per image (asymmetric) at run time as TFLite's per-channel hybrid kernel does.
#include "kernels/optimized/conv.h"
#include "kernels/optimized/integer.h"
#include "ops/conv_util.h"
#include "ops/row_bands.h"

namespace edgerun::ops {
namespace {

// DEPTHWISE_CONV_2D of one input channel is a CONV_2D whose filter [M][KH][KW][1] is this one
// transposed (output channel m reads the taps of column m), so it runs on the GEMM kernels: float32
// on AVX-512/AVX2 tiles, 8-bit on byte dot products, instead of one tap at a time per channel
// (micro speech's 10x8 x 8 channels: 496 us on the loop over taps).
struct AsConvolution {
  std::vector<uint8_t> filter;  // the transposed filter, elements of the filter's type (int4 as int8)
  const void* source = nullptr;  // what it was transposed from (constant filters only)
  Shape shape;                   // [M, KH, KW, 1]
  optimized::ConvFilterF32 packed_f32;
  optimized::ConvFilterI8 packed_i8;
};

// The filter [1][KH][KW][M] as [M][KH][KW][1], made once for a constant filter. Clears the packed
// copies when it changes, since they know their source by address.
template <class T>
const T* TransposedFilter(AsConvolution& c, const Tensor* filter, const T* data) {
  if (filter->is_constant() && c.source == data) return reinterpret_cast<const T*>(c.filter.data());
  const int taps = filter->dim(1) * filter->dim(2), m = filter->dim(3);
  c.filter.resize(static_cast<size_t>(taps) * m * sizeof(T));
  T* out = reinterpret_cast<T*>(c.filter.data());
  for (int t = 0; t < taps; ++t)
    for (int o = 0; o < m; ++o) out[static_cast<int64_t>(o) * taps + t] = data[static_cast<int64_t>(t) * m + o];
  c.shape = {m, filter->dim(1), filter->dim(2), 1};
  c.source = filter->is_constant() ? data : nullptr;
  c.packed_f32.groups.clear();
  c.packed_i8.groups.clear();
  return out;
}

struct DepthwiseState {
  reference::ConvParams params;
  int depth_multiplier = 1;
  Activation activation = Activation::kNone;
  QuantizedOutput q;
  std::vector<float> hybrid_scales;     // filter scale per output channel
  std::vector<int8_t> unpacked_filter;  // int4 filters as int8
  // The optimized integer kernel's filter: values plus offset as int32, made at the first eval.
  optimized::AlignedBuffer<int32_t> filter_i32;
  const void* filter_i32_source = nullptr;
  AsConvolution as_conv;  // one input channel (DepthwiseRunsAsConvolution)
};

// The optimized kernels take depth multiplier 1 (and int64 sums over at most 256 taps).
bool UseOptimized(const DepthwiseState& s, const Tensor* filter, bool wide) {
  return s.depth_multiplier == 1 && (!wide || filter->dim(1) * filter->dim(2) <= 2 * optimized::kWidePairsPerBlock);
}

template <class Filter>
const int32_t* FilterWithOffset(DepthwiseState& s, const Tensor* filter, const Filter* data, int32_t offset) {
  if (!filter->is_constant() || s.filter_i32_source != data) {
    optimized::PrepareDepthwiseFilter(data, filter->num_elements(), offset, &s.filter_i32);
    s.filter_i32_source = filter->is_constant() ? data : nullptr;
  }
  return s.filter_i32.data();
}

Status Prepare(OpContext& ctx, DepthwiseState& state) {
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
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kFloat32, TensorType::kInt8}));
      break;
    case TensorType::kUInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kUInt8}));
      break;
    case TensorType::kInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kInt8, TensorType::kInt4}));
      break;
    default:
      ER_RETURN_IF_ERROR(CheckType(ctx, filter, "filter", {TensorType::kInt8}));
      break;
  }
  ER_RETURN_IF_ERROR(CheckDenseWeights(ctx, filter));
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
    if (filter->type == TensorType::kInt8) {
      ER_RETURN_IF_ERROR(PrepareHybridScales(ctx, filter, out_c, &state.hybrid_scales));
      ER_RETURN_IF_ERROR(RequestHybridRows(ctx, input->num_elements(), input->dim(0)));
    }
  } else {
    QuantizedRules rules;
    rules.out_channels = out_c;
    ER_RETURN_IF_ERROR(PrepareQuantizedOutput(ctx, input, filter, bias, output, state.activation, rules, &state.q));
  }
  return ctx.ResizeOutput(0, {input->dim(0), out_h, out_w, out_c});
}

template <class Acc, class In, class Filter, class Out, class Bias>
void EvalQuantized(OpContext& ctx, DepthwiseState& s, const Tensor* input, const Tensor* filter,
                   const Filter* filter_data, const Bias* bias, Tensor* output) {
  const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
  const In* in = input->data_as<In>();
  Out* out = output->data_as<Out>();
  constexpr bool kWide = std::is_same_v<Acc, int64_t>;
  if (UseOptimized(s, filter, kWide)) {
    const int32_t* f = FilterWithOffset(s, filter, filter_data, s.q.filter_offset);
    for (int b = 0; b < input->dim(0); ++b) {
      const In* image = in + b * ImageSize(input->shape);
      Out* out_image = out + b * ImageSize(output->shape);
      if constexpr (!kWide) {
        const auto stage = RequantStageFor<Out>(s.q, bias, out_image, d.out_c);
        optimized::IntegerDepthwiseConv2D(ctx.thread_pool(), s.params, d, image, s.q.input_offset, f, stage);
      } else {
        const reference::Requantizer<Acc, Bias, Out> emit{s.q.requantization(), bias};
        const auto stage = optimized::MakeEmitStage<Out, Acc>(emit, out_image, d.out_c);
        optimized::IntegerDepthwiseConv2D(ctx.thread_pool(), s.params, d, image, s.q.input_offset, f, stage);
      }
    }
    return;
  }
  std::vector<reference::AccSum<Acc>> sums;
  WithRequantizer<Acc, Bias, Out>(s.q, bias, [&](const auto& emit) {
    for (int b = 0; b < input->dim(0); ++b) {
      reference::IntegerDepthwiseConv2D<Acc>(s.params, d, s.depth_multiplier, in + b * ImageSize(input->shape),
                                             s.q.input_offset, filter_data, s.q.filter_offset,
                                             out + b * ImageSize(output->shape), sums, emit);
    }
  });
}

template <class In, class Filter>
void EvalAsConvolution(OpContext& ctx, DepthwiseState& s, const Tensor* input, const Tensor* filter,
                       const Filter* filter_data, const Tensor* bias, Tensor* output) {
  AsConvolution& c = s.as_conv;
  const Filter* transposed = TransposedFilter(c, filter, filter_data);
  if constexpr (std::is_same_v<In, float>) {
    optimized::PackConvFilterF32(c.shape, transposed, 1, optimized::ActiveIsa(), &c.packed_f32);
    optimized::Conv2DF32(ctx.thread_pool(), s.params, input->shape, input->data_as<float>(), c.shape, c.packed_f32,
                         bias ? bias->data_as<float>() : nullptr, output->shape, output->data_as<float>());
  } else {
    optimized::PackConvFilterI8<In>(c.shape, transposed, s.q.filter_offset, s.q.input_offset, 1, &c.packed_i8);
    const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
    for (int b = 0; b < input->dim(0); ++b) {
      In* out = output->data_as<In>() + b * ImageSize(output->shape);
      optimized::IntegerConv2DI8(
          ctx.thread_pool(), s.params, d, 1, input->data_as<In>() + b * ImageSize(input->shape), s.q.input_offset,
          c.packed_i8,
          [&](int) { return RequantStageFor<In>(s.q, bias ? bias->data_as<int32_t>() : nullptr, out, d.out_c); });
    }
  }
}

void EvalHybrid(OpContext& ctx, DepthwiseState& s, const Tensor* input, const Tensor* filter, const Tensor* bias,
                Tensor* output) {
  const HybridRows rows = GetHybridRows(ctx);
  const int batches = input->dim(0);
  const int64_t image = ImageSize(input->shape);
  QuantizeRows(input->data_as<float>(), batches, image, /*asymmetric=*/true, rows);
  const reference::ConvDims d = ImageDims(input->shape, filter->dim(1), filter->dim(2), output->shape);
  const float* bias_data = bias ? bias->data_as<float>() : nullptr;
  float* out = output->data_as<float>();
  std::vector<uint32_t> sums;
  for (int b = 0; b < batches; ++b) {
    const float row_scale = rows.scales[b];
    auto emit = [&](int c, uint32_t sum) {
      float v = static_cast<float>(static_cast<int32_t>(sum)) * (s.hybrid_scales[c] * row_scale);
      if (bias_data) v += bias_data[c];
      return std::min(std::max(v, s.params.act_min), s.params.act_max);
    };
    if (UseOptimized(s, filter, false)) {
      const int32_t* f = FilterWithOffset(s, filter, filter->data_as<int8_t>(), 0);
      const auto stage = optimized::MakeEmitStage<float, int32_t>(emit, out + b * ImageSize(output->shape), d.out_c);
      optimized::IntegerDepthwiseConv2D(ctx.thread_pool(), s.params, d, rows.quantized + b * image,
                                        -rows.zero_points[b], f, stage);
      continue;
    }
    reference::IntegerDepthwiseConv2D<int32_t>(s.params, d, s.depth_multiplier, rows.quantized + b * image,
                                               -rows.zero_points[b], filter->data_as<int8_t>(), 0,
                                               out + b * ImageSize(output->shape), sums, emit);
  }
}

Status Eval(OpContext& ctx, DepthwiseState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  // Nothing to compute, however large the other dimensions (fuzz_invoke: an int16 input of
  // [181264129, 6373376, 0, 32] spent seconds walking empty rows).
  if (output->num_elements() == 0) return Status::Ok();
  if (DepthwiseRunsAsConvolution(input, filter)) {
    if (input->type == TensorType::kFloat32) {
      EvalAsConvolution<float>(ctx, state, input, filter, filter->data_as<float>(), bias, output);
    } else if (input->type == TensorType::kUInt8) {
      EvalAsConvolution<uint8_t>(ctx, state, input, filter, filter->data_as<uint8_t>(), bias, output);
    } else {
      EvalAsConvolution<int8_t>(ctx, state, input, filter, WeightsAsInt8(filter, &state.unpacked_filter), bias,
                                output);
    }
    return Status::Ok();
  }
  switch (input->type) {
    case TensorType::kFloat32:
      if (filter->type == TensorType::kInt8) {
        EvalHybrid(ctx, state, input, filter, bias, output);
      } else if (state.depth_multiplier == 1) {
        optimized::DepthwiseConv2DF32(ctx.thread_pool(), state.params, input->shape, input->data_as<float>(),
                                      filter->shape, filter->data_as<float>(), bias ? bias->data_as<float>() : nullptr,
                                      output->shape, output->data_as<float>());
      } else {
        reference::DepthwiseConv2D(state.params, state.depth_multiplier, input->shape, input->data_as<float>(),
                                   filter->shape, filter->data_as<float>(), bias ? bias->data_as<float>() : nullptr,
                                   output->shape, output->data_as<float>());
      }
      break;
    case TensorType::kUInt8:
      EvalQuantized<int32_t, uint8_t, uint8_t, uint8_t>(ctx, state, input, filter, filter->data_as<uint8_t>(),
                                                        bias ? bias->data_as<int32_t>() : nullptr, output);
      break;
    case TensorType::kInt8:
      EvalQuantized<int32_t, int8_t, int8_t, int8_t>(ctx, state, input, filter,
                                                     WeightsAsInt8(filter, &state.unpacked_filter),
                                                     bias ? bias->data_as<int32_t>() : nullptr, output);
      break;
    default:
      if (state.q.wide) {
        EvalQuantized<int64_t, int16_t, int8_t, int16_t>(ctx, state, input, filter, filter->data_as<int8_t>(),
                                                         bias ? bias->data_as<int64_t>() : nullptr, output);
      } else {
        EvalQuantized<int32_t, int16_t, int8_t, int16_t>(ctx, state, input, filter, filter->data_as<int8_t>(),
                                                         bias ? bias->data_as<int32_t>() : nullptr, output);
      }
      break;
  }
  return Status::Ok();
}

// DEPTHWISE_CONV_2D by bands of rows (ops/row_bands.h): depth multiplier 1, float32 and 8-bit, the
// same kernels and arithmetic as Eval, on the calling thread.
class DepthwiseRows final : public WindowRowKernel, public ColumnKernel {
 public:
  DepthwiseRows(DepthwiseState* state, int in_h, int in_w, int kernel_h, int kernel_w)
      : WindowRowKernel(state->params, in_h, kernel_h), s_(*state), in_w_(in_w), kernel_w_(kernel_w) {}

  void Begin(OpContext& ctx) override {
    const Tensor* input = ctx.input(0);
    const Tensor* filter = ctx.input(1);
    if (input->type == TensorType::kUInt8) {
      filter_ = FilterWithOffset(s_, filter, filter->data_as<uint8_t>(), s_.q.filter_offset);
    } else if (input->type == TensorType::kInt8) {
      filter_ = FilterWithOffset(s_, filter, WeightsAsInt8(filter, &s_.unpacked_filter), s_.q.filter_offset);
    }
  }

  void EvalRows(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const override {
    EvalColumns(ctx, in, out, 0, ctx.output(0)->dim(2));
  }

  const ColumnKernel* columns() const override { return this; }

  void InputColumns(int out_first, int out_end, int* first, int* end) const override {
    WindowRows(out_first, out_end, s_.params.stride_w, s_.params.pad_w, kernel_w_, s_.params.dilation_w, in_w_, first,
               end);
  }

  void EvalColumns(const OpContext& ctx, const RowBand& in, const OutputRowBand& out, int x0, int x1) const override {
    const TensorType type = ctx.input(0)->type;
    const Tensor* filter = ctx.input(1);
    const Tensor* bias = ctx.input(2);
    const BandImage b = Band(ctx, in, out);
    if (type == TensorType::kFloat32) {
      optimized::DepthwiseConv2DF32(nullptr, b.params, b.in_shape, static_cast<const float*>(in.data), filter->shape,
                                    filter->data_as<float>(), bias ? bias->data_as<float>() : nullptr, b.out_shape,
                                    static_cast<float*>(out.data), x0, x1);
    } else if (type == TensorType::kUInt8) {
      EvalBand<uint8_t>(b.params, b.in_shape, in.data, filter, bias, b.out_shape, out.data, x0, x1);
    } else {
      EvalBand<int8_t>(b.params, b.in_shape, in.data, filter, bias, b.out_shape, out.data, x0, x1);
    }
  }

 private:
  template <class In>
  void EvalBand(const reference::ConvParams& p, const Shape& in_shape, const void* in, const Tensor* filter,
                const Tensor* bias, const Shape& out_shape, void* out, int x0, int x1) const {
    const reference::ConvDims d = ImageDims(in_shape, filter->dim(1), filter->dim(2), out_shape);
    const auto stage =
        RequantStageFor<In>(s_.q, bias ? bias->data_as<int32_t>() : nullptr, static_cast<In*>(out), d.out_c);
    optimized::IntegerDepthwiseConv2D(nullptr, p, d, static_cast<const In*>(in), s_.q.input_offset, filter_, stage, x0,
                                      x1);
  }

  DepthwiseState& s_;
  const int in_w_, kernel_w_;
  const int32_t* filter_ = nullptr;  // 8-bit: the filter plus its offset, as int32 (Begin)
};

}  // namespace

bool DepthwiseRunsAsConvolution(const Tensor* input, const Tensor* filter) {
  if (input->dim(3) != 1 || filter->dim(3) == 1) return false;
  if (input->type == TensorType::kFloat32) return filter->type == TensorType::kFloat32;
  if (!optimized::HasGemmI8(optimized::ActiveIsa())) return false;
  return (input->type == TensorType::kUInt8 && filter->type == TensorType::kUInt8) ||
         (input->type == TensorType::kInt8 && (filter->type == TensorType::kInt8 || filter->type == TensorType::kInt4));
}

std::unique_ptr<RowKernel> MakeDepthwiseConv2DRowKernel(const OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* filter = ctx.input(1);
  const Tensor* output = ctx.output(0);
  DepthwiseState* state = OwnState<DepthwiseState>(ctx);
  if (state == nullptr || input->dim(0) != 1 || output->num_elements() == 0 || state->depth_multiplier != 1) {
    return nullptr;
  }
  const bool supported =
      (input->type == TensorType::kFloat32 && filter->type == TensorType::kFloat32) ||
      (input->type == TensorType::kUInt8 && filter->type == TensorType::kUInt8) ||
      (input->type == TensorType::kInt8 && (filter->type == TensorType::kInt8 || filter->type == TensorType::kInt4));
  if (!supported) return nullptr;
  return std::make_unique<DepthwiseRows>(state, input->dim(1), input->dim(2), filter->dim(1), filter->dim(2));
}

OpRegistration RegisterDepthwiseConv2D() {
  return MakeBuiltinWithState<DepthwiseState>(tflite::BuiltinOperator_DEPTHWISE_CONV_2D, 7,
                                              "float32, uint8, int8, int16 (int8/int4 weights), hybrid float32 x int8",
                                              Prepare, Eval);
}

}  // namespace edgerun::ops
