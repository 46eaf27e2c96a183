// ASSIGN_VARIABLE: stores a copy of the value in the resource variable.
#include "core/resources.h"
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 0));
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  int32_t id;
  ER_RETURN_IF_ERROR(ReadResourceId(ctx, ctx.input(0), &id));
  Status st = ctx.interpreter().resources().AssignVariable(id, *ctx.input(1));
  return st.ok() ? st : st.WithContext(ctx.Location());
}

}  // namespace

OpRegistration RegisterAssignVariable() {
  return MakeBuiltin(tflite::BuiltinOperator_ASSIGN_VARIABLE, 1, "any", Prepare, Eval);
}

}  // namespace edgerun::ops
