// Optimized float convolutions and matrix products against the reference kernels, on random
// shapes (odd sizes, strides, dilations, padding, groups, channel counts that are not multiples
// of the vector width), for every instruction set of this CPU and 1 and 3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/optimized/conv.h"
#include "kernels/optimized/winograd.h"
#include "kernels/reference/batch_matmul.h"
#include "kernels/reference/conv.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::ExpectNear;
using testing::ForEachIsaAndThreads;
using testing::Random;

// ForEachIsaAndThreads, and on AVX-512 once more with 24-column panels wherever they fit better
// (MidPanels::kPrefer), so that those micro-kernels are tested on CPUs that would not choose them.
void ForEachIsaThreadsAndPanels(const std::function<void(Isa, ThreadPool*)>& fn) {
  {
    ScopedMidPanels never(MidPanels::kNever);
    ForEachIsaAndThreads(fn);
  }
  if (DetectedIsa() == Isa::kAvx512) {
    ScopedMidPanels prefer(MidPanels::kPrefer);
    SCOPED_TRACE("24-column panels");
    ThreadPool one(1), three(3);
    for (ThreadPool* pool : {&one, &three}) fn(Isa::kAvx512, pool);
  }
}

struct Geometry {
  reference::ConvParams params;
  int out_h = 0, out_w = 0;
};

// Random strides, dilations and padding for a kh x kw window over in_h x in_w; false when the
// window does not fit.
bool RandomGeometry(Random& r, int in_h, int in_w, int kh, int kw, Geometry* g) {
  reference::ConvParams& p = g->params;
  p.stride_h = r.Int(1, 3);
  p.stride_w = r.Int(1, 3);
  p.dilation_h = r.Int(1, 3) == 3 ? 2 : 1;
  p.dilation_w = r.Int(1, 3) == 3 ? 2 : 1;
  const int eff_h = (kh - 1) * p.dilation_h + 1, eff_w = (kw - 1) * p.dilation_w + 1;
  p.pad_h = r.Int(0, eff_h - 1);
  p.pad_w = r.Int(0, eff_w - 1);
  const int pad_after_h = r.Int(0, eff_h - 1), pad_after_w = r.Int(0, eff_w - 1);
  g->out_h = (in_h + p.pad_h + pad_after_h - eff_h) / p.stride_h + 1;
  g->out_w = (in_w + p.pad_w + pad_after_w - eff_w) / p.stride_w + 1;
  if (in_h + p.pad_h + pad_after_h < eff_h || in_w + p.pad_w + pad_after_w < eff_w) return false;
  switch (r.Int(0, 2)) {
    case 0: p.act_min = -3.4e38f; p.act_max = 3.4e38f; break;
    case 1: p.act_min = 0.0f; p.act_max = 3.4e38f; break;
    default: p.act_min = -0.5f; p.act_max = 0.5f; break;
  }
  return true;
}

TEST(OptimizedConv2D, FloatMatchesReference) {
  Random r(1);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < 40; ++iter) {
      const bool pointwise = iter % 3 == 0;
      const int batches = r.Int(1, 2), in_h = r.Int(1, 9), in_w = r.Int(1, 11);
      const int groups = r.Int(0, 4) == 0 ? r.Int(2, 3) : 1;
      const int f_c = r.Int(1, 19), in_c = f_c * groups;
      const int out_c = groups * r.Int(1, 37);
      const int kh = pointwise ? 1 : r.Int(1, 4), kw = pointwise ? 1 : r.Int(1, 4);
      Geometry g;
      if (!RandomGeometry(r, in_h, in_w, kh, kw, &g)) continue;
      if (pointwise && r.Bool()) {
        g.params.stride_h = g.params.stride_w = 1;
        g.params.pad_h = g.params.pad_w = 0;
        g.out_h = in_h;
        g.out_w = in_w;
      }
      const Shape in_shape{batches, in_h, in_w, in_c}, filter_shape{out_c, kh, kw, f_c};
      const Shape out_shape{batches, g.out_h, g.out_w, out_c};
      const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(in_shape)));
      const std::vector<float> filter = r.Floats(static_cast<size_t>(NumElements(filter_shape)));
      const std::vector<float> bias = r.Floats(static_cast<size_t>(out_c));
      const bool with_bias = r.Bool();
      std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size(), 123.0f);
      reference::Conv2D(g.params, in_shape, input.data(), filter_shape, filter.data(),
                        with_bias ? bias.data() : nullptr, out_shape, want.data());
      ConvFilterF32 packed;
      PackConvFilterF32(filter_shape, filter.data(), groups, isa, &packed);
      Conv2DF32(pool, g.params, in_shape, input.data(), filter_shape, packed, with_bias ? bias.data() : nullptr,
                out_shape, got.data());
      SCOPED_TRACE(::testing::Message() << "in " << in_h << "x" << in_w << "x" << in_c << " k " << kh << "x" << kw
                                        << " out_c " << out_c << " groups " << groups);
      ExpectNear(got, want, static_cast<float>(kh * kw * f_c + 1));
    }
  });
}

// Random 3x3 stride-1 convolutions for a Winograd path (odd sizes end in partial tiles;
// paddings of 0 to 2 on each side; channel counts that are not multiples of the vector width;
// batches of 2), run by `pack_and_run` on every ISA, thread count and panel width. Its error
// against the exact (double) sum stays within a few times that of the direct float sum.
// Returns the largest ratio of the two errors.
using WinogradRun = std::function<void(Isa, ThreadPool*, const reference::ConvParams&, const Shape& in_shape,
                                       const float* input, const Shape& filter_shape, const float* filter,
                                       const float* bias, const Shape& out_shape, float* output)>;
struct WinogradSizes {
  int least_in_h, most_in_h, least_in_c, most_in_c, most_out_c;
};
double CheckWinograd(const WinogradSizes& sizes, int seed, int cases, const WinogradRun& pack_and_run) {
  Random r(seed);
  double worst_ratio = 0;
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < cases; ++iter) {
      const int batches = r.Int(1, 2), in_h = r.Int(sizes.least_in_h, sizes.most_in_h);
      const int in_w = r.Int(sizes.least_in_h, sizes.most_in_h);
      const int in_c = r.Int(sizes.least_in_c, sizes.most_in_c), out_c = r.Int(16, sizes.most_out_c);
      reference::ConvParams p;
      p.pad_h = r.Int(0, 2);
      p.pad_w = r.Int(0, 2);
      const int out_h = in_h + p.pad_h + r.Int(0, 2) - 2, out_w = in_w + p.pad_w + r.Int(0, 2) - 2;
      if (out_h < 1 || out_w < 1) continue;
      if (r.Bool()) {
        p.act_min = 0.0f;
        p.act_max = 6.0f;
      }
      const Shape in_shape{batches, in_h, in_w, in_c}, filter_shape{out_c, 3, 3, in_c};
      const Shape out_shape{batches, out_h, out_w, out_c};
      const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(in_shape)));
      const std::vector<float> filter = r.Floats(static_cast<size_t>(NumElements(filter_shape)));
      const std::vector<float> bias = r.Floats(static_cast<size_t>(out_c));
      const float* b = r.Bool() ? bias.data() : nullptr;
      std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size(), 123.0f);
      reference::Conv2D(p, in_shape, input.data(), filter_shape, filter.data(), b, out_shape, want.data());
      pack_and_run(isa, pool, p, in_shape, input.data(), filter_shape, filter.data(), b, out_shape, got.data());
      // The exact sums, and the direct float sum's distance from them.
      double direct_error = 1e-30, winograd_error = 0;
      for (int n = 0; n < batches; ++n) {
        for (int oy = 0; oy < out_h; ++oy) {
          for (int ox = 0; ox < out_w; ++ox) {
            for (int o = 0; o < out_c; ++o) {
              double sum = b ? b[o] : 0.0;
              for (int ky = 0; ky < 3; ++ky) {
                for (int kx = 0; kx < 3; ++kx) {
                  const int iy = oy - p.pad_h + ky, ix = ox - p.pad_w + kx;
                  if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) continue;
                  for (int c = 0; c < in_c; ++c) {
                    sum += static_cast<double>(input[((static_cast<size_t>(n) * in_h + iy) * in_w + ix) * in_c + c]) *
                           filter[((static_cast<size_t>(o) * 3 + ky) * 3 + kx) * in_c + c];
                  }
                }
              }
              const double exact = std::min(std::max(sum, static_cast<double>(p.act_min)), static_cast<double>(p.act_max));
              const size_t i = ((static_cast<size_t>(n) * out_h + oy) * out_w + ox) * out_c + o;
              direct_error = std::max(direct_error, std::abs(want[i] - exact));
              winograd_error = std::max(winograd_error, std::abs(got[i] - exact));
            }
          }
        }
      }
      SCOPED_TRACE(::testing::Message() << "in " << batches << "x" << in_h << "x" << in_w << "x" << in_c << " pad "
                                        << p.pad_h << "," << p.pad_w << " out " << out_h << "x" << out_w << "x"
                                        << out_c);
      // Every output written, and near the exact sum: 9 * in_c products of values in [-1, 1].
      ExpectNear(got, want, static_cast<float>(9 * in_c + 1), 8e-6f);
      EXPECT_LE(winograd_error, 8 * std::max(direct_error, 1e-6));
      worst_ratio = std::max(worst_ratio, winograd_error / std::max(direct_error, 1e-6));
    }
  });
  return worst_ratio;
}

TEST(OptimizedConv2D, WinogradMatchesReference) {
  const double worst = CheckWinograd({1, 13, 16, 70, 60}, 5, 12,
                                     [](Isa isa, ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape,
                                        const float* input, const Shape& filter_shape, const float* filter,
                                        const float* bias, const Shape& out_shape, float* output) {
                                       ASSERT_TRUE(WinogradF23Applies(p, filter_shape, 1));
                                       ConvFilterF32 packed;
                                       PackWinogradF23(filter_shape, filter, isa, &packed.winograd);
                                       Conv2DF32(pool, p, in_shape, input, filter_shape, packed, bias, out_shape,
                                                 output);
                                     });
  std::printf("Winograd F(2x2, 3x3): largest error %.2f x the direct sum's\n", worst);
}

TEST(OptimizedConv2D, WinogradFromDirectPackingMatchesReference) {
  // The transform at each inference from the direct packing: two images of 12x12 or more have
  // more tiles than a block holds (64): several blocks, each transforming the filters again; over
  // 128 input channels the GEMMs add up the products of several runs of depths (on AVX-512).
  const double worst = CheckWinograd({12, 16, 100, 150, 70}, 6, 4,
                                     [](Isa isa, ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape,
                                        const float* input, const Shape& filter_shape, const float* filter,
                                        const float* bias, const Shape& out_shape, float* output) {
                                       ConvFilterF32 packed;
                                       PackConvFilterF32(filter_shape, filter, 1, isa, &packed);
                                       packed.winograd_from_direct = true;
                                       Conv2DF32(pool, p, in_shape, input, filter_shape, packed, bias, out_shape,
                                                 output);
                                     });
  std::printf("Winograd F(2x2, 3x3) from the direct packing: largest error %.2f x the direct sum's\n", worst);
}

TEST(OptimizedConv2D, WinogradOnlyForThreeByThreeStrideOne) {
  reference::ConvParams p;
  EXPECT_TRUE(WinogradF23Applies(p, {64, 3, 3, 64}, 1));
  EXPECT_TRUE(WinogradF23Applies(p, {128, 3, 3, 128}, 1));
  EXPECT_TRUE(WinogradF23Applies(p, {16, 3, 3, 1024}, 1));
  EXPECT_FALSE(WinogradF23Applies(p, {256, 3, 3, 256}, 1));  // transformed filters too large
  // Those run from the direct packing, on outputs of at least 8x8 and up to 512 input channels.
  EXPECT_TRUE(WinogradF23FromDirectApplies(p, {256, 3, 3, 256}, 1, {1, 14, 14, 256}));
  EXPECT_TRUE(WinogradF23FromDirectApplies(p, {512, 3, 3, 512}, 1, {1, 8, 8, 512}));
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {512, 3, 3, 512}, 1, {1, 7, 7, 512}));
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {256, 3, 3, 1024}, 1, {1, 14, 14, 256}));
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {128, 3, 3, 128}, 1, {1, 56, 56, 128}));  // packed once instead
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {256, 3, 3, 128}, 2, {1, 14, 14, 256}));
  EXPECT_FALSE(WinogradF23Applies(p, {64, 3, 3, 8}, 1));     // too few input channels
  EXPECT_FALSE(WinogradF23Applies(p, {8, 3, 3, 64}, 1));     // too few output channels
  EXPECT_FALSE(WinogradF23Applies(p, {64, 3, 3, 32}, 2));    // grouped
  EXPECT_FALSE(WinogradF23Applies(p, {64, 5, 5, 64}, 1));
  EXPECT_FALSE(WinogradF23Applies(p, {64, 1, 1, 64}, 1));
  p.stride_w = 2;
  EXPECT_FALSE(WinogradF23Applies(p, {64, 3, 3, 64}, 1));
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {256, 3, 3, 256}, 1, {1, 14, 14, 256}));
  p.stride_w = 1;
  p.dilation_h = 2;
  EXPECT_FALSE(WinogradF23Applies(p, {64, 3, 3, 64}, 1));
  EXPECT_FALSE(WinogradF23FromDirectApplies(p, {256, 3, 3, 256}, 1, {1, 14, 14, 256}));
}

TEST(OptimizedConv2D, WindowRowsReadInPlaceMatchReference) {
  // Larger images than the random test: most pixels take the in-place path (GemmF32TileRows),
  // the edge columns im2col; a first layer (3 channels, stride 2), a narrow one, padding on both
  // sides, a window taller than wide, a deep window read in place (3x3 x 128 = 1152 values) and
  // one whose packed filter is over 1 MB (3x3 x 128 -> 260: im2col).
  struct Case {
    int in_h, in_w, in_c, out_c, kh, kw, stride, pad_h, pad_w;
  };
  const Case cases[] = {{33, 47, 3, 32, 3, 3, 2, 0, 0}, {9, 30, 64, 13, 3, 3, 1, 1, 1},
                        {17, 21, 5, 40, 5, 2, 1, 2, 1}, {12, 12, 8, 33, 7, 7, 1, 3, 3},
                        {6, 19, 128, 35, 3, 3, 1, 1, 1}, {5, 9, 128, 260, 3, 3, 1, 1, 1}};
  Random r(7);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (const Case& c : cases) {
      reference::ConvParams p;
      p.stride_h = p.stride_w = c.stride;
      p.pad_h = c.pad_h;
      p.pad_w = c.pad_w;
      p.act_min = 0.0f;
      p.act_max = 6.0f;
      const int out_h = (c.in_h + 2 * c.pad_h - c.kh) / c.stride + 1, out_w = (c.in_w + 2 * c.pad_w - c.kw) / c.stride + 1;
      const Shape in_shape{2, c.in_h, c.in_w, c.in_c}, filter_shape{c.out_c, c.kh, c.kw, c.in_c};
      const Shape out_shape{2, out_h, out_w, c.out_c};
      const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(in_shape)));
      const std::vector<float> filter = r.Floats(static_cast<size_t>(NumElements(filter_shape)));
      const std::vector<float> bias = r.Floats(static_cast<size_t>(c.out_c));
      std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size(), 123.0f);
      reference::Conv2D(p, in_shape, input.data(), filter_shape, filter.data(), bias.data(), out_shape, want.data());
      ConvFilterF32 packed;
      PackConvFilterF32(filter_shape, filter.data(), 1, isa, &packed);
      Conv2DF32(pool, p, in_shape, input.data(), filter_shape, packed, bias.data(), out_shape, got.data());
      SCOPED_TRACE(::testing::Message() << "in " << c.in_h << "x" << c.in_w << "x" << c.in_c << " k " << c.kh << "x"
                                        << c.kw << " out_c " << c.out_c);
      ExpectNear(got, want, static_cast<float>(c.kh * c.kw * c.in_c + 1));
    }
  });
}

TEST(OptimizedConv2D, LargeDepthSplitsIntoBlocks) {
  // Depth above one pass over a panel (the kernel accumulates into C between passes).
  Random r(2);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
   for (const int out_c : {45, 13, 21}) {  // 13: the narrow panels (one vector wide); 21: 24 columns
    const int in_c = 1100;
    const Shape in_shape{1, 3, 5, in_c}, filter_shape{out_c, 1, 1, in_c}, out_shape{1, 3, 5, out_c};
    reference::ConvParams p;
    const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(in_shape)));
    const std::vector<float> filter = r.Floats(static_cast<size_t>(NumElements(filter_shape)));
    const std::vector<float> bias = r.Floats(out_c);
    std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size());
    reference::Conv2D(p, in_shape, input.data(), filter_shape, filter.data(), bias.data(), out_shape, want.data());
    ConvFilterF32 packed;
    PackConvFilterF32(filter_shape, filter.data(), 1, isa, &packed);
    Conv2DF32(pool, p, in_shape, input.data(), filter_shape, packed, bias.data(), out_shape, got.data());
    ExpectNear(got, want, static_cast<float>(in_c));
   }
  });
}

TEST(OptimizedDepthwiseConv2D, FloatMatchesReference) {
  Random r(3);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 60; ++iter) {
      // Multiples of 16 too: with every channel block full the interior runs all blocks per pixel group.
      const int batches = r.Int(1, 2), in_h = r.Int(1, 12), in_w = r.Int(1, 20);
      const int c = r.Int(0, 2) == 0 ? 16 * r.Int(1, 3) : r.Int(1, 41);
      const int k = iter % 4;  // 3x3 and 5x5 take the fixed-size paths
      const int kh = k == 0 ? 3 : k == 1 ? 5 : r.Int(1, 4), kw = k == 0 ? 3 : k == 1 ? 5 : r.Int(1, 4);
      Geometry g;
      if (!RandomGeometry(r, in_h, in_w, kh, kw, &g)) continue;
      const Shape in_shape{batches, in_h, in_w, c}, filter_shape{1, kh, kw, c}, out_shape{batches, g.out_h, g.out_w, c};
      const std::vector<float> input = r.Floats(static_cast<size_t>(NumElements(in_shape)));
      const std::vector<float> filter = r.Floats(static_cast<size_t>(NumElements(filter_shape)));
      const std::vector<float> bias = r.Floats(static_cast<size_t>(c));
      const float* b = r.Bool() ? bias.data() : nullptr;
      std::vector<float> want(static_cast<size_t>(NumElements(out_shape))), got(want.size(), 123.0f);
      reference::DepthwiseConv2D(g.params, 1, in_shape, input.data(), filter_shape, filter.data(), b, out_shape,
                                 want.data());
      DepthwiseConv2DF32(pool, g.params, in_shape, input.data(), filter_shape, filter.data(), b, out_shape, got.data());
      SCOPED_TRACE(::testing::Message() << "in " << in_h << "x" << in_w << "x" << c << " k " << kh << "x" << kw
                                        << " stride " << g.params.stride_h << "," << g.params.stride_w);
      ExpectNear(got, want, static_cast<float>(kh * kw + 1));
    }
  });
}

TEST(OptimizedGemm, FullyConnectedMatchesReference) {
  Random r(4);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < 40; ++iter) {
      const int m = r.Int(1, 3) == 1 ? 1 : r.Int(1, 40), k = r.Int(0, 80), n = r.Int(1, 90);
      const std::vector<float> a = r.Floats(static_cast<size_t>(m) * k), w = r.Floats(static_cast<size_t>(n) * k);
      const std::vector<float> bias = r.Floats(static_cast<size_t>(n));
      const float lo = r.Bool() ? 0.0f : -3.4e38f, hi = r.Bool() ? 1.0f : 3.4e38f;
      std::vector<float> want(static_cast<size_t>(m) * n), got(want.size());
      reference::FullyConnected(lo, hi, m, k, n, a.data(), w.data(), bias.data(), want.data());
      PackedF32 packed;
      PackF32FromNK(w.data(), k, n, k, isa, &packed);
      GemmF32(pool, a.data(), k, m, packed, got.data(), n, bias.data(), lo, hi);
      ExpectNear(got, want, static_cast<float>(k + 1));
    }
  });
}

// One row against weights read in place (MatVecF32): row counts around the kernel's four rows and
// the 64 KB tasks, depths around the vector lanes, with and without bias and clamps.
TEST(OptimizedGemm, MatVecInPlaceMatchesReference) {
  Random r(5);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 40; ++iter) {
      const int k = iter == 0 ? 0 : r.Int(1, 3) == 1 ? r.Int(1, 40) : r.Int(200, 3000);
      const int n = iter < 3 ? 1 + iter : r.Int(1, 300);
      const std::vector<float> a = r.Floats(static_cast<size_t>(k)), w = r.Floats(static_cast<size_t>(n) * k);
      const std::vector<float> bias = r.Floats(static_cast<size_t>(n));
      const bool with_bias = r.Bool();
      const float lo = r.Bool() ? 0.0f : -3.4e38f, hi = r.Bool() ? 1.0f : 3.4e38f;
      std::vector<float> want(static_cast<size_t>(n)), got(want.size(), -1.0f);
      const std::vector<float> zeros(bias.size(), 0.0f);
      reference::FullyConnected(lo, hi, 1, k, n, a.data(), w.data(), with_bias ? bias.data() : zeros.data(),
                                want.data());
      MatVecF32(pool, w.data(), n, k, a.data(), with_bias ? bias.data() : nullptr, lo, hi, got.data());
      SCOPED_TRACE(::testing::Message() << n << " x " << k);
      ExpectNear(got, want, static_cast<float>(k + 1));
    }
  });
}

// Packed B over 64 KB is streamed panel by panel with prefetching (GemmF32Tile): the same sums,
// for panels of both widths, depths past one block and rows past one micro-tile, and for a B
// just over the threshold (100 KB).
TEST(OptimizedGemm, StreamedLargePanelsMatchReference) {
  Random r(9);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (const int n : {301, 14, 23, 50}) {  // 14: narrow panels; 23: 24-column ones under kPrefer
      // 1.2 / 1.28 / 1.15-1.5 MB / 100-128 KB packed; A of 0.3 / 2.2 / 1.3 MB (a block of depths
      // across all panels at a time) and 54 KB (panel by panel)
      const int m = n == 301 ? 80 : 27, k = n == 14 ? 20000 : n == 23 ? 12000 : n == 50 ? 500 : 1000;
      const std::vector<float> a = r.Floats(static_cast<size_t>(m) * k), w = r.Floats(static_cast<size_t>(n) * k);
      const std::vector<float> bias = r.Floats(static_cast<size_t>(n));
      std::vector<float> want(static_cast<size_t>(m) * n), got(want.size());
      reference::FullyConnected(0.0f, 3.4e38f, m, k, n, a.data(), w.data(), bias.data(), want.data());
      PackedF32 packed;
      PackF32FromNK(w.data(), k, n, k, isa, &packed);
      GemmF32(pool, a.data(), k, m, packed, got.data(), n, bias.data(), 0.0f, 3.4e38f);
      ExpectNear(got, want, static_cast<float>(k + 1));
    }
  });
}

TEST(OptimizedGemm, PackingReportsEverySourceRowOnceInOrder) {
  // The callback that lets a caller release a filter's file pages during the packing: every row
  // of w once, in order, each run after it was read (the packed result is still the whole B), and
  // ZeroF32Panels gives the layout that PackF32FromNK fills.
  Random r(9);
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const Isa isa = static_cast<Isa>(i);
    for (int iter = 0; iter < 20; ++iter) {
      const int n = r.Int(1, 90), k = r.Int(1, 40);
      std::vector<float> w = r.Floats(static_cast<size_t>(n) * k);
      int64_t next_row = 0;
      bool in_order = true;
      const ConsumedRowsFn consumed = [&](const float* first, int64_t rows) {
        in_order = in_order && first == w.data() + next_row * k && rows > 0;
        next_row += rows;
        // Overwritten once reported: the packed copy must not read the rows again.
        std::fill(w.begin() + (first - w.data()), w.begin() + (first - w.data()) + rows * k, 1e30f);
      };
      const std::vector<float> original = w;
      PackedF32 packed, zeros;
      PackF32FromNK(w.data(), k, n, k, isa, &packed, &consumed);
      EXPECT_TRUE(in_order);
      EXPECT_EQ(next_row, n);
      ZeroF32Panels(n, k, isa, &zeros);
      ASSERT_EQ(zeros.nr, packed.nr);
      ASSERT_EQ(zeros.data.size(), packed.data.size());
      for (int col = 0; col < n; ++col) {
        for (int kk = 0; kk < k; ++kk) {
          const int64_t at = static_cast<int64_t>(col / packed.nr) * k * packed.nr + kk * packed.nr + col % packed.nr;
          ASSERT_EQ(packed.data.data()[at], original[static_cast<size_t>(col) * k + kk]);
          ASSERT_EQ(zeros.data.data()[at], 0.0f);
        }
      }
    }
  }
}

TEST(OptimizedGemm, PackedFromKNMatchesReferenceMatMul) {
  Random r(5);
  ForEachIsaThreadsAndPanels([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < 30; ++iter) {
      const int m = r.Int(1, 30), k = r.Int(1, 70), n = r.Int(1, 70);
      const std::vector<float> a = r.Floats(static_cast<size_t>(m) * k), b = r.Floats(static_cast<size_t>(k) * n);
      std::vector<float> bt(b.size());
      reference::TransposeLastTwo(b.data(), 1, k, n, bt.data());
      std::vector<float> want(static_cast<size_t>(m) * n), got(want.size());
      reference::MatMulTransposedB(a.data(), bt.data(), m, n, k, want.data());
      PackedF32 packed;
      PackF32FromKN(b.data(), n, k, n, isa, &packed);
      GemmF32(pool, a.data(), k, m, packed, got.data(), n, nullptr, -3.4e38f, 3.4e38f);
      ExpectNear(got, want, static_cast<float>(k));
    }
  });
}

// 24-column panels for 17 to 24 columns (MobileNet v2's 24-channel projections) where they take
// fewer FMA slots, on a CPU that splits 512-bit FMAs; wider products stay 32 wide.
TEST(OptimizedGemm, MidPanelsWhereTheyFitBetter) {
  if (DetectedIsa() != Isa::kAvx512) GTEST_SKIP() << "24-column panels are AVX-512 kernels";
  auto width = [](int n) {
    PackedF32 packed;
    const std::vector<float> w(static_cast<size_t>(n) * 3, 1.0f);
    PackF32FromNK(w.data(), 3, n, 3, Isa::kAvx512, &packed);
    return packed.nr;
  };
  {
    ScopedMidPanels prefer(MidPanels::kPrefer);
    EXPECT_EQ(width(24), 24);
    EXPECT_EQ(width(17), 24);
    EXPECT_EQ(width(25), 32);
    EXPECT_EQ(width(144), 32);
    EXPECT_EQ(width(96), 32);
    EXPECT_EQ(width(1000), 32);
    EXPECT_EQ(width(16), 16);
    EXPECT_EQ(width(9), 16);
  }
  ScopedMidPanels never(MidPanels::kNever);
  EXPECT_EQ(width(24), 32);
  EXPECT_EQ(width(144), 32);
  EXPECT_EQ(width(16), 16);
}

// The tile plan covers every row and panel once, without empty tiles or groups.
TEST(OptimizedGemm, TilePlansCoverEverything) {
  Random r(41);
  for (int iter = 0; iter < 300; ++iter) {
    const int m = r.Int(1, 3000), panels = r.Int(1, 40), mr = r.Bool() ? 12 : 4, threads = r.Int(1, 4);
    const TileGrid g = PlanTiles(m, panels, mr, threads);
    ASSERT_GE(static_cast<int64_t>(g.row_tiles) * g.rows_per_tile, m);
    ASSERT_LT(static_cast<int64_t>(g.row_tiles - 1) * g.rows_per_tile, m) << "an empty row tile";
    ASSERT_GE(g.col_groups * g.panels_per_group, panels);
    ASSERT_LT((g.col_groups - 1) * g.panels_per_group, panels) << "an empty column group";
  }
}

// With threads, the cuts share out evenly: MobileNet v2's 14x14 and 7x7 layers on 2 threads were
// 9 and 5 tasks (a thread idle for a ninth or a fifth of the product).
TEST(OptimizedGemm, TilePlansShareOutEvenlyOverThreads) {
  struct Case {
    int m, panels;
  };
  for (const Case c : {Case{196, 3}, Case{196, 18}, Case{49, 5}, Case{49, 10}, Case{784, 3}, Case{3136, 5}}) {
    const TileGrid g = PlanTiles(c.m, c.panels, 12, 2);
    EXPECT_EQ(g.tasks() % 2, 0) << c.m << " rows, " << c.panels << " panels: " << g.row_tiles << " x " << g.col_groups;
    EXPECT_LE(g.rows_per_tile, 120) << c.m << " rows, " << c.panels << " panels";
  }
  // One thread keeps the cache plan: row tiles of 8 micro-tiles, all columns.
  const TileGrid one = PlanTiles(196, 18, 12, 1);
  EXPECT_EQ(one.row_tiles, 3);
  EXPECT_EQ(one.col_groups, 1);
}

}  // namespace
}  // namespace edgerun::optimized
