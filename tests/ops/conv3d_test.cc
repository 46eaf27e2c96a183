// CONV_3D against a direct loop; CONV_3D_TRANSPOSE through the adjoint identity
// <conv(x), y> == <x, conv_transpose(y)>, which holds for any filter when both use the same
// geometry.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

ModelBuilder::OptionsWriter Conv3DOptions(tflite::Padding padding, int stride, int dilation = 1) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateConv3DOptions(fbb, padding, stride, stride, stride, tflite::ActivationFunctionType_NONE,
                                       dilation, dilation, dilation)
        .Union();
  };
}

TEST(Conv3D, ValidStride1MatchesDirectLoop) {
  const Shape in = {1, 4, 5, 3, 2}, f = {2, 3, 2, 2, 3};
  const auto x = testing::RandomFloats(NumElements(in), 11);
  const auto w = testing::RandomFloats(NumElements(f), 12);
  const auto bias = testing::RandomFloats(3, 13);
  SingleOp op(tflite::BuiltinOperator_CONV_3D);
  op.Input(TensorType::kFloat32, in);
  op.Const(TensorType::kFloat32, f, w);
  op.Const(TensorType::kFloat32, {3}, bias);
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_Conv3DOptions, Conv3DOptions(tflite::Padding_VALID, 1));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, x);
  ASSERT_TRUE(interpreter->Invoke().ok());
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{1, 3, 3, 2, 3}));
  std::vector<float> want;
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 3; ++y)
      for (int xx = 0; xx < 2; ++xx)
        for (int o = 0; o < 3; ++o) {
          double s = bias[o];
          for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 3; ++b)
              for (int c = 0; c < 2; ++c)
                for (int i = 0; i < 2; ++i)
                  s += x[(((z + a) * 5 + (y + b)) * 3 + (xx + c)) * 2 + i] * w[(((a * 3 + b) * 2 + c) * 2 + i) * 3 + o];
          want.push_back(static_cast<float>(s));
        }
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-5f));
}

TEST(Conv3DTranspose, IsTheAdjointOfConv3D) {
  for (auto [padding, stride] : {std::pair{tflite::Padding_VALID, 1}, std::pair{tflite::Padding_VALID, 2},
                                 std::pair{tflite::Padding_SAME, 1}, std::pair{tflite::Padding_SAME, 2}}) {
    const Shape in = {1, 5, 6, 4, 2}, f = {3, 3, 2, 2, 3};
    const auto w = testing::RandomFloats(NumElements(f), 21);
    const auto x = testing::RandomFloats(NumElements(in), 22);
    SingleOp conv(tflite::BuiltinOperator_CONV_3D);
    conv.Input(TensorType::kFloat32, in);
    conv.Const(TensorType::kFloat32, f, w);
    conv.Output(TensorType::kFloat32);
    conv.Options(tflite::BuiltinOptions_Conv3DOptions, Conv3DOptions(padding, stride));
    auto forward = conv.Build();
    ASSERT_TRUE(forward);
    SetInput(*forward, 0, x);
    ASSERT_TRUE(forward->Invoke().ok());
    const Shape out = forward->output(0)->shape;
    const auto conv_x = GetOutput<float>(*forward, 0);
    const auto y = testing::RandomFloats(NumElements(out), 23);

    SingleOp transpose(tflite::BuiltinOperator_CONV_3D_TRANSPOSE);
    transpose.Const(TensorType::kInt32, {5}, std::vector<int32_t>(in.begin(), in.end()));
    transpose.Const(TensorType::kFloat32, f, w);  // [KD,KH,KW,O=2,C=3]: the same array
    transpose.Input(TensorType::kFloat32, out);
    transpose.Output(TensorType::kFloat32);
    transpose.Options(tflite::BuiltinOptions_Conv3DOptions, Conv3DOptions(padding, stride));
    auto backward = transpose.Build();
    ASSERT_TRUE(backward);
    SetInput(*backward, 0, y);
    ASSERT_TRUE(backward->Invoke().ok());
    ASSERT_EQ(backward->output(0)->shape, in);
    const auto convt_y = GetOutput<float>(*backward, 0);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += conv_x[i] * y[i];
    for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * convt_y[i];
    EXPECT_NEAR(lhs, rhs, 1e-4 * std::max(1.0, std::fabs(lhs))) << "stride " << stride;
  }
}

TEST(Conv3D, RejectsChannelMismatch) {
  SingleOp op(tflite::BuiltinOperator_CONV_3D);
  op.Input(TensorType::kFloat32, {1, 2, 2, 2, 3});
  op.Const(TensorType::kFloat32, {1, 1, 1, 2, 1}, std::vector<float>{1, 1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_Conv3DOptions, Conv3DOptions(tflite::Padding_VALID, 1));
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
