// Quantized AVERAGE_POOL_2D and MAX_POOL_2D (uint8, int8, int16), and L2_POOL_2D.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

QuantizationParams Q(float scale, int64_t zero_point) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

template <class T>
std::vector<T> RunPool(tflite::BuiltinOperator op, TensorType type, Shape in_shape, const std::vector<T>& in,
                       tflite::Padding padding, int stride, int filter_h, int filter_w, QuantizationParams q = {},
                       tflite::ActivationFunctionType act = tflite::ActivationFunctionType_NONE) {
  SingleOp s(op);
  s.Input(type, in_shape, q);
  s.Output(type, {}, q);
  s.Options(tflite::BuiltinOptions_Pool2DOptions, ER_OPTIONS(tflite::CreatePool2DOptions(
                                                      fbb, padding, stride, stride, filter_w, filter_h, act)));
  auto interpreter = s.Build();  // builds (and runs the option writer) while the captures live
  if (!interpreter) return {};
  SetInput(*interpreter, 0, in);
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<T>(*interpreter, 0);
}

TEST(QuantizedAveragePool, RoundsHalfAwayFromZero) {
  // 1x2 windows over pairs: sums 3 (-> 1.5 -> 2), 4 (-> 2), -3 (-> -1.5 -> -2), -1 (-> -0.5 -> -1).
  const std::vector<int8_t> i8 = {1, 2, 1, 3, -1, -2, 0, -1};
  EXPECT_EQ(RunPool<int8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kInt8, {1, 1, 8, 1}, i8,
                            tflite::Padding_VALID, 2, 1, 2, Q(0.1f, 0)),
            (std::vector<int8_t>{2, 2, -2, -1}));
  const std::vector<int16_t> i16 = {1, 2, 1, 3, -1, -2, 0, -1};
  EXPECT_EQ(RunPool<int16_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kInt16, {1, 1, 8, 1}, i16,
                             tflite::Padding_VALID, 2, 1, 2, Q(0.1f, 0)),
            (std::vector<int16_t>{2, 2, -2, -1}));
  // uint8 averages the stored values down the columns of a 2x3 image:
  // (255 + 0) / 2 = 127.5 -> 128, (3 + 4) / 2 = 3.5 -> 4, (4 + 9) / 2 = 6.5 -> 7.
  const std::vector<uint8_t> u8 = {255, 3, 4, 0, 4, 9};
  EXPECT_EQ(RunPool<uint8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kUInt8, {1, 2, 3, 1}, u8,
                             tflite::Padding_VALID, 1, 2, 1, Q(0.1f, 128)),
            (std::vector<uint8_t>{128, 4, 7}));
}

TEST(QuantizedAveragePool, SamePaddingCountsCoveredCellsOnly) {
  // 3x3 window, stride 1, over a 3x3 image: the corner averages 4 cells, the centre all 9.
  const std::vector<uint8_t> in = {10, 20, 30, 40, 50, 60, 70, 80, 91};
  const auto out = RunPool<uint8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kUInt8, {1, 3, 3, 1}, in,
                                    tflite::Padding_SAME, 1, 3, 3, Q(0.5f, 0));
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(out[0], 30);   // (10 + 20 + 40 + 50) / 4
  EXPECT_EQ(out[4], 50);   // 451 / 9 = 50.1
  EXPECT_EQ(out[8], 70);   // (50 + 60 + 80 + 91) / 4 = 70.25
  EXPECT_EQ(out[1], 35);   // (10 + 20 + 30 + 40 + 50 + 60) / 6
}

TEST(QuantizedAveragePool, GlobalPoolOfRealModels) {
  // MobileNet's 7x7 global average over 1280 channels (uint8, zero point 0) and ResNet's 8x8 (int8).
  std::vector<uint8_t> u8(49 * 3);
  std::vector<int8_t> i8(64 * 2);
  for (size_t i = 0; i < u8.size(); ++i) u8[i] = static_cast<uint8_t>((i * 31) % 256);
  for (size_t i = 0; i < i8.size(); ++i) i8[i] = static_cast<int8_t>((i * 29) % 256 - 128);
  const auto out_u8 = RunPool<uint8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kUInt8, {1, 7, 7, 3}, u8,
                                       tflite::Padding_VALID, 1, 7, 7, Q(0.0235284772f, 0));
  const auto out_i8 = RunPool<int8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kInt8, {1, 8, 8, 2}, i8,
                                      tflite::Padding_VALID, 8, 8, 8, Q(0.127069145f, -128));
  ASSERT_EQ(out_u8.size(), 3u);
  ASSERT_EQ(out_i8.size(), 2u);
  for (int c = 0; c < 3; ++c) {
    double sum = 0;
    for (int i = 0; i < 49; ++i) sum += u8[i * 3 + c];
    EXPECT_EQ(out_u8[c], static_cast<uint8_t>(std::round(sum / 49))) << c;
  }
  for (int c = 0; c < 2; ++c) {
    double sum = 0;
    for (int i = 0; i < 64; ++i) sum += i8[i * 2 + c];
    EXPECT_EQ(out_i8[c], static_cast<int8_t>(std::round(sum / 64))) << c;
  }
}

TEST(QuantizedPool, FusedActivationClampsInQuantizedUnits) {
  // Scale 0.1, zero point -100: RELU6 keeps [0, 6] = stored [-100, -40].
  const std::vector<int8_t> in = {-128, -110, 0, 20, -60, -50, -101, -99};
  EXPECT_EQ(RunPool<int8_t>(tflite::BuiltinOperator_MAX_POOL_2D, TensorType::kInt8, {1, 1, 8, 1}, in,
                            tflite::Padding_VALID, 2, 1, 2, Q(0.1f, -100), tflite::ActivationFunctionType_RELU6),
            (std::vector<int8_t>{-100, -40, -50, -99}));
  EXPECT_EQ(RunPool<int8_t>(tflite::BuiltinOperator_AVERAGE_POOL_2D, TensorType::kInt8, {1, 1, 8, 1}, in,
                            tflite::Padding_VALID, 2, 1, 2, Q(0.1f, -100), tflite::ActivationFunctionType_RELU6),
            (std::vector<int8_t>{-100, -40, -55, -100}));
}

TEST(QuantizedMaxPool, AllTypes) {
  const std::vector<uint8_t> u8 = {0, 255, 7, 3};
  EXPECT_EQ(RunPool<uint8_t>(tflite::BuiltinOperator_MAX_POOL_2D, TensorType::kUInt8, {1, 2, 2, 1}, u8,
                             tflite::Padding_SAME, 1, 2, 2, Q(1, 0)),
            (std::vector<uint8_t>{255, 255, 7, 3}));
  const std::vector<int16_t> i16 = {-32768, -5, -7, -32000};
  EXPECT_EQ(RunPool<int16_t>(tflite::BuiltinOperator_MAX_POOL_2D, TensorType::kInt16, {1, 2, 2, 1}, i16,
                             tflite::Padding_VALID, 1, 2, 2, Q(1, 0)),
            (std::vector<int16_t>{-5}));
  // RELU_N1_TO_1 on int16 with scale 1/1000: clamp to [-1000, 1000].
  const std::vector<int16_t> wide = {-5000, 3000};
  EXPECT_EQ(RunPool<int16_t>(tflite::BuiltinOperator_MAX_POOL_2D, TensorType::kInt16, {1, 1, 2, 1}, wide,
                             tflite::Padding_VALID, 1, 1, 1, Q(0.001f, 0),
                             tflite::ActivationFunctionType_RELU_N1_TO_1),
            (std::vector<int16_t>{-1000, 1000}));
}

TEST(L2Pool, FloatRootMeanSquareOverCoveredCells) {
  const std::vector<float> in = {3, 4, 0, 12, 5, 1, 1, 1, 1};
  const auto out = RunPool<float>(tflite::BuiltinOperator_L2_POOL_2D, TensorType::kFloat32, {1, 3, 3, 1}, in,
                                  tflite::Padding_SAME, 2, 2, 2);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_NEAR(out[0], std::sqrt((9 + 16 + 144 + 25) / 4.0), 1e-5);
  EXPECT_NEAR(out[1], std::sqrt((0 + 1) / 2.0), 1e-5);  // clipped at the right border
  EXPECT_NEAR(out[2], std::sqrt((1 + 1) / 2.0), 1e-5);
  EXPECT_NEAR(out[3], 1.0, 1e-6);
}

TEST(QuantizedPool, L2PoolIsFloatOnlyAndTypesMustMatch) {
  SingleOp l2(tflite::BuiltinOperator_L2_POOL_2D);
  l2.Input(TensorType::kInt8, {1, 2, 2, 1}, Q(0.1f, 0));
  l2.Output(TensorType::kInt8, {}, Q(0.1f, 0));
  l2.Options(tflite::BuiltinOptions_Pool2DOptions,
             ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 1, 1, 2, 2)));
  EXPECT_TRUE(l2.TryBuild().unsupported());
  SingleOp mixed(tflite::BuiltinOperator_AVERAGE_POOL_2D);
  mixed.Input(TensorType::kInt8, {1, 2, 2, 1}, Q(0.1f, 0));
  mixed.Output(TensorType::kUInt8, {}, Q(0.1f, 0));
  mixed.Options(tflite::BuiltinOptions_Pool2DOptions,
                ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 1, 1, 2, 2)));
  EXPECT_FALSE(mixed.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
