// LEAKY_RELU: x > 0 ? x : alpha * x. Quantized types rescale the two sides with their own
// fixed-point multipliers (input_scale / output_scale and input_scale * alpha / output_scale);
// 8-bit nodes that LiteRT hands to XNNPACK use its 8-bit multipliers in kLiteRtDefault mode.
#include <cmath>
#include <type_traits>

#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/activation.h"
#include "ops/activation_util.h"
#include "ops/xnnpack_util.h"
#include "quant/fixed_point.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct LeakyReluState {
  float alpha = 0.0f;
  reference::LeakyReluQuantParams quant;
  bool xnnpack = false;  // 8-bit with XNNPACK's arithmetic
  quant::xnn::LeakyReluParams xnn;
};

// A multiplier of either sign: the magnitude split as usual, the sign kept on the integer part.
bool QuantizeSignedMultiplier(double real, int32_t* multiplier, int* shift) {
  if (!quant::QuantizeMultiplier(std::fabs(real), multiplier, shift)) return false;
  if (real < 0) *multiplier = -*multiplier;
  return true;
}

Status Prepare(OpContext& ctx, LeakyReluState& state) {
  ER_RETURN_IF_ERROR(
      PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  const auto* o = Options<tflite::LeakyReluOptions>(ctx);
  state.alpha = o ? o->alpha() : 0.0f;
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type == TensorType::kFloat32) return Status::Ok();
  ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
  ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
  if (input->type == TensorType::kInt16) {
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, input, "int16 input", 0));
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "int16 output", 0));
  }
  if (!std::isfinite(state.alpha)) return ctx.Error("alpha ", state.alpha, " is not finite");
  state.xnnpack = XnnpackTakes8Bit(ctx, 1) &&
                  quant::xnn::PrepareLeakyRelu(input->scale(), input->zero_point(), output->scale(),
                                               output->zero_point(), state.alpha, &state.xnn);
  if (state.xnnpack) return Status::Ok();
  auto& q = state.quant;
  q.input_zero_point = input->zero_point();
  q.output_zero_point = output->zero_point();
  // Both ratios in float, as TFLite computes them.
  const float alpha_ratio = input->scale() * state.alpha / output->scale();
  const float identity_ratio = input->scale() / output->scale();
  if (!QuantizeSignedMultiplier(alpha_ratio, &q.alpha_multiplier, &q.alpha_shift) ||
      !QuantizeSignedMultiplier(identity_ratio, &q.identity_multiplier, &q.identity_shift)) {
    return ctx.Error("cannot rescale from ", Describe(input), " to ", Describe(output));
  }
  return Status::Ok();
}

template <class T>
void EvalQuantized(OpContext& ctx, const LeakyReluState& state) {
  const Tensor* input = ctx.input(0);
  if constexpr (sizeof(T) == 1) {
    if (state.xnnpack) {
      MapUnary<T>(ctx, [&p = state.xnn](T x) {
        return static_cast<T>(quant::xnn::LeakyRelu(p, x, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
      });
      return;
    }
  }
  if constexpr (std::is_same_v<T, int16_t>) {
    // The vector kernel's domain: zero points 0, shifts its lanes take as the scalar code does.
    const auto& q = state.quant;
    const optimized::LeakyReluI16Fn fn = optimized::ActiveKernels().leaky_relu_i16;
    if (fn != nullptr && q.input_zero_point == 0 && q.output_zero_point == 0 &&
        optimized::VectorRequantShiftOk(q.identity_shift) && optimized::VectorRequantShiftOk(q.alpha_shift)) {
      const optimized::LeakyReluI16Args args{q.identity_multiplier, q.identity_shift, q.alpha_multiplier,
                                             q.alpha_shift};
      fn(input->data_as<int16_t>(), input->num_elements(), args, ctx.output(0)->data_as<int16_t>());
      return;
    }
  }
  reference::QuantizedLeakyRelu<T>(state.quant, input->data_as<T>(), ctx.output(0)->data_as<T>(),
                                   input->num_elements());
}

Status Eval(OpContext& ctx, LeakyReluState& state) {
  switch (ctx.input(0)->type) {
    case TensorType::kUInt8: EvalQuantized<uint8_t>(ctx, state); break;
    case TensorType::kInt8: EvalQuantized<int8_t>(ctx, state); break;
    case TensorType::kInt16: EvalQuantized<int16_t>(ctx, state); break;
    default: {
      const float alpha = state.alpha;
      MapUnary<float>(ctx, [alpha](float x) { return x > 0 ? x : x * alpha; });
      break;
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLeakyRelu() {
  return MakeBuiltinWithState<LeakyReluState>(tflite::BuiltinOperator_LEAKY_RELU, 2, "float32, uint8, int8, int16",
                                              Prepare, Eval);
}

}  // namespace edgerun::ops
