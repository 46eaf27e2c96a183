// Reductions over a set of axes, on raw pointers.
#pragma once

#include <cstdint>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// For every input element calls f(out_index, in_index); out_index is the element's position in
// the reduced output (reduced axes collapsed). Elements are visited in input order.
template <class F>
void ForEachReduce(const Shape& in_shape, const std::vector<bool>& reduced, F&& f) {
  const size_t rank = in_shape.size();
  const int64_t total = NumElements(in_shape);
  if (total <= 0) return;
  if (rank == 0) {
    f(0, 0);
    return;
  }
  std::vector<int64_t> out_stride(rank, 0);
  int64_t stride = 1;
  for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
    if (!reduced[d]) {
      out_stride[d] = stride;
      stride *= in_shape[d];
    }
  }
  std::vector<int32_t> index(rank, 0);
  int64_t out = 0;
  for (int64_t in = 0; in < total; ++in) {
    f(out, in);
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      out += out_stride[d];
      if (++index[d] < in_shape[d]) break;
      out -= out_stride[d] * in_shape[d];
      index[d] = 0;
    }
  }
}

// Folds the inputs of each output element in input order: acc = first(x) for the first one,
// acc = next(acc, x) for the others (TFLite's optimized reducers work this way, which matters
// for NaN and for the extreme values). Outputs with no input get `empty`.
template <class In, class Acc, class First, class Next>
void ReduceFold(const Shape& in_shape, const std::vector<bool>& reduced, const In* in, Acc* acc,
                int64_t out_count, Acc empty, First first, Next next) {
  std::vector<bool> started(static_cast<size_t>(out_count), false);
  for (int64_t o = 0; o < out_count; ++o) acc[o] = empty;
  ForEachReduce(in_shape, reduced, [&](int64_t o, int64_t i) {
    if (started[o]) {
      acc[o] = next(acc[o], in[i]);
    } else {
      acc[o] = first(in[i]);
      started[o] = true;
    }
  });
}

}  // namespace edgerun::reference
