// SUB: a - b with broadcasting and a fused activation.
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

struct SubFn {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapSub(a, b);
    else return a - b;
  }
};

Status Prepare(OpContext& ctx, BinaryOpState& state) {
  return PrepareArithmetic<tflite::SubOptions>(ctx, state, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64});
}

Status Eval(OpContext& ctx, BinaryOpState& state) { return EvalArithmetic(ctx, state, SubFn{}); }

}  // namespace

OpRegistration RegisterSub() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_SUB, 5, "float32, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
