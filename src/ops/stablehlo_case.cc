// STABLEHLO_CASE: runs branch `index` (an int32 scalar, input 0) of branch_subgraph_indices on
// inputs 1..N and returns its outputs; an index outside [0, branches) runs the last branch.
// Outputs are dynamic when the branches give different shapes.
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct CaseState {
  std::vector<Subgraph*> branches;
};

std::vector<const Tensor*> BranchInputs(OpContext& ctx) {
  std::vector<const Tensor*> v;
  for (int i = 1; i < ctx.num_inputs(); ++i) v.push_back(ctx.input(i));
  return v;
}

Status Prepare(OpContext& ctx, CaseState& state) {
  const auto* o = Options2<tflite::StablehloCaseOptions>(ctx);
  if (o == nullptr || o->branch_subgraph_indices() == nullptr || o->branch_subgraph_indices()->size() == 0) {
    return ctx.Error("needs at least one branch (StablehloCaseOptions)");
  }
  if (ctx.num_inputs() < 1) return ctx.Error("needs an index input");
  for (int i = 0; i < ctx.num_inputs(); ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  const Tensor* index = ctx.input(0);
  if (index->type != TensorType::kInt32 || index->num_elements() != 1) {
    return ctx.Error("index ", Describe(index), " must be a single int32");
  }
  state.branches.clear();
  for (int32_t b : *o->branch_subgraph_indices()) {
    Subgraph* branch;
    ER_RETURN_IF_ERROR(CalledSubgraph(ctx, b, "branch", &branch));
    state.branches.push_back(branch);
  }
  const auto inputs = BranchInputs(ctx);
  bool static_shapes = true;
  for (Subgraph* branch : state.branches) {
    ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *branch, inputs));
    if (branch->outputs().size() != static_cast<size_t>(ctx.num_outputs())) {
      return ctx.Error("branch subgraph ", branch->index(), " has ", branch->outputs().size(), " outputs, the op ",
                       ctx.num_outputs());
    }
    static_shapes = static_shapes && !HasDynamicOutputs(*branch);
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor* first = state.branches[0]->tensor(state.branches[0]->outputs()[i]);
    bool same = static_shapes;
    for (Subgraph* branch : state.branches) {
      const Tensor* t = branch->tensor(branch->outputs()[i]);
      ER_RETURN_IF_ERROR(CheckSameType(ctx, t, ctx.output(i), "branch output and op output"));
      same = same && t->shape == first->shape;
    }
    if (same) ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, first->shape));
    else ctx.MarkDynamic(ctx.output(i));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, CaseState& state) {
  int32_t index = *ctx.input(0)->data_as<int32_t>();
  const int32_t count = static_cast<int32_t>(state.branches.size());
  if (index < 0 || index >= count) index = count - 1;
  Subgraph* branch = state.branches[index];
  ER_RETURN_IF_ERROR(PassToSubgraph(ctx, *branch, BranchInputs(ctx)));
  ER_RETURN_IF_ERROR(branch->Invoke());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ER_RETURN_IF_ERROR(CopyTensor(ctx, *branch->tensor(branch->outputs()[i]), ctx.output(i)));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloCase() {
  return MakeBuiltinWithState<CaseState>(tflite::BuiltinOperator_STABLEHLO_CASE, 1, "any", Prepare, Eval);
}

}  // namespace edgerun::ops
