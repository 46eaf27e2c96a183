// RIGHT_SHIFT: a >> b with broadcasting (arithmetic for signed types); the shift is clamped to
// [0, bits - 1] as in TFLite. int8, int16, int32, uint8, uint16, uint32.
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  return PrepareBinary(ctx, {TensorType::kInt8, TensorType::kInt16, TensorType::kInt32, TensorType::kUInt8,
                             TensorType::kUInt16, TensorType::kUInt32});
}

template <class T>
T RightShift(T value, T shift) {
  constexpr int64_t kMaxShift = sizeof(T) * 8 - 1;
  const int64_t s = std::clamp<int64_t>(static_cast<int64_t>(shift), 0, kMaxShift);
  return static_cast<T>(value >> s);
}

Status Eval(OpContext& ctx) {
  elementwise::VisitType(ctx.input(0)->type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      elementwise::BroadcastInputs<T, T>(ctx, RightShift<T>);
    }
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRightShift() {
  return MakeBuiltin(tflite::BuiltinOperator_RIGHT_SHIFT, 1, "int8, int16, int32, uint8, uint16, uint32", Prepare,
                     Eval);
}

}  // namespace edgerun::ops
