#include "ops/complex_util.h"

namespace edgerun::ops {

Status PrepareComplexToReal(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kComplex64, TensorType::kComplex128}));
  const TensorType real_type = input->type == TensorType::kComplex64 ? TensorType::kFloat32 : TensorType::kFloat64;
  if (ctx.output(0)->type != real_type) {
    return ctx.Error("output ", Describe(ctx.output(0)), " must be ", TensorTypeName(real_type));
  }
  return ctx.ResizeOutput(0, input->shape);
}

}  // namespace edgerun::ops
