// STABLEHLO_SHIFT_LEFT: element-wise a << b of two integer tensors of the same shape and type.
// Shift amounts outside [0, bit width) give 0 (StableHLO's definition; in C++ they would be
// undefined). Types: int8, int16, int32 (TFLite's).
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(stablehlo::PrepareSameShapeBinary(ctx));
  return CheckType(ctx, ctx.input(0), "input", {TensorType::kInt8, TensorType::kInt16, TensorType::kInt32});
}

template <class T>
T ShiftLeft(T value, T amount) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = 8 * sizeof(T);
  if (amount < 0 || amount >= kBits) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(value) << amount));
}

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(ctx, [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (stablehlo::kIsWrappingInt<T> && std::is_signed_v<T>) return ShiftLeft<T>(a, b);
    else return a;  // not reached: other types are rejected at prepare
  });
}

}  // namespace

OpRegistration RegisterStablehloShiftLeft() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_SHIFT_LEFT, 1, "int8, int16, int32", Prepare, Eval);
}

}  // namespace edgerun::ops
