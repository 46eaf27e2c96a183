// CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED in float: hand-computed cases, then random shapes
// against a direct loop written here from the definition (zero padding, SAME/VALID sizes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

TEST(Conv2D, HandComputed3x3Same) {
  // 1x3x3x1 input 1..9, 2x2 filter of ones, stride 1, SAME: output(y,x) sums the 2x2 window
  // starting at (y,x) (TFLite pads only after for an even filter), plus bias 0.5.
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kFloat32, {1, 3, 3, 1});
  op.Const<float>(TensorType::kFloat32, {1, 2, 2, 1}, {1, 1, 1, 1});
  op.Const<float>(TensorType::kFloat32, {1}, {0.5f});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_Conv2DOptions, ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 3, 3, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0),
            (std::vector<float>{12.5f, 16.5f, 9.5f, 24.5f, 28.5f, 15.5f, 15.5f, 17.5f, 9.5f}));
}

TEST(Conv2D, HandComputedStride2ValidRelu6) {
  SingleOp op(tflite::BuiltinOperator_CONV_2D);
  op.Input(TensorType::kFloat32, {1, 3, 4, 1});
  op.Const<float>(TensorType::kFloat32, {2, 1, 2, 1}, {1, 2, -1, 1});
  op.Omitted();
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 2, 2, tflite::ActivationFunctionType_RELU6)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // Windows (stride 2 in x, rows 0 and 2): [1,2] [3,4] [9,10] [11,12].
  // filter 0 = [1,2] -> 5, 11, 29, 35 clamped to 6; filter 1 = [-1,1] -> 1 everywhere.
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 2, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{5, 1, 6, 1, 6, 1, 6, 1}));
}

struct ConvCase {
  int batch, in_h, in_w, in_c, out_c, k_h, k_w, stride_h, stride_w, dil_h, dil_w, groups;
  bool same;
};

// Output size and leading padding from the definition of SAME/VALID.
void Geometry(bool same, int in, int k, int stride, int dil, int* out, int* pad) {
  const int eff = (k - 1) * dil + 1;
  *out = same ? (in + stride - 1) / stride : (in - eff + stride) / stride;
  *pad = same ? std::max(0, ((*out - 1) * stride + eff - in) / 2) : 0;
}

TEST(Conv2D, RandomShapesMatchDirectLoop) {
  const ConvCase cases[] = {
      {1, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, true},  {2, 7, 6, 2, 3, 3, 2, 2, 1, 1, 1, 1, false},
      {1, 9, 9, 4, 6, 3, 3, 1, 1, 2, 2, 1, true},  {1, 8, 8, 4, 4, 3, 3, 2, 2, 1, 1, 2, true},
      {1, 4, 4, 8, 8, 1, 1, 1, 1, 1, 1, 4, false}, {1, 6, 3, 1, 5, 5, 1, 3, 1, 1, 1, 1, true},
  };
  int seed = 0;
  for (const ConvCase& c : cases) {
    const int f_c = c.in_c / c.groups;
    int out_h, out_w, pad_h, pad_w;
    Geometry(c.same, c.in_h, c.k_h, c.stride_h, c.dil_h, &out_h, &pad_h);
    Geometry(c.same, c.in_w, c.k_w, c.stride_w, c.dil_w, &out_w, &pad_w);
    const auto input = testing::RandomFloats(c.batch * c.in_h * c.in_w * c.in_c, ++seed);
    const auto filter = testing::RandomFloats(c.out_c * c.k_h * c.k_w * f_c, ++seed);
    const auto bias = testing::RandomFloats(c.out_c, ++seed);
    SingleOp op(tflite::BuiltinOperator_CONV_2D);
    op.Input(TensorType::kFloat32, {c.batch, c.in_h, c.in_w, c.in_c});
    op.Const(TensorType::kFloat32, {c.out_c, c.k_h, c.k_w, f_c}, filter);
    op.Const(TensorType::kFloat32, {c.out_c}, bias);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_Conv2DOptions,
               ER_OPTIONS(tflite::CreateConv2DOptions(fbb, c.same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                      c.stride_w, c.stride_h, tflite::ActivationFunctionType_NONE,
                                                      c.dil_w, c.dil_h)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, (Shape{c.batch, out_h, out_w, c.out_c}));
    std::vector<float> want;
    for (int b = 0; b < c.batch; ++b)
      for (int y = 0; y < out_h; ++y)
        for (int x = 0; x < out_w; ++x)
          for (int o = 0; o < c.out_c; ++o) {
            const int g = o / (c.out_c / c.groups);
            double sum = bias[o];
            for (int ky = 0; ky < c.k_h; ++ky)
              for (int kx = 0; kx < c.k_w; ++kx)
                for (int i = 0; i < f_c; ++i) {
                  const int iy = y * c.stride_h + ky * c.dil_h - pad_h, ix = x * c.stride_w + kx * c.dil_w - pad_w;
                  if (iy < 0 || ix < 0 || iy >= c.in_h || ix >= c.in_w) continue;
                  sum += input[((b * c.in_h + iy) * c.in_w + ix) * c.in_c + g * f_c + i] *
                         filter[((o * c.k_h + ky) * c.k_w + kx) * f_c + i];
                }
            want.push_back(static_cast<float>(sum));
          }
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-5f)) << "case " << seed;
  }
}

TEST(DepthwiseConv2D, RandomShapesMatchDirectLoop) {
  struct Case {
    int in_h, in_w, in_c, mult, k, stride, dil;
    bool same;
  };
  const Case cases[] = {{5, 5, 3, 1, 3, 1, 1, true}, {8, 7, 2, 3, 3, 2, 1, false}, {9, 9, 4, 2, 3, 1, 2, true},
                        {6, 6, 8, 1, 5, 2, 1, true},
                        // One input channel: run as a CONV_2D.
                        {13, 11, 1, 8, 5, 2, 1, true},  {9, 10, 1, 3, 3, 1, 2, true},
                        {7, 6, 1, 16, 4, 1, 1, false}};
  int seed = 100;
  for (const Case& c : cases) {
    const int out_c = c.in_c * c.mult;
    int out_h, out_w, pad_h, pad_w;
    Geometry(c.same, c.in_h, c.k, c.stride, c.dil, &out_h, &pad_h);
    Geometry(c.same, c.in_w, c.k, c.stride, c.dil, &out_w, &pad_w);
    const auto input = testing::RandomFloats(c.in_h * c.in_w * c.in_c, ++seed);
    const auto filter = testing::RandomFloats(c.k * c.k * out_c, ++seed);
    const auto bias = testing::RandomFloats(out_c, ++seed);
    SingleOp op(tflite::BuiltinOperator_DEPTHWISE_CONV_2D);
    op.Input(TensorType::kFloat32, {1, c.in_h, c.in_w, c.in_c});
    op.Const(TensorType::kFloat32, {1, c.k, c.k, out_c}, filter);
    op.Const(TensorType::kFloat32, {out_c}, bias);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_DepthwiseConv2DOptions,
               ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, c.same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                               c.stride, c.stride, c.mult,
                                                               tflite::ActivationFunctionType_RELU, c.dil, c.dil)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, (Shape{1, out_h, out_w, out_c}));
    std::vector<float> want;
    for (int y = 0; y < out_h; ++y)
      for (int x = 0; x < out_w; ++x)
        for (int o = 0; o < out_c; ++o) {
          double sum = bias[o];
          for (int ky = 0; ky < c.k; ++ky)
            for (int kx = 0; kx < c.k; ++kx) {
              const int iy = y * c.stride + ky * c.dil - pad_h, ix = x * c.stride + kx * c.dil - pad_w;
              if (iy < 0 || ix < 0 || iy >= c.in_h || ix >= c.in_w) continue;
              sum += input[(iy * c.in_w + ix) * c.in_c + o / c.mult] * filter[(ky * c.k + kx) * out_c + o];
            }
          want.push_back(std::max(0.0f, static_cast<float>(sum)));
        }
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-5f)) << "case " << seed;
  }
}

TEST(FullyConnected, HandComputedWithBiasAndKeepDims) {
  for (bool keep : {false, true}) {
    SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
    op.Input(TensorType::kFloat32, {2, 1, 3});
    op.Const<float>(TensorType::kFloat32, {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
    op.Const<float>(TensorType::kFloat32, {2}, {10, -10});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_FullyConnectedOptions,
               ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb, tflite::ActivationFunctionType_NONE,
                                                              tflite::FullyConnectedOptionsWeightsFormat_DEFAULT, keep)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, keep ? (Shape{2, 1, 2}) : (Shape{2, 2}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{8, -7, 8, -2.5f}));
  }
}

// A matrix-vector product on weights read in place (FULLY_CONNECTED of one row, 1x1 CONV_2D of
// one pixel): weights [units][depth] over 1 MiB and constant, or a graph input of any size.
struct MatVecCase {
  int units, depth;
  bool constant;
};

// Builds the op (input 0 of `in_shape`, weights of `w_shape` as a constant or as input 1, bias,
// RELU6 in `options`), runs it at 1 and 2 threads and checks the output's shape and each value
// against bias + w . x summed in double.
void ExpectMatVecMatchesDirectLoop(tflite::BuiltinOperator code, const MatVecCase& c, const Shape& in_shape,
                                   const Shape& w_shape, const Shape& out_shape, tflite::BuiltinOptions options_type,
                                   ModelBuilder::OptionsWriter options, uint32_t seed) {
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(c.depth), seed);
  const std::vector<float> w = testing::RandomFloats(static_cast<size_t>(c.units) * c.depth, seed + 1, -0.2f, 0.2f);
  const std::vector<float> bias = testing::RandomFloats(static_cast<size_t>(c.units), seed + 2);
  SingleOp op(code);
  op.Input(TensorType::kFloat32, in_shape);
  if (c.constant) {
    op.Const<float>(TensorType::kFloat32, w_shape, w);
  } else {
    op.Input(TensorType::kFloat32, w_shape);
  }
  op.Const<float>(TensorType::kFloat32, {c.units}, bias);
  op.Output(TensorType::kFloat32);
  op.Options(options_type, std::move(options));
  for (int threads : {1, 2}) {
    InterpreterOptions interpreter_options;
    interpreter_options.num_threads = threads;
    auto interpreter = op.Build(interpreter_options);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, x);
    if (!c.constant) SetInput<float>(*interpreter, 1, w);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, out_shape);
    const std::vector<float> got = GetOutput<float>(*interpreter, 0);
    ASSERT_EQ(got.size(), static_cast<size_t>(c.units));
    for (int u = 0; u < c.units; ++u) {
      double sum = bias[u];
      for (int k = 0; k < c.depth; ++k) sum += static_cast<double>(w[static_cast<size_t>(u) * c.depth + k]) * x[k];
      ASSERT_NEAR(got[u], std::min(std::max(sum, 0.0), 6.0), 1e-4) << c.units << "x" << c.depth << " output " << u;
    }
  }
}

TEST(FullyConnected, OneRowOnWeightsInPlaceMatchesDirectLoop) {
  for (const MatVecCase c : {MatVecCase{300, 1000, true}, MatVecCase{37, 21, false}, MatVecCase{260, 1030, false}}) {
    ExpectMatVecMatchesDirectLoop(
        tflite::BuiltinOperator_FULLY_CONNECTED, c, {1, c.depth}, {c.units, c.depth}, {1, c.units},
        tflite::BuiltinOptions_FullyConnectedOptions,
        ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb, tflite::ActivationFunctionType_RELU6)), 1);
  }
}

// The logits layer of TF-slim's MobileNets (stride 2 here: still one pixel).
TEST(Conv2D, OnePixelPointwiseOnFilterInPlaceMatchesDirectLoop) {
  for (const MatVecCase c : {MatVecCase{300, 1000, true}, MatVecCase{19, 33, false}}) {
    ExpectMatVecMatchesDirectLoop(tflite::BuiltinOperator_CONV_2D, c, {1, 1, 1, c.depth}, {c.units, 1, 1, c.depth},
                                  {1, 1, 1, c.units}, tflite::BuiltinOptions_Conv2DOptions,
                                  ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 2, 2,
                                                                         tflite::ActivationFunctionType_RELU6)),
                                  4);
  }
}

TEST(FullyConnected, RejectsInputThatDoesNotDivide) {
  SingleOp op(tflite::BuiltinOperator_FULLY_CONNECTED);
  op.Input(TensorType::kFloat32, {1, 5});
  op.Const<float>(TensorType::kFloat32, {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  op.Output(TensorType::kFloat32);
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rows of 3"), std::string::npos) << st.message();
}

TEST(Conv2D, RejectsBadStrideAndChannels) {
  {
    SingleOp op(tflite::BuiltinOperator_CONV_2D);
    op.Input(TensorType::kFloat32, {1, 3, 3, 1});
    op.Const<float>(TensorType::kFloat32, {1, 1, 1, 1}, {1});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_Conv2DOptions, ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 0, 1)));
    EXPECT_FALSE(op.TryBuild().ok());
  }
  {
    SingleOp op(tflite::BuiltinOperator_CONV_2D);
    op.Input(TensorType::kFloat32, {1, 3, 3, 3});
    op.Const<float>(TensorType::kFloat32, {1, 1, 1, 2}, {1, 1});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_Conv2DOptions, ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
    const Status st = op.TryBuild();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("multiple"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace edgerun
