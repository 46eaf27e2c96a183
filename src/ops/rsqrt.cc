// RSQRT: 1 / sqrt(x); float32, and quantized int8 (fixed-point inverse square root, tabulated
// for all 256 inputs at prepare) and int16 (lookup table) exactly as TFLite. Quantized inputs
// below the zero point (negative reals) are an error at run time; a real 0 gives the largest
// output.
#include <cmath>

#include "ops/elementwise_util.h"
#include "quant/fixed_point.h"

namespace edgerun::ops {
namespace {

struct RsqrtState {
  elementwise::LutState lut;  // int16: interpolated; int8: RsqrtInt8 of every input
  int32_t multiplier = 0;     // int8: 1 / (sqrt(input_scale) * output_scale)
  int shift = 0;
  int32_t input_zero_point = 0, output_zero_point = 0;
};

// The int8 kernel scales 1/sqrt(q) up by 2^20 to keep it an integer, then back down.
constexpr int kInt8Headroom = 20;

int8_t RsqrtInt8(int8_t q, const RsqrtState& s) {
  const int32_t value = q - s.input_zero_point;
  if (value == 0) return std::numeric_limits<int8_t>::max();
  int32_t inv_sqrt_multiplier;
  int inv_sqrt_shift;
  reference::math::InvSqrtQuantizedMultiplierExp(value, &inv_sqrt_multiplier, &inv_sqrt_shift);
  const int32_t scaled =
      quant::MultiplyByQuantizedMultiplier(int32_t{1}, inv_sqrt_multiplier, inv_sqrt_shift + kInt8Headroom);
  const int32_t result =
      quant::MultiplyByQuantizedMultiplier(scaled, s.multiplier, s.shift - kInt8Headroom) + s.output_zero_point;
  return static_cast<int8_t>(std::clamp<int32_t>(result, -128, 127));
}

Status Prepare(OpContext& ctx, RsqrtState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type == TensorType::kFloat32) return Status::Ok();
  state.input_zero_point = input->zero_point();
  state.output_zero_point = output->zero_point();
  if (input->type == TensorType::kInt16) {
    const float output_scale = output->scale();
    return elementwise::PrepareLut(
        ctx, state.lut, [output_scale](float x) { return x <= 0.0f ? 32767.0f * output_scale : 1.0f / std::sqrt(x); });
  }
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<int8_t>(ctx, input, "input"));
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<int8_t>(ctx, output, "output"));
  const double real_multiplier = 1.0 / static_cast<double>(std::sqrt(input->scale()) * output->scale());
  if (!quant::QuantizeMultiplier(real_multiplier, &state.multiplier, &state.shift) ||
      state.shift - kInt8Headroom < -31 || state.shift - kInt8Headroom > 30) {
    return ctx.Unsupported("RSQRT output multiplier ", real_multiplier, " is out of range");
  }
  // The fixed-point inverse square root costs ~50 ns a value; the 256 possible inputs are
  // computed once here (those below the zero point are rejected at run time, their entries unused).
  for (int q = state.input_zero_point; q <= 127; ++q) {
    state.lut.lut8[static_cast<uint8_t>(q)] = RsqrtInt8(static_cast<int8_t>(q), state);
  }
  return Status::Ok();
}

template <class T>
Status CheckNonNegative(OpContext& ctx, int32_t zero_point) {
  const Tensor* input = ctx.input(0);
  const T* in = input->data_as<T>();
  for (int64_t i = 0, n = input->num_elements(); i < n; ++i) {
    if (in[i] < zero_point) {
      return ctx.Error("RSQRT is only defined for non-negative inputs; element ", i, " of ", Describe(input), " is ",
                       static_cast<int>(in[i]), " below the zero point ", zero_point);
    }
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, RsqrtState& state) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      MapUnary<float>(ctx, [](float x) { return 1.0f / std::sqrt(x); });
      break;
    case TensorType::kInt8:
      ER_RETURN_IF_ERROR(CheckNonNegative<int8_t>(ctx, state.input_zero_point));
      elementwise::EvalLut(ctx, state.lut);
      break;
    default:
      ER_RETURN_IF_ERROR(CheckNonNegative<int16_t>(ctx, state.input_zero_point));
      elementwise::EvalLut(ctx, state.lut);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRsqrt() {
  return MakeBuiltinWithState<RsqrtState>(tflite::BuiltinOperator_RSQRT, 3, "float32, int8, int16 (quantized)", Prepare,
                                          Eval);
}

}  // namespace edgerun::ops
