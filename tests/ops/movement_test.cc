// RESHAPE, SQUEEZE, CONCATENATION, PAD, PADV2, TRANSPOSE, STRIDED_SLICE.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>

#include "kernels/reference/movement.h"

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(Reshape, FromConstantShapeWithInference) {
  SingleOp op(tflite::BuiltinOperator_RESHAPE);
  op.Input(TensorType::kFloat32, {2, 3, 4});
  op.Const<int32_t>(TensorType::kInt32, {3}, {4, -1, 2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota(24));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{4, 3, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), Iota(24));
}

TEST(Reshape, FromOptionsAndLegacyScalar) {
  SingleOp op(tflite::BuiltinOperator_RESHAPE);
  op.Input(TensorType::kInt32, {1, 1});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_ReshapeOptions,
             ER_OPTIONS(tflite::CreateReshapeOptions(fbb, fbb.CreateVector(std::vector<int32_t>{0}))));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{}));
}

TEST(Reshape, RejectsElementCountChange) {
  SingleOp op(tflite::BuiltinOperator_RESHAPE);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Const<int32_t>(TensorType::kInt32, {2}, {4, 2});
  op.Output(TensorType::kFloat32);
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("6 elements"), std::string::npos) << st.message();
}

TEST(Squeeze, AllOrListedDims) {
  for (bool listed : {false, true}) {
    SingleOp op(tflite::BuiltinOperator_SQUEEZE);
    op.Input(TensorType::kFloat32, {1, 3, 1, 2, 1});
    op.Output(TensorType::kFloat32);
    if (listed) {
      op.Options(tflite::BuiltinOptions_SqueezeOptions,
                 ER_OPTIONS(tflite::CreateSqueezeOptions(fbb, fbb.CreateVector(std::vector<int32_t>{0, -1}))));
    }
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, listed ? (Shape{3, 1, 2}) : (Shape{3, 2}));
  }
}

TEST(Concatenation, MiddleAxisAndNegativeAxis) {
  for (int axis : {1, -2}) {
    SingleOp op(tflite::BuiltinOperator_CONCATENATION);
    op.Input(TensorType::kFloat32, {2, 1, 2});
    op.Input(TensorType::kFloat32, {2, 2, 2});
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_ConcatenationOptions, ER_OPTIONS(tflite::CreateConcatenationOptions(fbb, axis)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
    SetInput<float>(*interpreter, 1, {10, 11, 12, 13, 14, 15, 16, 17});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 3, 2}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17}));
  }
}

TEST(Concatenation, RejectsMismatchedDims) {
  SingleOp op(tflite::BuiltinOperator_CONCATENATION);
  op.Input(TensorType::kFloat32, {2, 1});
  op.Input(TensorType::kFloat32, {3, 1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_ConcatenationOptions, ER_OPTIONS(tflite::CreateConcatenationOptions(fbb, 1)));
  EXPECT_FALSE(op.TryBuild().ok());
}

// The run-copying slice and concatenation kernels against element-by-element index arithmetic,
// on random shapes, starts, strides (negative and partial ones included) and element sizes.
TEST(StridedSlice, RunCopiesMatchElementByElementOnRandomShapes) {
  std::mt19937 rng(23);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 400; ++iter) {
    const int rank = pick(1, 5);
    const size_t element = std::array<size_t, 4>{1, 2, 4, 8}[pick(0, 3)];
    Shape in_shape(rank), out_dims(rank);
    std::vector<int64_t> start(rank), stride(rank);
    for (int d = 0; d < rank; ++d) {
      in_shape[d] = pick(1, 6);
      stride[d] = pick(0, 3) == 0 ? -pick(1, 2) : pick(1, 2);
      if (pick(0, 2) == 0) stride[d] = 1;
      start[d] = pick(0, in_shape[d] - 1);
      // As many steps as fit from start in the stride's direction.
      const int64_t room = stride[d] > 0 ? (in_shape[d] - 1 - start[d]) / stride[d] : start[d] / -stride[d];
      out_dims[d] = static_cast<int32_t>(pick(1, static_cast<int>(room) + 1));
      if (pick(0, 3) == 0 && stride[d] == 1) {  // whole trailing dimensions join the run
        start[d] = 0;
        out_dims[d] = in_shape[d];
      }
    }
    std::vector<uint8_t> input(static_cast<size_t>(NumElements(in_shape)) * element);
    for (auto& b : input) b = static_cast<uint8_t>(pick(0, 255));
    std::vector<uint8_t> got(static_cast<size_t>(NumElements(out_dims)) * element, 0xAB), want(got.size(), 0xCD);
    reference::StridedSlice(in_shape, start, stride, out_dims, element, input.data(), got.data());
    std::vector<int64_t> index(rank, 0);
    for (int64_t o = 0; o < NumElements(out_dims); ++o) {
      int64_t rem = o, src = 0;
      for (int d = rank - 1; d >= 0; --d) {
        index[d] = rem % out_dims[d];
        rem /= out_dims[d];
      }
      for (int d = 0; d < rank; ++d) src = src * in_shape[d] + start[d] + index[d] * stride[d];
      std::memcpy(want.data() + o * element, input.data() + src * element, element);
    }
    ASSERT_EQ(got, want) << "iteration " << iter;
  }
}

// The reduced permutation (size-1 dims dropped, consecutive dims merged), its run copies and its
// tiled 2-D blocks against one element at a time: random ranks, shapes (sizes 1 to 19, past the
// 8 x 8 tiles), permutations and element sizes (3 bytes takes the generic copy).
TEST(Transpose, ReducedCopiesMatchElementByElementOnRandomShapes) {
  std::mt19937 rng(31);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 500; ++iter) {
    const int rank = pick(0, 6);
    const size_t element = std::array<size_t, 5>{1, 2, 3, 4, 8}[pick(0, 4)];
    Shape in_shape(rank);
    for (int d = 0; d < rank; ++d) in_shape[d] = pick(0, 4) == 0 ? 1 : pick(1, rank <= 3 ? 19 : 5);
    std::vector<int> perm(rank);
    for (int d = 0; d < rank; ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    if (pick(0, 3) == 0 && rank >= 2) std::sort(perm.begin(), perm.end() - 2);  // leading dims in order
    std::vector<uint8_t> input(static_cast<size_t>(NumElements(in_shape)) * element);
    for (auto& b : input) b = static_cast<uint8_t>(pick(0, 255));
    std::vector<uint8_t> got(input.size(), 0xAB), want(input.size(), 0xCD);
    reference::Transpose(in_shape, perm, element, input.data(), got.data());
    Shape out_shape(rank);
    for (int d = 0; d < rank; ++d) out_shape[d] = in_shape[perm[d]];
    const std::vector<int64_t> in_strides = reference::Strides(in_shape);
    for (int64_t o = 0; o < NumElements(out_shape); ++o) {
      int64_t rem = o, src = 0;
      for (int d = rank - 1; d >= 0; --d) {
        src += rem % out_shape[d] * in_strides[perm[d]];
        rem /= out_shape[d];
      }
      std::memcpy(want.data() + o * element, input.data() + src * element, element);
    }
    ASSERT_EQ(got, want) << "iteration " << iter << " rank " << rank << " element " << element;
  }
}

TEST(Concatenation, RunCopiesMatchElementByElementOnRandomShapes) {
  std::mt19937 rng(29);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = pick(1, 4), axis = pick(0, rank - 1), count = pick(1, 4);
    const size_t element = std::array<size_t, 4>{1, 2, 4, 8}[pick(0, 3)];
    Shape base(rank);
    for (int d = 0; d < rank; ++d) base[d] = pick(1, 5);
    std::vector<Shape> shapes;
    std::vector<std::vector<uint8_t>> data;
    std::vector<const uint8_t*> pointers;
    Shape out_shape = base;
    out_shape[axis] = 0;
    for (int i = 0; i < count; ++i) {
      Shape s = base;
      s[axis] = pick(0, 4);
      out_shape[axis] += s[axis];
      shapes.push_back(s);
      data.emplace_back(static_cast<size_t>(NumElements(s)) * element);
      for (auto& b : data.back()) b = static_cast<uint8_t>(pick(0, 255));
    }
    for (const auto& d : data) pointers.push_back(d.data());
    std::vector<uint8_t> got(static_cast<size_t>(NumElements(out_shape)) * element, 0xAB), want(got.size(), 0xCD);
    reference::Concatenate(pointers, shapes, axis, element, got.data());
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= base[d];
    for (int d = axis + 1; d < rank; ++d) inner *= base[d];
    for (int64_t o = 0; o < outer; ++o) {
      int64_t at = 0;
      for (int i = 0; i < count; ++i) {
        for (int64_t a = 0; a < shapes[i][axis]; ++a, ++at) {
          for (int64_t j = 0; j < inner; ++j) {
            const int64_t dst = (o * out_shape[axis] + at) * inner + j, src = (o * shapes[i][axis] + a) * inner + j;
            std::memcpy(want.data() + dst * element, data[i].data() + src * element, element);
          }
        }
      }
    }
    ASSERT_EQ(got, want) << "iteration " << iter;
  }
}

// The reduced dims (unpadded dims merged into the one outside) and the fill / copy / fill rows
// against one element at a time: random ranks, shapes (empty dims too), paddings, element sizes
// (3 bytes takes the generic fill) and pad values whose bytes differ (no memset) or not.
TEST(Pad, ReducedRowsMatchElementByElementOnRandomShapes) {
  std::mt19937 rng(37);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 500; ++iter) {
    const int rank = pick(0, 5);
    const size_t element = std::array<size_t, 5>{1, 2, 3, 4, 8}[pick(0, 4)];
    Shape in_shape(rank), out_shape(rank);
    std::vector<int64_t> before(rank), after(rank);
    for (int d = 0; d < rank; ++d) {
      in_shape[d] = pick(0, 9) == 0 ? 0 : pick(1, 6);
      before[d] = pick(0, 2) == 0 ? pick(0, 3) : 0;
      after[d] = pick(0, 2) == 0 ? pick(0, 3) : 0;
      out_shape[d] = static_cast<int32_t>(in_shape[d] + before[d] + after[d]);
    }
    std::vector<uint8_t> value(element);
    const bool uniform = pick(0, 2) == 0;
    for (auto& b : value) b = static_cast<uint8_t>(uniform ? 0x5A : pick(0, 255));
    std::vector<uint8_t> input(static_cast<size_t>(NumElements(in_shape)) * element);
    for (auto& b : input) b = static_cast<uint8_t>(pick(0, 255));
    std::vector<uint8_t> got(static_cast<size_t>(NumElements(out_shape)) * element, 0xAB), want(got.size(), 0xCD);
    reference::Pad(in_shape, before, after, element, input.data(), value.data(), got.data());
    const std::vector<int64_t> in_strides = reference::Strides(in_shape);
    for (int64_t o = 0; o < NumElements(out_shape); ++o) {
      int64_t rem = o, src = 0;
      bool inside = true;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t i = rem % out_shape[d] - before[d];
        rem /= out_shape[d];
        inside = inside && i >= 0 && i < in_shape[d];
        src += i * in_strides[d];
      }
      std::memcpy(want.data() + o * element, inside ? input.data() + src * element : value.data(), element);
    }
    ASSERT_EQ(got, want) << "iteration " << iter << " rank " << rank << " element " << element;
  }
}

TEST(Pad, ZeroAndConstantValues) {
  for (bool v2 : {false, true}) {
    SingleOp op(v2 ? tflite::BuiltinOperator_PADV2 : tflite::BuiltinOperator_PAD);
    op.Input(TensorType::kFloat32, {2, 2});
    op.Const<int32_t>(TensorType::kInt32, {2, 2}, {1, 0, 0, 2});
    if (v2) op.Const<float>(TensorType::kFloat32, {}, {9});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 4}));
    const float p = v2 ? 9 : 0;
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{p, p, p, p, 1, 2, p, p, 3, 4, p, p}));
  }
}

TEST(Pad, QuantizedPadsWithZeroPoint) {
  QuantizationParams q;
  q.scale = {0.5f};
  q.zero_point = {-3};
  SingleOp op(tflite::BuiltinOperator_PAD);
  op.Input(TensorType::kInt8, {2}, q);
  op.Const<int64_t>(TensorType::kInt64, {1, 2}, {1, 1});
  op.Output(TensorType::kInt8, {}, q);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {5, 6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{-3, 5, 6, -3}));
}

TEST(Transpose, Rank3Permutation) {
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE);
  op.Input(TensorType::kFloat32, {2, 3, 4});
  op.Const<int32_t>(TensorType::kInt32, {3}, {2, 0, 1});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota(24));
  ASSERT_TRUE(interpreter->Invoke().ok());
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{4, 2, 3}));
  const auto got = GetOutput<float>(*interpreter, 0);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(got[(k * 2 + i) * 3 + j], static_cast<float>((i * 3 + j) * 4 + k));
}

TEST(Transpose, RejectsRepeatedAxis) {
  SingleOp op(tflite::BuiltinOperator_TRANSPOSE);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Const<int32_t>(TensorType::kInt32, {2}, {0, 0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

struct SliceCase {
  Shape in;
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  Shape out;
  std::vector<float> want;  // from numpy: np.arange(n).reshape(in)[slice]
};

TEST(StridedSlice, NumpySemantics) {
  const SliceCase cases[] = {
      // a[1:3] of a 4-vector
      {{4}, {1}, {3}, {1}, 0, 0, 0, 0, 0, {2}, {1, 2}},
      // a[::-1]
      {{4}, {0}, {0}, {-1}, 1, 1, 0, 0, 0, {4}, {3, 2, 1, 0}},
      // a[-3:-1]
      {{5}, {-3}, {-1}, {1}, 0, 0, 0, 0, 0, {2}, {2, 3}},
      // a[:, 1] (shrink axis 1) of 2x3
      {{2, 3}, {0, 1}, {0, 2}, {1, 1}, 1, 1, 0, 0, 2, {2}, {1, 4}},
      // a[1, ::2] of 2x3
      {{2, 3}, {1, 0}, {2, 0}, {1, 2}, 2, 2, 0, 0, 1, {2}, {3, 5}},
      // a[..., 1] of 2x2x2 (ellipsis then shrink)
      {{2, 2, 2}, {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2, {2, 2}, {1, 3, 5, 7}},
      // a[np.newaxis, 1:] of 3
      {{3}, {0, 1}, {0, 3}, {1, 1}, 0, 0, 0, 1, 0, {1, 2}, {1, 2}},
      // out-of-range ends clamp: a[1:100] of 3
      {{3}, {1}, {100}, {1}, 0, 0, 0, 0, 0, {2}, {1, 2}},
      // empty result a[2:1]
      {{3}, {2}, {1}, {1}, 0, 0, 0, 0, 0, {0}, {}},
      // a[::-2] of 5
      {{5}, {-1}, {-6}, {-2}, 0, 0, 0, 0, 0, {3}, {4, 2, 0}},
  };
  for (const auto& c : cases) {
    SingleOp op(tflite::BuiltinOperator_STRIDED_SLICE);
    op.Input(TensorType::kFloat32, c.in);
    const int32_t n = static_cast<int32_t>(c.begin.size());
    op.Const(TensorType::kInt32, {n}, c.begin);
    op.Const(TensorType::kInt32, {n}, c.end);
    op.Const(TensorType::kInt32, {n}, c.strides);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_StridedSliceOptions,
               ER_OPTIONS(tflite::CreateStridedSliceOptions(fbb, c.begin_mask, c.end_mask, c.ellipsis_mask,
                                                            c.new_axis_mask, c.shrink_mask)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, Iota(static_cast<int>(NumElements(c.in))));
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, c.out) << ShapeToString(c.in);
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), c.want) << ShapeToString(c.in);
  }
}

TEST(StridedSlice, OffsetMakesEndRelative) {
  SingleOp op(tflite::BuiltinOperator_STRIDED_SLICE, 8);
  op.Input(TensorType::kFloat32, {6});
  op.Const<int32_t>(TensorType::kInt32, {1}, {2});
  op.Const<int32_t>(TensorType::kInt32, {1}, {3});
  op.Const<int32_t>(TensorType::kInt32, {1}, {1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_StridedSliceOptions,
             ER_OPTIONS(tflite::CreateStridedSliceOptions(fbb, 0, 0, 0, 0, 0, true)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota(6));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{2, 3, 4}));
}

TEST(StridedSlice, ZeroStrideIsAnError) {
  SingleOp op(tflite::BuiltinOperator_STRIDED_SLICE);
  op.Input(TensorType::kFloat32, {6});
  op.Const<int32_t>(TensorType::kInt32, {1}, {0});
  op.Const<int32_t>(TensorType::kInt32, {1}, {3});
  op.Const<int32_t>(TensorType::kInt32, {1}, {0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
