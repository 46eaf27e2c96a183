// SHAPE: the input's dimensions as a 1-D int32 or int64 tensor (out_type; the output tensor's type
// decides when the options are absent).
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kInt32, TensorType::kInt64}));
  const auto* o = Options<tflite::ShapeOptions>(ctx);
  if (o && o->out_type() != static_cast<tflite::TensorType>(output->type)) {
    return ctx.Error("out_type ", TensorTypeName(static_cast<TensorType>(o->out_type())),
                     " differs from the output ", Describe(output));
  }
  return ctx.ResizeOutput(0, {ctx.input(0)->rank()});
}

Status Eval(OpContext& ctx) {
  const Shape& shape = ctx.input(0)->shape;
  Tensor* output = ctx.output(0);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (output->type == TensorType::kInt64) output->data_as<int64_t>()[d] = shape[d];
    else output->data_as<int32_t>()[d] = shape[d];
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterShape() { return MakeBuiltin(tflite::BuiltinOperator_SHAPE, 1, "any type -> int32, int64", Prepare, Eval); }

}  // namespace edgerun::ops
