// Element-wise loops with numpy broadcasting, on raw pointers and shapes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
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

// A broadcast collapsed: sizes of 1 dropped, and neighbours merged where both operands step
// through them as through one dimension ([1,192,192,3] against [1,1,1,3] is [36864,3] against
// [0,1] strides); outermost first. The visiting order stays the output's row-major order.
struct CollapsedBroadcast {
  std::vector<int64_t> size, sa, sb;
};
inline CollapsedBroadcast CollapseBroadcast(const Shape& a_shape, const Shape& b_shape, const Shape& out_shape) {
  const size_t rank = out_shape.size();
  const std::vector<int64_t> full_a = BroadcastStrides(a_shape, rank);
  const std::vector<int64_t> full_b = BroadcastStrides(b_shape, rank);
  CollapsedBroadcast c;
  for (size_t d = 0; d < rank; ++d) {
    if (out_shape[d] == 1) continue;
    if (!c.size.empty() && c.sa.back() == full_a[d] * out_shape[d] && c.sb.back() == full_b[d] * out_shape[d]) {
      c.size.back() *= out_shape[d];
      c.sa.back() = full_a[d];
      c.sb.back() = full_b[d];
      continue;
    }
    c.size.push_back(out_shape[d]);
    c.sa.push_back(full_a[d]);
    c.sb.push_back(full_b[d]);
  }
  return c;
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
  const CollapsedBroadcast c = CollapseBroadcast(a_shape, b_shape, out_shape);
  const std::vector<int64_t>&size = c.size, &sa = c.sa, &sb = c.sb;  // outermost first
  const size_t r = size.size();
  if (r == 0) {  // one element (unreachable after the paths above; kept for safety)
    f(0, 0, 0);
    return;
  }
  const int64_t inner = size[r - 1];
  const int64_t ia = sa[r - 1], ib = sb[r - 1];
  if (r == 2 && sa[0] == inner && ia == 1 && sb[0] == 0 && ib == 1) {
    // b repeats along a (a row of channels against a whole image): one pass, no odometer.
    for (int64_t i = 0, k = 0; i < total; ++i) {
      f(i, k, i);
      if (++k == inner) k = 0;
    }
    return;
  }
  if (r == 2 && sb[0] == inner && ib == 1 && sa[0] == 0 && ia == 1) {
    for (int64_t i = 0, k = 0; i < total; ++i) {
      f(k, i, i);
      if (++k == inner) k = 0;
    }
    return;
  }
  std::vector<int64_t> index(r, 0);
  int64_t out = 0, a = 0, b = 0;
  while (out < total) {
    for (int64_t k = 0; k < inner; ++k) f(a + k * ia, b + k * ib, out + k);
    out += inner;
    // Advance the outer index (all but the last dim) like an odometer.
    int d = static_cast<int>(r) - 2;
    for (; d >= 0; --d) {
      a += sa[d];
      b += sb[d];
      if (++index[d] < size[d]) break;
      a -= sa[d] * size[d];
      b -= sb[d] * size[d];
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

// Up to this many elements in the innermost run of both operands count as short.
constexpr int64_t kShortInnerRun = 64;

// Whether one operand is broadcast along the dimension just outside a short contiguous run of
// both ([8,100,32,2] times [8,100,1,2]: RoPE's cos/sin over the heads). XNNPACK (Debian's) walks
// such a broadcast a run at a time, a call every few elements. The collapsed broadcast is left
// in *c.
inline bool IsShortInnerRunBroadcast(const Shape& a_shape, const Shape& b_shape, const Shape& out_shape,
                                     CollapsedBroadcast* c) {
  if (a_shape == b_shape || NumElements(out_shape) <= 0 || a_shape.size() > out_shape.size() ||
      b_shape.size() > out_shape.size()) {
    return false;
  }
  *c = CollapseBroadcast(a_shape, b_shape, out_shape);
  const size_t r = c->size.size();
  if (r < 2 || c->sa[r - 1] != 1 || c->sb[r - 1] != 1 || c->size[r - 1] > kShortInnerRun) return false;
  const int64_t inner = c->size[r - 1];
  return (c->sa[r - 2] == inner && c->sb[r - 2] == 0) || (c->sb[r - 2] == inner && c->sa[r - 2] == 0);
}

// That broadcast (IsShortInnerRunBroadcast) as contiguous loops: the short run of the broadcast
// operand is repeated into a block as long as a few thousand elements of the other's, and each
// block is one loop, which vectorizes, instead of an odometer step every few elements. The same
// op on the same pairs, so the same results. False when the shapes are not of that form.
template <class T, class U, class Op>
bool BroadcastShortInnerRuns(const Shape& a_shape, const T* a, const Shape& b_shape, const T* b,
                             const Shape& out_shape, U* out, Op op) {
  CollapsedBroadcast c;
  if (!IsShortInnerRunBroadcast(a_shape, b_shape, out_shape, &c)) return false;
  const size_t r = c.size.size();
  const int64_t inner = c.size[r - 1], mid = c.size[r - 2];
  const bool a_repeats = c.sa[r - 2] == 0;
  // Rows of the broadcast dimension per block: a block of at most about 4096 elements.
  const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(mid, 4096 / inner));
  std::unique_ptr<T[]> tile(new T[static_cast<size_t>(rows * inner)]);  // not vector: T may be bool
  const int64_t outer = NumElements(out_shape) / (mid * inner);
  std::vector<int64_t> index(r, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const T* run = a_repeats ? a + ia : b + ib;
    // The run, then the filled part doubled: log2(rows) copies rather than one per repeat.
    std::copy(run, run + inner, tile.get());
    for (int64_t filled = inner; filled < rows * inner; filled *= 2) {
      std::copy(tile.get(), tile.get() + std::min(filled, rows * inner - filled), tile.get() + filled);
    }
    for (int64_t m0 = 0; m0 < mid; m0 += rows) {
      const int64_t count = std::min(rows, mid - m0) * inner, offset = m0 * inner;
      const T* x = a_repeats ? tile.get() : a + ia + offset;
      const T* y = a_repeats ? b + ib + offset : tile.get();
      U* z = out + o * mid * inner + offset;
      for (int64_t i = 0; i < count; ++i) z[i] = op(x[i], y[i]);
    }
    for (int d = static_cast<int>(r) - 3; d >= 0; --d) {
      ia += c.sa[d];
      ib += c.sb[d];
      if (++index[d] < c.size[d]) break;
      ia -= c.sa[d] * c.size[d];
      ib -= c.sb[d] * c.size[d];
      index[d] = 0;
    }
  }
  return true;
}

template <class T, class U, class Op>
void BroadcastBinary(const Shape& a_shape, const T* a, const Shape& b_shape, const T* b,
                     const Shape& out_shape, U* out, Op op) {
  if (BroadcastShortInnerRuns(a_shape, a, b_shape, b, out_shape, out, op)) return;
  ForEachBroadcast(a_shape, b_shape, out_shape,
                   [&](int64_t ia, int64_t ib, int64_t io) { out[io] = op(a[ia], b[ib]); });
}

}  // namespace edgerun::reference
