// AVERAGE_POOL_2D and MAX_POOL_2D: windows clipped at the borders, averages over covered cells.
#include <gtest/gtest.h>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

std::unique_ptr<Interpreter> Pool(tflite::BuiltinOperator op, Shape in, tflite::Padding padding, int stride, int filter,
                                  tflite::ActivationFunctionType act = tflite::ActivationFunctionType_NONE) {
  SingleOp s(op);
  s.Input(TensorType::kFloat32, in);
  s.Output(TensorType::kFloat32);
  s.Options(tflite::BuiltinOptions_Pool2DOptions,
            ER_OPTIONS(tflite::CreatePool2DOptions(fbb, padding, stride, stride, filter, filter, act)));
  return s.Build();
}

TEST(Pool2D, AverageSameCountsOnlyCoveredCells) {
  auto interpreter = Pool(tflite::BuiltinOperator_AVERAGE_POOL_2D, {1, 3, 3, 1}, tflite::Padding_SAME, 1, 3);
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // Corner (0,0) covers {1,2,4,5} -> 3; centre covers all -> 5; edge (0,1) covers {1..6} -> 3.5.
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7}));
}

TEST(Pool2D, MaxValidStride2TwoChannels) {
  auto interpreter = Pool(tflite::BuiltinOperator_MAX_POOL_2D, {1, 4, 4, 2}, tflite::Padding_VALID, 2, 2);
  ASSERT_TRUE(interpreter);
  std::vector<float> in(32);
  for (int i = 0; i < 32; ++i) in[i] = (i % 2 == 0) ? static_cast<float>(i) : -static_cast<float>(i);
  SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 2, 2}));
  // Channel 0 holds even positives (max = bottom-right of each window), channel 1 negatives
  // (max = top-left).
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{10, -1, 14, -5, 26, -17, 30, -21}));
}

TEST(Pool2D, MaxWithPaddingNeverPicksPaddingAndRelu) {
  auto interpreter = Pool(tflite::BuiltinOperator_MAX_POOL_2D, {1, 2, 2, 1}, tflite::Padding_SAME, 1, 3,
                          tflite::ActivationFunctionType_RELU);
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-4, -3, -2, -1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 0, 0, 0}));
  auto plain = Pool(tflite::BuiltinOperator_MAX_POOL_2D, {1, 2, 2, 1}, tflite::Padding_SAME, 1, 3);
  SetInput<float>(*plain, 0, {-4, -3, -2, -1});
  ASSERT_TRUE(plain->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*plain, 0), (std::vector<float>{-1, -1, -1, -1}));
}

TEST(Pool2D, RejectsZeroFilter) {
  SingleOp s(tflite::BuiltinOperator_AVERAGE_POOL_2D);
  s.Input(TensorType::kFloat32, {1, 2, 2, 1});
  s.Output(TensorType::kFloat32);
  s.Options(tflite::BuiltinOptions_Pool2DOptions,
            ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 1, 1, 0, 0)));
  EXPECT_FALSE(s.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
