// Segment reductions: rows of `data` (each `inner` elements) combined into the output row named
// by their segment id. Integer arithmetic wraps, as TFLite's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace edgerun::reference {

enum class SegmentOp { kSum, kProd, kMax, kMin };

template <class T>
T SegmentIdentity(SegmentOp op) {
  switch (op) {
    case SegmentOp::kProd: return T(1);
    case SegmentOp::kMax: return std::numeric_limits<T>::lowest();
    case SegmentOp::kMin: return std::numeric_limits<T>::max();
    default: return T(0);
  }
}

template <class T>
T SegmentCombine(SegmentOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (op == SegmentOp::kSum) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if (op == SegmentOp::kProd) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    if (op == SegmentOp::kSum) return a + b;
    if (op == SegmentOp::kProd) return a * b;
  }
  return op == SegmentOp::kMax ? std::max(a, b) : std::min(a, b);
}

// output[segments, inner] starts at the identity of `op`; row i of data goes to ids[i] (negative
// ids are skipped; the caller checked ids < segments).
template <class T>
void SegmentReduce(SegmentOp op, const T* data, const std::vector<int64_t>& ids, int64_t inner, int64_t segments,
                   T* output) {
  std::fill(output, output + segments * inner, SegmentIdentity<T>(op));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) continue;
    T* to = output + ids[i] * inner;
    const T* from = data + i * inner;
    for (int64_t j = 0; j < inner; ++j) to[j] = SegmentCombine(op, to[j], from[j]);
  }
}

}  // namespace edgerun::reference
