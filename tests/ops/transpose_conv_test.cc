// TRANSPOSE_CONV: hand-computed float cases, then random shapes in every type against a direct
// "scatter" loop written here from the definition (input pixel (iy, ix) adds input x filter to
// output (iy * stride - pad + ky, ix * stride - pad + kx)), a runtime output_shape, and errors.
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

auto Options(tflite::Padding padding, int stride_h, int stride_w,
             tflite::ActivationFunctionType act = tflite::ActivationFunctionType_NONE) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateTransposeConvOptions(fbb, padding, stride_w, stride_h, act).Union();
  };
}

TEST(TransposeConv, HandComputedStride2ValidAndSame) {
  // Input [1, 2] and filter [1, 10, 100] along x, stride 2: input 1 lands on x = 0..2 and
  // input 2 on x = 2..4, so the full (VALID) output is [1, 10, 100 + 2, 20, 200]. SAME with
  // 4 outputs pads 1 in total, all of it after: the first 4 of the same values.
  for (bool same : {false, true}) {
    const int out_w = same ? 4 : 5;
    SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV);
    op.Const<int32_t>(TensorType::kInt32, {4}, {1, 1, out_w, 1});
    op.Const<float>(TensorType::kFloat32, {1, 1, 3, 1}, {1, 10, 100});
    op.Input(TensorType::kFloat32, {1, 1, 2, 1});
    op.Const<float>(TensorType::kFloat32, {1}, {0.5f});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_TransposeConvOptions,
               Options(same ? tflite::Padding_SAME : tflite::Padding_VALID, 1, 2));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 1, out_w, 1}));
    std::vector<float> want = {1.5f, 10.5f, 102.5f, 20.5f, 200.5f};
    want.resize(out_w);
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want);
  }
}

struct Case {
  int batch, in_h, in_w, in_c, out_c, k_h, k_w, stride_h, stride_w;
  bool same;
};

// Output size of a TRANSPOSE_CONV: the input size a CONV_2D with this padding maps to `in`.
int OutSize(bool same, int in, int k, int stride) { return same ? in * stride : (in - 1) * stride + k; }

// Scatter sums (zero points removed, int64) and the leading padding used.
std::vector<int64_t> ScatterSums(const Case& c, int out_h, int out_w, const std::vector<int32_t>& input,
                                 const std::vector<int32_t>& filter) {
  int conv_h, conv_w, pad_h, pad_w;
  testing::SameOrValid(c.same, out_h, c.k_h, c.stride_h, 1, &conv_h, &pad_h);
  testing::SameOrValid(c.same, out_w, c.k_w, c.stride_w, 1, &conv_w, &pad_w);
  std::vector<int64_t> sums(static_cast<size_t>(c.batch) * out_h * out_w * c.out_c, 0);
  for (int b = 0; b < c.batch; ++b)
    for (int iy = 0; iy < c.in_h; ++iy)
      for (int ix = 0; ix < c.in_w; ++ix)
        for (int i = 0; i < c.in_c; ++i)
          for (int ky = 0; ky < c.k_h; ++ky)
            for (int kx = 0; kx < c.k_w; ++kx)
              for (int o = 0; o < c.out_c; ++o) {
                const int oy = iy * c.stride_h - pad_h + ky, ox = ix * c.stride_w - pad_w + kx;
                if (oy < 0 || ox < 0 || oy >= out_h || ox >= out_w) continue;
                sums[((b * out_h + oy) * out_w + ox) * c.out_c + o] +=
                    int64_t{input[((b * c.in_h + iy) * c.in_w + ix) * c.in_c + i]} *
                    filter[((o * c.k_h + ky) * c.k_w + kx) * c.in_c + i];
              }
  return sums;
}

const Case kCases[] = {
    {1, 2, 2, 1, 1, 3, 3, 2, 2, false}, {2, 3, 4, 3, 2, 3, 3, 2, 2, true},  {1, 4, 3, 2, 5, 2, 3, 1, 2, true},
    {1, 3, 3, 4, 3, 4, 4, 2, 2, true},  {1, 5, 2, 2, 2, 1, 1, 3, 1, false},
};

TEST(TransposeConv, FloatMatchesScatterLoop) {
  int seed = 1;
  for (const Case& c : kCases) {
    const int out_h = OutSize(c.same, c.in_h, c.k_h, c.stride_h), out_w = OutSize(c.same, c.in_w, c.k_w, c.stride_w);
    // Small integers as floats: sums are exact in any order.
    const auto input_i = RandomInts<int32_t>(c.batch * c.in_h * c.in_w * c.in_c, ++seed, -8, 8);
    const auto filter_i = RandomInts<int32_t>(c.out_c * c.k_h * c.k_w * c.in_c, ++seed, -8, 8);
    const std::vector<float> input(input_i.begin(), input_i.end()), filter(filter_i.begin(), filter_i.end());
    SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV, 4);
    op.Const<int32_t>(TensorType::kInt32, {4}, {c.batch, out_h, out_w, c.out_c});
    op.Const(TensorType::kFloat32, {c.out_c, c.k_h, c.k_w, c.in_c}, filter);
    op.Input(TensorType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
    op.Const(TensorType::kFloat32, {c.out_c}, std::vector<float>(c.out_c, 1.0f));
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_TransposeConvOptions,
               Options(c.same ? tflite::Padding_SAME : tflite::Padding_VALID, c.stride_h, c.stride_w,
                       tflite::ActivationFunctionType_RELU));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, (Shape{c.batch, out_h, out_w, c.out_c}));
    std::vector<float> want;
    for (int64_t s : ScatterSums(c, out_h, out_w, input_i, filter_i)) want.push_back(std::max(0.0f, s + 1.0f));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << "seed " << seed;
  }
}

template <class T, class Bias>
void RunQuantized(const Case& c, TensorType type, TensorType bias_type, bool per_channel, int seed) {
  const bool uint8 = type == TensorType::kUInt8, int16 = type == TensorType::kInt16;
  const int in_zp = int16 ? 0 : (uint8 ? 130 : -5), out_zp = int16 ? 0 : (uint8 ? 125 : 3);
  const int filter_zp = uint8 ? 120 : 0;
  const float in_scale = 0.03f, out_scale = int16 ? 0.004f : 0.5f;
  std::vector<float> scales(c.out_c);
  for (int o = 0; o < c.out_c; ++o) scales[o] = per_channel ? 0.01f + 0.005f * o : 0.02f;
  const int out_h = OutSize(c.same, c.in_h, c.k_h, c.stride_h), out_w = OutSize(c.same, c.in_w, c.k_w, c.stride_w);
  const auto input = RandomInts<T>(c.batch * c.in_h * c.in_w * c.in_c, seed, std::numeric_limits<T>::min(),
                                   std::numeric_limits<T>::max());
  const auto filter = RandomInts<T>(c.out_c * c.k_h * c.k_w * c.in_c, seed + 1, uint8 ? 0 : -127, uint8 ? 255 : 127);
  const auto filter8 = std::vector<int8_t>(filter.begin(), filter.end());
  const auto bias = RandomInts<Bias>(c.out_c, seed + 2, -5000, 5000);
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV, int16 ? 3 : 2);
  op.Const<int32_t>(TensorType::kInt32, {4}, {c.batch, out_h, out_w, c.out_c});
  const Shape filter_shape = {c.out_c, c.k_h, c.k_w, c.in_c};
  const QuantizationParams fq = per_channel ? PerChannel(scales, 0) : Quant(scales[0], filter_zp);
  if (int16) {
    op.Const(TensorType::kInt8, filter_shape, filter8, fq);
  } else {
    op.Const(type, filter_shape, filter, fq);
  }
  op.Input(type, {c.batch, c.in_h, c.in_w, c.in_c}, Quant(in_scale, in_zp));
  op.Const(bias_type, {c.out_c}, bias, Quant(in_scale * scales[0]));
  op.Output(type, {}, Quant(out_scale, out_zp));
  op.Options(tflite::BuiltinOptions_TransposeConvOptions,
             Options(c.same ? tflite::Padding_SAME : tflite::Padding_VALID, c.stride_h, c.stride_w));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, input);
  ASSERT_TRUE(interpreter->Invoke().ok());
  std::vector<int32_t> in_values, filter_values;
  for (T v : input) in_values.push_back(int32_t{v} - in_zp);
  for (T v : filter) filter_values.push_back(int32_t{v} - filter_zp);
  const auto sums = ScatterSums(c, out_h, out_w, in_values, filter_values);
  std::vector<T> want;
  for (size_t i = 0; i < sums.size(); ++i) {
    const int o = static_cast<int>(i % c.out_c);
    // 8-bit: XNNPACK's float requantization; 16-bit: TFLite's fixed-point one.
    const bool wide = int16 && bias_type == TensorType::kInt64;
    const int32_t scaled =
        int16 ? Requantize(sums[i] + bias[o], static_cast<double>(in_scale) * scales[o] / out_scale, wide)
              : testing::RequantizeFloat(sums[i] + bias[o], in_scale * scales[o] / out_scale);
    want.push_back(
        static_cast<T>(Clamp(out_zp + scaled, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())));
  }
  EXPECT_EQ(GetOutput<T>(*interpreter, 0), want) << "seed " << seed;
}

TEST(TransposeConv, QuantizedTypesMatchScatterLoop) {
  int seed = 40;
  for (const Case& c : kCases) {
    RunQuantized<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt32, true, seed += 3);
    RunQuantized<int8_t, int32_t>(c, TensorType::kInt8, TensorType::kInt32, false, seed += 3);
    RunQuantized<uint8_t, int32_t>(c, TensorType::kUInt8, TensorType::kInt32, false, seed += 3);
    RunQuantized<int16_t, int64_t>(c, TensorType::kInt16, TensorType::kInt64, true, seed += 3);
    RunQuantized<int16_t, int32_t>(c, TensorType::kInt16, TensorType::kInt32, true, seed += 3);
  }
}

TEST(TransposeConv, Int16SumsPastInt32StayExact) {
  // int16 x int8 with an int64 bias sums on the int32 kernels only when no sum can leave int32
  // (ops::Int32SumCheck); 300 channels x 9 taps of |w| up to 127 can, so these sums must come
  // out exact: at output (1, 1), which all 4 input pixels reach, channel 0 (weights all 127) of
  // 3 pixels all 32767 and one at the extremes in random signs sums to ~3.7e9; the other
  // channels have random weights.
  const Case c = {1, 2, 2, 300, 8, 3, 3, 1, 1, false};
  const int out_h = 4, out_w = 4;
  auto input = RandomInts<int16_t>(c.in_h * c.in_w * c.in_c, 91, -1, 1);
  for (auto& v : input) v = v < 0 ? -32768 : 32767;
  std::fill(input.begin(), input.begin() + 3 * c.in_c, int16_t{32767});
  auto filter = RandomInts<int8_t>(c.out_c * c.k_h * c.k_w * c.in_c, 92, -127, 127);
  std::fill(filter.begin(), filter.begin() + c.k_h * c.k_w * c.in_c, int8_t{127});
  const auto bias = RandomInts<int64_t>(c.out_c, 93, -5000, 5000);
  const float in_scale = 0.03f, out_scale = 0.004f;
  const std::vector<float> scales(c.out_c, 1.5e-8f);  // sums of ~4e9 land inside int16
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV, 3);
  op.Const<int32_t>(TensorType::kInt32, {4}, {1, out_h, out_w, c.out_c});
  op.Const(TensorType::kInt8, {c.out_c, c.k_h, c.k_w, c.in_c}, filter, PerChannel(scales, 0));
  op.Input(TensorType::kInt16, {1, c.in_h, c.in_w, c.in_c}, Quant(in_scale, 0));
  op.Const(TensorType::kInt64, {c.out_c}, bias, Quant(in_scale * scales[0]));
  op.Output(TensorType::kInt16, {}, Quant(out_scale, 0));
  op.Options(tflite::BuiltinOptions_TransposeConvOptions, Options(tflite::Padding_VALID, 1, 1));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, input);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto sums = ScatterSums(c, out_h, out_w, std::vector<int32_t>(input.begin(), input.end()),
                                std::vector<int32_t>(filter.begin(), filter.end()));
  ASSERT_GT(sums[(1 * out_w + 1) * c.out_c], std::numeric_limits<int32_t>::max());
  std::vector<int16_t> want;
  for (size_t i = 0; i < sums.size(); ++i) {
    const int o = static_cast<int>(i % c.out_c);
    const int32_t scaled = Requantize(sums[i] + bias[o], static_cast<double>(in_scale) * scales[o] / out_scale, true);
    want.push_back(static_cast<int16_t>(Clamp(scaled, -32768, 32767)));
  }
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), want);
}

TEST(TransposeConv, HybridTracksFloat) {
  const Case c = {2, 3, 3, 4, 3, 3, 3, 2, 2, true};
  const int out_h = 6, out_w = 6;
  const auto filter = RandomInts<int8_t>(c.out_c * 9 * c.in_c, 7, -127, 127);
  const auto input = testing::RandomFloats(c.batch * 9 * c.in_c, 8, -1.0f, 1.0f);
  const std::vector<float> scales = {0.01f, 0.02f, 0.03f};
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV, 3);
  op.Const<int32_t>(TensorType::kInt32, {4}, {c.batch, out_h, out_w, c.out_c});
  op.Const(TensorType::kInt8, {c.out_c, 3, 3, c.in_c}, filter, PerChannel(scales, 0));
  op.Input(TensorType::kFloat32, {c.batch, 3, 3, c.in_c});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_TransposeConvOptions, Options(tflite::Padding_SAME, 2, 2));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, input);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<float>(*interpreter, 0);
  ASSERT_EQ(got.size(), static_cast<size_t>(c.batch * out_h * out_w * c.out_c));
  // Float reference: scatter with the dequantized filter.
  std::vector<double> want(got.size(), 0.0);
  for (int b = 0; b < c.batch; ++b)
    for (int iy = 0; iy < 3; ++iy)
      for (int ix = 0; ix < 3; ++ix)
        for (int i = 0; i < c.in_c; ++i)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx)
              for (int o = 0; o < c.out_c; ++o) {
                // SAME, 6 outputs from 3 with stride 2 and a 3-wide filter: 1 padding in total, 0 before.
                const int oy = iy * 2 + ky, ox = ix * 2 + kx;
                if (oy >= out_h || ox >= out_w) continue;
                want[((b * out_h + oy) * out_w + ox) * c.out_c + o] += input[((b * 3 + iy) * 3 + ix) * c.in_c + i] *
                                                                       filter[((o * 3 + ky) * 3 + kx) * c.in_c + i] *
                                                                       scales[o];
              }
  for (size_t i = 0; i < got.size(); ++i) {
    // At most 4 inputs x in_c channels reach an output, each off by half a step of 2/255.
    EXPECT_NEAR(got[i], want[i], 16 * 127 * scales[i % c.out_c] / 255.0) << i;
  }
}

TEST(TransposeConv, RuntimeOutputShapeMakesOutputDynamic) {
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV);
  op.Input(TensorType::kInt32, {4});
  op.Const<float>(TensorType::kFloat32, {1, 1, 3, 1}, {1, 10, 100});
  op.Input(TensorType::kFloat32, {1, 1, 2, 1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_TransposeConvOptions, Options(tflite::Padding_VALID, 1, 2));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 1, 5, 1});
  SetInput<float>(*interpreter, 1, {1, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 1, 5, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 10, 102, 20, 200}));
  // A shape whose channels differ from the filter's is an error at run time.
  SetInput<int32_t>(*interpreter, 0, {1, 1, 5, 2});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(TransposeConv, RejectsBadShapes) {
  auto build = [](std::vector<int32_t> output_shape, Shape filter_shape) {
    SingleOp op(tflite::BuiltinOperator_TRANSPOSE_CONV);
    op.Const<int32_t>(TensorType::kInt32, {static_cast<int32_t>(output_shape.size())}, output_shape);
    op.Const<float>(TensorType::kFloat32, filter_shape, std::vector<float>(NumElements(filter_shape), 1.0f));
    op.Input(TensorType::kFloat32, {1, 2, 2, 3});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_TransposeConvOptions, Options(tflite::Padding_SAME, 2, 2));
    return op.TryBuild();
  };
  EXPECT_TRUE(build({1, 4, 4, 2}, {2, 3, 3, 3}).ok());
  EXPECT_FALSE(build({1, 4, 4}, {2, 3, 3, 3}).ok());     // output_shape needs 4 values
  EXPECT_FALSE(build({1, 4, 4, 5}, {2, 3, 3, 3}).ok());  // 5 output channels, 2 filters
  EXPECT_FALSE(build({2, 4, 4, 2}, {2, 3, 3, 3}).ok());  // batch differs from the input's
  EXPECT_FALSE(build({1, 4, 4, 2}, {2, 3, 3, 4}).ok());  // filter depth 4, input channels 3
}

}  // namespace
}  // namespace edgerun
