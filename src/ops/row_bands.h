// Ops that compute a band of output rows from a band of input rows, on the calling thread, so that
// a chain of them runs strip by strip with the values between them in cache (ops/fused_rows.h).
// The bands are rows of one image [1, H, W, C], each row W * C values, contiguous from `data`.
#pragma once

#include <memory>

#include "edgerun/op.h"
#include "edgerun/tensor.h"
#include "kernels/reference/conv.h"

namespace edgerun::ops {

struct RowBand {
  const void* data;  // row `first` of the tensor
  int first, rows;
};
struct OutputRowBand {
  void* data;
  int first, rows;
};

// A kernel whose output pixel (y, x) reads input pixel (y, x) alone (a 1x1 convolution of stride 1,
// the residual ADD): it can run on any range of pixels, counted row by row, whole rows or not
// (the pixel split of small images in ops/fused_rows.h).
class PixelKernel {
 public:
  virtual ~PixelKernel() = default;
  // Output pixels [first, first + count) from `in`, which points at input pixel `first`; `out`
  // points at output pixel `first`. Safe to call from several threads for disjoint ranges.
  virtual void EvalPixels(const OpContext& ctx, const void* in, void* out, int64_t first, int64_t count) const = 0;
};

// A window kernel that can compute part of each output row (the depthwise convolution): a thread
// of the pixel split computes the first and last of its rows only as far as its pixels go.
class ColumnKernel {
 public:
  virtual ~ColumnKernel() = default;
  // The input columns [*first, *end) that output columns [out_first, out_end) read, clipped.
  virtual void InputColumns(int out_first, int out_end, int* first, int* end) const = 0;
  // Columns [x0, x1) of the output rows of `out` from `in` (as RowKernel::EvalRows, which holds at
  // least the rows and columns they read); the other columns are not written.
  virtual void EvalColumns(const OpContext& ctx, const RowBand& in, const OutputRowBand& out, int x0, int x1) const = 0;
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
  // The same node by ranges of pixels, or null where an output pixel reads a window.
  virtual const PixelKernel* pixels() const { return nullptr; }
  // The same node by parts of rows, or null.
  virtual const ColumnKernel* columns() const { return nullptr; }
};

// A row kernel whose output pixel reads its input pixel alone (ADD, QUANTIZE): a band's rows are
// its pixels, and it runs on any range of them.
class PointwiseRowKernel : public RowKernel, public PixelKernel {
 public:
  void InputRows(int out_first, int out_end, int* first, int* end) const override {
    *first = out_first;
    *end = out_end;
  }
  void Begin(OpContext&) override {}
  void EvalRows(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const override {
    const int64_t row = ctx.output(0)->dim(2);
    EvalPixels(ctx, in.data, out.data, out.first * row, out.rows * row);
  }
  const PixelKernel* pixels() const override { return this; }
};

// The row kernel of a prepared node whose input `band_input` is read by bands, or null when the
// node cannot run that way (an op without one, a batch of more than one image, a type or path the
// band kernels do not cover). Convolutions read input 0 by bands (their other inputs are
// weights); ADD reads its other operand from its tensor, at the band's rows; QUANTIZE (its fast
// paths: 8-bit by a table, float to 8-bit per tensor) converts the band.
std::unique_ptr<RowKernel> MakeRowKernel(const OpContext& ctx, int band_input = 0);

// Defined in the ops' own files.
std::unique_ptr<RowKernel> MakeConv2DRowKernel(const OpContext& ctx);
std::unique_ptr<RowKernel> MakeDepthwiseConv2DRowKernel(const OpContext& ctx);
std::unique_ptr<RowKernel> MakeAddRowKernel(const OpContext& ctx, int band_input);
std::unique_ptr<RowKernel> MakeMaxPool2DRowKernel(const OpContext& ctx);
std::unique_ptr<RowKernel> MakeQuantizeRowKernel(const OpContext& ctx);

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

// The row kernel of a convolution-like op (CONV_2D, DEPTHWISE_CONV_2D) with the node's prepared
// parameters: its window rows, and a band taken as an image of its own.
class WindowRowKernel : public RowKernel {
 public:
  WindowRowKernel(const reference::ConvParams& params, int in_h, int kernel_h)
      : params_(params), in_h_(in_h), kernel_h_(kernel_h) {}
  void InputRows(int out_first, int out_end, int* first, int* end) const override {
    WindowRows(out_first, out_end, params_.stride_h, params_.pad_h, kernel_h_, params_.dilation_h, in_h_, first, end);
  }

 protected:
  // The shapes of the band `in` -> `out` as images ([1, rows, W, C]) and the parameters for them:
  // rows shift by in.first, so does the top padding.
  struct BandImage {
    reference::ConvParams params;
    Shape in_shape, out_shape;
  };
  BandImage Band(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const {
    const Tensor* input = ctx.input(0);
    const Tensor* output = ctx.output(0);
    BandImage b{params_, {1, in.rows, input->dim(2), input->dim(3)}, {1, out.rows, output->dim(2), output->dim(3)}};
    b.params.pad_h += in.first - out.first * b.params.stride_h;
    return b;
  }

 private:
  const reference::ConvParams& params_;
  const int in_h_, kernel_h_;
};

}  // namespace edgerun::ops
