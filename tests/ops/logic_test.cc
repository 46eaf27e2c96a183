// Comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL), LOGICAL_AND / OR /
// NOT, SELECT and SELECT_V2.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

QuantizationParams Quant(float scale, int64_t zero_point) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

struct Comparison {
  tflite::BuiltinOperator op;
  bool (*fn)(double, double);
};

const Comparison kComparisons[] = {
    {tflite::BuiltinOperator_EQUAL, [](double a, double b) { return a == b; }},
    {tflite::BuiltinOperator_NOT_EQUAL, [](double a, double b) { return a != b; }},
    {tflite::BuiltinOperator_LESS, [](double a, double b) { return a < b; }},
    {tflite::BuiltinOperator_LESS_EQUAL, [](double a, double b) { return a <= b; }},
    {tflite::BuiltinOperator_GREATER, [](double a, double b) { return a > b; }},
    {tflite::BuiltinOperator_GREATER_EQUAL, [](double a, double b) { return a >= b; }},
};

// Index into a broadcast input from an output index (numpy rules), from coordinates.
int64_t BroadcastIndex(const Shape& shape, const Shape& out, int64_t flat) {
  std::vector<int64_t> coord(out.size());
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    coord[d] = flat % out[d];
    flat /= out[d];
  }
  int64_t index = 0;
  const size_t offset = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + (shape[d] == 1 ? 0 : coord[d + offset]);
  return index;
}

template <class T>
std::vector<bool> RunComparison(tflite::BuiltinOperator code, TensorType type, Shape sa, const std::vector<T>& a,
                                Shape sb, const std::vector<T>& b, Shape* out_shape, QuantizationParams qa = {},
                                QuantizationParams qb = {}) {
  SingleOp op(code);
  op.Input(type, sa, qa);
  op.Input(type, sb, qb);
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, a);
  SetInput(*interpreter, 1, b);
  EXPECT_TRUE(interpreter->Invoke().ok());
  *out_shape = interpreter->output(0)->shape;
  return GetOutput<bool>(*interpreter, 0);
}

template <class T>
void CheckAllComparisons(TensorType type, Shape sa, const std::vector<T>& a, Shape sb, const std::vector<T>& b,
                         Shape want_shape) {
  for (const Comparison& c : kComparisons) {
    Shape shape;
    const auto got = RunComparison<T>(c.op, type, sa, a, sb, b, &shape);
    ASSERT_EQ(shape, want_shape) << tflite::EnumNameBuiltinOperator(c.op);
    ASSERT_EQ(static_cast<int64_t>(got.size()), NumElements(want_shape));
    for (int64_t i = 0; i < NumElements(want_shape); ++i) {
      const double x = static_cast<double>(a[BroadcastIndex(sa, shape, i)]);
      const double y = static_cast<double>(b[BroadcastIndex(sb, shape, i)]);
      EXPECT_EQ(got[i], c.fn(x, y)) << tflite::EnumNameBuiltinOperator(c.op) << " " << x << " vs " << y;
    }
  }
}

TEST(Comparisons, EveryOpEveryTypeWithBroadcasting) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CheckAllComparisons<float>(TensorType::kFloat32, {2, 3}, {1, 2, 3, -1, nan, 0}, {3}, {2, 2, nan}, {2, 3});
  CheckAllComparisons<float>(TensorType::kFloat32, {}, {1.5f}, {2, 2}, {1, 1.5f, 2, -0.0f}, {2, 2});
  CheckAllComparisons<int32_t>(TensorType::kInt32, {3, 1}, {-5, 0, 7}, {1, 2}, {0, 7}, {3, 2});
  CheckAllComparisons<int64_t>(TensorType::kInt64, {2}, {int64_t{1} << 40, -1}, {2}, {(int64_t{1} << 40) + 1, -1}, {2});
  CheckAllComparisons<int16_t>(TensorType::kInt16, {4}, {-32768, 5, 5, 32767}, {}, {5}, {4});
  CheckAllComparisons<int8_t>(TensorType::kInt8, {3}, {-128, 0, 127}, {3}, {127, 0, -128}, {3});
  CheckAllComparisons<uint8_t>(TensorType::kUInt8, {2, 2}, {0, 128, 255, 7}, {2, 1}, {128, 7}, {2, 2});
  CheckAllComparisons<float>(TensorType::kFloat32, {0, 3}, {}, {3}, {1, 2, 3}, {0, 3});  // empty
}

TEST(Comparisons, QuantizedInputsCompareRealValues) {
  // a: real = 0.5 * (q - 128); b: real = 0.25 * q. Stored values differ, reals are compared.
  const std::vector<uint8_t> a = {128, 130, 126, 255, 0};  // 0, 1, -1, 63.5, -64
  const std::vector<uint8_t> b = {0, 4, 0, 254, 1};        // 0, 1, 0, 63.5, 0.25
  const std::vector<double> ra = {0, 1, -1, 63.5, -64}, rb = {0, 1, 0, 63.5, 0.25};
  for (const Comparison& c : kComparisons) {
    Shape shape;
    const auto got =
        RunComparison<uint8_t>(c.op, TensorType::kUInt8, {5}, a, {5}, b, &shape, Quant(0.5f, 128), Quant(0.25f, 0));
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(got[i], c.fn(ra[i], rb[i])) << tflite::EnumNameBuiltinOperator(c.op) << " element " << i;
    }
  }
  // int8 with a scalar on one side.
  Shape shape;
  const auto less = RunComparison<int8_t>(tflite::BuiltinOperator_LESS, TensorType::kInt8, {3}, {-10, 0, 10}, {}, {-1},
                                          &shape, Quant(0.1f, 0), Quant(1.0f / 16, 15));
  // a = -1, 0, 1; b = 0.0625 * (-1 - 15) = -1.
  EXPECT_EQ(less, (std::vector<bool>{false, false, false}));
  const auto equal = RunComparison<int8_t>(tflite::BuiltinOperator_EQUAL, TensorType::kInt8, {3}, {-10, 0, 10}, {},
                                           {-1}, &shape, Quant(0.1f, 0), Quant(1.0f / 16, 15));
  EXPECT_EQ(equal, (std::vector<bool>{true, false, false}));
}

TEST(Comparisons, BoolEquality) {
  Shape shape;
  const auto got = RunComparison<uint8_t>(tflite::BuiltinOperator_EQUAL, TensorType::kBool, {4}, {0, 1, 0, 1}, {2, 1},
                                          {1, 0}, &shape);
  EXPECT_EQ(shape, (Shape{2, 4}));
  EXPECT_EQ(got, (std::vector<bool>{false, true, false, true, true, false, true, false}));
  SingleOp less(tflite::BuiltinOperator_LESS);  // ordering bools is not defined by TFLite
  less.Input(TensorType::kBool, {2});
  less.Input(TensorType::kBool, {2});
  less.Output(TensorType::kBool);
  EXPECT_TRUE(less.TryBuild().unsupported());
}

TEST(Comparisons, StringEquality) {
  for (auto code : {tflite::BuiltinOperator_EQUAL, tflite::BuiltinOperator_NOT_EQUAL}) {
    SingleOp op(code);
    op.Const<uint8_t>(TensorType::kString, {3}, WriteStringTensor({"a", "bc", ""}));
    op.Const<uint8_t>(TensorType::kString, {1}, WriteStringTensor({"bc"}));
    op.Output(TensorType::kBool);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const bool eq = code == tflite::BuiltinOperator_EQUAL;
    EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{!eq, eq, !eq}));
  }
}

TEST(Comparisons, PrepareErrors) {
  SingleOp shapes(tflite::BuiltinOperator_GREATER);
  shapes.Input(TensorType::kFloat32, {2, 3});
  shapes.Input(TensorType::kFloat32, {2});
  shapes.Output(TensorType::kBool);
  EXPECT_FALSE(shapes.TryBuild().ok());
  SingleOp types(tflite::BuiltinOperator_EQUAL);
  types.Input(TensorType::kFloat32, {2});
  types.Input(TensorType::kInt32, {2});
  types.Output(TensorType::kBool);
  EXPECT_FALSE(types.TryBuild().ok());
  SingleOp output(tflite::BuiltinOperator_LESS);
  output.Input(TensorType::kFloat32, {2});
  output.Input(TensorType::kFloat32, {2});
  output.Output(TensorType::kFloat32);
  const Status st = output.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bool"), std::string::npos) << st.message();
}

// ---- logic

TEST(Logic, AndOrNotWithBroadcasting) {
  for (auto code : {tflite::BuiltinOperator_LOGICAL_AND, tflite::BuiltinOperator_LOGICAL_OR}) {
    SingleOp op(code);
    op.Input(TensorType::kBool, {2, 2});
    op.Input(TensorType::kBool, {2});
    op.Output(TensorType::kBool);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<uint8_t>(*interpreter, 0, {0, 1, 0, 1});
    SetInput<uint8_t>(*interpreter, 1, {1, 0});
    ASSERT_TRUE(interpreter->Invoke().ok());
    // Each row {0, 1} meets {1, 0}.
    EXPECT_EQ(GetOutput<bool>(*interpreter, 0), code == tflite::BuiltinOperator_LOGICAL_AND
                                                    ? (std::vector<bool>{false, false, false, false})
                                                    : (std::vector<bool>{true, true, true, true}));
    // A scalar on one side.
    SingleOp scalar(code);
    scalar.Input(TensorType::kBool, {3});
    scalar.Const<uint8_t>(TensorType::kBool, {}, {1});
    scalar.Output(TensorType::kBool);
    auto s = scalar.Build();
    ASSERT_TRUE(s);
    SetInput<uint8_t>(*s, 0, {0, 1, 0});
    ASSERT_TRUE(s->Invoke().ok());
    EXPECT_EQ(GetOutput<bool>(*s, 0), code == tflite::BuiltinOperator_LOGICAL_AND
                                          ? (std::vector<bool>{false, true, false})
                                          : (std::vector<bool>{true, true, true}));
  }
  SingleOp op(tflite::BuiltinOperator_LOGICAL_NOT);
  op.Input(TensorType::kBool, {3});
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {0, 1, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{true, false, true}));
}

TEST(Logic, OrTruthTable) {
  SingleOp op(tflite::BuiltinOperator_LOGICAL_OR);
  op.Input(TensorType::kBool, {4});
  op.Input(TensorType::kBool, {4});
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {0, 0, 1, 1});
  SetInput<uint8_t>(*interpreter, 1, {0, 1, 0, 1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{false, true, true, true}));
}

TEST(Logic, NonBoolInputsAreRejected) {
  SingleOp op(tflite::BuiltinOperator_LOGICAL_AND);
  op.Input(TensorType::kInt32, {2});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kInt32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- SELECT / SELECT_V2

template <class T>
Result<std::vector<T>> RunSelect(tflite::BuiltinOperator code, TensorType type, Shape sc, const std::vector<uint8_t>& c,
                                 Shape sx, const std::vector<T>& x, Shape sy, const std::vector<T>& y,
                                 Shape* out_shape) {
  SingleOp op(code);
  op.Input(TensorType::kBool, sc);
  op.Input(type, sx);
  op.Input(type, sy);
  op.Output(type);
  std::unique_ptr<Interpreter> interpreter;
  Status st = testing::TryBuild(op.Bytes(), &interpreter);
  if (!st.ok()) return st;
  SetInput(*interpreter, 0, c);
  SetInput(*interpreter, 1, x);
  SetInput(*interpreter, 2, y);
  st = interpreter->Invoke();
  if (!st.ok()) return st;
  *out_shape = interpreter->output(0)->shape;
  return GetOutput<T>(*interpreter, 0);
}

TEST(Select, V1ElementwiseRowsAndScalar) {
  Shape shape;
  auto same = RunSelect<float>(tflite::BuiltinOperator_SELECT, TensorType::kFloat32, {2, 2}, {1, 0, 0, 1}, {2, 2},
                               {1, 2, 3, 4}, {2, 2}, {10, 20, 30, 40}, &shape);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(*same, (std::vector<float>{1, 20, 30, 4}));
  auto rows = RunSelect<int32_t>(tflite::BuiltinOperator_SELECT, TensorType::kInt32, {3}, {0, 1, 0}, {3, 2},
                                 {1, 2, 3, 4, 5, 6}, {3, 2}, {-1, -2, -3, -4, -5, -6}, &shape);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(*rows, (std::vector<int32_t>{-1, -2, 3, 4, -5, -6}));
  EXPECT_EQ(shape, (Shape{3, 2}));
  auto scalar =
      RunSelect<int8_t>(tflite::BuiltinOperator_SELECT, TensorType::kInt8, {}, {1}, {2}, {7, 8}, {2}, {0, 0}, &shape);
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(*scalar, (std::vector<int8_t>{7, 8}));
}

TEST(Select, V1RejectsBroadcasting) {
  Shape shape;
  // Condition along dimension 1 is not a v1 form.
  EXPECT_FALSE((RunSelect<float>(tflite::BuiltinOperator_SELECT, TensorType::kFloat32, {2}, {1, 0}, {3, 2},
                                 std::vector<float>(6), {3, 2}, std::vector<float>(6), &shape)
                    .ok()));
  // x and y must match.
  EXPECT_FALSE(
      (RunSelect<float>(tflite::BuiltinOperator_SELECT, TensorType::kFloat32, {}, {1}, {2}, {1, 2}, {1}, {3}, &shape)
           .ok()));
}

TEST(Select, V2BroadcastsAllThree) {
  Shape shape;
  // condition [2,1], x [1,3], y scalar -> [2,3].
  auto got = RunSelect<float>(tflite::BuiltinOperator_SELECT_V2, TensorType::kFloat32, {2, 1}, {1, 0}, {1, 3},
                              {1, 2, 3}, {}, {-1}, &shape);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(shape, (Shape{2, 3}));
  EXPECT_EQ(*got, (std::vector<float>{1, 2, 3, -1, -1, -1}));
  // condition [3] along the last dimension of x [2,3]; int64 values.
  auto last = RunSelect<int64_t>(tflite::BuiltinOperator_SELECT_V2, TensorType::kInt64, {3}, {1, 0, 1}, {2, 3},
                                 {1, 2, 3, 4, 5, 6}, {2, 1}, {-7, -8}, &shape);
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_EQ(*last, (std::vector<int64_t>{1, -7, 3, 4, -8, 6}));
  // Rank 4 with size-1 dims in different places, uint8 values.
  std::vector<uint8_t> cond(2 * 3), x(3 * 4), y(2 * 4);
  for (size_t i = 0; i < cond.size(); ++i) cond[i] = i % 2;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(100 + i);
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<uint8_t>(i);
  auto r4 = RunSelect<uint8_t>(tflite::BuiltinOperator_SELECT_V2, TensorType::kUInt8, {2, 1, 3, 1}, cond, {1, 1, 3, 4},
                               x, {2, 1, 1, 4}, y, &shape);
  ASSERT_TRUE(r4.ok()) << r4.status().message();
  EXPECT_EQ(shape, (Shape{2, 1, 3, 4}));
  for (int b = 0; b < 2; ++b) {
    for (int h = 0; h < 3; ++h) {
      for (int w = 0; w < 4; ++w) {
        const uint8_t want = cond[b * 3 + h] ? x[h * 4 + w] : y[b * 4 + w];
        EXPECT_EQ((*r4)[(b * 3 + h) * 4 + w], want) << b << h << w;
      }
    }
  }
  EXPECT_FALSE((RunSelect<float>(tflite::BuiltinOperator_SELECT_V2, TensorType::kFloat32, {2}, {1, 0}, {3}, {1, 2, 3},
                                 {3}, {1, 2, 3}, &shape)
                    .ok()));
}

TEST(Select, ConditionMustBeBool) {
  SingleOp op(tflite::BuiltinOperator_SELECT_V2);
  op.Input(TensorType::kInt32, {2});
  op.Input(TensorType::kFloat32, {2});
  op.Input(TensorType::kFloat32, {2});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
