// SQUARED_DIFFERENCE: (a - b)^2 with broadcasting; float32, int32 (wrapping) and quantized int8
// (TFLite's integer kernel: both inputs rescaled to a common scale with 7 bits of headroom,
// the difference squared, then rescaled to the output).
#include "ops/elementwise_util.h"
#include "quant/fixed_point.h"

namespace edgerun::ops {
namespace {

constexpr int kLeftShift = 7;

struct SquaredDifferenceState {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_shift = 0, input2_shift = 0, output_shift = 0;
};

Status PrepareInt8(OpContext& ctx, SquaredDifferenceState& s) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<int8_t>(ctx, a, "input 0"));
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<int8_t>(ctx, b, "input 1"));
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<int8_t>(ctx, out, "output"));
  s.input1_offset = -a->zero_point();
  s.input2_offset = -b->zero_point();
  s.output_offset = out->zero_point();
  const double twice_max_input_scale = 2.0 * std::max(a->scale(), b->scale());
  const double real_input1 = a->scale() / twice_max_input_scale;
  const double real_input2 = b->scale() / twice_max_input_scale;
  const double real_output =
      twice_max_input_scale * twice_max_input_scale / ((1 << (2 * kLeftShift)) * static_cast<double>(out->scale()));
  if (!quant::QuantizeMultiplierSmallerThanOneExp(real_input1, &s.input1_multiplier, &s.input1_shift) ||
      !quant::QuantizeMultiplierSmallerThanOneExp(real_input2, &s.input2_multiplier, &s.input2_shift) ||
      !quant::QuantizeMultiplierSmallerThanOneExp(real_output, &s.output_multiplier, &s.output_shift) ||
      s.input1_shift < -31 || s.input2_shift < -31 || s.output_shift < -31) {
    return ctx.Unsupported("quantization scales of ", Describe(a), ", ", Describe(b), " and ", Describe(out),
                           " give an output multiplier ", real_output, " outside (0, 1)");
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, SquaredDifferenceState& state) {
  ER_RETURN_IF_ERROR(PrepareBinary(ctx, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt8}));
  if (ctx.input(0)->type == TensorType::kInt8) return PrepareInt8(ctx, state);
  return Status::Ok();
}

int8_t SquaredDifferenceInt8(int8_t x, int8_t y, const SquaredDifferenceState& s) {
  using quant::MultiplyByQuantizedMultiplierSmallerThanOneExp;
  const int32_t a = MultiplyByQuantizedMultiplierSmallerThanOneExp((s.input1_offset + x) * (1 << kLeftShift),
                                                                   s.input1_multiplier, s.input1_shift);
  const int32_t b = MultiplyByQuantizedMultiplierSmallerThanOneExp((s.input2_offset + y) * (1 << kLeftShift),
                                                                   s.input2_multiplier, s.input2_shift);
  const int32_t diff = a - b;  // |diff| <= 255 * 2^6, so the square fits in int32
  const int32_t result =
      MultiplyByQuantizedMultiplierSmallerThanOneExp(diff * diff, s.output_multiplier, s.output_shift) +
      s.output_offset;
  return static_cast<int8_t>(std::clamp<int32_t>(result, -128, 127));
}

Status Eval(OpContext& ctx, SquaredDifferenceState& state) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      elementwise::BroadcastInputs<float, float>(ctx, [](float a, float b) { return (a - b) * (a - b); });
      break;
    case TensorType::kInt32:
      elementwise::BroadcastInputs<int32_t, int32_t>(ctx, [](int32_t a, int32_t b) {
        const int32_t d = WrapSub(a, b);
        return WrapMul(d, d);
      });
      break;
    default:
      elementwise::BroadcastInputs<int8_t, int8_t>(
          ctx, [&](int8_t a, int8_t b) { return SquaredDifferenceInt8(a, b, state); });
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSquaredDifference() {
  return MakeBuiltinWithState<SquaredDifferenceState>(tflite::BuiltinOperator_SQUARED_DIFFERENCE, 2,
                                             "float32, int32, int8 (quantized)", Prepare, Eval);
}

}  // namespace edgerun::ops
