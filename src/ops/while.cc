// WHILE: loop variables start as the inputs; while cond(vars) is true, vars = body(vars). The
// variables live in the op's outputs. Outputs are dynamic when the body changes their shapes.
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct WhileState {
  Subgraph* cond = nullptr;
  Subgraph* body = nullptr;
};

std::vector<const Tensor*> Outputs(OpContext& ctx) {
  std::vector<const Tensor*> v;
  for (int i = 0; i < ctx.num_outputs(); ++i) v.push_back(ctx.output(i));
  return v;
}

Status Prepare(OpContext& ctx, WhileState& state) {
  const auto* o = Options<tflite::WhileOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing WhileOptions");
  if (ctx.num_inputs() != ctx.num_outputs()) {
    return ctx.Error("has ", ctx.num_inputs(), " inputs and ", ctx.num_outputs(), " outputs; they must match");
  }
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->cond_subgraph_index(), "cond", &state.cond));
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->body_subgraph_index(), "body", &state.body));
  std::vector<const Tensor*> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ER_RETURN_IF_ERROR(CheckInput(ctx, i));
    ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(i), ctx.output(i), "loop variable"));
    inputs.push_back(ctx.input(i));
  }
  ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *state.cond, inputs));
  ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *state.body, inputs));
  if (state.cond->outputs().size() != 1 || state.cond->tensor(state.cond->outputs()[0])->type != TensorType::kBool) {
    return ctx.Error("cond subgraph ", state.cond->index(), " must have one bool output");
  }
  if (state.body->outputs().size() != inputs.size()) {
    return ctx.Error("body subgraph ", state.body->index(), " has ", state.body->outputs().size(), " outputs for ",
                     inputs.size(), " loop variables");
  }
  bool same_shapes = !HasDynamicOutputs(*state.body);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* out = state.body->tensor(state.body->outputs()[i]);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, inputs[i], out, "loop variable and body output"));
    same_shapes = same_shapes && out->shape == inputs[i]->shape && IsFixedSizeType(out->type);
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (same_shapes) ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, inputs[i]->shape));
    else ctx.MarkDynamic(ctx.output(i));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, WhileState& state) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ER_RETURN_IF_ERROR(CopyTensor(ctx, *ctx.input(i), ctx.output(i)));
  const int64_t limit = ctx.interpreter().options().max_while_iterations;
  for (int64_t iteration = 0;; ++iteration) {
    ER_RETURN_IF_ERROR(PassToSubgraph(ctx, *state.cond, Outputs(ctx)));
    ER_RETURN_IF_ERROR(state.cond->Invoke());
    const Tensor* keep_going = state.cond->tensor(state.cond->outputs()[0]);
    if (keep_going->data == nullptr || keep_going->num_elements() < 1) {
      return ctx.Error("cond subgraph returned no value");
    }
    if (!*keep_going->data_as<bool>()) break;
    if (iteration >= limit) {
      return ctx.Error("ran more than ", limit, " iterations (InterpreterOptions::max_while_iterations)");
    }
    ER_RETURN_IF_ERROR(PassToSubgraph(ctx, *state.body, Outputs(ctx)));
    ER_RETURN_IF_ERROR(state.body->Invoke());
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      ER_RETURN_IF_ERROR(CopyTensor(ctx, *state.body->tensor(state.body->outputs()[i]), ctx.output(i)));
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterWhile() {
  return MakeBuiltinWithState<WhileState>(tflite::BuiltinOperator_WHILE, 1, "any", Prepare, Eval);
}

}  // namespace edgerun::ops
