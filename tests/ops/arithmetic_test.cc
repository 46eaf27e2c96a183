// ADD, SUB, MUL, DIV: broadcasting (rank 0 to rank 5), fused activations, integer types.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

struct ArithmeticCase {
  tflite::BuiltinOperator op;
  tflite::BuiltinOptions options_type;
  float (*expected)(float, float);
};

const ArithmeticCase kCases[] = {
    {tflite::BuiltinOperator_ADD, tflite::BuiltinOptions_AddOptions, [](float a, float b) { return a + b; }},
    {tflite::BuiltinOperator_SUB, tflite::BuiltinOptions_SubOptions, [](float a, float b) { return a - b; }},
    {tflite::BuiltinOperator_MUL, tflite::BuiltinOptions_MulOptions, [](float a, float b) { return a * b; }},
    {tflite::BuiltinOperator_DIV, tflite::BuiltinOptions_DivOptions, [](float a, float b) { return a / b; }},
};

ModelBuilder::OptionsWriter ActivationOptions(tflite::BuiltinOptions type, tflite::ActivationFunctionType act) {
  return [type, act](flatbuffers::FlatBufferBuilder& fbb) -> flatbuffers::Offset<void> {
    switch (type) {
      case tflite::BuiltinOptions_AddOptions: return tflite::CreateAddOptions(fbb, act).Union();
      case tflite::BuiltinOptions_SubOptions: return tflite::CreateSubOptions(fbb, act).Union();
      case tflite::BuiltinOptions_MulOptions: return tflite::CreateMulOptions(fbb, act).Union();
      default: return tflite::CreateDivOptions(fbb, act).Union();
    }
  };
}

// Index of an element of `shape` when broadcast from an output index (numpy rules), computed
// directly from coordinates.
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

TEST(Arithmetic, FloatBroadcastingAllRanks) {
  const std::vector<std::tuple<Shape, Shape, Shape>> shapes = {
      {{}, {}, {}},                         // scalars
      {{2, 3}, {}, {2, 3}},                 // rank-0 broadcast
      {{}, {4}, {4}},
      {{2, 1, 3}, {4, 1}, {2, 4, 3}},       // both sides broadcast
      {{1, 2, 1, 3, 1}, {2, 1, 4, 1, 5}, {2, 2, 4, 3, 5}},  // rank 5
      {{3, 1}, {3, 4}, {3, 4}},
      {{0, 3}, {1, 3}, {0, 3}},             // empty
  };
  for (const auto& c : kCases) {
    for (const auto& [sa, sb, so] : shapes) {
      SingleOp op(c.op);
      op.Input(TensorType::kFloat32, sa);
      op.Input(TensorType::kFloat32, sb);
      op.Output(TensorType::kFloat32);
      auto interpreter = op.Build();
      ASSERT_TRUE(interpreter) << tflite::EnumNameBuiltinOperator(c.op) << ShapeToString(sa) << ShapeToString(sb);
      const auto a = testing::RandomFloats(NumElements(sa), 1);
      auto b = testing::RandomFloats(NumElements(sb), 2, 0.5f, 2.0f);
      SetInput(*interpreter, 0, a);
      SetInput(*interpreter, 1, b);
      ASSERT_TRUE(interpreter->Invoke().ok());
      ASSERT_EQ(interpreter->output(0)->shape, so);
      const auto got = GetOutput<float>(*interpreter, 0);
      for (int64_t i = 0; i < NumElements(so); ++i) {
        const float want = c.expected(a[BroadcastIndex(sa, so, i)], b[BroadcastIndex(sb, so, i)]);
        ASSERT_FLOAT_EQ(got[i], want) << tflite::EnumNameBuiltinOperator(c.op) << " element " << i;
      }
    }
  }
}

TEST(Arithmetic, FusedActivations) {
  const std::vector<float> a = {-8, -3, -0.5f, 0, 0.5f, 3, 8};
  const std::vector<float> zero(7, 0.0f);
  struct Act {
    tflite::ActivationFunctionType act;
    float lo, hi;
  };
  for (const Act& act : {Act{tflite::ActivationFunctionType_NONE, -1e9f, 1e9f},
                         Act{tflite::ActivationFunctionType_RELU, 0, 1e9f},
                         Act{tflite::ActivationFunctionType_RELU6, 0, 6},
                         Act{tflite::ActivationFunctionType_RELU_N1_TO_1, -1, 1}}) {
    SingleOp op(tflite::BuiltinOperator_ADD);
    op.Input(TensorType::kFloat32, {7});
    op.Input(TensorType::kFloat32, {7});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_AddOptions, ActivationOptions(tflite::BuiltinOptions_AddOptions, act.act));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, a);
    SetInput(*interpreter, 1, zero);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const auto got = GetOutput<float>(*interpreter, 0);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], std::min(std::max(a[i], act.lo), act.hi));
  }
}

TEST(Arithmetic, Int32AndInt64) {
  {
    SingleOp op(tflite::BuiltinOperator_MUL);
    op.Input(TensorType::kInt32, {4});
    op.Const<int32_t>(TensorType::kInt32, {1}, {-3});
    op.Output(TensorType::kInt32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {1, -2, 1000000, 0});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{-3, 6, -3000000, 0}));
  }
  {
    SingleOp op(tflite::BuiltinOperator_SUB);
    op.Input(TensorType::kInt64, {2});
    op.Input(TensorType::kInt64, {2});
    op.Output(TensorType::kInt64);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int64_t>(*interpreter, 0, {int64_t{1} << 40, 5});
    SetInput<int64_t>(*interpreter, 1, {1, 7});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{(int64_t{1} << 40) - 1, -2}));
  }
}

TEST(Arithmetic, IntegerDivisionTruncatesAndRejectsZero) {
  SingleOp op(tflite::BuiltinOperator_DIV);
  op.Input(TensorType::kInt32, {4});
  op.Input(TensorType::kInt32, {4});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {7, -7, 7, -7});
  SetInput<int32_t>(*interpreter, 1, {2, 2, -2, -2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3, -3, -3, 3}));
  SetInput<int32_t>(*interpreter, 1, {2, 0, 1, 1});
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("division by zero"), std::string::npos);
}

TEST(Arithmetic, FloatDivisionByZeroGivesInfinity) {
  SingleOp op(tflite::BuiltinOperator_DIV);
  op.Input(TensorType::kFloat32, {3});
  op.Input(TensorType::kFloat32, {3});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, -1, 0});
  SetInput<float>(*interpreter, 1, {0, 0, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<float>(*interpreter, 0);
  EXPECT_TRUE(std::isinf(got[0]) && got[0] > 0);
  EXPECT_TRUE(std::isinf(got[1]) && got[1] < 0);
  EXPECT_TRUE(std::isnan(got[2]));
}

TEST(Arithmetic, IncompatibleShapesAreAPrepareError) {
  SingleOp op(tflite::BuiltinOperator_ADD);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Input(TensorType::kFloat32, {4});
  op.Output(TensorType::kFloat32);
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[2,3] and [4]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("op 0 (ADD v1)"), std::string::npos) << st.message();
}

TEST(Arithmetic, MixedTypesAreAPrepareError) {
  SingleOp op(tflite::BuiltinOperator_MUL);
  op.Input(TensorType::kFloat32, {2});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
