#include "kernels/reference/lstm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/recurrent.h"
#include "quant/fixed_point.h"
#include "quant/lstm_quant.h"

namespace edgerun::reference {
namespace {

void Clip(float* v, int64_t n, float limit) {
  for (int64_t i = 0; i < n; ++i) v[i] = std::max(std::min(limit, v[i]), -limit);
}

// Normalizes each batch row of n values to zero mean and unit variance (TFLite's
// MeanStddevNormalization, with its 1e-8 variance floor), then scales and shifts.
void LayerNormFloat(float* v, int n_batch, int n, const float* coefficients, const float* bias) {
  for (int b = 0; b < n_batch; ++b) {
    float* row = v + static_cast<int64_t>(b) * n;
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += row[i];
    const float mean = sum / n;
    float sum_diff_sq = 0.0f;
    for (int i = 0; i < n; ++i) {
      const float diff = row[i] - mean;
      sum_diff_sq += diff * diff;
    }
    const float variance = sum_diff_sq / n;
    const float stddev_inv = 1.0f / std::sqrt(variance + 1e-8f);
    for (int i = 0; i < n; ++i) row[i] = (row[i] - mean) * stddev_inv * coefficients[i] + bias[i];
  }
}

// The float gate: bias (or 0 with layer norm), then each matrix product added in TFLite's order,
// the peephole, the layer norm and the activation.
void GateFloat(const LstmFloatGate& g, const LstmDims& d, const float* input, bool input_is_zero,
               const float* aux_input, bool aux_is_zero, const float* output_state, const float* cell_state,
               VectorActivation act, float* gate) {
  const int n_cell = d.n_cell;
  for (int b = 0; b < d.n_batch; ++b) {
    float* row = gate + static_cast<int64_t>(b) * n_cell;
    if (g.layer_norm) {
      std::fill_n(row, n_cell, 0.0f);
    } else {
      std::copy_n(g.bias, n_cell, row);
    }
  }
  if (!input_is_zero) optimized::MatVecAccumulate(g.input_weights, n_cell, d.n_input, input, d.n_batch, gate, n_cell);
  if (aux_input && !aux_is_zero) {
    optimized::MatVecAccumulate(g.aux_weights, n_cell, d.n_aux_input, aux_input, d.n_batch, gate, n_cell);
  }
  if (g.recurrent_diagonal) {
    for (int b = 0; b < d.n_batch; ++b) {
      for (int c = 0; c < n_cell; ++c) {
        gate[static_cast<int64_t>(b) * n_cell + c] += g.recurrent_weights[c] * output_state[static_cast<int64_t>(b) * n_cell + c];
      }
    }
  } else {
    optimized::MatVecAccumulate(g.recurrent_weights, n_cell, d.n_output, output_state, d.n_batch, gate, n_cell);
  }
  if (g.peephole) {
    for (int b = 0; b < d.n_batch; ++b) {
      for (int c = 0; c < n_cell; ++c) {
        const int64_t i = static_cast<int64_t>(b) * n_cell + c;
        gate[i] += g.peephole[c] * cell_state[i];
      }
    }
  }
  if (g.layer_norm) LayerNormFloat(gate, d.n_batch, n_cell, g.layer_norm, g.bias);
  optimized::ApplyActivationF32(gate, static_cast<int64_t>(d.n_batch) * n_cell, act, gate);
}

// c = f .* c + i .* g, with i = 1 - f for CIFG (input_gate null); the forget gate is used as
// scratch then, as TFLite does.
void UpdateCellFloat(int64_t n, float* cell_state, const float* input_gate, float* forget_gate,
                     const float* cell_gate, float clip) {
  for (int64_t i = 0; i < n; ++i) cell_state[i] = forget_gate[i] * cell_state[i];
  if (input_gate == nullptr) {
    for (int64_t i = 0; i < n; ++i) forget_gate[i] = 1.0f - forget_gate[i];
    input_gate = forget_gate;
  }
  for (int64_t i = 0; i < n; ++i) cell_state[i] += cell_gate[i] * input_gate[i];
  if (clip > 0.0f) Clip(cell_state, n, clip);
}

void CopyRows(const float* state, int n_batch, int n, float* output, int output_stride) {
  for (int b = 0; b < n_batch; ++b) {
    std::copy_n(state + static_cast<int64_t>(b) * n, n, output + static_cast<int64_t>(b) * output_stride);
  }
}

}  // namespace

int64_t LstmFloatScratchSize(const LstmDims& d) {
  // Four gates and the hidden vector o .* act(c).
  return 5 * static_cast<int64_t>(d.n_batch) * d.n_cell;
}

void LstmStepFloat(const LstmFloatWeights& w, const LstmDims& d, const float* input, const float* aux_input,
                   float* output_state, float* cell_state, float* output, int output_stride, float* scratch) {
  const int64_t cells = static_cast<int64_t>(d.n_batch) * d.n_cell;
  float* gates[kLstmGates];
  for (int g = 0; g < kLstmGates; ++g) gates[g] = scratch + g * cells;
  float* hidden = scratch + kLstmGates * cells;
  const bool use_cifg = w.gates[kInputGate].input_weights == nullptr;
  const bool input_is_zero = IsZeroVector(input, static_cast<int64_t>(d.n_batch) * d.n_input);
  const bool aux_is_zero = aux_input == nullptr || IsZeroVector(aux_input, static_cast<int64_t>(d.n_batch) * d.n_aux_input);

  if (!use_cifg) {
    GateFloat(w.gates[kInputGate], d, input, input_is_zero, aux_input, aux_is_zero, output_state, cell_state,
              VectorActivation::kSigmoid, gates[kInputGate]);
  }
  GateFloat(w.gates[kForgetGate], d, input, input_is_zero, aux_input, aux_is_zero, output_state, cell_state,
            VectorActivation::kSigmoid, gates[kForgetGate]);
  GateFloat(w.gates[kCellGate], d, input, input_is_zero, aux_input, aux_is_zero, output_state, cell_state,
            w.activation, gates[kCellGate]);
  UpdateCellFloat(cells, cell_state, use_cifg ? nullptr : gates[kInputGate], gates[kForgetGate], gates[kCellGate],
                  w.cell_clip);
  GateFloat(w.gates[kOutputGate], d, input, input_is_zero, aux_input, aux_is_zero, output_state, cell_state,
            VectorActivation::kSigmoid, gates[kOutputGate]);

  optimized::ApplyActivationF32(cell_state, cells, w.activation, hidden);
  for (int64_t i = 0; i < cells; ++i) hidden[i] = gates[kOutputGate][i] * hidden[i];
  if (w.projection_weights) {
    for (int b = 0; b < d.n_batch; ++b) {
      float* row = output_state + static_cast<int64_t>(b) * d.n_output;
      if (w.projection_bias) {
        std::copy_n(w.projection_bias, d.n_output, row);
      } else {
        std::fill_n(row, d.n_output, 0.0f);
      }
    }
    optimized::MatVecAccumulate(w.projection_weights, d.n_output, d.n_cell, hidden, d.n_batch, output_state, d.n_output);
    if (w.proj_clip > 0.0f) Clip(output_state, static_cast<int64_t>(d.n_batch) * d.n_output, w.proj_clip);
  } else {
    std::copy_n(hidden, cells, output_state);
  }
  CopyRows(output_state, d.n_batch, d.n_output, output, output_stride);
}

// ---- hybrid

namespace {

struct HybridInputs {
  const int8_t* input;  // quantized rows, or null when the float input is all zeros
  const float* input_scales;
  const int32_t* input_zero_points;
  const int8_t* aux;
  const float* aux_scales;
  const int32_t* aux_zero_points;
  const int8_t* state;
  const float* state_scales;
  const int32_t* state_zero_points;
  const float* float_state;
};

void GateHybrid(const LstmHybridGate& g, const LstmDims& d, const HybridInputs& in, const float* cell_state,
                VectorActivation act, float* product_scales, float* recovered_peephole, float* gate) {
  const int n_cell = d.n_cell;
  for (int b = 0; b < d.n_batch; ++b) {
    float* row = gate + static_cast<int64_t>(b) * n_cell;
    if (g.layer_norm) {
      std::fill_n(row, n_cell, 0.0f);
    } else {
      std::copy_n(g.bias, n_cell, row);
    }
  }
  // The per-row scale of each product is (row scale) x (weight scale), as in TFLite.
  auto accumulate = [&](const int8_t* weights, float weight_scale, const int32_t* row_sums, int cols,
                        const int8_t* q, const float* scales, const int32_t* zero_points) {
    for (int b = 0; b < d.n_batch; ++b) product_scales[b] = scales[b] * weight_scale;
    optimized::HybridMatVecAccumulate(weights, n_cell, cols, q, product_scales, zero_points, row_sums, d.n_batch, gate, n_cell);
  };
  if (in.input) accumulate(g.input_weights, g.input_scale, g.input_row_sums, d.n_input, in.input, in.input_scales, in.input_zero_points);
  if (in.aux) accumulate(g.aux_weights, g.aux_scale, g.aux_row_sums, d.n_aux_input, in.aux, in.aux_scales, in.aux_zero_points);
  if (in.state) {
    if (g.recurrent_diagonal) {
      for (int64_t i = 0; i < static_cast<int64_t>(d.n_batch) * n_cell; ++i) {
        gate[i] += g.recurrent_diagonal[i % n_cell] * in.float_state[i];
      }
    } else {
      accumulate(g.recurrent_weights, g.recurrent_scale, g.recurrent_row_sums, d.n_output, in.state, in.state_scales,
                 in.state_zero_points);
    }
  }
  if (g.peephole) {
    for (int c = 0; c < n_cell; ++c) recovered_peephole[c] = g.peephole_scale * static_cast<float>(g.peephole[c]);
    for (int64_t i = 0; i < static_cast<int64_t>(d.n_batch) * n_cell; ++i) {
      gate[i] += recovered_peephole[i % n_cell] * cell_state[i];
    }
  }
  if (g.layer_norm) LayerNormFloat(gate, d.n_batch, n_cell, g.layer_norm, g.bias);
  optimized::ApplyActivationF32(gate, static_cast<int64_t>(d.n_batch) * n_cell, act, gate);
}

}  // namespace

LstmHybridScratchSize LstmHybridScratch(const LstmDims& d) {
  const int64_t b = d.n_batch, cells = b * d.n_cell;
  LstmHybridScratchSize s;
  // 4 gates, hidden, 4 row-scale vectors (input, aux, state, hidden), product scales, peephole.
  s.floats = 5 * cells + 5 * b + d.n_cell;
  s.int8s = b * (d.n_input + d.n_aux_input + d.n_output + d.n_cell);
  s.int32s = 4 * b;  // zero points of the four quantized vectors
  return s;
}

void LstmStepHybrid(const LstmHybridWeights& w, const LstmDims& d, const float* input, const float* aux_input,
                    float* output_state, float* cell_state, float* output, int output_stride, float* float_scratch,
                    int8_t* int8_scratch, int32_t* int32_scratch) {
  const int64_t nb = d.n_batch, cells = nb * d.n_cell;
  float* gates[kLstmGates];
  for (int g = 0; g < kLstmGates; ++g) gates[g] = float_scratch + g * cells;
  float* hidden = float_scratch + kLstmGates * cells;
  float* input_scales = hidden + cells;
  float* aux_scales = input_scales + nb;
  float* state_scales = aux_scales + nb;
  float* hidden_scales = state_scales + nb;
  float* product_scales = hidden_scales + nb;
  float* recovered_peephole = product_scales + nb;
  int8_t* q_input = int8_scratch;
  int8_t* q_aux = q_input + nb * d.n_input;
  int8_t* q_state = q_aux + nb * d.n_aux_input;
  int8_t* q_hidden = q_state + nb * d.n_output;
  int32_t* input_zp = int32_scratch;
  int32_t* aux_zp = input_zp + nb;
  int32_t* state_zp = aux_zp + nb;
  int32_t* hidden_zp = state_zp + nb;
  const bool asymmetric = w.asymmetric_quantize_inputs;

  HybridInputs in{};
  if (!IsZeroVector(input, nb * d.n_input)) {
    QuantizeRows(input, d.n_batch, d.n_input, q_input, input_scales, input_zp, asymmetric);
    in.input = q_input;
  }
  if (aux_input && !IsZeroVector(aux_input, nb * d.n_aux_input)) {
    QuantizeRows(aux_input, d.n_batch, d.n_aux_input, q_aux, aux_scales, aux_zp, asymmetric);
    in.aux = q_aux;
  }
  if (!IsZeroVector(output_state, nb * d.n_output)) {
    QuantizeRows(output_state, d.n_batch, d.n_output, q_state, state_scales, state_zp, asymmetric);
    in.state = q_state;
  }
  in.input_scales = input_scales;
  in.aux_scales = aux_scales;
  in.state_scales = state_scales;
  in.input_zero_points = asymmetric ? input_zp : nullptr;
  in.aux_zero_points = asymmetric ? aux_zp : nullptr;
  in.state_zero_points = asymmetric ? state_zp : nullptr;
  in.float_state = output_state;

  const bool use_cifg = w.gates[kInputGate].input_weights == nullptr;
  if (!use_cifg) {
    GateHybrid(w.gates[kInputGate], d, in, cell_state, VectorActivation::kSigmoid, product_scales, recovered_peephole,
               gates[kInputGate]);
  }
  GateHybrid(w.gates[kForgetGate], d, in, cell_state, VectorActivation::kSigmoid, product_scales, recovered_peephole,
             gates[kForgetGate]);
  GateHybrid(w.gates[kCellGate], d, in, cell_state, w.activation, product_scales, recovered_peephole, gates[kCellGate]);
  UpdateCellFloat(cells, cell_state, use_cifg ? nullptr : gates[kInputGate], gates[kForgetGate], gates[kCellGate],
                  w.cell_clip);
  GateHybrid(w.gates[kOutputGate], d, in, cell_state, VectorActivation::kSigmoid, product_scales, recovered_peephole,
             gates[kOutputGate]);

  optimized::ApplyActivationF32(cell_state, cells, w.activation, hidden);
  for (int64_t i = 0; i < cells; ++i) hidden[i] = gates[kOutputGate][i] * hidden[i];
  if (w.projection_weights) {
    for (int b = 0; b < d.n_batch; ++b) {
      float* row = output_state + static_cast<int64_t>(b) * d.n_output;
      if (w.projection_bias) {
        std::copy_n(w.projection_bias, d.n_output, row);
      } else {
        std::fill_n(row, d.n_output, 0.0f);
      }
    }
    if (!IsZeroVector(hidden, cells)) {
      QuantizeRows(hidden, d.n_batch, d.n_cell, q_hidden, hidden_scales, hidden_zp, asymmetric);
      for (int b = 0; b < d.n_batch; ++b) product_scales[b] = hidden_scales[b] * w.projection_scale;
      optimized::HybridMatVecAccumulate(w.projection_weights, d.n_output, d.n_cell, q_hidden, product_scales,
                             asymmetric ? hidden_zp : nullptr, w.projection_row_sums, d.n_batch, output_state,
                             d.n_output);
    }
    if (w.proj_clip > 0.0f) Clip(output_state, nb * d.n_output, w.proj_clip);
  } else {
    std::copy_n(hidden, cells, output_state);
  }
  CopyRows(output_state, d.n_batch, d.n_output, output, output_stride);
}

// ---- integer

namespace {

int16_t SaturateInt16(int64_t v) { return quant::SaturateCast<int16_t>(v); }

// gate[b][r] = sat16(gate[b][r] + MBQM(bias[r] + dot(weights[r], x[b]), multiplier, shift)).
void MatVecAccumulateInt16(const int8_t* x, const int32_t* bias, const int8_t* weights, int32_t multiplier, int shift,
                           int n_batch, int n_in, int n_out, int16_t* gate) {
  int32_t* dots = optimized::ScratchI32(static_cast<size_t>(n_out), 2);  // no allocation per gate and step
  for (int b = 0; b < n_batch; ++b) {
    optimized::DotRowsInt8(weights, n_out, n_in, x + static_cast<int64_t>(b) * n_in, dots);
    for (int r = 0; r < n_out; ++r) {
      int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(bias[r]) + static_cast<uint32_t>(dots[r]));
      acc = quant::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
      int16_t& out = gate[static_cast<int64_t>(b) * n_out + r];
      out = SaturateInt16(static_cast<int64_t>(acc) + out);
    }
  }
}

// TFLite's integer layer norm on each batch row (int16 in and out, Q3.12 result).
void LayerNormInteger(int16_t* v, const int16_t* weights, const int32_t* bias, int32_t multiplier, int shift,
                      int32_t variance_guard, int n_batch, int n) {
  constexpr int kTwoToPower20 = 1 << 20;
  for (int b = 0; b < n_batch; ++b) {
    int16_t* row = v + static_cast<int64_t>(b) * n;
    int64_t sum = 0, sum_sq = 0;
    for (int j = 0; j < n; ++j) {
      const int32_t val = row[j];
      sum += val;
      sum_sq += val * val;
    }
    const int32_t mean = static_cast<int32_t>(sum * 1024 / n);
    // TFLite's formula: exact only when n is a power of two.
    const int32_t temp = kTwoToPower20 / n;
    const int64_t variance = sum_sq * temp - static_cast<int64_t>(mean) * mean;
    int32_t variance2 = static_cast<int32_t>(variance / kTwoToPower20);
    if (variance2 < 1) variance2 = variance_guard;
    int32_t stddev_inverse_multiplier = 0;
    int stddev_inverse_shift = 0;
    quant::InvSqrtQuantizedMultiplier(variance2, -1, &stddev_inverse_multiplier, &stddev_inverse_shift);
    for (int j = 0; j < n; ++j) {
      const int32_t shifted = 1024 * row[j] - mean;
      const int32_t rescaled =
          quant::MultiplyByQuantizedMultiplier(shifted, stddev_inverse_multiplier, stddev_inverse_shift);
      // TFLite computes this in 32 bits (wrapping) before widening.
      const int32_t product = static_cast<int32_t>(static_cast<uint32_t>(rescaled) * static_cast<uint32_t>(static_cast<int32_t>(weights[j])) +
                                                   static_cast<uint32_t>(bias[j]));
      const int64_t val3 = product;
      const int32_t val4 = static_cast<int32_t>((val3 > 0 ? val3 + 512 : val3 - 512) / 1024);
      const int32_t val5 = quant::MultiplyByQuantizedMultiplier(val4, multiplier, shift + 12);
      row[j] = SaturateInt16(val5);
    }
  }
}

void GateInteger(const LstmIntegerGate& g, const LstmDims& d, const int8_t* input, const int8_t* output_state,
                 const int16_t* cell_state, bool is_cell_gate, int16_t* gate) {
  const int64_t cells = static_cast<int64_t>(d.n_batch) * d.n_cell;
  std::fill_n(gate, cells, int16_t{0});
  MatVecAccumulateInt16(input, g.input_bias, g.input_weights, g.input_multiplier, g.input_shift, d.n_batch, d.n_input,
                        d.n_cell, gate);
  MatVecAccumulateInt16(output_state, g.recurrent_bias, g.recurrent_weights, g.recurrent_multiplier,
                        g.recurrent_shift, d.n_batch, d.n_output, d.n_cell, gate);
  if (g.peephole) {
    // TFLite walks the peephole with a vector size of n_output (not n_cell) over the flat
    // batch arrays; identical when they are equal, and reproduced when n_output < n_cell.
    const int64_t n = static_cast<int64_t>(d.n_batch) * d.n_output;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t prod = quant::MultiplyByQuantizedMultiplier(
          static_cast<int32_t>(g.peephole[i % d.n_output]) * cell_state[i], g.peephole_multiplier, g.peephole_shift);
      gate[i] = SaturateInt16(static_cast<int64_t>(prod) + gate[i]);
    }
  }
  if (g.layer_norm) {
    LayerNormInteger(gate, g.layer_norm, g.layer_norm_bias, g.layer_norm_multiplier, g.layer_norm_shift,
                     g.variance_guard, d.n_batch, d.n_cell);
  }
  // Gate inputs are Q3.12; outputs Q0.15.
  if (is_cell_gate) {
    optimized::TanhFixed16(gate, cells, 3, gate);
  } else {
    optimized::LogisticFixed16(gate, cells, 3, gate);
  }
}

int16_t RoundingMulShift(int16_t a, int16_t b, int shift) {
  return static_cast<int16_t>(quant::RoundingDivideByPOT(static_cast<int32_t>(a) * b, shift));
}

}  // namespace

LstmIntegerScratchSize LstmIntegerScratch(const LstmDims& d) {
  const int64_t cells = static_cast<int64_t>(d.n_batch) * d.n_cell;
  return {5 * cells, cells};
}

void LstmStepInteger(const LstmIntegerWeights& w, const LstmDims& d, const int8_t* input, int8_t* output_state,
                     int16_t* cell_state, int8_t* output, int16_t* int16_scratch, int8_t* int8_scratch) {
  const int64_t cells = static_cast<int64_t>(d.n_batch) * d.n_cell;
  int16_t* gates[kLstmGates];
  for (int g = 0; g < kLstmGates; ++g) gates[g] = int16_scratch + g * cells;
  int16_t* tanh_cell = int16_scratch + kLstmGates * cells;
  const bool use_cifg = w.gates[kInputGate].input_weights == nullptr;

  if (!use_cifg) GateInteger(w.gates[kInputGate], d, input, output_state, cell_state, false, gates[kInputGate]);
  GateInteger(w.gates[kForgetGate], d, input, output_state, cell_state, false, gates[kForgetGate]);
  GateInteger(w.gates[kCellGate], d, input, output_state, cell_state, true, gates[kCellGate]);

  // c = f .* c (Q0.15 x cell scale) + i .* g (Q0.15 x Q0.15 -> cell scale), saturating.
  const int input_times_cell_shift = 30 + w.cell_scale_log2;
  for (int64_t i = 0; i < cells; ++i) {
    const int16_t kept = RoundingMulShift(gates[kForgetGate][i], cell_state[i], 15);
    const int16_t input_gate = use_cifg ? static_cast<int16_t>(32767 - gates[kForgetGate][i]) : gates[kInputGate][i];
    const int16_t added = RoundingMulShift(input_gate, gates[kCellGate][i], input_times_cell_shift);
    int16_t c = SaturateInt16(static_cast<int32_t>(kept) + added);
    if (w.cell_clip > 0) c = std::max<int16_t>(std::min<int16_t>(w.cell_clip, c), static_cast<int16_t>(-w.cell_clip));
    cell_state[i] = c;
  }

  GateInteger(w.gates[kOutputGate], d, input, output_state, cell_state, false, gates[kOutputGate]);

  // h = o .* tanh(c); tanh's input has 15 + cell_scale_log2 integer bits.
  optimized::TanhFixed16(cell_state, cells, 15 + w.cell_scale_log2, tanh_cell);
  const int64_t outputs = static_cast<int64_t>(d.n_batch) * d.n_output;
  if (w.projection_weights) {
    // TFLite subtracts the hidden zero point here and adds zero point x row sums to the
    // projection bias.
    int8_t* hidden = int8_scratch;
    for (int64_t i = 0; i < cells; ++i) {
      const int32_t v = quant::MultiplyByQuantizedMultiplier(static_cast<int32_t>(gates[kOutputGate][i]) * tanh_cell[i],
                                                             w.hidden_multiplier, w.hidden_shift) -
                        w.hidden_zero_point;
      hidden[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
    }
    std::vector<int32_t> dots(static_cast<size_t>(d.n_output));
    for (int b = 0; b < d.n_batch; ++b) {
      optimized::DotRowsInt8(w.projection_weights, d.n_output, d.n_cell, hidden + static_cast<int64_t>(b) * d.n_cell,
                             dots.data());
      for (int r = 0; r < d.n_output; ++r) {
        int32_t acc =
            static_cast<int32_t>(static_cast<uint32_t>(w.projection_bias[r]) + static_cast<uint32_t>(dots[r]));
        acc = quant::MultiplyByQuantizedMultiplier(acc, w.projection_multiplier, w.projection_shift) +
              w.output_state_zero_point;
        output_state[static_cast<int64_t>(b) * d.n_output + r] = static_cast<int8_t>(std::clamp(acc, -128, 127));
      }
    }
    if (w.proj_clip > 0) {
      for (int64_t i = 0; i < outputs; ++i) {
        output_state[i] = std::max<int8_t>(std::min<int8_t>(w.proj_clip, output_state[i]), static_cast<int8_t>(-w.proj_clip));
      }
    }
  } else {
    for (int64_t i = 0; i < cells; ++i) {
      const int32_t v = quant::MultiplyByQuantizedMultiplier(static_cast<int32_t>(gates[kOutputGate][i]) * tanh_cell[i],
                                                             w.hidden_multiplier, w.hidden_shift) +
                        w.hidden_zero_point;
      output_state[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
    }
  }
  std::copy_n(output_state, outputs, output);
}

// ---- basic cell

void BasicLstmCellFloat(int n_batch, int n_input, int depth, const float* input, const float* prev_activation,
                        const float* weights, const float* bias, const float* prev_state, float* state_out,
                        float* activation_out, float* concat_temp, float* activation_temp) {
  const int total = n_input + depth;
  for (int b = 0; b < n_batch; ++b) {
    std::copy_n(input + static_cast<int64_t>(b) * n_input, n_input, concat_temp + static_cast<int64_t>(b) * total);
    std::copy_n(prev_activation + static_cast<int64_t>(b) * depth, depth,
                concat_temp + static_cast<int64_t>(b) * total + n_input);
  }
  std::fill_n(activation_temp, static_cast<int64_t>(n_batch) * 4 * depth, 0.0f);
  optimized::MatVecAccumulate(weights, 4 * depth, total, concat_temp, n_batch, activation_temp, 4 * depth);
  for (int b = 0; b < n_batch; ++b) {
    for (int r = 0; r < 4 * depth; ++r) activation_temp[static_cast<int64_t>(b) * 4 * depth + r] += bias[r];
  }
  auto sigmoid = [](float x) { return 1.0f / (1.0f + std::exp(-x)); };
  for (int b = 0; b < n_batch; ++b) {
    const float* a = activation_temp + static_cast<int64_t>(b) * 4 * depth;
    for (int c = 0; c < depth; ++c) {
      const float input_gate = sigmoid(a[c]);
      const float new_input = std::tanh(a[depth + c]);
      const float forget_gate = sigmoid(a[2 * depth + c]);
      const float output_gate = sigmoid(a[3 * depth + c]);
      const int64_t i = static_cast<int64_t>(b) * depth + c;
      const float new_state = input_gate * new_input + forget_gate * prev_state[i];
      state_out[i] = new_state;
      activation_out[i] = output_gate * std::tanh(new_state);
    }
  }
}

}  // namespace edgerun::reference
