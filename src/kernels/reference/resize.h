// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC, with TFLite's coordinate rules
// (align_corners, half_pixel_centers) and, per type, the arithmetic of TFLite's default kernel:
//   bilinear float: a special case for exact 2x upsampling, else the four weighted corners
//     accumulated in float; uint8: the same weights in float, +0.5 and truncation;
//     int8/int16: weights in 10-bit fixed point.
//   nearest: float index arithmetic; uint8 without either flag uses 16-bit fixed-point scales.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "edgerun/tensor.h"

namespace edgerun::reference {

struct ResizeParams {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// Input (float) coordinates per output unit.
inline float ResizeScale(int32_t in_size, int32_t out_size, bool align_corners) {
  if (align_corners && out_size > 1) return static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
  return static_cast<float>(in_size) / static_cast<float>(out_size);
}

// The source coordinate of output index `value` and the two neighbours around it.
inline void InterpolationPoints(int32_t value, float scale, bool half_pixel_centers, int32_t in_size, float* source,
                                int32_t* lower, int32_t* upper) {
  *source = half_pixel_centers ? (static_cast<float>(value) + 0.5f) * scale - 0.5f : static_cast<float>(value) * scale;
  // TFLite leaves the lower neighbour unclamped above; clamping only matters where it would read
  // past the input.
  *lower = std::min(std::max(static_cast<int32_t>(std::floor(*source)), 0), in_size - 1);
  *upper = std::min(static_cast<int32_t>(std::ceil(*source)), in_size - 1);
}

inline int64_t NhwcOffset(const Shape& s, int64_t b, int64_t y, int64_t x) {
  return ((b * s[1] + y) * s[2] + x) * s[3];
}

// Exact 2x upsampling without either flag: corners copied, midpoints averaged in pairs.
inline void ResizeBilinear2x(const Shape& in_shape, const float* input, const Shape& out_shape, float* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int64_t right = depth, down = static_cast<int64_t>(depth) * out_shape[2];
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t y0 = 0; y0 < in_h; ++y0) {
      const int32_t y1 = std::min(y0 + 1, in_h - 1);
      for (int32_t x0 = 0; x0 < in_w; ++x0) {
        const int32_t x1 = std::min(x0 + 1, in_w - 1);
        const float* p00 = input + NhwcOffset(in_shape, b, y0, x0);
        const float* p01 = input + NhwcOffset(in_shape, b, y0, x1);
        const float* p10 = input + NhwcOffset(in_shape, b, y1, x0);
        const float* p11 = input + NhwcOffset(in_shape, b, y1, x1);
        float* out = output + NhwcOffset(out_shape, b, 2 * y0, 2 * x0);
        for (int32_t c = 0; c < depth; ++c) {
          out[c] = p00[c];
          out[right + c] = (p00[c] + p01[c]) / 2;
          const float bottom_left = (p00[c] + p10[c]) / 2;
          out[down + c] = bottom_left;
          out[down + right + c] = (bottom_left + ((p01[c] + p11[c]) / 2)) / 2;
        }
      }
    }
  }
}

// Bilinear interpolation with float weights. For integer T the sum is rounded by adding 0.5 and
// truncating (TFLite's uint8 kernel).
template <class T>
void ResizeBilinearWeighted(const ResizeParams& p, const Shape& in_shape, const T* input, const Shape& out_shape,
                            T* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const float height_scale = ResizeScale(in_h, out_h, p.align_corners);
  const float width_scale = ResizeScale(in_w, out_w, p.align_corners);
  constexpr bool kInteger = !std::is_floating_point_v<T>;
  T* out = output;
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t y = 0; y < out_h; ++y) {
      float in_y = 0;
      int32_t y0 = 0, y1 = 0;
      InterpolationPoints(y, height_scale, p.half_pixel_centers, in_h, &in_y, &y0, &y1);
      for (int32_t x = 0; x < out_w; ++x) {
        float in_x = 0;
        int32_t x0 = 0, x1 = 0;
        InterpolationPoints(x, width_scale, p.half_pixel_centers, in_w, &in_x, &x0, &x1);
        const T* corner[4] = {input + NhwcOffset(in_shape, b, y0, x0), input + NhwcOffset(in_shape, b, y0, x1),
                              input + NhwcOffset(in_shape, b, y1, x0), input + NhwcOffset(in_shape, b, y1, x1)};
        const float dy = in_y - static_cast<float>(y0), dx = in_x - static_cast<float>(x0);
        const float weight[4] = {(1 - dy) * (1 - dx), (1 - dy) * dx, dy * (1 - dx), dy * dx};
        for (int32_t c = 0; c < depth; ++c) {
          if constexpr (kInteger) {
            out[c] = static_cast<T>(corner[0][c] * weight[0] + corner[1][c] * weight[1] + corner[2][c] * weight[2] +
                                    corner[3][c] * weight[3] + 0.5f);
          } else {
            // Accumulated one corner at a time, like TFLite's float kernel.
            float acc = 0.0f;
            for (int k = 0; k < 4; ++k) acc += corner[k][c] * weight[k];
            out[c] = acc;
          }
        }
        out += depth;
      }
    }
  }
}

inline void ResizeBilinearFloat(const ResizeParams& p, const Shape& in_shape, const float* input,
                                const Shape& out_shape, float* output) {
  if (!p.align_corners && !p.half_pixel_centers && out_shape[1] == 2 * in_shape[1] &&
      out_shape[2] == 2 * in_shape[2]) {
    ResizeBilinear2x(in_shape, input, out_shape, output);
  } else {
    ResizeBilinearWeighted<float>(p, in_shape, input, out_shape, output);
  }
}

// Source position in units of 1/1024 and its neighbours (TFLite's integer resize).
// Computed in 64 bits so that huge images cannot overflow.
inline void InterpolationPointsQ10(int64_t value, int64_t scale_q10, bool half_pixel_centers, int32_t in_size,
                                   int64_t* source, int32_t* lower, int32_t* upper) {
  *source = half_pixel_centers ? value * scale_q10 + scale_q10 / 2 - (1 << 9) : value * scale_q10;
  // The rounded-up scale can push the last source position past the input (e.g. 1 -> 55 pixels);
  // TFLite then reads out of bounds. Clamping keeps the read inside and, since the two
  // neighbours coincide there, the result is the edge pixel.
  *lower = static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(*source / (1 << 10), 0), in_size - 1));
  *upper = static_cast<int32_t>(std::min<int64_t>((*source + (1 << 10) - 1) / (1 << 10), in_size - 1));
}

inline int64_t ResizeScaleQ10(int64_t in_size, int64_t out_size, bool align_corners) {
  if (align_corners && out_size > 1) return ((1 << 10) * (in_size - 1) + (out_size - 1) / 2) / (out_size - 1);
  return ((1 << 10) * in_size + out_size / 2) / out_size;
}

// Bilinear interpolation with 10-bit fixed-point weights, the 20-bit products rounded half away
// from zero (int8 and int16).
template <class T>
void ResizeBilinearInteger(const ResizeParams& p, const Shape& in_shape, const T* input, const Shape& out_shape,
                           T* output) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const int64_t height_scale = ResizeScaleQ10(in_h, out_h, p.align_corners);
  const int64_t width_scale = ResizeScaleQ10(in_w, out_w, p.align_corners);
  constexpr int64_t kOne = 1 << 10;
  T* out = output;
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t y = 0; y < out_h; ++y) {
      int64_t in_y = 0;
      int32_t y0 = 0, y1 = 0;
      InterpolationPointsQ10(y, height_scale, p.half_pixel_centers, in_h, &in_y, &y0, &y1);
      const int64_t dy = in_y - kOne * y0;
      for (int32_t x = 0; x < out_w; ++x) {
        int64_t in_x = 0;
        int32_t x0 = 0, x1 = 0;
        InterpolationPointsQ10(x, width_scale, p.half_pixel_centers, in_w, &in_x, &x0, &x1);
        const int64_t dx = in_x - kOne * x0;
        const T* p00 = input + NhwcOffset(in_shape, b, y0, x0);
        const T* p01 = input + NhwcOffset(in_shape, b, y0, x1);
        const T* p10 = input + NhwcOffset(in_shape, b, y1, x0);
        const T* p11 = input + NhwcOffset(in_shape, b, y1, x1);
        for (int32_t c = 0; c < depth; ++c) {
          const int64_t sum = p00[c] * (kOne - dy) * (kOne - dx) + p10[c] * dy * (kOne - dx) +
                              p01[c] * (kOne - dy) * dx + p11[c] * dy * dx;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          out[c] = static_cast<T>((sum + round) / (1 << 20));
        }
        out += depth;
      }
    }
  }
}

// Nearest source index of output index `value` (TFLite's GetNearestNeighbor).
inline int32_t NearestIndex(int32_t value, int32_t in_size, int32_t out_size, bool align_corners,
                            bool half_pixel_centers) {
  const float scale = ResizeScale(in_size, out_size, align_corners);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float source = (static_cast<float>(value) + offset) * scale;
  int32_t index = align_corners ? static_cast<int32_t>(std::round(source)) : static_cast<int32_t>(std::floor(source));
  index = std::min(index, in_size - 1);
  if (half_pixel_centers) index = std::max(index, 0);
  return index;
}

// Copies whole pixels (depth * element_size bytes) from the nearest source pixel.
inline void ResizeNearestNeighbor(const ResizeParams& p, const Shape& in_shape, const void* input,
                                  const Shape& out_shape, void* output, size_t element_size) {
  const int32_t batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const size_t pixel_bytes = static_cast<size_t>(depth) * element_size;
  const uint8_t* in = static_cast<const uint8_t*>(input);
  uint8_t* out = static_cast<uint8_t*>(output);
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t y = 0; y < out_h; ++y) {
      const int32_t in_y = NearestIndex(y, in_h, out_h, p.align_corners, p.half_pixel_centers);
      for (int32_t x = 0; x < out_w; ++x) {
        const int32_t in_x = NearestIndex(x, in_w, out_w, p.align_corners, p.half_pixel_centers);
        std::memcpy(out, in + NhwcOffset(in_shape, b, in_y, in_x) * element_size, pixel_bytes);
        out += pixel_bytes;
      }
    }
  }
}

// uint8 without align_corners / half_pixel_centers: scales in 16-bit fixed point, plus one unit
// (TFLite's optimized kernel; it may pick a different pixel than the float rule at exact ties).
inline void ResizeNearestNeighborFixedPoint(const Shape& in_shape, const uint8_t* input, const Shape& out_shape,
                                            uint8_t* output) {
  const int32_t batches = in_shape[0], depth = in_shape[3];
  const int64_t in_h = in_shape[1], in_w = in_shape[2];
  const int32_t out_h = out_shape[1], out_w = out_shape[2];
  const int64_t height_scale = (in_h << 16) / out_h + 1;
  const int64_t width_scale = (in_w << 16) / out_w + 1;
  uint8_t* out = output;
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t y = 0; y < out_h; ++y) {
      const int64_t in_y = std::min((y * height_scale) >> 16, in_h - 1);
      for (int32_t x = 0; x < out_w; ++x) {
        const int64_t in_x = std::min((x * width_scale) >> 16, in_w - 1);
        std::memcpy(out, input + NhwcOffset(in_shape, b, in_y, in_x), static_cast<size_t>(depth));
        out += depth;
      }
    }
  }
}

}  // namespace edgerun::reference
