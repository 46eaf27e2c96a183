// Indexed reads and writes on raw bytes: GATHER, GATHER_ND, SCATTER_ND. Indices are validated by
// the caller; these loops trust them.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// GATHER viewed as [batch, outer, axis, inner] -> [batch, outer, coords, inner]: `index(b, c)`
// gives the position along the axis of coordinate c of batch b.
template <class IndexFn>
void Gather(int64_t batch, int64_t outer, int64_t axis_size, int64_t coords, int64_t inner_bytes, const uint8_t* input,
            IndexFn index, uint8_t* output) {
  if (inner_bytes == 0) return;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      const uint8_t* from = input + (b * outer + o) * axis_size * inner_bytes;
      uint8_t* to = output + (b * outer + o) * coords * inner_bytes;
      for (int64_t c = 0; c < coords; ++c) std::memcpy(to + c * inner_bytes, from + index(b, c) * inner_bytes, inner_bytes);
    }
  }
}

// Offset (in slices of params[depth:]) of each of `count` index tuples of `depth` coordinates;
// false when a coordinate is outside params' shape.
template <class T>
bool SliceOffsets(const T* indices, int64_t count, int depth, const Shape& params, std::vector<int64_t>* offsets) {
  offsets->assign(count, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int j = 0; j < depth; ++j) {
      const int64_t v = static_cast<int64_t>(indices[i * depth + j]);
      if (v < 0 || v >= params[j]) return false;
      offset = offset * params[j] + v;
    }
    (*offsets)[i] = offset;
  }
  return true;
}

// GATHER_ND: output slice i = params slice offsets[i].
inline void GatherNd(const std::vector<int64_t>& offsets, int64_t slice_bytes, const uint8_t* params, uint8_t* output) {
  if (slice_bytes == 0) return;
  for (size_t i = 0; i < offsets.size(); ++i) {
    std::memcpy(output + i * slice_bytes, params + offsets[i] * slice_bytes, slice_bytes);
  }
}

// SCATTER_ND: output starts at zero and each update slice is added (OR for bool) at its offset.
template <class T>
void ScatterNd(const std::vector<int64_t>& offsets, int64_t slice, const T* updates, int64_t output_count, T* output) {
  for (int64_t i = 0; i < output_count; ++i) output[i] = T(0);
  for (size_t i = 0; i < offsets.size(); ++i) {
    T* to = output + offsets[i] * slice;
    const T* from = updates + i * slice;
    for (int64_t j = 0; j < slice; ++j) {
      if constexpr (std::is_same_v<T, bool>) {
        to[j] = to[j] || from[j];
      } else if constexpr (std::is_integral_v<T>) {
        // Integer overflow wraps, as TFLite's += on two's-complement machines.
        using U = std::make_unsigned_t<T>;
        to[j] = static_cast<T>(static_cast<U>(to[j]) + static_cast<U>(from[j]));
      } else {
        to[j] += from[j];
      }
    }
  }
}

}  // namespace edgerun::reference
