// BITWISE_XOR: a ^ b with broadcasting; int8, int16, int32, uint8, uint16, uint32.
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  return PrepareBinary(ctx, {TensorType::kInt8, TensorType::kInt16, TensorType::kInt32, TensorType::kUInt8,
                             TensorType::kUInt16, TensorType::kUInt32});
}

Status Eval(OpContext& ctx) {
  elementwise::VisitType(ctx.input(0)->type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      elementwise::BroadcastInputs<T, T>(ctx, [](T a, T b) { return static_cast<T>(a ^ b); });
    }
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBitwiseXor() {
  return MakeBuiltin(tflite::BuiltinOperator_BITWISE_XOR, 1, "int8, int16, int32, uint8, uint16, uint32", Prepare,
                     Eval);
}

}  // namespace edgerun::ops
