// TRANSPOSE_CONV in float: input [N,H,W,C], filter [O,KH,KW,C], output [N,OH,OW,O]. Input pixel
// (iy, ix) lands on output (iy * stride - pad + ky, ix * stride - pad + kx); every output sums the
// input pixels that land on it (a gather, so that the inner loop runs over contiguous channels).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/reference/integer_conv.h"

namespace edgerun::reference {

inline void TransposeConv(const ConvParams& p, const ConvDims& d, int batches, const float* input, const float* filter,
                          const float* bias, float* output) {
  for (int b = 0; b < batches; ++b) {
    const float* in_image = input + static_cast<int64_t>(b) * d.in_h * d.in_w * d.in_c;
    float* out_image = output + static_cast<int64_t>(b) * d.out_h * d.out_w * d.out_c;
    for (int oy = 0; oy < d.out_h; ++oy) {
      for (int ox = 0; ox < d.out_w; ++ox) {
        float* out = out_image + (static_cast<int64_t>(oy) * d.out_w + ox) * d.out_c;
        for (int oc = 0; oc < d.out_c; ++oc) {
          float sum = 0.0f;
          for (int ky = 0; ky < d.k_h; ++ky) {
            const int y = oy + p.pad_h - ky;
            if (y < 0 || y % p.stride_h != 0 || y / p.stride_h >= d.in_h) continue;
            for (int kx = 0; kx < d.k_w; ++kx) {
              const int x = ox + p.pad_w - kx;
              if (x < 0 || x % p.stride_w != 0 || x / p.stride_w >= d.in_w) continue;
              const float* in = in_image + (static_cast<int64_t>(y / p.stride_h) * d.in_w + x / p.stride_w) * d.in_c;
              const float* f = filter + ((static_cast<int64_t>(oc) * d.k_h + ky) * d.k_w + kx) * d.in_c;
              for (int c = 0; c < d.in_c; ++c) sum += in[c] * f[c];
            }
          }
          if (bias) sum += bias[oc];
          out[oc] = std::min(std::max(sum, p.act_min), p.act_max);
        }
      }
    }
  }
}

}  // namespace edgerun::reference
