// BIDIRECTIONAL_SEQUENCE_RNN: a forward and a backward RNN cell over the same sequence (12
// inputs: input, fw weights/recurrent/bias/hidden 1-4, bw 5-8, aux input 9, fw and bw aux
// weights 10-11). Outputs forward and backward sequences, or both concatenated on the last
// dimension (merge_outputs). An aux input without aux weights feeds the backward cell instead
// of the input. Float, or hybrid (int8 weights).
#include "ops/rnn_util.h"

namespace edgerun::ops {
namespace {

constexpr int kAuxInput = 9;

struct BidiRnnState {
  RnnCell fw, bw;
  bool time_major = false;
  bool merge_outputs = false;
  bool bw_reads_aux_input = false;
};

Status Prepare(OpContext& ctx, BidiRnnState& state) {
  const auto* o = Options<tflite::BidirectionalSequenceRNNOptions>(ctx);
  state.merge_outputs = o && o->merge_outputs();
  state.time_major = o && o->time_major();
  ER_RETURN_IF_ERROR(CheckIo(ctx, 9, 12, state.merge_outputs ? 1 : 2));
  if (ctx.num_inputs() != 12) return ctx.Error("expects 12 inputs, has ", ctx.num_inputs());
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 3, 3));
  Activation act = Activation::kNone;
  if (o) ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &act));
  const bool asymmetric = o && o->asymmetric_quantize_inputs();

  const Tensor* aux_input = ctx.input(kAuxInput);
  const bool has_aux_weights = ctx.input(10) != nullptr;
  if (has_aux_weights != (ctx.input(11) != nullptr)) {
    return ctx.Error("forward and backward aux weights must be both present or both absent");
  }
  if (aux_input) {
    ER_RETURN_IF_ERROR(CheckType(ctx, aux_input, "aux input", {TensorType::kFloat32}));
    ER_RETURN_IF_ERROR(CheckRank(ctx, aux_input, "aux input", 3, 3));
    if (aux_input->dim(0) != input->dim(0) || aux_input->dim(1) != input->dim(1)) {
      return ctx.Error("aux input ", Describe(aux_input), " must match the input's first two dimensions ",
                       Describe(input));
    }
  }
  state.bw_reads_aux_input = aux_input != nullptr && !has_aux_weights;
  const Tensor* real_aux = has_aux_weights ? aux_input : nullptr;
  const int n_batch = state.time_major ? input->dim(1) : input->dim(0);
  ER_RETURN_IF_ERROR(PrepareRnnCell(ctx, RnnCellLayout{1, 2, 3, 4, 10}, input, real_aux, n_batch, act, asymmetric, 0,
                                    &state.fw));
  ER_RETURN_IF_ERROR(PrepareRnnCell(ctx, RnnCellLayout{5, 6, 7, 8, 11}, state.bw_reads_aux_input ? aux_input : input,
                                    real_aux, n_batch, act, asymmetric, 3, &state.bw));
  const int fw_n = state.fw.dims.num_units, bw_n = state.bw.dims.num_units;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(i), "output", {TensorType::kFloat32}));
  }
  Shape shape = input->shape;
  shape.back() = state.merge_outputs ? fw_n + bw_n : fw_n;
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  if (!state.merge_outputs) {
    shape.back() = bw_n;
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, shape));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, BidiRnnState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* aux_input = ctx.input(kAuxInput);
  const int fw_n = state.fw.dims.num_units, bw_n = state.bw.dims.num_units;
  RnnSequence fw;
  fw.input = input;
  fw.aux_input = state.bw_reads_aux_input ? nullptr : aux_input;
  fw.output = ctx.output(0);
  fw.time_major = state.time_major;
  fw.max_time = state.time_major ? input->dim(0) : input->dim(1);
  fw.output_stride = state.merge_outputs ? fw_n + bw_n : fw_n;
  EvalRnnCell(ctx, state.fw, fw);

  RnnSequence bw = fw;
  bw.input = state.bw_reads_aux_input ? aux_input : input;
  bw.forward = false;
  bw.output = state.merge_outputs ? ctx.output(0) : ctx.output(1);
  bw.output_stride = state.merge_outputs ? fw_n + bw_n : bw_n;
  bw.output_offset = state.merge_outputs ? fw_n : 0;
  EvalRnnCell(ctx, state.bw, bw);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBidirectionalSequenceRnn() {
  return MakeBuiltinWithState<BidiRnnState>(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN, 3,
                                            "float32, hybrid (int8 weights)", Prepare, Eval);
}

}  // namespace edgerun::ops
