// TRANSPOSE_CONV as a matrix product and a gather: every input pixel times every filter tap
// gives that pixel's contributions (`col`, [in pixels][KH * KW * O]), then each output pixel sums
// the contributions that land on it. The product runs on the GEMM kernels, the gather row by
// row; both are split over the pool. Float results match the reference within rounding; integer
// ones bit for bit (exact sums, the reference's requantization).
#pragma once

#include <vector>

#include "kernels/optimized/integer.h"
#include "kernels/reference/integer_conv.h"

namespace edgerun::optimized {

// The filter [O][KH][KW][C] reordered to [KH][KW][O][C] (so that the contributions of one tap
// to all output channels are adjacent) and packed.
struct TransposeConvFilterF32 {
  PackedF32 packed;
  const void* source = nullptr;
};
void PackTransposeConvFilterF32(const float* filter, const reference::ConvDims& d, Isa isa,
                                TransposeConvFilterF32* out);

void TransposeConvF32(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d, int batches,
                      const float* input, const TransposeConvFilterF32& filter, const float* bias, float* output,
                      AlignedBuffer<float>* col);

template <class W>
void PackTransposeConvFilterI16(const W* filter, const reference::ConvDims& d, int32_t offset, PackedI16* out) {
  std::vector<W> reordered(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * d.in_c);
  const int taps = d.k_h * d.k_w;
  for (int oc = 0; oc < d.out_c; ++oc) {
    for (int t = 0; t < taps; ++t) {
      std::copy_n(filter + (static_cast<int64_t>(oc) * taps + t) * d.in_c, d.in_c,
                  reordered.data() + (static_cast<int64_t>(t) * d.out_c + oc) * d.in_c);
    }
  }
  PackI16FromNK(reordered.data(), d.in_c, taps * d.out_c, d.in_c, offset, ActiveIsa(), out);
  out->source = filter;
}

// Calls fn(oy, ox, taps, count) for output rows [r0, r1): taps[i] = (input pixel, tap) of the
// count contributions that land on (oy, ox).
template <class Fn>
void ForEachContribution(const reference::ConvParams& p, const reference::ConvDims& d, int64_t r0, int64_t r1,
                         const Fn& fn) {
  std::vector<std::pair<int64_t, int>> taps(static_cast<size_t>(d.k_h) * d.k_w);
  for (int64_t oy = r0; oy < r1; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      int count = 0;
      for (int ky = 0; ky < d.k_h; ++ky) {
        const int y = static_cast<int>(oy) + p.pad_h - ky;
        if (y < 0 || y % p.stride_h != 0 || y / p.stride_h >= d.in_h) continue;
        for (int kx = 0; kx < d.k_w; ++kx) {
          const int x = ox + p.pad_w - kx;
          if (x < 0 || x % p.stride_w != 0 || x / p.stride_w >= d.in_w) continue;
          taps[count++] = {static_cast<int64_t>(y / p.stride_h) * d.in_w + x / p.stride_w, ky * d.k_w + kx};
        }
      }
      fn(oy, ox, taps.data(), count);
    }
  }
}

// One image, as reference::IntegerTransposeConv; stage rows are output pixels. kWide: int64 sums.
template <bool kWide, class In, class Stage>
void IntegerTransposeConv(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d,
                          const In* input, int32_t input_offset, const PackedI16& filter,
                          AlignedBuffer<int64_t>* col_storage, const Stage& stage) {
  using Sum = std::conditional_t<kWide, int64_t, int32_t>;
  const int64_t pixels = static_cast<int64_t>(d.in_h) * d.in_w;
  const int64_t width = static_cast<int64_t>(d.k_h) * d.k_w * d.out_c;
  col_storage->Resize(static_cast<size_t>(pixels * width));
  Sum* col = reinterpret_cast<Sum*>(col_storage->data());
  IntegerMatMul<kWide>(pool, input, d.in_c, pixels, input_offset, filter,
                       [&](int64_t row, int c0, int count, const Sum* sums) {
                         std::copy_n(sums, count, col + row * width + c0);
                       });
  using Acc = std::conditional_t<kWide, int64_t, uint32_t>;
  ParallelRows(pool, d.out_h, 1, [&](int64_t r0, int64_t r1) {
    std::vector<Acc> acc(static_cast<size_t>(d.out_c));
    std::vector<Sum> sums(static_cast<size_t>(d.out_c));
    ForEachContribution(p, d, r0, r1, [&](int64_t oy, int ox, const std::pair<int64_t, int>* taps, int count) {
      std::fill(acc.begin(), acc.end(), Acc{0});
      for (int t = 0; t < count; ++t) {
        const Sum* c = col + taps[t].first * width + static_cast<int64_t>(taps[t].second) * d.out_c;
        for (int oc = 0; oc < d.out_c; ++oc) acc[oc] += static_cast<Acc>(c[oc]);
      }
      for (int oc = 0; oc < d.out_c; ++oc) sums[oc] = static_cast<Sum>(acc[oc]);
      stage(oy * d.out_w + ox, 0, d.out_c, sums.data());
    });
  });
}

}  // namespace edgerun::optimized
