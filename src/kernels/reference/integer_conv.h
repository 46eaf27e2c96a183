// Integer convolutions and matrix products, one image or one row at a time. They sum integer
// products and hand each sum to an `emit(channel, sum)` functor that turns it into the output
// value: a requantizer for quantized outputs (below), a float scale for hybrid kernels. Products
// are summed in the accumulator type of the kernel being matched:
//   - int32 (8-bit activations, and 16-bit ones with int32 bias): wraps on overflow as it does on
//     TFLite's targets; it is summed as uint32 so that the wrap is defined in C++.
//   - int64 (16-bit activations with int64 bias): summed as uint64, so that a crafted bias wraps
//     instead of overflowing (undefined in C++).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/reference/conv.h"
#include "quant/fixed_point.h"

namespace edgerun::reference {

// The type a sum of products is kept in while summing (see above).
template <class Acc>
using AccSum = std::conditional_t<std::is_same_v<Acc, int32_t>, uint32_t, uint64_t>;

// Sizes of one image of a 2-D convolution (NHWC without N).
struct ConvDims {
  int in_h = 0, in_w = 0, in_c = 0;
  int k_h = 0, k_w = 0;
  int out_h = 0, out_w = 0, out_c = 0;
};

// TFLite's fixed-point requantization: acc (+ bias) -> MultiplyByQuantizedMultiplier per output
// channel -> + output zero point -> clamp to the activation range.
struct Requantization {
  const int32_t* multiplier = nullptr;  // one per output channel
  const int* shift = nullptr;
  int32_t output_offset = 0;  // output zero point
  int32_t act_min = 0, act_max = 0;
};

template <class Acc, class Bias, class Out>
struct Requantizer {
  Requantization q;
  const Bias* bias;  // null when the op has none
  Out operator()(int channel, AccSum<Acc> sum) const {
    if (bias) sum += static_cast<AccSum<Acc>>(bias[channel]);
    const Acc acc = static_cast<Acc>(sum);
    const int32_t scaled = quant::MultiplyByQuantizedMultiplier(acc, q.multiplier[channel], q.shift[channel]);
    // int32 addition that wraps like TFLite's, then the clamp.
    const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(q.output_offset));
    return static_cast<Out>(std::clamp(shifted, q.act_min, q.act_max));
  }
};

// XNNPACK's float ("fp32") requantization, which TFLite runs for 8-bit convolutions and fully
// connected layers: the int32 sum (+ bias) as float, times a float scale per output channel,
// clamped, rounded to nearest (ties to even) in float, plus the output zero point.
template <class Bias, class Out>
struct FloatRequantizer {
  const float* scale;  // input_scale * filter_scale / output_scale per output channel, in float
  int32_t output_offset;
  int32_t act_min, act_max;
  const Bias* bias;
  Out operator()(int channel, uint32_t sum) const {
    if (bias) sum += static_cast<uint32_t>(bias[channel]);
    float v = static_cast<float>(static_cast<int32_t>(sum)) * scale[channel];
    v = std::min(std::max(v, static_cast<float>(act_min - output_offset)), static_cast<float>(act_max - output_offset));
    return static_cast<Out>(static_cast<int32_t>(std::nearbyint(v)) + output_offset);
  }
};

// One image of CONV_2D: input [H,W,C] + input_offset, filter [O,KH,KW,C/groups] + filter_offset,
// output [OH,OW,O]. Grouped when C is a multiple of the filter's depth.
template <class Acc, class In, class Filter, class Out, class Emit>
void IntegerConv2D(const ConvParams& p, const ConvDims& d, int f_c, const In* input, int32_t input_offset,
                   const Filter* filter, int32_t filter_offset, Out* output, const Emit& emit) {
  const int groups = d.in_c / f_c;
  const int out_per_group = d.out_c / groups;
  for (int oy = 0; oy < d.out_h; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      Out* out = output + (static_cast<int64_t>(oy) * d.out_w + ox) * d.out_c;
      for (int oc = 0; oc < d.out_c; ++oc) {
        const int group = oc / out_per_group;
        AccSum<Acc> sum = 0;
        for (int ky = 0; ky < d.k_h; ++ky) {
          const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
          if (iy < 0 || iy >= d.in_h) continue;
          for (int kx = 0; kx < d.k_w; ++kx) {
            const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
            if (ix < 0 || ix >= d.in_w) continue;
            const In* in = input + (static_cast<int64_t>(iy) * d.in_w + ix) * d.in_c + group * f_c;
            const Filter* f = filter + ((static_cast<int64_t>(oc) * d.k_h + ky) * d.k_w + kx) * f_c;
            for (int c = 0; c < f_c; ++c) {
              sum += static_cast<AccSum<Acc>>((f[c] + filter_offset) * (in[c] + input_offset));
            }
          }
        }
        out[oc] = emit(oc, sum);
      }
    }
  }
}

// One image of DEPTHWISE_CONV_2D: input [H,W,C], filter [1,KH,KW,C*M], output [OH,OW,C*M]; output
// channel o reads input channel o / M. `sums` is scratch for one output pixel.
template <class Acc, class In, class Filter, class Out, class Emit>
void IntegerDepthwiseConv2D(const ConvParams& p, const ConvDims& d, int depth_multiplier, const In* input,
                            int32_t input_offset, const Filter* filter, int32_t filter_offset, Out* output,
                            std::vector<AccSum<Acc>>& sums, const Emit& emit) {
  sums.resize(static_cast<size_t>(d.out_c));
  for (int oy = 0; oy < d.out_h; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      std::fill(sums.begin(), sums.end(), AccSum<Acc>{0});
      for (int ky = 0; ky < d.k_h; ++ky) {
        const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
        if (iy < 0 || iy >= d.in_h) continue;
        for (int kx = 0; kx < d.k_w; ++kx) {
          const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
          if (ix < 0 || ix >= d.in_w) continue;
          const In* in = input + (static_cast<int64_t>(iy) * d.in_w + ix) * d.in_c;
          const Filter* f = filter + (static_cast<int64_t>(ky) * d.k_w + kx) * d.out_c;
          for (int ic = 0, oc = 0; ic < d.in_c; ++ic) {
            const int32_t x = in[ic] + input_offset;
            for (int m = 0; m < depth_multiplier; ++m, ++oc) {
              sums[oc] += static_cast<AccSum<Acc>>((f[oc] + filter_offset) * x);
            }
          }
        }
      }
      Out* out = output + (static_cast<int64_t>(oy) * d.out_w + ox) * d.out_c;
      for (int oc = 0; oc < d.out_c; ++oc) out[oc] = emit(oc, sums[oc]);
    }
  }
}

// One image of TRANSPOSE_CONV: input [H,W,C], filter [O,KH,KW,C], output [OH,OW,O]. Input pixel
// (iy, ix) lands on output (iy * stride - pad + ky, ix * stride - pad + kx); each output sums
// the input pixels that land on it.
template <class Acc, class In, class Filter, class Out, class Emit>
void IntegerTransposeConv(const ConvParams& p, const ConvDims& d, const In* input, int32_t input_offset,
                          const Filter* filter, int32_t filter_offset, Out* output, const Emit& emit) {
  for (int oy = 0; oy < d.out_h; ++oy) {
    for (int ox = 0; ox < d.out_w; ++ox) {
      Out* out = output + (static_cast<int64_t>(oy) * d.out_w + ox) * d.out_c;
      for (int oc = 0; oc < d.out_c; ++oc) {
        AccSum<Acc> sum = 0;
        for (int ky = 0; ky < d.k_h; ++ky) {
          const int y = oy + p.pad_h - ky;
          if (y < 0 || y % p.stride_h != 0 || y / p.stride_h >= d.in_h) continue;
          const int iy = y / p.stride_h;
          for (int kx = 0; kx < d.k_w; ++kx) {
            const int x = ox + p.pad_w - kx;
            if (x < 0 || x % p.stride_w != 0 || x / p.stride_w >= d.in_w) continue;
            const int ix = x / p.stride_w;
            const In* in = input + (static_cast<int64_t>(iy) * d.in_w + ix) * d.in_c;
            const Filter* f = filter + ((static_cast<int64_t>(oc) * d.k_h + ky) * d.k_w + kx) * d.in_c;
            for (int c = 0; c < d.in_c; ++c) {
              sum += static_cast<AccSum<Acc>>((f[c] + filter_offset) * (in[c] + input_offset));
            }
          }
        }
        out[oc] = emit(oc, sum);
      }
    }
  }
}

// One row of FULLY_CONNECTED (and of BATCH_MATMUL with the right-hand side transposed):
// output[u] = emit(u, sum_d (weights[u][d] + weight_offset) * (input[d] + input_offset)).
template <class Acc, class In, class Weight, class Out, class Emit>
void IntegerMatVec(const In* input, int32_t input_offset, const Weight* weights, int32_t weight_offset, int depth,
                   int units, Out* output, const Emit& emit) {
  for (int u = 0; u < units; ++u) {
    const Weight* w = weights + static_cast<int64_t>(u) * depth;
    AccSum<Acc> sum = 0;
    for (int k = 0; k < depth; ++k) {
      sum += static_cast<AccSum<Acc>>((w[k] + weight_offset) * (input[k] + input_offset));
    }
    output[u] = emit(u, sum);
  }
}

}  // namespace edgerun::reference
