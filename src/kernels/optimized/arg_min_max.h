// Optimized ARG_MAX / ARG_MIN: the same indices as reference::ArgMinMax (a later element must win
// strictly, so ties keep the smallest index and a NaN never wins), with the outputs split over the
// pool. The last axis (inner == 1, as in segmentation heads: DeepLab's [1, 513, 513, 21]) runs on
// the ISA kernel for 8-bit values compared by value, else scans each row with a branch-free
// running best; other axes update a block of columns side by side, a loop the compiler
// vectorizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {

// The ISA kernel for 8-bit rows compared by value (ArgMinMax8Fn), or null.
template <class T, class Better>
ArgMinMax8Fn ByteArgMinMaxKernel() {
  constexpr bool kByOrder = std::is_same_v<Better, std::greater<T>> || std::is_same_v<Better, std::less<T>>;
  if constexpr (kByOrder && std::is_same_v<T, uint8_t>) return ActiveKernels().arg_min_max_u8;
  if constexpr (kByOrder && std::is_same_v<T, int8_t>) return ActiveKernels().arg_min_max_i8;
  return nullptr;
}

template <class T, class Index, class Better>
void ArgMinMax(ThreadPool* pool, const T* in, int64_t outer, int64_t axis_size, int64_t inner, Index* out,
               Better better) {
  constexpr int64_t kElementsPerTask = 1 << 15;
  if (inner == 1 && axis_size <= INT32_MAX) {
    if (const ArgMinMax8Fn rows_kernel = ByteArgMinMaxKernel<T, Better>()) {
      // 8-bit segmentation heads (DeepLab uint8: [1, 513, 513, 21]) on the vector unit: 2.3 ->
      // ~0.6 ms. Indices come back as int32 (axis sizes are dimensions) and are widened for int64.
      constexpr int64_t kRows = 256;
      const bool is_max = std::is_same_v<Better, std::greater<T>>;
      const T* end = in + outer * axis_size;
      ParallelFor(pool, (outer + kRows - 1) / kRows, [&](int64_t task) {
        const int64_t o = task * kRows, rows = std::min(kRows, outer - o);
        if constexpr (std::is_same_v<Index, int32_t>) {
          rows_kernel(in + o * axis_size, rows, static_cast<int32_t>(axis_size), is_max, end, out + o);
        } else {
          int32_t indices[kRows];
          rows_kernel(in + o * axis_size, rows, static_cast<int32_t>(axis_size), is_max, end, indices);
          for (int64_t r = 0; r < rows; ++r) out[o + r] = static_cast<Index>(indices[r]);
        }
      });
      return;
    }
  }
  if (inner == 1) {
    // Each row's running best is a chain of dependent compares; kRows rows side by side give the
    // CPU independent chains to overlap (about 5x faster than one row at a time on short axes).
    constexpr int64_t kRows = 8;
    const int64_t rows_per_task = std::max<int64_t>(kRows, kElementsPerTask / axis_size / kRows * kRows);
    ParallelFor(pool, (outer + rows_per_task - 1) / rows_per_task, [&](int64_t task) {
      const int64_t end = std::min(outer, (task + 1) * rows_per_task);
      int64_t o = task * rows_per_task;
      for (; o + kRows <= end; o += kRows) {
        const T* rows = in + o * axis_size;
        T best[kRows];
        int64_t best_index[kRows];
        for (int64_t r = 0; r < kRows; ++r) {
          best[r] = rows[r * axis_size];
          best_index[r] = 0;
        }
        for (int64_t k = 1; k < axis_size; ++k) {
          for (int64_t r = 0; r < kRows; ++r) {
            const T v = rows[r * axis_size + k];
            const bool wins = better(v, best[r]);
            best[r] = wins ? v : best[r];
            best_index[r] = wins ? k : best_index[r];
          }
        }
        for (int64_t r = 0; r < kRows; ++r) out[o + r] = static_cast<Index>(best_index[r]);
      }
      for (; o < end; ++o) {
        const T* row = in + o * axis_size;
        T best = row[0];
        int64_t best_index = 0;
        for (int64_t k = 1; k < axis_size; ++k) {
          const T v = row[k];
          const bool wins = better(v, best);
          best = wins ? v : best;
          best_index = wins ? k : best_index;
        }
        out[o] = static_cast<Index>(best_index);
      }
    });
    return;
  }
  constexpr int64_t kBlock = 256;  // columns kept in registers / L1 per pass over the axis
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  ParallelFor(pool, outer * blocks, [&](int64_t task) {
    const int64_t o = task / blocks, i0 = (task % blocks) * kBlock;
    const int64_t width = std::min(kBlock, inner - i0);
    const T* base = in + o * axis_size * inner + i0;
    T best[kBlock];
    int32_t best_index[kBlock];  // axis sizes are tensor dimensions, so they fit an int32
    for (int64_t j = 0; j < width; ++j) {
      best[j] = base[j];
      best_index[j] = 0;
    }
    for (int64_t k = 1; k < axis_size; ++k) {
      const T* row = base + k * inner;
      for (int64_t j = 0; j < width; ++j) {
        const bool wins = better(row[j], best[j]);
        best[j] = wins ? row[j] : best[j];
        best_index[j] = wins ? static_cast<int32_t>(k) : best_index[j];
      }
    }
    Index* dst = out + o * inner + i0;
    for (int64_t j = 0; j < width; ++j) dst[j] = static_cast<Index>(best_index[j]);
  });
}

}  // namespace edgerun::optimized
