// LOGISTIC: 1 / (1 + exp(-x)).
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLogistic() { return MakeBuiltin(tflite::BuiltinOperator_LOGISTIC, 3, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
