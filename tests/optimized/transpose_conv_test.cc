// Optimized TRANSPOSE_CONV (matrix product + gather) against the reference kernels: float within
// rounding, integer bit-exact, on random shapes, strides and padding.
#include <gtest/gtest.h>

#include "kernels/optimized/transpose_conv.h"
#include "kernels/reference/transpose_conv.h"
#include "optimized_test_util.h"
#include "quant/fixed_point.h"

namespace edgerun::optimized {
namespace {

using testing::ForEachIsaAndThreads;
using testing::Random;

// Random geometry: output size from the input, window and stride, padding below the window.
void RandomGeometry(Random& r, reference::ConvDims* d, reference::ConvParams* p) {
  d->in_h = r.Int(1, 6);
  d->in_w = r.Int(1, 7);
  d->in_c = r.Int(1, 20);
  d->out_c = r.Int(1, 35);
  d->k_h = r.Int(1, 4);
  d->k_w = r.Int(1, 4);
  p->stride_h = r.Int(1, 3);
  p->stride_w = r.Int(1, 3);
  p->pad_h = r.Int(0, d->k_h - 1);
  p->pad_w = r.Int(0, d->k_w - 1);
  d->out_h = std::max(1, (d->in_h - 1) * p->stride_h + d->k_h - 2 * p->pad_h + r.Int(0, 1));
  d->out_w = std::max(1, (d->in_w - 1) * p->stride_w + d->k_w - 2 * p->pad_w + r.Int(0, 1));
}

TEST(OptimizedTransposeConv, FloatMatchesReference) {
  Random r(21);
  ForEachIsaAndThreads([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < 30; ++iter) {
      reference::ConvDims d;
      reference::ConvParams p;
      RandomGeometry(r, &d, &p);
      if (r.Bool()) {
        p.act_min = 0.0f;
        p.act_max = 1.0f;
      }
      const int batches = r.Int(1, 2);
      const std::vector<float> input = r.Floats(static_cast<size_t>(batches) * d.in_h * d.in_w * d.in_c);
      const std::vector<float> filter = r.Floats(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * d.in_c);
      const std::vector<float> bias = r.Floats(static_cast<size_t>(d.out_c));
      const float* b = r.Bool() ? bias.data() : nullptr;
      std::vector<float> want(static_cast<size_t>(batches) * d.out_h * d.out_w * d.out_c), got(want.size());
      reference::TransposeConv(p, d, batches, input.data(), filter.data(), b, want.data());
      TransposeConvFilterF32 packed;
      AlignedBuffer<float> col;
      PackTransposeConvFilterF32(filter.data(), d, isa, &packed);
      TransposeConvF32(pool, p, d, batches, input.data(), packed, b, got.data(), &col);
      testing::ExpectNear(got, want, static_cast<float>(d.k_h * d.k_w * d.in_c + 1));
    }
  });
}

template <class Acc, class In, class Filter, class Out, class Bias>
void CheckInteger(Random& r, ThreadPool* pool) {
  reference::ConvDims d;
  reference::ConvParams p;
  RandomGeometry(r, &d, &p);
  const bool eight_bit = sizeof(In) == 1;
  const int32_t input_offset = eight_bit ? -r.Int(std::numeric_limits<In>::lowest(), std::numeric_limits<In>::max()) : 0;
  const int32_t filter_offset = std::is_same_v<Filter, uint8_t> ? -r.Int(0, 255) : 0;
  const std::vector<In> input = r.Ints<In>(static_cast<size_t>(d.in_h) * d.in_w * d.in_c,
                                           std::numeric_limits<In>::lowest(), std::numeric_limits<In>::max());
  const std::vector<Filter> filter = r.Ints<Filter>(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * d.in_c,
                                                    std::numeric_limits<Filter>::lowest(), std::numeric_limits<Filter>::max());
  const std::vector<Bias> bias = r.Ints<Bias>(static_cast<size_t>(d.out_c), -10000, 10000);
  std::vector<int32_t> multiplier(static_cast<size_t>(d.out_c));
  std::vector<int> shift(static_cast<size_t>(d.out_c));
  for (int c = 0; c < d.out_c; ++c) {
    quant::QuantizeMultiplier(std::pow(10.0, r.Float(eight_bit ? -4.0f : -6.0f, eight_bit ? -2.0f : -4.0f)),
                              &multiplier[c], &shift[c]);
  }
  const int32_t zero_point = eight_bit ? r.Int(std::numeric_limits<Out>::lowest(), std::numeric_limits<Out>::max()) : 0;
  const reference::Requantization rq{multiplier.data(), shift.data(), zero_point, std::numeric_limits<Out>::lowest(),
                                     std::numeric_limits<Out>::max()};
  const reference::Requantizer<Acc, Bias, Out> emit{rq, bias.data()};
  std::vector<Out> want(static_cast<size_t>(d.out_h) * d.out_w * d.out_c), got(want.size());
  reference::IntegerTransposeConv<Acc>(p, d, input.data(), input_offset, filter.data(), filter_offset, want.data(), emit);
  PackedI16 packed;
  AlignedBuffer<int64_t> col;
  PackTransposeConvFilterI16(filter.data(), d, filter_offset, &packed);
  if constexpr (std::is_same_v<Acc, int32_t>) {
    const auto stage = MakeRequantStage<Out>(false, multiplier.data(), shift.data(), nullptr, zero_point,
                                             std::numeric_limits<Out>::lowest(), std::numeric_limits<Out>::max(),
                                             bias.data(), got.data(), d.out_c);
    IntegerTransposeConv<false>(pool, p, d, input.data(), input_offset, packed, &col, stage);
  } else {
    IntegerTransposeConv<true>(pool, p, d, input.data(), input_offset, packed, &col,
                               MakeEmitStage<Out, Acc>(emit, got.data(), d.out_c));
  }
  ASSERT_EQ(got, want);
}

TEST(OptimizedTransposeConv, IntegerMatchesReferenceBitExact) {
  Random r(22);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 12; ++iter) {
      CheckInteger<int32_t, uint8_t, uint8_t, uint8_t, int32_t>(r, pool);
      CheckInteger<int32_t, int8_t, int8_t, int8_t, int32_t>(r, pool);
      CheckInteger<int64_t, int16_t, int8_t, int16_t, int64_t>(r, pool);
    }
  });
}

}  // namespace
}  // namespace edgerun::optimized
