// SQRT: square root (NaN below 0), float32.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::sqrt(x); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSqrt() { return MakeBuiltin(tflite::BuiltinOperator_SQRT, 2, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
