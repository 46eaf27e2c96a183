// MUL: a * b with broadcasting and a fused activation.
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
  return PrepareArithmetic<tflite::MulOptions>(ctx, state, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64});
}

Status Eval(OpContext& ctx, BinaryOpState& state) { return EvalArithmetic(ctx, state, MulFn{}); }

}  // namespace

OpRegistration RegisterMul() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_MUL, 7, "float32, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
