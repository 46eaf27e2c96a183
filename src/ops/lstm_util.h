// Shared prepare and eval of one LSTM cell for LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
// BIDIRECTIONAL_SEQUENCE_LSTM (one cell per direction): tensor checks as TFLite's
// CheckInputTensorDimensions, the choice of kernel (float, hybrid, integer 8x8_16), the integer
// kernel's effective scales and biases, scratch buffers, and the walk over the sequence.
#pragma once

#include <vector>

#include "kernels/reference/lstm.h"
#include "ops/recurrent_util.h"

namespace edgerun::ops {

// Where one cell's tensors sit in the op's input list (TFLite's order).
struct LstmCellLayout {
  int first_weight = 1;  // input_to_input_weights; then i2f, i2c, i2o, r2i, r2f, r2c, r2o,
                         // c2i, c2f, c2o, input/forget/cell/output gate bias, projection w, b
  int output_state = 18, cell_state = 19;
  int first_layer_norm = -1;  // input layer norm coefficients, then forget, cell, output; -1: none
  int first_aux_weight = -1;  // aux_input_to_input_weights, then forget, cell, output; -1: none
};

// The tensors of one cell, by gate (reference::LstmGate order); null when absent.
struct LstmCellTensors {
  const Tensor* input_weights[4] = {};
  const Tensor* recurrent_weights[4] = {};
  const Tensor* peephole[4] = {};  // the cell gate has none
  const Tensor* bias[4] = {};
  const Tensor* layer_norm[4] = {};
  const Tensor* aux_weights[4] = {};
  const Tensor* projection_weights = nullptr;
  const Tensor* projection_bias = nullptr;
  Tensor* output_state = nullptr;
  Tensor* cell_state = nullptr;
};

LstmCellTensors GetLstmCellTensors(const OpContext& ctx, const LstmCellLayout& layout);

enum class LstmKind { kFloat, kHybrid, kInteger };

struct LstmOptionsValues {
  Activation activation = Activation::kNone;  // TFLite's value when the options are missing
  float cell_clip = 0, proj_clip = 0;
  bool asymmetric_quantize_inputs = false;
};

// What prepare decided for one cell.
struct LstmCell {
  LstmCellLayout layout;
  LstmKind kind = LstmKind::kFloat;
  reference::LstmDims dims;  // n_batch: the whole batch
  LstmOptionsValues options;
  bool recurrent_diagonal[4] = {};
  int first_temporary = 0;
  // Integer kernel: multipliers and effective biases (data pointers are filled at eval).
  reference::LstmIntegerWeights integer;
  std::vector<int32_t> input_bias[4], recurrent_bias[4], projection_bias;
  // Hybrid kernel with asymmetric inputs: row sums of each weight matrix (filled at eval).
  std::vector<int32_t> row_sums;
};

// Checks the cell's tensors against `input` (rank 2 or 3, last dim = n_input) and n_batch,
// picks the kernel and requests scratch buffers from temporary slot `first_temporary` (3 slots).
// `output` is the tensor the cell writes (its scale gives the integer projection clip);
// aux_input is the auxiliary input (BIDIRECTIONAL_SEQUENCE_LSTM) or null.
Status PrepareLstmCell(OpContext& ctx, const LstmCellLayout& layout, const Tensor* input, const Tensor* aux_input,
                       int n_batch, const Tensor* output, const LstmOptionsValues& options, int first_temporary,
                       bool allow_diagonal_recurrent, LstmCell* cell);

// How the cell walks a sequence: time-major input is [max_time, n_batch, n], batch-major
// [n_batch, max_time, n]; the output's rows are output_stride apart, starting at output_offset.
struct LstmSequence {
  const Tensor* input = nullptr;
  const Tensor* aux_input = nullptr;
  Tensor* output = nullptr;
  int max_time = 1;
  bool time_major = true;
  bool forward = true;
  int output_stride = 0;
  int output_offset = 0;
};

Status EvalLstmCell(OpContext& ctx, LstmCell& cell, const LstmSequence& sequence);

// Reads LSTMOptions / UnidirectionalSequenceLSTMOptions / BidirectionalSequenceLSTMOptions.
template <class O>
Status ReadLstmOptions(const OpContext& ctx, const O* o, LstmOptionsValues* values) {
  if (o == nullptr) return Status::Ok();
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &values->activation));
  values->cell_clip = o->cell_clip();
  values->proj_clip = o->proj_clip();
  values->asymmetric_quantize_inputs = o->asymmetric_quantize_inputs();
  if (!(values->cell_clip >= 0) || !(values->proj_clip >= 0)) {
    return ctx.Error("cell_clip (", values->cell_clip, ") and proj_clip (", values->proj_clip,
                     ") must be non-negative");
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
