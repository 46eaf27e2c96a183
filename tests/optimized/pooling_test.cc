// Optimized AVERAGE_POOL_2D and MAX_POOL_2D against the reference kernels: bit-exact for every
// type, on random shapes, windows, strides and paddings, for 1 and 3 threads; global pools with
// many channels take the channel-split path.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/optimized/pooling.h"
#include "kernels/reference/pooling.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::ForEachIsaAndThreads;
using testing::Random;

struct PoolCase {
  reference::PoolParams p;
  Shape in, out;
};

// One in eight cases is large enough (over 256 K window cells) to be shared among threads; global
// pools of many channels are from 32 K cells.
PoolCase RandomCase(Random& r) {
  PoolCase c;
  const bool global = r.Int(0, 3) == 0;
  const bool large = r.Int(0, 7) == 0;
  const int h = r.Int(1, global ? 8 : 12) + (large ? 14 : 0), w = r.Int(1, global ? 8 : 12) + (large ? 14 : 0);
  const int depth = (global ? r.Int(1, 700) : r.Int(1, 300)) + (large ? (global ? 1500 : 500) : 0);
  c.in = {r.Int(1, 2), h, w, depth};
  if (global) {
    c.p.filter_h = h;
    c.p.filter_w = w;
  } else {
    c.p.filter_h = r.Int(1, 4);
    c.p.filter_w = r.Int(1, 4);
    if (large) {
      c.p.filter_h = r.Int(2, 4);
      c.p.filter_w = r.Int(2, 4);
    } else {
      c.p.stride_h = r.Int(1, 3);
      c.p.stride_w = r.Int(1, 3);
    }
    c.p.pad_h = r.Int(0, c.p.filter_h - 1);
    c.p.pad_w = r.Int(0, c.p.filter_w - 1);
  }
  // Output sizes as SAME/VALID would give, and sometimes one more row/column that ends in the
  // padding (its window still covers cells).
  const int out_h = std::max(1, (h + 2 * c.p.pad_h - c.p.filter_h) / c.p.stride_h + 1);
  const int out_w = std::max(1, (w + 2 * c.p.pad_w - c.p.filter_w) / c.p.stride_w + 1);
  c.out = {c.in[0], out_h, out_w, depth};
  return c;
}

template <class T>
std::vector<T> RandomValues(Random& r, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, float>) {
      x = r.Int(0, 20) == 0 ? -0.0f : r.Float(-50, 50);
    } else {
      x = static_cast<T>(r.Int(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  }
  return v;
}

template <class T>
void ExpectSameBits(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << "element " << i << ": " << +got[i] << " vs " << +want[i];
  }
}

template <class T>
void CheckQuantized(Random& r, ThreadPool* pool) {
  PoolCase c = RandomCase(r);
  c.p.quant_min = std::numeric_limits<T>::min() + r.Int(0, 20);
  c.p.quant_max = std::numeric_limits<T>::max() - r.Int(0, 20);
  SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " window " << c.p.filter_h << "x" << c.p.filter_w
                                  << " stride " << c.p.stride_h << "x" << c.p.stride_w);
  const std::vector<T> input = RandomValues<T>(r, NumElements(c.in));
  const size_t n = static_cast<size_t>(NumElements(c.out));
  std::vector<T> want(n), got(n);
  const bool want_ok = reference::AveragePoolQuantized<T>(c.p, c.in, input.data(), c.out, want.data());
  const bool got_ok = AveragePoolQuantized<T>(pool, c.p, c.in, input.data(), c.out, got.data());
  ASSERT_EQ(got_ok, want_ok);
  ExpectSameBits(got, want);
  reference::MaxPoolQuantized<T>(c.p, c.in, input.data(), c.out, want.data());
  MaxPoolQuantized<T>(pool, c.p, c.in, input.data(), c.out, got.data());
  ExpectSameBits(got, want);
}

void CheckFloat(Random& r, ThreadPool* pool) {
  PoolCase c = RandomCase(r);
  if (r.Bool()) {
    c.p.act_min = 0.0f;
    c.p.act_max = 6.0f;
  }
  SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " window " << c.p.filter_h << "x" << c.p.filter_w);
  std::vector<float> input = RandomValues<float>(r, NumElements(c.in));
  if (r.Int(0, 4) == 0) input[static_cast<size_t>(r.Int(0, static_cast<int>(input.size()) - 1))] = std::nanf("");
  const size_t n = static_cast<size_t>(NumElements(c.out));
  std::vector<float> want(n), got(n);
  reference::Pool2D<false>(c.p, c.in, input.data(), c.out, want.data());
  Pool2DF32<false>(pool, c.p, c.in, input.data(), c.out, got.data());
  ExpectSameBits(got, want);
  reference::Pool2D<true>(c.p, c.in, input.data(), c.out, want.data());
  Pool2DF32<true>(pool, c.p, c.in, input.data(), c.out, got.data());
  ExpectSameBits(got, want);
}

TEST(OptimizedPooling, MatchesReferenceBitExact) {
  Random r(31);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 40; ++iter) {
      CheckQuantized<uint8_t>(r, pool);
      CheckQuantized<int8_t>(r, pool);
      CheckQuantized<int16_t>(r, pool);
      CheckFloat(r, pool);
    }
  });
}

TEST(OptimizedPooling, WindowOverThePaddingOnlyIsReported) {
  // A 1x1 window at stride 1 with a padding of 1 covers no cell at the first output pixel.
  reference::PoolParams p;
  p.pad_h = p.pad_w = 1;
  p.quant_min = -128;
  p.quant_max = 127;
  const Shape in = {1, 2, 2, 3}, out = {1, 3, 3, 3};
  const std::vector<int8_t> input(12, 5);
  std::vector<int8_t> got(27, 1);
  ThreadPool pool(3);
  EXPECT_FALSE(AveragePoolQuantized<int8_t>(&pool, p, in, input.data(), out, got.data()));
  EXPECT_EQ(got[0], 0);
}

}  // namespace
}  // namespace edgerun::optimized
