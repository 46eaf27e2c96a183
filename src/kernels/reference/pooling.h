// 2-D pooling over NHWC, float reference versions with TFLite's edge rules: windows are clipped
// to the input and an average divides by the number of input elements actually covered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "edgerun/tensor.h"

namespace edgerun::reference {

struct PoolParams {
  int stride_h = 1, stride_w = 1;
  int filter_h = 1, filter_w = 1;
  int pad_h = 0, pad_w = 0;
  float act_min = -3.4e38f, act_max = 3.4e38f;
};

template <bool kMax>
void Pool2D(const PoolParams& p, const Shape& in_shape, const float* input, const Shape& out_shape, float* output) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  for (int b = 0; b < batches; ++b) {
    for (int oy = 0; oy < out_h; ++oy) {
      for (int ox = 0; ox < out_w; ++ox) {
        const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        const int fy0 = std::max(0, -y0), fy1 = std::min(p.filter_h, in_h - y0);
        const int fx0 = std::max(0, -x0), fx1 = std::min(p.filter_w, in_w - x0);
        float* out = output + ((static_cast<int64_t>(b) * out_h + oy) * out_w + ox) * depth;
        for (int c = 0; c < depth; ++c) {
          float acc = kMax ? std::numeric_limits<float>::lowest() : 0.0f;
          int count = 0;
          for (int fy = fy0; fy < fy1; ++fy) {
            for (int fx = fx0; fx < fx1; ++fx) {
              const float v = input[((static_cast<int64_t>(b) * in_h + y0 + fy) * in_w + x0 + fx) * depth + c];
              acc = kMax ? std::max(acc, v) : acc + v;
              ++count;
            }
          }
          if (!kMax) acc = count > 0 ? acc / static_cast<float>(count) : 0.0f;
          out[c] = std::min(std::max(acc, p.act_min), p.act_max);
        }
      }
    }
  }
}

}  // namespace edgerun::reference
