// SPARSE_TO_DENSE(indices, output_shape, values, default_value): a tensor of output_shape filled
// with default_value, then values written at the indices (0-D or 1-D indices address a 1-D
// output; 2-D indices hold one coordinate row per value). values is a scalar (used everywhere) or
// one value per index. A non-constant output_shape makes the output dynamic; indices outside the
// shape are an error at eval.
#include "kernels/reference/gather.h"
#include "kernels/reference/movement.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status OutputShape(OpContext& ctx, Shape* shape) { return ReadShape(ctx, ctx.input(1), "output_shape", shape); }

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 4, 4, 1));
  const Tensor* indices = ctx.input(0);
  const Tensor* shape = ctx.input(1);
  const Tensor* values = ctx.input(2);
  const Tensor* fill = ctx.input(3);
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, shape, "output_shape", {TensorType::kInt32, TensorType::kInt64}));
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, values, "values", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, values, fill, "values and default_value"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, values, ctx.output(0), "values and output"));
  if (fill->num_elements() != 1) return ctx.Error("default_value ", Describe(fill), " must hold one value");
  if (indices->rank() > 2 || shape->rank() != 1 || values->rank() > 1) {
    return ctx.Error("expects indices of rank <= 2, a 1-D output_shape and values of rank <= 1; got ",
                     Describe(indices), ", ", Describe(shape), ", ", Describe(values));
  }
  const int64_t depth = indices->rank() == 2 ? indices->dim(1) : 1;
  const int64_t count = indices->rank() == 0 ? 1 : indices->dim(0);
  if (shape->dim(0) != depth) {
    return ctx.Error("indices ", Describe(indices), " do not match output_shape ", Describe(shape));
  }
  if (values->rank() == 1 && values->dim(0) != count) {
    return ctx.Error("values ", Describe(values), " must hold one value per index (", count, ")");
  }
  return PrepareOutput(ctx, 0, shape->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* indices = ctx.input(0);
  const Tensor* values = ctx.input(2);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> coords, offsets;
  ER_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &coords));
  const int depth = output->rank();
  const int64_t count = depth == 0 ? 0 : static_cast<int64_t>(coords.size()) / depth;
  if (!reference::SliceOffsets(coords.data(), count, depth, output->shape, &offsets)) {
    return ctx.Error("indices ", Describe(indices), " hold a coordinate outside the output shape ",
                     ShapeToString(output->shape));
  }
  const size_t element = TensorTypeSize(output->type);
  uint8_t* out = output->data_as<uint8_t>();
  reference::FillElements(out, output->num_elements(), ctx.input(3)->data_as<uint8_t>(), element);
  const bool scalar = values->rank() == 0;
  for (size_t i = 0; i < offsets.size(); ++i) {
    std::memcpy(out + offsets[i] * element, values->data_as<uint8_t>() + (scalar ? 0 : i * element), element);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSparseToDense() {
  return MakeBuiltin(tflite::BuiltinOperator_SPARSE_TO_DENSE, 3, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
