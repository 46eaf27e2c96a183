// Optimized ARG_MAX / ARG_MIN against the reference kernel: identical indices on random shapes and
// axes (last axis and inner ones, blocks of columns cut at odd widths), with ties, NaNs and
// -0/+0 among the floats, for 1 and 3 threads.
#include "kernels/optimized/arg_min_max.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "kernels/reference/arg_min_max.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::Random;

template <class T, class Index, class Better>
void Check(Random& r, ThreadPool* pool, Better better, int64_t outer, int64_t axis, int64_t inner) {
  std::vector<T> input(static_cast<size_t>(outer * axis * inner));
  for (auto& x : input) {
    if constexpr (std::is_floating_point_v<T>) {
      const int kind = r.Int(0, 19);
      x = kind == 0   ? std::numeric_limits<T>::quiet_NaN()
          : kind == 1 ? -0.0f
          : kind == 2 ? 0.0f
                      : static_cast<T>(r.Int(-8, 8));  // small integers: many ties
    } else {
      x = static_cast<T>(r.Int(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()) / 16 * 16);
    }
  }
  std::vector<Index> want(static_cast<size_t>(outer * inner)), got(want.size(), Index{-1});
  reference::ArgMinMax(input.data(), outer, axis, inner, want.data(), better);
  ArgMinMax(pool, input.data(), outer, axis, inner, got.data(), better);
  ASSERT_EQ(got, want) << "outer " << outer << " axis " << axis << " inner " << inner;
}

template <class T, class Index>
void CheckRandomShapes(uint32_t seed) {
  Random r(seed);
  // Every ISA: 8-bit rows along the last axis run on a vector kernel of each.
  testing::ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int i = 0; i < 25; ++i) {
      const int64_t outer = r.Int(1, 20), axis = r.Int(1, 30);
      const int64_t inner = r.Int(0, 3) == 0 ? 1 : r.Int(1, 600);
      Check<T, Index>(r, pool, std::greater<T>(), outer, axis, inner);
      Check<T, Index>(r, pool, std::less<T>(), outer, axis, inner);
    }
    // Last axes around the 32-byte steps of the vector kernel, and long ones.
    for (int64_t axis : {31, 32, 33, 63, 64, 65, 100, 151, 300}) {
      Check<T, Index>(r, pool, std::greater<T>(), r.Int(1, 40), axis, 1);
      Check<T, Index>(r, pool, std::less<T>(), r.Int(1, 40), axis, 1);
    }
    // A segmentation head: many rows over a short last axis, split over several tasks.
    Check<T, Index>(r, pool, std::greater<T>(), 5000, 21, 1);
    Check<T, Index>(r, pool, std::less<T>(), 5000, 21, 1);
  });
}

TEST(OptimizedArgMinMax, FloatMatchesReference) { CheckRandomShapes<float, int64_t>(1); }
TEST(OptimizedArgMinMax, Uint8MatchesReference) { CheckRandomShapes<uint8_t, int32_t>(2); }
TEST(OptimizedArgMinMax, Int8MatchesReference) { CheckRandomShapes<int8_t, int32_t>(3); }
TEST(OptimizedArgMinMax, Uint8WithInt64IndicesMatchesReference) { CheckRandomShapes<uint8_t, int64_t>(6); }
TEST(OptimizedArgMinMax, Int16MatchesReference) { CheckRandomShapes<int16_t, int64_t>(4); }
TEST(OptimizedArgMinMax, Int32MatchesReference) { CheckRandomShapes<int32_t, int32_t>(5); }

}  // namespace
}  // namespace edgerun::optimized
