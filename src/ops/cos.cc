// COS: cosine (radians), float32.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) { return PrepareUnary(ctx, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx) {
  MapUnary<float>(ctx, [](float x) { return std::cos(x); });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterCos() { return MakeBuiltin(tflite::BuiltinOperator_COS, 1, "float32", Prepare, Eval); }

}  // namespace edgerun::ops
