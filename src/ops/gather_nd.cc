// GATHER_ND: each row of the last dimension of `indices` (int16/int32/int64) addresses a slice of
// `params`. Output shape: indices[:-1] + params[indices[-1]:]. Coordinates outside params' shape
// are an error at eval.
#include "kernels/reference/gather.h"
#include "ops/shape_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* params = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  size_t element;
  if (params->type != TensorType::kString) ER_RETURN_IF_ERROR(ElementSize(ctx, params, "params", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, params, ctx.output(0), "params and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt16, TensorType::kInt32, TensorType::kInt64}));
  if (params->rank() < 1) return ctx.Error("params ", Describe(params), " must have rank >= 1");
  if (indices->rank() < 1) return ctx.Error("indices ", Describe(indices), " must have rank >= 1");
  const int depth = indices->dim(indices->rank() - 1);
  if (depth > params->rank()) {
    return ctx.Error("indices ", Describe(indices), " address ", depth, " dimensions of params ", Describe(params));
  }
  Shape shape(indices->shape.begin(), indices->shape.end() - 1);
  shape.insert(shape.end(), params->shape.begin() + depth, params->shape.end());
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* params = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const int depth = indices->dim(indices->rank() - 1);
  std::vector<int64_t> values, offsets;
  ER_RETURN_IF_ERROR(ReadIndices(ctx, indices, "indices", &values));
  const int64_t count = DimProduct(indices->shape, 0, indices->rank() - 1);
  if (!reference::SliceOffsets(values.data(), count, depth, params->shape, &offsets)) {
    return ctx.Error("indices ", Describe(indices), " hold a coordinate outside params ", Describe(params));
  }
  const int64_t elements = DimProduct(params->shape, depth, params->rank());
  if (params->type == TensorType::kString) {
    // The shape from the strings' shape now (a string tensor may change shape without a new
    // prepare), so that the move fills exactly the positions it has.
    Shape shape(indices->shape.begin(), indices->shape.end() - 1);
    shape.insert(shape.end(), params->shape.begin() + depth, params->shape.end());
    return MoveStrings(ctx, params, ctx.output(0), std::move(shape),
                       [&](const uint8_t* src, uint8_t* dst, size_t element) {
                         reference::GatherNd(offsets, elements * static_cast<int64_t>(element), src, dst);
                       });
  }
  const int64_t slice = elements * TensorTypeSize(params->type);
  reference::GatherNd(offsets, slice, params->data_as<uint8_t>(), ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterGatherNd() {
  return MakeBuiltin(tflite::BuiltinOperator_GATHER_ND, 5, "any fixed-size type, string", Prepare, Eval);
}

}  // namespace edgerun::ops
