// ABS: |x|; float32, int32, int16 (plain or quantized) and int8 (quantized). Quantized inputs
// take |q - zero_point| and rescale it to the output's scale when the scales differ, as TFLite.
#include <cmath>

#include "ops/elementwise_util.h"
#include "quant/fixed_point.h"

namespace edgerun::ops {
namespace {

struct AbsState {
  bool quantized = false;
  bool rescale = false;
  int32_t multiplier = 0;
  int shift = 0;
  int32_t input_zero_point = 0, output_zero_point = 0;
};

template <class T>
Status PrepareQuantized(OpContext& ctx, AbsState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<T>(ctx, input, "input"));
  ER_RETURN_IF_ERROR(elementwise::CheckQuantized<T>(ctx, output, "output"));
  state.quantized = true;
  state.input_zero_point = input->zero_point();
  state.output_zero_point = output->zero_point();
  if (std::is_same_v<T, int16_t> && (state.input_zero_point != 0 || state.output_zero_point != 0)) {
    return ctx.Error("int16 ABS needs zero points of 0");
  }
  state.rescale = input->scale() != output->scale();
  if (state.rescale) {
    // The ratio is computed in float, as TFLite does.
    const float ratio = input->scale() / output->scale();
    if (!quant::QuantizeMultiplier(ratio, &state.multiplier, &state.shift) || state.shift > 30 || state.shift < -31) {
      return ctx.Unsupported("input/output scale ratio ", ratio, " is out of range");
    }
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, AbsState& state) {
  ER_RETURN_IF_ERROR(
      PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt16, TensorType::kInt8}));
  state = AbsState();
  const Tensor* input = ctx.input(0);
  if (input->type == TensorType::kInt8) return PrepareQuantized<int8_t>(ctx, state);
  if (input->type == TensorType::kInt16 && !input->quantization.empty()) return PrepareQuantized<int16_t>(ctx, state);
  return Status::Ok();
}

template <class T>
void EvalQuantized(OpContext& ctx, const AbsState& s) {
  constexpr int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  MapUnary<T>(ctx, [&](T q) {
    const int32_t magnitude = std::abs(static_cast<int32_t>(q) - s.input_zero_point);
    const int32_t scaled =
        s.rescale ? quant::MultiplyByQuantizedMultiplier(magnitude, s.multiplier, s.shift) : magnitude;
    return static_cast<T>(std::clamp(scaled + s.output_zero_point, lo, hi));
  });
}

Status Eval(OpContext& ctx, AbsState& state) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      MapUnary<float>(ctx, [](float x) { return std::fabs(x); });
      break;
    case TensorType::kInt32:
      // The lowest value has no positive counterpart and stays as it is (two's complement).
      MapUnary<int32_t>(ctx, [](int32_t x) { return x < 0 ? WrapSub<int32_t>(0, x) : x; });
      break;
    case TensorType::kInt8:
      EvalQuantized<int8_t>(ctx, state);
      break;
    default:
      if (state.quantized) {
        EvalQuantized<int16_t>(ctx, state);
      } else {
        MapUnary<int16_t>(ctx, [](int16_t x) { return static_cast<int16_t>(std::abs(static_cast<int32_t>(x))); });
      }
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterAbs() {
  return MakeBuiltinWithState<AbsState>(tflite::BuiltinOperator_ABS, 5, "float32, int32, int16, int8 (quantized)",
                                        Prepare, Eval);
}

}  // namespace edgerun::ops
