// Float CONV_2D 3x3, stride 1, by Winograd's minimal filtering F(2x2, 3x3) (Lavin & Gray 2015):
// each 2x2 block of outputs from a 4x4 block of input with 16 multiplies per input channel and
// output channel instead of 36. The product becomes 16 GEMMs (one per position of the 4x4
// transformed block) of [tiles x C] by [C x O] on the ISA's GEMM kernel, between an input and
// an output transform of additions. Results differ from the direct sum by rounding only (the
// transforms' 0.5 factors are exact; the filter is transformed in double), a few times the
// difference between two summation orders.
#pragma once

#include <vector>

#include "edgerun/tensor.h"
#include "kernels/optimized/cpu.h"
#include "kernels/optimized/gemm.h"
#include "kernels/reference/conv.h"

namespace edgerun {
class ThreadPool;
}

namespace edgerun::optimized {

// Whether a float convolution runs by F(2x2, 3x3): a 3x3 window, stride 1, no dilation, one group,
// at least 16 input and 16 output channels (fewer leave the GEMMs too thin to gain), and at most
// 128 x 128 channel pairs. The 16 transformed filters take 16/9 of the direct one's memory: at
// 256 x 256 (ResNet-18's 14x14 layers, 1.18 -> 0.72 ms each) the 5 MiB more took ResNet-18 float
// over its peak-RSS budget (68.7 MiB against weights + arena + 15 MiB = 63.4; 63.4 at 128 x 128)
// for 5% of its time; at 512 x 512 (16 MiB read for every block of tiles) it was slower too.
// Those larger filters run by F(2x2, 3x3) from their direct packing instead (below).
bool WinogradF23Applies(const reference::ConvParams& p, const Shape& filter_shape, int groups);

// Whether a float convolution with more channel pairs than that runs by F(2x2, 3x3) from its
// direct packing (ConvWinogradF23FromDirect): the same window, stride and channel rules, at
// most 512 input channels, and outputs of at least 64 pixels (fewer leave the per-inference
// filter transform too little work to pay for; 7x7 outputs also waste a quarter of their 4x4
// tiles). No transformed copy is kept, so the peak RSS stays that of the direct sum.
bool WinogradF23FromDirectApplies(const reference::ConvParams& p, const Shape& filter_shape, int groups,
                                  const Shape& out_shape);

// The 16 transformed filters U = G g G^T of a [O][3][3][C] filter, each packed as B (C x O).
void PackWinogradF23(const Shape& filter_shape, const float* filter, Isa isa, std::vector<PackedF32>* u,
                     const ConsumedRowsFn* consumed = nullptr);

// The convolution (NHWC, any batch and padding), split over the pool by blocks of tiles.
void ConvWinogradF23(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
                     const std::vector<PackedF32>& u, const float* bias, const Shape& out_shape, float* output);

// The same convolution from the direct packing of the filter (PackF32FromNK of [O][3][3][C]: each
// panel holds its columns' taps as 9 runs of C x nr values). Each task takes one panel: it
// transforms its 16 filters, 4 at a time, into a buffer of its thread (4 x C x nr floats, 128 KB
// at 256 input channels on AVX-512), runs the GEMMs of those positions over all tiles of a
// block, and then the output transform of its columns; the input transform of a block is
// shared by the tasks.
void ConvWinogradF23FromDirect(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape,
                               const float* input, const PackedF32& direct, const float* bias, const Shape& out_shape,
                               float* output);

// Row `row` of U = G g G^T for `count` values side by side (tap (ky, kx) of value i at
// g[(ky * 3 + kx) * tap_stride + i], position (row, s) to u[s * position_stride + i]), in float:
// the active ISA's kernel, or the scalar loop.
void WinogradFilterTransform(const float* g, int64_t tap_stride, int64_t count, int row, float* u,
                             int64_t position_stride);

}  // namespace edgerun::optimized
