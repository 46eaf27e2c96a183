#include "ops/conv_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "quant/fixed_point.h"
#include "quant/hybrid.h"

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
  if ((int64_t{kh} - 1) * g.dilation_h + 1 > kMaxConvSpan || (int64_t{kw} - 1) * g.dilation_w + 1 > kMaxConvSpan) {
    return ctx.Error("window ", kh, "x", kw, " with dilations (", g.dilation_h, ",", g.dilation_w,
                     ") spans more than 2^30 rows or columns");
  }
  *out_h = ComputeOutSize(g.padding, input->dim(1), kh, g.stride_h, g.dilation_h);
  *out_w = ComputeOutSize(g.padding, input->dim(2), kw, g.stride_w, g.dilation_w);
  if (*out_h < 0 || *out_w < 0) {
    return ctx.Error("window ", kh, "x", kw, " (dilation ", g.dilation_h, ",", g.dilation_w, ") does not fit input ",
                     Describe(input));
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

namespace {

Status CheckHasScale(const OpContext& ctx, const Tensor* t, const char* role) {
  if (t->quantization.empty()) return ctx.Error(role, " ", Describe(t), " is quantized but has no scale");
  return Status::Ok();
}

Status Multiplier(const OpContext& ctx, double real, int32_t* multiplier, int* shift) {
  if (!quant::QuantizeMultiplier(real, multiplier, shift)) {
    return ctx.Error("the scales give an invalid output multiplier ", real);
  }
  return Status::Ok();
}

// TFLite hands 8-bit convolutions and fully connected layers with constant weights to XNNPACK
// (as the reference runtimes of the conformance corpus do), which requantizes in float: scale =
// input_scale * filter_scale / output_scale in float arithmetic, results rounded half to even, and
// the activation bounds quantized the same way. XNNPACK refuses int8 filters with a zero point,
// int4 filters and scales of 256 or more (tiny ones, from all-zero channels, are fine); TFLite's
// own fixed-point kernels run those.
void PrepareFloatRequantization(const Tensor* input, const Tensor* filter, const Tensor* bias, const Tensor* output,
                                Activation activation, int channels, const QuantizedRules& rules, QuantizedOutput* q) {
  q->float_requantization = false;
  q->float_scale.clear();
  const bool eight_bit = input->type == TensorType::kUInt8 || input->type == TensorType::kInt8;
  if (!rules.xnnpack_for_8bit || !eight_bit || output->type != input->type) return;
  if (rules.arithmetic != Int8Arithmetic::kLiteRtDefault) return;
  if (filter->type == TensorType::kInt4 || !filter->is_constant() || (bias && !bias->is_constant())) return;
  if (input->type == TensorType::kInt8 && q->filter_offset != 0) return;
  const QuantizationParams& fq = filter->quantization;
  std::vector<float, MetadataAllocator<float>> scales(static_cast<size_t>(channels));
  for (size_t c = 0; c < scales.size(); ++c) {
    scales[c] = input->scale() * fq.scale[fq.per_channel() ? c : 0] / output->scale();
    if (!(scales[c] < 256.0f)) return;
  }
  q->float_requantization = true;
  q->float_scale = std::move(scales);
  const float qmin = input->type == TensorType::kUInt8 ? 0.0f : -128.0f;
  const float qmax = input->type == TensorType::kUInt8 ? 255.0f : 127.0f;
  auto quantize = [&](float v) {
    const float shifted = v / output->scale() + static_cast<float>(output->zero_point());
    return static_cast<int32_t>(std::lrint(std::min(std::max(shifted, qmin), qmax)));
  };
  float lo = 0, hi = 0;
  ActivationRange(activation, &lo, &hi);
  q->act_min = quantize(lo);
  q->act_max = quantize(hi);
}

}  // namespace

Status PrepareQuantizedOutput(const OpContext& ctx, const Tensor* input, const Tensor* filter, const Tensor* bias,
                              const Tensor* output, Activation activation, const QuantizedRules& rules,
                              QuantizedOutput* q) {
  ER_RETURN_IF_ERROR(CheckHasScale(ctx, input, "input"));
  ER_RETURN_IF_ERROR(CheckHasScale(ctx, filter, "filter"));
  ER_RETURN_IF_ERROR(CheckHasScale(ctx, output, "output"));
  const QuantizationParams& fq = filter->quantization;
  const int channels = rules.out_channels;
  if (channels < 0 || channels > kMaxOutputChannels) {
    return ctx.Error(channels, " output channels: more than the ", kMaxOutputChannels,
                     " that edgerun keeps requantization parameters for");
  }
  const bool per_channel = fq.per_channel();
  const bool legacy_uint8 = input->type == TensorType::kUInt8;
  if (per_channel) {
    if (legacy_uint8) return ctx.Error("filter ", Describe(filter), ": uint8 filters must be quantized per tensor");
    if (static_cast<int>(fq.scale.size()) != channels) {
      return ctx.Error("filter ", Describe(filter), " has ", fq.scale.size(), " scales for ", channels,
                       " output channels");
    }
  }
  // Symmetric weights, except the legacy uint8 ones and per-tensor matrix ops.
  const bool filter_zero_point_allowed = legacy_uint8 || (rules.matrix_op && !per_channel);
  if (!filter_zero_point_allowed) {
    for (int64_t zp : fq.zero_point) {
      if (zp != 0) return ctx.Error("filter ", Describe(filter), " must have zero points 0, has ", zp);
    }
  }
  if (input->type == TensorType::kInt16) {
    if (input->zero_point() != 0 || output->zero_point() != 0) {
      return ctx.Error("int16 input and output must have zero point 0 (", Describe(input), " has ", input->zero_point(),
                       ", ", Describe(output), " has ", output->zero_point(), ")");
    }
  }

  // Bias: int32 (int64 also for 16-bit activations), zero point 0, one per output channel.
  const tflite::TensorType qbt = rules.quantized_bias_type;
  if (qbt != tflite::TensorType_FLOAT32 && input->type == TensorType::kInt16 && qbt != tflite::TensorType_INT32 &&
      qbt != tflite::TensorType_INT64) {
    return ctx.Error("quantized_bias_type must be INT32 or INT64, is ", tflite::EnumNameTensorType(qbt));
  }
  if (bias) {
    if (input->type == TensorType::kInt16) {
      ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kInt32, TensorType::kInt64}));
      if (qbt != tflite::TensorType_FLOAT32 && static_cast<int>(bias->type) != static_cast<int>(qbt)) {
        return ctx.Error("bias ", Describe(bias), " does not have the quantized_bias_type ",
                         tflite::EnumNameTensorType(qbt), " of the options");
      }
    } else {
      ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kInt32}));
    }
    if (bias->zero_point() != 0) return ctx.Error("bias ", Describe(bias), " must have zero point 0");
    if (bias->num_elements() != channels) {
      return ctx.Error("bias ", Describe(bias), " must have ", channels, " elements");
    }
  }
  q->wide = false;
  if (input->type == TensorType::kInt16) {
    if (bias) {
      q->wide = bias->type == TensorType::kInt64;
    } else if (qbt == tflite::TensorType_INT64 || qbt == tflite::TensorType_INT32) {
      q->wide = qbt == tflite::TensorType_INT64;
    } else {
      q->wide = rules.wide_without_bias;
    }
  }

  q->input_offset = -input->zero_point();
  q->filter_offset = filter_zero_point_allowed ? -filter->zero_point() : 0;
  q->output_offset = output->zero_point();
  QuantizedActivationRange(activation, output, &q->act_min, &q->act_max);
  QuantizedRules effective_rules = rules;
  effective_rules.arithmetic = ctx.interpreter().options().int8_arithmetic;
  PrepareFloatRequantization(input, filter, bias, output, activation, channels, effective_rules, q);

  // TFLite's fixed-point multipliers are checked for every model, but kept only where a kernel
  // reads them: the float requantization does not, and on this VM each fresh page of op state
  // costs ~10 us at start-up (two 4-byte arrays per channel were 35 of coral MobileNet v2's
  // 53 pages of requantization state).
  const bool keep = !q->float_requantization;
  q->multiplier.assign(keep ? channels : 0, 0);
  q->shift.assign(keep ? channels : 0, 0);
  const float input_scale = input->scale(), output_scale = output->scale();
  if (legacy_uint8 || (rules.matrix_op && !per_channel)) {
    // GetQuantizedConvolutionMultipler: the product of the scales in float, and a bias whose scale
    // is far from it is a broken model.
    const double product = static_cast<double>(input_scale * filter->scale());
    if (bias && !bias->quantization.empty()) {
      const double diff = std::fabs(product - static_cast<double>(bias->scale()));
      if (!(diff / static_cast<double>(output_scale) <= 0.02)) {
        return ctx.Error("bias ", Describe(bias), " scale ", bias->scale(), " differs from input scale x filter scale ",
                         product);
      }
    }
    if (product < 0) return ctx.Error("input scale x filter scale is negative");
    int32_t m = 0;
    int s = 0;
    ER_RETURN_IF_ERROR(Multiplier(ctx, product / static_cast<double>(output_scale), &m, &s));
    std::fill(q->multiplier.begin(), q->multiplier.end(), m);
    std::fill(q->shift.begin(), q->shift.end(), s);
  } else {
    for (int c = 0; c < channels; ++c) {
      const double filter_scale = fq.scale[per_channel ? c : 0];
      int32_t m = 0;
      int s = 0;
      ER_RETURN_IF_ERROR(Multiplier(ctx, static_cast<double>(input_scale) * filter_scale / output_scale, &m, &s));
      if (keep) {
        q->multiplier[c] = m;
        q->shift[c] = s;
      }
    }
  }
  return Status::Ok();
}

const int8_t* WeightsAsInt8(const Tensor* weights, std::vector<int8_t>* storage) {
  if (weights->type != TensorType::kInt4) return weights->data_as<int8_t>();
  const int64_t n = weights->num_elements();
  storage->resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  quant::UnpackInt4(weights->data_as<uint8_t>(), n, storage->data());
  return storage->data();
}

Status CheckDenseWeights(const OpContext& ctx, const Tensor* weights) {
  if (weights->sparsity != nullptr) {
    return ctx.Unsupported("sparse weights ", Describe(weights), " are not supported (densify them first)");
  }
  return Status::Ok();
}

Status PrepareHybridScales(const OpContext& ctx, const Tensor* filter, int out_channels, std::vector<float>* scales) {
  ER_RETURN_IF_ERROR(CheckHasScale(ctx, filter, "filter"));
  if (out_channels < 0 || out_channels > kMaxOutputChannels) {
    return ctx.Error(out_channels, " output channels: more than the ", kMaxOutputChannels,
                     " that edgerun keeps dequantization scales for");
  }
  const QuantizationParams& fq = filter->quantization;
  if (fq.per_channel() && static_cast<int>(fq.scale.size()) != out_channels) {
    return ctx.Error("filter ", Describe(filter), " has ", fq.scale.size(), " scales for ", out_channels,
                     " output channels");
  }
  for (int64_t zp : fq.zero_point) {
    if (zp != 0) return ctx.Error("hybrid filter ", Describe(filter), " must be symmetric (zero point ", zp, ")");
  }
  scales->resize(static_cast<size_t>(out_channels));
  for (int c = 0; c < out_channels; ++c) (*scales)[c] = fq.scale[fq.per_channel() ? c : 0];
  return Status::Ok();
}

Status RequestHybridRows(OpContext& ctx, int64_t elements, int64_t rows) {
  if (elements > std::numeric_limits<int32_t>::max() || rows > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("hybrid input has too many elements (", elements, ")");
  }
  const auto n = static_cast<int32_t>(elements), r = static_cast<int32_t>(rows);
  ER_RETURN_IF_ERROR(ctx.RequestTemporary(0, TensorType::kInt8, {n}).status());
  ER_RETURN_IF_ERROR(ctx.RequestTemporary(1, TensorType::kFloat32, {r}).status());
  ER_RETURN_IF_ERROR(ctx.RequestTemporary(2, TensorType::kInt32, {r}).status());
  return Status::Ok();
}

HybridRows GetHybridRows(const OpContext& ctx) {
  return {ctx.temporary(0)->data_as<int8_t>(), ctx.temporary(1)->data_as<float>(),
          ctx.temporary(2)->data_as<int32_t>()};
}

void QuantizeRows(const float* input, int64_t rows, int64_t row_size, bool asymmetric, const HybridRows& out) {
  const optimized::QuantizeSymmetricF32Fn symmetric = optimized::ActiveKernels().quantize_symmetric_f32;
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = input + r * row_size;
    int8_t* q = out.quantized + r * row_size;
    if (asymmetric) {
      quant::AsymmetricQuantizeFloats(in, row_size, q, &out.scales[r], &out.zero_points[r]);
    } else {
      if (symmetric == nullptr || !symmetric(in, row_size, q, &out.scales[r])) {
        quant::SymmetricQuantizeFloats(in, row_size, q, &out.scales[r]);
      }
      out.zero_points[r] = 0;
    }
  }
}


}  // namespace edgerun::ops
