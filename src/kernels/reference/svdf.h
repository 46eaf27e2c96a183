// SVDF (singular value decomposition filter), TFLite's reference/svdf.h: a fully connected
// layer factored into a feature filter and a time filter over a memory of past activations.
// Per step:
//   state[b][f] shifts left by one (the whole buffer, as TFLite does), its last slot gets
//   dot(weights_feature[f], input[b]);
//   output[b][u] = act(bias[u] + sum_{r < rank} dot(weights_time[u*rank + r], state[b][u*rank + r])).
// State is [batch, num_filters * memory_size]; num_filters = num_units * rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernels/optimized/recurrent.h"
#include "kernels/reference/recurrent_util.h"
#include "quant/fixed_point.h"

namespace edgerun::reference {

struct SvdfDims {
  int batch = 0, input_size = 0, num_filters = 0, rank = 1, memory_size = 0;
  int num_units() const { return num_filters / rank; }
};

template <class T>
void ShiftStateLeft(const SvdfDims& d, T* state) {
  const int64_t n = static_cast<int64_t>(d.batch) * d.memory_size * d.num_filters;
  if (n > 0) std::copy(state + 1, state + n, state);
}

// scratch [batch * num_filters] holds the newest activations; output [batch, num_units].
inline void SvdfTimeWeightsBiasActivation(const SvdfDims& d, const float* weights_time, const float* bias,
                                          VectorActivation act, const float* state, float* scratch, float* output) {
  for (int b = 0; b < d.batch; ++b) {
    for (int f = 0; f < d.num_filters; ++f) {
      const float* w = weights_time + static_cast<int64_t>(f) * d.memory_size;
      const float* s = state + (static_cast<int64_t>(b) * d.num_filters + f) * d.memory_size;
      float dot = 0.0f;
      for (int m = 0; m < d.memory_size; ++m) dot += w[m] * s[m];
      scratch[static_cast<int64_t>(b) * d.num_filters + f] = dot;
    }
  }
  const int units = d.num_units();
  for (int64_t o = 0; o < static_cast<int64_t>(d.batch) * units; ++o) {
    float sum = 0.0f;
    for (int r = 0; r < d.rank; ++r) sum += scratch[o * d.rank + r];
    output[o] = sum;
  }
  if (bias) {
    for (int b = 0; b < d.batch; ++b) {
      for (int u = 0; u < units; ++u) output[static_cast<int64_t>(b) * units + u] += bias[u];
    }
  }
  optimized::ApplyActivationF32(output, static_cast<int64_t>(d.batch) * units, act, output);
}

inline void SvdfFloat(const SvdfDims& d, const float* input, const float* weights_feature, const float* weights_time,
                      const float* bias, VectorActivation act, float* state, float* scratch, float* output) {
  ShiftStateLeft(d, state);
  const int64_t activations = static_cast<int64_t>(d.batch) * d.num_filters;
  std::fill_n(scratch, activations, 0.0f);
  optimized::MatVecAccumulate(weights_feature, d.num_filters, d.input_size, input, d.batch, scratch, d.num_filters);
  for (int64_t i = 0; i < activations; ++i) state[i * d.memory_size + d.memory_size - 1] = scratch[i];
  SvdfTimeWeightsBiasActivation(d, weights_time, bias, act, state, scratch, output);
}

// Hybrid: int8 feature weights with the float input quantized per batch row; the time weights
// come dequantized (float), the state is float.
inline void SvdfHybrid(const SvdfDims& d, const float* input, const int8_t* weights_feature, float feature_scale,
                       const int32_t* feature_row_sums, const float* weights_time, const float* bias,
                       VectorActivation act, bool asymmetric, float* state, float* scratch, float* scales,
                       int32_t* zero_points, int8_t* quantized_input, float* output) {
  ShiftStateLeft(d, state);
  const int64_t activations = static_cast<int64_t>(d.batch) * d.num_filters;
  std::fill_n(scratch, activations, 0.0f);
  if (!IsZeroVector(input, static_cast<int64_t>(d.batch) * d.input_size)) {
    QuantizeRows(input, d.batch, d.input_size, quantized_input, scales, zero_points, asymmetric);
    for (int b = 0; b < d.batch; ++b) scales[b] *= feature_scale;
    optimized::HybridMatVecAccumulate(weights_feature, d.num_filters, d.input_size, quantized_input, scales,
                           asymmetric ? zero_points : nullptr, feature_row_sums, d.batch, scratch, d.num_filters);
  }
  for (int64_t i = 0; i < activations; ++i) state[i * d.memory_size + d.memory_size - 1] = scratch[i];
  SvdfTimeWeightsBiasActivation(d, weights_time, bias, act, state, scratch, output);
}

// Integer: int8 input and feature weights, int32 bias, int8 output; the state and time weights
// are int16 (TFLite) or int8 (TFLite Micro's 8-bit SVDF, whose state has a zero point; pass 0
// for int16). TFLite applies no activation beyond the int8 clamp (it requires RELU).
template <class StateT>
void SvdfInteger(const SvdfDims& d, const int8_t* input, int32_t input_zero_point, const int8_t* weights_feature,
                 const StateT* weights_time, const int32_t* bias, int32_t multiplier_1, int shift_1,
                 int32_t multiplier_2, int shift_2, int32_t state_zero_point, int32_t output_zero_point,
                 StateT* state, int32_t* scratch, int32_t* output_temp, int8_t* output) {
  ShiftStateLeft(d, state);
  // Feature matmul, rescaled to the state's scale, into the newest memory slot.
  constexpr int32_t kStateMin = std::numeric_limits<StateT>::min(), kStateMax = std::numeric_limits<StateT>::max();
  for (int b = 0; b < d.batch; ++b) {
    for (int f = 0; f < d.num_filters; ++f) {
      const int8_t* w = weights_feature + static_cast<int64_t>(f) * d.input_size;
      const int8_t* x = input + static_cast<int64_t>(b) * d.input_size;
      int32_t dot = 0;
      for (int c = 0; c < d.input_size; ++c) dot += static_cast<int32_t>(w[c]) * (x[c] - input_zero_point);
      dot = quant::MultiplyByQuantizedMultiplier(dot, multiplier_1, shift_1) + state_zero_point;
      state[(static_cast<int64_t>(b) * d.num_filters + f) * d.memory_size + d.memory_size - 1] =
          static_cast<StateT>(std::clamp(dot, kStateMin, kStateMax));
    }
  }
  for (int b = 0; b < d.batch; ++b) {
    for (int f = 0; f < d.num_filters; ++f) {
      const StateT* w = weights_time + static_cast<int64_t>(f) * d.memory_size;
      const StateT* s = state + (static_cast<int64_t>(b) * d.num_filters + f) * d.memory_size;
      int32_t dot = 0;
      for (int m = 0; m < d.memory_size; ++m) dot += static_cast<int32_t>(w[m]) * (s[m] - state_zero_point);
      scratch[static_cast<int64_t>(b) * d.num_filters + f] = dot;
    }
  }
  const int units = d.num_units();
  for (int64_t o = 0; o < static_cast<int64_t>(d.batch) * units; ++o) {
    int32_t sum = 0;
    for (int r = 0; r < d.rank; ++r) sum += scratch[o * d.rank + r];
    output_temp[o] = sum;
  }
  if (bias) {
    for (int b = 0; b < d.batch; ++b) {
      for (int u = 0; u < units; ++u) output_temp[static_cast<int64_t>(b) * units + u] += bias[u];
    }
  }
  for (int64_t o = 0; o < static_cast<int64_t>(d.batch) * units; ++o) {
    const int32_t v = quant::MultiplyByQuantizedMultiplier(output_temp[o], multiplier_2, shift_2) + output_zero_point;
    output[o] = static_cast<int8_t>(std::clamp<int32_t>(v, -128, 127));
  }
}

}  // namespace edgerun::reference
