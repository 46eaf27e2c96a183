// MUL: a * b with broadcasting and a fused activation. Quantized uint8 / int8 / int16 rescale the
// product of the centered values by s_a * s_b / s_out (TFLite's integer kernels); two int16
// inputs may also give an int8 output (Q0.15 product / 256, as TFLite). In kLiteRtDefault mode
// the 8-bit nodes LiteRT hands to XNNPACK rescale in float and round half to even.
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

struct MulFn {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapMul(a, b);
    else return a * b;
  }
};

Status Prepare(OpContext& ctx, BinaryOpState& state) {
  ER_RETURN_IF_ERROR(PrepareArithmetic<tflite::MulOptions>(
      ctx, state,
      {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8, TensorType::kInt8,
       TensorType::kInt16},
      /*same_output_type=*/false));
  const Tensor* a = ctx.input(0);
  const Tensor* out = ctx.output(0);
  state.kind = BinaryKind::kPlain;
  if (a->type == TensorType::kInt16 && out->type == TensorType::kInt8) {
    ER_RETURN_IF_ERROR(PrepareQuantizedMulDiv(ctx, state, /*divide=*/false));
    state.kind = BinaryKind::kInt16MulToInt8;
    return Status::Ok();
  }
  if (a->type == TensorType::kInt16 && out->type == TensorType::kUInt8) {
    return ctx.Unsupported("int16 x int16 -> uint8 MUL is not implemented (output ", Describe(out), ")");
  }
  ER_RETURN_IF_ERROR(CheckSameType(ctx, a, out, "input and output"));
  if (!UsesQuantizedKernel(ctx)) return Status::Ok();
  // 8-bit nodes LiteRT's XNNPACK delegate takes run its arithmetic (kLiteRtDefault mode).
  if (PrepareXnnpackMul(ctx, state)) return Status::Ok();
  ER_RETURN_IF_ERROR(PrepareQuantizedMulDiv(ctx, state, /*divide=*/false));
  // The product of two centered int16 values fits int32 only around zero points of 0.
  if (a->type == TensorType::kInt16 && (state.q.input1_offset != 0 || state.q.input2_offset != 0 ||
                                        state.q.output_offset != 0)) {
    return ctx.Unsupported("int16 MUL needs zero points 0 (input ", Describe(a), ")");
  }
  state.kind = BinaryKind::kQuantized;
  return Status::Ok();
}

Status Eval(OpContext& ctx, BinaryOpState& state) {
  const reference::QuantizedBinaryParams& q = state.q;
  switch (state.kind) {
    case BinaryKind::kQuantized:
      if (EvalInt16SameShapeOrRow(ctx, q, 2)) return Status::Ok();
      return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::QuantizedMul(a, b, q); });
    case BinaryKind::kXnnpackMul: {
      const quant::xnn::MulParams& p = state.xnn_mul;
      return EvalQuantizedBinary(ctx, [&p](int32_t a, int32_t b) { return quant::xnn::Mul(p, a, b); });
    }
    case BinaryKind::kInt16MulToInt8:
      EvalQuantizedBinaryAs<int16_t, int8_t>(ctx, [&q](int32_t a, int32_t b) {
        return reference::Int16MulToInt8(static_cast<int16_t>(a), static_cast<int16_t>(b), q);
      });
      return Status::Ok();
    default: return EvalArithmetic(ctx, state, MulFn{});
  }
}

}  // namespace

OpRegistration RegisterMul() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_MUL, 7,
                                             "float32, int32, int64, int16, quantized uint8 / int8 / int16, "
                                             "int16 x int16 -> int8",
                                             Prepare, Eval);
}

}  // namespace edgerun::ops
