// BATCH_MATMUL building blocks: matrices transposed in their last two dimensions, batch
// dimensions broadcast, and the float product out = A x B with B given transposed (rows of
// Bt are the columns of B) so that the inner loop runs over contiguous memory in both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// out[b][c][r] = in[b][r][c] for `batches` matrices of rows x cols.
template <class T>
void TransposeLastTwo(const T* in, int64_t batches, int rows, int cols, T* out) {
  // In blocks of 32 x 32: a block's source rows and destination rows both stay in L1, instead of
  // every source row writing across all the destination rows.
  constexpr int kBlock = 32;
  const int64_t size = static_cast<int64_t>(rows) * cols;
  for (int64_t b = 0; b < batches; ++b) {
    const T* src = in + b * size;
    T* dst = out + b * size;
    for (int r0 = 0; r0 < rows; r0 += kBlock) {
      const int r1 = std::min(rows, r0 + kBlock);
      for (int c0 = 0; c0 < cols; c0 += kBlock) {
        const int c1 = std::min(cols, c0 + kBlock);
        for (int r = r0; r < r1; ++r) {
          for (int c = c0; c < c1; ++c) dst[static_cast<int64_t>(c) * rows + r] = src[static_cast<int64_t>(r) * cols + c];
        }
      }
    }
  }
}

// For every batch of the output (its batch shape `out` is the broadcast of `lhs` and `rhs`, all
// three of the same rank), the flat index of the lhs and rhs batch it reads.
inline void BroadcastBatches(const Shape& lhs, const Shape& rhs, const Shape& out, std::vector<int64_t>* lhs_index,
                             std::vector<int64_t>* rhs_index) {
  const int rank = static_cast<int>(out.size());
  const int64_t total = NumElements(out);
  lhs_index->assign(static_cast<size_t>(total), 0);
  rhs_index->assign(static_cast<size_t>(total), 0);
  std::vector<int32_t> position(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t l = 0, r = 0;
    for (int d = 0; d < rank; ++d) {
      l = l * lhs[d] + (lhs[d] == 1 ? 0 : position[d]);
      r = r * rhs[d] + (rhs[d] == 1 ? 0 : position[d]);
    }
    (*lhs_index)[i] = l;
    (*rhs_index)[i] = r;
    for (int d = rank - 1; d >= 0; --d) {
      if (++position[d] < out[d]) break;
      position[d] = 0;
    }
  }
}

// Dot product of two float rows the way a blocked SIMD GEMM sums it (and the order TFLite's
// optimized float GEMM comes closest to): blocks of 256 along k, each summed in 16 interleaved
// lanes that are then added pairwise, the block sums added in order. Besides vectorizing without
// -ffast-math, this is more accurate than one running sum over long rows: on
// tflite_dynamic_shapes (k = 1024, softmax-amplified) a single running sum misses Google's output
// by 1.4e-6, this order stays within 7.7e-7.
inline float DotBlocked(const float* a, const float* b, int k) {
  constexpr int kLanes = 16, kBlock = 256;
  float total = 0.0f;
  for (int start = 0; start < k; start += kBlock) {
    const int end = std::min(k, start + kBlock);
    float lanes[kLanes] = {};
    int x = start;
    for (; x + kLanes <= end; x += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] += a[x + l] * b[x + l];
    }
    for (int l = 0; x < end; ++x, ++l) lanes[l] += a[x] * b[x];
    for (int width = kLanes / 2; width >= 1; width /= 2) {
      for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
    }
    total += lanes[0];
  }
  return total;
}

// out[m][n] = sum_k a[m][k] * bt[n][k], each sum as DotBlocked.
inline void MatMulTransposedB(const float* a, const float* bt, int m, int n, int k, float* out) {
  for (int i = 0; i < m; ++i) {
    const float* row = a + static_cast<int64_t>(i) * k;
    for (int j = 0; j < n; ++j) {
      out[static_cast<int64_t>(i) * n + j] = DotBlocked(row, bt + static_cast<int64_t>(j) * k, k);
    }
  }
}

}  // namespace edgerun::reference
