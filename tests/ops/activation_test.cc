// RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LOGISTIC, TANH, SOFTMAX in float.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

std::vector<float> RunUnary(tflite::BuiltinOperator code, const std::vector<float>& in) {
  SingleOp op(code);
  op.Input(TensorType::kFloat32, {static_cast<int32_t>(in.size())});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  if (!interpreter) return {};
  SetInput(*interpreter, 0, in);
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<float>(*interpreter, 0);
}

const std::vector<float> kValues = {-100, -7, -1.5f, -1, -0.25f, 0, 0.25f, 1, 1.5f, 6, 7, 100};

TEST(Activations, Clamps) {
  auto check = [](tflite::BuiltinOperator code, float lo, float hi) {
    const auto got = RunUnary(code, kValues);
    ASSERT_EQ(got.size(), kValues.size());
    for (size_t i = 0; i < kValues.size(); ++i) EXPECT_EQ(got[i], std::min(std::max(kValues[i], lo), hi));
  };
  check(tflite::BuiltinOperator_RELU, 0, INFINITY);
  check(tflite::BuiltinOperator_RELU6, 0, 6);
  check(tflite::BuiltinOperator_RELU_N1_TO_1, -1, 1);
  check(tflite::BuiltinOperator_RELU_0_TO_1, 0, 1);
}

TEST(Activations, LogisticAndTanh) {
  const auto logistic = RunUnary(tflite::BuiltinOperator_LOGISTIC, kValues);
  const auto tanh = RunUnary(tflite::BuiltinOperator_TANH, kValues);
  for (size_t i = 0; i < kValues.size(); ++i) {
    const double x = kValues[i];
    EXPECT_NEAR(logistic[i], 1.0 / (1.0 + std::exp(-x)), 1e-6);
    const double want_tanh = std::fabs(x) > 20 ? (x > 0 ? 1 : -1) : (std::exp(2 * x) - 1) / (std::exp(2 * x) + 1);
    EXPECT_NEAR(tanh[i], want_tanh, 1e-6);
  }
  EXPECT_EQ(logistic.front(), 0.0f);
  EXPECT_EQ(logistic.back(), 1.0f);
}

TEST(Softmax, RowsSumToOneWithBeta) {
  SingleOp op(tflite::BuiltinOperator_SOFTMAX);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_SoftmaxOptions, ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 0.5f)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 1000, 1000, 1000});
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<float>(*interpreter, 0);
  const double e0 = std::exp(0.5), e1 = std::exp(1.0);
  const double sum = 1 + e0 + e1;
  EXPECT_NEAR(got[0], 1 / sum, 1e-6);
  EXPECT_NEAR(got[1], e0 / sum, 1e-6);
  EXPECT_NEAR(got[2], e1 / sum, 1e-6);
  for (int i = 3; i < 6; ++i) EXPECT_NEAR(got[i], 1.0 / 3, 1e-6);  // large values do not overflow
}

TEST(Activations, RejectIntegerInput) {
  SingleOp op(tflite::BuiltinOperator_TANH);
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kInt32);
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.unsupported());
}

}  // namespace
}  // namespace edgerun
