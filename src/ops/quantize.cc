// QUANTIZE: float32 -> int8 / uint8 / int16 with q = round(x / scale) + zero_point (ties away
// from zero, as TFLite's reference kernel), clamped to the type; per-tensor or per-channel.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kInt8, TensorType::kUInt8, TensorType::kInt16}));
  if (output->quantization.empty()) return ctx.Error("output ", Describe(output), " has no quantization parameters");
  for (float s : output->quantization.scale) {
    if (!(s > 0) || !std::isfinite(s)) return ctx.Error("output scale ", s, " must be positive and finite");
  }
  if (output->quantization.per_channel()) {
    const int axis = output->quantization.quantized_dimension;
    if (axis < 0 || axis >= input->rank() ||
        static_cast<size_t>(input->dim(axis)) != output->quantization.scale.size()) {
      return ctx.Error("per-channel quantization of ", Describe(output), " does not match the input shape");
    }
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class T>
void QuantizeFloat(const Tensor* input, Tensor* output) {
  const float* in = input->data_as<float>();
  T* out = output->data_as<T>();
  const auto& q = output->quantization;
  const int64_t n = input->num_elements();
  // Channel of element i: (i / inner) % channels along the quantized dimension.
  int64_t inner = 1, channels = 1;
  if (q.per_channel()) {
    channels = input->dim(q.quantized_dimension);
    for (int d = q.quantized_dimension + 1; d < input->rank(); ++d) inner *= input->dim(d);
  }
  constexpr float lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = q.per_channel() ? (i / inner) % channels : 0;
    const float scaled = std::round(in[i] / q.scale[c]) + static_cast<float>(q.zero_point[c]);
    // Clamping in float first keeps the conversion defined for huge values and NaN (-> lo).
    const float clamped = std::isnan(scaled) ? lo : std::min(std::max(scaled, lo), hi);
    out[i] = static_cast<T>(clamped);
  }
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  switch (output->type) {
    case TensorType::kInt8: QuantizeFloat<int8_t>(input, output); break;
    case TensorType::kUInt8: QuantizeFloat<uint8_t>(input, output); break;
    case TensorType::kInt16: QuantizeFloat<int16_t>(input, output); break;
    default: return ctx.Unsupported("unsupported output type");
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterQuantize() { return MakeBuiltin(tflite::BuiltinOperator_QUANTIZE, 5, "float32 -> int8, uint8, int16", Prepare, Eval); }

}  // namespace edgerun::ops
