// ARG_MAX / ARG_MIN along one axis, on raw pointers.
#pragma once

#include <cstdint>

namespace edgerun::reference {

// out[o][i] = the index k along the axis whose value wins `better(value_k, best)`, scanning k
// upward from 0; a later element must win strictly, so ties keep the smallest index (and a NaN
// never wins, as in TFLite). The input is [outer, axis_size, inner], axis_size >= 1.
template <class T, class Index, class Better>
void ArgMinMax(const T* in, int64_t outer, int64_t axis_size, int64_t inner, Index* out, Better better) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* column = in + o * axis_size * inner + i;
      T best = column[0];
      int64_t best_index = 0;
      for (int64_t k = 1; k < axis_size; ++k) {
        if (better(column[k * inner], best)) {
          best = column[k * inner];
          best_index = k;
        }
      }
      out[o * inner + i] = static_cast<Index>(best_index);
    }
  }
}

}  // namespace edgerun::reference
