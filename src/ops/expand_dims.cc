// EXPAND_DIMS(input, axis): inserts a dimension of 1 at `axis` (in [-rank-1, rank]; int32 or
// int64, one value). When the axis is not a constant the output is dynamic.
#include "ops/shape_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status OutputShape(OpContext& ctx, Shape* shape) {
  const Tensor* input = ctx.input(0);
  int64_t value = 0;
  ER_RETURN_IF_ERROR(ReadScalarInt(ctx, ctx.input(1), "axis", &value));
  int axis = 0;
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, value, input->rank() + 1, &axis));
  *shape = input->shape;
  shape->insert(shape->begin() + axis, 1);
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  size_t element;
  if (ctx.input(0)->type != TensorType::kString) ER_RETURN_IF_ERROR(ElementSize(ctx, ctx.input(0), "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "axis", {TensorType::kInt32, TensorType::kInt64}));
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->type == TensorType::kString) return CopyStrings(ctx, input, output, output->shape);
  if (output->data != input->data) CopyBytes(output->data, input->data, std::min(input->bytes, output->bytes));
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterExpandDims() {
  return MakeBuiltin(tflite::BuiltinOperator_EXPAND_DIMS, 1, "any fixed-size type, string", Prepare, Eval);
}

}  // namespace edgerun::ops
