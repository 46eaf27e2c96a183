// Windowed reduction of REDUCE_WINDOW and STABLEHLO_REDUCE_WINDOW: the input is (conceptually)
// dilated by base_dilations and padded by (low, high) per dim, both with the init value
// (negative padding crops), then each output element folds the window it covers, starting from
// the init value, window elements in row-major order: acc = op(acc, element). Padding and
// dilation holes take part in the fold as the init value, as they do in TFLite.
#pragma once

#include <cstdint>
#include <vector>

namespace edgerun::reference {

struct WindowGeometry {
  std::vector<int64_t> input;  // input shape
  std::vector<int64_t> window, strides, window_dilations, base_dilations, pad_low, pad_high;
  std::vector<int64_t> output;  // computed by ComputeWindowOutput

  int rank() const { return static_cast<int>(input.size()); }
  // Size of dim d after base dilation (0 for an empty dim).
  int64_t Dilated(int d) const { return input[d] == 0 ? 0 : (input[d] - 1) * base_dilations[d] + 1; }
  int64_t Padded(int d) const { return Dilated(d) + pad_low[d] + pad_high[d]; }
};

// Output dims: how many strided windows fit in the padded input (0 when none does).
inline void ComputeWindowOutput(WindowGeometry& g) {
  g.output.assign(g.input.size(), 0);
  for (int d = 0; d < g.rank(); ++d) {
    const int64_t span = (g.window[d] - 1) * g.window_dilations[d] + 1;
    const int64_t padded = g.Padded(d);
    g.output[d] = padded < span ? 0 : (padded - span) / g.strides[d] + 1;
  }
}

// Calls visit(output_position, input_position) for each window element of each output element,
// in fold order; input_position is -1 where the window covers padding or a dilation hole.
// begin(output_position) is called before the first element of each output. Stops (returning
// false) as soon as a call returns false.
template <class Begin, class Visit>
bool WalkWindows(const WindowGeometry& g, Begin begin, Visit visit) {
  const int rank = g.rank();
  int64_t outputs = 1, window_size = 1;
  for (int d = 0; d < rank; ++d) {
    outputs *= g.output[d];
    window_size *= g.window[d];
  }
  if (outputs == 0) return true;
  std::vector<int64_t> out(rank, 0), w(rank, 0);
  auto next = [&](const std::vector<int64_t>& shape, std::vector<int64_t>& index) {
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) return true;
      index[d] = 0;
    }
    return false;
  };
  for (int64_t o = 0; o < outputs; ++o, next(g.output, out)) {
    if (!begin(o)) return false;
    if (window_size == 0) continue;
    std::fill(w.begin(), w.end(), 0);
    do {
      int64_t flat = 0;
      bool inside = true;
      for (int d = 0; d < rank && inside; ++d) {
        const int64_t dilated = out[d] * g.strides[d] + w[d] * g.window_dilations[d] - g.pad_low[d];
        if (dilated < 0 || dilated >= g.Dilated(d) || dilated % g.base_dilations[d] != 0) inside = false;
        else flat = flat * g.input[d] + dilated / g.base_dilations[d];
      }
      if (!visit(o, inside ? flat : int64_t{-1})) return false;
    } while (next(g.window, w));
  }
  return true;
}

// The typed fold: output[o] = op(...op(op(init, e0), e1)..., en).
template <class T, class Op>
void ReduceWindow(const WindowGeometry& g, const T* input, T init, Op op, T* output) {
  WalkWindows(
      g,
      [&](int64_t o) {
        output[o] = init;
        return true;
      },
      [&](int64_t o, int64_t i) {
        output[o] = op(output[o], i < 0 ? init : input[i]);
        return true;
      });
}

}  // namespace edgerun::reference
