// LOGICAL_AND: a && b on bool tensors with broadcasting.
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareBinary(ctx, {TensorType::kBool}); }

Status Eval(OpContext& ctx) {
  // Read as bytes: any non-zero byte is true, whatever a file holds.
  elementwise::BroadcastInputs<uint8_t, bool>(ctx, [](uint8_t a, uint8_t b) { return a != 0 && b != 0; });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLogicalAnd() {
  return MakeBuiltin(tflite::BuiltinOperator_LOGICAL_AND, 1, "bool", Prepare, Eval);
}

}  // namespace edgerun::ops
