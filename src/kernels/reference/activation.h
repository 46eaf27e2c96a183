// Activation, softmax and normalization kernels on raw pointers, float and quantized, each
// computing what TFLite's default (optimized) CPU kernel computes for that type.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "quant/fixed_point.h"
#include "quant/gemmlowp_fixed_point.h"
#include "quant/lut.h"
#include "quant/sigmoid_table.h"

namespace edgerun::reference {

// float -> int32 without the undefined behaviour of an out-of-range conversion (extreme scales):
// saturates, NaN becomes 0. In range it truncates like static_cast.
inline int32_t SaturatingFloatToInt32(float v) {
  if (!(v == v)) return 0;
  if (v >= 2147483520.0f) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

// ---- softmax family; every function works on `rows` rows of `depth` contiguous values.

// exp((x - max) * beta) / sum, normalized by multiplying with 1 / sum.
inline void SoftmaxFloat(const float* in, float* out, int64_t rows, int64_t depth, float beta) {
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    float max = in[0];
    for (int64_t i = 1; i < depth; ++i) max = std::max(max, in[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < depth; ++i) {
      out[i] = std::exp((in[i] - max) * beta);
      sum += out[i];
    }
    const float inverse_sum = 1.0f / sum;
    for (int64_t i = 0; i < depth; ++i) out[i] *= inverse_sum;
  }
}

// table[255 - d] = exp(-d * input_scale * beta) for d = 0..255: the exponential of every possible
// distance of an 8-bit input below its row maximum.
inline void PopulateSoftmaxExpTable(float input_scale, float beta, float* table) {
  const float scale = -input_scale * beta;
  for (int32_t d = 0; d <= 255; ++d) table[255 - d] = std::exp(scale * static_cast<float>(d));
}

// 8-bit softmax through the exp table, in float (TFLite's optimized uint8/int8 kernel).
// uint8 output rounds by adding 0.5 and truncating; other outputs round half away from zero.
template <class In, class Out>
void SoftmaxQuantized8(const float* table, float output_scale, int32_t output_zero_point, const In* in, Out* out,
                       int64_t rows, int64_t depth) {
  constexpr int32_t kOutMin = std::numeric_limits<Out>::min();
  constexpr int32_t kOutMax = std::numeric_limits<Out>::max();
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    int32_t max = std::numeric_limits<In>::min();
    for (int64_t i = 0; i < depth; ++i) max = std::max(max, static_cast<int32_t>(in[i]));
    // table_at[x] = exp((x - max) * scale * beta)
    const float* table_at = table + 255 - max;
    float sum = 0.0f;
    for (int64_t i = 0; i < depth; ++i) sum += table_at[in[i]];
    const float inverse_sum = 1.0f / (sum * output_scale);
    for (int64_t i = 0; i < depth; ++i) {
      const float probability = table_at[in[i]] * inverse_sum;
      int64_t q = 0;
      if constexpr (std::is_same_v<Out, uint8_t>) {
        q = SaturatingFloatToInt32(probability + 0.5f);
      } else {
        q = int64_t{SaturatingFloatToInt32(std::round(probability))} + output_zero_point;
      }
      out[i] = static_cast<Out>(std::clamp<int64_t>(q, kOutMin, kOutMax));
    }
  }
}

// The tables and input rescaling of the int16 softmax: exp over [-10, 0] and 1 / (1 + x) over
// [0, 1], both 513-entry int16 tables with a symmetric [-1, 1] output.
struct SoftmaxInt16Params {
  int16_t exp_lut[quant::kLut16Size];
  int16_t one_over_one_plus_x_lut[quant::kLut16Size];
  int32_t input_multiplier = 0;  // input difference -> [-65535, 0] standing for [-10, 0]
  int input_shift = 0;
};

// input_scale_times_beta is a float product, as in TFLite.
inline void PrepareSoftmaxInt16(float input_scale_times_beta, SoftmaxInt16Params* p) {
  constexpr double kRange = 65535.0;
  quant::PopulateLut16<double>(10.0 / kRange, 32767, 2.0 / kRange, 0, [](double x) { return std::exp(x); }, p->exp_lut);
  quant::PopulateLut16<double>(1.0 / kRange, -32768, 2.0 / kRange, 0, [](double x) { return 1.0 / (1.0 + x); },
                               p->one_over_one_plus_x_lut);
  quant::QuantizeMultiplier(static_cast<double>(input_scale_times_beta) / (10.0 / kRange), &p->input_multiplier,
                           &p->input_shift);
}

inline void SoftmaxInt16(const SoftmaxInt16Params& p, const int16_t* in, int16_t* out, int64_t rows, int64_t depth) {
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    int16_t max = std::numeric_limits<int16_t>::min();
    for (int64_t i = 0; i < depth; ++i) max = std::max(max, in[i]);
    // exp(x - max) in Q0.15, kept in the output row until the sum is known.
    uint32_t sum = 0;
    for (int64_t i = 0; i < depth; ++i) {
      const int32_t diff = in[i] - max;
      const int32_t scaled = quant::MultiplyByQuantizedMultiplier(diff, p.input_multiplier, p.input_shift);
      const int32_t centered = std::clamp(scaled + 32767, -32768, 32767);
      out[i] = quant::LookupLut16(static_cast<int16_t>(centered), p.exp_lut);
      sum += static_cast<uint32_t>(static_cast<int32_t>(out[i]));
    }
    const int32_t sum_of_exps = static_cast<int32_t>(sum);
    // 1 / sum through the 1 / (1 + x) table: normalize the sum into [1, 2), take x = sum - 1.
    const int headroom_plus_one = sum_of_exps == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(sum_of_exps));
    const int32_t shifted_sum =
        static_cast<int32_t>(((static_cast<int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t centered_sum = std::clamp(shifted_sum - ((1 << 15) + (1 << 16)), -32768, 32767);
    const int16_t reciprocal = quant::LookupLut16(static_cast<int16_t>(centered_sum), p.one_over_one_plus_x_lut);
    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = right_shift > 0 ? int64_t{1} << (right_shift - 1) : 0;
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t product = static_cast<int64_t>(out[i]) * reciprocal + round;
      const int32_t result = static_cast<int32_t>(right_shift > 0 ? product >> right_shift : product);
      out[i] = static_cast<int16_t>(std::clamp(result, 0, 32767));
    }
  }
}

// (x - max) - log(sum(exp(x - max))).
inline void LogSoftmaxFloat(const float* in, float* out, int64_t rows, int64_t depth) {
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    float max = in[0];
    for (int64_t i = 1; i < depth; ++i) max = std::max(max, in[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < depth; ++i) sum += std::exp(in[i] - max);
    const float log_sum = std::log(sum);
    for (int64_t i = 0; i < depth; ++i) out[i] = in[i] - max - log_sum;
  }
}

// 8-bit log-softmax through the exp table (built with beta 1), in float, rounding to nearest even.
template <class T>
void LogSoftmaxQuantized8(const float* table, float input_scale, float output_scale, int32_t output_zero_point,
                          const T* in, T* out, int64_t rows, int64_t depth) {
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    T max = std::numeric_limits<T>::min();
    for (int64_t i = 0; i < depth; ++i) max = std::max(max, in[i]);
    const float* table_at = table + 255 - max;
    float sum = 0.0f;
    for (int64_t i = 0; i < depth; ++i) sum += table_at[in[i]];
    const float log_sum = std::log(sum);
    const float scale = input_scale / output_scale;
    const float offset = (input_scale * static_cast<float>(max) + log_sum) / output_scale;
    for (int64_t i = 0; i < depth; ++i) {
      const float log_probability = scale * static_cast<float>(in[i]) - offset;
      const int64_t q = int64_t{SaturatingFloatToInt32(std::rint(log_probability))} + output_zero_point;
      out[i] = static_cast<T>(std::clamp<int64_t>(q, kMin, kMax));
    }
  }
}

// ---- int16 LOGISTIC and TANH

// Inputs in Q3.12 (scale 2^-12), outputs in Q0.15: gemmlowp's fixed-point functions. TANH also
// takes Q4.11 inputs (scale 2^-11), doubled with saturation first (double_input).
inline void LogisticInt16Pot(const int16_t* in, int16_t* out, int64_t n) {
  using F3 = quant::fp::FixedPoint<int16_t, 3>;
  for (int64_t i = 0; i < n; ++i) out[i] = quant::fp::Logistic(F3::FromRaw(in[i])).raw;
}
inline void TanhInt16Pot(const int16_t* in, int16_t* out, int64_t n, bool double_input) {
  using F3 = quant::fp::FixedPoint<int16_t, 3>;
  for (int64_t i = 0; i < n; ++i) {
    const int16_t x = double_input ? quant::fp::SaturatingRoundingMultiplyByPOT<1>(in[i]) : in[i];
    out[i] = quant::fp::Tanh(F3::FromRaw(x)).raw;
  }
}

// Other scales: the input is rescaled by multiplier / 2^shift to units of 1/(3 * 4096) (TFLite's
// int16 prepare computes both), then the sigmoid table is interpolated. multiplier 0 means a
// power-of-two scale whose shift alone is applied (3 << shift).
inline int32_t RescaleForSigmoidTable(int16_t x, int32_t multiplier, int shift) {
  if (multiplier == 0) {
    multiplier = 3 << shift;
    shift = 0;
  }
  const int32_t round = shift > 0 ? int32_t{1} << (shift - 1) : 0;
  return (static_cast<int32_t>(x) * multiplier + round) >> shift;
}

inline void LogisticInt16Lut(int32_t multiplier, int shift, const int16_t* in, int16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = RescaleForSigmoidTable(in[i], multiplier, shift);
    const uint32_t magnitude = static_cast<uint32_t>(std::abs(x));
    const uint32_t index = magnitude >> 9;
    uint32_t result = 0;
    if (index >= 255) {
      result = 0x7FFFu << 10;
    } else {
      const uint32_t a = quant::kSigmoidTableQ16[index];
      const uint32_t b = quant::kSigmoidTableQ16[index + 1];
      result = (a << 9) + (magnitude & 0x1ff) * (b - a);
    }
    // logistic(-x) = 1 - logistic(x).
    result = x >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
    out[i] = static_cast<int16_t>(result >> 10);
  }
}

inline void TanhInt16Lut(int32_t multiplier, int shift, const int16_t* in, int16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = RescaleForSigmoidTable(in[i], multiplier, shift);
    const uint32_t magnitude = static_cast<uint32_t>(std::abs(x));
    const uint32_t index = magnitude >> 8;
    int32_t result = 0;
    if (index >= 255) {
      result = 0xFFFF << 8;
    } else {
      const uint32_t a = quant::kSigmoidTableQ16[index];
      const uint32_t b = quant::kSigmoidTableQ16[index + 1];
      result = static_cast<int32_t>((a << 8) + (magnitude & 0xff) * (b - a));
    }
    // tanh(x) = 2 * sigmoid(2x) - 1, odd in x.
    result = x >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    out[i] = static_cast<int16_t>(result >> 8);
  }
}

// ---- quantized element-wise activations

// Requantize to the output scale, then clamp (TFLite's ReluX for RELU, RELU6, RELU_N1_TO_1 ...).
template <class T>
void QuantizedClamp(const T* in, T* out, int64_t n, int32_t input_zero_point, int32_t output_zero_point,
                    int32_t multiplier, int shift, int32_t act_min, int32_t act_max) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = output_zero_point + quant::MultiplyByQuantizedMultiplier(
                                              static_cast<int32_t>(in[i]) - input_zero_point, multiplier, shift);
    out[i] = static_cast<T>(std::clamp(v, act_min, act_max));
  }
}

// x >= 0 rescaled by `identity`, x < 0 by `alpha` (whose multiplier may be negative).
struct LeakyReluQuantParams {
  int32_t input_zero_point = 0, output_zero_point = 0;
  int32_t identity_multiplier = 0, alpha_multiplier = 0;
  int identity_shift = 0, alpha_shift = 0;
};

// TFLite's 8-bit kernel multiplies by |alpha multiplier| and negates afterwards; its int16 kernel
// multiplies by the signed multiplier directly. The two round ties differently, hence the split.
template <class T>
void QuantizedLeakyRelu(const LeakyReluQuantParams& p, const T* in, T* out, int64_t n) {
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  constexpr bool kSplitSign = sizeof(T) == 1;
  const bool negate = kSplitSign && p.alpha_multiplier < 0;
  const int32_t alpha_multiplier = negate ? -p.alpha_multiplier : p.alpha_multiplier;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = static_cast<int32_t>(in[i]) - p.input_zero_point;
    int32_t v = p.output_zero_point;
    if (x >= 0) {
      v += quant::MultiplyByQuantizedMultiplier(x, p.identity_multiplier, p.identity_shift);
    } else {
      const int32_t scaled = quant::MultiplyByQuantizedMultiplier(x, alpha_multiplier, p.alpha_shift);
      v += negate ? -scaled : scaled;
    }
    out[i] = static_cast<T>(std::clamp(v, kMin, kMax));
  }
}

// The 16-bit fixed-point multipliers of quantized HARD_SWISH (TFLite's HardSwishParams).
struct HardSwishQuantParams {
  int32_t input_zero_point = 0, output_zero_point = 0;
  int16_t output_multiplier = 0;  // (input_scale / 128) / output_scale, Q0.15
  int output_exponent = 0;        // <= 0
  int16_t reluish_multiplier = 0;  // (input_scale / 128) / (3 / 32768), Q0.15
  int reluish_exponent = 0;
};

inline int16_t SaturatingLeftShift16(int16_t value, int amount) {
  const int64_t v = static_cast<int64_t>(value) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(v, -32768, 32767));
}

// Like the rounding doubling high multiply but truncating toward zero (ARM SQDMULH).
inline int16_t SaturatingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == -32768 && b == -32768) return 32767;
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

// x * relu6(x + 3) / 6 in 16-bit fixed point: x on a "hires" scale (x * 128), the relu-ish factor
// (x + 3) / 6 clamped to [0, 1] in Q0.15, their product shifted to the output scale.
template <class T>
void QuantizedHardSwish(const HardSwishQuantParams& p, const T* in, T* out, int64_t n) {
  using quant::fp::RoundingDivideByPOT;
  using quant::fp::SaturatingRoundingDoublingHighMul;
  for (int64_t i = 0; i < n; ++i) {
    const int16_t x = static_cast<int16_t>(static_cast<int32_t>(in[i]) - p.input_zero_point);
    const int16_t x_hires = static_cast<int16_t>(x * (1 << 7));
    const int16_t x_on_preshift_output = SaturatingRoundingDoublingHighMul<int16_t>(x_hires, p.output_multiplier);
    int16_t reluish = x_hires;
    // Saturation in the first shift cannot matter: the last bit of shift is applied after the
    // multiply and saturates again.
    if (p.reluish_exponent > 0) reluish = SaturatingLeftShift16(reluish, p.reluish_exponent - 1);
    reluish = SaturatingRoundingDoublingHighMul<int16_t>(reluish, p.reluish_multiplier);
    if (p.reluish_exponent > 0) reluish = SaturatingLeftShift16(reluish, 1);
    if (p.reluish_exponent < 0) reluish = RoundingDivideByPOT<int16_t>(reluish, -p.reluish_exponent);
    // [-1, 1] -> [0, 1]
    reluish = static_cast<int16_t>((static_cast<int32_t>(reluish) + (1 << 15)) >> 1);
    const int16_t preshift = SaturatingDoublingHighMul16(reluish, x_on_preshift_output);
    int16_t v = RoundingDivideByPOT<int16_t>(preshift, -p.output_exponent);
    v = static_cast<int16_t>(v + p.output_zero_point);
    out[i] = static_cast<T>(std::clamp<int32_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
}

// One element of quantized PRELU: x >= 0 rescaled by multiplier 1, else x * alpha by multiplier 2.
struct PreluQuantParams {
  int32_t input_offset = 0, alpha_offset = 0, output_offset = 0;  // offsets are -zero_point (output: +)
  int32_t multiplier_1 = 0, multiplier_2 = 0;
  int shift_1 = 0, shift_2 = 0;
};

template <class T>
T QuantizedPrelu(const PreluQuantParams& p, T x, T alpha) {
  const int32_t input = p.input_offset + x;
  int32_t v = 0;
  if (input >= 0) {
    v = quant::MultiplyByQuantizedMultiplier(input, p.multiplier_1, p.shift_1);
  } else {
    v = quant::MultiplyByQuantizedMultiplier(input * (p.alpha_offset + alpha), p.multiplier_2, p.shift_2);
  }
  v += p.output_offset;
  return static_cast<T>(std::clamp<int32_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// ---- L2 normalization over the last dimension

inline void L2NormalizeFloat(const float* in, float* out, int64_t rows, int64_t depth, float epsilon) {
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    float squared = 0.0f;
    for (int64_t i = 0; i < depth; ++i) squared += in[i] * in[i];
    const float norm = std::max(std::sqrt(squared), epsilon);
    for (int64_t i = 0; i < depth; ++i) out[i] = in[i] / norm;
  }
}

// Output scale 1/128 (uint8 zero point 128, int8 zero point 0); 1 / norm in fixed point.
template <class T>
void L2NormalizeQuantized(const T* in, T* out, int64_t rows, int64_t depth, int32_t input_zero_point) {
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    // An int32 sum in TFLite; accumulated unsigned so that an absurdly long row wraps instead of
    // overflowing.
    uint32_t squared_sum = 0;
    for (int64_t i = 0; i < depth; ++i) {
      const int32_t d = static_cast<int32_t>(in[i]) - input_zero_point;
      squared_sum += static_cast<uint32_t>(d * d);
    }
    const int32_t squared = static_cast<int32_t>(squared_sum);
    int32_t multiplier = 0;
    int shift = 0;
    quant::fp::InvSqrtQuantizedMultiplierExp(squared, -1, &multiplier, &shift);
    for (int64_t i = 0; i < depth; ++i) {
      const int32_t d = static_cast<int32_t>(in[i]) - input_zero_point;
      if constexpr (std::is_same_v<T, uint8_t>) {
        const int32_t v = 128 + quant::MultiplyByQuantizedMultiplierSmallerThanOneExp(128 * d, multiplier, shift);
        out[i] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      } else {
        const int32_t v = quant::MultiplyByQuantizedMultiplier(d, multiplier, shift + 7);
        out[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
      }
    }
  }
}

// LOCAL_RESPONSE_NORMALIZATION over the last dimension:
// out = x / (bias + alpha * sum of x^2 over [i - radius, i + radius]) ^ beta. The window sum
// slides along the row like TFLite's kernel (add the entering square, subtract the leaving one).
inline void LocalResponseNormalization(const float* in, float* out, int64_t rows, int64_t depth, int radius,
                                       float bias, float alpha, float beta, float* padded_squares) {
  const int64_t padded = depth + 2 * static_cast<int64_t>(radius);
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    std::fill(padded_squares, padded_squares + padded, 0.0f);
    for (int64_t i = 0; i < depth; ++i) padded_squares[radius + i] = in[i] * in[i] * alpha;
    float window = 0.0f;
    for (int64_t i = 0; i < 2 * radius; ++i) window += padded_squares[i];
    for (int64_t i = 0; i < depth; ++i) {
      window += padded_squares[i + 2 * radius];
      out[i] = bias + window;
      window -= padded_squares[i];
    }
    for (int64_t i = 0; i < depth; ++i) {
      if (beta == 1.0f) {
        out[i] = in[i] * (1.0f / out[i]);
      } else if (beta == 0.5f) {
        out[i] = in[i] * (1.0f / std::sqrt(out[i]));
      } else {
        out[i] = in[i] * std::pow(out[i], -beta);
      }
    }
  }
}

}  // namespace edgerun::reference
