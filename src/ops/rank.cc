// RANK: the number of dimensions of the input, as an int32 scalar.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt32}));
  return ctx.ResizeOutput(0, {});
}

Status Eval(OpContext& ctx) {
  *ctx.output(0)->data_as<int32_t>() = ctx.input(0)->rank();
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRank() { return MakeBuiltin(tflite::BuiltinOperator_RANK, 1, "any type -> int32", Prepare, Eval); }

}  // namespace edgerun::ops
