// Shape and data-movement ops: SLICE, SPLIT, SPLIT_V, TILE, PACK, UNPACK, EXPAND_DIMS, SHAPE,
// RANK, BROADCAST_TO, BROADCAST_ARGS, MIRROR_PAD, REVERSE_V2, REVERSE_SEQUENCE, ONE_HOT,
// MATRIX_DIAG, MATRIX_SET_DIAG, DYNAMIC_UPDATE_SLICE, DILATE. Expected values are hand-computed
// or come from the ops' definitions written out as loops here.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

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

// ---- SLICE

TEST(Slice, BeginSizeAndMinusOne) {
  SingleOp op(tflite::BuiltinOperator_SLICE);
  op.Input(TensorType::kFloat32, {3, 4});
  op.Const<int32_t>(TensorType::kInt32, {2}, {1, 1});
  op.Const<int32_t>(TensorType::kInt32, {2}, {-1, 2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(12));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{5, 6, 9, 10}));
}

// Random shapes, begins and sizes (trailing dimensions taken whole or cut, which the copy turns
// into whole blocks and rows), float and int8 elements, against the element at begin + index.
TEST(Slice, RandomShapesMatchDirectIndex) {
  std::mt19937 rng(9);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 80; ++iter) {
    const int rank = uniform(1, 4);
    Shape in_shape, size;
    std::vector<int32_t> begin;
    for (int d = 0; d < rank; ++d) {
      const int dim = uniform(1, 6);
      const bool whole = uniform(0, 1) == 0;
      const int b = whole ? 0 : uniform(0, dim - 1);
      in_shape.push_back(dim);
      begin.push_back(b);
      size.push_back(whole ? dim : uniform(1, dim - b));
    }
    const bool bytes = iter % 2 == 1;
    const int64_t n = NumElements(in_shape);
    SingleOp op(tflite::BuiltinOperator_SLICE);
    op.Input(bytes ? TensorType::kInt8 : TensorType::kFloat32, in_shape);
    op.Const<int32_t>(TensorType::kInt32, {rank}, begin);
    op.Const<int32_t>(TensorType::kInt32, {rank}, std::vector<int32_t>(size.begin(), size.end()));
    op.Output(bytes ? TensorType::kInt8 : TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    std::vector<float> values(static_cast<size_t>(n));
    std::iota(values.begin(), values.end(), 0.0f);
    if (bytes) {
      std::vector<int8_t> b8(values.size());
      for (size_t i = 0; i < b8.size(); ++i) b8[i] = static_cast<int8_t>(i % 251 - 125);
      SetInput(*interpreter, 0, b8);
      for (size_t i = 0; i < b8.size(); ++i) values[i] = b8[i];
    } else {
      SetInput(*interpreter, 0, values);
    }
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, size);
    std::vector<float> want;
    for (int64_t flat = 0; flat < NumElements(size); ++flat) {
      int64_t rest = flat, from = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        from += (begin[d] + rest % size[d]) * stride;
        rest /= size[d];
        stride *= in_shape[d];
      }
      want.push_back(values[static_cast<size_t>(from)]);
    }
    std::vector<float> got;
    if (bytes) {
      for (int8_t v : GetOutput<int8_t>(*interpreter, 0)) got.push_back(v);
    } else {
      got = GetOutput<float>(*interpreter, 0);
    }
    EXPECT_EQ(got, want) << "iteration " << iter;
  }
}

TEST(Slice, RuntimeBeginMakesTheOutputDynamic) {
  SingleOp op(tflite::BuiltinOperator_SLICE);
  op.Input(TensorType::kInt16, {5});
  op.Input(TensorType::kInt64, {1});
  op.Const<int64_t>(TensorType::kInt64, {1}, {-1});
  op.Output(TensorType::kInt16);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<int16_t>(5, 10));
  SetInput<int64_t>(*interpreter, 1, {3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{13, 14}));
  SetInput<int64_t>(*interpreter, 1, {5});  // empty slice at the end
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0}));
  SetInput<int64_t>(*interpreter, 1, {6});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(Slice, OutOfRangeFailsAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_SLICE);
  op.Input(TensorType::kFloat32, {4});
  op.Const<int32_t>(TensorType::kInt32, {1}, {2});
  op.Const<int32_t>(TensorType::kInt32, {1}, {3});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- SPLIT, SPLIT_V

TEST(Split, NegativeAxisEqualPieces) {
  SingleOp op(tflite::BuiltinOperator_SPLIT);
  op.Const<int32_t>(TensorType::kInt32, {}, {-1});
  op.Input(TensorType::kFloat32, {2, 4});
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_SplitOptions, ER_OPTIONS(tflite::CreateSplitOptions(fbb, 2)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(8));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 1, 4, 5}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{2, 3, 6, 7}));
}

TEST(Split, RuntimeAxisAndIndivisibleDimension) {
  SingleOp op(tflite::BuiltinOperator_SPLIT);
  op.Input(TensorType::kInt32, {});
  op.Input(TensorType::kUInt8, {3, 2});
  for (int i = 0; i < 3; ++i) op.Output(TensorType::kUInt8);
  op.Options(tflite::BuiltinOptions_SplitOptions, ER_OPTIONS(tflite::CreateSplitOptions(fbb, 3)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {0});
  SetInput<uint8_t>(*interpreter, 1, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 2), (std::vector<uint8_t>{5, 6}));
  SetInput<int32_t>(*interpreter, 0, {1});  // 2 does not split in 3
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(SplitV, InferredSize) {
  SingleOp op(tflite::BuiltinOperator_SPLIT_V);
  op.Input(TensorType::kFloat32, {6, 1});
  op.Const<int32_t>(TensorType::kInt32, {3}, {1, -1, 2});
  op.Const<int32_t>(TensorType::kInt32, {}, {0});
  for (int i = 0; i < 3; ++i) op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_SplitVOptions, ER_OPTIONS(tflite::CreateSplitVOptions(fbb, 3)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(6));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(1)->shape, (Shape{3, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 2), (std::vector<float>{4, 5}));
}

TEST(SplitV, BadSizesFailAtPrepare) {
  for (const std::vector<int32_t>& sizes : {std::vector<int32_t>{1, 1, 1}, std::vector<int32_t>{-1, -1, 2},
                                            std::vector<int32_t>{5, -1, 2}, std::vector<int32_t>{1, -2, 5}}) {
    SingleOp op(tflite::BuiltinOperator_SPLIT_V);
    op.Input(TensorType::kFloat32, {6});
    op.Const(TensorType::kInt32, {3}, sizes);
    op.Const<int32_t>(TensorType::kInt32, {}, {0});
    for (int i = 0; i < 3; ++i) op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_SplitVOptions, ER_OPTIONS(tflite::CreateSplitVOptions(fbb, 3)));
    EXPECT_FALSE(op.TryBuild().ok()) << sizes[0] << "," << sizes[1] << "," << sizes[2];
  }
}

// ---- TILE, BROADCAST_TO

// out[i, j, k] = in[i % d0, j % d1, k % d2].
TEST(Tile, DefinitionWithRuntimeMultiples) {
  const Shape in{2, 1, 3};
  const std::vector<int64_t> multiples{2, 3, 2};
  SingleOp op(tflite::BuiltinOperator_TILE);
  op.Input(TensorType::kInt64, in);
  op.Input(TensorType::kInt64, {3});
  op.Output(TensorType::kInt64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<int64_t>(6, 100));
  SetInput(*interpreter, 1, multiples);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const Shape out{4, 3, 6};
  ASSERT_EQ(interpreter->output(0)->shape, out);
  const auto got = GetOutput<int64_t>(*interpreter, 0);
  for (int i = 0; i < out[0]; ++i)
    for (int j = 0; j < out[1]; ++j)
      for (int k = 0; k < out[2]; ++k) {
        const int64_t want = 100 + ((i % in[0]) * in[1] + j % in[1]) * in[2] + k % in[2];
        EXPECT_EQ(got[(i * out[1] + j) * out[2] + k], want);
      }
}

TEST(Tile, ZeroMultipleAndScalar) {
  SingleOp op(tflite::BuiltinOperator_TILE);
  op.Input(TensorType::kFloat32, {2});
  op.Const<int32_t>(TensorType::kInt32, {1}, {0});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0}));

  SingleOp bad(tflite::BuiltinOperator_TILE);
  bad.Input(TensorType::kFloat32, {2});
  bad.Const<int32_t>(TensorType::kInt32, {2}, {1, 1});  // one multiple per dim
  bad.Output(TensorType::kFloat32);
  EXPECT_FALSE(bad.TryBuild().ok());
}

TEST(BroadcastTo, NumpyRules) {
  SingleOp op(tflite::BuiltinOperator_BROADCAST_TO, 2);
  op.Input(TensorType::kInt8, {2, 1});
  op.Const<int32_t>(TensorType::kInt32, {3}, {2, 2, 3});
  op.Output(TensorType::kInt8);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {5, -6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2, 3}));
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{5, 5, 5, -6, -6, -6, 5, 5, 5, -6, -6, -6}));
}

TEST(BroadcastTo, RuntimeShapeAndIncompatibleShape) {
  SingleOp op(tflite::BuiltinOperator_BROADCAST_TO, 3);
  op.Input(TensorType::kFloat32, {3});
  op.Input(TensorType::kInt64, {2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3});
  SetInput<int64_t>(*interpreter, 1, {2, 3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  SetInput<int64_t>(*interpreter, 1, {2, 4});
  EXPECT_FALSE(interpreter->Invoke().ok());

  SingleOp v1(tflite::BuiltinOperator_BROADCAST_TO, 1);  // TFLite numbers BROADCAST_TO from 2
  v1.Input(TensorType::kFloat32, {1});
  v1.Const<int32_t>(TensorType::kInt32, {1}, {2});
  v1.Output(TensorType::kFloat32);
  EXPECT_FALSE(v1.TryBuild().ok());
}

TEST(BroadcastArgs, ShapesOfDifferentLengths) {
  SingleOp op(tflite::BuiltinOperator_BROADCAST_ARGS);
  op.Input(TensorType::kInt32, {3});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3}));
  SetInput<int32_t>(*interpreter, 0, {5, 1, 3});
  SetInput<int32_t>(*interpreter, 1, {4, 1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{5, 4, 3}));
  SetInput<int32_t>(*interpreter, 1, {4, 2});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

// ---- PACK, UNPACK

TEST(Pack, EveryAxis) {
  // Two [2, 3] inputs a (0..5) and b (10..15).
  for (int axis : {0, 1, 2, -1}) {
    SingleOp op(tflite::BuiltinOperator_PACK);
    op.Input(TensorType::kFloat32, {2, 3});
    op.Input(TensorType::kFloat32, {2, 3});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_PackOptions, ER_OPTIONS(tflite::CreatePackOptions(fbb, 2, axis)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, Iota<float>(6));
    SetInput(*interpreter, 1, Iota<float>(6, 10));
    ASSERT_TRUE(interpreter->Invoke().ok());
    const int a = axis < 0 ? 2 : axis;
    Shape want{2, 3};
    want.insert(want.begin() + a, 2);
    ASSERT_EQ(interpreter->output(0)->shape, want);
    const auto got = GetOutput<float>(*interpreter, 0);
    // out[..., which at axis a, ...] = (which ? 10 : 0) + i * 3 + j
    for (int which = 0; which < 2; ++which)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
          int index[3] = {i, j, 0};
          int full[3];
          for (int d = 0, s = 0; d < 3; ++d) full[d] = d == a ? which : index[s++];
          const int flat = (full[0] * want[1] + full[1]) * want[2] + full[2];
          EXPECT_EQ(got[flat], (which ? 10.0f : 0.0f) + i * 3 + j) << "axis " << axis;
        }
  }
}

TEST(Pack, MismatchedShapesFail) {
  SingleOp op(tflite::BuiltinOperator_PACK);
  op.Input(TensorType::kFloat32, {2});
  op.Input(TensorType::kFloat32, {3});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_PackOptions, ER_OPTIONS(tflite::CreatePackOptions(fbb, 2, 0)));
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(Unpack, MiddleAxisQuantizedBytes) {
  QuantizationParams q;
  q.scale = {0.1f};
  q.zero_point = {3};
  SingleOp op(tflite::BuiltinOperator_UNPACK);
  op.Input(TensorType::kInt16, {2, 3, 1}, q);
  for (int i = 0; i < 3; ++i) op.Output(TensorType::kInt16, {}, q);
  op.Options(tflite::BuiltinOptions_UnpackOptions, ER_OPTIONS(tflite::CreateUnpackOptions(fbb, 3, -2)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int16_t>(*interpreter, 0, {-300, 1, 2, 300, 4, 5});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{-300, 300}));
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 2), (std::vector<int16_t>{2, 5}));
}

TEST(Unpack, WrongOutputCountFails) {
  SingleOp op(tflite::BuiltinOperator_UNPACK);
  op.Input(TensorType::kFloat32, {3});
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_UnpackOptions, ER_OPTIONS(tflite::CreateUnpackOptions(fbb, 2, 0)));
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- EXPAND_DIMS, SHAPE, RANK

TEST(ExpandDims, AxesAndRuntimeAxis) {
  struct Case {
    int32_t axis;
    Shape want;
  } cases[] = {{0, {1, 2, 3}}, {2, {2, 3, 1}}, {-1, {2, 3, 1}}, {-3, {1, 2, 3}}, {1, {2, 1, 3}}};
  for (const Case& c : cases) {
    SingleOp op(tflite::BuiltinOperator_EXPAND_DIMS);
    op.Input(TensorType::kFloat32, {2, 3});
    op.Const<int32_t>(TensorType::kInt32, {1}, {c.axis});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, c.want) << c.axis;
    SetInput(*interpreter, 0, Iota<float>(6));
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), Iota<float>(6));
  }
  SingleOp runtime(tflite::BuiltinOperator_EXPAND_DIMS);
  runtime.Input(TensorType::kInt32, {2});
  runtime.Input(TensorType::kInt64, {});
  runtime.Output(TensorType::kInt32);
  auto interpreter = runtime.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {7, 8});
  SetInput<int64_t>(*interpreter, 1, {1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{7, 8}));
  SetInput<int64_t>(*interpreter, 1, {3});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(Shape, Int32AndInt64Outputs) {
  for (TensorType type : {TensorType::kInt32, TensorType::kInt64}) {
    SingleOp op(tflite::BuiltinOperator_SHAPE);
    op.Input(TensorType::kInt8, {2, 0, 5});
    op.Output(type);
    op.Options(tflite::BuiltinOptions_ShapeOptions,
               ER_OPTIONS(tflite::CreateShapeOptions(fbb, static_cast<tflite::TensorType>(type))));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    ASSERT_TRUE(interpreter->Invoke().ok());
    if (type == TensorType::kInt32) {
      EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{2, 0, 5}));
    } else {
      EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{2, 0, 5}));
    }
  }
}

TEST(Shape, FollowsAResizedInput) {
  SingleOp op(tflite::BuiltinOperator_SHAPE);
  op.Input(TensorType::kFloat32, {1, 2}, {}, {-1, 2});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->ResizeInputTensor(0, {4, 2}).ok());
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{4, 2}));
}

TEST(Shape, OutTypeDifferentFromTheOutputFails) {
  SingleOp op(tflite::BuiltinOperator_SHAPE);
  op.Input(TensorType::kFloat32, {2});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_ShapeOptions, ER_OPTIONS(tflite::CreateShapeOptions(fbb, tflite::TensorType_INT64)));
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(Rank, ScalarOutput) {
  SingleOp op(tflite::BuiltinOperator_RANK);
  op.Input(TensorType::kFloat32, {1, 2, 3});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3}));
}

// ---- MIRROR_PAD, REVERSE_V2, REVERSE_SEQUENCE

TEST(MirrorPad, ReflectAndSymmetric) {
  // Row [1, 2, 3] padded by [2, 2]: REFLECT 3 2 | 1 2 3 | 2 1 ; SYMMETRIC 2 1 | 1 2 3 | 3 2.
  for (auto mode : {tflite::MirrorPadMode_REFLECT, tflite::MirrorPadMode_SYMMETRIC}) {
    SingleOp op(tflite::BuiltinOperator_MIRROR_PAD);
    op.Input(TensorType::kFloat32, {2, 3});
    op.Const<int32_t>(TensorType::kInt32, {2, 2}, {1, 0, 2, 2});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_MirrorPadOptions, ER_OPTIONS(tflite::CreateMirrorPadOptions(fbb, mode)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 7}));
    if (mode == tflite::MirrorPadMode_REFLECT) {
      EXPECT_EQ(GetOutput<float>(*interpreter, 0),
                (std::vector<float>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4}));
    } else {
      EXPECT_EQ(GetOutput<float>(*interpreter, 0),
                (std::vector<float>{2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5}));
    }
  }
}

// Random shapes (rank 1 to 4) and paddings, some dimensions unpadded (trailing ones too, which
// the copy folds into whole blocks), both modes, against the mirrored
// index worked out per element here.
TEST(MirrorPad, RandomShapesMatchMirroredIndex) {
  std::mt19937 rng(5);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 60; ++iter) {
    const bool reflect = iter % 2 == 0;
    const int rank = uniform(1, 4);
    Shape in_shape, out_shape;
    std::vector<int32_t> pads;
    for (int d = 0; d < rank; ++d) {
      const int dim = uniform(2, 5);
      const int limit = reflect ? dim - 1 : dim;
      const bool padded = uniform(0, 2) != 0;
      const int before = padded ? uniform(0, limit) : 0, after = padded ? uniform(0, limit) : 0;
      in_shape.push_back(dim);
      out_shape.push_back(dim + before + after);
      pads.push_back(before);
      pads.push_back(after);
    }
    const int64_t n = NumElements(in_shape);
    std::vector<float> input(static_cast<size_t>(n));
    std::iota(input.begin(), input.end(), 0.0f);
    SingleOp op(tflite::BuiltinOperator_MIRROR_PAD);
    op.Input(TensorType::kFloat32, in_shape);
    op.Const<int32_t>(TensorType::kInt32, {rank, 2}, pads);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_MirrorPadOptions,
               ER_OPTIONS(tflite::CreateMirrorPadOptions(
                   fbb, reflect ? tflite::MirrorPadMode_REFLECT : tflite::MirrorPadMode_SYMMETRIC)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, out_shape);
    std::vector<float> want;
    const int64_t total = NumElements(out_shape);
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t rest = flat, from = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t i = rest % out_shape[d] - pads[2 * d], dim = in_shape[d];
        rest /= out_shape[d];
        int64_t j = i;
        if (i < 0) j = reflect ? -i : -i - 1;
        if (i >= dim) j = reflect ? 2 * dim - 2 - i : 2 * dim - 1 - i;
        from += j * stride;
        stride *= dim;
      }
      want.push_back(input[static_cast<size_t>(from)]);
    }
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << "iteration " << iter;
  }
}

TEST(MirrorPad, TooMuchPaddingFails) {
  SingleOp op(tflite::BuiltinOperator_MIRROR_PAD);
  op.Input(TensorType::kFloat32, {3});
  op.Const<int64_t>(TensorType::kInt64, {1, 2}, {3, 0});  // REFLECT allows at most 2
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_MirrorPadOptions,
             ER_OPTIONS(tflite::CreateMirrorPadOptions(fbb, tflite::MirrorPadMode_REFLECT)));
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(ReverseV2, OneAndSeveralAxes) {
  struct Case {
    std::vector<int32_t> axes;
    std::vector<int32_t> want;
  } cases[] = {
      {{0}, {3, 4, 5, 0, 1, 2}}, {{-1}, {2, 1, 0, 5, 4, 3}}, {{0, 1}, {5, 4, 3, 2, 1, 0}}, {{}, {0, 1, 2, 3, 4, 5}}};
  for (const Case& c : cases) {
    SingleOp op(tflite::BuiltinOperator_REVERSE_V2);
    op.Input(TensorType::kInt32, {2, 3});
    op.Const(TensorType::kInt32, {static_cast<int32_t>(c.axes.size())}, c.axes);
    op.Output(TensorType::kInt32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, Iota<int32_t>(6));
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), c.want);
  }
}

TEST(ReverseV2, RepeatedAxisIsAnError) {
  SingleOp op(tflite::BuiltinOperator_REVERSE_V2);
  op.Input(TensorType::kFloat32, {2, 2});
  op.Const<int32_t>(TensorType::kInt32, {2}, {1, -1});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(ReverseSequence, PerBatchLengths) {
  // input [3 (batch), 4 (seq)], batch_dim 0, seq_dim 1.
  SingleOp op(tflite::BuiltinOperator_REVERSE_SEQUENCE);
  op.Input(TensorType::kFloat32, {3, 4});
  op.Input(TensorType::kInt32, {3});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_ReverseSequenceOptions,
             ER_OPTIONS(tflite::CreateReverseSequenceOptions(fbb, 1, 0)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(12));
  SetInput<int32_t>(*interpreter, 1, {4, 2, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{3, 2, 1, 0, 5, 4, 6, 7, 8, 9, 10, 11}));
  SetInput<int32_t>(*interpreter, 1, {5, 0, 0});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(ReverseSequence, SeqDimBeforeBatchDim) {
  // input [2 (seq), 2 (batch), 1], seq_dim 0, batch_dim 1: batch 1 is reversed over length 2.
  SingleOp op(tflite::BuiltinOperator_REVERSE_SEQUENCE);
  op.Input(TensorType::kInt32, {2, 2, 1});
  op.Const<int64_t>(TensorType::kInt64, {2}, {1, 2});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_ReverseSequenceOptions,
             ER_OPTIONS(tflite::CreateReverseSequenceOptions(fbb, 0, 1)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{1, 4, 3, 2}));
}

// ---- ONE_HOT

TEST(OneHot, LastAndFirstAxis) {
  for (int axis : {-1, 0}) {
    SingleOp op(tflite::BuiltinOperator_ONE_HOT);
    op.Input(TensorType::kInt32, {3});
    op.Const<int32_t>(TensorType::kInt32, {}, {3});
    op.Const<float>(TensorType::kFloat32, {}, {5});
    op.Const<float>(TensorType::kFloat32, {}, {-1});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_OneHotOptions, ER_OPTIONS(tflite::CreateOneHotOptions(fbb, axis)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<int32_t>(*interpreter, 0, {2, 0, 7});  // 7 is outside [0, 3): an all-off row
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 3}));
    if (axis == -1) {
      EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-1, -1, 5, 5, -1, -1, -1, -1, -1}));
    } else {
      EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-1, 5, -1, -1, -1, -1, 5, -1, -1}));
    }
  }
}

TEST(OneHot, AxisOutOfRangeFails) {
  SingleOp op(tflite::BuiltinOperator_ONE_HOT);
  op.Input(TensorType::kInt32, {3});
  op.Const<int32_t>(TensorType::kInt32, {}, {3});
  op.Const<float>(TensorType::kFloat32, {}, {1});
  op.Const<float>(TensorType::kFloat32, {}, {0});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_OneHotOptions, ER_OPTIONS(tflite::CreateOneHotOptions(fbb, 2)));
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(OneHot, RuntimeDepthBoolOutput) {
  SingleOp op(tflite::BuiltinOperator_ONE_HOT);
  op.Const<int64_t>(TensorType::kInt64, {2}, {1, 0});
  op.Input(TensorType::kInt32, {});
  op.Const<uint8_t>(TensorType::kBool, {}, {1});
  op.Const<uint8_t>(TensorType::kBool, {}, {0});
  op.Output(TensorType::kBool);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<bool>(*interpreter, 0), (std::vector<bool>{false, true, true, false}));
  SetInput<int32_t>(*interpreter, 0, {-1});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

// ---- MATRIX_DIAG, MATRIX_SET_DIAG, DYNAMIC_UPDATE_SLICE, DILATE

TEST(MatrixDiag, BatchOfDiagonals) {
  SingleOp op(tflite::BuiltinOperator_MATRIX_DIAG);
  op.Input(TensorType::kInt32, {2, 2});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2, 3, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2, 2}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{1, 0, 0, 2, 3, 0, 0, 4}));
}

TEST(MatrixDiag, ScalarInputFails) {
  SingleOp op(tflite::BuiltinOperator_MATRIX_DIAG);
  op.Input(TensorType::kFloat32, {});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(MatrixSetDiag, NonSquare) {
  SingleOp op(tflite::BuiltinOperator_MATRIX_SET_DIAG);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Input(TensorType::kFloat32, {2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(6));
  SetInput<float>(*interpreter, 1, {-1, -2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{-1, 1, 2, 3, -2, 5}));

  SingleOp bad(tflite::BuiltinOperator_MATRIX_SET_DIAG);
  bad.Input(TensorType::kFloat32, {2, 3});
  bad.Input(TensorType::kFloat32, {3});
  bad.Output(TensorType::kFloat32);
  EXPECT_FALSE(bad.TryBuild().ok());
}

TEST(DynamicUpdateSlice, StartsAreClamped) {
  SingleOp op(tflite::BuiltinOperator_DYNAMIC_UPDATE_SLICE);
  op.Input(TensorType::kFloat32, {3, 3});
  op.Input(TensorType::kFloat32, {2, 1});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(9));
  SetInput<float>(*interpreter, 1, {-1, -2});
  struct Case {
    std::vector<int32_t> start;
    int row, col;  // where the update lands after clamping
  } cases[] = {{{0, 0}, 0, 0}, {{1, 2}, 1, 2}, {{5, -3}, 1, 0}, {{-1, 9}, 0, 2}};
  for (const Case& c : cases) {
    SetInput(*interpreter, 2, c.start);
    ASSERT_TRUE(interpreter->Invoke().ok());
    std::vector<float> want = Iota<float>(9);
    want[c.row * 3 + c.col] = -1;
    want[(c.row + 1) * 3 + c.col] = -2;
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << c.start[0] << "," << c.start[1];
  }
}

TEST(DynamicUpdateSlice, UpdateLargerThanOperandFails) {
  SingleOp op(tflite::BuiltinOperator_DYNAMIC_UPDATE_SLICE);
  op.Input(TensorType::kFloat32, {2, 2});
  op.Input(TensorType::kFloat32, {3, 1});
  op.Input(TensorType::kInt32, {2});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(Dilate, HolesHoldThePaddingValue) {
  // [[1, 2], [3, 4]] dilated by [2, 3] with padding 0.
  SingleOp op(tflite::BuiltinOperator_DILATE);
  op.Input(TensorType::kInt8, {2, 2});
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 3});
  op.Const<int8_t>(TensorType::kInt8, {}, {0});
  op.Output(TensorType::kInt8);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {1, 2, 3, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 4}));
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{1, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4}));
}

TEST(Dilate, RuntimeDilationsAndInvalidFactor) {
  SingleOp op(tflite::BuiltinOperator_DILATE);
  op.Input(TensorType::kFloat32, {3});
  op.Input(TensorType::kInt32, {1});
  op.Const<float>(TensorType::kFloat32, {}, {-9});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3});
  SetInput<int32_t>(*interpreter, 1, {2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, -9, 2, -9, 3}));
  SetInput<int32_t>(*interpreter, 1, {0});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

}  // namespace
}  // namespace edgerun
