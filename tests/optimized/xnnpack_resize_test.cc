// The row kernels of XNNPACK-compatible 8-bit RESIZE_BILINEAR (the scalar one, and the SIMD one
// of each ISA this CPU has) against the scalar int64 formula (quant::xnn::Bilinear), on random
// images, sizes and modes.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/optimized/resize.h"
#include "optimized_test_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun {
namespace {

template <class T>
void ExpectRowsMatchFormula(uint32_t seed, bool vectorized) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 40; ++trial) {
    const int in_h = uniform(1, 9), in_w = uniform(1, 9), channels = uniform(1, 70);
    const int out_h = uniform(1, 20), out_w = uniform(1, 20);
    const bool align = uniform(0, 1) == 1, half = !align && uniform(0, 1) == 1;
    std::vector<T> image(static_cast<size_t>(in_h) * in_w * channels);
    for (T& v : image) v = static_cast<T>(uniform(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    const auto ys = quant::xnn::BilinearTaps(in_h, out_h, align, half);
    const auto xs = quant::xnn::BilinearTaps(in_w, out_w, align, half);
    std::vector<T> row(static_cast<size_t>(out_w) * channels);
    for (int oy = 0; oy < out_h; ++oy) {
      if (vectorized) {
        optimized::ResizeBilinear8Row(image.data(), in_w, channels, ys[oy], xs, row.data());
      } else {
        quant::xnn::ResizeBilinear8Row(image.data(), in_w, channels, ys[oy], xs, row.data());
      }
      for (int ox = 0; ox < out_w; ++ox) {
        for (int c = 0; c < channels; ++c) {
          auto at = [&](int y, int x) { return int32_t{image[(static_cast<size_t>(y) * in_w + x) * channels + c]}; };
          const int32_t want =
              quant::xnn::Bilinear(at(ys[oy].lo, xs[ox].lo), at(ys[oy].lo, xs[ox].hi), at(ys[oy].hi, xs[ox].lo),
                                   at(ys[oy].hi, xs[ox].hi), xs[ox].weight, ys[oy].weight);
          ASSERT_EQ(int32_t{row[static_cast<size_t>(ox) * channels + c]}, want)
              << "trial " << trial << " at " << oy << "," << ox << "," << c;
        }
      }
    }
  }
}

TEST(XnnpackResize, Uint8RowsMatchTheFormula) { ExpectRowsMatchFormula<uint8_t>(1, false); }
TEST(XnnpackResize, Int8RowsMatchTheFormula) { ExpectRowsMatchFormula<int8_t>(2, false); }

TEST(XnnpackResize, VectorRowsMatchTheFormulaOnEveryIsa) {
  optimized::testing::ForEachIsaAndThreads([](optimized::Isa, ThreadPool* pool) {
    if (pool->num_threads() != 1) return;  // a row is one thread's work
    ExpectRowsMatchFormula<uint8_t>(3, true);
    ExpectRowsMatchFormula<int8_t>(4, true);
  });
}

}  // namespace
}  // namespace edgerun
