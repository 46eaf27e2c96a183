// RNN: one step of a basic RNN cell, h' = act(W x + W_h h + b); the hidden state (input 4) is a
// variable tensor updated in place and also the output. Float, or hybrid (int8 weights).
#include "ops/rnn_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, RnnCell& cell) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 5, 5, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 2, 2));
  const auto* o = Options<tflite::RNNOptions>(ctx);
  Activation act = Activation::kNone;
  if (o) ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &act));
  ER_RETURN_IF_ERROR(PrepareRnnCell(ctx, RnnCellLayout{}, input, nullptr, input->dim(0), act,
                                    o && o->asymmetric_quantize_inputs(), 0, &cell));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kFloat32}));
  return ctx.ResizeOutput(0, {cell.dims.n_batch, cell.dims.num_units});
}

Status Eval(OpContext& ctx, RnnCell& cell) {
  RnnSequence sequence;
  sequence.input = ctx.input(0);
  sequence.output = ctx.output(0);
  sequence.output_stride = cell.dims.num_units;
  EvalRnnCell(ctx, cell, sequence);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRnn() {
  return MakeBuiltinWithState<RnnCell>(tflite::BuiltinOperator_RNN, 3, "float32, hybrid (int8 weights)", Prepare,
                                       Eval);
}

}  // namespace edgerun::ops
