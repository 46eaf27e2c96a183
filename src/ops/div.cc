// DIV: a / b with broadcasting and a fused activation. Integer division truncates toward zero
// (C++ and TFLite); an integer division by zero is an error, not a crash.
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
  return PrepareArithmetic<tflite::DivOptions>(ctx, state, {TensorType::kFloat32, TensorType::kInt32});
}

Status Eval(OpContext& ctx, BinaryOpState& state) {
  const Tensor* divisor = ctx.input(1);
  if (divisor->type == TensorType::kInt32) {
    for (int64_t i = 0; i < divisor->num_elements(); ++i) {
      if (divisor->data_as<int32_t>()[i] == 0) return ctx.Error("integer division by zero in ", Describe(divisor));
    }
  }
  return EvalArithmetic(ctx, state, DivFn{});
}

}  // namespace

OpRegistration RegisterDiv() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_DIV, 2, "float32, int32", Prepare, Eval);
}

}  // namespace edgerun::ops
