// UNIDIRECTIONAL_SEQUENCE_LSTM: an LSTM cell run over a sequence, time-major [time, batch,
// input] or batch-major [batch, time, input]; output has the input's layout with n_output last.
// Same tensors and kernels as LSTM (float, hybrid, integer 8x8_16); recurrent weights may be
// diagonal (rank 1) in float and hybrid.
#include "ops/lstm_util.h"

namespace edgerun::ops {
namespace {

struct SequenceLstmState {
  LstmCell cell;
  bool time_major = false;
};

Status Prepare(OpContext& ctx, SequenceLstmState& state) {
  if (ctx.num_inputs() != 20 && ctx.num_inputs() != 24) {
    return ctx.Error("expects 20 or 24 inputs, has ", ctx.num_inputs());
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, has ", ctx.num_outputs());
  ER_RETURN_IF_ERROR(CheckInput(ctx, 0));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 3, 3));
  const auto* o = Options<tflite::UnidirectionalSequenceLSTMOptions>(ctx);
  LstmOptionsValues options;
  ER_RETURN_IF_ERROR(ReadLstmOptions(ctx, o, &options));
  state.time_major = o && o->time_major();
  LstmCellLayout layout;
  layout.first_layer_norm = ctx.num_inputs() == 24 ? 20 : -1;
  const int n_batch = state.time_major ? input->dim(1) : input->dim(0);
  ER_RETURN_IF_ERROR(PrepareLstmCell(ctx, layout, input, nullptr, n_batch, ctx.output(0), options,
                                     /*first_temporary=*/0, /*allow_diagonal_recurrent=*/true, &state.cell));
  Shape shape = input->shape;
  shape.back() = state.cell.dims.n_output;
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, SequenceLstmState& state) {
  LstmSequence sequence;
  sequence.input = ctx.input(0);
  sequence.output = ctx.output(0);
  sequence.time_major = state.time_major;
  sequence.max_time = state.time_major ? sequence.input->dim(0) : sequence.input->dim(1);
  sequence.output_stride = state.cell.dims.n_output;
  return EvalLstmCell(ctx, state.cell, sequence);
}

}  // namespace

OpRegistration RegisterUnidirectionalSequenceLstm() {
  return MakeBuiltinWithState<SequenceLstmState>(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, 4,
                                                 "float32, hybrid (int8 weights), int8 (int16 cell state)", Prepare,
                                                 Eval);
}

}  // namespace edgerun::ops
