// Element-wise loops with numpy broadcasting, on raw pointers and shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// Strides of `shape` seen from an output of rank `rank`: leading missing dims and dims of size 1
// get stride 0, so that one index walks both tensors.
inline std::vector<int64_t> BroadcastStrides(const Shape& shape, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t dim = shape.size() - 1 - i;
    const size_t out_dim = rank - 1 - i;
    strides[out_dim] = shape[dim] == 1 ? 0 : stride;
    stride *= shape[dim];
  }
  return strides;
}

// Calls f(a_index, b_index, out_index) for every element of out_shape, where a and b are
// broadcast to out_shape.
template <class F>
void ForEachBroadcast(const Shape& a_shape, const Shape& b_shape, const Shape& out_shape, F&& f) {
  const int64_t total = NumElements(out_shape);
  if (total <= 0) return;
  if (a_shape == b_shape) {
    for (int64_t i = 0; i < total; ++i) f(i, i, i);
    return;
  }
  const int64_t a_count = NumElements(a_shape), b_count = NumElements(b_shape);
  if (b_count == 1 && a_count == total) {
    for (int64_t i = 0; i < total; ++i) f(i, 0, i);
    return;
  }
  if (a_count == 1 && b_count == total) {
    for (int64_t i = 0; i < total; ++i) f(0, i, i);
    return;
  }
  const size_t rank = out_shape.size();
  const std::vector<int64_t> sa = BroadcastStrides(a_shape, rank);
  const std::vector<int64_t> sb = BroadcastStrides(b_shape, rank);
  const int64_t inner = out_shape[rank - 1];
  const int64_t ia = sa[rank - 1], ib = sb[rank - 1];
  std::vector<int32_t> index(rank, 0);
  int64_t out = 0, a = 0, b = 0;
  while (out < total) {
    for (int64_t k = 0; k < inner; ++k) f(a + k * ia, b + k * ib, out + k);
    out += inner;
    // Advance the outer index (all but the last dim) like an odometer.
    int d = static_cast<int>(rank) - 2;
    for (; d >= 0; --d) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
    a = 0;
    b = 0;
    for (size_t k = 0; k + 1 < rank; ++k) {
      a += index[k] * sa[k];
      b += index[k] * sb[k];
    }
  }
}

template <class T, class U, class Op>
void BroadcastBinary(const Shape& a_shape, const T* a, const Shape& b_shape, const T* b,
                     const Shape& out_shape, U* out, Op op) {
  ForEachBroadcast(a_shape, b_shape, out_shape,
                   [&](int64_t ia, int64_t ib, int64_t io) { out[io] = op(a[ia], b[ib]); });
}

}  // namespace edgerun::reference
