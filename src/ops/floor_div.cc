// FLOOR_DIV: floor(a / b) with broadcasting; float32 (computed in double, as TFLite), int32,
// int16, int8. A zero divisor anywhere in b is an error at run time, for floats too (TFLite).
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  return PrepareBinary(ctx, {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt16, TensorType::kInt8});
}

template <class T>
Status EvalTyped(OpContext& ctx) {
  const Tensor* divisor = ctx.input(1);
  for (int64_t i = 0, n = divisor->num_elements(); i < n; ++i) {
    if (divisor->data_as<T>()[i] == T(0)) return ctx.Error("division by zero: element ", i, " of ", Describe(divisor));
  }
  if constexpr (std::is_floating_point_v<T>) {
    elementwise::BroadcastInputs<T, T>(
        ctx, [](T a, T b) { return static_cast<T>(std::floor(static_cast<double>(a) / static_cast<double>(b))); });
  } else {
    elementwise::BroadcastInputs<T, T>(ctx, reference::math::FloorDivInt<T>);
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      return EvalTyped<float>(ctx);
    case TensorType::kInt32:
      return EvalTyped<int32_t>(ctx);
    case TensorType::kInt16:
      return EvalTyped<int16_t>(ctx);
    default:
      return EvalTyped<int8_t>(ctx);
  }
}

}  // namespace

OpRegistration RegisterFloorDiv() {
  return MakeBuiltin(tflite::BuiltinOperator_FLOOR_DIV, 3, "float32, int32, int16, int8", Prepare, Eval);
}

}  // namespace edgerun::ops
