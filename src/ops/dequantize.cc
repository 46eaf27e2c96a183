// DEQUANTIZE: int8 / uint8 / int16 / int32 -> float32 as scale * (q - zero_point), per tensor
// or per channel; float16 -> float32 (float16 weights).
#include "ops/op_util.h"
#include "quant/float16.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kInt8, TensorType::kUInt8, TensorType::kInt16, TensorType::kInt32,
                                TensorType::kFloat16}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kFloat32}));
  if (input->type != TensorType::kFloat16) {
    const auto& q = input->quantization;
    if (q.empty()) return ctx.Error("input ", Describe(input), " has no quantization parameters");
    if (q.per_channel() && (q.quantized_dimension >= input->rank() ||
                            static_cast<size_t>(input->dim(q.quantized_dimension)) != q.scale.size())) {
      return ctx.Error("per-channel quantization of ", Describe(input), " does not match its shape");
    }
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class T>
void DequantizeInts(const Tensor* input, float* out) {
  const T* in = input->data_as<T>();
  const auto& q = input->quantization;
  const int64_t n = input->num_elements();
  if (!q.per_channel()) {
    // TFLite's reference kernel multiplies in double. For 8- and 16-bit values the float product
    // is the same number: the exact product of a float scale (24 bits) and q - zero_point (at
    // most 18 bits, for zero points within 2^16) fits a double, so the double product rounded to
    // float is the float product, which vectorizes (DEQUANTIZE of [1,64,64,128] int8: 534 ->
    // 119 us).
    const int64_t zero_point = q.zero_point[0];
    if (sizeof(T) <= 2 && zero_point >= -65536 && zero_point <= 65536) {
      const float scale = q.scale[0];
      const int32_t zp = static_cast<int32_t>(zero_point);
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<int32_t>(in[i]) - zp) * scale;
    } else {
      const double scale = q.scale[0];
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(scale * static_cast<double>(in[i] - zero_point));
    }
    return;
  }
  int64_t inner = 1;
  for (int d = q.quantized_dimension + 1; d < input->rank(); ++d) inner *= input->dim(d);
  const int64_t channels = input->dim(q.quantized_dimension);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    out[i] = static_cast<float>(in[i] - q.zero_point[c]) * q.scale[c];
  }
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  float* out = ctx.output(0)->data_as<float>();
  switch (input->type) {
    case TensorType::kInt8: DequantizeInts<int8_t>(input, out); break;
    case TensorType::kUInt8: DequantizeInts<uint8_t>(input, out); break;
    case TensorType::kInt16: DequantizeInts<int16_t>(input, out); break;
    case TensorType::kInt32: DequantizeInts<int32_t>(input, out); break;
    case TensorType::kFloat16: {
      const uint16_t* in = input->data_as<uint16_t>();
      for (int64_t i = 0, n = input->num_elements(); i < n; ++i) out[i] = HalfToFloat(in[i]);
      break;
    }
    default: return ctx.Unsupported("unsupported input type");
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDequantize() { return MakeBuiltin(tflite::BuiltinOperator_DEQUANTIZE, 8, "int8, uint8, int16, int32, float16 -> float32", Prepare, Eval); }

}  // namespace edgerun::ops
