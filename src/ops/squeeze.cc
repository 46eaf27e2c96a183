// SQUEEZE: drops dimensions of size 1 (all of them, or those listed in squeeze_dims).
#include <cstring>

#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  const auto* o = Options<tflite::SqueezeOptions>(ctx);
  const int rank = input->rank();
  std::vector<bool> drop(rank, false);
  if (o && o->squeeze_dims() && o->squeeze_dims()->size() > 0) {
    for (int32_t d : *o->squeeze_dims()) {
      int axis;
      ER_RETURN_IF_ERROR(NormalizeAxis(ctx, d, rank, &axis));
      if (input->dim(axis) != 1) return ctx.Error("cannot squeeze dimension ", d, " of ", Describe(input));
      drop[axis] = true;
    }
  } else {
    for (int i = 0; i < rank; ++i) drop[i] = input->dim(i) == 1;
  }
  Shape shape;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) shape.push_back(input->dim(i));
  }
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  if (input->type == TensorType::kString) return CopyStrings(ctx, input, ctx.output(0), ctx.output(0)->shape);
  if (input->bytes > 0) std::memcpy(ctx.output(0)->data, input->data, input->bytes);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSqueeze() { return MakeBuiltin(tflite::BuiltinOperator_SQUEEZE, 2, "any type", Prepare, Eval); }

}  // namespace edgerun::ops
