// CALL_ONCE: runs its init subgraph (no inputs, no outputs) on the first Invoke only; models use
// it to initialise resource variables and hash tables.
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct CallOnceState {
  Subgraph* init = nullptr;
  bool done = false;
};

Status Prepare(OpContext& ctx, CallOnceState& state) {
  const auto* o = Options<tflite::CallOnceOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing CallOnceOptions");
  if (ctx.num_inputs() != 0 || ctx.num_outputs() != 0) return ctx.Error("must have no inputs and no outputs");
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->init_subgraph_index(), "init", &state.init));
  if (!state.init->inputs().empty() || !state.init->outputs().empty()) {
    return ctx.Error("init subgraph ", state.init->index(), " must have no inputs and no outputs");
  }
  if (state.init->needs_allocation()) ER_RETURN_IF_ERROR(state.init->AllocateTensors());
  return Status::Ok();
}

Status Eval(OpContext& ctx, CallOnceState& state) {
  if (state.done) return Status::Ok();
  ER_RETURN_IF_ERROR(state.init->Invoke());
  state.done = true;
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterCallOnce() {
  return MakeBuiltinWithState<CallOnceState>(tflite::BuiltinOperator_CALL_ONCE, 1, "none", Prepare, Eval);
}

}  // namespace edgerun::ops
