// SCATTER_ND(indices, updates, shape): a zero tensor of `shape` into which each update slice is
// added at the coordinates of its row of `indices` (duplicates accumulate; OR for bool). The
// output is dynamic when `shape` is not a constant. Coordinates outside `shape` are an error.
#include "kernels/reference/gather.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

// Checks indices [..., depth] and updates [..., shape[depth:]] against `shape`.
Status OutputShape(OpContext& ctx, Shape* shape) {
  const Tensor* indices = ctx.input(0);
  const Tensor* updates = ctx.input(1);
  ER_RETURN_IF_ERROR(ReadShape(ctx, ctx.input(2), "shape", shape));
  const int outer = indices->rank() - 1;
  const int depth = indices->dim(outer);
  bool ok = depth <= static_cast<int>(shape->size()) && updates->rank() == outer + static_cast<int>(shape->size()) - depth;
  for (int d = 0; ok && d < outer; ++d) ok = updates->dim(d) == indices->dim(d);
  for (int d = outer; ok && d < updates->rank(); ++d) ok = updates->dim(d) == (*shape)[depth + d - outer];
  if (!ok) {
    return ctx.Error("updates ", Describe(updates), " do not match indices ", Describe(indices), " and shape ",
                     ShapeToString(*shape));
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* indices = ctx.input(0);
  const Tensor* updates = ctx.input(1);
  const Tensor* shape = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, updates, "updates",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt32,
                                TensorType::kInt64, TensorType::kBool}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, updates, ctx.output(0), "updates and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, indices, shape, "indices and shape"));
  if (indices->rank() < 1 || updates->rank() < 1 || shape->rank() != 1) {
    return ctx.Error("expects indices and updates of rank >= 1 and a 1-D shape; got ", Describe(indices), ", ",
                     Describe(updates), ", ", Describe(shape));
  }
  return PrepareOutput(ctx, 0, shape->is_constant(), OutputShape);
}

template <class T>
void Scatter(const std::vector<int64_t>& offsets, int64_t slice, const Tensor* updates, Tensor* output) {
  reference::ScatterNd(offsets, slice, updates->data_as<T>(), output->num_elements(), output->data_as<T>());
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* indices = ctx.input(0);
  const Tensor* updates = ctx.input(1);
  Tensor* output = ctx.output(0);
  const int depth = indices->dim(indices->rank() - 1);
  std::vector<int64_t> values, offsets;
  ER_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &values));
  const int64_t count = DimProduct(indices->shape, 0, indices->rank() - 1);
  if (!reference::SliceOffsets(values.data(), count, depth, output->shape, &offsets)) {
    return ctx.Error("indices ", Describe(indices), " hold a coordinate outside the output shape ",
                     ShapeToString(output->shape));
  }
  const int64_t slice = DimProduct(output->shape, depth, output->rank());
  switch (updates->type) {
    case TensorType::kFloat32: Scatter<float>(offsets, slice, updates, output); break;
    case TensorType::kUInt8: Scatter<uint8_t>(offsets, slice, updates, output); break;
    case TensorType::kInt8: Scatter<int8_t>(offsets, slice, updates, output); break;
    case TensorType::kInt32: Scatter<int32_t>(offsets, slice, updates, output); break;
    case TensorType::kInt64: Scatter<int64_t>(offsets, slice, updates, output); break;
    case TensorType::kBool: Scatter<bool>(offsets, slice, updates, output); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(updates->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterScatterNd() {
  return MakeBuiltin(tflite::BuiltinOperator_SCATTER_ND, 1, "float32, int8, uint8, int32, int64, bool", Prepare, Eval);
}

}  // namespace edgerun::ops
