// ONE_HOT(indices, depth, on_value, off_value): a new dimension of size `depth` at `axis` (-1 =
// last) holding on_value where its position equals the index and off_value elsewhere (indices
// outside [0, depth) give an all-off row). Indices int32/int64; depth an int32 scalar (a
// non-constant depth makes the output dynamic).
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

int Axis(const OpContext& ctx) {
  const auto* o = Options<tflite::OneHotOptions>(ctx);
  const int axis = o ? o->axis() : -1;
  return axis == -1 ? ctx.input(0)->rank() : axis;
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  int64_t depth = 0;
  ER_RETURN_IF_ERROR(ReadScalarInt(ctx, ctx.input(1), "depth", &depth));
  if (depth < 0 || depth > std::numeric_limits<int32_t>::max()) return ctx.Error("invalid depth ", depth);
  *shape = ctx.input(0)->shape;
  shape->insert(shape->begin() + Axis(ctx), static_cast<int32_t>(depth));
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 4, 4, 1));
  const Tensor* indices = ctx.input(0);
  const Tensor* on = ctx.input(2);
  const Tensor* off = ctx.input(3);
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "depth", {TensorType::kInt32}));
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, on, "on_value", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, on, off, "on_value and off_value"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, on, ctx.output(0), "on_value and output"));
  if (on->num_elements() != 1 || off->num_elements() != 1) {
    return ctx.Error("on_value ", Describe(on), " and off_value ", Describe(off), " must be scalars");
  }
  const int axis = Axis(ctx);
  if (axis < 0 || axis > indices->rank()) {
    return ctx.Error("axis ", axis, " is out of range for indices ", Describe(indices));
  }
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* indices = ctx.input(0);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &values));
  const int axis = Axis(ctx);
  const int64_t depth = output->dim(axis);
  // Output viewed as [prefix, depth, suffix]; the index for (p, s) is values[p * suffix + s].
  const int64_t prefix = DimProduct(indices->shape, 0, axis);
  const int64_t suffix = DimProduct(indices->shape, axis, indices->rank());
  const size_t element = TensorTypeSize(output->type);
  const uint8_t* on = ctx.input(2)->data_as<uint8_t>();
  const uint8_t* off = ctx.input(3)->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  for (int64_t p = 0; p < prefix; ++p) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t s = 0; s < suffix; ++s) {
        std::memcpy(out, values[p * suffix + s] == d ? on : off, element);
        out += element;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterOneHot() { return MakeBuiltin(tflite::BuiltinOperator_ONE_HOT, 1, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
