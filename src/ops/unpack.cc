// UNPACK: splits the input along `axis` into dim(axis) tensors that drop that dimension.
// Bytes are moved unchanged, so quantized tensors keep their values.
#include "kernels/reference/split.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

struct UnpackState {
  int axis = 0;
};

Status Prepare(OpContext& ctx, UnpackState& state) {
  const auto* o = Options<tflite::UnpackOptions>(ctx);
  if (ctx.num_inputs() != 1) return ctx.Error("expects 1 input, has ", ctx.num_inputs());
  ER_RETURN_IF_ERROR(CheckInput(ctx, 0));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  if (input->rank() < 1) return ctx.Error("cannot unpack a scalar ", Describe(input));
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, o ? o->axis() : 0, input->rank(), &state.axis));
  const int count = input->dim(state.axis);
  if (ctx.num_outputs() != count || (o && o->num() != count)) {
    return ctx.Error("unpacking dimension ", state.axis, " of ", Describe(input), " needs ", count,
                     " outputs; the op has ", ctx.num_outputs(), " (num ", o ? o->num() : 0, ")");
  }
  Shape shape = input->shape;
  shape.erase(shape.begin() + state.axis);
  for (int i = 0; i < count; ++i) {
    ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(i), "input and output"));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, shape));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, UnpackState& state) {
  const Tensor* input = ctx.input(0);
  std::vector<uint8_t*> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) outputs.push_back(ctx.output(i)->data_as<uint8_t>());
  reference::Split(input->shape, state.axis, std::vector<int64_t>(outputs.size(), 1), TensorTypeSize(input->type),
                   input->data_as<uint8_t>(), outputs);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterUnpack() {
  return MakeBuiltinWithState<UnpackState>(tflite::BuiltinOperator_UNPACK, 4, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
