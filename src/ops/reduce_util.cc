#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

Status ComputeAxes(OpContext& ctx, ReduceState& state, Shape* out_shape) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> axes;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "axis", &axes));
  const int rank = input->rank();
  state.reduced.assign(rank, false);
  for (int64_t a : axes) {
    int axis;
    ER_RETURN_IF_ERROR(NormalizeAxis(ctx, a, rank, &axis));
    if (rank > 0) state.reduced[axis] = true;
  }
  const auto* o = Options<tflite::ReducerOptions>(ctx);
  const bool keep_dims = o && o->keep_dims();
  out_shape->clear();
  state.reduced_count = 1;
  for (int d = 0; d < rank; ++d) {
    if (state.reduced[d]) {
      state.reduced_count *= input->dim(d);
      if (keep_dims) out_shape->push_back(1);
    } else {
      out_shape->push_back(input->dim(d));
    }
  }
  return Status::Ok();
}

}  // namespace

Status PrepareReduce(OpContext& ctx, ReduceState& state, std::initializer_list<TensorType> types) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "input", types));
  if (!ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeAxes(ctx, state, &shape));
  return ctx.ResizeOutput(0, shape);
}

Status ResolveReduce(OpContext& ctx, ReduceState& state) {
  if (!ctx.output(0)->is_dynamic()) return Status::Ok();
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeAxes(ctx, state, &shape));
  return ctx.ResizeOutput(0, shape);
}

}  // namespace edgerun::ops
