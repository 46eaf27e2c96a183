// BIDIRECTIONAL_SEQUENCE_LSTM: a forward and a backward LSTM cell over the same sequence (48
// inputs: input, forward cell 1-17, backward cell 18-34, states 35-38, aux input 39 and its
// weights 40-47). Outputs: forward and backward sequences, or both concatenated on the last
// dimension (merge_outputs). With an aux input but no aux weights, the backward cell reads the
// aux input instead of the input (stacked bidirectional layers without cross links).
// Float and hybrid (int8 weights).
#include "ops/lstm_util.h"

namespace edgerun::ops {
namespace {

constexpr int kAuxInput = 39;

struct BidiLstmState {
  LstmCell fw, bw;
  bool time_major = true;
  bool merge_outputs = false;
  bool bw_reads_aux_input = false;  // aux input without aux weights
  bool use_aux_input = false;       // aux input with its own weights
};

Status Prepare(OpContext& ctx, BidiLstmState& state) {
  const auto* o = Options<tflite::BidirectionalSequenceLSTMOptions>(ctx);
  state.merge_outputs = o && o->merge_outputs();
  state.time_major = o && o->time_major();
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 48, state.merge_outputs ? 1 : 2));
  if (ctx.num_inputs() != 48) return ctx.Error("expects 48 inputs, has ", ctx.num_inputs());
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 3, 3));
  LstmOptionsValues options;
  ER_RETURN_IF_ERROR(ReadLstmOptions(ctx, o, &options));

  const Tensor* aux_input = ctx.input(kAuxInput);
  state.use_aux_input = ctx.input(41) != nullptr;  // fw aux_input_to_forget_weights
  if (state.use_aux_input && aux_input == nullptr) return ctx.Error("aux weights are given without an aux input");
  state.bw_reads_aux_input = aux_input != nullptr && !state.use_aux_input;
  if (aux_input) {
    ER_RETURN_IF_ERROR(CheckType(ctx, aux_input, "aux input", {TensorType::kFloat32}));
    ER_RETURN_IF_ERROR(CheckRank(ctx, aux_input, "aux input", 3, 3));
    if (aux_input->dim(0) != input->dim(0) || aux_input->dim(1) != input->dim(1)) {
      return ctx.Error("aux input ", Describe(aux_input), " must match the input's first two dimensions ",
                       Describe(input));
    }
  }
  const Tensor* real_aux = state.use_aux_input ? aux_input : nullptr;
  const Tensor* bw_input = state.bw_reads_aux_input ? aux_input : input;
  const int n_batch = state.time_major ? input->dim(1) : input->dim(0);

  Tensor* fw_output = ctx.output(0);
  Tensor* bw_output = state.merge_outputs ? fw_output : ctx.output(1);
  const LstmCellLayout fw_layout{1, 35, 36, -1, 40};
  const LstmCellLayout bw_layout{18, 37, 38, -1, 44};
  ER_RETURN_IF_ERROR(PrepareLstmCell(ctx, fw_layout, input, real_aux, n_batch, fw_output, options, 0, false, &state.fw));
  ER_RETURN_IF_ERROR(PrepareLstmCell(ctx, bw_layout, bw_input, real_aux, n_batch, bw_output, options, 3, false, &state.bw));
  const int fw_n = state.fw.dims.n_output, bw_n = state.bw.dims.n_output;
  Shape shape = input->shape;
  shape.back() = state.merge_outputs ? fw_n + bw_n : fw_n;
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  if (!state.merge_outputs) {
    shape.back() = bw_n;
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, shape));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, BidiLstmState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* aux_input = ctx.input(kAuxInput);
  const int fw_n = state.fw.dims.n_output, bw_n = state.bw.dims.n_output;
  LstmSequence fw;
  fw.input = input;
  fw.aux_input = state.use_aux_input ? aux_input : nullptr;
  fw.output = ctx.output(0);
  fw.time_major = state.time_major;
  fw.max_time = state.time_major ? input->dim(0) : input->dim(1);
  fw.output_stride = state.merge_outputs ? fw_n + bw_n : fw_n;
  ER_RETURN_IF_ERROR(EvalLstmCell(ctx, state.fw, fw));

  LstmSequence bw = fw;
  bw.input = state.bw_reads_aux_input ? aux_input : input;
  bw.forward = false;
  bw.output = state.merge_outputs ? ctx.output(0) : ctx.output(1);
  bw.output_stride = state.merge_outputs ? fw_n + bw_n : bw_n;
  bw.output_offset = state.merge_outputs ? fw_n : 0;
  return EvalLstmCell(ctx, state.bw, bw);
}

}  // namespace

OpRegistration RegisterBidirectionalSequenceLstm() {
  return MakeBuiltinWithState<BidiLstmState>(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM, 3,
                                             "float32, hybrid (int8 weights)", Prepare, Eval);
}

}  // namespace edgerun::ops
