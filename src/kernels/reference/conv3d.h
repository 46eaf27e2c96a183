// 3-D convolutions, float: NDHWC activations, DHWIO filters (CONV_3D) and DHWOI filters
// (CONV_3D_TRANSPOSE), as TFLite lays them out.
#pragma once

#include <algorithm>
#include <cstdint>

#include "edgerun/tensor.h"

namespace edgerun::reference {

struct Conv3DParams {
  int stride[3] = {1, 1, 1};    // depth, height, width
  int dilation[3] = {1, 1, 1};
  int pad[3] = {0, 0, 0};       // padding before, per spatial dim
  float act_min = -3.4e38f, act_max = 3.4e38f;
};

// input [N,D,H,W,C], filter [KD,KH,KW,C,O], bias [O] or null, output [N,OD,OH,OW,O].
inline void Conv3D(const Conv3DParams& p, const Shape& in, const float* input, const Shape& f, const float* filter,
                   const float* bias, const Shape& out, float* output) {
  const int n = in[0], id = in[1], ih = in[2], iw = in[3], ic = in[4];
  const int kd = f[0], kh = f[1], kw = f[2], oc = f[4];
  const int od = out[1], oh = out[2], ow = out[3];
  for (int b = 0; b < n; ++b)
    for (int z = 0; z < od; ++z)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          float* o = output + (((static_cast<int64_t>(b) * od + z) * oh + y) * ow + x) * oc;
          for (int c = 0; c < oc; ++c) o[c] = 0.0f;
          for (int fz = 0; fz < kd; ++fz) {
            const int iz = z * p.stride[0] - p.pad[0] + fz * p.dilation[0];
            if (iz < 0 || iz >= id) continue;
            for (int fy = 0; fy < kh; ++fy) {
              const int iy = y * p.stride[1] - p.pad[1] + fy * p.dilation[1];
              if (iy < 0 || iy >= ih) continue;
              for (int fx = 0; fx < kw; ++fx) {
                const int ix = x * p.stride[2] - p.pad[2] + fx * p.dilation[2];
                if (ix < 0 || ix >= iw) continue;
                const float* src = input + (((static_cast<int64_t>(b) * id + iz) * ih + iy) * iw + ix) * ic;
                const float* w = filter + ((static_cast<int64_t>(fz) * kh + fy) * kw + fx) * ic * oc;
                for (int c = 0; c < ic; ++c) {
                  const float v = src[c];
                  const float* wr = w + static_cast<int64_t>(c) * oc;
                  for (int k = 0; k < oc; ++k) o[k] += v * wr[k];
                }
              }
            }
          }
          for (int c = 0; c < oc; ++c) o[c] = std::min(std::max(o[c] + (bias ? bias[c] : 0.0f), p.act_min), p.act_max);
        }
}

// input [N,D,H,W,C], filter [KD,KH,KW,O,C], bias [O] or null, output [N,OD,OH,OW,O]: every input
// element scatters into the output window it influences.
inline void Conv3DTranspose(const Conv3DParams& p, const Shape& in, const float* input, const Shape& f,
                            const float* filter, const float* bias, const Shape& out, float* output) {
  const int n = in[0], id = in[1], ih = in[2], iw = in[3], ic = in[4];
  const int kd = f[0], kh = f[1], kw = f[2], oc = f[3];
  const int od = out[1], oh = out[2], ow = out[3];
  const int64_t total = NumElements(out);
  std::fill_n(output, total, 0.0f);
  for (int b = 0; b < n; ++b)
    for (int z = 0; z < id; ++z)
      for (int y = 0; y < ih; ++y)
        for (int x = 0; x < iw; ++x) {
          const float* src = input + (((static_cast<int64_t>(b) * id + z) * ih + y) * iw + x) * ic;
          for (int fz = 0; fz < kd; ++fz) {
            const int tz = z * p.stride[0] - p.pad[0] + fz * p.dilation[0];
            if (tz < 0 || tz >= od) continue;
            for (int fy = 0; fy < kh; ++fy) {
              const int ty = y * p.stride[1] - p.pad[1] + fy * p.dilation[1];
              if (ty < 0 || ty >= oh) continue;
              for (int fx = 0; fx < kw; ++fx) {
                const int tx = x * p.stride[2] - p.pad[2] + fx * p.dilation[2];
                if (tx < 0 || tx >= ow) continue;
                float* o = output + (((static_cast<int64_t>(b) * od + tz) * oh + ty) * ow + tx) * oc;
                const float* w = filter + ((static_cast<int64_t>(fz) * kh + fy) * kw + fx) * oc * ic;
                for (int k = 0; k < oc; ++k) {
                  float sum = 0.0f;
                  for (int c = 0; c < ic; ++c) sum += src[c] * w[static_cast<int64_t>(k) * ic + c];
                  o[k] += sum;
                }
              }
            }
          }
        }
  for (int64_t i = 0; i < total; ++i) {
    output[i] = std::min(std::max(output[i] + (bias ? bias[i % oc] : 0.0f), p.act_min), p.act_max);
  }
}

}  // namespace edgerun::reference
