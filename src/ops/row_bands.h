// Ops that compute a band of output rows from a band of input rows, on the calling thread, so that
// a chain of them runs strip by strip with the values between them in cache (ops/fused_rows.h).
// The bands are rows of one image [1, H, W, C], each row W * C values, contiguous from `data`.
#pragma once

#include <memory>

#include "edgerun/op.h"
#include "edgerun/tensor.h"

namespace edgerun::ops {

struct RowBand {
  const void* data;  // row `first` of the tensor
  int first, rows;
};
struct OutputRowBand {
  void* data;
  int first, rows;
};

// Made for one prepared node; its state (packed weights, quantization) is the node's own.
class RowKernel {
 public:
  virtual ~RowKernel() = default;
  // The input rows [*first, *end) that output rows [out_first, out_end) read, clipped to the input.
  virtual void InputRows(int out_first, int out_end, int* first, int* end) const = 0;
  // Once per Invoke, on the calling thread, before any band (packs weights at the first call).
  virtual void Begin(OpContext& ctx) = 0;
  // Output rows [out.first, out.first + out.rows) from `in`, which holds at least the rows they read
  // (InputRows). Safe to call from several threads at once for different bands.
  virtual void EvalRows(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const = 0;
};

// The row kernel of a prepared node whose input `band_input` is read by bands, or null when the
// node cannot run that way (an op without one, a batch of more than one image, a type or path the
// band kernels do not cover). Convolutions read input 0 by bands (their other inputs are
// weights); ADD reads its other operand from its tensor, at the band's rows.
std::unique_ptr<RowKernel> MakeRowKernel(const OpContext& ctx, int band_input = 0);

// Defined in the ops' own files.
std::unique_ptr<RowKernel> MakeConv2DRowKernel(const OpContext& ctx);
std::unique_ptr<RowKernel> MakeDepthwiseConv2DRowKernel(const OpContext& ctx);
std::unique_ptr<RowKernel> MakeAddRowKernel(const OpContext& ctx, int band_input);

// Vertical window geometry of a convolution: the input rows [*first, *end) that output rows
// [out_first, out_end) read, clipped to [0, in_h).
inline void WindowRows(int out_first, int out_end, int stride, int pad, int k, int dilation, int in_h, int* first,
                       int* end) {
  const int lo = out_first * stride - pad;
  const int hi = (out_end - 1) * stride - pad + (k - 1) * dilation + 1;
  *first = lo < 0 ? 0 : lo;
  *end = hi > in_h ? in_h : hi;
  if (*end < *first) *end = *first;
}

}  // namespace edgerun::ops
