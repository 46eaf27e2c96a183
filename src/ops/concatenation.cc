// CONCATENATION along one axis (negative axes count from the end). Inputs must agree on every
// other dimension. A fused activation clamps float outputs.
#include "kernels/reference/movement.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct ConcatState {
  int axis = 0;
  Activation activation = Activation::kNone;
};

Status Prepare(OpContext& ctx, ConcatState& state) {
  if (ctx.num_inputs() < 1 || ctx.num_outputs() != 1) return ctx.Error("expects 1 or more inputs and 1 output");
  for (int i = 0; i < ctx.num_inputs(); ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  const Tensor* first = ctx.input(0);
  Tensor* output = ctx.output(0);
  const auto* o = Options<tflite::ConcatenationOptions>(ctx);
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE,
                                     &state.activation));
  if (state.activation != Activation::kNone && first->type != TensorType::kFloat32) {
    return ctx.Error("a fused activation is only supported for float32");
  }
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, o ? o->axis() : 0, first->rank(), &state.axis));
  if (!IsFixedSizeType(first->type)) return ctx.Unsupported("unsupported type ", TensorTypeName(first->type));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, first, output, "input and output"));
  Shape shape = first->shape;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const Tensor* t = ctx.input(i);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, first, t, "inputs"));
    bool match = t->rank() == first->rank();
    for (int d = 0; match && d < t->rank(); ++d) match = d == state.axis || t->dim(d) == first->dim(d);
    if (!match) return ctx.Error("input ", i, " ", Describe(t), " does not match input 0 ", Describe(first),
                                 " outside axis ", state.axis);
    shape[state.axis] += t->dim(state.axis);
  }
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, ConcatState& state) {
  std::vector<const uint8_t*> data;
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    data.push_back(ctx.input(i)->data_as<uint8_t>());
    shapes.push_back(ctx.input(i)->shape);
  }
  Tensor* output = ctx.output(0);
  reference::Concatenate(data, shapes, state.axis, TensorTypeSize(output->type), output->data_as<uint8_t>());
  if (state.activation != Activation::kNone) {
    float lo, hi;
    ActivationRange(state.activation, &lo, &hi);
    float* out = output->data_as<float>();
    for (int64_t i = 0; i < output->num_elements(); ++i) out[i] = std::min(std::max(out[i], lo), hi);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterConcatenation() {
  return MakeBuiltinWithState<ConcatState>(tflite::BuiltinOperator_CONCATENATION, 5, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
