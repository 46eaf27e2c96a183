// BATCH_MATMUL building blocks: matrices transposed in their last two dimensions, batch
// dimensions broadcast, and the float product out = A x B with B given transposed (rows of
// Bt are the columns of B) so that the inner loop runs over contiguous memory in both.
#pragma once

#include <cstdint>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// out[b][c][r] = in[b][r][c] for `batches` matrices of rows x cols.
template <class T>
void TransposeLastTwo(const T* in, int64_t batches, int rows, int cols, T* out) {
  const int64_t size = static_cast<int64_t>(rows) * cols;
  for (int64_t b = 0; b < batches; ++b) {
    const T* src = in + b * size;
    T* dst = out + b * size;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) dst[static_cast<int64_t>(c) * rows + r] = src[static_cast<int64_t>(r) * cols + c];
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

// out[m][n] = sum_k a[m][k] * bt[n][k], summed in k order as TFLite's reference kernel does.
inline void MatMulTransposedB(const float* a, const float* bt, int m, int n, int k, float* out) {
  for (int i = 0; i < m; ++i) {
    const float* row = a + static_cast<int64_t>(i) * k;
    for (int j = 0; j < n; ++j) {
      const float* col = bt + static_cast<int64_t>(j) * k;
      float total = 0.0f;
      for (int x = 0; x < k; ++x) total += row[x] * col[x];
      out[static_cast<int64_t>(i) * n + j] = total;
    }
  }
}

}  // namespace edgerun::reference
