// VAR_HANDLE: outputs the id of the resource variable named by (container, shared_name); the same
// name gives the same variable in every subgraph of the interpreter.
#include "core/resources.h"
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

struct VarHandleState {
  int32_t id = 0;
};

Status Prepare(OpContext& ctx, VarHandleState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 0, 0, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kResource, TensorType::kInt32}));
  const auto* o = Options<tflite::VarHandleOptions>(ctx);
  const std::string container = o && o->container() ? o->container()->str() : "";
  const std::string shared_name = o && o->shared_name() ? o->shared_name()->str() : "";
  state.id = ctx.interpreter().resources().VariableId(container, shared_name);
  ctx.MarkDynamic(ctx.output(0));
  return Status::Ok();
}

Status Eval(OpContext& ctx, VarHandleState& state) {
  Tensor* out = ctx.output(0);
  out->shape = {};
  return WriteResourceId(out, state.id);
}

}  // namespace

OpRegistration RegisterVarHandle() {
  return MakeBuiltinWithState<VarHandleState>(tflite::BuiltinOperator_VAR_HANDLE, 1, "resource", Prepare, Eval);
}

}  // namespace edgerun::ops
