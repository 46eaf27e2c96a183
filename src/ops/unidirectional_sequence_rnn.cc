// UNIDIRECTIONAL_SEQUENCE_RNN: a basic RNN cell over a sequence, time-major [time, batch, input]
// or batch-major [batch, time, input]; output [.., .., num_units]. Float, or hybrid (int8
// weights).
#include "ops/rnn_util.h"

namespace edgerun::ops {
namespace {

struct SequenceRnnState {
  RnnCell cell;
  bool time_major = false;
};

Status Prepare(OpContext& ctx, SequenceRnnState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 5, 5, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 3, 3));
  const auto* o = Options<tflite::SequenceRNNOptions>(ctx);
  Activation act = Activation::kNone;
  if (o) ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &act));
  state.time_major = o && o->time_major();
  const int n_batch = state.time_major ? input->dim(1) : input->dim(0);
  ER_RETURN_IF_ERROR(
      PrepareRnnCell(ctx, RnnCellLayout{}, input, nullptr, n_batch, act, o && o->asymmetric_quantize_inputs(), 0, &state.cell));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kFloat32}));
  Shape shape = input->shape;
  shape.back() = state.cell.dims.num_units;
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, SequenceRnnState& state) {
  RnnSequence sequence;
  sequence.input = ctx.input(0);
  sequence.output = ctx.output(0);
  sequence.time_major = state.time_major;
  sequence.max_time = state.time_major ? sequence.input->dim(0) : sequence.input->dim(1);
  sequence.output_stride = state.cell.dims.num_units;
  EvalRnnCell(ctx, state.cell, sequence);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterUnidirectionalSequenceRnn() {
  return MakeBuiltinWithState<SequenceRnnState>(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN, 3,
                                                "float32, hybrid (int8 weights)", Prepare, Eval);
}

}  // namespace edgerun::ops
