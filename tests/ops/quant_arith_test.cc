// Quantized ADD, SUB, MUL, DIV, QUANTIZE (requantization) and CONCATENATION. Expected values are
// either worked out by hand (cases where the exact result is unambiguous) or the real-number
// result of the operation, quantized in the test, with at most one step of difference for the
// fixed-point rounding of TFLite's kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/quant_test_util.h"
#include "quant/arith_helpers.h"
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

// round(real / scale) + zero_point clamped to [lo, hi]: quantization from the definition.
int32_t Quantize(double real, const QuantizationParams& q, int32_t lo, int32_t hi) {
  const double v = std::round(real / q.scale[0]) + static_cast<double>(q.zero_point[0]);
  return static_cast<int32_t>(std::clamp<double>(v, lo, hi));
}
double Dequantize(int32_t v, const QuantizationParams& q) { return q.scale[0] * (v - q.zero_point[0]); }

ModelBuilder::OptionsWriter AddOptions(tflite::ActivationFunctionType act, bool pot_scale_int16) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateAddOptions(fbb, act, pot_scale_int16).Union(); };
}
ModelBuilder::OptionsWriter SubOptions(tflite::ActivationFunctionType act, bool pot_scale_int16) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSubOptions(fbb, act, pot_scale_int16).Union(); };
}

// Every pair of values in [lo, hi] with the given step, as two flat vectors.
template <class T>
void AllPairs(int32_t lo, int32_t hi, int32_t step, std::vector<T>* a, std::vector<T>* b) {
  for (int32_t x = lo; x <= hi; x += step) {
    for (int32_t y = lo; y <= hi; y += step) {
      a->push_back(static_cast<T>(x));
      b->push_back(static_cast<T>(y));
    }
  }
}

// Runs a binary op on same-shaped inputs and compares with `real(a, b)` quantized to the output,
// allowing `tolerance` steps.
template <class T, class OutT = T>
void CheckBinaryAgainstReal(tflite::BuiltinOperator code, TensorType type, TensorType out_type,
                            const QuantizationParams& qa, const QuantizationParams& qb,
                            const QuantizationParams& qo, tflite::BuiltinOptions options_type,
                            ModelBuilder::OptionsWriter options, double (*real)(double, double), int32_t step,
                            int tolerance = 1) {
  std::vector<T> a, b;
  AllPairs<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), step, &a, &b);
  SingleOp op(code);
  op.Input(type, {static_cast<int32_t>(a.size())}, qa);
  op.Input(type, {static_cast<int32_t>(b.size())}, qb);
  op.Output(out_type, {}, qo);
  if (options) op.Options(options_type, options);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter) << tflite::EnumNameBuiltinOperator(code);
  SetInput(*interpreter, 0, a);
  SetInput(*interpreter, 1, b);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<OutT>(*interpreter, 0);
  const int32_t lo = std::numeric_limits<OutT>::min(), hi = std::numeric_limits<OutT>::max();
  for (size_t i = 0; i < a.size(); ++i) {
    const int32_t want = Quantize(real(Dequantize(a[i], qa), Dequantize(b[i], qb)), qo, lo, hi);
    ASSERT_LE(std::abs(int32_t{got[i]} - want), tolerance)
        << tflite::EnumNameBuiltinOperator(code) << " a=" << int32_t{a[i]} << " b=" << int32_t{b[i]}
        << " got " << int32_t{got[i]} << " want " << want;
  }
}

double RealAdd(double a, double b) { return a + b; }
double RealSub(double a, double b) { return a - b; }
double RealMul(double a, double b) { return a * b; }

TEST(QuantizedAdd, Int8AndUint8MatchRealSum) {
  CheckBinaryAgainstReal<int8_t>(tflite::BuiltinOperator_ADD, TensorType::kInt8, TensorType::kInt8, Q(0.05f, -3),
                                 Q(0.02f, 7), Q(0.06f, 1), tflite::BuiltinOptions_NONE, nullptr, RealAdd, 3);
  CheckBinaryAgainstReal<uint8_t>(tflite::BuiltinOperator_ADD, TensorType::kUInt8, TensorType::kUInt8, Q(0.1f, 128),
                                  Q(0.03f, 100), Q(0.1f, 120), tflite::BuiltinOptions_NONE, nullptr, RealAdd, 3);
}

TEST(QuantizedAdd, HandComputedInt8) {
  // Scales 0.5, 0.5 -> 1.0: (a + b) / 2 is exact or a tie only for odd sums; these are even.
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kInt8, {4}, Q(0.5f, 0));
  op.Input(TensorType::kInt8, {4}, Q(0.5f, 0));
  op.Output(TensorType::kInt8, {}, Q(1.0f, -10));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {0, 10, -20, 127});
  SetInput<int8_t>(*interpreter, 1, {0, 4, -100, 127});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // 0 -> -10; 7 - 10 = -3; -60 - 10 = -70; 127 - 10 = 117.
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{-10, -3, -70, 117}));
}

TEST(QuantizedAdd, BroadcastingAndActivations) {
  struct Act {
    tflite::ActivationFunctionType act;
    float lo, hi;
  };
  const QuantizationParams qa = Q(0.1f, 5), qb = Q(0.1f, -5), qo = Q(0.05f, 0);
  for (const Act& act : {Act{tflite::ActivationFunctionType_NONE, -1e9f, 1e9f},
                         Act{tflite::ActivationFunctionType_RELU, 0, 1e9f},
                         Act{tflite::ActivationFunctionType_RELU6, 0, 6},
                         Act{tflite::ActivationFunctionType_RELU_N1_TO_1, -1, 1}}) {
    // [2, 1, 3] + [] (rank 0) and [2, 1, 3] + [4, 1] -> [2, 4, 3].
    for (const Shape& b_shape : {Shape{}, Shape{4, 1}}) {
      SingleOp op(tflite::BuiltinOperator_ADD);
      op.Input(TensorType::kInt8, {2, 1, 3}, qa);
      op.Input(TensorType::kInt8, b_shape, qb);
      op.Output(TensorType::kInt8, {}, qo);
      op.Options(tflite::BuiltinOptions_AddOptions, AddOptions(act.act, false));
      auto interpreter = op.Build();
      ASSERT_TRUE(interpreter);
      const std::vector<int8_t> a = {-100, -30, 0, 5, 40, 127};
      std::vector<int8_t> b;
      for (int i = 0; i < NumElements(b_shape); ++i) b.push_back(static_cast<int8_t>(-20 + 17 * i));
      SetInput(*interpreter, 0, a);
      SetInput(*interpreter, 1, b);
      ASSERT_TRUE(interpreter->Invoke().ok());
      const Shape out_shape = b_shape.empty() ? Shape{2, 1, 3} : Shape{2, 4, 3};
      ASSERT_EQ(interpreter->output(0)->shape, out_shape);
      const auto got = GetOutput<int8_t>(*interpreter, 0);
      for (int64_t i = 0; i < NumElements(out_shape); ++i) {
        const int64_t ia = b_shape.empty() ? i : (i / 12) * 3 + i % 3;
        const int64_t ib = b_shape.empty() ? 0 : (i / 3) % 4;
        const double real = std::clamp<double>(Dequantize(a[ia], qa) + Dequantize(b[ib], qb), act.lo, act.hi);
        const int32_t want = Quantize(real, qo, -128, 127);
        EXPECT_LE(std::abs(got[i] - want), 1) << "element " << i;
      }
    }
  }
}

TEST(QuantizedAdd, Int16GeneralScalesMatchRealSum) {
  CheckBinaryAgainstReal<int16_t>(tflite::BuiltinOperator_ADD, TensorType::kInt16, TensorType::kInt16,
                                  Q(0.0005852f, 0), Q(0.0008069f, 0), Q(0.0010244f, 0),
                                  tflite::BuiltinOptions_AddOptions,
                                  AddOptions(tflite::ActivationFunctionType_NONE, false), RealAdd, 997);
}

TEST(QuantizedAdd, Int16PowerOfTwoScalesShiftOneInput) {
  // a on 2^-10 (the output's scale), b on 2^-12: out = a + round(b / 4), ties away from zero,
  // saturating at the int16 range.
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kInt16, {6}, Q(1.0f / 1024, 0));
  op.Input(TensorType::kInt16, {6}, Q(1.0f / 4096, 0));
  op.Output(TensorType::kInt16, {}, Q(1.0f / 1024, 0));
  op.Options(tflite::BuiltinOptions_AddOptions, AddOptions(tflite::ActivationFunctionType_NONE, true));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {0, 0, 0, 100, 32000, -32000});
  SetInput<int16_t>(*interpreter, 1, {2, -2, 5, -400, 32767, -32768});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{1, -1, 1, 0, 32767, -32768}));
}

TEST(QuantizedSub, MatchesRealDifference) {
  CheckBinaryAgainstReal<int8_t>(tflite::BuiltinOperator_SUB, TensorType::kInt8, TensorType::kInt8, Q(0.05f, -3),
                                 Q(0.02f, 7), Q(0.06f, 1), tflite::BuiltinOptions_NONE, nullptr, RealSub, 3);
  CheckBinaryAgainstReal<uint8_t>(tflite::BuiltinOperator_SUB, TensorType::kUInt8, TensorType::kUInt8, Q(0.1f, 128),
                                  Q(0.03f, 100), Q(0.1f, 120), tflite::BuiltinOptions_NONE, nullptr, RealSub, 3);
  CheckBinaryAgainstReal<int16_t>(tflite::BuiltinOperator_SUB, TensorType::kInt16, TensorType::kInt16,
                                  Q(0.00096937f, 0), Q(0.0000087f, 0), Q(0.00059415f, 0),
                                  tflite::BuiltinOptions_SubOptions,
                                  SubOptions(tflite::ActivationFunctionType_NONE, false), RealSub, 997);
}

TEST(QuantizedSub, Int16PowerOfTwoAndBroadcastBias) {
  // out = round(a / 2) - b with a on 2^-9 and b, out on 2^-8; b broadcasts along the last axis.
  SingleOp op(tflite::BuiltinOperator_SUB);
  op.Input(TensorType::kInt16, {2, 2}, Q(1.0f / 512, 0));
  op.Input(TensorType::kInt16, {2}, Q(1.0f / 256, 0));
  op.Output(TensorType::kInt16, {}, Q(1.0f / 256, 0));
  op.Options(tflite::BuiltinOptions_SubOptions, SubOptions(tflite::ActivationFunctionType_RELU, true));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {3, -3, 100, 7});
  SetInput<int16_t>(*interpreter, 1, {1, -10});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // round(1.5) - 1 = 1; round(-1.5) + 10 = 8; 50 - 1 = 49; round(3.5) + 10 = 14; RELU keeps >= 0.
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{1, 8, 49, 14}));
}

TEST(QuantizedMul, MatchesRealProduct) {
  CheckBinaryAgainstReal<int8_t>(tflite::BuiltinOperator_MUL, TensorType::kInt8, TensorType::kInt8, Q(0.05f, -3),
                                 Q(0.02f, 7), Q(0.01f, 1), tflite::BuiltinOptions_NONE, nullptr, RealMul, 3);
  CheckBinaryAgainstReal<uint8_t>(tflite::BuiltinOperator_MUL, TensorType::kUInt8, TensorType::kUInt8, Q(0.1f, 128),
                                  Q(0.03f, 100), Q(0.1f, 120), tflite::BuiltinOptions_NONE, nullptr, RealMul, 3);
  CheckBinaryAgainstReal<int16_t>(tflite::BuiltinOperator_MUL, TensorType::kInt16, TensorType::kInt16,
                                  Q(1.0f / 3000, 0), Q(1.0f / 5000, 0), Q(1.0f / 2000, 0),
                                  tflite::BuiltinOptions_NONE, nullptr, RealMul, 997);
}

TEST(QuantizedMul, HandComputedWithRelu6AndBroadcast) {
  SingleOp op(tflite::BuiltinOperator_MUL);
  op.Input(TensorType::kUInt8, {4}, Q(0.5f, 10));
  op.Const<uint8_t>(TensorType::kUInt8, {}, {14}, Q(0.25f, 10));  // the scalar 1.0
  op.Output(TensorType::kUInt8, {}, Q(0.125f, 0));
  op.Options(tflite::BuiltinOptions_MulOptions,
             ER_OPTIONS(tflite::CreateMulOptions(fbb, tflite::ActivationFunctionType_RELU6)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {10, 14, 0, 40});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // a = 0, 2, -5, 15 times 1.0 -> 0, 16, clamped to 0 (RELU6), clamped to 6 / 0.125 = 48.
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{0, 16, 0, 48}));
}

TEST(QuantizedMul, Int16InputsToInt8Output) {
  // Q0.15 product divided by 2^8 (both roundings to nearest), offset by the output zero point.
  SingleOp op(tflite::BuiltinOperator_MUL);
  op.Input(TensorType::kInt16, {5}, Q(1.0f / 32768, 0));
  op.Input(TensorType::kInt16, {5}, Q(1.0f / 32768, 0));
  op.Output(TensorType::kInt8, {}, Q(1.0f / 128, 3));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {16384, -16384, 32767, -32768, 100});
  SetInput<int16_t>(*interpreter, 1, {16384, 16384, 32767, -32768, 100});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // 0.25 -> 8192 / 256 = 32 (+3); -0.25 -> -32 (+3); ~1 -> 32766 / 256 = 127.99 -> 128, +3 clamps
  // to 127; -1 * -1 saturates to 32767 -> 128 -> 127; 10000 / 32768 -> 0.3 -> 0 (+3).
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{35, -29, 127, 127, 3}));
}

TEST(QuantizedMul, Int16WithZeroPointIsUnsupported) {
  SingleOp op(tflite::BuiltinOperator_MUL);
  op.Input(TensorType::kInt16, {2}, Q(0.01f, 5));
  op.Input(TensorType::kInt16, {2}, Q(0.01f, 0));
  op.Output(TensorType::kInt16, {}, Q(0.01f, 0));
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.message();
}

// int16 ADD / SUB / MUL on the vector kernel (optimized::BinaryI16Fn): operands of the output's
// shape, or one of them a row of the output's trailing dims, either side (SUB's order matters).
// An outer-product broadcast ([rows, 1] with [1, cols]) of the same values runs the scalar
// reference arithmetic. All must agree for random values, a row length that is not a multiple
// of 16, an output past one 8 K block of rows, several scales and a fused RELU.
TEST(QuantizedBinary, Int16VectorKernelMatchesScalarReference) {
  const int rows = 400, cols = 23;
  const auto column = testing::RandomInts<int16_t>(rows, 11, -32768, 32767);
  const auto row = testing::RandomInts<int16_t>(cols, 12, -32768, 32767);
  std::vector<int16_t> column_full, row_full;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      column_full.push_back(column[i]);
      row_full.push_back(row[j]);
    }
  struct Scales {
    float a, b, out;
  };
  const Scales scales[] = {{0.0005852f, 0.0008069f, 0.0010244f}, {0.00013441f, 0.00013866f, 0.00038257f},
                           {0.003f, 0.0001f, 0.002f}, {1.0f / 32768, 1.0f / 32768, 1.0f / 16384}};
  const std::pair<tflite::BuiltinOperator, tflite::BuiltinOptions> ops[] = {
      {tflite::BuiltinOperator_ADD, tflite::BuiltinOptions_AddOptions},
      {tflite::BuiltinOperator_SUB, tflite::BuiltinOptions_SubOptions},
      {tflite::BuiltinOperator_MUL, tflite::BuiltinOptions_MulOptions}};
  const Shape full{rows, cols};
  for (const auto& op_and_options : ops)
    for (const Scales& sc : scales)
      for (auto act : {tflite::ActivationFunctionType_NONE, tflite::ActivationFunctionType_RELU}) {
        // Plain names, not a structured binding: clang before 16 cannot capture those in a lambda.
        const tflite::BuiltinOperator code = op_and_options.first;
        const tflite::BuiltinOptions options_type = op_and_options.second;
        auto run = [&](const Shape& a_shape, const std::vector<int16_t>& a, const Shape& b_shape,
                       const std::vector<int16_t>& b) {
          SingleOp op(code);
          op.Input(TensorType::kInt16, a_shape, Q(sc.a, 0));
          op.Input(TensorType::kInt16, b_shape, Q(sc.b, 0));
          op.Output(TensorType::kInt16, {}, Q(sc.out, 0));
          if (code == tflite::BuiltinOperator_ADD) {
            op.Options(options_type, AddOptions(act, false));
          } else if (code == tflite::BuiltinOperator_SUB) {
            op.Options(options_type, SubOptions(act, false));
          } else {
            op.Options(options_type, [=](flatbuffers::FlatBufferBuilder& fbb) {
              return tflite::CreateMulOptions(fbb, act).Union();
            });
          }
          auto interpreter = op.Build();
          EXPECT_TRUE(interpreter);
          if (!interpreter) return std::vector<int16_t>{};
          SetInput(*interpreter, 0, a);
          SetInput(*interpreter, 1, b);
          EXPECT_TRUE(interpreter->Invoke().ok());
          return GetOutput<int16_t>(*interpreter, 0);
        };
        const std::string what = std::string(tflite::EnumNameBuiltinOperator(code)) + " scales " +
                                 std::to_string(sc.a) + " " + std::to_string(sc.b) + " " + std::to_string(sc.out);
        // column op row
        const auto scalar = run({rows, 1}, column, {1, cols}, row);
        ASSERT_EQ(scalar.size(), static_cast<size_t>(rows * cols));
        EXPECT_EQ(run(full, column_full, full, row_full), scalar) << what << " same shape";
        EXPECT_EQ(run(full, column_full, {cols}, row), scalar) << what << " second operand a row";
        // row op column
        const auto scalar_swapped = run({1, cols}, row, {rows, 1}, column);
        EXPECT_EQ(run({1, 1, cols}, row, full, column_full), scalar_swapped) << what << " first operand a row";
      }
}

// 8-bit ADD / SUB with TFLite's general scales: outputs of 256 elements or more run on tables of
// each input's rescaled values (EvalQuantized8BitAddSubByInputTables), smaller ones element by
// element on reference::QuantizedAddSub. Every pair of stored values through both, bit for bit.
template <class T>
void CheckAddSubTablesAgainstScalar(TensorType type) {
  std::vector<T> a, b;
  AllPairs<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), 1, &a, &b);  // 65536 pairs, a-major
  struct Scales {
    float a, b, out;
    int64_t za, zb, zo;
  };
  const Scales scales[] = {{0.0235294f, 0.0235294f, 0.0470588f, -128, -128, -128},  // the traffic SSD's LSTM state
                           {0.02f, 0.5f, 0.3f, 3, -7, 11},
                           {0.7f, 0.001f, 0.05f, -128, 127, -20},
                           {1e-4f, 2e-4f, 1e-3f, 64, -64, 0}};
  constexpr int kSmall = 128;  // under 256 output elements: the element-by-element path
  for (tflite::BuiltinOperator code : {tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_SUB}) {
    for (const Scales& sc : scales) {
      for (auto act : {tflite::ActivationFunctionType_NONE, tflite::ActivationFunctionType_RELU6}) {
        const bool add = code == tflite::BuiltinOperator_ADD;
        // The zero points above are int8 values; uint8's are 128 higher.
        auto zero = [&](int64_t z) { return type == TensorType::kUInt8 ? z + 128 : z; };
        auto build = [&](const Shape& a_shape, const Shape& b_shape) {
          SingleOp op(code);
          op.Input(type, a_shape, Q(sc.a, zero(sc.za)));
          op.Input(type, b_shape, Q(sc.b, zero(sc.zb)));
          op.Output(type, {}, Q(sc.out, zero(sc.zo)));
          if (add) {
            op.Options(tflite::BuiltinOptions_AddOptions, AddOptions(act, false));
          } else {
            op.Options(tflite::BuiltinOptions_SubOptions, SubOptions(act, false));
          }
          return op.Build(testing::TfliteReferenceArithmetic());
        };
        const std::string what = std::string(tflite::EnumNameBuiltinOperator(code)) + " scales " +
                                 std::to_string(sc.a) + " " + std::to_string(sc.b) + " " + std::to_string(sc.out) +
                                 (act == tflite::ActivationFunctionType_RELU6 ? " relu6" : "");
        auto small = build({kSmall}, {kSmall});
        ASSERT_TRUE(small) << what;
        std::vector<T> want;
        for (size_t i = 0; i < a.size(); i += kSmall) {
          SetInput(*small, 0, std::vector<T>(a.begin() + static_cast<std::ptrdiff_t>(i), a.begin() + static_cast<std::ptrdiff_t>(i + kSmall)));
          SetInput(*small, 1, std::vector<T>(b.begin() + static_cast<std::ptrdiff_t>(i), b.begin() + static_cast<std::ptrdiff_t>(i + kSmall)));
          ASSERT_TRUE(small->Invoke().ok()) << what;
          const auto part = GetOutput<T>(*small, 0);
          want.insert(want.end(), part.begin(), part.end());
        }
        // Same shapes.
        auto same = build({static_cast<int32_t>(a.size())}, {static_cast<int32_t>(b.size())});
        ASSERT_TRUE(same) << what;
        SetInput(*same, 0, a);
        SetInput(*same, 1, b);
        ASSERT_TRUE(same->Invoke().ok()) << what;
        EXPECT_EQ(GetOutput<T>(*same, 0), want) << what << ", same shapes";
        // A column against a row: element (i, j) pairs value i of a with value j of b, as above.
        std::vector<T> column(256), row(256);
        for (int i = 0; i < 256; ++i) column[static_cast<size_t>(i)] = a[static_cast<size_t>(i) * 256];
        for (int j = 0; j < 256; ++j) row[static_cast<size_t>(j)] = b[static_cast<size_t>(j)];
        auto broadcast = build({256, 1}, {1, 256});
        ASSERT_TRUE(broadcast) << what;
        SetInput(*broadcast, 0, column);
        SetInput(*broadcast, 1, row);
        ASSERT_TRUE(broadcast->Invoke().ok()) << what;
        EXPECT_EQ(GetOutput<T>(*broadcast, 0), want) << what << ", broadcast";
      }
    }
  }
}

TEST(QuantizedAdd, EightBitTablesMatchTheScalarPath) {
  CheckAddSubTablesAgainstScalar<uint8_t>(TensorType::kUInt8);
  CheckAddSubTablesAgainstScalar<int8_t>(TensorType::kInt8);
}

TEST(QuantizedDiv, Uint8MatchesRealQuotient) {
  std::vector<uint8_t> a, b;
  for (int x = 0; x <= 255; x += 5) {
    for (int y = 0; y <= 255; y += 5) {
      if (y == 100) continue;  // the divisor's zero point: a zero divisor, tested below
      a.push_back(static_cast<uint8_t>(x));
      b.push_back(static_cast<uint8_t>(y));
    }
  }
  const QuantizationParams qa = Q(0.1f, 128), qb = Q(0.05f, 100), qo = Q(0.2f, 128);
  SingleOp op(tflite::BuiltinOperator_DIV, 2);
  op.Input(TensorType::kUInt8, {static_cast<int32_t>(a.size())}, qa);
  op.Input(TensorType::kUInt8, {static_cast<int32_t>(b.size())}, qb);
  op.Output(TensorType::kUInt8, {}, qo);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, a);
  SetInput(*interpreter, 1, b);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<uint8_t>(*interpreter, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    const int32_t want = Quantize(Dequantize(a[i], qa) / Dequantize(b[i], qb), qo, 0, 255);
    ASSERT_LE(std::abs(got[i] - want), 1) << "a=" << int{a[i]} << " b=" << int{b[i]};
  }
}

TEST(QuantizedDiv, ZeroDivisorSaturates) {
  SingleOp op(tflite::BuiltinOperator_DIV, 2);
  op.Input(TensorType::kUInt8, {3}, Q(1.0f, 10));
  op.Input(TensorType::kUInt8, {3}, Q(1.0f, 20));
  op.Output(TensorType::kUInt8, {}, Q(1.0f, 50));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {30, 0, 10});
  SetInput<uint8_t>(*interpreter, 1, {20, 20, 20});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // 20 / 0 -> +inf -> 255; -10 / 0 -> -inf -> 0; 0 / 0 -> the zero point.
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{255, 0, 50}));
}

TEST(QuantizedArithmetic, BadQuantizationIsAPrepareError) {
  {
    SingleOp op(tflite::BuiltinOperator_ADD);
    op.Input(TensorType::kInt8, {2});  // no quantization parameters
    op.Input(TensorType::kInt8, {2}, Q(0.1f, 0));
    op.Output(TensorType::kInt8, {}, Q(0.1f, 0));
    const Status st = op.TryBuild();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("no quantization parameters"), std::string::npos) << st.message();
  }
  {
    SingleOp op(tflite::BuiltinOperator_SUB);
    op.Input(TensorType::kInt8, {2}, Q(0.1f, 0));
    op.Input(TensorType::kInt8, {2}, Q(0.1f, 300));  // outside int8
    op.Output(TensorType::kInt8, {}, Q(0.1f, 0));
    const Status st = op.TryBuild();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("zero point 300"), std::string::npos) << st.message();
  }
  {
    SingleOp op(tflite::BuiltinOperator_MUL);
    op.Input(TensorType::kUInt8, {2}, Q(0.1f, 0));
    op.Input(TensorType::kUInt8, {2}, Q(0.1f, 0));
    op.Output(TensorType::kUInt8, {}, Q(-1.0f, 0));
    EXPECT_FALSE(op.TryBuild().ok());
  }
}

TEST(QuantizedAdd, OutputTakesTheInputType) {
  // TFLite gives ADD's output the inputs' type; converted graphs may declare float32 there.
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kUInt8, {2}, Q(0.5f, 0));
  op.Input(TensorType::kUInt8, {2}, Q(0.5f, 0));
  op.Output(TensorType::kFloat32, {}, Q(0.5f, 0));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_EQ(interpreter->output(0)->type, TensorType::kUInt8);
  SetInput<uint8_t>(*interpreter, 0, {3, 200});
  SetInput<uint8_t>(*interpreter, 1, {4, 100});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{7, 255}));
}

TEST(Int16Arithmetic, UnquantizedInt16IsPlainIntegerMath) {
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kInt16, {3});
  op.Input(TensorType::kInt16, {3});
  op.Output(TensorType::kInt16);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {1, -5, 32767});
  SetInput<int16_t>(*interpreter, 1, {2, 3, 1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{3, -2, -32768}));  // wraps
}

// ---- integer helpers

TEST(ArithHelpers, ReciprocalIsAccurate) {
  for (int32_t x : {1, 2, 3, 7, 10, 255, 256, 1000, 65535, 123456789, 2147483647}) {
    int bits_over_unit = 0;
    const int32_t r = quant::GetReciprocal(x, 31, &bits_over_unit);
    // r is 1 / x * 2^bits_over_unit in Q0.31.
    const double got = std::ldexp(static_cast<double>(r), -31 - bits_over_unit);
    EXPECT_NEAR(got * x, 1.0, 1e-8) << x;
  }
}

TEST(ArithHelpers, ShiftsLog2AndInt16Multiply) {
  EXPECT_EQ(quant::RoundingShiftRight(5, 0), 5);
  EXPECT_EQ(quant::RoundingShiftRight(-5, -2), -20);
  EXPECT_EQ(quant::RoundingShiftRight(1 << 30, -2), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(quant::RoundingShiftRight(-6, 2), -2);  // -1.5 -> -2 (ties away from zero)
  EXPECT_EQ(quant::RoundingShiftRight(std::numeric_limits<int32_t>::min(), 31), -1);
  EXPECT_EQ(quant::RoundingShiftRight(std::numeric_limits<int32_t>::max(), 40), 0);
  EXPECT_EQ(quant::CountLeadingSignBits(0), 31);
  EXPECT_EQ(quant::CountLeadingSignBits(-1), 31);
  EXPECT_EQ(quant::CountLeadingSignBits(1), 30);
  EXPECT_EQ(quant::CountLeadingSignBits(std::numeric_limits<int32_t>::min()), 0);
  int log2 = 0;
  EXPECT_TRUE(quant::CheckedLog2(0.25f, &log2));
  EXPECT_EQ(log2, -2);
  EXPECT_FALSE(quant::CheckedLog2(0.3f, &log2));
  // Q0.15: 0.5 * 0.5 = 0.25; -1 * -1 saturates to the largest value.
  EXPECT_EQ(quant::SaturatingRoundingDoublingHighMul16(16384, 16384), 8192);
  EXPECT_EQ(quant::SaturatingRoundingDoublingHighMul16(-32768, -32768), 32767);
}

// ADD cannot represent such a factor (MUL saturates instead: see HugeRescalingFactorSaturates).
TEST(QuantizedArithmetic, HugeRescalingFactorIsAnError) {
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kInt8, {2}, Q(1e10f, 0));
  op.Input(TensorType::kInt8, {2}, Q(1e10f, 0));
  op.Output(TensorType::kInt8, {}, Q(1e-10f, 0));
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("too large"), std::string::npos) << st.message();
}

// ---- QUANTIZE between integer types

TEST(Requantize, Int8ToUint8SameScaleShiftsBy128) {
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(TensorType::kInt8, {4}, Q(0.1f, -128));
  op.Output(TensorType::kUInt8, {}, Q(0.1f, 0));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {-128, -1, 0, 127});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{0, 127, 128, 255}));
}

TEST(Requantize, HalvingScaleRoundsHalfUp) {
  // s_in / s_out = 0.5: (q - 2) / 2 + 1; the fixed-point multiply rounds halves toward +inf.
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(TensorType::kInt16, {6}, Q(0.5f, 2));
  op.Output(TensorType::kInt8, {}, Q(1.0f, 1));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {2, 3, 1, 10, 1000, -1000});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // 0 -> 1; 0.5 -> 1 -> 2; -0.5 -> 0 -> 1; 4 -> 5; 499 -> 127 (saturates); -501 -> -128.
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{1, 2, 1, 5, 127, -128}));
}

template <class In, class Out>
void CheckRequantize(TensorType in_type, TensorType out_type, const QuantizationParams& qi,
                     const QuantizationParams& qo, const std::vector<In>& values) {
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(in_type, {static_cast<int32_t>(values.size())}, qi);
  op.Output(out_type, {}, qo);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter) << TensorTypeName(in_type) << " -> " << TensorTypeName(out_type);
  SetInput(*interpreter, 0, values);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<Out>(*interpreter, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const int32_t want =
        Quantize(Dequantize(values[i], qi), qo, std::numeric_limits<Out>::min(), std::numeric_limits<Out>::max());
    ASSERT_LE(std::abs(int64_t{got[i]} - want), 1) << TensorTypeName(in_type) << " -> " << TensorTypeName(out_type)
                                                   << " value " << int64_t{values[i]};
  }
}

TEST(Requantize, EveryIntegerPairMatchesRealValue) {
  std::vector<int8_t> i8;
  std::vector<uint8_t> u8;
  std::vector<int16_t> i16;
  std::vector<int32_t> i32;
  for (int v = -128; v <= 127; ++v) i8.push_back(static_cast<int8_t>(v));
  for (int v = 0; v <= 255; ++v) u8.push_back(static_cast<uint8_t>(v));
  for (int v = -32768; v <= 32767; v += 61) i16.push_back(static_cast<int16_t>(v));
  for (int64_t v = -2000000000; v <= 2000000000; v += 9876543) i32.push_back(static_cast<int32_t>(v));
  CheckRequantize<int8_t, int8_t>(TensorType::kInt8, TensorType::kInt8, Q(0.07f, 3), Q(0.05f, -9), i8);
  CheckRequantize<int8_t, uint8_t>(TensorType::kInt8, TensorType::kUInt8, Q(0.07f, 3), Q(0.05f, 120), i8);
  CheckRequantize<uint8_t, int8_t>(TensorType::kUInt8, TensorType::kInt8, Q(0.02f, 128), Q(0.03f, -1), u8);
  CheckRequantize<uint8_t, uint8_t>(TensorType::kUInt8, TensorType::kUInt8, Q(0.02f, 128), Q(0.5f, 7), u8);
  CheckRequantize<int8_t, int16_t>(TensorType::kInt8, TensorType::kInt16, Q(0.07f, 3), Q(0.0001f, 0), i8);
  CheckRequantize<int16_t, int16_t>(TensorType::kInt16, TensorType::kInt16, Q(0.0003f, 0), Q(0.0007f, 0), i16);
  CheckRequantize<int16_t, int8_t>(TensorType::kInt16, TensorType::kInt8, Q(0.0003f, 0), Q(0.04f, 5), i16);
  CheckRequantize<int32_t, int16_t>(TensorType::kInt32, TensorType::kInt16, Q(1.4901161e-07f, 0),
                                    Q(0.00092197f, 0), i32);
  CheckRequantize<int32_t, int8_t>(TensorType::kInt32, TensorType::kInt8, Q(1e-6f, 0), Q(0.01f, 0), i32);
}

TEST(Requantize, MissingInputQuantizationIsAnError) {
  SingleOp op(tflite::BuiltinOperator_QUANTIZE);
  op.Input(TensorType::kInt8, {2});
  op.Output(TensorType::kInt8, {}, Q(0.1f, 0));
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- CONCATENATION with quantized inputs

ModelBuilder::OptionsWriter ConcatAxis(int axis) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateConcatenationOptions(fbb, axis).Union();
  };
}

TEST(QuantizedConcatenation, Uint8InputsOnOtherScalesAreRequantized) {
  SingleOp op(tflite::BuiltinOperator_CONCATENATION);
  op.Input(TensorType::kUInt8, {2, 2}, Q(1.0f, 0));     // rescaled: x / 2 + 10
  op.Input(TensorType::kUInt8, {2, 1}, Q(2.0f, 10));    // same as the output: copied
  op.Input(TensorType::kUInt8, {2, 1}, Q(0.25f, 100));  // (x - 100) / 8 + 10
  op.Output(TensorType::kUInt8, {}, Q(2.0f, 10));
  op.Options(tflite::BuiltinOptions_ConcatenationOptions, ConcatAxis(-1));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {0, 3, 5, 255});
  SetInput<uint8_t>(*interpreter, 1, {7, 200});
  SetInput<uint8_t>(*interpreter, 2, {0, 255});
  ASSERT_TRUE(interpreter->Invoke().ok());
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{2, 4}));
  // Row 0: 0 -> 10, 3 -> round(1.5) = 2 -> 12, copy 7, (0 - 100) / 8 = -12.5 -> -13 -> -3 -> 0.
  // Row 1: 5 -> round(2.5) = 3 -> 13, 255 -> 128 -> 138, copy 200, 155 / 8 = 19.375 -> 29.
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{10, 12, 7, 0, 13, 138, 200, 29}));
}

// Over 256 rescaled values an input goes through a table of all 256 stored values, under that
// value by value: every stored value through both, uint8 and int8, the same bits.
template <class T>
void CheckConcatTableAgainstDirect(TensorType type) {
  const int64_t zero = type == TensorType::kUInt8 ? 128 : 0;
  auto run = [&](int rows, int n, const std::vector<T>& a, const std::vector<T>& b) {
    SingleOp op(tflite::BuiltinOperator_CONCATENATION);
    op.Input(type, {rows, n}, Q(0.37f, zero - 11));  // rescaled onto the output's scale
    op.Input(type, {rows, 3}, Q(0.9f, zero + 4));    // same as the output: copied
    op.Output(type, {}, Q(0.9f, zero + 4));
    op.Options(tflite::BuiltinOptions_ConcatenationOptions, ConcatAxis(-1));
    auto interpreter = op.Build();
    EXPECT_TRUE(interpreter);
    if (!interpreter) return std::vector<T>{};
    SetInput<T>(*interpreter, 0, a);
    SetInput<T>(*interpreter, 1, b);
    EXPECT_TRUE(interpreter->Invoke().ok());
    return GetOutput<T>(*interpreter, 0);
  };
  std::vector<T> a(512), b{1, 2, 3, 4, 5, 6};
  for (int i = 0; i < 256; ++i) {
    a[static_cast<size_t>(i)] = static_cast<T>(static_cast<uint8_t>(i));
    a[static_cast<size_t>(511 - i)] = static_cast<T>(static_cast<uint8_t>(i));
  }
  const std::vector<T> table = run(2, 256, a, b);  // 512 values: by table
  std::vector<T> direct;
  for (int row = 0; row < 2; ++row) {
    std::vector<T> part;
    for (int half = 0; half < 2; ++half) {  // 128 values a run: value by value
      const auto first = a.begin() + row * 256 + half * 128;
      const std::vector<T> out =
          run(1, 128, std::vector<T>(first, first + 128), std::vector<T>(b.begin() + row * 3, b.begin() + row * 3 + 3));
      part.insert(part.end(), out.begin(), out.begin() + 128);
    }
    part.insert(part.end(), b.begin() + row * 3, b.begin() + row * 3 + 3);
    direct.insert(direct.end(), part.begin(), part.end());
  }
  EXPECT_EQ(table, direct) << TensorTypeName(type);
}

TEST(QuantizedConcatenation, RescalingByTableMatchesValueByValue) {
  CheckConcatTableAgainstDirect<uint8_t>(TensorType::kUInt8);
  CheckConcatTableAgainstDirect<int8_t>(TensorType::kInt8);
}

TEST(QuantizedConcatenation, Int8RescalesAndInt16CopiesAsStored) {
  {
    SingleOp op(tflite::BuiltinOperator_CONCATENATION);
    op.Input(TensorType::kInt8, {2}, Q(0.5f, 0));
    op.Input(TensorType::kInt8, {2}, Q(1.0f, 0));
    op.Output(TensorType::kInt8, {}, Q(1.0f, 0));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int8_t>(*interpreter, 0, {-128, 9});
    SetInput<int8_t>(*interpreter, 1, {-128, 9});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{-64, 5, -128, 9}));
  }
  {
    // TFLite copies int16 without rescaling (its int16 kernels require matching scales).
    SingleOp op(tflite::BuiltinOperator_CONCATENATION);
    op.Input(TensorType::kInt16, {1}, Q(0.5f, 0));
    op.Input(TensorType::kInt16, {1}, Q(1.0f, 0));
    op.Output(TensorType::kInt16, {}, Q(1.0f, 0));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int16_t>(*interpreter, 0, {1000});
    SetInput<int16_t>(*interpreter, 1, {-7});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{1000, -7}));
  }
}

TEST(QuantizedConcatenation, ScalarsBecomeAVector) {
  SingleOp op(tflite::BuiltinOperator_CONCATENATION);
  op.Input(TensorType::kInt32, {});
  op.Input(TensorType::kInt32, {});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {4});
  SetInput<int32_t>(*interpreter, 1, {-9});
  ASSERT_TRUE(interpreter->Invoke().ok());
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{2}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{4, -9}));
}

}  // namespace
}  // namespace edgerun

namespace edgerun {
namespace {

// A degenerate output scale (2.97e-35 in a real SSD-LSTM detector) makes the rescaling factor
// astronomically large: every non-zero product saturates, zero stays at the zero point.
TEST(QuantizedMul, HugeRescalingFactorSaturates) {
  QuantizationParams in1, in2, out;
  in1.scale = {0.0235294f};
  in1.zero_point = {0};
  in2.scale = {0.00390625f};
  in2.zero_point = {0};
  out.scale = {2.97212e-35f};
  out.zero_point = {0};
  testing::SingleOp op(tflite::BuiltinOperator_MUL);
  op.Input(TensorType::kUInt8, {4}, in1);
  op.Input(TensorType::kUInt8, {4}, in2);
  op.Output(TensorType::kUInt8, {}, out);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  testing::SetInput<uint8_t>(*interpreter, 0, {0, 1, 200, 7});
  testing::SetInput<uint8_t>(*interpreter, 1, {9, 1, 0, 3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(testing::GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{0, 255, 0, 255}));
}

// An 8-bit binary op with a small broadcast operand runs by table lookup (EvalQuantizedBinaryByTable):
// the same bytes as the op on the operand tiled out to the full shape, which takes the per-element
// arithmetic. ADD, SUB and MUL, int8 and uint8, XNNPACK's and TFLite's arithmetic, the small
// operand on either side.
std::vector<uint8_t> RunBinary(tflite::BuiltinOperator code, TensorType type, const Shape& a_shape,
                               const std::vector<uint8_t>& a, const Shape& b_shape, const std::vector<uint8_t>& b,
                               const InterpreterOptions& options) {
  const bool s8 = type == TensorType::kInt8;
  SingleOp op(code);
  op.Input(type, a_shape, Q(0.05f, s8 ? -3 : 120));
  op.Input(type, b_shape, Q(code == tflite::BuiltinOperator_MUL ? 0.02f : 0.07f, s8 ? 5 : 131));
  op.Output(type, {}, Q(0.09f, s8 ? 2 : 125));
  auto interpreter = op.Build(options);
  if (!interpreter) return {};
  std::memcpy(interpreter->input(0)->data, a.data(), a.size());
  std::memcpy(interpreter->input(1)->data, b.data(), b.size());
  EXPECT_TRUE(interpreter->Invoke().ok());
  const auto* out = static_cast<const uint8_t*>(interpreter->output(0)->data);
  return std::vector<uint8_t>(out, out + interpreter->output(0)->bytes);
}

TEST(QuantizedBinary, SmallBroadcastOperandByTableMatchesTheArithmetic) {
  // 40x40x3 = 4800 elements: over 4 x 256 per small element, so the table is used.
  const Shape image = {1, 40, 40, 3}, row = {1, 1, 1, 3};
  std::vector<uint8_t> pixels(40 * 40 * 3), channels = {7, 200, 129};
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<uint8_t> tiled(pixels.size());
  for (size_t i = 0; i < tiled.size(); ++i) tiled[i] = channels[i % 3];
  for (auto code : {tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_SUB, tflite::BuiltinOperator_MUL}) {
    for (TensorType type : {TensorType::kInt8, TensorType::kUInt8}) {
      InterpreterOptions builtin;  // XNNPACK's arithmetic on the builtin kernels (the delegate would take the node)
      builtin.use_xnnpack = false;
      for (const InterpreterOptions& options : {builtin, testing::TfliteReferenceArithmetic()}) {
        SCOPED_TRACE(::testing::Message() << tflite::EnumNameBuiltinOperator(code) << " " << TensorTypeName(type));
        const auto want = RunBinary(code, type, image, pixels, image, tiled, options);
        ASSERT_FALSE(want.empty());
        EXPECT_EQ(RunBinary(code, type, image, pixels, row, channels, options), want);
        // The small operand first.
        EXPECT_EQ(RunBinary(code, type, row, channels, image, pixels, options),
                  RunBinary(code, type, image, tiled, image, pixels, options));
        // A small operand that does not repeat as one block along the output (one value per
        // image row of [1,2,800,3]): the table through the broadcast walk.
        const Shape two_rows = {1, 2, 800, 3}, per_row_shape = {1, 2, 1, 1};
        const std::vector<uint8_t> per_row = {91, 240};
        std::vector<uint8_t> tiled_rows(pixels.size());
        for (size_t i = 0; i < tiled_rows.size(); ++i) tiled_rows[i] = per_row[i / (800 * 3)];
        EXPECT_EQ(RunBinary(code, type, two_rows, pixels, per_row_shape, per_row, options),
                  RunBinary(code, type, two_rows, pixels, two_rows, tiled_rows, options));
      }
    }
  }
}

}  // namespace
}  // namespace edgerun
