// Copies that rearrange elements on raw bytes, for every fixed-size type: repetition (TILE,
// BROADCAST_TO), MIRROR_PAD, REVERSE_V2, REVERSE_SEQUENCE, DILATE. Each walks the output row by
// row (a row = the last dimension) and finds the input row through per-dimension index maps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "edgerun/tensor.h"
#include "kernels/reference/movement.h"

namespace edgerun::reference {

// Calls row(r, index) for every row of `shape` (all dims but the last), index being the
// coordinates of that row; nothing for empty shapes. A scalar has one row.
template <class RowFn>
void ForEachRow(const Shape& shape, RowFn row) {
  if (NumElements(shape) <= 0) return;
  const int outer_rank = static_cast<int>(shape.size()) - 1;
  std::vector<int32_t> index(std::max(outer_rank, 0), 0);
  const int64_t rows = outer_rank <= 0 ? 1 : NumElements(Shape(shape.begin(), shape.end() - 1));
  for (int64_t r = 0; r < rows; ++r) {
    row(r, index);
    for (int d = outer_rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// output[o] = input[o mod in_shape] per dimension: TILE (out = in * multiples) and BROADCAST_TO
// (in dims of 1 repeat). Both shapes have the same rank; each output dim is a multiple of the
// input dim.
inline void Repeat(const Shape& in_shape, const Shape& out_shape, size_t element, const uint8_t* input,
                   uint8_t* output) {
  if (out_shape.empty()) {
    if (NumElements(in_shape) > 0) std::memcpy(output, input, element);
    return;
  }
  const std::vector<int64_t> in_strides = Strides(in_shape);
  const size_t last = out_shape.size() - 1;
  const size_t in_row = in_shape[last] * element;
  const int64_t copies = in_shape[last] == 0 ? 0 : out_shape[last] / in_shape[last];
  ForEachRow(out_shape, [&](int64_t r, const std::vector<int32_t>& index) {
    int64_t from = 0;
    for (size_t d = 0; d < last; ++d) from += (index[d] % in_shape[d]) * in_strides[d];
    uint8_t* to = output + r * out_shape[last] * element;
    for (int64_t c = 0; c < copies; ++c) std::memcpy(to + c * in_row, input + from * element, in_row);
  });
}

// output[o] = input[map[d][o_d] per dim]: the general per-dimension gather behind MIRROR_PAD and
// REVERSE_V2. map[d] has one input index per output index of dimension d.
inline void GatherPerDim(const Shape& in_shape, const std::vector<std::vector<int32_t>>& map, size_t element,
                         const uint8_t* input, uint8_t* output) {
  Shape out_shape(map.size());
  for (size_t d = 0; d < map.size(); ++d) out_shape[d] = static_cast<int32_t>(map[d].size());
  if (out_shape.empty()) {
    if (NumElements(in_shape) > 0) std::memcpy(output, input, element);
    return;
  }
  // Trailing dimensions copied as they are (not padded, not reversed) join the element: an image
  // padded in height and width copies whole pixels, and its rows in a few runs (MIRROR_PAD of a
  // 224x224x3 image: 230 rows of 7 runs instead of 52900 rows of one 12-byte run).
  size_t kept = map.size();
  size_t block = element;
  auto identity = [&](size_t d) {
    if (map[d].size() != static_cast<size_t>(in_shape[d])) return false;
    for (size_t k = 0; k < map[d].size(); ++k) {
      if (map[d][k] != static_cast<int32_t>(k)) return false;
    }
    return true;
  };
  while (kept > 1 && identity(kept - 1)) block *= static_cast<size_t>(in_shape[--kept]);
  if (kept < map.size()) {
    const std::vector<std::vector<int32_t>> outer(map.begin(), map.begin() + static_cast<std::ptrdiff_t>(kept));
    GatherPerDim(Shape(in_shape.begin(), in_shape.begin() + static_cast<std::ptrdiff_t>(kept)), outer, block, input,
                 output);
    return;
  }
  const std::vector<int64_t> in_strides = Strides(in_shape);
  const size_t last = out_shape.size() - 1;
  // The last dimension's map as runs of consecutive input positions, copied with one memcpy each
  // (the unpadded middle of a MIRROR_PAD row, a whole row that REVERSE_V2 leaves in order).
  struct Run {
    size_t out, in, length;
  };
  std::vector<Run> runs;
  const std::vector<int32_t>& inner = map[last];
  for (size_t k = 0; k < inner.size(); ++k) {
    if (!runs.empty() && runs.back().in + runs.back().length == static_cast<size_t>(inner[k])) {
      ++runs.back().length;
    } else {
      runs.push_back({k, static_cast<size_t>(inner[k]), 1});
    }
  }
  ForEachRow(out_shape, [&](int64_t r, const std::vector<int32_t>& index) {
    int64_t from = 0;
    for (size_t d = 0; d < last; ++d) from += map[d][index[d]] * in_strides[d];
    uint8_t* to = output + r * out_shape[last] * element;
    for (const Run& run : runs) {
      std::memcpy(to + run.out * element, input + (from + run.in) * element, run.length * element);
    }
  });
}

// REVERSE_SEQUENCE: along seq_dim, the first lengths[b] elements of batch b (its index along
// batch_dim) are reversed; the rest are copied.
inline void ReverseSequence(const Shape& shape, int seq_dim, int batch_dim, const std::vector<int64_t>& lengths,
                            size_t element, const uint8_t* input, uint8_t* output) {
  const int64_t total = NumElements(shape);
  if (total <= 0) return;
  const std::vector<int64_t> strides = Strides(shape);
  std::vector<int32_t> index(shape.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    const int64_t length = lengths[index[batch_dim]];
    int64_t from = i;
    if (index[seq_dim] < length) from += (length - 1 - 2 * index[seq_dim]) * strides[seq_dim];
    std::memcpy(output + i * element, input + from * element, element);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// DILATE: input element i lands at i * dilations per dim; the holes get `padding` (one element).
inline void Dilate(const Shape& in_shape, const std::vector<int64_t>& dilations, const Shape& out_shape,
                   size_t element, const uint8_t* input, const uint8_t* padding, uint8_t* output) {
  const int64_t out_total = NumElements(out_shape);
  for (int64_t i = 0; i < out_total; ++i) std::memcpy(output + i * element, padding, element);
  const int64_t in_total = NumElements(in_shape);
  if (in_total <= 0) return;
  const std::vector<int64_t> out_strides = Strides(out_shape);
  std::vector<int32_t> index(in_shape.size(), 0);
  for (int64_t i = 0; i < in_total; ++i) {
    int64_t to = 0;
    for (size_t d = 0; d < in_shape.size(); ++d) to += index[d] * dilations[d] * out_strides[d];
    std::memcpy(output + to * element, input + i * element, element);
    for (int d = static_cast<int>(in_shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < in_shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace edgerun::reference
