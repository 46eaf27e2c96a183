// FLOOR_MOD: a - floor(a / b) * b (the result has the sign of b) with broadcasting; float32,
// int8, int16, int32, int64. An integer zero divisor is an error at run time; float x mod 0 is
// NaN, as in TFLite.
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  return PrepareBinary(
      ctx, {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32, TensorType::kInt64});
}

template <class T>
Status EvalTyped(OpContext& ctx) {
  if constexpr (std::is_integral_v<T>) {
    const Tensor* divisor = ctx.input(1);
    for (int64_t i = 0, n = divisor->num_elements(); i < n; ++i) {
      if (divisor->data_as<T>()[i] == 0) return ctx.Error("division by zero: element ", i, " of ", Describe(divisor));
    }
  }
  elementwise::BroadcastInputs<T, T>(ctx, reference::math::FloorMod<T>);
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      return EvalTyped<float>(ctx);
    case TensorType::kInt8:
      return EvalTyped<int8_t>(ctx);
    case TensorType::kInt16:
      return EvalTyped<int16_t>(ctx);
    case TensorType::kInt32:
      return EvalTyped<int32_t>(ctx);
    default:
      return EvalTyped<int64_t>(ctx);
  }
}

}  // namespace

OpRegistration RegisterFloorMod() {
  return MakeBuiltin(tflite::BuiltinOperator_FLOOR_MOD, 2, "float32, int8, int16, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
