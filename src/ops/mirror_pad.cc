// MIRROR_PAD(input, paddings [rank, 2]): pads each dimension with its own mirror image. REFLECT
// leaves out the edge element (pads up to dim - 1), SYMMETRIC repeats it (pads up to dim).
// Non-constant paddings make the output dynamic.
#include "kernels/reference/layout.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

// The output shape and, for each output dim, the input index of every output position. The maps
// are built only for an output that is non-empty and within max_tensor_bytes: a huge dimension of
// an empty tensor must not cost billions of map entries.
Status IndexMaps(OpContext& ctx, Shape* out_shape, std::vector<std::vector<int32_t>>* maps) {
  const Tensor* input = ctx.input(0);
  const Tensor* paddings = ctx.input(1);
  const int rank = input->rank();
  if (paddings->rank() != 2 || paddings->dim(0) != rank || paddings->dim(1) != 2) {
    return ctx.Error("paddings ", Describe(paddings), " must have shape [", rank, ",2]");
  }
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, paddings, "paddings", &values));
  const auto* o = Options<tflite::MirrorPadOptions>(ctx);
  const bool reflect = !o || o->mode() == tflite::MirrorPadMode_REFLECT;
  maps->assign(rank, {});
  out_shape->assign(rank, 0);
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input->dim(d), before = values[2 * d], after = values[2 * d + 1];
    const int64_t limit = reflect ? dim - 1 : dim;  // the most a mirror can add on one side
    const bool valid = before >= 0 && after >= 0 && (before == 0 || before <= limit) &&
                       (after == 0 || after <= limit) && dim + before + after <= std::numeric_limits<int32_t>::max();
    if (!valid) {
      return ctx.Error("padding [", before, ", ", after, "] of dimension ", d, " of ", Describe(input),
                       " must be in [0, ", std::max<int64_t>(limit, 0), "] for ", reflect ? "REFLECT" : "SYMMETRIC");
    }
    (*out_shape)[d] = static_cast<int32_t>(dim + before + after);
  }
  int64_t elements = 1;
  const int64_t max_elements =
      static_cast<int64_t>(ctx.interpreter().options().max_tensor_bytes / std::max<size_t>(1, TensorTypeSize(input->type)));
  for (int32_t size : *out_shape) {
    if (size == 0) return Status::Ok();  // empty output: nothing to map
    elements = elements > max_elements / size ? max_elements + 1 : elements * size;
  }
  if (elements > max_elements) {
    return ctx.Error("padded output ", ShapeToString(*out_shape), " is over the limit of ",
                     ctx.interpreter().options().max_tensor_bytes, " bytes (InterpreterOptions::max_tensor_bytes)");
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input->dim(d), before = values[2 * d], after = values[2 * d + 1];
    std::vector<int32_t>& map = (*maps)[d];
    for (int64_t i = -before; i < dim + after; ++i) {
      int64_t from = i;
      if (i < 0) from = reflect ? -i : -i - 1;
      if (i >= dim) from = reflect ? 2 * dim - 2 - i : 2 * dim - 1 - i;
      map.push_back(static_cast<int32_t>(from));
    }
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<std::vector<int32_t>> maps;
  return IndexMaps(ctx, shape, &maps);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, ctx.input(0), "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "paddings", {TensorType::kInt32, TensorType::kInt64}));
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  std::vector<std::vector<int32_t>> maps;
  Shape shape;
  ER_RETURN_IF_ERROR(IndexMaps(ctx, &shape, &maps));
  if (ctx.output(0)->num_elements() == 0) return Status::Ok();
  reference::GatherPerDim(input->shape, maps, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                          ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMirrorPad() {
  return MakeBuiltin(tflite::BuiltinOperator_MIRROR_PAD, 3, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
