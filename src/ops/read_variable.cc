// READ_VARIABLE: copies a resource variable's current value into the output.
#include <cstring>

#include "core/resources.h"
#include "ops/control_flow_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ctx.MarkDynamic(ctx.output(0));  // the variable's shape is known only once it is assigned
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  int32_t id;
  ER_RETURN_IF_ERROR(ReadResourceId(ctx, ctx.input(0), &id));
  const Tensor* value = ctx.interpreter().resources().Variable(id);
  if (value == nullptr) return ctx.Error("reads resource variable ", id, " before anything assigned it");
  Tensor* out = ctx.output(0);
  if (out->type != value->type) {
    return ctx.Error("variable holds ", TensorTypeName(value->type), ", output ", Describe(out), " expects ",
                     TensorTypeName(out->type));
  }
  return CopyTensor(ctx, *value, out);
}

}  // namespace

OpRegistration RegisterReadVariable() {
  return MakeBuiltin(tflite::BuiltinOperator_READ_VARIABLE, 1, "any", Prepare, Eval);
}

}  // namespace edgerun::ops
