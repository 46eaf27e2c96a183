// GATHER: picks slices of `input` along `axis` at the positions in `indices` (int16/int32/int64).
// With batch_dims = b the first b dims of input and indices are batch dims walked together.
// Output shape: input[:axis] + indices[batch_dims:] + input[axis+1:]. Indices outside
// [0, input[axis]) are an error at eval.
#include "kernels/reference/gather.h"
#include "ops/shape_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

struct GatherState {
  int axis = 0;
  int batch_dims = 0;
};

Status Prepare(OpContext& ctx, GatherState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  size_t element;
  if (input->type == TensorType::kString) {
    if (input->rank() != 1) return ctx.Unsupported("string input ", Describe(input), " must be 1-D (as in TFLite)");
  } else {
    ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  }
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt16, TensorType::kInt32, TensorType::kInt64}));
  const auto* o = Options<tflite::GatherOptions>(ctx);
  if (input->rank() == 0) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, o ? o->axis() : 0, input->rank(), &state.axis));
  int batch_dims = o ? o->batch_dims() : 0;
  if (batch_dims < 0) batch_dims += indices->rank();
  if (batch_dims < 0 || batch_dims > state.axis || batch_dims > indices->rank()) {
    return ctx.Error("batch_dims ", o ? o->batch_dims() : 0, " is out of range for axis ", state.axis, " and indices ",
                     Describe(indices));
  }
  for (int d = 0; d < batch_dims; ++d) {
    if (input->dim(d) != indices->dim(d)) {
      return ctx.Error("batch dimension ", d, " differs between input ", Describe(input), " and indices ",
                       Describe(indices));
    }
  }
  state.batch_dims = batch_dims;
  Shape shape(input->shape.begin(), input->shape.begin() + state.axis);
  shape.insert(shape.end(), indices->shape.begin() + batch_dims, indices->shape.end());
  shape.insert(shape.end(), input->shape.begin() + state.axis + 1, input->shape.end());
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, GatherState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  std::vector<int64_t> positions;
  ER_RETURN_IF_ERROR(ReadIndices(ctx, indices, "indices", &positions));
  const int64_t axis_size = input->dim(state.axis);
  for (int64_t p : positions) {
    if (p < 0 || p >= axis_size) {
      return ctx.Error("index ", p, " in ", Describe(indices), " is out of range [0, ", axis_size, ") for axis ",
                       state.axis, " of ", Describe(input));
    }
  }
  const int64_t batch = DimProduct(input->shape, 0, state.batch_dims);
  const int64_t outer = DimProduct(input->shape, state.batch_dims, state.axis);
  const int64_t inner = DimProduct(input->shape, state.axis + 1, input->rank());
  const int64_t coords = DimProduct(indices->shape, state.batch_dims, indices->rank());
  auto position = [&](int64_t b, int64_t c) { return positions[b * coords + c]; };
  if (input->type == TensorType::kString) {
    // The shape from the strings' shape now (a string tensor may change shape without a new
    // prepare), so that the move fills exactly the positions it has.
    Shape shape(input->shape.begin(), input->shape.begin() + state.axis);
    shape.insert(shape.end(), indices->shape.begin() + state.batch_dims, indices->shape.end());
    shape.insert(shape.end(), input->shape.begin() + state.axis + 1, input->shape.end());
    return MoveStrings(ctx, input, ctx.output(0), std::move(shape),
                       [&](const uint8_t* src, uint8_t* dst, size_t element) {
                         reference::Gather(batch, outer, axis_size, coords, inner * element, src, position, dst);
                       });
  }
  reference::Gather(batch, outer, axis_size, coords, inner * TensorTypeSize(input->type), input->data_as<uint8_t>(),
                    position, ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterGather() {
  return MakeBuiltinWithState<GatherState>(tflite::BuiltinOperator_GATHER, 7, "any fixed-size type, string (1-D)", Prepare, Eval);
}

}  // namespace edgerun::ops
