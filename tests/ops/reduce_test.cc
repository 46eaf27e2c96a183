// SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL, quantized MEAN, ARG_MAX and
// ARG_MIN. Expected values come from a direct loop over coordinates written here, or by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

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

ModelBuilder::OptionsWriter KeepDims(bool keep) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateReducerOptions(fbb, keep).Union(); };
}

// The reduction from its definition: every input coordinate contributes to the output
// coordinate with the reduced axes dropped; `fold` combines in input order starting from `init`.
template <class Acc, class T>
std::vector<Acc> Reference(const Shape& shape, const std::vector<T>& data, const std::set<int>& axes, Acc init,
                           const std::function<Acc(Acc, T)>& fold) {
  Shape out_shape;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (!axes.count(d)) out_shape.push_back(shape[d]);
  }
  std::vector<Acc> out(NumElements(out_shape), init);
  for (int64_t flat = 0; flat < static_cast<int64_t>(data.size()); ++flat) {
    int64_t rest = flat, out_index = 0, out_stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t coord = rest % shape[d];
      rest /= shape[d];
      if (!axes.count(d)) {
        out_index += coord * out_stride;
        out_stride *= shape[d];
      }
    }
    out[out_index] = fold(out[out_index], data[flat]);
  }
  return out;
}

template <class T>
std::unique_ptr<Interpreter> BuildReduce(tflite::BuiltinOperator code, TensorType type, const Shape& shape,
                                         const std::vector<int32_t>& axes, bool keep_dims,
                                         const QuantizationParams& qi = {}, const QuantizationParams& qo = {}) {
  SingleOp op(code);
  op.Input(type, shape, qi);
  op.Const<int32_t>(TensorType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  op.Output(type, {}, qo);
  op.Options(tflite::BuiltinOptions_ReducerOptions, KeepDims(keep_dims));
  return op.Build();
}

TEST(Sum, FloatNegativeAndRepeatedAxesWithKeepDims) {
  const Shape shape = {2, 3, 4};
  const auto data = testing::RandomFloats(24, 7);
  for (bool keep : {false, true}) {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_SUM, TensorType::kFloat32, shape, {-1, 0, -1}, keep);
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, data);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, keep ? (Shape{1, 3, 1}) : (Shape{3}));
    const auto want = Reference<float, float>(shape, data, {0, 2}, 0.0f, [](float a, float x) { return a + x; });
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-5f));
  }
}

TEST(Sum, IntegersWrapAndInt64) {
  {
    auto interpreter = BuildReduce<int32_t>(tflite::BuiltinOperator_SUM, TensorType::kInt32, {3}, {0}, false);
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {2147483647, 1, 5});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{-2147483643}));
  }
  {
    auto interpreter = BuildReduce<int64_t>(tflite::BuiltinOperator_SUM, TensorType::kInt64, {2, 2}, {1}, true);
    ASSERT_TRUE(interpreter);
    SetInput<int64_t>(*interpreter, 0, {int64_t{1} << 40, 3, -7, 2});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
    EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{(int64_t{1} << 40) + 3, -5}));
  }
}

TEST(Sum, EmptyAxesCopyScalarIgnoresAxesEmptyInputGivesZero) {
  {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_SUM, TensorType::kFloat32, {2, 2}, {}, false);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 2, 3, 4}));
  }
  {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_SUM, TensorType::kFloat32, {}, {0, 3}, false);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {2.5f});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{2.5f}));
  }
  {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_SUM, TensorType::kFloat32, {0, 3}, {0}, false);
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 0, 0}));
  }
}

TEST(Sum, RuntimeAxesAndBadAxes) {
  SingleOp op(tflite::BuiltinOperator_SUM);
  op.Input(TensorType::kInt32, {2, 3});
  op.Input(TensorType::kInt32, {1});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
  SetInput<int32_t>(*interpreter, 1, {-1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{6, 15}));
  SetInput<int32_t>(*interpreter, 1, {2});
  EXPECT_FALSE(interpreter->Invoke().ok());

  SingleOp bad(tflite::BuiltinOperator_SUM);
  bad.Input(TensorType::kFloat32, {2, 3});
  bad.Const<int32_t>(TensorType::kInt32, {1}, {-3});
  bad.Output(TensorType::kFloat32);
  const Status st = bad.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("axis -3"), std::string::npos) << st.message();
}

TEST(Sum, QuantizedMatchesRealSum) {
  const QuantizationParams qi = Q(0.05f, -4), qo = Q(0.3f, 3);
  const Shape shape = {3, 5};
  std::vector<int8_t> data;
  for (int i = 0; i < 15; ++i) data.push_back(static_cast<int8_t>(-120 + 17 * i));
  auto interpreter = BuildReduce<int8_t>(tflite::BuiltinOperator_SUM, TensorType::kInt8, shape, {1}, false, qi, qo);
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, data);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto real = Reference<double, int8_t>(shape, data, {1}, 0.0,
                                              [&](double a, int8_t x) { return a + qi.scale[0] * (x - qi.zero_point[0]); });
  const auto got = GetOutput<int8_t>(*interpreter, 0);
  for (size_t i = 0; i < real.size(); ++i) {
    const double want = std::clamp(std::round(real[i] / qo.scale[0]) + qo.zero_point[0], -128.0, 127.0);
    EXPECT_LE(std::abs(got[i] - want), 1) << i;
  }
}

// ---- REDUCE_MAX / REDUCE_MIN

template <class T>
void CheckMinMax(TensorType type, bool is_max) {
  const Shape shape = {2, 3, 2};
  std::vector<T> data;
  for (int i = 0; i < 12; ++i) data.push_back(static_cast<T>((i * 7) % 11 - (std::is_signed_v<T> ? 5 : 0)));
  const auto code = is_max ? tflite::BuiltinOperator_REDUCE_MAX : tflite::BuiltinOperator_REDUCE_MIN;
  auto interpreter = BuildReduce<T>(code, type, shape, {2, 0}, false);
  ASSERT_TRUE(interpreter) << TensorTypeName(type);
  SetInput(*interpreter, 0, data);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const T init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  const auto want = Reference<T, T>(shape, data, {0, 2}, init,
                                    [&](T a, T x) { return is_max ? std::max(a, x) : std::min(a, x); });
  EXPECT_EQ(GetOutput<T>(*interpreter, 0), want) << TensorTypeName(type) << (is_max ? " max" : " min");
}

TEST(ReduceMinMax, EveryType) {
  for (bool is_max : {true, false}) {
    CheckMinMax<float>(TensorType::kFloat32, is_max);
    CheckMinMax<int32_t>(TensorType::kInt32, is_max);
    CheckMinMax<int64_t>(TensorType::kInt64, is_max);
    CheckMinMax<uint8_t>(TensorType::kUInt8, is_max);
    CheckMinMax<int8_t>(TensorType::kInt8, is_max);
    CheckMinMax<int16_t>(TensorType::kInt16, is_max);
  }
}

TEST(ReduceMinMax, EmptyReductionAndNaN) {
  {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_REDUCE_MAX, TensorType::kFloat32, {0, 2}, {0}, false);
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const float lowest = std::numeric_limits<float>::lowest();
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{lowest, lowest}));
  }
  {
    auto interpreter = BuildReduce<int8_t>(tflite::BuiltinOperator_REDUCE_MIN, TensorType::kInt8, {2, 0}, {1}, true);
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
    EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{127, 127}));
  }
  {
    // TFLite keeps the running value unless the new element compares greater: a NaN that comes
    // last wins, one that comes first is replaced.
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_REDUCE_MAX, TensorType::kFloat32, {2, 2}, {1}, false);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {NAN, 1.0f, 1.0f, NAN});
    ASSERT_TRUE(interpreter->Invoke().ok());
    const auto got = GetOutput<float>(*interpreter, 0);
    EXPECT_EQ(got[0], 1.0f);
    EXPECT_TRUE(std::isnan(got[1]));
  }
  {
    // -inf stays -inf (the first element starts the fold, not the lowest float).
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_REDUCE_MAX, TensorType::kFloat32, {2}, {0}, false);
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {-INFINITY, -INFINITY});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-INFINITY}));
  }
}

TEST(ReduceMinMax, QuantizedNeedsMatchingParams) {
  SingleOp op(tflite::BuiltinOperator_REDUCE_MAX);
  op.Input(TensorType::kInt8, {4}, Q(0.1f, 0));
  op.Const<int32_t>(TensorType::kInt32, {1}, {0});
  op.Output(TensorType::kInt8, {}, Q(0.2f, 0));
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("same scale"), std::string::npos) << st.message();
}

// ---- REDUCE_PROD

TEST(ReduceProd, FloatAndWrappingInt32) {
  {
    const Shape shape = {2, 3};
    const std::vector<float> data = {1, 2, 3, -1, 0.5f, 4};
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_REDUCE_PROD, TensorType::kFloat32, shape, {0}, true);
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, data);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 3}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-1, 1, 12}));
  }
  {
    auto interpreter = BuildReduce<int32_t>(tflite::BuiltinOperator_REDUCE_PROD, TensorType::kInt32, {3}, {0}, false);
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {65536, 65536, 3});  // 2^32 * 3 wraps to 0
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0}));
  }
  {
    auto interpreter = BuildReduce<int64_t>(tflite::BuiltinOperator_REDUCE_PROD, TensorType::kInt64, {0}, {0}, false);
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{1}));  // the empty product
  }
}

TEST(ReduceProd, QuantizedInt8MatchesRealProduct) {
  const QuantizationParams qi = Q(0.02f, 2), qo = Q(0.01f, -5);
  const Shape shape = {4, 3};
  const std::vector<int8_t> data = {52, 52, 52, 102, -48, 27, 2, 90, -100, 127, 127, -128};
  auto interpreter =
      BuildReduce<int8_t>(tflite::BuiltinOperator_REDUCE_PROD, TensorType::kInt8, shape, {1}, false, qi, qo);
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, data);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto real = Reference<double, int8_t>(shape, data, {1}, 1.0,
                                              [&](double a, int8_t x) { return a * qi.scale[0] * (x - qi.zero_point[0]); });
  const auto got = GetOutput<int8_t>(*interpreter, 0);
  for (size_t i = 0; i < real.size(); ++i) {
    const double want = std::clamp(std::round(real[i] / qo.scale[0]) + qo.zero_point[0], -128.0, 127.0);
    // Each of the three multiplications rounds once.
    EXPECT_LE(std::abs(got[i] - want), 2) << i << " real " << real[i];
  }
}

// ---- REDUCE_ANY / REDUCE_ALL

TEST(ReduceAnyAll, BoolsAndEmptyReductions) {
  const Shape shape = {2, 3};
  const std::vector<uint8_t> data = {0, 0, 0, 0, 2, 1};  // 2: a nonzero byte is true
  for (bool any : {true, false}) {
    auto code = any ? tflite::BuiltinOperator_REDUCE_ANY : tflite::BuiltinOperator_REDUCE_ALL;
    auto interpreter = BuildReduce<uint8_t>(code, TensorType::kBool, shape, {1}, false);
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, data);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), any ? (std::vector<uint8_t>{0, 1}) : (std::vector<uint8_t>{0, 0}));

    auto all_axes = BuildReduce<uint8_t>(code, TensorType::kBool, {1, 2}, {0, 1}, false);
    ASSERT_TRUE(all_axes);
    SetInput<uint8_t>(*all_axes, 0, {1, 5});
    ASSERT_TRUE(all_axes->Invoke().ok());
    EXPECT_EQ(GetOutput<uint8_t>(*all_axes, 0), (std::vector<uint8_t>{1}));

    auto empty = BuildReduce<uint8_t>(code, TensorType::kBool, {0, 2}, {0}, false);
    ASSERT_TRUE(empty);
    ASSERT_TRUE(empty->Invoke().ok());
    EXPECT_EQ(GetOutput<uint8_t>(*empty, 0), (std::vector<uint8_t>(2, any ? 0 : 1)));
  }
  SingleOp op(tflite::BuiltinOperator_REDUCE_ANY);
  op.Input(TensorType::kFloat32, {2});
  op.Const<int32_t>(TensorType::kInt32, {1}, {0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- quantized MEAN

template <class T>
void CheckQuantizedMean(TensorType type, const Shape& shape, const std::vector<int32_t>& axes, bool keep,
                        const QuantizationParams& qi, const QuantizationParams& qo) {
  std::vector<T> data;
  for (int64_t i = 0; i < NumElements(shape); ++i) {
    data.push_back(static_cast<T>(std::numeric_limits<T>::min() + (i * 37) % (int64_t{std::numeric_limits<T>::max()} -
                                                                             std::numeric_limits<T>::min() + 1)));
  }
  auto interpreter = BuildReduce<T>(tflite::BuiltinOperator_MEAN, type, shape, axes, keep, qi, qo);
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, data);
  ASSERT_TRUE(interpreter->Invoke().ok());
  std::set<int> axis_set;
  for (int a : axes) axis_set.insert(a < 0 ? a + static_cast<int>(shape.size()) : a);
  int64_t count = 1;
  for (int a : axis_set) count *= shape[a];
  const auto sums = Reference<double, T>(shape, data, axis_set, 0.0,
                                         [&](double a, T x) { return a + qi.scale[0] * (x - qi.zero_point[0]); });
  const auto got = GetOutput<T>(*interpreter, 0);
  ASSERT_EQ(got.size(), sums.size());
  for (size_t i = 0; i < sums.size(); ++i) {
    const double want = std::clamp<double>(std::round(sums[i] / count / qo.scale[0]) + qo.zero_point[0],
                                           std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    EXPECT_LE(std::abs(got[i] - want), 1) << TensorTypeName(type) << " element " << i;
  }
}

TEST(QuantizedMean, GlobalAveragePoolingPathAndGeneralPath) {
  // 4-D keep_dims over {1, 2}: TFLite's dedicated kernel; the other cases: its general kernel.
  CheckQuantizedMean<int8_t>(TensorType::kInt8, {2, 3, 5, 4}, {1, 2}, true, Q(0.05f, -3), Q(0.02f, 6));
  CheckQuantizedMean<uint8_t>(TensorType::kUInt8, {1, 7, 7, 3}, {2, 1}, true, Q(0.1f, 128), Q(0.1f, 128));
  CheckQuantizedMean<int8_t>(TensorType::kInt8, {2, 3, 5, 4}, {1, 2}, false, Q(0.05f, -3), Q(0.02f, 6));
  CheckQuantizedMean<uint8_t>(TensorType::kUInt8, {4, 6}, {-1}, false, Q(0.1f, 100), Q(0.05f, 120));
  CheckQuantizedMean<int16_t>(TensorType::kInt16, {3, 40}, {1}, true, Q(0.001f, 0), Q(0.0005f, 0));
  CheckQuantizedMean<int8_t>(TensorType::kInt8, {3, 4}, {}, false, Q(0.05f, 1), Q(0.07f, -2));
}

TEST(QuantizedMean, HandComputed) {
  // Same scale, zero point 0: mean of {1, 2, 4, 5} = 3 and of {-1, -2, -4, -6} = -3.25 -> -3.
  auto interpreter = BuildReduce<int8_t>(tflite::BuiltinOperator_MEAN, TensorType::kInt8, {2, 4}, {1}, false,
                                         Q(0.5f, 0), Q(0.5f, 0));
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {1, 2, 4, 5, -1, -2, -4, -6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{3, -3}));
}

TEST(Mean, IntegersTruncateAndEmptyInputs) {
  {
    auto interpreter = BuildReduce<int32_t>(tflite::BuiltinOperator_MEAN, TensorType::kInt32, {2, 2}, {1}, false);
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {2147483647, 2147483647, -3, -4});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{2147483647, -3}));  // sum in 64 bits
  }
  {
    auto interpreter = BuildReduce<float>(tflite::BuiltinOperator_MEAN, TensorType::kFloat32, {0, 2}, {0}, false);
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const auto got = GetOutput<float>(*interpreter, 0);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));
  }
  {
    auto interpreter = BuildReduce<int8_t>(tflite::BuiltinOperator_MEAN, TensorType::kInt8, {0, 2}, {0}, false,
                                           Q(0.1f, 5), Q(0.1f, 5));
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{0, 0}));
  }
}

// ---- ARG_MAX / ARG_MIN

ModelBuilder::OptionsWriter ArgOptions(bool is_max, tflite::TensorType type) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) -> flatbuffers::Offset<void> {
    if (is_max) return tflite::CreateArgMaxOptions(fbb, type).Union();
    return tflite::CreateArgMinOptions(fbb, type).Union();
  };
}

template <class T, class Index>
void CheckArg(TensorType type, TensorType index_type, bool is_max, const Shape& shape, int axis, bool axis_is_scalar,
              const std::vector<T>& data) {
  SingleOp op(is_max ? tflite::BuiltinOperator_ARG_MAX : tflite::BuiltinOperator_ARG_MIN);
  op.Input(type, shape);
  op.Const<int32_t>(TensorType::kInt32, axis_is_scalar ? Shape{} : Shape{1}, {axis});
  op.Output(index_type);
  op.Options(is_max ? tflite::BuiltinOptions_ArgMaxOptions : tflite::BuiltinOptions_ArgMinOptions,
             ArgOptions(is_max, static_cast<tflite::TensorType>(index_type)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter) << TensorTypeName(type);
  SetInput(*interpreter, 0, data);
  ASSERT_TRUE(interpreter->Invoke().ok());
  // Expected: scan each line along the axis, keep the first extreme.
  const int rank = static_cast<int>(shape.size());
  const int a = axis < 0 ? axis + rank : axis;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < a; ++d) outer *= shape[d];
  for (int d = a + 1; d < rank; ++d) inner *= shape[d];
  std::vector<Index> want;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 0; k < shape[a]; ++k) {
        const T v = data[(o * shape[a] + k) * inner + i], b = data[(o * shape[a] + best) * inner + i];
        if (is_max ? v > b : v < b) best = k;
      }
      want.push_back(static_cast<Index>(best));
    }
  }
  EXPECT_EQ(GetOutput<Index>(*interpreter, 0), want) << TensorTypeName(type) << (is_max ? " argmax" : " argmin");
}

TEST(ArgMinMax, TypesAxesAndTies) {
  for (bool is_max : {true, false}) {
    CheckArg<float, int64_t>(TensorType::kFloat32, TensorType::kInt64, is_max, {2, 3}, 1, true, {1, 5, 5, -2, -7, -7});
    CheckArg<int32_t, int32_t>(TensorType::kInt32, TensorType::kInt32, is_max, {2, 3}, 0, false, {1, 5, 5, 1, 9, -7});
    CheckArg<int8_t, int32_t>(TensorType::kInt8, TensorType::kInt32, is_max, {2, 2, 2}, -2, false,
                              {-128, 127, 127, 0, 3, 3, 3, -1});
    CheckArg<uint8_t, int64_t>(TensorType::kUInt8, TensorType::kInt64, is_max, {4}, 0, true, {200, 7, 255, 255});
    CheckArg<int16_t, int32_t>(TensorType::kInt16, TensorType::kInt32, is_max, {1, 3}, -1, false, {-300, 300, 0});
    CheckArg<uint8_t, int32_t>(TensorType::kBool, TensorType::kInt32, is_max, {2, 2}, 1, false, {0, 1, 1, 1});
  }
}

TEST(ArgMinMax, RuntimeAxisAndErrors) {
  {
    SingleOp op(tflite::BuiltinOperator_ARG_MAX);
    op.Input(TensorType::kFloat32, {2, 2});
    op.Input(TensorType::kInt64, {1});
    op.Output(TensorType::kInt32);
    op.Options(tflite::BuiltinOptions_ArgMaxOptions, ArgOptions(true, tflite::TensorType_INT32));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 3, 4, 2});
    SetInput<int64_t>(*interpreter, 1, {0});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{1, 0}));
    SetInput<int64_t>(*interpreter, 1, {1});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{1, 0}));
    SetInput<int64_t>(*interpreter, 1, {2});
    EXPECT_FALSE(interpreter->Invoke().ok());
  }
  {
    // The options ask for int64 but the output is int32.
    SingleOp op(tflite::BuiltinOperator_ARG_MIN);
    op.Input(TensorType::kFloat32, {2, 2});
    op.Const<int32_t>(TensorType::kInt32, {1}, {0});
    op.Output(TensorType::kInt32);
    op.Options(tflite::BuiltinOptions_ArgMinOptions, ArgOptions(false, tflite::TensorType_INT64));
    EXPECT_FALSE(op.TryBuild().ok());
  }
  {
    // No arg max over an empty axis.
    SingleOp op(tflite::BuiltinOperator_ARG_MAX);
    op.Input(TensorType::kFloat32, {2, 0});
    op.Const<int32_t>(TensorType::kInt32, {1}, {1});
    op.Output(TensorType::kInt64);
    EXPECT_FALSE(op.TryBuild().ok());
  }
  {
    SingleOp op(tflite::BuiltinOperator_ARG_MAX);
    op.Input(TensorType::kFloat32, {2, 2});
    op.Const<int32_t>(TensorType::kInt32, {2}, {0, 1});  // two axes
    op.Output(TensorType::kInt64);
    EXPECT_FALSE(op.TryBuild().ok());
  }
}

}  // namespace
}  // namespace edgerun
