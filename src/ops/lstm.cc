// LSTM: one time step of a long short-term memory cell; the output state and cell state are
// variable tensors updated in place. The full kernel (20 or 24 inputs: optional CIFG, peephole,
// projection, layer norm) runs in float, hybrid (int8 weights) or integer 8x8_16; the basic
// kernel (kernel_type BASIC: 5 inputs, 4 outputs) in float.
#include "kernels/reference/lstm.h"
#include "ops/lstm_util.h"

namespace edgerun::ops {
namespace {

struct LstmState {
  bool basic = false;
  LstmCell cell;
};

// Basic kernel: input, previous activation, weights [4 * depth, input + depth], bias, previous
// state; outputs activation, state, concatenation and gate pre-activations.
Status PrepareBasic(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 5, 5, 4));
  const Tensor* input = ctx.input(0);
  const Tensor* prev_activation = ctx.input(1);
  const Tensor* weights = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  const Tensor* prev_state = ctx.input(4);
  for (const Tensor* t : {input, prev_activation, weights, bias, prev_state}) {
    ER_RETURN_IF_ERROR(CheckType(ctx, t, "basic LSTM tensor", {TensorType::kFloat32}));
  }
  for (int i = 0; i < 4; ++i) {
    ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(i), "basic LSTM output", {TensorType::kFloat32}));
  }
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 2, 2));
  ER_RETURN_IF_ERROR(CheckRank(ctx, prev_activation, "previous activation", 2, 2));
  const int n_batch = input->dim(0), n_input = input->dim(1), depth = prev_activation->dim(1);
  // Limits keep 4 * depth and n_input + depth within int.
  if (depth > (1 << 28) || n_input > (1 << 28)) return ctx.Error("basic LSTM sizes are too large");
  if (prev_activation->dim(0) != n_batch) {
    return ctx.Error("previous activation ", Describe(prev_activation), " must have ", n_batch, " rows");
  }
  if (weights->shape != Shape{4 * depth, n_input + depth}) {
    return ctx.Error("weights ", Describe(weights), " must have shape [", 4 * depth, ",", n_input + depth, "]");
  }
  if (bias->shape != Shape{4 * depth}) return ctx.Error("bias ", Describe(bias), " must have shape [", 4 * depth, "]");
  if (prev_state->shape != Shape{n_batch, depth}) {
    return ctx.Error("previous state ", Describe(prev_state), " must have shape [", n_batch, ",", depth, "]");
  }
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, prev_activation->shape));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, prev_state->shape));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(2, {n_batch, n_input + depth}));
  return ctx.ResizeOutput(3, {n_batch, 4 * depth});
}

Status Prepare(OpContext& ctx, LstmState& state) {
  const auto* o = Options<tflite::LSTMOptions>(ctx);
  state.basic = o && o->kernel_type() == tflite::LSTMKernelType_BASIC;
  if (state.basic) return PrepareBasic(ctx);
  if (ctx.num_inputs() != 20 && ctx.num_inputs() != 24) {
    return ctx.Error("the full LSTM kernel expects 20 or 24 inputs, has ", ctx.num_inputs());
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, has ", ctx.num_outputs());
  ER_RETURN_IF_ERROR(CheckInput(ctx, 0));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 2, 2));
  LstmOptionsValues options;
  ER_RETURN_IF_ERROR(ReadLstmOptions(ctx, o, &options));
  LstmCellLayout layout;
  layout.first_layer_norm = ctx.num_inputs() == 24 ? 20 : -1;
  const int n_batch = input->dim(0);
  ER_RETURN_IF_ERROR(PrepareLstmCell(ctx, layout, input, nullptr, n_batch, ctx.output(0), options,
                                     /*first_temporary=*/0, /*allow_diagonal_recurrent=*/false, &state.cell));
  return ctx.ResizeOutput(0, {n_batch, state.cell.dims.n_output});
}

Status Eval(OpContext& ctx, LstmState& state) {
  if (state.basic) {
    const Tensor* input = ctx.input(0);
    const Tensor* prev_activation = ctx.input(1);
    reference::BasicLstmCellFloat(input->dim(0), input->dim(1), prev_activation->dim(1), input->data_as<float>(),
                                  prev_activation->data_as<float>(), ctx.input(2)->data_as<float>(),
                                  ctx.input(3)->data_as<float>(), ctx.input(4)->data_as<float>(),
                                  ctx.output(1)->data_as<float>(), ctx.output(0)->data_as<float>(),
                                  ctx.output(2)->data_as<float>(), ctx.output(3)->data_as<float>());
    return Status::Ok();
  }
  LstmSequence sequence;
  sequence.input = ctx.input(0);
  sequence.output = ctx.output(0);
  sequence.output_stride = state.cell.dims.n_output;
  return EvalLstmCell(ctx, state.cell, sequence);
}

}  // namespace

OpRegistration RegisterLstm() {
  return MakeBuiltinWithState<LstmState>(tflite::BuiltinOperator_LSTM, 4,
                                         "float32, hybrid (int8 weights), int8 (int16 cell state)", Prepare, Eval);
}

}  // namespace edgerun::ops
