// One time step of an LSTM cell, in the three arithmetics of TFLite's lstm_eval: float,
// hybrid (int8 weights, float activations quantized on the fly) and fully integer "8x8_16"
// (int8 activations, int16 gates and cell state). The ops (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM) walk the sequence and call these.
//
// Per gate g (input, forget, cell, output):
//   g = act(W_x x + W_aux aux + W_h h + w_c .* c + b)              (act: sigmoid; cell gate: tanh/...)
//   with layer norm:  g = act(ln_w .* normalize(W_x x + ...) + b)
// c' = f .* c + i .* g   (CIFG: i = 1 - f), clipped;  the output gate's peephole sees c'.
// h' = o .* act(c'), then h' = clip(W_p h' + b_p) with a projection.
#pragma once

#include <cstdint>

#include "kernels/reference/recurrent_util.h"

namespace edgerun::reference {

enum LstmGate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
constexpr int kLstmGates = 4;

struct LstmDims {
  int n_batch = 0;  // rows handled by this step
  int n_input = 0, n_aux_input = 0, n_cell = 0, n_output = 0;
};

// ---- float

struct LstmFloatGate {
  const float* input_weights = nullptr;      // [n_cell, n_input]
  const float* aux_weights = nullptr;        // [n_cell, n_aux_input] or null
  const float* recurrent_weights = nullptr;  // [n_cell, n_output], or [n_cell] when recurrent_diagonal
  bool recurrent_diagonal = false;
  const float* peephole = nullptr;    // [n_cell] or null
  const float* layer_norm = nullptr;  // [n_cell] or null
  const float* bias = nullptr;        // [n_cell]
};

struct LstmFloatWeights {
  LstmFloatGate gates[kLstmGates];  // the input gate's input_weights are null for CIFG
  const float* projection_weights = nullptr;  // [n_output, n_cell] or null
  const float* projection_bias = nullptr;     // [n_output] or null
  VectorActivation activation = VectorActivation::kTanh;
  float cell_clip = 0, proj_clip = 0;  // 0: no clipping
};

// Floats of scratch LstmStepFloat needs.
int64_t LstmFloatScratchSize(const LstmDims& d);

// input [n_batch, n_input], aux_input [n_batch, n_aux_input] or null, output_state
// [n_batch, n_output] and cell_state [n_batch, n_cell] updated in place; output rows are
// `output_stride` floats apart.
void LstmStepFloat(const LstmFloatWeights& w, const LstmDims& d, const float* input, const float* aux_input,
                   float* output_state, float* cell_state, float* output, int output_stride, float* scratch);

// ---- hybrid

struct LstmHybridGate {
  const int8_t* input_weights = nullptr;
  float input_scale = 1;
  const int32_t* input_row_sums = nullptr;  // for asymmetric inputs
  const int8_t* aux_weights = nullptr;
  float aux_scale = 1;
  const int32_t* aux_row_sums = nullptr;
  const int8_t* recurrent_weights = nullptr;
  float recurrent_scale = 1;
  const int32_t* recurrent_row_sums = nullptr;
  const float* recurrent_diagonal = nullptr;  // float [n_cell] instead of recurrent_weights
  const int8_t* peephole = nullptr;
  float peephole_scale = 1;
  const float* layer_norm = nullptr;
  const float* bias = nullptr;
};

struct LstmHybridWeights {
  LstmHybridGate gates[kLstmGates];
  const int8_t* projection_weights = nullptr;
  float projection_scale = 1;
  const int32_t* projection_row_sums = nullptr;
  const float* projection_bias = nullptr;
  VectorActivation activation = VectorActivation::kTanh;
  float cell_clip = 0, proj_clip = 0;
  bool asymmetric_quantize_inputs = false;
};

struct LstmHybridScratchSize {
  int64_t floats = 0, int8s = 0, int32s = 0;
};
LstmHybridScratchSize LstmHybridScratch(const LstmDims& d);

void LstmStepHybrid(const LstmHybridWeights& w, const LstmDims& d, const float* input, const float* aux_input,
                    float* output_state, float* cell_state, float* output, int output_stride, float* float_scratch,
                    int8_t* int8_scratch, int32_t* int32_scratch);

// ---- integer (8-bit activations and weights, 16-bit gates and cell state)

struct LstmIntegerGate {
  const int8_t* input_weights = nullptr;
  const int32_t* input_bias = nullptr;  // bias (without layer norm) + zero point x row sums
  int32_t input_multiplier = 0;
  int input_shift = 0;
  const int8_t* recurrent_weights = nullptr;
  const int32_t* recurrent_bias = nullptr;
  int32_t recurrent_multiplier = 0;
  int recurrent_shift = 0;
  const int16_t* peephole = nullptr;
  int32_t peephole_multiplier = 0;
  int peephole_shift = 0;
  const int16_t* layer_norm = nullptr;
  const int32_t* layer_norm_bias = nullptr;
  int32_t layer_norm_multiplier = 0;
  int layer_norm_shift = 0;
  int32_t variance_guard = 1;
};

struct LstmIntegerWeights {
  LstmIntegerGate gates[kLstmGates];
  const int8_t* projection_weights = nullptr;
  const int32_t* projection_bias = nullptr;  // projection bias + hidden zero point x row sums
  int32_t projection_multiplier = 0;
  int projection_shift = 0;
  int32_t hidden_multiplier = 0;  // o .* tanh(c) (both Q0.15) to the hidden intermediate
  int hidden_shift = 0;
  int32_t hidden_zero_point = 0;
  int32_t output_state_zero_point = 0;
  int cell_scale_log2 = -15;  // the cell state's scale is 2^cell_scale_log2
  int16_t cell_clip = 0;      // quantized; 0: none
  int8_t proj_clip = 0;
};

struct LstmIntegerScratchSize {
  int64_t int16s = 0, int8s = 0;
};
LstmIntegerScratchSize LstmIntegerScratch(const LstmDims& d);

// output rows are contiguous (TFLite writes the integer LSTM's output that way).
void LstmStepInteger(const LstmIntegerWeights& w, const LstmDims& d, const int8_t* input, int8_t* output_state,
                     int16_t* cell_state, int8_t* output, int16_t* int16_scratch, int8_t* int8_scratch);

// ---- the basic 5-input LSTM cell (LSTM with kernel_type BASIC), float

// input [n_batch, n_input], prev_activation/activation_out [n_batch, depth], weights
// [4 * depth, n_input + depth], bias [4 * depth], prev_state/state_out [n_batch, depth],
// concat_temp [n_batch, n_input + depth], activation_temp [n_batch, 4 * depth].
void BasicLstmCellFloat(int n_batch, int n_input, int depth, const float* input, const float* prev_activation,
                        const float* weights, const float* bias, const float* prev_state, float* state_out,
                        float* activation_out, float* concat_temp, float* activation_temp);

}  // namespace edgerun::reference
