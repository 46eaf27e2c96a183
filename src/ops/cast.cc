// CAST: converts each element to the output's type, with TFLite's rules (kernels/reference/cast.h).
// Between float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32,
// bool and complex64 in any direction; int4 / uint4 <-> float32.
#include "kernels/reference/cast.h"

#include <cstring>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

using reference::math::BoolByte;
using reference::math::CastValue;
using reference::math::VisitCastType;

bool IsInt4(TensorType t) { return t == TensorType::kInt4 || t == TensorType::kUInt4; }

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  auto supported = [](TensorType t) { return VisitCastType(t, [](auto) {}); };
  const bool int4_pair = (IsInt4(input->type) && output->type == TensorType::kFloat32) ||
                         (input->type == TensorType::kFloat32 && IsInt4(output->type));
  if (!int4_pair && !(supported(input->type) && supported(output->type))) {
    return ctx.Unsupported("cast from ", TensorTypeName(input->type), " to ", TensorTypeName(output->type),
                           " is not supported");
  }
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const int64_t n = input->num_elements();
  if (IsInt4(input->type)) {
    const bool is_signed = input->type == TensorType::kInt4;
    for (int64_t i = 0; i < n; ++i) {
      output->data_as<float>()[i] = reference::math::UnpackInt4(input->data_as<uint8_t>(), i, is_signed);
    }
    return Status::Ok();
  }
  if (IsInt4(output->type)) {
    const bool is_signed = output->type == TensorType::kInt4;
    if (output->bytes > 0) std::memset(output->data, 0, output->bytes);
    for (int64_t i = 0; i < n; ++i) {
      reference::math::PackInt4(input->data_as<float>()[i], i, is_signed, output->data_as<uint8_t>());
    }
    return Status::Ok();
  }
  VisitCastType(input->type, [&](auto from_tag) {
    // Bools are read as bytes so that any non-zero byte counts as true.
    using From = std::conditional_t<std::is_same_v<decltype(from_tag), bool>, BoolByte, decltype(from_tag)>;
    VisitCastType(output->type, [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* in = input->data_as<From>();
      To* out = output->data_as<To>();
      for (int64_t i = 0; i < n; ++i) out[i] = CastValue<To>(in[i]);
    });
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterCast() {
  return MakeBuiltin(tflite::BuiltinOperator_CAST, 8,
                     "float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, bool, "
                     "complex64 (any pair); int4, uint4 <-> float32",
                     Prepare, Eval);
}

}  // namespace edgerun::ops
