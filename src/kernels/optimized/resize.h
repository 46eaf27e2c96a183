// Optimized RESIZE_BILINEAR: the reference arithmetic of kernels/reference/resize.h (same
// formulas, same order of operations, so bit-identical for every type), with the horizontal
// interpolation points computed once per call instead of once per pixel, the output rows
// split over the pool, and float rows on the CPU's vectors (IsaKernels::resize_row_f32).
#pragma once

#include <vector>

#include "kernels/optimized/conv.h"
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/resize.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::optimized {

// Float weights (float outputs, and uint8 rounded by +0.5 and truncation).
template <class T>
void ResizeBilinearWeighted(ThreadPool* pool, const reference::ResizeParams& p, const Shape& in_shape, const T* input,
                            const Shape& out_shape, T* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const float height_scale = reference::ResizeScale(in_h, out_h, p.align_corners);
  const float width_scale = reference::ResizeScale(in_w, out_w, p.align_corners);
  std::vector<float> in_x(static_cast<size_t>(out_w));
  std::vector<int32_t> x0(static_cast<size_t>(out_w)), x1(static_cast<size_t>(out_w));
  for (int32_t x = 0; x < out_w; ++x) {
    reference::InterpolationPoints(x, width_scale, p.half_pixel_centers, in_w, &in_x[x], &x0[x], &x1[x]);
  }
  constexpr bool kInteger = !std::is_floating_point_v<T>;
  ResizeRowF32Fn row_f32 = nullptr;
  std::vector<float> dxs;
  if constexpr (!kInteger) {
    row_f32 = ActiveKernels().resize_row_f32;
    dxs.resize(static_cast<size_t>(out_w));
    for (int32_t x = 0; x < out_w; ++x) dxs[x] = in_x[x] - static_cast<float>(x0[x]);
  }
  ParallelRows(pool, static_cast<int64_t>(batches) * out_h, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int32_t b = static_cast<int32_t>(row / out_h), y = static_cast<int32_t>(row % out_h);
      float in_y = 0;
      int32_t y0 = 0, y1 = 0;
      reference::InterpolationPoints(y, height_scale, p.half_pixel_centers, in_h, &in_y, &y0, &y1);
      const float dy = in_y - static_cast<float>(y0);
      const T* row0 = input + reference::NhwcOffset(in_shape, b, y0, 0);
      const T* row1 = input + reference::NhwcOffset(in_shape, b, y1, 0);
      T* out = output + row * out_w * depth;
      if constexpr (!kInteger) {
        if (row_f32 != nullptr) {
          row_f32(row0, row1, depth, dy, dxs.data(), x0.data(), x1.data(), out_w, out);
          continue;
        }
      }
      for (int32_t x = 0; x < out_w; ++x, out += depth) {
        const float dx = in_x[x] - static_cast<float>(x0[x]);
        const float w0 = (1 - dy) * (1 - dx), w1 = (1 - dy) * dx, w2 = dy * (1 - dx), w3 = dy * dx;
        const T* c0 = row0 + static_cast<int64_t>(x0[x]) * depth;
        const T* c1 = row0 + static_cast<int64_t>(x1[x]) * depth;
        const T* c2 = row1 + static_cast<int64_t>(x0[x]) * depth;
        const T* c3 = row1 + static_cast<int64_t>(x1[x]) * depth;
        for (int32_t c = 0; c < depth; ++c) {
          if constexpr (kInteger) {
            out[c] = static_cast<T>(c0[c] * w0 + c1[c] * w1 + c2[c] * w2 + c3[c] * w3 + 0.5f);
          } else {
            float acc = 0.0f;
            acc += c0[c] * w0;
            acc += c1[c] * w1;
            acc += c2[c] * w2;
            acc += c3[c] * w3;
            out[c] = acc;
          }
        }
      }
    }
  });
}

// Exact 2x upsampling (float, neither flag), one input row (two output rows) per step.
inline void ResizeBilinear2x(ThreadPool* pool, const Shape& in_shape, const float* input, const Shape& out_shape,
                             float* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int64_t right = depth, down = static_cast<int64_t>(depth) * out_shape[2];
  ParallelRows(pool, static_cast<int64_t>(batches) * in_h, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int32_t b = static_cast<int32_t>(row / in_h), y0 = static_cast<int32_t>(row % in_h);
      const int32_t y1 = std::min(y0 + 1, in_h - 1);
      for (int32_t x0 = 0; x0 < in_w; ++x0) {
        const int32_t x1 = std::min(x0 + 1, in_w - 1);
        const float* p00 = input + reference::NhwcOffset(in_shape, b, y0, x0);
        const float* p01 = input + reference::NhwcOffset(in_shape, b, y0, x1);
        const float* p10 = input + reference::NhwcOffset(in_shape, b, y1, x0);
        const float* p11 = input + reference::NhwcOffset(in_shape, b, y1, x1);
        float* out = output + reference::NhwcOffset(out_shape, b, 2 * y0, 2 * x0);
        for (int32_t c = 0; c < depth; ++c) {
          out[c] = p00[c];
          out[right + c] = (p00[c] + p01[c]) / 2;
          const float bottom_left = (p00[c] + p10[c]) / 2;
          out[down + c] = bottom_left;
          out[down + right + c] = (bottom_left + ((p01[c] + p11[c]) / 2)) / 2;
        }
      }
    }
  });
}

inline void ResizeBilinearFloat(ThreadPool* pool, const reference::ResizeParams& p, const Shape& in_shape,
                                const float* input, const Shape& out_shape, float* output) {
  if (!p.align_corners && !p.half_pixel_centers && out_shape[1] == 2 * in_shape[1] &&
      out_shape[2] == 2 * in_shape[2]) {
    ResizeBilinear2x(pool, in_shape, input, out_shape, output);
  } else {
    ResizeBilinearWeighted<float>(pool, p, in_shape, input, out_shape, output);
  }
}

// 10-bit fixed-point weights (int8, int16).
template <class T>
void ResizeBilinearInteger(ThreadPool* pool, const reference::ResizeParams& p, const Shape& in_shape, const T* input,
                           const Shape& out_shape, T* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const int64_t height_scale = reference::ResizeScaleQ10(in_h, out_h, p.align_corners);
  const int64_t width_scale = reference::ResizeScaleQ10(in_w, out_w, p.align_corners);
  constexpr int64_t kOne = 1 << 10;
  std::vector<int64_t> dxs(static_cast<size_t>(out_w));
  std::vector<int32_t> x0(static_cast<size_t>(out_w)), x1(static_cast<size_t>(out_w));
  for (int32_t x = 0; x < out_w; ++x) {
    int64_t in_x = 0;
    reference::InterpolationPointsQ10(x, width_scale, p.half_pixel_centers, in_w, &in_x, &x0[x], &x1[x]);
    dxs[x] = in_x - kOne * x0[x];
  }
  ParallelRows(pool, static_cast<int64_t>(batches) * out_h, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int32_t b = static_cast<int32_t>(row / out_h), y = static_cast<int32_t>(row % out_h);
      int64_t in_y = 0;
      int32_t y0 = 0, y1 = 0;
      reference::InterpolationPointsQ10(y, height_scale, p.half_pixel_centers, in_h, &in_y, &y0, &y1);
      const int64_t dy = in_y - kOne * y0;
      T* out = output + row * out_w * depth;
      for (int32_t x = 0; x < out_w; ++x, out += depth) {
        const int64_t dx = dxs[x];
        const T* p00 = input + reference::NhwcOffset(in_shape, b, y0, x0[x]);
        const T* p01 = input + reference::NhwcOffset(in_shape, b, y0, x1[x]);
        const T* p10 = input + reference::NhwcOffset(in_shape, b, y1, x0[x]);
        const T* p11 = input + reference::NhwcOffset(in_shape, b, y1, x1[x]);
        const int64_t w00 = (kOne - dy) * (kOne - dx), w10 = dy * (kOne - dx), w01 = (kOne - dy) * dx, w11 = dy * dx;
        for (int32_t c = 0; c < depth; ++c) {
          const int64_t sum = p00[c] * w00 + p10[c] * w10 + p01[c] * w01 + p11[c] * w11;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          out[c] = static_cast<T>((sum + round) / (1 << 20));
        }
      }
    }
  });
}

// One output row of XNNPACK's 8-bit bilinear resize (quant::xnn::ResizeBilinear8Row) on the
// CPU's vector unit. Built without one, the compiler sees only SSE2, which has no 32-bit
// multiply: the scalar row took 4.7 ms for DeepLab's [1,65,65,21] -> [1,513,513,21].
template <class T>
void ResizeBilinear8Row(const T* input, int32_t in_w, int32_t channels, const quant::xnn::BilinearTap& y,
                        const std::vector<quant::xnn::BilinearTap>& xs, T* output) {
  static_assert(sizeof(quant::xnn::BilinearTap) == 3 * sizeof(int32_t), "taps are read as (lo, hi, weight)");
  const IsaKernels& kernels = ActiveKernels();
  const ResizeRow8Fn row = std::is_same_v<T, uint8_t> ? kernels.resize_row_u8 : kernels.resize_row_i8;
  if (row == nullptr) {
    quant::xnn::ResizeBilinear8Row(input, in_w, channels, y, xs, output);
    return;
  }
  const int64_t row_size = static_cast<int64_t>(in_w) * channels;
  row(input + y.lo * row_size, input + y.hi * row_size, channels, y.weight,
      reinterpret_cast<const int32_t*>(xs.data()), static_cast<int32_t>(xs.size()), output);
}

}  // namespace edgerun::optimized
