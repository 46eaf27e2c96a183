// Optimized MEAN/SUM sums, REDUCE_MAX/MIN folds and RESIZE_BILINEAR against the reference kernels: bit-exact for every
// type (the optimized versions keep the reference's order of operations), on random shapes and
// axes, for 1 and 3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>

#include "kernels/optimized/reduce.h"
#include "kernels/optimized/resize.h"
#include "kernels/reference/reduce.h"
#include "kernels/reference/resize.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::ForEachIsaAndThreads;
using testing::Random;

// Bitwise equality, so that NaN, -0 and +0 count as they are stored.
template <class T>
void ExpectSameBits(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0);
}

// ReduceSum of `input` against the reference's sums: ReduceFold (from_first) or ForEachReduce
// from zero, bit for bit. The output starts as garbage, which ReduceSum must overwrite.
template <class T, class Acc>
void ExpectReferenceSums(ThreadPool* pool, const Shape& shape, const std::vector<bool>& reduced,
                         const std::vector<T>& input, int64_t out_count, bool from_first) {
  std::vector<Acc> want(static_cast<size_t>(out_count)), got(want.size(), static_cast<Acc>(12345));
  if (from_first) {
    reference::ReduceFold(shape, reduced, input.data(), want.data(), out_count, Acc{0},
                          [](T x) { return static_cast<Acc>(x); },
                          [](Acc acc, T x) { return SumAdd(acc, static_cast<Acc>(x)); });
  } else {
    std::fill(want.begin(), want.end(), Acc{0});
    reference::ForEachReduce(shape, reduced,
                             [&](int64_t o, int64_t i) { want[o] = SumAdd(want[o], static_cast<Acc>(input[i])); });
  }
  ReduceSum(pool, shape, reduced, input.data(), got.data(), out_count, from_first);
  ExpectSameBits(got, want);
}

template <class T, class Acc>
void CheckSum(Random& r, ThreadPool* pool, bool from_first) {
  const int rank = r.Int(0, 4);
  Shape shape;
  std::vector<bool> reduced;
  int64_t out_count = 1;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(r.Int(0, 9) == 0 ? 1 : r.Int(1, 7));
    reduced.push_back(r.Bool());
    if (!reduced.back()) out_count *= shape.back();
  }
  const int64_t n = NumElements(shape);
  std::vector<T> input(static_cast<size_t>(n));
  for (auto& x : input) {
    if constexpr (std::is_floating_point_v<T>) {
      x = r.Int(0, 9) == 0 ? -0.0f : r.Float(-100, 100);
    } else {
      x = static_cast<T>(r.Int(-2000000000, 2000000000));
    }
  }
  ExpectReferenceSums<T, Acc>(pool, shape, reduced, input, out_count, from_first);
}

TEST(OptimizedReduceSum, MatchesReferenceBitExact) {
  Random r(31);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 60; ++iter) {
      CheckSum<float, float>(r, pool, iter % 2 == 0);
      CheckSum<int32_t, int64_t>(r, pool, false);
      CheckSum<int8_t, int32_t>(r, pool, true);
      CheckSum<int64_t, int64_t>(r, pool, true);
    }
  });
}

TEST(OptimizedReduceSum, LargeInnerRowsSplitOverThreads) {
  Random r(32);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    // [1, 40, 30, 300] over the middle axes (global average pooling) and over all but the last.
    const Shape shape{1, 40, 30, 300};
    const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(shape)));
    for (const std::vector<bool>& reduced : {std::vector<bool>{false, true, true, false},
                                             std::vector<bool>{true, true, true, false}}) {
      std::vector<float> want(300, 0.0f), got(300);
      reference::ForEachReduce(shape, reduced, [&](int64_t o, int64_t i) { want[o] += input[i]; });
      ReduceSum(pool, shape, reduced, input.data(), got.data(), 300, false);
      ExpectSameBits(got, want);
    }
  });
}

// 8-bit sums over leading axes into 16 or more kept values (a global MEAN over H and W) take the
// ISA's row kernel (in chunks of channels at several threads); the other axes the walk. Every
// sum equals the reference's, int8 and uint8, random sizes with partial vectors at the end.
template <class T>
void CheckLeadingSum8(Random& r, ThreadPool* pool, const Shape& shape, const std::vector<bool>& reduced) {
  int64_t out_count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) out_count *= shape[d];
  }
  const std::vector<T> input =
      r.Ints<T>(static_cast<size_t>(NumElements(shape)), std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  ExpectReferenceSums<T, int32_t>(pool, shape, reduced, input, out_count, /*from_first=*/false);
}

TEST(OptimizedReduceSum, EightBitLeadingAxesMatchReference) {
  Random r(33);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 30; ++iter) {
      const Shape shape{1, r.Int(1, 9), r.Int(1, 9), r.Int(1, 300) + (iter % 3 == 0 ? 1000 : 0)};
      SCOPED_TRACE(ShapeToString(shape));
      for (const std::vector<bool>& reduced : {std::vector<bool>{false, true, true, false},
                                               std::vector<bool>{true, true, false, false},
                                               std::vector<bool>{false, false, true, true}}) {
        CheckLeadingSum8<int8_t>(r, pool, shape, reduced);
        CheckLeadingSum8<uint8_t>(r, pool, shape, reduced);
      }
    }
    CheckLeadingSum8<int8_t>(r, pool, {1, 7, 7, 1280}, {false, true, true, false});
    CheckLeadingSum8<uint8_t>(r, pool, {1, 7, 7, 1280}, {false, true, true, false});
  });
}

// REDUCE_MAX / REDUCE_MIN's fold, (acc > x) ? acc : x, whose result depends on the order for NaN
// and signed zeros: NaN, -0 and +0 sprinkled in random shapes and axes, against
// reference::ReduceFold bit for bit.
template <bool kMax>
void CheckExtremum(Random& r, ThreadPool* pool) {
  const int rank = r.Int(0, 4);
  Shape shape;
  std::vector<bool> reduced;
  int64_t out_count = 1;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(r.Int(0, 9) == 0 ? 1 : r.Int(1, 7));
    reduced.push_back(r.Bool());
    if (!reduced.back()) out_count *= shape.back();
  }
  std::vector<float> input(static_cast<size_t>(NumElements(shape)));
  for (auto& x : input) {
    const int kind = r.Int(0, 9);
    x = kind == 0 ? std::numeric_limits<float>::quiet_NaN() : kind == 1 ? -0.0f : kind == 2 ? 0.0f : r.Float(-5, 5);
  }
  auto next = [](float acc, float x) {
    if constexpr (kMax) {
      return (acc > x) ? acc : x;
    } else {
      return (acc < x) ? acc : x;
    }
  };
  const float empty = kMax ? std::numeric_limits<float>::lowest() : std::numeric_limits<float>::max();
  std::vector<float> want(static_cast<size_t>(out_count)), got(want.size());
  reference::ReduceFold(shape, reduced, input.data(), want.data(), out_count, empty, [](float x) { return x; }, next);
  ReduceFoldOrdered(pool, shape, reduced, input.data(), got.data(), out_count, /*from_first=*/true, empty, next);
  ExpectSameBits(got, want);
}

// REDUCE_ANY / REDUCE_ALL's row folds (AnyTrueRow, AllTrueRow) against the reference's byte at a
// time fold: random shapes and axes, rows up to 300 bytes, stored bools of any byte value, rows
// of one value (all false, all true) and rows with a single odd byte at any place.
void CheckBoolFolds(Random& r, ThreadPool* pool) {
  const int rank = r.Int(1, 4);
  Shape shape;
  std::vector<bool> reduced;
  int64_t out_count = 1;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(d == rank - 1 ? r.Int(1, 300) : r.Int(1, 5));
    reduced.push_back(r.Bool());
    if (!reduced.back()) out_count *= shape.back();
  }
  std::vector<uint8_t> input(static_cast<size_t>(NumElements(shape)));
  const int kind = r.Int(0, 3);
  const uint8_t fill = static_cast<uint8_t>(kind == 0 ? 0 : r.Int(1, 255));
  for (auto& x : input) x = kind <= 1 ? fill : static_cast<uint8_t>(r.Int(0, 3) == 0 ? 0 : r.Int(1, 255));
  if (kind <= 1 && r.Bool()) input[static_cast<size_t>(r.Int(0, static_cast<int>(input.size()) - 1))] = kind == 0 ? 7 : 0;
  for (bool any : {true, false}) {
    auto next = [any](uint8_t acc, uint8_t x) -> uint8_t { return any ? (acc | (x != 0)) : (acc & (x != 0)); };
    const uint8_t empty = any ? 0 : 1;
    std::vector<uint8_t> want(static_cast<size_t>(out_count)), got(want.size(), 0xA5);
    reference::ReduceFold(shape, reduced, input.data(), want.data(), out_count, empty,
                          [](uint8_t x) -> uint8_t { return x != 0; }, next);
    if (any) {
      ReduceFoldOrderedRows(pool, shape, reduced, input.data(), got.data(), out_count, false, empty, next, AnyTrueRow{});
    } else {
      ReduceFoldOrderedRows(pool, shape, reduced, input.data(), got.data(), out_count, false, empty, next, AllTrueRow{});
    }
    ASSERT_EQ(got, want) << (any ? "ANY" : "ALL") << " kind " << kind << " inner " << shape.back();
  }
}

TEST(OptimizedReduceAnyAll, RowFoldsMatchTheReference) {
  Random r(36);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 200; ++iter) CheckBoolFolds(r, pool);
  });
}

// ExtremumRow (the ISA's vectors or 16 lanes, the in-order loop again for a NaN or a zero result)
// against the in-order loop bit for bit, on every ISA: rows past and below the lane path's 32,
// starting at any alignment, values in a narrow range (ties), a unique extreme at each place, rows
// without NaN (the lane path's result), with one NaN at a random place or a start value that is
// NaN, with zeros of both signs as the extreme; and the integer types.
template <bool kMax, class T>
void CheckExtremumRows(Random& r) {
  auto next = [](T acc, T x) {
    if constexpr (kMax) {
      return (acc > x) ? acc : x;
    } else {
      return (acc < x) ? acc : x;
    }
  };
  for (int iter = 0; iter < 300; ++iter) {
    const int n = r.Int(0, 150), shift = r.Int(0, 15);  // rows start at any element of a vector
    std::vector<T> buffer(static_cast<size_t>(n + shift));
    const auto row = std::span<T>(buffer).subspan(static_cast<size_t>(shift));
    const int kind = r.Int(0, 4);
    for (auto& x : row) {
      if constexpr (std::is_floating_point_v<T>) {
        if (kind == 3) {
          x = r.Int(0, 2) == 0 ? (r.Bool() ? -0.0f : 0.0f) : (kMax ? -1.0f : 1.0f);
        } else {
          x = static_cast<T>(r.Int(-20, 20)) / 4;
        }
      } else {
        x = static_cast<T>(r.Int(std::numeric_limits<T>::lowest() < -1000 ? -1000 : std::numeric_limits<T>::lowest(),
                                 std::numeric_limits<T>::max() > 1000 ? 1000 : std::numeric_limits<T>::max()));
      }
    }
    T start = n > 0 ? row[0] : T{1};
    if constexpr (std::is_floating_point_v<T>) {
      if (kind == 1 && n > 0) row[static_cast<size_t>(r.Int(0, n - 1))] = std::numeric_limits<T>::quiet_NaN();
      if (kind == 2) start = std::numeric_limits<T>::quiet_NaN();
    }
    const T want = SerialRow<T, T, decltype(next)>{next}(start, row.data(), n);
    const T got = ExtremumRow<kMax, T>{}(start, row.data(), n);
    ASSERT_EQ(0, std::memcmp(&got, &want, sizeof(T))) << "max " << kMax << " n " << n << " kind " << kind;
    if (kind != 4) continue;
    // A unique extreme at each position in turn: no value may be skipped.
    for (int p = 0; p < n; ++p) {
      const T saved = row[static_cast<size_t>(p)];
      row[static_cast<size_t>(p)] = static_cast<T>(kMax ? 100 : -100);
      const T want_at = SerialRow<T, T, decltype(next)>{next}(start, row.data(), n);
      const T got_at = ExtremumRow<kMax, T>{}(start, row.data(), n);
      ASSERT_EQ(0, std::memcmp(&got_at, &want_at, sizeof(T))) << "max " << kMax << " n " << n << " extreme at " << p;
      row[static_cast<size_t>(p)] = saved;
    }
  }
}

TEST(OptimizedReduceMinMax, LaneRowsMatchTheInOrderLoop) {
  Random r(35);
  for (int isa = 0; isa <= static_cast<int>(DetectedIsa()); ++isa) {
    ScopedIsa scoped(static_cast<Isa>(isa));
    CheckExtremumRows<true, float>(r);
    CheckExtremumRows<false, float>(r);
  }
  CheckExtremumRows<true, int32_t>(r);
  CheckExtremumRows<false, int8_t>(r);
  CheckExtremumRows<true, uint8_t>(r);
  CheckExtremumRows<false, int16_t>(r);
  CheckExtremumRows<true, int64_t>(r);
}

TEST(OptimizedReduceMinMax, MatchesReferenceOrderWithNaNAndZeros) {
  Random r(33);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 80; ++iter) {
      CheckExtremum<true>(r, pool);
      CheckExtremum<false>(r, pool);
    }
  });
}

// Reductions over the innermost axes of many rows (FoldRowsF32Fn: rows a vector's lanes at a
// time, blocks transposed in registers) against the reference's in-order fold bit for bit, for
// SUM, MEAN's sums from zero, REDUCE_PROD, REDUCE_MAX and REDUCE_MIN: row counts and lengths on
// both sides of the lane counts (partial blocks of rows and of values, rows of one value), the
// values a sum's rounding depends on the order of, NaN, infinities and zeros of both signs.
void CheckFoldRows(Random& r, ThreadPool* pool) {
  const int outer = r.Int(1, 3), rows = r.Int(1, 40), n = r.Bool() ? r.Int(1, 40) : r.Int(100, 300);
  // [outer, rows, n] over the last axis, or [rows, n] over the last, or [1, rows, 1, n] over both last.
  const int layout = r.Int(0, 2);
  const Shape shape = layout == 0 ? Shape{outer, rows, n} : layout == 1 ? Shape{rows, n} : Shape{1, rows, 1, n};
  const std::vector<bool> reduced = layout == 0   ? std::vector<bool>{false, false, true}
                                    : layout == 1 ? std::vector<bool>{false, true}
                                                  : std::vector<bool>{false, false, true, true};
  const int64_t out_count = NumElements(shape) / n;
  std::vector<float> input(static_cast<size_t>(NumElements(shape)));
  const int special = r.Int(0, 3);
  for (auto& x : input) {
    const int kind = r.Int(0, 40);
    x = r.Float(-1.5f, 1.5f) * (r.Bool() ? 1e6f : 1.0f);  // sums whose rounding depends on the order
    if (special == 1 && kind == 0) x = std::numeric_limits<float>::quiet_NaN();
    if (special == 2 && kind <= 1) x = kind == 0 ? -0.0f : 0.0f;
    if (special == 3 && kind == 0) x = r.Bool() ? std::numeric_limits<float>::infinity() : -0.0f;
  }
  auto check = [&](const char* what, bool from_first, float empty, auto next, auto run) {
    std::vector<float> want(static_cast<size_t>(out_count)), got(want.size(), 123.0f);
    if (from_first) {
      reference::ReduceFold(shape, reduced, input.data(), want.data(), out_count, empty, [](float x) { return x; },
                            next);
    } else {
      std::fill(want.begin(), want.end(), empty);
      reference::ForEachReduce(shape, reduced, [&](int64_t o, int64_t i) { want[o] = next(want[o], input[i]); });
    }
    run(got.data());
    SCOPED_TRACE(::testing::Message() << what << " rows " << out_count << " n " << n << " layout " << layout
                                      << " special " << special);
    ExpectSameBits(got, want);
  };
  const auto add = [](float a, float x) { return a + x; };
  const auto mul = [](float a, float x) { return a * x; };
  const auto max = [](float a, float x) { return (a > x) ? a : x; };
  const auto min = [](float a, float x) { return (a < x) ? a : x; };
  const float lowest = std::numeric_limits<float>::lowest(), highest = std::numeric_limits<float>::max();
  check("SUM", true, 0.0f, add, [&](float* out) { ReduceSum(pool, shape, reduced, input.data(), out, out_count, true); });
  check("MEAN's sums", false, 0.0f, add,
        [&](float* out) { ReduceSum(pool, shape, reduced, input.data(), out, out_count, false); });
  check("REDUCE_PROD", false, 1.0f, mul, [&](float* out) {
    ReduceFoldOrderedRows(pool, shape, reduced, input.data(), out, out_count, false, 1.0f, mul,
                          InOrderRowF32<FoldKind::kMul>{});
  });
  check("REDUCE_MAX", true, lowest, max, [&](float* out) {
    ReduceFoldOrderedRows(pool, shape, reduced, input.data(), out, out_count, true, lowest, max,
                          ExtremumRow<true, float>{});
  });
  check("REDUCE_MIN", true, highest, min, [&](float* out) {
    ReduceFoldOrderedRows(pool, shape, reduced, input.data(), out, out_count, true, highest, min,
                          ExtremumRow<false, float>{});
  });
}

TEST(OptimizedReduce, ManyRowsFoldInOrderBitExact) {
  Random r(36);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 40; ++iter) CheckFoldRows(r, pool);
  });
}

template <class T>
void CheckResize(Random& r, ThreadPool* pool) {
  reference::ResizeParams p;
  p.align_corners = r.Int(0, 2) == 0;
  p.half_pixel_centers = !p.align_corners && r.Bool();
  const bool twice = r.Int(0, 3) == 0;
  const Shape in_shape{r.Int(1, 2), r.Int(1, 9), r.Int(1, 9), r.Int(1, 19)};
  const Shape out_shape{in_shape[0], twice ? 2 * in_shape[1] : r.Int(1, 20), twice ? 2 * in_shape[2] : r.Int(1, 20),
                        in_shape[3]};
  std::vector<T> input(static_cast<size_t>(NumElements(in_shape)));
  for (auto& x : input) {
    if constexpr (std::is_floating_point_v<T>) {
      x = r.Float(-10, 10);
    } else {
      x = static_cast<T>(r.Int(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()));
    }
  }
  std::vector<T> want(static_cast<size_t>(NumElements(out_shape))), got(want.size());
  if constexpr (std::is_same_v<T, float>) {
    reference::ResizeBilinearFloat(p, in_shape, input.data(), out_shape, want.data());
    ResizeBilinearFloat(pool, p, in_shape, input.data(), out_shape, got.data());
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    reference::ResizeBilinearWeighted<T>(p, in_shape, input.data(), out_shape, want.data());
    ResizeBilinearWeighted<T>(pool, p, in_shape, input.data(), out_shape, got.data());
  } else {
    reference::ResizeBilinearInteger<T>(p, in_shape, input.data(), out_shape, want.data());
    ResizeBilinearInteger<T>(pool, p, in_shape, input.data(), out_shape, got.data());
  }
  ExpectSameBits(got, want);
}

TEST(OptimizedResizeBilinear, MatchesReferenceBitExact) {
  Random r(33);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 25; ++iter) {
      CheckResize<float>(r, pool);
      CheckResize<uint8_t>(r, pool);
      CheckResize<int8_t>(r, pool);
      CheckResize<int16_t>(r, pool);
    }
  });
}


// The float rows on vector registers (IsaKernels::resize_row_f32): depths past two vectors with
// masked tails, inputs of mixed magnitude (products that an FMA would round differently) and
// negative zeros (an all -0 pixel must come out +0, as the reference's sum from +0 gives).
TEST(OptimizedResizeBilinear, FloatRowsKeepTheReferenceArithmetic) {
  Random r(34);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 30; ++iter) {
      reference::ResizeParams p;
      p.align_corners = r.Bool();
      p.half_pixel_centers = !p.align_corners && r.Bool();
      const Shape in_shape{1, r.Int(1, 7), r.Int(1, 7), r.Int(1, 40)};
      const Shape out_shape{1, r.Int(2, 15), r.Int(2, 15), in_shape[3]};
      std::vector<float> input(static_cast<size_t>(NumElements(in_shape)));
      for (auto& x : input) {
        const int kind = r.Int(0, 4);
        x = kind == 0 ? -0.0f : kind == 1 ? r.Float(-1, 1) * 1e30f : r.Float(-1, 1) * (1.0f + r.Float(0, 1) * 1e-3f);
      }
      if (iter % 5 == 0) std::fill(input.begin(), input.end(), -0.0f);
      std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size());
      reference::ResizeBilinearWeighted<float>(p, in_shape, input.data(), out_shape, want.data());
      ResizeBilinearWeighted<float>(pool, p, in_shape, input.data(), out_shape, got.data());
      ExpectSameBits(got, want);
    }
  });
}

}  // namespace
}  // namespace edgerun::optimized
