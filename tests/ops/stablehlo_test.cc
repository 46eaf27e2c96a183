// STABLEHLO_* ops and REDUCE_WINDOW: element-wise ADD/MULTIPLY/MAXIMUM/MINIMUM/AND/SHIFT_LEFT,
// PAD, GATHER, SCATTER, REDUCE_WINDOW (both forms), RNG_BIT_GENERATOR and CASE. Expected values
// come from the StableHLO specification's examples, hand computation, loops written from the
// definitions here, or Random123's published known answers for the generators.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "quant/float16.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

// Like testing::SingleOp, for ops whose options live in builtin_options_2.
class SingleOp2 {
 public:
  explicit SingleOp2(tflite::BuiltinOperator op) : op_(op) {}
  int Input(TensorType type, Shape shape) {
    const int t = builder_.AddTensor("in" + std::to_string(inputs_.size()), type, shape);
    inputs_.push_back(t);
    graph_inputs_.push_back(t);
    return t;
  }
  template <class T>
  int Const(TensorType type, Shape shape, const std::vector<T>& values) {
    const int t = builder_.AddConstant("const" + std::to_string(inputs_.size()), type, shape, values);
    inputs_.push_back(t);
    return t;
  }
  int Output(TensorType type, Shape shape = {}) {
    const int t = builder_.AddTensor("out" + std::to_string(outputs_.size()), type, shape);
    outputs_.push_back(t);
    return t;
  }
  void Options2(tflite::BuiltinOptions2 type, ModelBuilder::OptionsWriter writer) {
    type_ = type;
    writer_ = std::move(writer);
  }
  std::vector<uint8_t> Bytes() {
    ModelBuilder b = builder_;
    b.AddOp2(op_, inputs_, outputs_, type_, writer_);
    b.SetInputs(graph_inputs_);
    b.SetOutputs(outputs_);
    return b.Finish();
  }
  std::unique_ptr<Interpreter> Build() { return testing::Build(Bytes()); }
  Status TryBuild() { return testing::TryBuild(Bytes()); }

 private:
  tflite::BuiltinOperator op_;
  ModelBuilder builder_;
  std::vector<int> inputs_, graph_inputs_, outputs_;
  tflite::BuiltinOptions2 type_ = tflite::BuiltinOptions2_NONE;
  ModelBuilder::OptionsWriter writer_;
};

#define ASSERT_INVOKE(interpreter)                            \
  do {                                                        \
    const ::edgerun::Status st_ = (interpreter).Invoke();     \
    ASSERT_TRUE(st_.ok()) << st_.message();                   \
  } while (0)

// A model with one two-input element-wise op.
template <class T>
std::vector<T> Binary(tflite::BuiltinOperator op, TensorType type, const std::vector<T>& a, const std::vector<T>& b) {
  SingleOp model(op);
  model.Input(type, {static_cast<int32_t>(a.size())});
  model.Input(type, {static_cast<int32_t>(b.size())});
  model.Output(type);
  auto interpreter = model.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, a);
  SetInput(*interpreter, 1, b);
  const Status st = interpreter->Invoke();
  EXPECT_TRUE(st.ok()) << st.message();
  return GetOutput<T>(*interpreter, 0);
}

// ---- element-wise

TEST(StablehloElementwise, AddWrapsIntegersAndOrsBools) {
  EXPECT_EQ(Binary<float>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kFloat32, {1.5f, -2, 0}, {2, 2, -0.25f}),
            (std::vector<float>{3.5f, 0, -0.25f}));
  EXPECT_EQ(Binary<int8_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kInt8, {127, -128, 5}, {1, -1, -7}),
            (std::vector<int8_t>{-128, 127, -2}));
  EXPECT_EQ(Binary<int32_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kInt32,
                            {std::numeric_limits<int32_t>::max()}, {2}),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min() + 1}));
  EXPECT_EQ(Binary<uint32_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kUInt32, {0xffffffffu, 7}, {2, 8}),
            (std::vector<uint32_t>{1, 15}));
  EXPECT_EQ(Binary<uint8_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kBool, {1, 1, 0, 0}, {1, 0, 1, 0}),
            (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(Binary<double>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kFloat64, {0.1}, {0.2}),
            (std::vector<double>{0.1 + 0.2}));
}

TEST(StablehloElementwise, Float16RoundsThroughFloat) {
  const std::vector<uint16_t> a{FloatToHalf(1.5f), FloatToHalf(2048.0f)};
  const std::vector<uint16_t> b{FloatToHalf(2.25f), FloatToHalf(1.0f)};
  const auto sum = Binary<uint16_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kFloat16, a, b);
  ASSERT_EQ(sum.size(), 2u);
  EXPECT_EQ(HalfToFloat(sum[0]), 3.75f);
  EXPECT_EQ(HalfToFloat(sum[1]), 2048.0f);  // 2049 is not a half: ties to even
  const auto product = Binary<uint16_t>(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, TensorType::kFloat16, a, b);
  EXPECT_EQ(HalfToFloat(product[0]), 3.375f);
}

TEST(StablehloElementwise, Multiply) {
  EXPECT_EQ(Binary<int16_t>(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, TensorType::kInt16, {300, -7, 256}, {300, 6, 256}),
            (std::vector<int16_t>{static_cast<int16_t>(90000 - 65536 * 1), -42, 0}));
  EXPECT_EQ(Binary<uint16_t>(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, TensorType::kUInt16, {65535}, {65535}),
            (std::vector<uint16_t>{1}));
  EXPECT_EQ(Binary<uint8_t>(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, TensorType::kBool, {1, 1, 0}, {1, 0, 0}),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(Binary<int64_t>(tflite::BuiltinOperator_STABLEHLO_MULTIPLY, TensorType::kInt64, {int64_t{1} << 40}, {-3}),
            (std::vector<int64_t>{-(int64_t{3} << 40)}));
}

TEST(StablehloElementwise, MaximumAndMinimumKeepStdSemanticsForNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto max = Binary<float>(tflite::BuiltinOperator_STABLEHLO_MAXIMUM, TensorType::kFloat32, {nan, 1, -3, 2},
                                 {1, nan, -4, 2});
  ASSERT_EQ(max.size(), 4u);
  EXPECT_TRUE(std::isnan(max[0]));  // std::max(a, b) keeps a when the comparison fails
  EXPECT_EQ(max[1], 1);
  EXPECT_EQ(max[2], -3);
  EXPECT_EQ(max[3], 2);
  const auto min = Binary<float>(tflite::BuiltinOperator_STABLEHLO_MINIMUM, TensorType::kFloat32, {nan, 1, -3},
                                 {1, nan, -4});
  EXPECT_TRUE(std::isnan(min[0]));
  EXPECT_EQ(min[1], 1);
  EXPECT_EQ(min[2], -4);
  EXPECT_EQ(Binary<uint8_t>(tflite::BuiltinOperator_STABLEHLO_MINIMUM, TensorType::kUInt8, {200, 3}, {100, 250}),
            (std::vector<uint8_t>{100, 3}));
  EXPECT_EQ(Binary<int64_t>(tflite::BuiltinOperator_STABLEHLO_MAXIMUM, TensorType::kInt64, {-5, 9}, {-6, 10}),
            (std::vector<int64_t>{-5, 10}));
}

TEST(StablehloElementwise, AndIsBitwiseForIntegersLogicalForBool) {
  EXPECT_EQ(Binary<int32_t>(tflite::BuiltinOperator_STABLEHLO_AND, TensorType::kInt32, {0b1100, -1, 7}, {0b1010, 42, 0}),
            (std::vector<int32_t>{0b1000, 42, 0}));
  EXPECT_EQ(Binary<uint8_t>(tflite::BuiltinOperator_STABLEHLO_AND, TensorType::kUInt8, {0xf0}, {0x3c}),
            (std::vector<uint8_t>{0x30}));
  EXPECT_EQ(Binary<uint8_t>(tflite::BuiltinOperator_STABLEHLO_AND, TensorType::kBool, {1, 1, 0}, {1, 0, 1}),
            (std::vector<uint8_t>{1, 0, 0}));
  SingleOp float_and(tflite::BuiltinOperator_STABLEHLO_AND);
  float_and.Input(TensorType::kFloat32, {2});
  float_and.Input(TensorType::kFloat32, {2});
  float_and.Output(TensorType::kFloat32);
  EXPECT_FALSE(float_and.TryBuild().ok());
}

TEST(StablehloElementwise, ShiftLeft) {
  EXPECT_EQ(Binary<int8_t>(tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT, TensorType::kInt8, {1, 1, 3, -1, 5},
                           {7, 8, 2, 1, -1}),
            (std::vector<int8_t>{-128, 0, 12, -2, 0}));
  EXPECT_EQ(Binary<int32_t>(tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT, TensorType::kInt32, {1, 1, 0x40000000},
                            {31, 32, 1}),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 0, std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(Binary<int16_t>(tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT, TensorType::kInt16, {3}, {4}),
            (std::vector<int16_t>{48}));
  SingleOp float_shift(tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT);
  float_shift.Input(TensorType::kFloat32, {2});
  float_shift.Input(TensorType::kFloat32, {2});
  float_shift.Output(TensorType::kFloat32);
  EXPECT_FALSE(float_shift.TryBuild().ok());
}

TEST(StablehloElementwise, ShapesMustMatch) {
  for (auto op : {tflite::BuiltinOperator_STABLEHLO_ADD, tflite::BuiltinOperator_STABLEHLO_MULTIPLY,
                  tflite::BuiltinOperator_STABLEHLO_MAXIMUM, tflite::BuiltinOperator_STABLEHLO_MINIMUM,
                  tflite::BuiltinOperator_STABLEHLO_AND, tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT}) {
    SingleOp broadcast(op);
    broadcast.Input(TensorType::kInt32, {2, 3});
    broadcast.Input(TensorType::kInt32, {3});
    broadcast.Output(TensorType::kInt32);
    EXPECT_FALSE(broadcast.TryBuild().ok()) << BuiltinOpName(op);
    SingleOp types(op);
    types.Input(TensorType::kInt32, {3});
    types.Input(TensorType::kInt16, {3});
    types.Output(TensorType::kInt32);
    EXPECT_FALSE(types.TryBuild().ok()) << BuiltinOpName(op);
  }
  // Rank 0 and empty tensors are fine.
  EXPECT_EQ(Binary<int32_t>(tflite::BuiltinOperator_STABLEHLO_ADD, TensorType::kInt32, {}, {}), std::vector<int32_t>{});
}

// ---- PAD

std::unique_ptr<Interpreter> BuildPad(Shape shape, std::vector<int64_t> low, std::vector<int64_t> high,
                                      std::vector<int64_t> interior) {
  SingleOp2 op(tflite::BuiltinOperator_STABLEHLO_PAD);
  op.Input(TensorType::kInt32, shape);
  op.Const(TensorType::kInt32, {}, std::vector<int32_t>{-1});
  op.Output(TensorType::kInt32);
  op.Options2(tflite::BuiltinOptions2_StablehloPadOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloPadOptions(fbb, fbb.CreateVector(low), fbb.CreateVector(high),
                                             fbb.CreateVector(interior))
        .Union();
  });
  return op.Build();
}

TEST(StablehloPad, SpecExample) {
  auto interpreter = BuildPad({2, 3}, {0, 1}, {2, 1}, {1, 2});
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{5, 9}));
  const int32_t p = -1;
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{
                                                     p, 1, p, p, 2, p, p, 3, p,  //
                                                     p, p, p, p, p, p, p, p, p,  //
                                                     p, 4, p, p, 5, p, p, 6, p,  //
                                                     p, p, p, p, p, p, p, p, p,  //
                                                     p, p, p, p, p, p, p, p, p}));
}

TEST(StablehloPad, NegativePaddingCrops) {
  // Interior-padded [1 p 2 p 3 p 4 p 5], minus 1 element in front and 2 at the back.
  auto interpreter = BuildPad({5}, {-1}, {-2}, {1});
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{-1, 2, -1, 3, -1, 4}));
  auto plain = BuildPad({2, 2}, {1, -1}, {0, 2}, {0, 0});
  ASSERT_TRUE(plain);
  SetInput<int32_t>(*plain, 0, {1, 2, 3, 4});
  ASSERT_INVOKE(*plain);
  EXPECT_EQ(plain->output(0)->shape, (Shape{3, 3}));
  EXPECT_EQ(GetOutput<int32_t>(*plain, 0), (std::vector<int32_t>{-1, -1, -1, 2, -1, -1, 4, -1, -1}));
}

TEST(StablehloPad, CroppingEverythingGivesAnAllZeroShape) {
  // As in TFLite: one non-positive output dimension makes every dimension 0.
  auto interpreter = BuildPad({2, 3}, {0, -3}, {0, 0}, {0, 0});
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0, 0}));
}

TEST(StablehloPad, BadOptionsAreErrors) {
  SingleOp2 interior(tflite::BuiltinOperator_STABLEHLO_PAD);
  interior.Input(TensorType::kFloat32, {3});
  interior.Const(TensorType::kFloat32, {}, std::vector<float>{0});
  interior.Output(TensorType::kFloat32);
  interior.Options2(tflite::BuiltinOptions2_StablehloPadOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloPadOptions(fbb, fbb.CreateVector(std::vector<int64_t>{0}),
                                             fbb.CreateVector(std::vector<int64_t>{0}),
                                             fbb.CreateVector(std::vector<int64_t>{-1}))
        .Union();
  });
  EXPECT_FALSE(interior.TryBuild().ok());
  SingleOp2 sizes(tflite::BuiltinOperator_STABLEHLO_PAD);
  sizes.Input(TensorType::kFloat32, {3, 2});
  sizes.Const(TensorType::kFloat32, {}, std::vector<float>{0});
  sizes.Output(TensorType::kFloat32);
  sizes.Options2(tflite::BuiltinOptions2_StablehloPadOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloPadOptions(fbb, fbb.CreateVector(std::vector<int64_t>{1}),
                                             fbb.CreateVector(std::vector<int64_t>{1, 1}),
                                             fbb.CreateVector(std::vector<int64_t>{0, 0}))
        .Union();
  });
  EXPECT_FALSE(sizes.TryBuild().ok());
  SingleOp2 value(tflite::BuiltinOperator_STABLEHLO_PAD);
  value.Input(TensorType::kFloat32, {3});
  value.Const(TensorType::kFloat32, {2}, std::vector<float>{0, 1});  // two padding values
  value.Output(TensorType::kFloat32);
  value.Options2(tflite::BuiltinOptions2_StablehloPadOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloPadOptions(fbb, fbb.CreateVector(std::vector<int64_t>{0}),
                                             fbb.CreateVector(std::vector<int64_t>{0}),
                                             fbb.CreateVector(std::vector<int64_t>{0}))
        .Union();
  });
  EXPECT_FALSE(value.TryBuild().ok());
}

// ---- GATHER

struct GatherSpec {
  std::vector<int64_t> offset_dims, collapsed, start_index_map, slice_sizes;
  int64_t index_vector_dim = 0;
};

ModelBuilder::OptionsWriter GatherOptions(GatherSpec s) {
  return [s](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloGatherOptions(fbb, fbb.CreateVector(s.offset_dims), fbb.CreateVector(s.collapsed),
                                                fbb.CreateVector(s.start_index_map), s.index_vector_dim,
                                                fbb.CreateVector(s.slice_sizes))
        .Union();
  };
}

TEST(StablehloGather, SpecExample) {
  SingleOp2 op(tflite::BuiltinOperator_STABLEHLO_GATHER);
  op.Input(TensorType::kInt32, {3, 4, 2});
  op.Input(TensorType::kInt64, {2, 3, 2});
  op.Output(TensorType::kInt32);
  op.Options2(tflite::BuiltinOptions2_StablehloGatherOptions, GatherOptions({{2, 3}, {0}, {1, 0}, {1, 2, 2}, 2}));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  std::vector<int32_t> operand(24);
  for (int i = 0; i < 24; ++i) operand[i] = i + 1;
  SetInput(*interpreter, 0, operand);
  SetInput<int64_t>(*interpreter, 1, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 2});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 3, 2, 2}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0),
            (std::vector<int32_t>{1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16, 9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20}));
  // Start indices are clamped so that the slice fits: [3, 2] -> [2, 2] (dims 1, 0), [-5, 0] -> 0.
  SetInput<int64_t>(*interpreter, 1, {3, 2, -5, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  ASSERT_INVOKE(*interpreter);
  const auto got = GetOutput<int32_t>(*interpreter, 0);
  EXPECT_EQ(std::vector<int32_t>(got.begin(), got.begin() + 8), (std::vector<int32_t>{21, 22, 23, 24, 1, 2, 3, 4}));
}

TEST(StablehloGather, ImplicitIndexVectorDimIsGather) {
  // index_vector_dim = rank(indices): each index is a 1-vector; the same as GATHER on axis 0.
  SingleOp2 op(tflite::BuiltinOperator_STABLEHLO_GATHER);
  op.Input(TensorType::kFloat32, {5, 2});
  op.Input(TensorType::kInt32, {3});
  op.Output(TensorType::kFloat32);
  op.Options2(tflite::BuiltinOptions2_StablehloGatherOptions, GatherOptions({{1}, {0}, {0}, {1, 2}, 1}));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
  SetInput<int32_t>(*interpreter, 1, {4, 0, 2});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{40, 41, 0, 1, 20, 21}));
}

TEST(StablehloGather, InvalidDimensionNumbersAreErrors) {
  auto build = [](GatherSpec spec) {
    SingleOp2 op(tflite::BuiltinOperator_STABLEHLO_GATHER);
    op.Input(TensorType::kFloat32, {5, 2});
    op.Input(TensorType::kInt32, {3, 1});
    op.Output(TensorType::kFloat32);
    op.Options2(tflite::BuiltinOptions2_StablehloGatherOptions, GatherOptions(spec));
    return op.TryBuild();
  };
  EXPECT_TRUE(build({{1}, {0}, {0}, {1, 2}, 1}).ok());
  EXPECT_FALSE(build({{1}, {0}, {0}, {6, 2}, 1}).ok());     // slice larger than the operand
  EXPECT_FALSE(build({{1}, {0}, {0}, {1, 2, 1}, 1}).ok());  // slice_sizes of the wrong rank
  EXPECT_FALSE(build({{1}, {0}, {2}, {1, 2}, 1}).ok());     // start_index_map outside the operand
  EXPECT_FALSE(build({{1}, {0}, {0, 1}, {1, 2}, 1}).ok());  // more mapped dims than the index vector
  EXPECT_FALSE(build({{}, {0}, {0}, {1, 2}, 1}).ok());      // offset dims miss a slice dim
  EXPECT_FALSE(build({{1}, {0}, {0}, {1, 2}, 3}).ok());     // index_vector_dim past the rank
  EXPECT_FALSE(build({{1}, {0}, {0}, {2, 2}, 1}).ok());     // collapsed dim with slice size 2
  EXPECT_FALSE(build({{1}, {0}, {0}, {0, 2}, 1}).ok());     // collapsed dim with slice size 0
}

// ---- computation subgraphs

// Adds a subgraph computing op(a, b) on scalars of `type` (ops: one, or a chain when `extra`);
// returns its index. The builder's current subgraph is restored to 0.
int AddBody(ModelBuilder& b, TensorType type, std::vector<tflite::BuiltinOperator> ops) {
  const int index = b.AddSubgraph("body");
  const int x = b.AddTensor("a", type, {});
  const int y = b.AddTensor("b", type, {});
  int result = -1;
  if (ops.empty()) {
    result = y;
  } else {
    int lhs = x;
    for (size_t i = 0; i < ops.size(); ++i) {
      result = b.AddTensor("r" + std::to_string(i), type, {});
      b.AddOp(ops[i], {lhs, i == 0 ? y : lhs}, {result});
      lhs = result;
    }
  }
  b.SetInputs({x, y});
  b.SetOutputs({result});
  b.SetSubgraph(0);
  return index;
}

// ---- SCATTER

struct ScatterSpec {
  std::vector<int64_t> window_dims, inserted, to_operand;
  int64_t index_vector_dim = 1;
};

std::unique_ptr<Interpreter> BuildScatter(TensorType type, Shape operand, Shape indices, Shape updates,
                                          ScatterSpec s, std::vector<tflite::BuiltinOperator> body) {
  ModelBuilder b;
  const int o = b.AddTensor("operand", type, operand);
  const int i = b.AddTensor("indices", TensorType::kInt32, indices);
  const int u = b.AddTensor("updates", type, updates);
  const int out = b.AddTensor("out", type, operand);
  b.SetInputs({o, i, u});
  b.SetOutputs({out});
  const int computation = AddBody(b, type, body);
  b.AddOp2(tflite::BuiltinOperator_STABLEHLO_SCATTER, {o, i, u}, {out}, tflite::BuiltinOptions2_StablehloScatterOptions,
           [=](flatbuffers::FlatBufferBuilder& fbb) {
             return tflite::CreateStablehloScatterOptions(fbb, false, fbb.CreateVector(s.window_dims),
                                                          fbb.CreateVector(s.inserted), fbb.CreateVector(s.to_operand),
                                                          s.index_vector_dim, false, computation)
                 .Union();
           });
  return testing::Build(b.Finish());
}

const ScatterSpec kPointScatter{{}, {0}, {0}, 1};

TEST(StablehloScatter, RecognizedComputations) {
  struct Case {
    std::vector<tflite::BuiltinOperator> body;
    std::vector<int32_t> want;
  };
  // operand [1 2 3 4 5]; updates 10 -> [1], 20 -> [3], 30 -> [1], 99 -> [5] (outside: skipped).
  const std::vector<Case> cases = {
      {{tflite::BuiltinOperator_STABLEHLO_ADD}, {1, 42, 3, 24, 5}},
      {{tflite::BuiltinOperator_ADD}, {1, 42, 3, 24, 5}},
      {{}, {1, 30, 3, 20, 5}},  // no ops: replace, the last update wins
      {{tflite::BuiltinOperator_STABLEHLO_MULTIPLY}, {1, 600, 3, 80, 5}},
      {{tflite::BuiltinOperator_STABLEHLO_MAXIMUM}, {1, 30, 3, 20, 5}},
      {{tflite::BuiltinOperator_STABLEHLO_MINIMUM}, {1, 2, 3, 4, 5}},
  };
  for (const Case& c : cases) {
    auto interpreter = BuildScatter(TensorType::kInt32, {5}, {4, 1}, {4}, kPointScatter, c.body);
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5});
    SetInput<int32_t>(*interpreter, 1, {1, 3, 1, 5});
    SetInput<int32_t>(*interpreter, 2, {10, 20, 30, 99});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), c.want) << (c.body.empty() ? "update" : BuiltinOpName(c.body[0]));
  }
}

TEST(StablehloScatter, OtherComputationsRunTheSubgraph) {
  // SUB is not one TFLite recognizes: the subgraph runs per element, current - update.
  auto interpreter =
      BuildScatter(TensorType::kFloat32, {5}, {3, 1}, {3}, kPointScatter, {tflite::BuiltinOperator_SUB});
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5});
  SetInput<int32_t>(*interpreter, 1, {1, 3, 1});
  SetInput<float>(*interpreter, 2, {10, 20, 30});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 2 - 10 - 30, 3, 4 - 20, 5}));
  // Two chained ops: (current + update) + (current + update) = 2 * (current + update).
  auto twice = BuildScatter(TensorType::kFloat32, {5}, {1, 1}, {1}, kPointScatter,
                            {tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_ADD});
  ASSERT_TRUE(twice);
  SetInput<float>(*twice, 0, {1, 2, 3, 4, 5});
  SetInput<int32_t>(*twice, 1, {4});
  SetInput<float>(*twice, 2, {0.5f});
  ASSERT_INVOKE(*twice);
  EXPECT_EQ(GetOutput<float>(*twice, 0), (std::vector<float>{1, 2, 3, 4, 11}));
}

TEST(StablehloScatter, RowsWithWindows) {
  // Scatter-add rows: indices pick rows of a [3, 3] operand, updates are [2, 3] windows.
  auto interpreter = BuildScatter(TensorType::kInt32, {3, 3}, {2, 1}, {2, 3}, {{1}, {0}, {0}, 1},
                                  {tflite::BuiltinOperator_STABLEHLO_ADD});
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 1, 1, 2, 2, 2, 3, 3, 3});
  SetInput<int32_t>(*interpreter, 1, {2, 0});
  SetInput<int32_t>(*interpreter, 2, {10, 20, 30, 40, 50, 60});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{41, 51, 61, 2, 2, 2, 13, 23, 33}));
  // A window that runs past the operand is skipped element by element.
  SetInput<int32_t>(*interpreter, 1, {-1, 3});
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{1, 1, 1, 2, 2, 2, 3, 3, 3}));
}

TEST(StablehloScatter, InvalidDimensionNumbersAreErrors) {
  auto build = [](Shape indices, Shape updates, ScatterSpec s) {
    ModelBuilder b;
    const int o = b.AddTensor("operand", TensorType::kFloat32, {3, 3});
    const int i = b.AddTensor("indices", TensorType::kInt32, indices);
    const int u = b.AddTensor("updates", TensorType::kFloat32, updates);
    const int out = b.AddTensor("out", TensorType::kFloat32, {3, 3});
    b.SetInputs({o, i, u});
    b.SetOutputs({out});
    const int body = AddBody(b, TensorType::kFloat32, {tflite::BuiltinOperator_ADD});
    b.AddOp2(tflite::BuiltinOperator_STABLEHLO_SCATTER, {o, i, u}, {out},
             tflite::BuiltinOptions2_StablehloScatterOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
               return tflite::CreateStablehloScatterOptions(fbb, false, fbb.CreateVector(s.window_dims),
                                                            fbb.CreateVector(s.inserted),
                                                            fbb.CreateVector(s.to_operand), s.index_vector_dim, false,
                                                            body)
                   .Union();
             });
    return testing::TryBuild(b.Finish());
  };
  EXPECT_TRUE(build({2, 1}, {2, 3}, {{1}, {0}, {0}, 1}).ok());
  EXPECT_FALSE(build({2, 1}, {3, 3}, {{1}, {0}, {0}, 1}).ok());     // 3 updates for 2 indices
  EXPECT_FALSE(build({2, 1}, {2, 3}, {{1}, {}, {0}, 1}).ok());      // window + inserted != rank
  EXPECT_FALSE(build({2, 1}, {2, 3}, {{1}, {0}, {2}, 1}).ok());     // operand dim 2 does not exist
  EXPECT_FALSE(build({2, 1}, {2, 3}, {{1}, {0}, {0, 1}, 1}).ok());  // 2 mapped dims, vectors of 1
  EXPECT_FALSE(build({2, 1}, {2, 3}, {{3}, {0}, {0}, 1}).ok());     // window dim past the updates
}

// ---- REDUCE_WINDOW (TFLite's form)

// out[i][j] = fold over the window of a [rows, cols] row-major input (the definition).
template <class T, class Op>
std::vector<T> Windows2D(const std::vector<T>& in, int rows, int cols, int wr, int wc, int sr, int sc, int dr, int dc,
                         T init, Op op) {
  std::vector<T> out;
  const int span_r = (wr - 1) * dr + 1, span_c = (wc - 1) * dc + 1;
  for (int i = 0; i + span_r <= rows; i += sr) {
    for (int j = 0; j + span_c <= cols; j += sc) {
      T acc = init;
      for (int a = 0; a < wr; ++a)
        for (int c = 0; c < wc; ++c) acc = op(acc, in[(i + a * dr) * cols + j + c * dc]);
      out.push_back(acc);
    }
  }
  return out;
}

template <class T>
std::unique_ptr<Interpreter> BuildReduceWindow(TensorType type, Shape shape, T init, std::vector<int64_t> window,
                                               std::vector<int64_t> strides, std::vector<int64_t> dilations,
                                               tflite::ReduceWindowFunction function) {
  SingleOp2 op(tflite::BuiltinOperator_REDUCE_WINDOW);
  op.Input(type, shape);
  op.Const(type, {}, std::vector<T>{init});
  op.Const(TensorType::kInt64, {static_cast<int32_t>(window.size())}, window);
  op.Const(TensorType::kInt64, {static_cast<int32_t>(strides.size())}, strides);
  op.Const(TensorType::kInt64, {static_cast<int32_t>(dilations.size())}, dilations);
  op.Output(type);
  op.Options2(tflite::BuiltinOptions2_ReduceWindowOptions,
              [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateReduceWindowOptions(fbb, function).Union(); });
  return op.Build();
}

TEST(ReduceWindow, EveryFunctionOnFloats) {
  std::vector<float> in(20);
  for (int i = 0; i < 20; ++i) in[i] = static_cast<float>((i * 7) % 11) - 4.5f;
  struct Case {
    tflite::ReduceWindowFunction function;
    float init;
    float (*op)(float, float);
  };
  const Case cases[] = {
      {tflite::ReduceWindowFunction_ADD, 0.0f, [](float a, float b) { return a + b; }},
      {tflite::ReduceWindowFunction_MUL, 1.0f, [](float a, float b) { return a * b; }},
      {tflite::ReduceWindowFunction_MAXIMUM, -100.0f, [](float a, float b) { return a >= b ? a : b; }},
      {tflite::ReduceWindowFunction_MINIMUM, 100.0f, [](float a, float b) { return a <= b ? a : b; }},
  };
  for (const Case& c : cases) {
    for (auto [stride, dilation] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}}) {
      auto interpreter =
          BuildReduceWindow<float>(TensorType::kFloat32, {4, 5}, c.init, {2, 2}, {stride, 1}, {1, dilation}, c.function);
      ASSERT_TRUE(interpreter);
      SetInput(*interpreter, 0, in);
      ASSERT_INVOKE(*interpreter);
      const auto want = Windows2D<float>(in, 4, 5, 2, 2, stride, 1, 1, dilation, c.init, c.op);
      EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-4f))
          << "function " << c.function << " stride " << stride << " dilation " << dilation;
    }
  }
}

TEST(ReduceWindow, IntegersAndBools) {
  auto sum = BuildReduceWindow<int32_t>(TensorType::kInt32, {4, 4}, 0, {2, 2}, {2, 2}, {1, 1},
                                        tflite::ReduceWindowFunction_ADD);
  ASSERT_TRUE(sum);
  std::vector<int32_t> in(16);
  for (int i = 0; i < 16; ++i) in[i] = i + 1;
  SetInput(*sum, 0, in);
  ASSERT_INVOKE(*sum);
  EXPECT_EQ(sum->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<int32_t>(*sum, 0), (std::vector<int32_t>{14, 22, 46, 54}));
  // bool tensors hold one byte per value.
  for (auto [function, want] : {std::pair{tflite::ReduceWindowFunction_ALL, std::vector<uint8_t>{0, 1}},
                                std::pair{tflite::ReduceWindowFunction_ANY, std::vector<uint8_t>{1, 1}}}) {
    const uint8_t init = function == tflite::ReduceWindowFunction_ALL ? 1 : 0;
    auto logic = BuildReduceWindow<uint8_t>(TensorType::kBool, {4}, init, {2}, {2}, {1}, function);
    ASSERT_TRUE(logic);
    SetInput<uint8_t>(*logic, 0, {1, 0, 1, 1});
    ASSERT_INVOKE(*logic);
    EXPECT_EQ(GetOutput<uint8_t>(*logic, 0), want);
  }
}

TEST(ReduceWindow, WindowLargerThanTheInputGivesAnEmptyOutput) {
  auto interpreter = BuildReduceWindow<float>(TensorType::kFloat32, {3}, 0, {4}, {1}, {1},
                                              tflite::ReduceWindowFunction_ADD);
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0}));
  ASSERT_INVOKE(*interpreter);
}

TEST(ReduceWindow, BadParametersAreErrors) {
  auto try_build = [](std::vector<int64_t> window, std::vector<int64_t> strides, tflite::ReduceWindowFunction f,
                      TensorType type = TensorType::kFloat32) {
    SingleOp2 op(tflite::BuiltinOperator_REDUCE_WINDOW);
    op.Input(type, {4, 4});
    op.Input(type, {});
    op.Const(TensorType::kInt64, {static_cast<int32_t>(window.size())}, window);
    op.Const(TensorType::kInt64, {static_cast<int32_t>(strides.size())}, strides);
    op.Const(TensorType::kInt64, {2}, std::vector<int64_t>{1, 1});
    op.Output(type);
    op.Options2(tflite::BuiltinOptions2_ReduceWindowOptions,
                [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateReduceWindowOptions(fbb, f).Union(); });
    return op.TryBuild();
  };
  EXPECT_TRUE(try_build({2, 2}, {1, 1}, tflite::ReduceWindowFunction_ADD).ok());
  EXPECT_FALSE(try_build({2}, {1, 1}, tflite::ReduceWindowFunction_ADD).ok());       // window of the wrong rank
  EXPECT_FALSE(try_build({2, 2}, {0, 1}, tflite::ReduceWindowFunction_ADD).ok());    // zero stride
  EXPECT_FALSE(try_build({2, 0}, {1, 1}, tflite::ReduceWindowFunction_ADD).ok());    // empty window
  EXPECT_FALSE(try_build({2, 2}, {1, 1}, tflite::ReduceWindowFunction_UNSUPPORTED).ok());
  EXPECT_FALSE(try_build({2, 2}, {1, 1}, tflite::ReduceWindowFunction_ADD, TensorType::kFloat16).ok());
}

// ---- STABLEHLO_REDUCE_WINDOW

struct WindowSpec {
  std::vector<int64_t> window, strides, base_dilations, window_dilations, padding;
};

template <class T>
std::unique_ptr<Interpreter> BuildStablehloReduceWindow(TensorType type, Shape shape, T init, WindowSpec s,
                                                        std::vector<tflite::BuiltinOperator> body) {
  ModelBuilder b;
  const int in = b.AddTensor("in", type, shape);
  const int init_tensor = b.AddConstant("init", type, {}, std::vector<T>{init});
  const int out = b.AddTensor("out", type, {});
  b.SetInputs({in});
  b.SetOutputs({out});
  const int computation = AddBody(b, type, body);
  auto vec = [](flatbuffers::FlatBufferBuilder& fbb, const std::vector<int64_t>& v) {
    return v.empty() ? flatbuffers::Offset<flatbuffers::Vector<int64_t>>() : fbb.CreateVector(v);
  };
  b.AddOp2(tflite::BuiltinOperator_STABLEHLO_REDUCE_WINDOW, {in, init_tensor}, {out},
           tflite::BuiltinOptions2_StablehloReduceWindowOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
             return tflite::CreateStablehloReduceWindowOptions(fbb, vec(fbb, s.window), vec(fbb, s.strides),
                                                               vec(fbb, s.base_dilations), vec(fbb, s.window_dilations),
                                                               vec(fbb, s.padding), computation)
                 .Union();
           });
  return testing::Build(b.Finish());
}

TEST(StablehloReduceWindow, SpecExample) {
  // stablehlo.reduce_window's example: [[1,2],[3,4],[5,6]], window [2,1], strides [4,1], base
  // dilations [2,1], window dilations [3,1], padding [[2,1],[0,0]] -> [[0,0],[3,4]].
  const WindowSpec spec{{2, 1}, {4, 1}, {2, 1}, {3, 1}, {2, 1, 0, 0}};
  for (auto body : {std::vector{tflite::BuiltinOperator_STABLEHLO_ADD},
                    std::vector{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_ADD}}) {
    auto interpreter = BuildStablehloReduceWindow<int64_t>(TensorType::kInt64, {3, 2}, 0, spec, body);
    ASSERT_TRUE(interpreter);
    SetInput<int64_t>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
    if (body.size() == 1) {
      EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{0, 0, 3, 4}));
    } else {
      // The two-op body (a + b) + (a + b) doubles at every step: 2 * (2 * (0 + p0) + p1).
      // Windows: {0 (pad), 0 (hole)} and {3, 0 (pad)} per column.
      EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{0, 0, 12, 16}));
    }
  }
}

TEST(StablehloReduceWindow, MatchesTheDefinitionWithDefaults) {
  // Only window_dimensions given: strides and dilations 1, no padding (max pooling 3x3).
  std::vector<float> in(30);
  for (int i = 0; i < 30; ++i) in[i] = std::sin(static_cast<float>(i));
  auto interpreter = BuildStablehloReduceWindow<float>(TensorType::kFloat32, {5, 6}, -1e9f, {{3, 3}, {}, {}, {}, {}},
                                                       {tflite::BuiltinOperator_STABLEHLO_MAXIMUM});
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, in);
  ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 4}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0),
            Windows2D<float>(in, 5, 6, 3, 3, 1, 1, 1, 1, -1e9f, [](float a, float b) { return a >= b ? a : b; }));
}

TEST(StablehloReduceWindow, BadOptionsAreErrors) {
  auto try_build = [](WindowSpec spec) {
    ModelBuilder b;
    const int in = b.AddTensor("in", TensorType::kFloat32, {4, 4});
    const int init = b.AddConstant("init", TensorType::kFloat32, {}, std::vector<float>{0});
    const int out = b.AddTensor("out", TensorType::kFloat32, {});
    b.SetInputs({in});
    b.SetOutputs({out});
    const int body = AddBody(b, TensorType::kFloat32, {tflite::BuiltinOperator_ADD});
    auto vec = [](flatbuffers::FlatBufferBuilder& fbb, const std::vector<int64_t>& v) {
      return v.empty() ? flatbuffers::Offset<flatbuffers::Vector<int64_t>>() : fbb.CreateVector(v);
    };
    b.AddOp2(tflite::BuiltinOperator_STABLEHLO_REDUCE_WINDOW, {in, init}, {out},
             tflite::BuiltinOptions2_StablehloReduceWindowOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
               return tflite::CreateStablehloReduceWindowOptions(fbb, vec(fbb, spec.window), vec(fbb, spec.strides),
                                                                 vec(fbb, spec.base_dilations),
                                                                 vec(fbb, spec.window_dilations),
                                                                 vec(fbb, spec.padding), body)
                   .Union();
             });
    return testing::TryBuild(b.Finish());
  };
  EXPECT_TRUE(try_build({{2, 2}, {1, 1}, {}, {}, {1, 1, 0, 0}}).ok());
  EXPECT_FALSE(try_build({{}, {}, {}, {}, {}}).ok());                 // no window
  EXPECT_FALSE(try_build({{2, 2, 2}, {}, {}, {}, {}}).ok());          // window of the wrong rank
  EXPECT_FALSE(try_build({{2, 2}, {0, 1}, {}, {}, {}}).ok());         // zero stride
  EXPECT_FALSE(try_build({{2, 2}, {}, {0, 1}, {}, {}}).ok());         // zero base dilation
  EXPECT_FALSE(try_build({{2, 2}, {}, {}, {}, {1, 1, 0}}).ok());      // odd padding count
  EXPECT_FALSE(try_build({{2, 2}, {}, {}, {}, {-5, 0, 0, 0}}).ok());  // crops below zero
  // A padded input of 2^31 x 2^31 elements cannot be built (TFLite materializes it).
  EXPECT_FALSE(try_build({{2, 2}, {}, {}, {}, {int64_t{1} << 31, 0, int64_t{1} << 31, 0}}).ok());
}

// ---- RNG_BIT_GENERATOR (Random123 known answers)

std::unique_ptr<Interpreter> BuildRng(tflite::RngAlgorithm algorithm, int state_size, TensorType out_type,
                                      Shape out_shape) {
  SingleOp2 op(tflite::BuiltinOperator_STABLEHLO_RNG_BIT_GENERATOR);
  op.Input(TensorType::kUInt64, {state_size});
  op.Output(TensorType::kUInt64, {state_size});
  op.Output(out_type, out_shape);
  op.Options2(tflite::BuiltinOptions2_StablehloRngBitGeneratorOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloRngBitGeneratorOptions(fbb, algorithm).Union();
  });
  return op.Build();
}

uint64_t Pair(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

TEST(StablehloRngBitGenerator, ThreefryKnownAnswer) {
  auto interpreter = BuildRng(tflite::RngAlgorithm_THREEFRY, 2, TensorType::kUInt32, {5});
  ASSERT_TRUE(interpreter);
  // key (0x13198a2e, 0x03707344), counter (0x243f6a88, 0x85a308d3) -> (0xc4923a9c, 0x483df7a0).
  SetInput<uint64_t>(*interpreter, 0, {Pair(0x13198a2e, 0x03707344), Pair(0x243f6a88, 0x85a308d3)});
  ASSERT_INVOKE(*interpreter);
  const auto bits = GetOutput<uint32_t>(*interpreter, 1);
  ASSERT_EQ(bits.size(), 5u);
  EXPECT_EQ(bits[0], 0xc4923a9cu);
  EXPECT_EQ(bits[1], 0x483df7a0u);
  // Three blocks were drawn (5 words): the counter advanced by 3, the key is unchanged.
  EXPECT_EQ(GetOutput<uint64_t>(*interpreter, 0),
            (std::vector<uint64_t>{Pair(0x13198a2e, 0x03707344), Pair(0x243f6a88 + 3, 0x85a308d3)}));
}

TEST(StablehloRngBitGenerator, PhiloxKnownAnswers) {
  {
    auto interpreter = BuildRng(tflite::RngAlgorithm_PHILOX, 3, TensorType::kUInt32, {4});
    ASSERT_TRUE(interpreter);
    // key (0xa4093822, 0x299f31d0), counter (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344).
    SetInput<uint64_t>(*interpreter, 0,
                       {Pair(0xa4093822, 0x299f31d0), Pair(0x243f6a88, 0x85a308d3), Pair(0x13198a2e, 0x03707344)});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetOutput<uint32_t>(*interpreter, 1),
              (std::vector<uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
    EXPECT_EQ(GetOutput<uint64_t>(*interpreter, 0),
              (std::vector<uint64_t>{Pair(0xa4093822, 0x299f31d0), Pair(0x243f6a89, 0x85a308d3),
                                     Pair(0x13198a2e, 0x03707344)}));
  }
  {
    // All zeros, DEFAULT algorithm (Philox), int64 output: the four words read as two int64.
    auto interpreter = BuildRng(tflite::RngAlgorithm_DEFAULT, 3, TensorType::kInt64, {2});
    ASSERT_TRUE(interpreter);
    SetInput<uint64_t>(*interpreter, 0, {0, 0, 0});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetOutput<int64_t>(*interpreter, 1),
              (std::vector<int64_t>{static_cast<int64_t>(Pair(0x6627e8d5, 0xe169c58d)),
                                    static_cast<int64_t>(Pair(0xbc57ac4c, 0x9b00dbd8))}));
  }
  {
    // A u64[2] state: the upper counter words are the key words (TFLite's layout).
    auto interpreter = BuildRng(tflite::RngAlgorithm_PHILOX, 2, TensorType::kUInt32, {4});
    ASSERT_TRUE(interpreter);
    SetInput<uint64_t>(*interpreter, 0, {0, 0});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetOutput<uint32_t>(*interpreter, 1),
              (std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
    EXPECT_EQ(GetOutput<uint64_t>(*interpreter, 0), (std::vector<uint64_t>{0, 1}));
  }
}

TEST(StablehloRngBitGenerator, BadStatesAreErrors) {
  SingleOp2 threefry(tflite::BuiltinOperator_STABLEHLO_RNG_BIT_GENERATOR);
  threefry.Input(TensorType::kUInt64, {3});
  threefry.Output(TensorType::kUInt64, {3});
  threefry.Output(TensorType::kUInt32, {4});
  threefry.Options2(tflite::BuiltinOptions2_StablehloRngBitGeneratorOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateStablehloRngBitGeneratorOptions(fbb, tflite::RngAlgorithm_THREEFRY).Union();
  });
  EXPECT_FALSE(threefry.TryBuild().ok());
  SingleOp2 signed_state(tflite::BuiltinOperator_STABLEHLO_RNG_BIT_GENERATOR);
  signed_state.Input(TensorType::kInt64, {2});
  signed_state.Output(TensorType::kInt64, {2});
  signed_state.Output(TensorType::kUInt32, {4});
  EXPECT_FALSE(signed_state.TryBuild().ok());
  SingleOp2 float_out(tflite::BuiltinOperator_STABLEHLO_RNG_BIT_GENERATOR);
  float_out.Input(TensorType::kUInt64, {2});
  float_out.Output(TensorType::kUInt64, {2});
  float_out.Output(TensorType::kFloat32, {4});
  EXPECT_FALSE(float_out.TryBuild().ok());
}

// ---- CASE

TEST(StablehloCase, RunsTheIndexedBranchAndTheLastOneOutOfRange) {
  ModelBuilder b;
  const int index = b.AddTensor("index", TensorType::kInt32, {});
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.SetInputs({index, x});
  b.SetOutputs({y});
  std::vector<int32_t> branches;
  for (auto [op, k] : {std::pair{tflite::BuiltinOperator_ADD, 1.0f}, std::pair{tflite::BuiltinOperator_MUL, 3.0f},
                       std::pair{tflite::BuiltinOperator_SUB, 5.0f}}) {
    branches.push_back(b.AddSubgraph("branch"));
    const int in = b.AddTensor("in", TensorType::kFloat32, {2});
    const int c = b.AddConstant("k", TensorType::kFloat32, {}, std::vector<float>{k});
    const int out = b.AddTensor("out", TensorType::kFloat32, {2});
    b.AddOp(op, {in, c}, {out});
    b.SetInputs({in});
    b.SetOutputs({out});
  }
  b.SetSubgraph(0);
  b.AddOp2(tflite::BuiltinOperator_STABLEHLO_CASE, {index, x}, {y}, tflite::BuiltinOptions2_StablehloCaseOptions,
           [=](flatbuffers::FlatBufferBuilder& fbb) {
             return tflite::CreateStablehloCaseOptions(fbb, fbb.CreateVector(branches)).Union();
           });
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 1, {2, 4});
  for (auto [i, want] : {std::pair{0, std::vector<float>{3, 5}}, std::pair{1, std::vector<float>{6, 12}},
                         std::pair{2, std::vector<float>{-3, -1}}, std::pair{7, std::vector<float>{-3, -1}},
                         std::pair{-1, std::vector<float>{-3, -1}}}) {
    SetInput<int32_t>(*interpreter, 0, {i});
    ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << "index " << i;
  }
}

TEST(StablehloCase, BadIndexOrBranchesAreErrors) {
  auto try_build = [](TensorType index_type, std::vector<int32_t> branches) {
    ModelBuilder b;
    const int index = b.AddTensor("index", index_type, {});
    const int x = b.AddTensor("x", TensorType::kFloat32, {2});
    const int y = b.AddTensor("y", TensorType::kFloat32, {2});
    b.SetInputs({index, x});
    b.SetOutputs({y});
    b.AddSubgraph("branch");
    const int in = b.AddTensor("in", TensorType::kFloat32, {2});
    b.SetInputs({in});
    b.SetOutputs({in});
    b.SetSubgraph(0);
    b.AddOp2(tflite::BuiltinOperator_STABLEHLO_CASE, {index, x}, {y}, tflite::BuiltinOptions2_StablehloCaseOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) {
               return tflite::CreateStablehloCaseOptions(fbb, fbb.CreateVector(branches)).Union();
             });
    return testing::TryBuild(b.Finish());
  };
  EXPECT_TRUE(try_build(TensorType::kInt32, {1}).ok());
  EXPECT_FALSE(try_build(TensorType::kInt64, {1}).ok());  // index must be int32
  EXPECT_FALSE(try_build(TensorType::kInt32, {}).ok());   // no branch
  EXPECT_FALSE(try_build(TensorType::kInt32, {5}).ok());  // no such subgraph
  EXPECT_FALSE(try_build(TensorType::kInt32, {0}).ok());  // the calling subgraph itself
}

}  // namespace
}  // namespace edgerun
