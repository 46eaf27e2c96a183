// HARD_SWISH: x * relu6(x + 3) / 6. uint8/int8 in TFLite's 16-bit fixed-point formulation.
#include <algorithm>
#include <limits>

#include "kernels/reference/activation.h"
#include "ops/activation_util.h"
#include "quant/fixed_point.h"

namespace edgerun::ops {
namespace {

struct HardSwishState {
  reference::HardSwishQuantParams quant;
};

// A Q0.31 multiplier rounded to Q0.15 (TFLite's DownScaleInt32ToInt16Multiplier).
int16_t ToInt16Multiplier(int32_t multiplier) {
  constexpr int32_t kRounding = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRounding) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((multiplier + kRounding) >> 16);
}

Status Prepare(OpContext& ctx, HardSwishState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type == TensorType::kFloat32) return Status::Ok();
  ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
  ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
  auto& q = state.quant;
  q.input_zero_point = input->zero_point();
  q.output_zero_point = output->zero_point();
  // All in float, as TFLite: the input on a 128x finer scale, the relu-ish part on 3 / 32768.
  const float hires_input_scale = (1.0f / 128.0f) * input->scale();
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_ratio = hires_input_scale / output->scale();
  const float reluish_ratio = hires_input_scale / reluish_scale;
  int32_t multiplier = 0;
  if (!quant::QuantizeMultiplier(output_ratio, &multiplier, &q.output_exponent) || q.output_exponent > 0) {
    return ctx.Unsupported("output scale ", output->scale(), " is too small for input scale ", input->scale());
  }
  q.output_multiplier = ToInt16Multiplier(multiplier);
  if (!quant::QuantizeMultiplier(reluish_ratio, &multiplier, &q.reluish_exponent)) {
    return ctx.Error("input scale ", input->scale(), " is not usable");
  }
  q.reluish_multiplier = ToInt16Multiplier(multiplier);
  return Status::Ok();
}

template <class T>
void EvalQuantized(OpContext& ctx, const HardSwishState& state) {
  const Tensor* input = ctx.input(0);
  reference::QuantizedHardSwish<T>(state.quant, input->data_as<T>(), ctx.output(0)->data_as<T>(),
                                   input->num_elements());
}

Status Eval(OpContext& ctx, HardSwishState& state) {
  switch (ctx.input(0)->type) {
    case TensorType::kUInt8: EvalQuantized<uint8_t>(ctx, state); break;
    case TensorType::kInt8: EvalQuantized<int8_t>(ctx, state); break;
    default:
      MapUnary<float>(ctx, [](float x) { return x * std::min(6.0f, std::max(0.0f, x + 3.0f)) * (1.0f / 6.0f); });
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterHardSwish() {
  return MakeBuiltinWithState<HardSwishState>(tflite::BuiltinOperator_HARD_SWISH, 1, "float32, uint8, int8", Prepare,
                                              Eval);
}

}  // namespace edgerun::ops
