#include "ops/reduce_util.h"

#include <algorithm>

namespace edgerun::ops {
namespace {

Status ComputeAxes(OpContext& ctx, ReduceState& state, Shape* out_shape) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> axes;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "axis", &axes));
  const int rank = input->rank();
  state.reduced.assign(rank, false);
  state.axes.clear();
  // A scalar has nothing to reduce: TFLite ignores the axes then.
  for (int64_t a : rank > 0 ? axes : std::vector<int64_t>{}) {
    int axis;
    ER_RETURN_IF_ERROR(NormalizeAxis(ctx, a, rank, &axis));
    if (!state.reduced[axis]) state.axes.push_back(axis);
    state.reduced[axis] = true;
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
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  const Tensor* axis = ctx.input(1);
  if (axis->type != TensorType::kInt32 && axis->type != TensorType::kInt64) {
    return ctx.Error("axis ", Describe(axis), " must be int32 or int64");
  }
  if (axis->rank() > 1) return ctx.Error("axis ", Describe(axis), " must be a scalar or a vector");
  if (!axis->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeAxes(ctx, state, &shape));
  return ctx.ResizeOutput(0, shape);
}

Status ResolveReduce(OpContext& ctx, ReduceState& state) {
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeAxes(ctx, state, &shape));
  if (!ctx.output(0)->is_dynamic()) return Status::Ok();
  return ctx.ResizeOutput(0, shape);
}

Status CheckSameQuantization(const OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type != TensorType::kUInt8 && input->type != TensorType::kInt8 && input->type != TensorType::kInt16) {
    return Status::Ok();
  }
  if (input->scale() != output->scale() || input->zero_point() != output->zero_point()) {
    return ctx.Error("input ", Describe(input), " and output ", Describe(output),
                     " must have the same scale and zero point");
  }
  return Status::Ok();
}

Status PrepareReduceExtremum(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state,
                                   {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                    TensorType::kInt8, TensorType::kInt16}));
  return CheckSameQuantization(ctx);
}

}  // namespace edgerun::ops
