// 2-D pooling over NHWC with TFLite's edge rules: windows are clipped to the input, and an
// average (or L2 mean) divides by the number of input elements actually covered.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "edgerun/tensor.h"

namespace edgerun::reference {

struct PoolParams {
  int stride_h = 1, stride_w = 1;
  int filter_h = 1, filter_w = 1;
  int pad_h = 0, pad_w = 0;
  float act_min = -3.4e38f, act_max = 3.4e38f;   // float outputs
  int32_t quant_min = 0, quant_max = 0;          // quantized outputs
};

// Calls reduce(output_index, count, for_each_cell) for every output element; for_each_cell(fn)
// calls fn on each of the `count` input values its window covers. One loop nest for all kinds.
template <class T, class Reduce>
void PoolWindows(const PoolParams& p, const Shape& in_shape, const T* input, const Shape& out_shape, Reduce reduce) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  for (int b = 0; b < batches; ++b) {
    for (int oy = 0; oy < out_h; ++oy) {
      for (int ox = 0; ox < out_w; ++ox) {
        const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        const int fy0 = std::max(0, -y0), fy1 = std::min(p.filter_h, in_h - y0);
        const int fx0 = std::max(0, -x0), fx1 = std::min(p.filter_w, in_w - x0);
        const int64_t out_base = ((static_cast<int64_t>(b) * out_h + oy) * out_w + ox) * depth;
        for (int c = 0; c < depth; ++c) {
          // The covered cells of channel c, row by row.
          auto for_each_cell = [&](auto&& fn) {
            for (int fy = fy0; fy < fy1; ++fy) {
              for (int fx = fx0; fx < fx1; ++fx) {
                fn(input[((static_cast<int64_t>(b) * in_h + y0 + fy) * in_w + x0 + fx) * depth + c]);
              }
            }
          };
          const int count = std::max(0, fy1 - fy0) * std::max(0, fx1 - fx0);
          reduce(out_base + c, count, for_each_cell);
        }
      }
    }
  }
}

// Float MAX (kMax) or AVERAGE pooling, then the fused activation clamp.
template <bool kMax>
void Pool2D(const PoolParams& p, const Shape& in_shape, const float* input, const Shape& out_shape, float* output) {
  PoolWindows(p, in_shape, input, out_shape, [&](int64_t o, int count, auto&& for_each_cell) {
    float acc = kMax ? std::numeric_limits<float>::lowest() : 0.0f;
    for_each_cell([&](float v) { acc = kMax ? std::max(acc, v) : acc + v; });
    if (!kMax) acc = count > 0 ? acc / static_cast<float>(count) : 0.0f;
    output[o] = std::min(std::max(acc, p.act_min), p.act_max);
  });
}

// sqrt(mean of squares) over each window (L2_POOL_2D), then the activation clamp.
inline void L2Pool2D(const PoolParams& p, const Shape& in_shape, const float* input, const Shape& out_shape,
                     float* output) {
  PoolWindows(p, in_shape, input, out_shape, [&](int64_t o, int count, auto&& for_each_cell) {
    float sum = 0.0f;
    for_each_cell([&](float v) { sum += v * v; });
    const float l2 = count > 0 ? std::sqrt(sum * (1.0f / static_cast<float>(count))) : 0.0f;
    output[o] = std::min(std::max(l2, p.act_min), p.act_max);
  });
}

// Quantized AVERAGE pooling: integer sum divided by the count, rounding half away from zero;
// input and output share scale and zero point. Returns false when a window covers no cell
// (TFLite fails the op then).
template <class T>
bool AveragePoolQuantized(const PoolParams& p, const Shape& in_shape, const T* input, const Shape& out_shape,
                          T* output) {
  bool ok = true;
  PoolWindows(p, in_shape, input, out_shape, [&](int64_t o, int count, auto&& for_each_cell) {
    if (count == 0) {
      ok = false;
      output[o] = 0;
      return;
    }
    int64_t acc = 0;  // int32 in TFLite; 64 bits keep huge int16 windows from overflowing
    for_each_cell([&](T v) { acc += v; });
    const int64_t average = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
    output[o] = static_cast<T>(std::clamp<int64_t>(average, p.quant_min, p.quant_max));
  });
  return ok;
}

// Quantized MAX pooling, then the activation clamp.
template <class T>
void MaxPoolQuantized(const PoolParams& p, const Shape& in_shape, const T* input, const Shape& out_shape, T* output) {
  PoolWindows(p, in_shape, input, out_shape, [&](int64_t o, int, auto&& for_each_cell) {
    int32_t acc = std::numeric_limits<T>::min();
    for_each_cell([&](T v) { acc = std::max<int32_t>(acc, v); });
    output[o] = static_cast<T>(std::clamp(acc, p.quant_min, p.quant_max));
  });
}

}  // namespace edgerun::reference
