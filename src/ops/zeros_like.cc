// ZEROS_LIKE: a tensor of zeros with the input's shape and type (any fixed-size type).
#include <cstring>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (!IsFixedSizeType(input->type)) return ctx.Unsupported("input ", Describe(input), " is not a numeric type");
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx) {
  Tensor* output = ctx.output(0);
  if (output->bytes > 0) std::memset(output->data, 0, output->bytes);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterZerosLike() {
  return MakeBuiltin(tflite::BuiltinOperator_ZEROS_LIKE, 1, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
