// MEAN, QUANTIZE, DEQUANTIZE.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

TEST(Mean, AxesKeepDimsAndNegativeAxis) {
  for (bool keep : {false, true}) {
    SingleOp op(tflite::BuiltinOperator_MEAN);
    op.Input(TensorType::kFloat32, {2, 2, 3});
    op.Const<int32_t>(TensorType::kInt32, {2}, {0, -1});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_ReducerOptions, ER_OPTIONS(tflite::CreateReducerOptions(fbb, keep)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, keep ? (Shape{1, 2, 1}) : (Shape{2}));
    // Row j of dim 1 averages {j*3 .. j*3+2} and {6+j*3 .. 6+j*3+2}.
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{4, 7}));
  }
}

TEST(Mean, RuntimeAxesGiveDynamicOutput) {
  SingleOp op(tflite::BuiltinOperator_MEAN);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Input(TensorType::kInt32, {1});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
  SetInput<int32_t>(*interpreter, 1, {1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{2, 5}));
  SetInput<int32_t>(*interpreter, 1, {0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{2.5f, 3.5f, 4.5f}));
}

// TFLite's reference kernel rounds ties away from zero; XNNPACK (LiteRT's default path) to even.
std::vector<int8_t> QuantizeTies(InterpreterOptions options) {
  QuantizationParams q;
  q.scale = {0.5f};
  q.zero_point = {10};
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(TensorType::kFloat32, {9});
  op.Output(TensorType::kInt8, {}, q);
  auto interpreter = op.Build(options);
  if (!interpreter) return {};
  SetInput<float>(*interpreter, 0, {0.0f, 0.25f, -0.25f, 0.75f, 1.25f, -0.75f, 1000.0f, -1000.0f, NAN});
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<int8_t>(*interpreter, 0);
}

TEST(Quantize, RoundsHalfAwayFromZeroAndSaturatesWithTfliteArithmetic) {
  // x/0.5 = 0, 0.5, -0.5, 1.5, 2.5, -1.5 -> 0, 1, -1, 2, 3, -2 (ties away from zero), then + 10.
  EXPECT_EQ(QuantizeTies(testing::TfliteReferenceArithmetic()), (std::vector<int8_t>{10, 11, 9, 12, 13, 8, 127, -128, -128}));
}

TEST(Quantize, RoundsHalfToEvenAndSaturatesByDefault) {
  // 0.5, -0.5, 1.5, 2.5, -1.5 -> 0, 0, 2, 2, -2 (ties to even), then + 10; NaN gives the minimum.
  EXPECT_EQ(QuantizeTies({}), (std::vector<int8_t>{10, 10, 10, 12, 12, 8, 127, -128, -128}));
}

TEST(Quantize, Uint8AndInt16) {
  QuantizationParams q8;
  q8.scale = {1.0f / 255};
  q8.zero_point = {0};
  QuantizationParams q16;
  q16.scale = {1.0f / 32768};
  q16.zero_point = {0};
  for (auto [type, q] : {std::pair{TensorType::kUInt8, q8}, std::pair{TensorType::kInt16, q16}}) {
    SingleOp op(tflite::BuiltinOperator_QUANTIZE);
    op.Input(TensorType::kFloat32, {3});
    op.Output(type, {}, q);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {-1.0f, type == TensorType::kUInt8 ? 0.2f : 0.5f, 1.0f});
    ASSERT_TRUE(interpreter->Invoke().ok());
    if (type == TensorType::kUInt8) {
      EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{0, 51, 255}));
    } else {
      EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{-32768, 16384, 32767}));
    }
  }
}

TEST(Dequantize, PerTensorPerChannelAndFloat16) {
  {
    QuantizationParams q;
    q.scale = {0.25f};
    q.zero_point = {-2};
    SingleOp op(tflite::BuiltinOperator_DEQUANTIZE);
    op.Input(TensorType::kInt8, {3}, q);
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int8_t>(*interpreter, 0, {-2, 2, 127});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 1, 32.25f}));
  }
  {
    QuantizationParams q;
    q.scale = {1.0f, 0.5f};
    q.zero_point = {0, 1};
    q.quantized_dimension = 1;
    SingleOp op(tflite::BuiltinOperator_DEQUANTIZE);
    op.Const<int8_t>(TensorType::kInt8, {2, 2}, {4, 4, -4, -4}, q);
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{4, 1.5f, -4, -2.5f}));
  }
  {
    // float16 bit patterns: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 65504 = 0x7bff.
    SingleOp op(tflite::BuiltinOperator_DEQUANTIZE);
    op.Const<uint16_t>(TensorType::kFloat16, {4}, {0x3c00, 0xc000, 0x3800, 0x7bff});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, -2, 0.5f, 65504}));
  }
}

}  // namespace
}  // namespace edgerun
