#include "ops/binary_op.h"

namespace edgerun::ops {

Status PrepareBinary(OpContext& ctx, std::initializer_list<TensorType> types, bool same_output_type) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, a, "input 0", types));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, a, b, "inputs"));
  if (same_output_type) ER_RETURN_IF_ERROR(CheckSameType(ctx, a, out, "input and output"));
  Shape shape;
  if (!BroadcastShape(a->shape, b->shape, &shape)) {
    return ctx.Error("shapes ", ShapeToString(a->shape), " and ", ShapeToString(b->shape),
                     " cannot be broadcast together");
  }
  return ctx.ResizeOutput(0, shape);
}

}  // namespace edgerun::ops
