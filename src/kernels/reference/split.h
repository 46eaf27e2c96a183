// Splitting a tensor along one axis on raw bytes (SPLIT, SPLIT_V, UNPACK): the inverse of
// Concatenate in movement.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

// Output k receives sizes[k] consecutive positions along `axis`, for every outer row in turn.
inline void Split(const Shape& in_shape, int axis, const std::vector<int64_t>& sizes, size_t element,
                  const uint8_t* input, const std::vector<uint8_t*>& outputs) {
  int64_t outer = 1, inner = static_cast<int64_t>(element);
  for (int d = 0; d < axis; ++d) outer *= in_shape[d];
  for (size_t d = axis + 1; d < in_shape.size(); ++d) inner *= in_shape[d];
  const uint8_t* from = input;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < outputs.size(); ++k) {
      const int64_t chunk = sizes[k] * inner;
      if (chunk > 0) std::memcpy(outputs[k] + o * chunk, from, chunk);
      from += chunk;
    }
  }
}

}  // namespace edgerun::reference
