// Shared by the convolution and matrix ops: geometry from the options, and the quantization of
// quantized (integer) and hybrid (float activations, int8 weights) kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/block_memory.h"
#include "kernels/optimized/integer.h"
#include "kernels/reference/conv.h"
#include "kernels/reference/integer_conv.h"
#include "ops/op_util.h"

namespace edgerun::ops {

struct ConvGeometry {
  tflite::Padding padding = tflite::Padding_SAME;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType_NONE;
};

// The longest span a convolution may cover along one dimension (a dilated window, or the output
// rows a strided TRANSPOSE_CONV input reaches): the kernels add spans to int offsets, so they
// keep room to spare below 2^31. Dilations and strides come from the file.
constexpr int64_t kMaxConvSpan = int64_t{1} << 30;

// The most output channels (columns) a quantized convolution or matrix product keeps
// requantization parameters for: those arrays are sized from shapes in the file, and an empty
// output can declare any number of columns (fuzz_model: a BATCH_MATMUL with 1.6 G columns asked
// for 6.4 GB in prepare). Real models have at most a few hundred thousand (vocabularies).
constexpr int kMaxOutputChannels = 1 << 24;

// Validates strides/dilations and the activation, computes the output height/width of an NHWC
// input with a kh x kw window, and fills params (strides, dilations, padding, clamp range).
Status PrepareConvGeometry(const OpContext& ctx, const ConvGeometry& g, const Tensor* input, int kh, int kw,
                           reference::ConvParams* params, int* out_h, int* out_w, Activation* activation);

// ---- quantized kernels

// What a quantized convolution / matrix op needs at run time, computed once in prepare (TFLite's
// PopulateConvolutionQuantizationParams): one multiplier and shift per output channel (a
// per-tensor filter scale is repeated; both empty under float_requantization, which does not read
// them), zero-point offsets and the clamp range.
struct QuantizedOutput {
  std::vector<int32_t> multiplier;
  std::vector<int> shift;
  int32_t input_offset = 0;   // -input zero point
  int32_t filter_offset = 0;  // -filter zero point (legacy uint8 and per-tensor FULLY_CONNECTED)
  int32_t output_offset = 0;  // output zero point
  int32_t act_min = 0, act_max = 0;
  bool wide = false;  // sums in int64 (16-bit activations with an int64 bias)
  // 8-bit activations: TFLite hands these ops to XNNPACK, whose float requantization rounds
  // differently from the fixed-point one; `float_scale` is its scale per output channel.
  bool float_requantization = false;
  std::vector<float, MetadataAllocator<float>> float_scale;  // not fresh heap pages (block_memory.h)

  reference::Requantization requantization() const {
    return {multiplier.data(), shift.data(), output_offset, act_min, act_max};
  }
};

// The vector requantizing output stage of these parameters (optimized::MakeRequantStage) for
// int32 sums: bias may be null; channel_base is the output channel of the stage's column 0.
template <class Out>
optimized::RequantStage<Out> RequantStageFor(const QuantizedOutput& q, const int32_t* bias, Out* out,
                                             int64_t row_stride, int channel_base = 0) {
  return optimized::MakeRequantStage<Out>(q.float_requantization, q.multiplier.data(), q.shift.data(),
                                          q.float_scale.data(), q.output_offset, q.act_min, q.act_max, bias, out,
                                          row_stride, channel_base);
}

// Whether the exact sums of a 16-bit convolution with int64 sums (QuantizedOutput::wide) stay
// inside int32 for any input of type In: out_c rows of `per_channel` filter values, and every
// output channel's sum of products is at most max|input + input_offset| x sum of its
// |filter + filter_offset|. Then the int32 kernels give the same sums (their additions wrap
// modulo 2^32, so only the final value matters), which the int64 requantization takes widened.
// Checked once per constant filter, at every run for another one.
struct Int32SumCheck {
  const void* filter = nullptr;
  bool fits = false;

  template <class In, class Filter>
  bool Fits(const Tensor* weights, const Filter* data, int out_c, int32_t input_offset, int32_t filter_offset) {
    if (weights->is_constant() && filter == data) return fits;
    const int64_t max_input = std::max(std::abs(int64_t{std::numeric_limits<In>::min()} + input_offset),
                                       std::abs(int64_t{std::numeric_limits<In>::max()} + input_offset));
    const int64_t per_channel = out_c > 0 ? weights->num_elements() / out_c : 0;
    const int64_t limit = std::numeric_limits<int32_t>::max() / std::max<int64_t>(max_input, 1);
    fits = true;
    for (int oc = 0; oc < out_c && fits; ++oc) {
      int64_t sum = 0;
      const Filter* row = data + oc * per_channel;
      for (int64_t i = 0; i < per_channel && sum <= limit; ++i) sum += std::abs(int64_t{row[i]} + filter_offset);
      fits = sum <= limit;
    }
    filter = data;
    return fits;
  }
};

// The per-channel constants of TFLite's 64-bit requantization (quant::MultiplyByQuantizedMultiplier
// for int64) for the vector stage optimized::RequantI64Stage: the multiplier reduced to 16 bits
// and the total right shift. Made once per node; `usable` only where the ISA has the kernel and
// every shift is a rounding right shift in [1, 63] (else the reference functor runs).
struct Int64Requant {
  std::vector<int64_t> reduced, total_shift;
  optimized::RequantizeI64Fn fn = nullptr;  // the ISA's, when made
  bool usable = false;
  bool made = false;

  void Make(const QuantizedOutput& q, int out_c) {
    made = true;
    fn = optimized::ActiveKernels().requantize_i64;
    usable = fn != nullptr && static_cast<int>(q.multiplier.size()) >= out_c;
    reduced.assign(static_cast<size_t>(out_c), 0);
    total_shift.assign(static_cast<size_t>(out_c), 1);
    for (int c = 0; c < out_c && usable; ++c) {
      reduced[c] = quant::ReducedMultiplier16(q.multiplier[c]);
      total_shift[c] = 15 - q.shift[c];
      usable = total_shift[c] >= 1 && total_shift[c] <= 63;
    }
  }
  optimized::RequantI64Stage StageFor(const QuantizedOutput& q, const int64_t* bias, int16_t* out, int64_t row_stride,
                                      int channel_base = 0) const {
    return {fn,
            {bias, reduced.data(), total_shift.data(), q.output_offset, q.act_min, q.act_max},
            out,
            row_stride,
            channel_base};
  }
};

// Op-specific rules for PrepareQuantizedOutput.
struct QuantizedRules {
  int out_channels = 1;
  // FULLY_CONNECTED and BATCH_MATMUL: a per-tensor multiplier is computed from the float product
  // of the scales (GetQuantizedConvolutionMultipler) and the filter may have a zero point.
  bool matrix_op = false;
  // Accumulator of 16-bit activations when there is no bias and the options do not say.
  bool wide_without_bias = true;
  // The options' quantized_bias_type (FLOAT32 when unset).
  tflite::TensorType quantized_bias_type = tflite::TensorType_FLOAT32;
  // XNNPACK runs the op for 8-bit activations when it can (see QuantizedOutput).
  bool xnnpack_for_8bit = true;
  // Set by PrepareQuantizedOutput from InterpreterOptions::int8_arithmetic.
  Int8Arithmetic arithmetic = Int8Arithmetic::kLiteRtDefault;
};

// Checks the quantization of input, filter, bias (may be null) and output of a uint8, int8 or int16
// op as TFLite does and computes `q`. The caller has checked the element types.
Status PrepareQuantizedOutput(const OpContext& ctx, const Tensor* input, const Tensor* filter, const Tensor* bias,
                              const Tensor* output, Activation activation, const QuantizedRules& rules,
                              QuantizedOutput* q);

// Calls fn(emit) with the requantizer of `q` for a kernel summing in Acc with a Bias (may be null)
// and writing Out: XNNPACK's float one when q.float_requantization, TFLite's fixed-point one else.
template <class Acc, class Bias, class Out, class Fn>
void WithRequantizer(const QuantizedOutput& q, const Bias* bias, Fn&& fn) {
  if constexpr (std::is_same_v<Acc, int32_t>) {
    if (q.float_requantization) {
      fn(reference::FloatRequantizer<Bias, Out>{q.float_scale.data(), q.output_offset, q.act_min, q.act_max, bias});
      return;
    }
  }
  fn(reference::Requantizer<Acc, Bias, Out>{q.requantization(), bias});
}

// ---- weights

// The values of an int8 or int4 weight tensor as int8: the data itself, or int4 values unpacked
// into `storage` (TFLite unpacks int4 before running its int8 kernels).
const int8_t* WeightsAsInt8(const Tensor* weights, std::vector<int8_t>* storage);

// Whether a DEPTHWISE_CONV_2D runs as the CONV_2D it is on the GEMM kernels
// (depthwise_conv_2d.cc): one input channel, several output channels, and a GEMM kernel for the
// types (float32, or 8-bit on a CPU with byte dot products). Shapes of rank 4.
bool DepthwiseRunsAsConvolution(const Tensor* input, const Tensor* filter);

// Weights the loader left compressed (sparse) cannot be read by the dense kernels.
Status CheckDenseWeights(const OpContext& ctx, const Tensor* weights);

// ---- hybrid kernels

// Filter scales of a hybrid op, one per output channel (a per-tensor scale is repeated). `filter`
// must be int8 (or int4) with a symmetric quantization.
Status PrepareHybridScales(const OpContext& ctx, const Tensor* filter, int out_channels, std::vector<float>* scales);

// Scratch of a hybrid op: the input quantized row by row, a scale and a zero point per row.
// Requested in prepare (temporary slots 0..2), fetched in eval.
struct HybridRows {
  int8_t* quantized = nullptr;
  float* scales = nullptr;
  int32_t* zero_points = nullptr;
};
Status RequestHybridRows(OpContext& ctx, int64_t elements, int64_t rows);
HybridRows GetHybridRows(const OpContext& ctx);
// Quantizes `rows` rows of `row_size` floats each, symmetric (zero point 0) or asymmetric.
void QuantizeRows(const float* input, int64_t rows, int64_t row_size, bool asymmetric, const HybridRows& out);

// A float fused activation, including TANH and SIGN_BIT (hybrid FULLY_CONNECTED accepts all).
// Inline: hybrid kernels apply it to every output value (a call each was 9% of ToyCar hybrid).
inline float ApplyFloatActivation(Activation act, float v) {
  switch (act) {
    case Activation::kNone:
      return v;
    case Activation::kRelu:
      return std::max(v, 0.0f);
    case Activation::kReluN1To1:
      return std::min(std::max(v, -1.0f), 1.0f);
    case Activation::kRelu6:
      return std::min(std::max(v, 0.0f), 6.0f);
    case Activation::kTanh:
      return std::tanh(v);
    case Activation::kSignBit:
      return std::signbit(v) ? 1.0f : 0.0f;
  }
  return v;
}


}  // namespace edgerun::ops

namespace edgerun::ops {

// Sizes of one image of an NHWC input and output with a kh x kw window.
inline reference::ConvDims ImageDims(const Shape& in, int kh, int kw, const Shape& out) {
  reference::ConvDims d;
  d.in_h = in[1];
  d.in_w = in[2];
  d.in_c = in[3];
  d.k_h = kh;
  d.k_w = kw;
  d.out_h = out[1];
  d.out_w = out[2];
  d.out_c = out[3];
  return d;
}

// Elements in one image (all dimensions but the first) of an NHWC shape.
inline int64_t ImageSize(const Shape& s) { return static_cast<int64_t>(s[1]) * s[2] * s[3]; }

}  // namespace edgerun::ops
