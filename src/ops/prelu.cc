// PRELU: x >= 0 ? x : alpha * x, alpha broadcast against the input (the output keeps the input's
// shape). Quantized types rescale the two sides with their own fixed-point multipliers.
#include "kernels/reference/activation.h"
#include "kernels/reference/broadcast.h"
#include "ops/activation_util.h"
#include "quant/fixed_point.h"

namespace edgerun::ops {
namespace {

struct PreluState {
  reference::PreluQuantParams quant;
};

Status Prepare(OpContext& ctx, PreluState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* alpha = ctx.input(1);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, alpha, "input and alpha"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, output, "input and output"));
  Shape shape;
  if (!BroadcastShape(input->shape, alpha->shape, &shape) || shape != input->shape) {
    return ctx.Error("alpha ", Describe(alpha), " does not broadcast to input ", Describe(input));
  }
  if (input->type != TensorType::kFloat32) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, alpha, "alpha"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
    auto& q = state.quant;
    q.input_offset = -input->zero_point();
    q.alpha_offset = -alpha->zero_point();
    q.output_offset = output->zero_point();
    // Ratios in float, as TFLite computes them.
    const float ratio_1 = input->scale() / output->scale();
    const float ratio_2 = input->scale() * alpha->scale() / output->scale();
    if (!quant::QuantizeMultiplier(ratio_1, &q.multiplier_1, &q.shift_1) ||
        !quant::QuantizeMultiplier(ratio_2, &q.multiplier_2, &q.shift_2)) {
      return ctx.Error("cannot rescale ", Describe(input), " to ", Describe(output));
    }
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class T, class Op>
void Run(OpContext& ctx, Op op) {
  const Tensor* input = ctx.input(0);
  const Tensor* alpha = ctx.input(1);
  Tensor* output = ctx.output(0);
  reference::BroadcastBinary(input->shape, input->data_as<T>(), alpha->shape, alpha->data_as<T>(), output->shape,
                             output->data_as<T>(), op);
}

Status Eval(OpContext& ctx, PreluState& state) {
  const auto& q = state.quant;
  switch (ctx.input(0)->type) {
    case TensorType::kUInt8:
      Run<uint8_t>(ctx, [&q](uint8_t x, uint8_t a) { return reference::QuantizedPrelu(q, x, a); });
      break;
    case TensorType::kInt8:
      Run<int8_t>(ctx, [&q](int8_t x, int8_t a) { return reference::QuantizedPrelu(q, x, a); });
      break;
    default: Run<float>(ctx, [](float x, float a) { return x >= 0.0f ? x : x * a; }); break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterPrelu() {
  return MakeBuiltinWithState<PreluState>(tflite::BuiltinOperator_PRELU, 1, "float32, uint8, int8", Prepare, Eval);
}

}  // namespace edgerun::ops
