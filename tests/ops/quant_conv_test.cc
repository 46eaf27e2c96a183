// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with quantized (uint8, int8, int16) and hybrid
// (float input, int8 weights) types: hand-computed cases, then random shapes against direct loops
// written here from the definitions (sums of (q - zero_point) products, TFLite's requantization).
#include <gtest/gtest.h>

#include <cmath>

#include "ops/quant_test_util.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::Clamp;
using testing::GetOutput;
using testing::PerChannel;
using testing::Quant;
using testing::RandomInts;
using testing::Requantize;
using testing::SetInput;
using testing::SingleOp;

// Integer clamp range of a fused activation, from its definition (zero_point + round(x / scale)).
void ActRange(tflite::ActivationFunctionType act, float scale, int32_t zp, int32_t qmin, int32_t qmax, int32_t* lo,
              int32_t* hi) {
  *lo = qmin;
  *hi = qmax;
  auto q = [&](float x) { return zp + static_cast<int32_t>(std::round(x / scale)); };
  if (act == tflite::ActivationFunctionType_RELU) *lo = std::max(qmin, q(0));
  if (act == tflite::ActivationFunctionType_RELU6) *lo = std::max(qmin, q(0)), *hi = std::min(qmax, q(6));
  if (act == tflite::ActivationFunctionType_RELU_N1_TO_1) *lo = std::max(qmin, q(-1)), *hi = std::min(qmax, q(1));
}

TEST(QuantizedConv2D, HandComputedInt8PerChannel) {
  // Input real values 1..4 (scale 0.5, zero point -1); two 1x1 filters of real value 1 with scales
  // 0.5 and 0.25 (stored 2 and 4); bias real 0.5 in both (stored 2 and 4); output scale 1.
  // Each output is x + 0.5 -> 1.5, 2.5, 3.5, 4.5; 8-bit convolutions requantize in float as
  // XNNPACK does, rounding ties to even: 2, 2, 4, 4.
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kInt8, {1, 2, 2, 1}, Quant(0.5f, -1));
  op.Const<int8_t>(TensorType::kInt8, {2, 1, 1, 1}, {2, 4}, PerChannel({0.5f, 0.25f}, 0));
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 4}, PerChannel({0.25f, 0.125f}, 0));
  op.Output(TensorType::kInt8, {}, Quant(1.0f, 0));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {1, 3, 5, 7});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 2, 2}));
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{2, 2, 2, 2, 4, 4, 4, 4}));
}

// The hand-computed case above with a third, all-zero filter of tiny scale (as converters write
// for dead channels) and, optionally, the filter as a graph input instead of a constant.
std::vector<int8_t> TiesCase(bool constant_filter) {
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kInt8, {1, 2, 2, 1}, Quant(0.5f, -1));
  const auto filter_q = PerChannel({0.5f, 0.25f, 1e-12f}, 0);
  if (constant_filter) {
    op.Const<int8_t>(TensorType::kInt8, {3, 1, 1, 1}, {2, 4, 0}, filter_q);
  } else {
    op.Input(TensorType::kInt8, {3, 1, 1, 1}, filter_q);
  }
  op.Const<int32_t>(TensorType::kInt32, {3}, {2, 4, 0}, PerChannel({0.25f, 0.125f, 5e-13f}, 0));
  op.Output(TensorType::kInt8, {}, Quant(1.0f, 0));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput<int8_t>(*interpreter, 0, {1, 3, 5, 7});
  if (!constant_filter) SetInput<int8_t>(*interpreter, 1, {2, 4, 0});
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<int8_t>(*interpreter, 0);
}

TEST(QuantizedConv2D, RequantizationFollowsTheKernelTfliteRuns) {
  // Constant weights: XNNPACK's float requantization (ties to even), tiny scales included.
  EXPECT_EQ(TiesCase(true), (std::vector<int8_t>{2, 2, 0, 2, 2, 0, 4, 4, 0, 4, 4, 0}));
  // Weights computed at run time: TFLite's own fixed-point kernel (ties away from zero).
  EXPECT_EQ(TiesCase(false), (std::vector<int8_t>{2, 2, 0, 3, 3, 0, 4, 4, 0, 5, 5, 0}));
}

// A quantized CONV_2D / DEPTHWISE_CONV_2D case for the random tests.
struct ConvCase {
  int batch, in_h, in_w, in_c, out_c, k, stride, dilation, groups;
  bool same;
  tflite::ActivationFunctionType act;
};

template <class In, class Bias>
void RunConvCase(const ConvCase& c, TensorType in_type, TensorType filter_type, TensorType bias_type, bool per_channel,
                 int seed, bool depthwise) {
  const int64_t qmin = std::numeric_limits<In>::min(), qmax = std::numeric_limits<In>::max();
  const bool uint8 = in_type == TensorType::kUInt8;
  const bool int16 = in_type == TensorType::kInt16;
  const int f_c = depthwise ? 1 : c.in_c / c.groups;
  const int mult = depthwise ? c.out_c / c.in_c : 1;
  const int in_zp = int16 ? 0 : (uint8 ? 128 : -3), out_zp = int16 ? 0 : (uint8 ? 120 : 5);
  const int filter_zp = uint8 ? 131 : 0;
  const float in_scale = 0.05f, out_scale = int16 ? 0.002f : 0.35f;
  std::vector<float> filter_scales(c.out_c);
  for (int o = 0; o < c.out_c; ++o) filter_scales[o] = per_channel ? 0.01f + 0.003f * o : 0.012f;
  int out_h, out_w, pad_h, pad_w;
  testing::SameOrValid(c.same, c.in_h, c.k, c.stride, c.dilation, &out_h, &pad_h);
  testing::SameOrValid(c.same, c.in_w, c.k, c.stride, c.dilation, &out_w, &pad_w);

  const auto input = RandomInts<In>(static_cast<size_t>(c.batch) * c.in_h * c.in_w * c.in_c, seed, qmin, qmax);
  const Shape filter_shape = depthwise ? Shape{1, c.k, c.k, c.out_c} : Shape{c.out_c, c.k, c.k, f_c};
  const auto filter =
      uint8 ? RandomInts<uint8_t>(NumElements(filter_shape), seed + 1, 0, 255) : RandomInts<uint8_t>(0, 0, 0, 0);
  const auto filter8 = RandomInts<int8_t>(NumElements(filter_shape), seed + 1, -127, 127);
  const auto bias = RandomInts<Bias>(c.out_c, seed + 2, -3000, 3000);
  auto filter_value = [&](int64_t i) { return uint8 ? int32_t{filter[i]} - filter_zp : int32_t{filter8[i]}; };

  SingleOp op(depthwise ? tflite::BuiltinOperator_DEPTHWISE_CONV_2D : tflite::BuiltinOperator_CONV_2D);
  op.Input(in_type, {c.batch, c.in_h, c.in_w, c.in_c}, Quant(in_scale, in_zp));
  QuantizationParams fq =
      per_channel ? PerChannel(filter_scales, depthwise ? 3 : 0) : Quant(filter_scales[0], filter_zp);
  if (uint8) {
    op.Const(filter_type, filter_shape, filter, fq);
  } else {
    op.Const(filter_type, filter_shape, filter8, fq);
  }
  QuantizationParams bq;
  for (float s : filter_scales) bq.scale.push_back(in_scale * s), bq.zero_point.push_back(0);
  if (!per_channel) bq = Quant(in_scale * filter_scales[0]);
  op.Const(bias_type, {c.out_c}, bias, bq);
  op.Output(in_type, {}, Quant(out_scale, out_zp));
  const auto padding = c.same ? tflite::Padding_SAME : tflite::Padding_VALID;
  if (depthwise) {
    op.Options(tflite::BuiltinOptions_DepthwiseConv2DOptions,
               ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, padding, c.stride, c.stride, mult, c.act,
                                                               c.dilation, c.dilation)));
  } else {
    op.Options(
        tflite::BuiltinOptions_Conv2DOptions,
        ER_OPTIONS(tflite::CreateConv2DOptions(fbb, padding, c.stride, c.stride, c.act, c.dilation, c.dilation)));
  }
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, input);
  ASSERT_TRUE(interpreter->Invoke().ok());
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{c.batch, out_h, out_w, c.out_c}));

  int32_t lo, hi;
  ActRange(c.act, out_scale, out_zp, static_cast<int32_t>(qmin), static_cast<int32_t>(qmax), &lo, &hi);
  const bool wide = int16 && bias_type == TensorType::kInt64;
  std::vector<In> want;
  for (int b = 0; b < c.batch; ++b)
    for (int y = 0; y < out_h; ++y)
      for (int x = 0; x < out_w; ++x)
        for (int o = 0; o < c.out_c; ++o) {
          int64_t acc = bias[o];
          for (int ky = 0; ky < c.k; ++ky)
            for (int kx = 0; kx < c.k; ++kx) {
              const int iy = y * c.stride + ky * c.dilation - pad_h, ix = x * c.stride + kx * c.dilation - pad_w;
              if (iy < 0 || ix < 0 || iy >= c.in_h || ix >= c.in_w) continue;
              const int64_t pixel = ((static_cast<int64_t>(b) * c.in_h + iy) * c.in_w + ix) * c.in_c;
              if (depthwise) {
                acc += filter_value((ky * c.k + kx) * c.out_c + o) * (input[pixel + o / mult] - in_zp);
              } else {
                const int g = o / (c.out_c / c.groups);
                for (int i = 0; i < f_c; ++i) {
                  acc += filter_value(((static_cast<int64_t>(o) * c.k + ky) * c.k + kx) * f_c + i) *
                         (input[pixel + g * f_c + i] - in_zp);
                }
              }
            }
          // 8-bit: XNNPACK's float requantization; 16-bit: TFLite's fixed-point one.
          const int32_t scaled =
              int16 ? Requantize(acc, static_cast<double>(in_scale) * filter_scales[o] / out_scale, wide)
                    : testing::RequantizeFloat(acc, in_scale * filter_scales[o] / out_scale);
          want.push_back(static_cast<In>(Clamp(out_zp + scaled, lo, hi)));
        }
  EXPECT_EQ(GetOutput<In>(*interpreter, 0), want) << "seed " << seed;
}

const ConvCase kConvCases[] = {
    {1, 5, 5, 3, 4, 3, 1, 1, 1, true, tflite::ActivationFunctionType_NONE},
    {2, 7, 6, 2, 3, 3, 2, 1, 1, false, tflite::ActivationFunctionType_RELU},
    {1, 9, 9, 4, 6, 3, 1, 2, 1, true, tflite::ActivationFunctionType_RELU6},
    {1, 8, 8, 4, 4, 3, 2, 1, 2, true, tflite::ActivationFunctionType_RELU_N1_TO_1},
    {1, 4, 4, 8, 8, 1, 1, 1, 4, false, tflite::ActivationFunctionType_NONE},
};

TEST(QuantizedConv2D, Int8PerChannelAndPerTensorMatchDirectLoop) {
  int seed = 10;
  for (const ConvCase& c : kConvCases) {
    RunConvCase<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt8, TensorType::kInt32, true, seed += 3, false);
    RunConvCase<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt8, TensorType::kInt32, false, seed += 3, false);
  }
}

TEST(QuantizedConv2D, Uint8WithFilterZeroPointMatchesDirectLoop) {
  int seed = 50;
  for (const ConvCase& c : kConvCases) {
    RunConvCase<uint8_t, int32_t>(c, TensorType::kUInt8, TensorType::kUInt8, TensorType::kInt32, false, seed += 3,
                                  false);
  }
}

TEST(QuantizedConv2D, Int16WithInt64AndInt32BiasMatchesDirectLoop) {
  int seed = 90;
  for (const ConvCase& c : kConvCases) {
    RunConvCase<int16_t, int64_t>(c, TensorType::kInt16, TensorType::kInt8, TensorType::kInt64, true, seed += 3, false);
    RunConvCase<int16_t, int32_t>(c, TensorType::kInt16, TensorType::kInt8, TensorType::kInt32, true, seed += 3, false);
  }
}

TEST(QuantizedConv2D, Int16SumsPastInt32StayExact) {
  // int16 x int8 with an int64 bias sums on the int32 kernels only when no sum can leave int32
  // (ops::Int32SumCheck); 400 channels x 9 taps of |w| up to 127 can. One 3x3 VALID output per
  // image: channel 0 (weights all 127) of inputs all 32767 sums to 1.5e9 x 9 = 1.5e10 in image 0;
  // image 1 has inputs at the extremes in random signs; the other channels random weights.
  const int in_c = 400, out_c = 5, k = 3;
  auto input = RandomInts<int16_t>(2 * k * k * in_c, 71, -1, 1);
  for (size_t i = 0; i < input.size(); ++i) input[i] = i < k * k * in_c || input[i] >= 0 ? 32767 : -32768;
  auto filter = RandomInts<int8_t>(out_c * k * k * in_c, 72, -127, 127);
  std::fill(filter.begin(), filter.begin() + k * k * in_c, int8_t{127});
  const auto bias = RandomInts<int64_t>(out_c, 73, -3000, 3000);
  const float in_scale = 0.05f, out_scale = 0.002f;
  const std::vector<float> scales(out_c, 1.5e-8f);  // sums of ~1e10 land inside int16
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kInt16, {2, k, k, in_c}, Quant(in_scale, 0));
  op.Const(TensorType::kInt8, {out_c, k, k, in_c}, filter, PerChannel(scales, 0));
  op.Const(TensorType::kInt64, {out_c}, bias, Quant(in_scale * scales[0]));
  op.Output(TensorType::kInt16, {}, Quant(out_scale, 0));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, input);
  ASSERT_TRUE(interpreter->Invoke().ok());
  std::vector<int16_t> want;
  for (int b = 0; b < 2; ++b) {
    for (int o = 0; o < out_c; ++o) {
      int64_t acc = 0;
      for (int i = 0; i < k * k * in_c; ++i) acc += int64_t{filter[o * k * k * in_c + i]} * input[b * k * k * in_c + i];
      if (b == 0 && o == 0) {
        EXPECT_GT(acc, std::numeric_limits<int32_t>::max());
      }
      const int32_t scaled = Requantize(acc + bias[o], static_cast<double>(in_scale) * scales[o] / out_scale, true);
      want.push_back(static_cast<int16_t>(Clamp(scaled, -32768, 32767)));
    }
  }
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), want);
}

const ConvCase kDepthwiseCases[] = {
    {1, 5, 5, 3, 3, 3, 1, 1, 1, true, tflite::ActivationFunctionType_NONE},
    {2, 8, 7, 2, 6, 3, 2, 1, 1, false, tflite::ActivationFunctionType_RELU},
    {1, 9, 9, 4, 8, 3, 1, 2, 1, true, tflite::ActivationFunctionType_RELU6},
    // One input channel: run as a CONV_2D on the GEMM kernels (padding on every side, a dilated
    // window, two images).
    {1, 13, 11, 1, 8, 5, 2, 1, 1, true, tflite::ActivationFunctionType_RELU},
    {2, 9, 10, 1, 3, 3, 1, 2, 1, true, tflite::ActivationFunctionType_NONE},
    {1, 7, 6, 1, 16, 4, 1, 1, 1, false, tflite::ActivationFunctionType_RELU6},
};

TEST(QuantizedDepthwiseConv2D, AllTypesMatchDirectLoop) {
  int seed = 200;
  for (const ConvCase& c : kDepthwiseCases) {
    RunConvCase<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt8, TensorType::kInt32, true, seed += 3, true);
    RunConvCase<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt8, TensorType::kInt32, false, seed += 3, true);
    RunConvCase<uint8_t, int32_t>(c, TensorType::kUInt8, TensorType::kUInt8, TensorType::kInt32, false, seed += 3,
                                  true);
    RunConvCase<int16_t, int64_t>(c, TensorType::kInt16, TensorType::kInt8, TensorType::kInt64, true, seed += 3, true);
    RunConvCase<int16_t, int32_t>(c, TensorType::kInt16, TensorType::kInt8, TensorType::kInt32, true, seed += 3, true);
  }
}

TEST(QuantizedConv2D, Int4FilterIsUnpackedLowNibbleFirst) {
  // Filter values 3, -2, 7, -8 packed two per byte, low nibble first: 0xE3, 0x87.
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kInt8, {1, 1, 1, 1}, Quant(1.0f));
  op.Const<uint8_t>(TensorType::kInt4, {4, 1, 1, 1}, {0xE3, 0x87}, Quant(1.0f));
  op.Const<int32_t>(TensorType::kInt32, {4}, {0, 0, 0, 0}, Quant(1.0f));
  op.Output(TensorType::kInt8, {}, Quant(1.0f));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {5});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{15, -10, 35, -40}));
}

TEST(QuantizedConv2D, RejectsBadQuantization) {
  auto build = [](QuantizationParams in_q, QuantizationParams filter_q, TensorType bias_type) {
    SingleOp op(tflite::BuiltinOperator_CONV_2D);
    op.Input(TensorType::kInt16, {1, 2, 2, 2}, in_q);
    op.Const<int8_t>(TensorType::kInt8, {3, 1, 1, 2}, {1, 2, 3, 4, 5, 6}, filter_q);
    if (bias_type == TensorType::kInt64) {
      op.Const<int64_t>(bias_type, {3}, {0, 0, 0}, Quant(1.0f));
    } else {
      op.Const<float>(bias_type, {3}, {0, 0, 0});
    }
    op.Output(TensorType::kInt16, {}, Quant(1.0f));
    op.Options(tflite::BuiltinOptions_Conv2DOptions,
               ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
    return op.TryBuild();
  };
  EXPECT_TRUE(build(Quant(1.0f), Quant(1.0f), TensorType::kInt64).ok());
  // int16 activations need zero point 0.
  EXPECT_FALSE(build(Quant(1.0f, 3), Quant(1.0f), TensorType::kInt64).ok());
  // Quantized weights must be symmetric.
  EXPECT_FALSE(build(Quant(1.0f), Quant(1.0f, 2), TensorType::kInt64).ok());
  // Two per-channel scales (along the filter's last dimension) for three output channels.
  const Status st = build(Quant(1.0f), PerChannel({1.0f, 1.0f}, 3), TensorType::kInt64);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("2 scales for 3 output channels"), std::string::npos) << st.message();
  // A float bias with quantized activations.
  EXPECT_FALSE(build(Quant(1.0f), Quant(1.0f), TensorType::kFloat32).ok());
  // No quantization at all on the input.
  EXPECT_FALSE(build(QuantizationParams{}, Quant(1.0f), TensorType::kInt64).ok());
}

// ---- FULLY_CONNECTED

template <class In, class Weight, class Out, class Bias>
void RunFcCase(TensorType in_type, TensorType w_type, TensorType out_type, TensorType bias_type, bool per_channel,
               bool with_bias, tflite::ActivationFunctionType act, int seed) {
  // Odd seeds give a depth that is a multiple of 4 (the byte-dot GEMM reads such int8 rows in place).
  const int batches = 3, depth = 7 + seed % 2, units = 5;
  const bool uint8 = in_type == TensorType::kUInt8, int16 = in_type == TensorType::kInt16;
  const int in_zp = int16 ? 0 : (uint8 ? 127 : 4), w_zp = per_channel || int16 ? 0 : (uint8 ? 140 : -2);
  const int out_zp = out_type == TensorType::kInt16 ? 0 : (uint8 ? 100 : -7);
  const float in_scale = 0.04f, out_scale = out_type == TensorType::kInt16 ? 0.001f : 0.2f;
  std::vector<float> w_scales(units);
  for (int u = 0; u < units; ++u) w_scales[u] = per_channel ? 0.02f + 0.004f * u : 0.021f;
  const auto input =
      RandomInts<In>(batches * depth, seed, std::numeric_limits<In>::min(), std::numeric_limits<In>::max());
  const auto weights =
      RandomInts<Weight>(units * depth, seed + 1, std::max<int64_t>(-127, std::numeric_limits<Weight>::min()),
                         std::numeric_limits<Weight>::max());
  const auto bias = RandomInts<Bias>(units, seed + 2, -2000, 2000);
  SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
  op.Input(in_type, {batches, depth}, Quant(in_scale, in_zp));
  op.Const(w_type, {units, depth}, weights, per_channel ? PerChannel(w_scales, 0) : Quant(w_scales[0], w_zp));
  if (with_bias) {
    op.Const(bias_type, {units}, bias, Quant(in_scale * w_scales[0]));
  } else {
    op.Omitted();
  }
  op.Output(out_type, {}, Quant(out_scale, out_zp));
  op.Options(tflite::BuiltinOptions_FullyConnectedOptions, ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb, act)));
  int32_t lo, hi;
  ActRange(act, out_scale, out_zp, std::numeric_limits<Out>::min(), std::numeric_limits<Out>::max(), &lo, &hi);
  const bool wide = (int16 && with_bias && bias_type == TensorType::kInt64) || w_type == TensorType::kInt16;
  std::vector<Out> want;
  for (int b = 0; b < batches; ++b)
    for (int u = 0; u < units; ++u) {
      int64_t acc = with_bias ? bias[u] : 0;
      for (int d = 0; d < depth; ++d) acc += (weights[u * depth + d] - w_zp) * (input[b * depth + d] - in_zp);
      // 8-bit in and out with symmetric weights: XNNPACK's float requantization. Otherwise TFLite's
      // fixed point, whose per-tensor multiplier comes from the float product of the scales.
      const bool xnnpack = !int16 && out_type == in_type && w_zp == 0;
      const double real = per_channel ? static_cast<double>(in_scale) * w_scales[u] / out_scale
                                      : static_cast<double>(in_scale * w_scales[0]) / out_scale;
      const int32_t scaled =
          xnnpack ? testing::RequantizeFloat(acc, in_scale * w_scales[u] / out_scale) : Requantize(acc, real, wide);
      want.push_back(static_cast<Out>(Clamp(out_zp + scaled, lo, hi)));
    }
  // With the XNNPACK delegate (where it takes the node) and on the builtin kernels alone.
  for (bool xnnpack : {true, false}) {
    InterpreterOptions options;
    options.use_xnnpack = xnnpack;
    auto interpreter = op.Build(options);
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<Out>(*interpreter, 0), want) << "seed " << seed << " xnnpack " << xnnpack;
  }
}

TEST(QuantizedFullyConnected, AllTypesMatchDirectLoop) {
  using A = tflite::ActivationFunctionType;
  RunFcCase<int8_t, int8_t, int8_t, int32_t>(TensorType::kInt8, TensorType::kInt8, TensorType::kInt8,
                                             TensorType::kInt32, false, true, A::ActivationFunctionType_NONE, 1);
  RunFcCase<int8_t, int8_t, int8_t, int32_t>(TensorType::kInt8, TensorType::kInt8, TensorType::kInt8,
                                             TensorType::kInt32, true, true, A::ActivationFunctionType_RELU, 4);
  RunFcCase<int8_t, int8_t, int8_t, int32_t>(TensorType::kInt8, TensorType::kInt8, TensorType::kInt8,
                                             TensorType::kInt32, false, false, A::ActivationFunctionType_RELU6, 7);
  RunFcCase<uint8_t, uint8_t, uint8_t, int32_t>(TensorType::kUInt8, TensorType::kUInt8, TensorType::kUInt8,
                                                TensorType::kInt32, false, true, A::ActivationFunctionType_NONE, 10);
  RunFcCase<uint8_t, uint8_t, int16_t, int32_t>(TensorType::kUInt8, TensorType::kUInt8, TensorType::kInt16,
                                                TensorType::kInt32, false, true, A::ActivationFunctionType_NONE, 13);
  RunFcCase<int16_t, int8_t, int16_t, int64_t>(TensorType::kInt16, TensorType::kInt8, TensorType::kInt16,
                                               TensorType::kInt64, true, true, A::ActivationFunctionType_NONE, 16);
  RunFcCase<int16_t, int8_t, int16_t, int32_t>(TensorType::kInt16, TensorType::kInt8, TensorType::kInt16,
                                               TensorType::kInt32, false, true, A::ActivationFunctionType_RELU, 19);
  RunFcCase<int16_t, int8_t, int16_t, int32_t>(TensorType::kInt16, TensorType::kInt8, TensorType::kInt16,
                                               TensorType::kInt32, true, false, A::ActivationFunctionType_NONE, 22);
  RunFcCase<int16_t, int16_t, int16_t, int64_t>(TensorType::kInt16, TensorType::kInt16, TensorType::kInt16,
                                                TensorType::kInt64, false, true, A::ActivationFunctionType_NONE, 25);
}

TEST(QuantizedFullyConnected, KeepNumDimsAndInt4Weights) {
  // Weights [[1, -1], [7, -8]] packed low nibble first: 0xF1, 0x87.
  SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
  op.Input(TensorType::kInt8, {2, 1, 2}, Quant(1.0f, 1));
  op.Const<uint8_t>(TensorType::kInt4, {2, 2}, {0xF1, 0x87}, Quant(0.5f));
  op.Omitted();
  op.Output(TensorType::kInt8, {}, Quant(1.0f, -1));
  op.Options(tflite::BuiltinOptions_FullyConnectedOptions,
             ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb, tflite::ActivationFunctionType_NONE,
                                                            tflite::FullyConnectedOptionsWeightsFormat_DEFAULT, true)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  // Real inputs (q - 1): [3, 1] and [-2, 4].
  SetInput<int8_t>(*interpreter, 0, {4, 2, -1, 5});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1, 2}));
  // 0.5 * [3 - 1, 21 - 8] = [1, 6.5 -> 7]; 0.5 * [-2 - 4, -14 - 32] = [-3, -23]; then zero point -1.
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{0, 6, -4, -24}));
}

// ---- hybrid

std::unique_ptr<Interpreter> HybridFc(const std::vector<int8_t>& weights, QuantizationParams wq, int units, int depth,
                                      bool asymmetric, tflite::ActivationFunctionType act, int batches = 1,
                                      bool xnnpack = true) {
  SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
  op.Input(TensorType::kFloat32, {batches, depth});
  op.Const(TensorType::kInt8, {units, depth}, weights, wq);
  op.Omitted();
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_FullyConnectedOptions,
             ER_OPTIONS(tflite::CreateFullyConnectedOptions(
                 fbb, act, tflite::FullyConnectedOptionsWeightsFormat_DEFAULT, false, asymmetric)));
  InterpreterOptions options;
  options.use_xnnpack = xnnpack;
  return op.Build(options);
}

TEST(HybridFullyConnected, SymmetricRowQuantizationHandComputed) {
  for (bool xnnpack : {true, false}) {
    auto interpreter = HybridFc({1, 2, 3, 4}, Quant(0.5f), 1, 4, false, tflite::ActivationFunctionType_NONE, 1,
                                xnnpack);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1.0f, -0.5f, 0.3f, 0.0f});
    ASSERT_TRUE(interpreter->Invoke().ok());
    // Row scale 1/127: q = [127, round(-63.5) = -64, round(38.1) = 38, 0]; dot = 127 - 128 + 114 = 113.
    EXPECT_NEAR(GetOutput<float>(*interpreter, 0)[0], 113.0 / 127.0 * 0.5, 1e-6);
  }
}

TEST(HybridFullyConnected, AsymmetricRowQuantizationHandComputed) {
  for (bool xnnpack : {true, false}) {
    auto interpreter = HybridFc({1, 2, 3, 4}, Quant(0.5f), 1, 4, true, tflite::ActivationFunctionType_NONE, 1,
                                xnnpack);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1.0f, -0.5f, 0.3f, 0.0f});
    ASSERT_TRUE(interpreter->Invoke().ok());
    // Range [-0.5, 1] over 255 steps: scale 1.5/255, zero point -43; q - zp = [170, -85, 51, 0];
    // dot = 170 - 170 + 153 = 153.
    EXPECT_NEAR(GetOutput<float>(*interpreter, 0)[0], 153.0 * (1.5 / 255.0) * 0.5, 1e-6);
  }
}

TEST(HybridFullyConnected, PerChannelRowsAndActivationsTrackFloat) {
  const int units = 6, depth = 16, batches = 3;
  const auto weights = RandomInts<int8_t>(units * depth, 3, -127, 127);
  std::vector<float> scales(units);
  for (int u = 0; u < units; ++u) scales[u] = 0.01f * (u + 1);
  const auto input = testing::RandomFloats(batches * depth, 9, -2.0f, 2.0f);
  for (auto act : {tflite::ActivationFunctionType_NONE, tflite::ActivationFunctionType_TANH,
                   tflite::ActivationFunctionType_RELU}) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool asymmetric = variant % 2 == 1, xnnpack = variant < 2;
      auto interpreter = HybridFc(weights, PerChannel(scales, 0), units, depth, asymmetric, act, batches, xnnpack);
      ASSERT_TRUE(interpreter);
      SetInput(*interpreter, 0, input);
      ASSERT_TRUE(interpreter->Invoke().ok());
      const auto got = GetOutput<float>(*interpreter, 0);
      for (int b = 0; b < batches; ++b)
        for (int u = 0; u < units; ++u) {
          double sum = 0;
          for (int d = 0; d < depth; ++d) sum += input[b * depth + d] * weights[u * depth + d] * scales[u];
          double want = sum;
          if (act == tflite::ActivationFunctionType_TANH) want = std::tanh(sum);
          if (act == tflite::ActivationFunctionType_RELU) want = std::max(0.0, sum);
          // A row of |x| <= 2 in 8 bits moves each of the 16 products by at most 127 * scale / 127.
          EXPECT_NEAR(got[b * units + u], want, 32 * scales[u]) << b << "," << u;
        }
    }
  }
}

TEST(HybridConv2D, PerTensorAndPerChannelTrackFloat) {
  const int in_h = 5, in_w = 5, in_c = 3, out_c = 4, k = 3;
  const auto filter = RandomInts<int8_t>(out_c * k * k * in_c, 5, -127, 127);
  const auto input = testing::RandomFloats(2 * in_h * in_w * in_c, 6, -1.0f, 1.0f);
  const std::vector<float> bias = {0.5f, -0.25f, 0.0f, 1.0f};
  for (bool per_channel : {false, true}) {
    std::vector<float> scales(out_c, 0.02f);
    if (per_channel) scales = {0.02f, 0.01f, 0.03f, 0.015f};
    for (bool depthwise : {false, true}) {
      const int channels = depthwise ? in_c : out_c;
      SingleOp op(depthwise ? tflite::BuiltinOperator_DEPTHWISE_CONV_2D : tflite::BuiltinOperator_CONV_2D);
      op.Input(TensorType::kFloat32, {2, in_h, in_w, in_c});
      const std::vector<int8_t> f(filter.begin(), filter.begin() + channels * k * k * (depthwise ? 1 : in_c));
      const std::vector<float> s(scales.begin(), scales.begin() + channels);
      op.Const(TensorType::kInt8, depthwise ? Shape{1, k, k, channels} : Shape{channels, k, k, in_c}, f,
               per_channel ? PerChannel(s, depthwise ? 3 : 0) : Quant(s[0]));
      op.Const(TensorType::kFloat32, {channels}, std::vector<float>(bias.begin(), bias.begin() + channels));
      op.Output(TensorType::kFloat32);
      if (depthwise) {
        op.Options(tflite::BuiltinOptions_DepthwiseConv2DOptions,
                   ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, 1)));
      } else {
        op.Options(tflite::BuiltinOptions_Conv2DOptions,
                   ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
      }
      auto interpreter = op.Build();
      ASSERT_TRUE(interpreter);
      SetInput(*interpreter, 0, input);
      ASSERT_TRUE(interpreter->Invoke().ok());
      const auto got = GetOutput<float>(*interpreter, 0);
      ASSERT_EQ(got.size(), static_cast<size_t>(2 * in_h * in_w * channels));
      for (int b = 0; b < 2; ++b)
        for (int y = 0; y < in_h; ++y)
          for (int x = 0; x < in_w; ++x)
            for (int o = 0; o < channels; ++o) {
              double sum = bias[o];
              for (int ky = 0; ky < k; ++ky)
                for (int kx = 0; kx < k; ++kx) {
                  const int iy = y + ky - 1, ix = x + kx - 1;
                  if (iy < 0 || ix < 0 || iy >= in_h || ix >= in_w) continue;
                  const float* px = &input[((b * in_h + iy) * in_w + ix) * in_c];
                  if (depthwise) {
                    sum += px[o] * f[(ky * k + kx) * channels + o] * s[o];
                  } else {
                    for (int i = 0; i < in_c; ++i) sum += px[i] * f[((o * k + ky) * k + kx) * in_c + i] * s[o];
                  }
                }
              const size_t at = ((b * in_h + y) * in_w + x) * channels + o;
              EXPECT_NEAR(got[at], sum, 27 * 127 * s[o] * 1.0 / 127) << depthwise << per_channel << " at " << at;
            }
    }
  }
}

TEST(QuantizedFullyConnected, RejectsMismatchedTypes) {
  SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
  op.Input(TensorType::kInt8, {1, 2}, Quant(1.0f));
  op.Const<int8_t>(TensorType::kInt8, {1, 2}, {1, 2}, Quant(1.0f));
  op.Output(TensorType::kUInt8, {}, Quant(1.0f));
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.unsupported()) << st.message();
}

TEST(QuantizedFullyConnected, EmptyBatchAndBadScaleCounts) {
  {
    SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
    op.Input(TensorType::kInt8, {0, 2}, testing::Quant(1.0f));
    op.Const<int8_t>(TensorType::kInt8, {3, 2}, {1, 2, 3, 4, 5, 6}, testing::Quant(1.0f));
    op.Output(TensorType::kInt8, {}, testing::Quant(1.0f));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{0, 3}));
  }
  for (bool hybrid : {false, true}) {
    // Two scales along the depth (dimension 1) of weights with three units.
    SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
    op.Input(hybrid ? TensorType::kFloat32 : TensorType::kInt8, {1, 2},
             hybrid ? QuantizationParams{} : testing::Quant(1.0f));
    op.Const<int8_t>(TensorType::kInt8, {3, 2}, {1, 2, 3, 4, 5, 6}, testing::PerChannel({1.0f, 2.0f}, 1));
    op.Output(hybrid ? TensorType::kFloat32 : TensorType::kInt8, {},
              hybrid ? QuantizationParams{} : testing::Quant(1.0f));
    const Status st = op.TryBuild();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("2 scales for 3 output channels"), std::string::npos) << st.message();
  }
}

TEST(QuantizedConv2D, EmptyBatchRuns) {
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kInt16, {0, 3, 3, 2}, testing::Quant(1.0f));
  op.Const<int8_t>(TensorType::kInt8, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, testing::Quant(1.0f));
  op.Omitted();
  op.Output(TensorType::kInt16, {}, testing::Quant(1.0f));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0, 3, 3, 1}));
}

}  // namespace
}  // namespace edgerun
