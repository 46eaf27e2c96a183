// DIV: a / b with broadcasting and a fused activation. Integer division truncates toward zero
// (C++ and TFLite); an integer division by zero is an error, not a crash. Quantized uint8 / int8
// divide through TFLite's fixed-point reciprocal; there a zero divisor saturates.
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

struct DivFn {
  template <class T>
  T operator()(T a, T b) const {
    // INT_MIN / -1 overflows: give the wrapped result instead of trapping.
    if constexpr (std::is_integral_v<T>) return (b == -1) ? WrapSub<T>(0, a) : a / b;
    else return a / b;
  }
};

Status Prepare(OpContext& ctx, BinaryOpState& state) {
  ER_RETURN_IF_ERROR(PrepareArithmetic<tflite::DivOptions>(
      ctx, state, {TensorType::kFloat32, TensorType::kInt32, TensorType::kUInt8, TensorType::kInt8}));
  state.kind = BinaryKind::kPlain;
  if (!UsesQuantizedKernel(ctx)) return Status::Ok();
  ER_RETURN_IF_ERROR(PrepareQuantizedMulDiv(ctx, state, /*divide=*/true));
  state.kind = BinaryKind::kQuantized;
  return Status::Ok();
}

Status Eval(OpContext& ctx, BinaryOpState& state) {
  if (state.kind == BinaryKind::kQuantized) {
    const reference::QuantizedBinaryParams& q = state.q;
    return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::QuantizedDiv(a, b, q); });
  }
  const Tensor* divisor = ctx.input(1);
  if (divisor->type == TensorType::kInt32) {
    for (int64_t i = 0, n = divisor->num_elements(); i < n; ++i) {
      if (divisor->data_as<int32_t>()[i] == 0) return ctx.Error("integer division by zero in ", Describe(divisor));
    }
  }
  return EvalArithmetic(ctx, state, DivFn{});
}

}  // namespace

OpRegistration RegisterDiv() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_DIV, 2, "float32, int32, quantized uint8 / int8",
                                             Prepare, Eval);
}

}  // namespace edgerun::ops
