// STABLEHLO_COMPOSITE: a named composite op (e.g. odml.scaled_dot_product_attention) that carries
// its own decomposition subgraph; edgerun runs the decomposition.
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct CompositeState {
  Subgraph* decomposition = nullptr;
};

std::vector<const Tensor*> Inputs(OpContext& ctx) {
  std::vector<const Tensor*> v;
  for (int i = 0; i < ctx.num_inputs(); ++i) v.push_back(ctx.input(i));
  return v;
}

Status Prepare(OpContext& ctx, CompositeState& state) {
  const auto* o = Options2<tflite::StableHLOCompositeOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing StableHLOCompositeOptions");
  for (int i = 0; i < ctx.num_inputs(); ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->decomposition_subgraph_index(), "decomposition", &state.decomposition));
  ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *state.decomposition, Inputs(ctx)));
  Subgraph& d = *state.decomposition;
  if (d.outputs().size() != static_cast<size_t>(ctx.num_outputs())) {
    return ctx.Error("decomposition subgraph ", d.index(), " has ", d.outputs().size(), " outputs, the op ",
                     ctx.num_outputs());
  }
  const bool dynamic = HasDynamicOutputs(d);
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor* out = d.tensor(d.outputs()[i]);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, out, ctx.output(i), "decomposition output and op output"));
    if (dynamic) ctx.MarkDynamic(ctx.output(i));
    else ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, out->shape));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, CompositeState& state) {
  Subgraph& d = *state.decomposition;
  ER_RETURN_IF_ERROR(PassToSubgraph(ctx, d, Inputs(ctx)));
  ER_RETURN_IF_ERROR(d.Invoke());
  for (int i = 0; i < ctx.num_outputs(); ++i) ER_RETURN_IF_ERROR(CopyTensor(ctx, *d.tensor(d.outputs()[i]), ctx.output(i)));
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloComposite() {
  return MakeBuiltinWithState<CompositeState>(tflite::BuiltinOperator_STABLEHLO_COMPOSITE, 1,
                                              "any (runs the decomposition)", Prepare, Eval);
}

}  // namespace edgerun::ops
