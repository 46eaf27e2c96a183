// Shared prepare and eval of one RNN cell for RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// BIDIRECTIONAL_SEQUENCE_RNN (one cell per direction): float or hybrid (int8 weights).
#pragma once

#include <vector>

#include "kernels/reference/rnn.h"
#include "ops/recurrent_util.h"

namespace edgerun::ops {

// Input indices of one cell's tensors; aux_weights -1 when the op has none.
struct RnnCellLayout {
  int weights = 1, recurrent_weights = 2, bias = 3, hidden_state = 4;
  int aux_weights = -1;
};

struct RnnCell {
  RnnCellLayout layout;
  bool hybrid = false;
  reference::RnnDims dims;  // n_batch: the whole batch
  Activation activation = Activation::kNone;
  bool asymmetric_quantize_inputs = false;
  int first_temporary = 0;
  std::vector<int32_t> row_sums;  // hybrid with asymmetric inputs (filled at eval)
};

// Checks the cell's tensors against `input` (last dim = input size) and n_batch; aux_input is
// used only when the layout's aux weights are present. Requests 3 temporaries from
// first_temporary for the hybrid kernel.
Status PrepareRnnCell(OpContext& ctx, const RnnCellLayout& layout, const Tensor* input, const Tensor* aux_input,
                      int n_batch, Activation activation, bool asymmetric_quantize_inputs, int first_temporary,
                      RnnCell* cell);

struct RnnSequence {
  const Tensor* input = nullptr;
  const Tensor* aux_input = nullptr;  // with the cell's aux weights
  Tensor* output = nullptr;
  int max_time = 1;
  bool time_major = true;
  bool forward = true;
  int output_stride = 0;
  int output_offset = 0;
};

void EvalRnnCell(OpContext& ctx, RnnCell& cell, const RnnSequence& sequence);

}  // namespace edgerun::ops
