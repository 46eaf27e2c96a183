// Optimized float convolutions: CONV_2D as GEMM (1x1 directly on the input, other windows
// through an im2col tile per task), DEPTHWISE_CONV_2D with channels in SIMD lanes, both split
// over the thread pool by output tiles / rows. Results match the reference kernels within float
// rounding (the sums run in a different order, with FMA).
#pragma once

#include <vector>

#include "edgerun/tensor.h"
#include "kernels/optimized/gemm.h"
#include "kernels/reference/conv.h"

namespace edgerun::optimized {

// The filter [O][KH][KW][C/groups] packed per group (packed once; Pack... is a no-op while the
// filter data and ISA stay the same).
struct ConvFilterF32 {
  std::vector<PackedF32> groups;
  // Instead, the 16 transformed filters of F(2x2, 3x3) (winograd.h): Conv2DF32 then runs by them.
  std::vector<PackedF32> winograd;
  // Or: run by F(2x2, 3x3) from groups[0], the direct packing, transformed at each inference
  // (ConvWinogradF23FromDirect): for filters whose 16 transformed copies would take too much memory.
  bool winograd_from_direct = false;
  bool empty() const { return groups.empty() && winograd.empty(); }
  void clear() {
    groups.clear();
    winograd.clear();
    winograd_from_direct = false;
  }
};
void PackConvFilterF32(const Shape& filter_shape, const float* filter, int groups, Isa isa, ConvFilterF32* out,
                       const ConsumedRowsFn* consumed = nullptr);

// Whether Conv2DF32 reads the window rows of a convolution in place (GemmF32TileRows, no im2col
// copy) for the pixels whose window is inside the image horizontally: one group, no dilation
// along x, at most kMaxGemmParts window rows, a packed filter (depth x out_channels) of at most
// 1 MB, and an ISA with those kernels. The in-place kernel reads every panel of the filter for
// each output row, so the filter must stay in L2; larger ones (ResNet-18's 3x3 x 256 -> 256:
// 2.4 MB) run 2-4x slower than through im2col, whose GEMM blocks the depth. `depth` is
// KH * KW * C.
bool WindowRowsInPlace(int kh, int64_t depth, int64_t out_channels, int groups, int dilation_w, Isa isa);

// input [N,H,W,C], filter [O,KH,KW,C/groups] (packed), bias [O] or null, output [N,OH,OW,O].
void Conv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
               const Shape& filter_shape, const ConvFilterF32& filter, const float* bias, const Shape& out_shape,
               float* output);

// DEPTHWISE_CONV_2D with depth multiplier 1: input [N,H,W,C], filter [1,KH,KW,C], bias [C] or null.
// Only the output columns [x0, x1) of each row are written (DwConvArgs::x0, x1).
void DepthwiseConv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
                        const Shape& filter_shape, const float* filter, const float* bias, const Shape& out_shape,
                        float* output, int x0 = 0, int x1 = 1 << 30);

// Splits `rows` rows into about 4 tasks per thread (at least `min_rows` rows each) and runs
// fn(first_row, end_row) for each.
void ParallelRows(ThreadPool* pool, int64_t rows, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace edgerun::optimized
