// One time step of a basic (Elman) RNN cell, TFLite's kernel_utils::RnnBatchStep:
//   h' = act(W_x x + W_aux aux + W_h h + b), written to the output and kept as the new state.
// Float, and hybrid (int8 weights; inputs and state quantized per batch row at each step).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/optimized/recurrent.h"
#include "kernels/reference/recurrent_util.h"

namespace edgerun::reference {

struct RnnDims {
  int n_batch = 0;
  int input_size = 0, aux_input_size = 0, num_units = 0;
};

struct RnnFloatWeights {
  const float* input_weights = nullptr;      // [num_units, input_size]
  const float* aux_weights = nullptr;        // [num_units, aux_input_size] or null
  const float* recurrent_weights = nullptr;  // [num_units, num_units]
  const float* bias = nullptr;               // [num_units]
};

// input [n_batch, input_size], hidden_state [n_batch, num_units] updated in place; output rows
// are output_stride apart.
inline void RnnStepFloat(const RnnFloatWeights& w, const RnnDims& d, const float* input, const float* aux_input,
                         VectorActivation act, float* hidden_state, float* output, int output_stride) {
  for (int b = 0; b < d.n_batch; ++b) std::copy_n(w.bias, d.num_units, output + static_cast<int64_t>(b) * output_stride);
  optimized::MatVecAccumulate(w.input_weights, d.num_units, d.input_size, input, d.n_batch, output, output_stride);
  if (aux_input && d.aux_input_size > 0) {
    optimized::MatVecAccumulate(w.aux_weights, d.num_units, d.aux_input_size, aux_input, d.n_batch, output, output_stride);
  }
  optimized::MatVecAccumulate(w.recurrent_weights, d.num_units, d.num_units, hidden_state, d.n_batch, output, output_stride);
  for (int b = 0; b < d.n_batch; ++b) {
    float* row = output + static_cast<int64_t>(b) * output_stride;
    optimized::ApplyActivationF32(row, d.num_units, act, row);
    std::copy_n(row, d.num_units, hidden_state + static_cast<int64_t>(b) * d.num_units);
  }
}

struct RnnHybridWeights {
  const int8_t* input_weights = nullptr;
  float input_scale = 1;
  const int32_t* input_row_sums = nullptr;  // for asymmetric inputs
  const int8_t* aux_weights = nullptr;
  float aux_scale = 1;
  const int32_t* aux_row_sums = nullptr;
  const int8_t* recurrent_weights = nullptr;
  float recurrent_scale = 1;
  const int32_t* recurrent_row_sums = nullptr;
  const float* bias = nullptr;
  bool asymmetric_quantize_inputs = false;
};

// Scratch: int8 [n_batch * (input_size + aux_input_size + num_units)], float and int32 [n_batch].
inline void RnnStepHybrid(const RnnHybridWeights& w, const RnnDims& d, const float* input, const float* aux_input,
                          VectorActivation act, float* hidden_state, float* output, int output_stride,
                          int8_t* int8_scratch, float* scales, int32_t* zero_points) {
  const int64_t nb = d.n_batch;
  int8_t* q_input = int8_scratch;
  int8_t* q_aux = q_input + nb * d.input_size;
  int8_t* q_hidden = q_aux + nb * d.aux_input_size;
  const bool asymmetric = w.asymmetric_quantize_inputs;
  for (int b = 0; b < d.n_batch; ++b) std::copy_n(w.bias, d.num_units, output + b * static_cast<int64_t>(output_stride));
  // Each product: quantize the vector rows, scale = row scale x weight scale, integer dot.
  auto product = [&](const float* values, int size, int8_t* q, const int8_t* weights, float weight_scale,
                     const int32_t* row_sums) {
    if (IsZeroVector(values, nb * size)) return;  // TFLite skips all-zero vectors
    QuantizeRows(values, d.n_batch, size, q, scales, zero_points, asymmetric);
    for (int b = 0; b < d.n_batch; ++b) scales[b] *= weight_scale;
    optimized::HybridMatVecAccumulate(weights, d.num_units, size, q, scales, asymmetric ? zero_points : nullptr, row_sums,
                           d.n_batch, output, output_stride);
  };
  product(input, d.input_size, q_input, w.input_weights, w.input_scale, w.input_row_sums);
  if (aux_input && d.aux_input_size > 0) {
    product(aux_input, d.aux_input_size, q_aux, w.aux_weights, w.aux_scale, w.aux_row_sums);
  }
  product(hidden_state, d.num_units, q_hidden, w.recurrent_weights, w.recurrent_scale, w.recurrent_row_sums);
  for (int b = 0; b < d.n_batch; ++b) {
    float* row = output + static_cast<int64_t>(b) * output_stride;
    optimized::ApplyActivationF32(row, d.num_units, act, row);
    std::copy_n(row, d.num_units, hidden_state + static_cast<int64_t>(b) * d.num_units);
  }
}

}  // namespace edgerun::reference
