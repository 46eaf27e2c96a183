// MEAN, QUANTIZE, DEQUANTIZE.
#include <gtest/gtest.h>

#include <limits>

#include <cmath>
#include <cstring>

#include "kernels/reference/integer_arithmetic.h"
#include "quant/fixed_point.h"
#include "quant/xnnpack_compat.h"
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

// The vectorized float -> 8-bit loop against quant::xnn::QuantizeFloat, element by element:
// random values, exact ties, values beyond the range, infinities and NaN.
TEST(Quantize, DefaultPathMatchesXnnpackScalarConversion) {
  for (TensorType type : {TensorType::kInt8, TensorType::kUInt8}) {
    const bool s8 = type == TensorType::kInt8;
    QuantizationParams q;
    q.scale = {0.0371f};
    q.zero_point = {s8 ? -7 : 131};
    std::vector<float> values = testing::RandomFloats(997, 5, -6.0f, 6.0f);
    for (int k = -300; k <= 300; ++k) values.push_back((static_cast<float>(k) + 0.5f) * q.scale[0]);  // near ties
    for (float v : {0.0f, -0.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN}) values.push_back(v);
    SingleOp op(tflite::BuiltinOperator_QUANTIZE);
    op.Input(TensorType::kFloat32, {static_cast<int>(values.size())});
    op.Output(type, {}, q);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, values);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const float inverse_scale = 1.0f / q.scale[0];
    const int32_t lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    const auto* out = static_cast<const uint8_t*>(interpreter->output(0)->data);
    for (size_t i = 0; i < values.size(); ++i) {
      const int32_t want = quant::xnn::QuantizeFloat(values[i], inverse_scale, static_cast<int32_t>(q.zero_point[0]), lo, hi);
      const int32_t got = s8 ? static_cast<int8_t>(out[i]) : out[i];
      ASSERT_EQ(got, want) << "value " << values[i];
    }
  }
}

// QUANTIZE from in_type to out_type run on every input byte 0..255; the 256 output bytes.
std::vector<uint8_t> QuantizeEveryByte(TensorType in_type, const QuantizationParams& in_q, TensorType out_type,
                                       const QuantizationParams& out_q) {
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(in_type, {256}, in_q);
  op.Output(out_type, {}, out_q);
  auto interpreter = op.Build();
  if (!interpreter) return {};
  for (int b = 0; b < 256; ++b) static_cast<uint8_t*>(interpreter->input(0)->data)[b] = static_cast<uint8_t>(b);
  EXPECT_TRUE(interpreter->Invoke().ok());
  const auto* out = static_cast<const uint8_t*>(interpreter->output(0)->data);
  return std::vector<uint8_t>(out, out + 256);
}

// 8-bit -> 8-bit QUANTIZE (a rescale) by table lookup against quant::xnn::Requantize, for every
// input byte.
TEST(Quantize, RequantizeTableMatchesXnnpackArithmetic) {
  for (TensorType type : {TensorType::kInt8, TensorType::kUInt8}) {
    const bool s8 = type == TensorType::kInt8;
    QuantizationParams in_q, out_q;
    in_q.scale = {0.0234f};
    in_q.zero_point = {s8 ? 3 : 128};
    out_q.scale = {0.0371f};
    out_q.zero_point = {s8 ? -7 : 131};
    const std::vector<uint8_t> out = QuantizeEveryByte(type, in_q, type, out_q);
    ASSERT_EQ(out.size(), 256u);
    quant::xnn::RequantizeParams p;
    ASSERT_TRUE(quant::xnn::PrepareRequantize(in_q.scale[0], static_cast<int32_t>(in_q.zero_point[0]), out_q.scale[0],
                                              static_cast<int32_t>(out_q.zero_point[0]), &p));
    for (int b = 0; b < 256; ++b) {
      const int32_t x = s8 ? static_cast<int8_t>(b) : b;
      const int32_t want = quant::xnn::Requantize(p, x, s8 ? -128 : 0, s8 ? 127 : 255);
      ASSERT_EQ(s8 ? static_cast<int8_t>(out[b]) : out[b], want) << "input " << x;
    }
  }
}

// uint8 -> int8 and int8 -> uint8 (the fixed-point rescale, also by table) against
// reference::Requantize with the same multiplier, for every input byte.
TEST(Quantize, MixedEightBitRequantizeMatchesFixedPoint) {
  for (bool from_unsigned : {true, false}) {
    const TensorType in_type = from_unsigned ? TensorType::kUInt8 : TensorType::kInt8;
    const TensorType out_type = from_unsigned ? TensorType::kInt8 : TensorType::kUInt8;
    QuantizationParams in_q, out_q;
    in_q.scale = {0.0078125f};
    in_q.zero_point = {from_unsigned ? 128 : 0};
    out_q.scale = {0.0113f};
    out_q.zero_point = {from_unsigned ? -2 : 127};
    const std::vector<uint8_t> out = QuantizeEveryByte(in_type, in_q, out_type, out_q);
    ASSERT_EQ(out.size(), 256u);
    int32_t multiplier = 0;
    int shift = 0;
    ASSERT_TRUE(quant::QuantizeMultiplier(static_cast<double>(in_q.scale[0]) / out_q.scale[0], &multiplier, &shift));
    for (int b = 0; b < 256; ++b) {
      const int32_t x = from_unsigned ? b : static_cast<int8_t>(b);
      const int32_t want = reference::Requantize(x, static_cast<int32_t>(in_q.zero_point[0]), multiplier, shift,
                                                 static_cast<int32_t>(out_q.zero_point[0]), from_unsigned ? -128 : 0,
                                                 from_unsigned ? 127 : 255);
      ASSERT_EQ(from_unsigned ? static_cast<int8_t>(out[b]) : out[b], want) << "input " << x;
    }
  }
}

// The same scale on both sides: each byte is shifted by the zero points' difference (TF2 PTQ's
// uint8 input to int8: b + 128), run as a vector add over a tensor longer than a vector, with a
// clamp where the shift would wrap (it is then a table again).
TEST(Quantize, SameScaleRequantizeShiftsEveryByte) {
  for (int zero_point : {0, 37}) {
    QuantizationParams in_q, out_q;
    in_q.scale = out_q.scale = {0.0117f};
    in_q.zero_point = {zero_point};
    out_q.zero_point = {zero_point - 128};
    SingleOp op(tflite::BuiltinOperator_QUANTIZE);
    op.Input(TensorType::kUInt8, {3, 1001}, in_q);
    op.Output(TensorType::kInt8, {}, out_q);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    auto* in = static_cast<uint8_t*>(interpreter->input(0)->data);
    for (int i = 0; i < 3003; ++i) in[i] = static_cast<uint8_t>(i * 7 + 3);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const auto* out = interpreter->output(0)->data_as<int8_t>();
    for (int i = 0; i < 3003; ++i) ASSERT_EQ(out[i], static_cast<int>(in[i]) - 128) << "element " << i;
  }
  // Zero points 100 apart: the values above 27 clamp at 127.
  QuantizationParams in_q, out_q;
  in_q.scale = out_q.scale = {0.0117f};
  in_q.zero_point = {0};
  out_q.zero_point = {100};
  const std::vector<uint8_t> out = QuantizeEveryByte(TensorType::kUInt8, in_q, TensorType::kInt8, out_q);
  ASSERT_EQ(out.size(), 256u);
  for (int b = 0; b < 256; ++b) ASSERT_EQ(static_cast<int8_t>(out[b]), std::min(b + 100, 127)) << "input " << b;
}

// Tensors of many blocks, split over 1 to 3 threads: the float conversion, the byte shift and
// the table give each element what the one-element arithmetic gives.
TEST(Quantize, LargeTensorsOnSeveralThreadsConvertEveryElement) {
  QuantizationParams q;
  q.scale = {0.0371f};
  q.zero_point = {-7};
  const std::vector<float> values = testing::RandomFloats(50021, 9, -6.0f, 6.0f);
  QuantizationParams shift_in, shift_out, table_in, table_out;
  shift_in.scale = shift_out.scale = {0.0117f};
  shift_in.zero_point = {0};
  shift_out.zero_point = {-128};
  table_in.scale = {0.0234f};
  table_in.zero_point = {3};
  table_out.scale = {0.0371f};
  table_out.zero_point = {-7};
  // The table's bytes from XNNPACK's arithmetic, one byte at a time.
  quant::xnn::RequantizeParams rp;
  ASSERT_TRUE(quant::xnn::PrepareRequantize(table_in.scale[0], 3, table_out.scale[0], -7, &rp));
  uint8_t table[256];
  for (int b = 0; b < 256; ++b) table[b] = static_cast<uint8_t>(quant::xnn::Requantize(rp, static_cast<int8_t>(b), -128, 127));
  const int bytes = 224 * 224 * 3;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(StrCat(threads, " threads"));
    InterpreterOptions options;
    options.num_threads = threads;
    {
      SingleOp op(tflite::BuiltinOperator_QUANTIZE);
      op.Input(TensorType::kFloat32, {static_cast<int>(values.size())});
      op.Output(TensorType::kInt8, {}, q);
      auto interpreter = op.Build(options);
      ASSERT_TRUE(interpreter);
      SetInput<float>(*interpreter, 0, values);
      ASSERT_TRUE(interpreter->Invoke().ok());
      const auto* out = interpreter->output(0)->data_as<int8_t>();
      for (size_t i = 0; i < values.size(); ++i) {
        ASSERT_EQ(out[i], quant::xnn::QuantizeFloat(values[i], 1.0f / q.scale[0], -7, -128, 127)) << "element " << i;
      }
    }
    for (bool shift : {true, false}) {
      SingleOp op(tflite::BuiltinOperator_QUANTIZE);
      op.Input(shift ? TensorType::kUInt8 : TensorType::kInt8, {1, 224, 224, 3}, shift ? shift_in : table_in);
      op.Output(TensorType::kInt8, {}, shift ? shift_out : table_out);
      auto interpreter = op.Build(options);
      ASSERT_TRUE(interpreter);
      auto* in = static_cast<uint8_t*>(interpreter->input(0)->data);
      for (int i = 0; i < bytes; ++i) in[i] = static_cast<uint8_t>(i * 7 + i / 251);
      ASSERT_TRUE(interpreter->Invoke().ok());
      const auto* out = static_cast<const uint8_t*>(interpreter->output(0)->data);
      for (int i = 0; i < bytes; ++i) {
        ASSERT_EQ(out[i], shift ? static_cast<uint8_t>(in[i] - 128) : table[in[i]]) << "element " << i;
      }
    }
  }
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

// Per-tensor int8 / uint8 / int16 run as float products; TFLite's reference multiplies in double
// and rounds to float. Every int8 and uint8 value and a sweep of int16 ones, scales from tiny to
// huge (products that overflow to inf and underflow to subnormals), zero points across the
// range: the same bits as the double formula. (The loader refuses zero points outside the
// type's range; the kernel keeps the double product for any it would not cover.)
template <class T>
void CheckDequantizeMatchesDouble(TensorType type, float scale, int64_t zero_point, int step) {
  std::vector<T> values;
  for (int64_t v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); v += step) {
    values.push_back(static_cast<T>(v));
  }
  SingleOp op(tflite::BuiltinOperator_DEQUANTIZE);
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  op.Input(type, {static_cast<int32_t>(values.size())}, q);
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, values);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<float>(*interpreter, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const float want = static_cast<float>(static_cast<double>(scale) * static_cast<double>(values[i] - zero_point));
    ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(float)), 0)
        << "value " << int64_t{values[i]} << " scale " << scale << " zero point " << zero_point << ": got " << got[i]
        << " want " << want;
  }
}

TEST(Dequantize, PerTensorFloatProductEqualsDoubleProduct) {
  for (float scale : {0.0078125f, 0.0123457f, 3.1e-3f, 1.7e-38f, 1e-44f, 3.0e36f, 1.0f}) {
    CheckDequantizeMatchesDouble<int8_t>(TensorType::kInt8, scale, -7, 1);
    CheckDequantizeMatchesDouble<uint8_t>(TensorType::kUInt8, scale, 131, 1);
    CheckDequantizeMatchesDouble<int16_t>(TensorType::kInt16, scale, 0, 7);
    CheckDequantizeMatchesDouble<int16_t>(TensorType::kInt16, scale, -32768, 131);
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
