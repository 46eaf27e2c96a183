// XNNPACK's 8-bit (uint8 / int8) arithmetic, as LiteRT's default CPU path computes it.
//
// LiteRT hands most 8-bit ops to its XNNPACK delegate, whose arithmetic differs from TFLite's
// builtin fixed-point kernels: float requantization rounded half to even, 8-bit multipliers,
// 21-bit ADD multipliers rounded half up, 11-bit bilinear weights, look-up tables computed from a
// float reference. These helpers reproduce it bit for bit (checked against LiteRT.js 2.5.3 with
// tools/oracle_check); ops use them in InterpreterOptions::int8_arithmetic == kLiteRtDefault
// mode. Each Prepare* returns false where the delegate leaves the node to TFLite's own kernel
// (scales out of XNNPACK's range), so the caller keeps TFLite's arithmetic there.
//
// Every formula assumes the default floating-point environment (round to nearest even).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace edgerun::quant::xnn {

// lrintf: nearest integer, ties to even. `x` must be within int32 range.
inline int32_t RoundToEven(float x) { return static_cast<int32_t>(std::nearbyint(x)); }

// Arithmetic shift right (floor division by 2^shift), on int64 so that no sum overflows.
inline int64_t FloorShift(int64_t x, int shift) { return x >> shift; }

inline int32_t Clamp(int64_t v, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, lo), hi));
}

// xnn_qs8_quantize / xnn_qu8_quantize: a float bound (activation clamp) in stored units, rounded
// half to even and clamped to [qmin, qmax]; +-infinity gives qmax / qmin.
inline int32_t QuantizeBound(float value, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const float q = value / scale + static_cast<float>(zero_point);
  return RoundToEven(std::min(std::max(q, static_cast<float>(qmin)), static_cast<float>(qmax)));
}

// ---- ADD / SUB (qs8-vadd / qu8-vadd)

// out = zo + ((bias + a * a_multiplier + b * b_multiplier) >> shift), clamped: the two ratios
// s_a / s_out and s_b / s_out (s_b negated for SUB) become multipliers with 20 bits under the
// larger one's leading bit, rounded half to even; `bias` folds in both zero points and the
// rounding (half up) of the shift.
struct AddParams {
  int32_t a_multiplier = 0, b_multiplier = 0;
  int64_t bias = 0;
  int shift = 0;
  int32_t output_zero_point = 0;
  int32_t min = 0, max = 0;  // clamp: type range and fused activation
};

// False when the delegate refuses the node: an input / output scale ratio outside
// [1/1024, 256).
bool PrepareAdd(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float output_scale,
                int32_t output_zero_point, bool subtract, int32_t min, int32_t max, AddParams* p);

inline int32_t Add(const AddParams& p, int32_t a, int32_t b) {
  const int64_t acc = p.bias + int64_t{a} * p.a_multiplier + int64_t{b} * p.b_multiplier;
  return Clamp(p.output_zero_point + FloorShift(acc, p.shift), p.min, p.max);
}

// ---- MUL (qs8-vmul / qu8-vmul, fp32 requantization)

// out = zo + round_half_even(float((a - za) * (b - zb)) * scale), clamped, with
// scale = (s_a * s_b) / s_out in float.
struct MulParams {
  float scale = 0;
  int32_t a_zero_point = 0, b_zero_point = 0, output_zero_point = 0;
  int32_t min = 0, max = 0;
};

// False when the delegate refuses the node: (s_a * s_b) / s_out outside [2^-16, 256).
bool PrepareMul(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float output_scale,
                int32_t output_zero_point, int32_t min, int32_t max, MulParams* p);

inline int32_t Mul(const MulParams& p, int32_t a, int32_t b) {
  const int32_t product = (a - p.a_zero_point) * (b - p.b_zero_point);
  float v = static_cast<float>(product) * p.scale;
  // Clamping in float first (as the kernel does) keeps the conversion in range.
  v = std::min(std::max(v, static_cast<float>(p.min - p.output_zero_point)),
               static_cast<float>(p.max - p.output_zero_point));
  return RoundToEven(v) + p.output_zero_point;
}

// ---- requantization with an 8-bit multiplier (qs8-vcvt, qs8-vlrelu)

// round(256 * ratio) half to even: the ratio in units of 1/256.
inline int32_t Multiplier8(float ratio) { return RoundToEven(256.0f * ratio); }

// zo + floor(((x - zi) * multiplier + 128) / 256): the rescaled value rounded half up.
inline int32_t Rescale8(int32_t centered, int32_t multiplier, int32_t output_zero_point) {
  return output_zero_point + static_cast<int32_t>(FloorShift(int64_t{centered} * multiplier + 128, 8));
}

// QUANTIZE between two tensors of the same 8-bit type.
struct RequantizeParams {
  int32_t input_zero_point = 0, output_zero_point = 0, multiplier = 0;
};
// False when the delegate refuses the node: s_in / s_out outside [1/256, 128].
bool PrepareRequantize(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                       RequantizeParams* p);
inline int32_t Requantize(const RequantizeParams& p, int32_t x, int32_t qmin, int32_t qmax) {
  return Clamp(Rescale8(x - p.input_zero_point, p.multiplier, p.output_zero_point), qmin, qmax);
}

// LEAKY_RELU: one multiplier above the input zero point (s_in / s_out), another below it
// (s_in / s_out * alpha, the product in float).
struct LeakyReluParams {
  int32_t input_zero_point = 0, output_zero_point = 0;
  int32_t positive_multiplier = 0, negative_multiplier = 0;
};
// False when the delegate refuses the node (alpha 0 or subnormal, ratios out of range).
bool PrepareLeakyRelu(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                      float alpha, LeakyReluParams* p);
inline int32_t LeakyRelu(const LeakyReluParams& p, int32_t x, int32_t qmin, int32_t qmax) {
  const int32_t multiplier = x > p.input_zero_point ? p.positive_multiplier : p.negative_multiplier;
  return Clamp(Rescale8(x - p.input_zero_point, multiplier, p.output_zero_point), qmin, qmax);
}

// ---- float <-> 8-bit (f32-qs8-vcvt, qs8-f32-vcvt)

// QUANTIZE float -> 8-bit: round_half_even(x * (1 / scale)) + zo, clamped (NaN gives qmin).
inline int32_t QuantizeFloat(float x, float inverse_scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  if (std::isnan(x)) return qmin;
  float v = x * inverse_scale;
  v = std::min(std::max(v, static_cast<float>(qmin - zero_point)), static_cast<float>(qmax - zero_point));
  return RoundToEven(v) + zero_point;
}

// ---- element-wise functions through a table (LOGISTIC, TANH, ELU on 8-bit)

// XNNPACK builds these tables from its float reference: x = (q - zi) * s_in in float, y = f(x),
// out = round_half_away(y * (1 / s_out) + zo), clamped (NaN gives 0). `table` is indexed by the
// stored byte (int8 values by their two's-complement byte).
template <class T>
void BuildLut(float (*f)(float), float input_scale, int32_t input_zero_point, float output_scale,
              int32_t output_zero_point, T table[256]) {
  const float inverse_scale = 1.0f / output_scale;
  for (int32_t q = std::numeric_limits<T>::min(); q <= std::numeric_limits<T>::max(); ++q) {
    const float x = (static_cast<float>(q) - static_cast<float>(input_zero_point)) * input_scale;
    float v = f(x) * inverse_scale + static_cast<float>(output_zero_point);
    v = std::isnan(v) ? 0.0f : std::round(v);
    v = std::min(std::max(v, static_cast<float>(std::numeric_limits<T>::min())),
                 static_cast<float>(std::numeric_limits<T>::max()));
    table[static_cast<uint8_t>(static_cast<T>(q))] = static_cast<T>(v);
  }
}

// XNNPACK's float references of the table functions.
float Sigmoid(float x);  // exp in double, 0 / 1 beyond +-100
float Tanh(float x);
float Elu(float x);      // alpha 1: expm1(x) below 0

// ---- RESIZE_BILINEAR (s8-ibilinear / u8-ibilinear)

// One output coordinate: the two input rows (or columns) and the weight of the second in 1/2048.
struct BilinearTap {
  int32_t lo = 0, hi = 0;
  int32_t weight = 0;
};
// Taps of every output coordinate along one axis, computed in float as XNNPACK does
// (align_corners, half_pixel_centers, or TensorFlow's legacy mapping).
std::vector<BilinearTap> BilinearTaps(int32_t input_size, int32_t output_size, bool align_corners,
                                      bool half_pixel_centers);

// Interpolates between the four neighbours with 11-bit weights, rounding half up at the end:
// ((top << 11 + (top_right - top_left) * wx) << 11 + (bottom - top) * wy + 2^21) >> 22.
inline int32_t Bilinear(int32_t top_left, int32_t top_right, int32_t bottom_left, int32_t bottom_right, int32_t wx,
                        int32_t wy) {
  const int64_t top = int64_t{top_left} * 2048 + int64_t{top_right - top_left} * wx;
  const int64_t bottom = int64_t{bottom_left} * 2048 + int64_t{bottom_right - bottom_left} * wx;
  const int64_t acc = top * 2048 + (bottom - top) * wy;
  return static_cast<int32_t>(FloorShift(acc + (int64_t{1} << 21), 22));
}

// One output row of an NHWC resize of 8-bit values: the same arithmetic as Bilinear, on int32
// (every intermediate stays below 2^31: each partial sum is at most 255 * 2^22), channel loops
// that the compiler vectorizes.
template <class T>
void ResizeBilinear8Row(const T* input, int32_t in_w, int32_t channels, const BilinearTap& y,
                        const std::vector<BilinearTap>& xs, T* output) {
  const T* top = input + static_cast<int64_t>(y.lo) * in_w * channels;
  const T* bottom = input + static_cast<int64_t>(y.hi) * in_w * channels;
  const int32_t wy = y.weight;
  for (const BilinearTap& x : xs) {
    const T* tl = top + static_cast<int64_t>(x.lo) * channels;
    const T* tr = top + static_cast<int64_t>(x.hi) * channels;
    const T* bl = bottom + static_cast<int64_t>(x.lo) * channels;
    const T* br = bottom + static_cast<int64_t>(x.hi) * channels;
    const int32_t wx = x.weight;
    for (int32_t c = 0; c < channels; ++c) {
      const int32_t t = int32_t{tl[c]} * 2048 + (int32_t{tr[c]} - int32_t{tl[c]}) * wx;
      const int32_t b = int32_t{bl[c]} * 2048 + (int32_t{br[c]} - int32_t{bl[c]}) * wx;
      output[c] = static_cast<T>((t * 2048 + (b - t) * wy + (int32_t{1} << 21)) >> 22);
    }
    output += channels;
  }
}

// ---- MEAN (qs8 / qu8 reduce)

// out = zo + round_half_even(float(sum - count * zi) * scale), clamped, with
// scale = s_in / (s_out * count) in float.
inline float MeanScale(float input_scale, float output_scale, int64_t count) {
  return input_scale / (output_scale * static_cast<float>(count));
}
inline int32_t Mean(int64_t centered_sum, float scale, int32_t output_zero_point, int32_t qmin, int32_t qmax) {
  float v = static_cast<float>(centered_sum) * scale;
  v = std::min(std::max(v, static_cast<float>(qmin - output_zero_point)),
               static_cast<float>(qmax - output_zero_point));
  return RoundToEven(v) + output_zero_point;
}

}  // namespace edgerun::quant::xnn
