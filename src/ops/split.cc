// SPLIT(axis, input): num_splits equal pieces along `axis` (the axis tensor comes first; negative
// axes count from the end). When the axis is not a constant the outputs are dynamic.
#include "kernels/reference/split.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status ReadAxis(OpContext& ctx, int* axis) {
  int64_t value = 0;
  ER_RETURN_IF_ERROR(ReadScalarInt(ctx, ctx.input(0), "axis", &value));
  const Tensor* input = ctx.input(1);
  if (input->rank() == 0) return ctx.Error("cannot split a scalar ", Describe(input));
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, value, input->rank(), axis));
  if (input->dim(*axis) % ctx.num_outputs() != 0) {
    return ctx.Error("dimension ", *axis, " of ", Describe(input), " does not divide into ", ctx.num_outputs(),
                     " splits");
  }
  return Status::Ok();
}

Status ResizeOutputs(OpContext& ctx, int axis) {
  Shape shape = ctx.input(1)->shape;
  shape[axis] /= ctx.num_outputs();
  for (int i = 0; i < ctx.num_outputs(); ++i) ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, shape));
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  const auto* o = Options<tflite::SplitOptions>(ctx);
  const int num_splits = o ? o->num_splits() : 0;
  if (num_splits < 1 || ctx.num_outputs() != num_splits) {
    return ctx.Error("num_splits ", num_splits, " must be positive and equal the number of outputs (",
                     ctx.num_outputs(), ")");
  }
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, num_splits));
  const Tensor* input = ctx.input(1);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "axis", {TensorType::kInt32, TensorType::kInt64}));
  for (int i = 0; i < num_splits; ++i) ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(i), "input and output"));
  if (!ctx.input(0)->is_constant()) {
    for (int i = 0; i < num_splits; ++i) ctx.MarkDynamic(ctx.output(i));
    return Status::Ok();
  }
  int axis = 0;
  ER_RETURN_IF_ERROR(ReadAxis(ctx, &axis));
  return ResizeOutputs(ctx, axis);
}

Status Eval(OpContext& ctx) {
  int axis = 0;
  ER_RETURN_IF_ERROR(ReadAxis(ctx, &axis));
  if (ctx.output(0)->is_dynamic()) ER_RETURN_IF_ERROR(ResizeOutputs(ctx, axis));
  const Tensor* input = ctx.input(1);
  std::vector<uint8_t*> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) outputs.push_back(ctx.output(i)->data_as<uint8_t>());
  const std::vector<int64_t> sizes(outputs.size(), input->dim(axis) / ctx.num_outputs());
  reference::Split(input->shape, axis, sizes, TensorTypeSize(input->type), input->data_as<uint8_t>(), outputs);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSplit() { return MakeBuiltin(tflite::BuiltinOperator_SPLIT, 4, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
