// Indexing ops: GATHER, GATHER_ND, SCATTER_ND, EMBEDDING_LOOKUP, SPARSE_TO_DENSE, SEGMENT_SUM,
// UNSORTED_SEGMENT_*, UNIQUE, WHERE, TOPK_V2. Expected values are hand-computed or come from
// the ops' definitions written out as loops here.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

template <class T>
std::vector<T> Iota(int64_t n, T start = T(0)) {
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

void GatherOptions(SingleOp& op, int axis, int batch_dims = 0) {
  // The writer runs when the model is serialized, after this returns: capture by value.
  op.Options(tflite::BuiltinOptions_GatherOptions, [axis, batch_dims](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateGatherOptions(fbb, axis, batch_dims).Union();
  });
}

// ---- GATHER

TEST(Gather, EveryAxisFromTheDefinition) {
  const Shape in{2, 3, 4};
  const std::vector<int32_t> idx{2, 0, 1, 0};  // taken modulo the axis size below
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<int32_t> indices;
    for (int32_t v : idx) indices.push_back(v % in[a]);
    SingleOp op(tflite::BuiltinOperator_GATHER);
    op.Input(TensorType::kFloat32, in);
    op.Const(TensorType::kInt32, {2, 2}, indices);
    op.Output(TensorType::kFloat32);
    GatherOptions(op, axis);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, Iota<float>(24));
    ASSERT_TRUE(interpreter->Invoke().ok());
    Shape want_shape(in.begin(), in.begin() + a);
    want_shape.insert(want_shape.end(), {2, 2});
    want_shape.insert(want_shape.end(), in.begin() + a + 1, in.end());
    ASSERT_EQ(interpreter->output(0)->shape, want_shape) << "axis " << axis;
    const auto got = GetOutput<float>(*interpreter, 0);
    // Walk the output: [outer, 4 indices, inner].
    const int64_t outer = a == 0 ? 1 : (a == 1 ? 2 : 6), inner = a == 0 ? 12 : (a == 1 ? 4 : 1);
    for (int64_t o = 0; o < outer; ++o)
      for (int k = 0; k < 4; ++k)
        for (int64_t i = 0; i < inner; ++i) {
          const float want = static_cast<float>((o * in[a] + indices[k]) * inner + i);
          EXPECT_EQ(got[(o * 4 + k) * inner + i], want) << "axis " << axis;
        }
  }
}

TEST(Gather, BatchDims) {
  // input [2, 3], indices [2, 2], batch_dims 1, axis 1: out[b, j] = input[b, indices[b, j]].
  SingleOp op(tflite::BuiltinOperator_GATHER);
  op.Input(TensorType::kInt32, {2, 3});
  op.Const<int64_t>(TensorType::kInt64, {2, 2}, {2, 0, 1, 1});
  op.Output(TensorType::kInt32);
  GatherOptions(op, 1, -1);  // negative batch_dims counts from the indices' rank
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {10, 11, 12, 20, 21, 22});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{12, 10, 21, 21}));
}

TEST(Gather, QuantizedBytesAndInt16Indices) {
  QuantizationParams q;
  q.scale = {0.25f};
  q.zero_point = {-5};
  SingleOp op(tflite::BuiltinOperator_GATHER);
  op.Input(TensorType::kInt8, {4}, q);
  op.Const<int16_t>(TensorType::kInt16, {3}, {3, 3, 0});
  op.Output(TensorType::kInt8, {}, q);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {-128, 1, 2, 127});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{127, 127, -128}));
}

TEST(Gather, ScalarIndexDropsTheAxisAndEmptyIndicesGiveEmptyOutput) {
  SingleOp op(tflite::BuiltinOperator_GATHER);
  op.Input(TensorType::kBool, {2, 2});
  op.Const<int32_t>(TensorType::kInt32, {}, {1});
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {1, 0, 0, 1});  // bool bytes
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2}));
  EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{false, true}));

  SingleOp empty(tflite::BuiltinOperator_GATHER);
  empty.Input(TensorType::kFloat32, {3, 2});
  empty.Input(TensorType::kInt32, {0});
  empty.Output(TensorType::kFloat32);
  auto e = empty.Build();
  ASSERT_TRUE(e);
  SetInput(*e, 0, Iota<float>(6));
  ASSERT_TRUE(e->Invoke().ok());
  EXPECT_EQ(e->output(0)->shape, (Shape{0, 2}));
}

TEST(Gather, OutOfRangeIndexIsAnEvalError) {
  for (int32_t bad : {3, -1}) {
    SingleOp op(tflite::BuiltinOperator_GATHER);
    op.Input(TensorType::kFloat32, {3});
    op.Input(TensorType::kInt32, {1});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 1, {bad});
    const Status st = interpreter->Invoke();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
  }
}

TEST(Gather, BadAxisOrBatchDimsFailAtPrepare) {
  SingleOp axis(tflite::BuiltinOperator_GATHER);
  axis.Input(TensorType::kFloat32, {2, 2});
  axis.Const<int32_t>(TensorType::kInt32, {1}, {0});
  axis.Output(TensorType::kFloat32);
  GatherOptions(axis, 2);
  EXPECT_FALSE(axis.TryBuild().ok());

  SingleOp batch(tflite::BuiltinOperator_GATHER);
  batch.Input(TensorType::kFloat32, {2, 2});
  batch.Const<int32_t>(TensorType::kInt32, {3, 1}, {0, 0, 0});  // batch dim 3 vs 2
  batch.Output(TensorType::kFloat32);
  GatherOptions(batch, 1, 1);
  EXPECT_FALSE(batch.TryBuild().ok());

  SingleOp type(tflite::BuiltinOperator_GATHER);
  type.Input(TensorType::kFloat32, {2});
  type.Const<float>(TensorType::kFloat32, {1}, {0});
  type.Output(TensorType::kFloat32);
  EXPECT_FALSE(type.TryBuild().ok());
}

// ---- GATHER_ND

TEST(GatherNd, FullAndPartialIndices) {
  // params [2, 2, 2] = 0..7
  struct Case {
    Shape indices_shape;
    std::vector<int32_t> indices;
    Shape out;
    std::vector<float> want;
  } cases[] = {
      {{2, 3}, {1, 0, 1, 0, 1, 0}, {2}, {5, 2}},        // elements
      {{2, 2}, {1, 1, 0, 0}, {2, 2}, {6, 7, 0, 1}},     // rows
      {{1, 1}, {1}, {1, 2, 2}, {4, 5, 6, 7}},           // matrices
      {{2, 1, 1}, {0, 1}, {2, 1, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}},
  };
  for (const Case& c : cases) {
    SingleOp op(tflite::BuiltinOperator_GATHER_ND);
    op.Input(TensorType::kFloat32, {2, 2, 2});
    op.Const(TensorType::kInt32, c.indices_shape, c.indices);
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, Iota<float>(8));
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, c.out);
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), c.want);
  }
}

TEST(GatherNd, Int64IndicesOnUInt8) {
  SingleOp op(tflite::BuiltinOperator_GATHER_ND);
  op.Input(TensorType::kUInt8, {3, 2});
  op.Const<int64_t>(TensorType::kInt64, {2, 2}, {2, 1, 0, 0});
  op.Output(TensorType::kUInt8);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {1, 2, 3, 4, 5, 255});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{255, 1}));
}

TEST(GatherNd, CoordinateOutOfRangeIsAnEvalError) {
  // [0, 2] on a [2, 2] params would land inside the buffer (offset 2) but is not a valid coordinate.
  SingleOp op(tflite::BuiltinOperator_GATHER_ND);
  op.Input(TensorType::kFloat32, {2, 2});
  op.Input(TensorType::kInt32, {1, 2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 1, {0, 2});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(GatherNd, TooManyCoordinatesFailAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_GATHER_ND);
  op.Input(TensorType::kFloat32, {2});
  op.Const<int32_t>(TensorType::kInt32, {1, 2}, {0, 0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- SCATTER_ND

TEST(ScatterNd, DuplicatesAccumulate) {
  SingleOp op(tflite::BuiltinOperator_SCATTER_ND);
  op.Const<int32_t>(TensorType::kInt32, {3, 1}, {1, 3, 1});
  op.Input(TensorType::kFloat32, {3, 2});
  op.Const<int32_t>(TensorType::kInt32, {2}, {4, 2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 10, 20});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{4, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 0, 11, 22, 0, 0, 3, 4}));
}

TEST(ScatterNd, RuntimeShapeMakesTheOutputDynamic) {
  SingleOp op(tflite::BuiltinOperator_SCATTER_ND);
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, 1, 1, 0});
  op.Const<int32_t>(TensorType::kInt32, {2}, {5, 7});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {2, 3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 3}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0, 5, 0, 7, 0, 0}));
  SetInput<int32_t>(*interpreter, 0, {1, 3});  // row 1 no longer exists
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(ScatterNd, BoolUpdatesOr) {
  SingleOp op(tflite::BuiltinOperator_SCATTER_ND);
  op.Const<int32_t>(TensorType::kInt32, {3, 1}, {0, 0, 2});
  op.Input(TensorType::kBool, {3});
  op.Const<int32_t>(TensorType::kInt32, {1}, {3});
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {1, 0, 0});  // bool bytes
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{true, false, false}));
}

TEST(ScatterNd, MismatchedUpdatesFailAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_SCATTER_ND);
  op.Const<int32_t>(TensorType::kInt32, {2, 1}, {0, 1});
  op.Input(TensorType::kFloat32, {2, 3});
  op.Const<int32_t>(TensorType::kInt32, {2}, {4, 2});  // slices are [2], updates give [3]
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- EMBEDDING_LOOKUP

TEST(EmbeddingLookup, FloatRows) {
  SingleOp op(tflite::BuiltinOperator_EMBEDDING_LOOKUP);
  op.Input(TensorType::kInt32, {3});
  op.Const<float>(TensorType::kFloat32, {3, 1, 2}, {0, 1, 10, 11, 20, 21});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {2, 0, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 1, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{20, 21, 0, 1, 20, 21}));
  SetInput<int32_t>(*interpreter, 0, {0, 3, 0});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(EmbeddingLookup, HybridDequantizesRows) {
  // Per-tensor int8, per-row int8, and uint8 bytes read as signed (200 -> -56), as TFLite.
  for (int mode = 0; mode < 3; ++mode) {
    QuantizationParams q;
    q.scale = mode == 1 ? std::vector<float>{0.5f, 2.0f} : std::vector<float>{0.5f};
    q.zero_point.assign(q.scale.size(), 0);
    SingleOp op(tflite::BuiltinOperator_EMBEDDING_LOOKUP);
    op.Input(TensorType::kInt32, {2});
    if (mode == 2) op.Const<uint8_t>(TensorType::kUInt8, {2, 2}, {4, 200, 6, 8}, q);
    else op.Const<int8_t>(TensorType::kInt8, {2, 2}, {4, -56, 6, 8}, q);
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {1, 0});
    ASSERT_TRUE(interpreter->Invoke().ok());
    const float row1 = mode == 1 ? 2.0f : 0.5f;
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{6 * row1, 8 * row1, 2, -28})) << mode;
  }
}

TEST(EmbeddingLookup, AsymmetricHybridIsUnsupported) {
  QuantizationParams q;
  q.scale = {0.5f};
  q.zero_point = {3};
  SingleOp op(tflite::BuiltinOperator_EMBEDDING_LOOKUP);
  op.Input(TensorType::kInt32, {1});
  op.Const<int8_t>(TensorType::kInt8, {2, 2}, {1, 2, 3, 4}, q);
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- SPARSE_TO_DENSE

TEST(SparseToDense, CoordinatesAndScalarValue) {
  SingleOp op(tflite::BuiltinOperator_SPARSE_TO_DENSE);
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, 1, 2, 0});
  op.Const<int32_t>(TensorType::kInt32, {2}, {3, 2});
  op.Input(TensorType::kFloat32, {2});
  op.Const<float>(TensorType::kFloat32, {}, {-1});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {5, 6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-1, 5, -1, -1, 6, -1}));

  SingleOp scalar(tflite::BuiltinOperator_SPARSE_TO_DENSE);
  scalar.Const<int64_t>(TensorType::kInt64, {2}, {3, 0});
  scalar.Const<int64_t>(TensorType::kInt64, {1}, {5});
  scalar.Const<int8_t>(TensorType::kInt8, {}, {9});
  scalar.Const<int8_t>(TensorType::kInt8, {}, {0});
  scalar.Output(TensorType::kInt8);
  auto s = scalar.Build();
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->Invoke().ok());
  EXPECT_EQ(GetOutput<int8_t>(*s, 0), (std::vector<int8_t>{9, 0, 0, 9, 0}));
}

TEST(SparseToDense, IndexOutsideTheShapeIsAnEvalError) {
  SingleOp op(tflite::BuiltinOperator_SPARSE_TO_DENSE);
  op.Input(TensorType::kInt32, {1});
  op.Const<int32_t>(TensorType::kInt32, {1}, {4});
  op.Const<int32_t>(TensorType::kInt32, {}, {1});
  op.Const<int32_t>(TensorType::kInt32, {}, {0});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {4});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

// ---- SEGMENT_SUM, UNSORTED_SEGMENT_*

TEST(SegmentSum, SumsRuns) {
  SingleOp op(tflite::BuiltinOperator_SEGMENT_SUM);
  op.Input(TensorType::kInt32, {4, 2});
  op.Const<int32_t>(TensorType::kInt32, {4}, {0, 0, 1, 2});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{4, 6, 5, 6, 7, 8}));
}

TEST(SegmentSum, UnsortedOrGappedIdsAreErrors) {
  for (const std::vector<int32_t>& ids : {std::vector<int32_t>{0, 1, 0}, std::vector<int32_t>{0, 2, 2},
                                          std::vector<int32_t>{1, 1, 1}}) {
    SingleOp constant(tflite::BuiltinOperator_SEGMENT_SUM);
    constant.Input(TensorType::kFloat32, {3});
    constant.Const<int32_t>(TensorType::kInt32, {3}, ids);
    constant.Output(TensorType::kFloat32);
    EXPECT_FALSE(constant.TryBuild().ok());

    SingleOp runtime(tflite::BuiltinOperator_SEGMENT_SUM);
    runtime.Input(TensorType::kFloat32, {3});
    runtime.Input(TensorType::kInt32, {3});
    runtime.Output(TensorType::kFloat32);
    auto interpreter = runtime.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 1, ids);
    EXPECT_FALSE(interpreter->Invoke().ok());
  }
}

TEST(UnsortedSegment, AllReductionsFromTheDefinition) {
  const std::vector<float> data{3, -1, 4, 1, -5, 9, 2, 6};
  const std::vector<int32_t> ids{2, 0, 2, -1, 0, 2, 3, 0};  // -1 is skipped; segment 1 stays empty
  const int segments = 4;
  const tflite::BuiltinOperator codes[] = {
      tflite::BuiltinOperator_UNSORTED_SEGMENT_SUM, tflite::BuiltinOperator_UNSORTED_SEGMENT_PROD,
      tflite::BuiltinOperator_UNSORTED_SEGMENT_MAX, tflite::BuiltinOperator_UNSORTED_SEGMENT_MIN};
  for (int which = 0; which < 4; ++which) {
    std::vector<float> want(segments);
    const float init[] = {0.0f, 1.0f, std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
    std::fill(want.begin(), want.end(), init[which]);
    for (size_t i = 0; i < data.size(); ++i) {
      if (ids[i] < 0) continue;
      float& w = want[ids[i]];
      if (which == 0) w += data[i];
      if (which == 1) w *= data[i];
      if (which == 2) w = std::max(w, data[i]);
      if (which == 3) w = std::min(w, data[i]);
    }
    SingleOp op(codes[which]);
    op.Input(TensorType::kFloat32, {8});
    op.Const(TensorType::kInt32, {8}, ids);
    op.Const<int32_t>(TensorType::kInt32, {}, {segments});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, data);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << which;
  }
}

TEST(UnsortedSegment, MultiDimensionalIdsAndIntWrap) {
  // ids [2, 2] over data [2, 2, 1]; int32 sums wrap around.
  SingleOp op(tflite::BuiltinOperator_UNSORTED_SEGMENT_SUM);
  op.Input(TensorType::kInt32, {2, 2, 1});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {1, 1, 0, 1});
  op.Input(TensorType::kInt32, {1});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {std::numeric_limits<int32_t>::max(), 1, 7, 2});
  SetInput<int32_t>(*interpreter, 1, {2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{7, std::numeric_limits<int32_t>::min() + 2}));
  SetInput<int32_t>(*interpreter, 1, {1});  // id 1 is now too large
  EXPECT_FALSE(interpreter->Invoke().ok());
}

// ---- UNIQUE, WHERE, TOPK_V2

TEST(Unique, FirstAppearanceOrder) {
  for (TensorType idx_type : {TensorType::kInt32, TensorType::kInt64}) {
    SingleOp op(tflite::BuiltinOperator_UNIQUE);
    op.Input(TensorType::kInt8, {7});
    op.Output(TensorType::kInt8);
    op.Output(idx_type);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int8_t>(*interpreter, 0, {4, -2, 4, 7, -2, -2, 0});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{4}));
    EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{4, -2, 7, 0}));
    if (idx_type == TensorType::kInt32) {
      EXPECT_EQ(GetOutput<int32_t>(*interpreter, 1), (std::vector<int32_t>{0, 1, 0, 2, 1, 1, 3}));
    } else {
      EXPECT_EQ(GetOutput<int64_t>(*interpreter, 1), (std::vector<int64_t>{0, 1, 0, 2, 1, 1, 3}));
    }
  }
}

TEST(Unique, NonVectorInputFails) {
  SingleOp op(tflite::BuiltinOperator_UNIQUE);
  op.Input(TensorType::kInt32, {2, 2});
  op.Output(TensorType::kInt32);
  op.Output(TensorType::kInt32);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(Where, CoordinatesOfTrueElements) {
  SingleOp op(tflite::BuiltinOperator_WHERE);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Output(TensorType::kInt64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0, 1.5f, 0, -2, 0, 3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
  SetInput<float>(*interpreter, 0, {0, 0, 0, 0, 0, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0, 2}));
}

TEST(Where, ConstantBoolConditionIsSizedAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_WHERE);
  op.Const<uint8_t>(TensorType::kBool, {3}, {1, 0, 1});
  op.Output(TensorType::kInt64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{0, 2}));
}

TEST(TopkV2, TiesKeepTheLowerIndexFirst) {
  SingleOp op(tflite::BuiltinOperator_TOPK_V2);
  op.Input(TensorType::kFloat32, {2, 5});
  op.Const<int32_t>(TensorType::kInt32, {}, {3});
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 3, 3, -1, 3, 0, 0, 0, 0, 0.5f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 3}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{3, 3, 3, 0.5f, 0, 0}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 1), (std::vector<int32_t>{1, 2, 4, 4, 0, 1}));
}

TEST(TopkV2, RuntimeKAndIntegerTypes) {
  SingleOp op(tflite::BuiltinOperator_TOPK_V2);
  op.Input(TensorType::kInt64, {6});
  op.Input(TensorType::kInt32, {});
  op.Output(TensorType::kInt64);
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int64_t>(*interpreter, 0, {5, -7, 9, 5, 0, 11});
  for (int32_t k : {2, 0, 6}) {
    SetInput<int32_t>(*interpreter, 1, {k});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{k}));
    const std::vector<int64_t> all{11, 9, 5, 5, 0, -7};
    const std::vector<int32_t> positions{5, 2, 0, 3, 4, 1};
    EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), std::vector<int64_t>(all.begin(), all.begin() + k));
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 1), std::vector<int32_t>(positions.begin(), positions.begin() + k));
  }
  SetInput<int32_t>(*interpreter, 1, {7});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(Where, NonInt64OutputFails) {
  SingleOp op(tflite::BuiltinOperator_WHERE);
  op.Input(TensorType::kBool, {2});
  op.Output(TensorType::kInt32);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(TopkV2, KLargerThanTheRowFailsAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_TOPK_V2);
  op.Input(TensorType::kFloat32, {4});
  op.Const<int32_t>(TensorType::kInt32, {}, {5});
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kInt32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
