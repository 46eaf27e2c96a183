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

// The contributions along one axis: out[o] receives (input coordinate, kernel offset) for each
// kernel offset k (ascending) with o + pad - k a multiple of stride inside the input, as the pairs
// [first[o], first[o + 1]).
struct AxisContributions {
  std::vector<int> first;
  std::vector<std::pair<int, int>> pairs;
  AxisContributions(int out_size, int in_size, int kernel, int stride, int pad) : first(out_size + 1, 0) {
    pairs.reserve(static_cast<size_t>(out_size) * ((kernel + stride - 1) / stride));
    for (int o = 0; o < out_size; ++o) {
      first[o] = static_cast<int>(pairs.size());
      // The offsets k = (o + pad) mod stride, + stride, ... give the input coordinates
      // (o + pad - k) / stride, down by one each step.
      const int base = o + pad;
      if (base < 0) continue;
      for (int k = base % stride, x = base / stride; k < kernel && x >= 0; k += stride, --x) {
        if (x < in_size) pairs.emplace_back(x, k);
      }
    }
    first[out_size] = static_cast<int>(pairs.size());
  }
};

// Calls fn(oy, ox, taps, count) for output rows [r0, r1): taps[i] = (input pixel, tap) of the
// count contributions that land on (oy, ox), kernel row outer and column inner, ascending. The
// pairs come from one table per axis (no division per output pixel).
template <class Fn>
void ForEachContribution(const reference::ConvParams& p, const reference::ConvDims& d, int64_t r0, int64_t r1,
                         const Fn& fn) {
  const AxisContributions rows(static_cast<int>(r1), d.in_h, d.k_h, p.stride_h, p.pad_h);
  const AxisContributions cols(d.out_w, d.in_w, d.k_w, p.stride_w, p.pad_w);
  std::vector<std::pair<int64_t, int>> taps(static_cast<size_t>(d.k_h) * d.k_w);
  for (int64_t oy = r0; oy < r1; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      int count = 0;
      for (int r = rows.first[oy]; r < rows.first[oy + 1]; ++r) {
        const auto [y, ky] = rows.pairs[r];
        for (int c = cols.first[ox]; c < cols.first[ox + 1]; ++c) {
          const auto [x, kx] = cols.pairs[c];
          taps[count++] = {static_cast<int64_t>(y) * d.in_w + x, ky * d.k_w + kx};
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
    std::vector<Sum> sums(static_cast<size_t>(d.out_c));
    ForEachContribution(p, d, r0, r1, [&](int64_t oy, int ox, const std::pair<int64_t, int>* taps, int count) {
      // Eight channels at a time in a fixed-size block the compiler keeps in vector registers
      // over the taps (a loop over all out_c stayed scalar, adding to memory), then the rest.
      constexpr int kBlock = 8;
      int oc0 = 0;
      for (; oc0 + kBlock <= d.out_c; oc0 += kBlock) {
        Acc block[kBlock] = {};
        for (int t = 0; t < count; ++t) {
          const Sum* c = col + taps[t].first * width + static_cast<int64_t>(taps[t].second) * d.out_c + oc0;
          for (int j = 0; j < kBlock; ++j) block[j] += static_cast<Acc>(c[j]);
        }
        for (int j = 0; j < kBlock; ++j) sums[oc0 + j] = static_cast<Sum>(block[j]);
      }
      for (int oc = oc0; oc < d.out_c; ++oc) {
        Acc sum = 0;
        for (int t = 0; t < count; ++t) {
          sum += static_cast<Acc>(col[taps[t].first * width + static_cast<int64_t>(taps[t].second) * d.out_c + oc]);
        }
        sums[oc] = static_cast<Sum>(sum);
      }
      stage(oy * d.out_w + ox, 0, d.out_c, sums.data());
    });
  });
}

}  // namespace edgerun::optimized
