// BATCH_MATMUL: a hand-computed product, then random shapes (adjoints, broadcast batch dims, ranks
// 2 to 5) in every type against a direct loop written here, hybrid rows, and shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/optimized/cpu.h"
#include "kernels/reference/batch_matmul.h"
#include "ops/quant_test_util.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::Clamp;
using testing::GetOutput;
using testing::Quant;
using testing::RandomInts;
using testing::Requantize;
using testing::SetInput;
using testing::SingleOp;

auto Options(bool adj_x, bool adj_y, bool asymmetric = false) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateBatchMatMulOptions(fbb, adj_x, adj_y, asymmetric).Union();
  };
}

TEST(BatchMatMul, HandComputed2x3Times3x2) {
  SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Input(TensorType::kFloat32, {3, 2});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4, 5, 6});
  SetInput<float>(*interpreter, 1, {7, 8, 9, 10, 11, 12});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{58, 64, 139, 154}));
}

struct Case {
  Shape lhs_batch, rhs_batch;
  int m, k, n;
  bool adj_x, adj_y;
};

const Case kCases[] = {
    {{}, {}, 3, 4, 2, false, false},        {{2}, {2}, 2, 3, 4, true, false},
    {{2, 1}, {3}, 3, 2, 2, false, true},    {{1, 2, 1}, {2, 2, 3}, 2, 5, 3, true, true},
    {{}, {2, 1, 2}, 4, 3, 1, false, false}, {{2, 1, 2}, {1, 2, 1}, 1, 2, 3, false, true},
};

// numpy broadcasting of two batch shapes; false when they do not broadcast.
bool BroadcastBatch(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i + a.size() < rank ? 1 : a[i + a.size() - rank];
    const int32_t db = i + b.size() < rank ? 1 : b[i + b.size() - rank];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

Shape Append(Shape batch, int a, int b) {
  batch.push_back(a);
  batch.push_back(b);
  return batch;
}

// The matrix operands as stored (adjoints transposed) and a direct product over broadcast batches.
template <class T>
struct Operands {
  Shape lhs_shape, rhs_shape, out_shape;
  std::vector<T> lhs, rhs;
  // out[batch][i][j] = sum_k f(lhs value (i, k), rhs value (k, j)).
  template <class Fn>
  std::vector<int64_t> Product(const Case& c, const Fn& f) const {
    const int rank = static_cast<int>(out_shape.size()) - 2;
    std::vector<int64_t> result;
    const int64_t batches = NumElements(Shape(out_shape.begin(), out_shape.end() - 2));
    for (int64_t bi = 0; bi < batches; ++bi) {
      // Coordinates of this output batch, then the lhs/rhs batch they read (size-1 dims repeat).
      std::vector<int> coord(rank);
      int64_t rest = bi;
      for (int d = rank - 1; d >= 0; --d) coord[d] = static_cast<int>(rest % out_shape[d]), rest /= out_shape[d];
      auto flat = [&](const Shape& batch) {
        int64_t index = 0;
        const int offset = rank - static_cast<int>(batch.size());
        for (size_t d = 0; d < batch.size(); ++d) index = index * batch[d] + (batch[d] == 1 ? 0 : coord[d + offset]);
        return index;
      };
      const int64_t lb = flat(c.lhs_batch), rb = flat(c.rhs_batch);
      for (int i = 0; i < c.m; ++i)
        for (int j = 0; j < c.n; ++j) {
          int64_t sum = 0;
          for (int k = 0; k < c.k; ++k) {
            const T a = lhs[lb * c.m * c.k + (c.adj_x ? k * c.m + i : i * c.k + k)];
            const T b = rhs[rb * c.k * c.n + (c.adj_y ? j * c.k + k : k * c.n + j)];
            sum += f(a, b);
          }
          result.push_back(sum);
        }
    }
    return result;
  }
};

template <class T>
Operands<T> MakeOperands(const Case& c, int seed, int64_t lo, int64_t hi) {
  Operands<T> o;
  o.lhs_shape = c.adj_x ? Append(c.lhs_batch, c.k, c.m) : Append(c.lhs_batch, c.m, c.k);
  o.rhs_shape = c.adj_y ? Append(c.rhs_batch, c.n, c.k) : Append(c.rhs_batch, c.k, c.n);
  Shape batch;
  EXPECT_TRUE(BroadcastBatch(c.lhs_batch, c.rhs_batch, &batch));
  o.out_shape = Append(batch, c.m, c.n);
  o.lhs = RandomInts<T>(NumElements(o.lhs_shape), seed, lo, hi);
  o.rhs = RandomInts<T>(NumElements(o.rhs_shape), seed + 1, lo, hi);
  return o;
}

TEST(BatchMatMul, FloatAdjointsAndBroadcastMatchDirectLoop) {
  int seed = 1;
  for (const Case& c : kCases) {
    // Small integers as floats: exact in any summation order.
    const auto ints = MakeOperands<int32_t>(c, seed += 2, -9, 9);
    SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
    op.Input(TensorType::kFloat32, ints.lhs_shape);
    op.Input(TensorType::kFloat32, ints.rhs_shape);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(c.adj_x, c.adj_y));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, std::vector<float>(ints.lhs.begin(), ints.lhs.end()));
    SetInput(*interpreter, 1, std::vector<float>(ints.rhs.begin(), ints.rhs.end()));
    ASSERT_TRUE(interpreter->Invoke().ok());
    ASSERT_EQ(interpreter->output(0)->shape, ints.out_shape);
    const auto sums = ints.Product(c, [](int32_t a, int32_t b) { return int64_t{a} * b; });
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), std::vector<float>(sums.begin(), sums.end())) << "seed " << seed;
  }
}

// Float products run on SIMD lanes in the reference's order (reference::MatMulTransposedB: 16
// lanes over blocks of 256): the same bits for random values, depths around the lane and block
// sizes, both adjoints, rows and columns past the kernels' tiles (4 x 4 on AVX-512, 2 x 3 on
// AVX2), rhs constant (transposed once) or at run time (transposed from 4 rows, read in place
// below), on every ISA and with 1 and 3 threads (tasks cut the columns).
TEST(BatchMatMul, FloatSameBitsAsReferenceOrder) {
  const int depths[] = {1, 15, 16, 17, 255, 256, 257, 600};
  struct Size {
    int m, n;
  };
  const Size sizes[] = {{3, 7}, {1, 40}, {5, 33}, {37, 16}, {22, 130}};
  int seed = 700;
  for (int isa = 0; isa <= static_cast<int>(optimized::DetectedIsa()); ++isa) {
    optimized::ScopedIsa scoped(static_cast<optimized::Isa>(isa));
    for (int k : depths)
      for (const Size size : sizes)
        for (bool adj_y : {false, true})
          for (bool constant : {false, true}) {
            const int m = size.m, n = size.n;
            const auto lhs = testing::RandomFloats(m * k, ++seed);
            const auto rhs = testing::RandomFloats(k * n, ++seed);
            SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
            op.Input(TensorType::kFloat32, {m, k});
            const Shape rhs_shape = adj_y ? Shape{n, k} : Shape{k, n};
            if (constant) {
              op.Const(TensorType::kFloat32, rhs_shape, rhs);
            } else {
              op.Input(TensorType::kFloat32, rhs_shape);
            }
            op.Output(TensorType::kFloat32);
            op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(false, adj_y));
            std::vector<float> bt(static_cast<size_t>(n) * k);
            for (int j = 0; j < n; ++j)
              for (int x = 0; x < k; ++x) bt[j * k + x] = adj_y ? rhs[j * k + x] : rhs[x * n + j];
            std::vector<float> want(static_cast<size_t>(m) * n);
            reference::MatMulTransposedB(lhs.data(), bt.data(), m, n, k, want.data());
            for (int threads : {1, 3}) {
              InterpreterOptions options;
              options.num_threads = threads;
              auto interpreter = op.Build(options);
              ASSERT_TRUE(interpreter);
              SetInput(*interpreter, 0, lhs);
              if (!constant) SetInput(*interpreter, 1, rhs);
              for (int run = 0; run < 2; ++run) {  // the second run reuses the packed constant
                ASSERT_TRUE(interpreter->Invoke().ok());
                const auto got = GetOutput<float>(*interpreter, 0);
                ASSERT_EQ(got.size(), want.size());
                EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
                    << optimized::IsaName(static_cast<optimized::Isa>(isa)) << " m " << m << " n " << n << " k " << k
                    << " adj_y " << adj_y << " constant " << constant << " threads " << threads;
              }
            }
          }
  }
}

template <class L, class R>
void RunQuantized(const Case& c, TensorType lhs_type, TensorType rhs_type, int seed) {
  const bool int16 = lhs_type == TensorType::kInt16;
  const int lhs_zp = int16 ? 0 : 6, rhs_zp = int16 ? 0 : -4, out_zp = int16 ? 0 : -10;
  const float lhs_scale = 0.02f, rhs_scale = 0.03f, out_scale = int16 ? 0.0003f : 0.05f;
  auto lhs_ops = MakeOperands<L>(c, seed, std::numeric_limits<L>::min(), std::numeric_limits<L>::max());
  const auto rhs_ops = MakeOperands<R>(c, seed + 7, std::numeric_limits<R>::min(), std::numeric_limits<R>::max());
  SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
  op.Input(lhs_type, lhs_ops.lhs_shape, Quant(lhs_scale, lhs_zp));
  op.Const(rhs_type, rhs_ops.rhs_shape, rhs_ops.rhs, Quant(rhs_scale, rhs_zp));
  op.Output(lhs_type, {}, Quant(out_scale, out_zp));
  op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(c.adj_x, c.adj_y));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, lhs_ops.lhs);
  ASSERT_TRUE(interpreter->Invoke().ok());
  Operands<int32_t> both;
  both.out_shape = lhs_ops.out_shape;
  both.lhs.assign(lhs_ops.lhs.begin(), lhs_ops.lhs.end());
  both.rhs.assign(rhs_ops.rhs.begin(), rhs_ops.rhs.end());
  const auto sums = both.Product(c, [&](int32_t a, int32_t b) { return int64_t{a - lhs_zp} * (b - rhs_zp); });
  std::vector<L> want;
  for (int64_t s : sums) {
    const double real = static_cast<double>(lhs_scale * rhs_scale) / out_scale;
    want.push_back(static_cast<L>(
        Clamp(out_zp + Requantize(s, real, int16), std::numeric_limits<L>::min(), std::numeric_limits<L>::max())));
  }
  EXPECT_EQ(GetOutput<L>(*interpreter, 0), want) << "seed " << seed;
}

TEST(BatchMatMul, QuantizedTypesMatchDirectLoop) {
  int seed = 30;
  for (const Case& c : kCases) {
    RunQuantized<int8_t, int8_t>(c, TensorType::kInt8, TensorType::kInt8, seed += 3);
    RunQuantized<int16_t, int16_t>(c, TensorType::kInt16, TensorType::kInt16, seed += 3);
    RunQuantized<int16_t, int8_t>(c, TensorType::kInt16, TensorType::kInt8, seed += 3);
  }
}

// int16 x int16 runs on the int16 pair kernel with the rhs split in bytes (256 * high + low, int64
// sums): both operands run time inputs (as in litert_matmul_quant), depths over several blocks of
// 128 pairs, the extreme values (-32768 x -32768 down a whole row and column, where one int32 pair
// sum of the raw values would overflow) and an output scale that keeps most results unclamped.
TEST(BatchMatMul, Int16TimesInt16RunTimeOperandsExact) {
  struct Shapes {
    int batches, m, k, n;
    bool adj_y;
  };
  const Shapes shapes[] = {{1, 7, 600, 37, true}, {2, 13, 257, 40, false}, {1, 1, 3, 1, false}};
  // Full-range values (sums near 2^34), and small ones with a larger multiplier, where an error
  // of a few units in one product shows.
  struct Range {
    int16_t lo, hi;
    float out_scale;
  };
  const Range ranges[] = {{-32768, 32767, 2.0f}, {-300, 300, 2e-4f}};
  int seed = 500;
  for (const Range& range : ranges)
  for (const Shapes& c : shapes) {
    const float lhs_scale = 0.001f, rhs_scale = 0.002f, out_scale = range.out_scale;
    auto lhs = RandomInts<int16_t>(static_cast<size_t>(c.batches) * c.m * c.k, ++seed, range.lo, range.hi);
    auto rhs = RandomInts<int16_t>(static_cast<size_t>(c.batches) * c.k * c.n, ++seed, range.lo, range.hi);
    auto rhs_at = [&](int b, int k, int j) -> int16_t& {
      return rhs[static_cast<size_t>(b) * c.k * c.n + (c.adj_y ? static_cast<size_t>(j) * c.k + k
                                                                : static_cast<size_t>(k) * c.n + j)];
    };
    for (int k = 0; k < c.k; ++k) {
      lhs[k] = -32768;  // row 0 of batch 0
      rhs_at(0, k, 0) = -32768;  // column 0 of batch 0
    }
    SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
    op.Input(TensorType::kInt16, {c.batches, c.m, c.k}, Quant(lhs_scale));
    op.Input(TensorType::kInt16, c.adj_y ? Shape{c.batches, c.n, c.k} : Shape{c.batches, c.k, c.n},
             Quant(rhs_scale));
    op.Output(TensorType::kInt16, {}, Quant(out_scale));
    op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(false, c.adj_y));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    for (int run = 0; run < 2; ++run) {  // new rhs values on the second run: repacked
      if (run == 1) {
        for (auto& v : rhs) v = static_cast<int16_t>(-(v / 2) - 1);
      }
      SetInput(*interpreter, 0, lhs);
      SetInput(*interpreter, 1, rhs);
      ASSERT_TRUE(interpreter->Invoke().ok());
      std::vector<int16_t> want;
      int unclamped = 0;
      for (int b = 0; b < c.batches; ++b)
        for (int i = 0; i < c.m; ++i)
          for (int j = 0; j < c.n; ++j) {
            int64_t sum = 0;
            for (int k = 0; k < c.k; ++k) {
              sum += int64_t{lhs[(static_cast<size_t>(b) * c.m + i) * c.k + k]} * rhs_at(b, k, j);
            }
            const int32_t v = Requantize(sum, static_cast<double>(lhs_scale * rhs_scale) / out_scale, true);
            unclamped += v > -32768 && v < 32767;
            want.push_back(static_cast<int16_t>(Clamp(v, -32768, 32767)));
          }
      EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), want) << "seed " << seed << " run " << run;
      // (Row and column 0 of batch 0 clamp: a single output may be all there is.)
      EXPECT_GE(2 * unclamped + 2, static_cast<int>(want.size())) << "the case tests the clamp, not the sums";
    }
  }
}

TEST(BatchMatMul, Int8ToInt32GivesRawSums) {
  const Case c = {{2}, {1}, 2, 3, 2, false, true};
  const auto ops = MakeOperands<int8_t>(c, 5, -128, 127);
  SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
  op.Input(TensorType::kInt8, ops.lhs_shape, Quant(0.5f, 3));
  op.Input(TensorType::kInt8, ops.rhs_shape, Quant(0.5f, -1));
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(c.adj_x, c.adj_y));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, ops.lhs);
  SetInput(*interpreter, 1, ops.rhs);
  ASSERT_TRUE(interpreter->Invoke().ok());
  // TFLite sums the stored values, ignoring the zero points.
  const auto sums = ops.Product(c, [](int8_t a, int8_t b) { return int64_t{a} * b; });
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), std::vector<int32_t>(sums.begin(), sums.end()));
}

TEST(BatchMatMul, HybridRowsHandComputedAndPerChannel) {
  // lhs rows [1, -0.5, 0.3] and [0, 0, 0]; rhs [3, 2] int8 = [[1, 4], [2, 5], [3, 6]].
  for (bool per_channel : {false, true}) {
    SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
    op.Input(TensorType::kFloat32, {2, 3});
    op.Const<int8_t>(TensorType::kInt8, {3, 2}, {1, 4, 2, 5, 3, 6},
                     per_channel ? testing::PerChannel({0.5f, 0.25f}, 1) : Quant(0.5f));
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, {1.0f, -0.5f, 0.3f, 0.0f, 0.0f, 0.0f});
    ASSERT_TRUE(interpreter->Invoke().ok());
    // Row 0 symmetric, scale 1/127: q = [127, -64, 38]; column sums 127 - 128 + 114 = 113 and
    // 508 - 320 + 228 = 416. Row 1 is all zero.
    const auto got = GetOutput<float>(*interpreter, 0);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_NEAR(got[0], 113.0 / 127 * 0.5, 1e-6);
    EXPECT_NEAR(got[1], 416.0 / 127 * (per_channel ? 0.25 : 0.5), 1e-6);
    EXPECT_EQ(got[2], 0.0f);
    EXPECT_EQ(got[3], 0.0f);
  }
}

TEST(BatchMatMul, RejectsBadShapes) {
  auto build = [](Shape lhs, Shape rhs, bool adj_y = false) {
    SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
    op.Input(TensorType::kFloat32, lhs);
    op.Input(TensorType::kFloat32, rhs);
    op.Output(TensorType::kFloat32);
    op.Options(tflite::BuiltinOptions_BatchMatMulOptions, Options(false, adj_y));
    return op.TryBuild();
  };
  EXPECT_TRUE(build({2, 3, 4}, {4, 5}).ok());
  EXPECT_FALSE(build({2, 3, 4}, {3, 5}).ok());              // inner dimensions 4 and 3
  EXPECT_TRUE(build({2, 3, 4}, {5, 4}, true).ok());         // adj_y: rhs is [n, k]
  EXPECT_FALSE(build({2, 3, 4}, {3, 4, 5}).ok());           // batches 2 and 3 do not broadcast
  EXPECT_FALSE(build({4}, {4, 5}).ok());                    // rank 1
  EXPECT_FALSE(build({1, 1, 1, 1, 1, 2, 4}, {4, 5}).ok());  // rank 7
}

TEST(BatchMatMul, PerChannelRhsOnlyForHybrid) {
  SingleOp op(tflite::BuiltinOperator_BATCH_MATMUL);
  op.Input(TensorType::kInt8, {2, 3}, testing::Quant(1.0f));
  op.Const<int8_t>(TensorType::kInt8, {3, 2}, {1, 2, 3, 4, 5, 6}, testing::PerChannel({1.0f, 2.0f}, 1));
  op.Output(TensorType::kInt8, {}, testing::Quant(1.0f));
  const Status st = op.TryBuild();
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.unsupported()) << st.message();
}

}  // namespace
}  // namespace edgerun
