// Convolutions in NHWC with OHWI filters (TFLite's layouts), float reference versions.
#pragma once

#include <algorithm>
#include <cstdint>

#include "edgerun/tensor.h"

namespace edgerun::reference {

struct ConvParams {
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_h = 0, pad_w = 0;  // padding before (top, left)
  float act_min = -3.4e38f, act_max = 3.4e38f;
};

// input [N,H,W,C], filter [O,KH,KW,C/groups], bias [O] or null, output [N,OH,OW,O].
inline void Conv2D(const ConvParams& p, const Shape& in_shape, const float* input, const Shape& filter_shape,
                   const float* filter, const float* bias, const Shape& out_shape, float* output) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], in_c = in_shape[3];
  const int out_c = filter_shape[0], k_h = filter_shape[1], k_w = filter_shape[2], f_c = filter_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  const int groups = in_c / f_c;
  const int out_per_group = out_c / groups;
  for (int b = 0; b < batches; ++b) {
    for (int oy = 0; oy < out_h; ++oy) {
      for (int ox = 0; ox < out_w; ++ox) {
        float* out = output + ((static_cast<int64_t>(b) * out_h + oy) * out_w + ox) * out_c;
        for (int oc = 0; oc < out_c; ++oc) {
          const int group = oc / out_per_group;
          float sum = 0.0f;
          for (int ky = 0; ky < k_h; ++ky) {
            const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
            if (iy < 0 || iy >= in_h) continue;
            for (int kx = 0; kx < k_w; ++kx) {
              const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
              if (ix < 0 || ix >= in_w) continue;
              const float* in = input + ((static_cast<int64_t>(b) * in_h + iy) * in_w + ix) * in_c + group * f_c;
              const float* f = filter + ((static_cast<int64_t>(oc) * k_h + ky) * k_w + kx) * f_c;
              for (int c = 0; c < f_c; ++c) sum += in[c] * f[c];
            }
          }
          if (bias) sum += bias[oc];
          out[oc] = std::min(std::max(sum, p.act_min), p.act_max);
        }
      }
    }
  }
}

// input [N,H,W,C], filter [1,KH,KW,C*M], bias [C*M] or null, output [N,OH,OW,C*M].
inline void DepthwiseConv2D(const ConvParams& p, int depth_multiplier, const Shape& in_shape, const float* input,
                            const Shape& filter_shape, const float* filter, const float* bias,
                            const Shape& out_shape, float* output) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], in_c = in_shape[3];
  const int k_h = filter_shape[1], k_w = filter_shape[2];
  const int out_h = out_shape[1], out_w = out_shape[2], out_c = out_shape[3];
  for (int b = 0; b < batches; ++b) {
    for (int oy = 0; oy < out_h; ++oy) {
      for (int ox = 0; ox < out_w; ++ox) {
        float* out = output + ((static_cast<int64_t>(b) * out_h + oy) * out_w + ox) * out_c;
        for (int ic = 0; ic < in_c; ++ic) {
          for (int m = 0; m < depth_multiplier; ++m) {
            const int oc = ic * depth_multiplier + m;
            float sum = 0.0f;
            for (int ky = 0; ky < k_h; ++ky) {
              const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
              if (iy < 0 || iy >= in_h) continue;
              for (int kx = 0; kx < k_w; ++kx) {
                const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
                if (ix < 0 || ix >= in_w) continue;
                sum += input[((static_cast<int64_t>(b) * in_h + iy) * in_w + ix) * in_c + ic] *
                       filter[(static_cast<int64_t>(ky) * k_w + kx) * out_c + oc];
              }
            }
            if (bias) sum += bias[oc];
            out[oc] = std::min(std::max(sum, p.act_min), p.act_max);
          }
        }
      }
    }
  }
}

// input [batches, depth] (row-major), weights [units, depth], bias [units] or null.
inline void FullyConnected(float act_min, float act_max, int64_t batches, int depth, int units, const float* input,
                           const float* weights, const float* bias, float* output) {
  for (int64_t b = 0; b < batches; ++b) {
    const float* in = input + b * depth;
    for (int u = 0; u < units; ++u) {
      const float* w = weights + static_cast<int64_t>(u) * depth;
      float sum = 0.0f;
      for (int d = 0; d < depth; ++d) sum += in[d] * w[d];
      if (bias) sum += bias[u];
      output[b * units + u] = std::min(std::max(sum, act_min), act_max);
    }
  }
}

}  // namespace edgerun::reference
