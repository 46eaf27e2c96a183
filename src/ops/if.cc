// IF: runs the then or else subgraph on inputs 1..N depending on the bool input 0. Outputs are
// dynamic when the two branches give different shapes.
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct IfState {
  Subgraph* then_branch = nullptr;
  Subgraph* else_branch = nullptr;
};

std::vector<const Tensor*> BranchInputs(OpContext& ctx) {
  std::vector<const Tensor*> v;
  for (int i = 1; i < ctx.num_inputs(); ++i) v.push_back(ctx.input(i));
  return v;
}

Status Prepare(OpContext& ctx, IfState& state) {
  const auto* o = Options<tflite::IfOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing IfOptions");
  if (ctx.num_inputs() < 1) return ctx.Error("needs a condition input");
  for (int i = 0; i < ctx.num_inputs(); ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  const Tensor* cond = ctx.input(0);
  if (cond->type != TensorType::kBool || cond->num_elements() != 1) {
    return ctx.Error("condition ", Describe(cond), " must be a single bool");
  }
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->then_subgraph_index(), "then", &state.then_branch));
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->else_subgraph_index(), "else", &state.else_branch));
  const auto inputs = BranchInputs(ctx);
  bool static_shapes = true;
  for (Subgraph* branch : {state.then_branch, state.else_branch}) {
    ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *branch, inputs));
    if (branch->outputs().size() != static_cast<size_t>(ctx.num_outputs())) {
      return ctx.Error("subgraph ", branch->index(), " has ", branch->outputs().size(), " outputs, the op ",
                       ctx.num_outputs());
    }
    static_shapes = static_shapes && !HasDynamicOutputs(*branch);
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor* a = state.then_branch->tensor(state.then_branch->outputs()[i]);
    const Tensor* b = state.else_branch->tensor(state.else_branch->outputs()[i]);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, a, ctx.output(i), "branch output and op output"));
    ER_RETURN_IF_ERROR(CheckSameType(ctx, b, ctx.output(i), "branch output and op output"));
    if (static_shapes && a->shape == b->shape) ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, a->shape));
    else ctx.MarkDynamic(ctx.output(i));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, IfState& state) {
  Subgraph* branch = *ctx.input(0)->data_as<bool>() ? state.then_branch : state.else_branch;
  ER_RETURN_IF_ERROR(PassToSubgraph(ctx, *branch, BranchInputs(ctx)));
  ER_RETURN_IF_ERROR(branch->Invoke());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ER_RETURN_IF_ERROR(CopyTensor(ctx, *branch->tensor(branch->outputs()[i]), ctx.output(i)));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterIf() { return MakeBuiltinWithState<IfState>(tflite::BuiltinOperator_IF, 1, "any", Prepare, Eval); }

}  // namespace edgerun::ops
