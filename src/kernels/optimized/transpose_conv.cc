#include "kernels/optimized/transpose_conv.h"

#include <algorithm>
#include <limits>

namespace edgerun::optimized {

void PackTransposeConvFilterF32(const float* filter, const reference::ConvDims& d, Isa isa,
                                TransposeConvFilterF32* out) {
  if (out->source == filter && out->packed.isa == isa) return;
  std::vector<float> reordered(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * d.in_c);
  const int taps = d.k_h * d.k_w;
  for (int oc = 0; oc < d.out_c; ++oc) {
    for (int t = 0; t < taps; ++t) {
      std::copy_n(filter + (static_cast<int64_t>(oc) * taps + t) * d.in_c, d.in_c,
                  reordered.data() + (static_cast<int64_t>(t) * d.out_c + oc) * d.in_c);
    }
  }
  PackF32FromNK(reordered.data(), d.in_c, taps * d.out_c, d.in_c, isa, &out->packed);
  out->source = filter;
}

void TransposeConvF32(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d, int batches,
                      const float* input, const TransposeConvFilterF32& filter, const float* bias, float* output,
                      AlignedBuffer<float>* col_storage) {
  const int64_t pixels = static_cast<int64_t>(d.in_h) * d.in_w;
  const int64_t width = static_cast<int64_t>(d.k_h) * d.k_w * d.out_c;
  col_storage->Resize(static_cast<size_t>(pixels * width));
  float* col = col_storage->data();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (int b = 0; b < batches; ++b) {
    const float* in = input + b * pixels * d.in_c;
    float* out = output + static_cast<int64_t>(b) * d.out_h * d.out_w * d.out_c;
    GemmF32(pool, in, d.in_c, static_cast<int>(pixels), filter.packed, col, width, nullptr, -kInf, kInf);
    ParallelRows(pool, d.out_h, 1, [&](int64_t r0, int64_t r1) {
      ForEachContribution(p, d, r0, r1, [&](int64_t oy, int ox, const std::pair<int64_t, int>* taps, int count) {
        float* o = out + (oy * d.out_w + ox) * d.out_c;
        // Eight channels at a time in registers over the taps (a loop over all out_c added to
        // memory, scalar), then the rest; each channel's additions keep their order.
        constexpr int kBlock = 8;
        int oc0 = 0;
        for (; oc0 + kBlock <= d.out_c; oc0 += kBlock) {
          float block[kBlock];
          for (int j = 0; j < kBlock; ++j) block[j] = bias ? bias[oc0 + j] : 0.0f;
          for (int t = 0; t < count; ++t) {
            const float* c = col + taps[t].first * width + static_cast<int64_t>(taps[t].second) * d.out_c + oc0;
            for (int j = 0; j < kBlock; ++j) block[j] += c[j];
          }
          for (int j = 0; j < kBlock; ++j) o[oc0 + j] = std::min(std::max(block[j], p.act_min), p.act_max);
        }
        for (int oc = oc0; oc < d.out_c; ++oc) {
          float sum = bias ? bias[oc] : 0.0f;
          for (int t = 0; t < count; ++t) {
            sum += col[taps[t].first * width + static_cast<int64_t>(taps[t].second) * d.out_c + oc];
          }
          o[oc] = std::min(std::max(sum, p.act_min), p.act_max);
        }
      });
    });
  }
}

}  // namespace edgerun::optimized
