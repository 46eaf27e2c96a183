// PACK: stacks values_count tensors of one shape along a new dimension `axis` (in
// [-rank-1, rank]). Bytes are moved unchanged, so quantized tensors keep their values.
#include "kernels/reference/movement.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

struct PackState {
  int axis = 0;
};

Status Prepare(OpContext& ctx, PackState& state) {
  const auto* o = Options<tflite::PackOptions>(ctx);
  const int count = ctx.num_inputs();
  if (count < 1 || (o && o->values_count() != count)) {
    return ctx.Error("values_count ", o ? o->values_count() : 0, " must equal the number of inputs (", count, ")");
  }
  ER_RETURN_IF_ERROR(CheckIo(ctx, count, count, 1));
  const Tensor* first = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, first, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, first, ctx.output(0), "input and output"));
  for (int i = 1; i < count; ++i) {
    ER_RETURN_IF_ERROR(CheckSameType(ctx, first, ctx.input(i), "inputs"));
    if (ctx.input(i)->shape != first->shape) {
      return ctx.Error("input ", i, " ", Describe(ctx.input(i)), " differs in shape from input 0 ", Describe(first));
    }
  }
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, o ? o->axis() : 0, first->rank() + 1, &state.axis));
  Shape shape = first->shape;
  shape.insert(shape.begin() + state.axis, count);
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, PackState& state) {
  // Stacking = concatenating the inputs seen with a dimension of 1 inserted at the axis.
  std::vector<const uint8_t*> data;
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    Shape shape = ctx.input(i)->shape;
    shape.insert(shape.begin() + state.axis, 1);
    data.push_back(ctx.input(i)->data_as<uint8_t>());
    shapes.push_back(std::move(shape));
  }
  Tensor* output = ctx.output(0);
  reference::Concatenate(data, shapes, state.axis, TensorTypeSize(output->type), output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterPack() {
  return MakeBuiltinWithState<PackState>(tflite::BuiltinOperator_PACK, 4, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
