// LOGICAL_NOT: !x on a bool tensor.
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kBool}); }

Status Eval(OpContext& ctx) {
  const uint8_t* in = ctx.input(0)->data_as<uint8_t>();  // any non-zero byte is true
  bool* out = ctx.output(0)->data_as<bool>();
  for (int64_t i = 0; i < ctx.input(0)->num_elements(); ++i) out[i] = in[i] == 0;
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLogicalNot() {
  return MakeBuiltin(tflite::BuiltinOperator_LOGICAL_NOT, 1, "bool", Prepare, Eval);
}

}  // namespace edgerun::ops
