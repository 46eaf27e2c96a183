// SIGN: -1, 0 or 1 by the sign of x (NaN gives 0, as TFLite); float32, float64, int32.
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

template <class T>
T Sign(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

Status Prepare(OpContext& ctx) {
  return PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kFloat64, TensorType::kInt32});
}

Status Eval(OpContext& ctx) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32:
      MapUnary<float>(ctx, Sign<float>);
      break;
    case TensorType::kFloat64:
      MapUnary<double>(ctx, Sign<double>);
      break;
    default:
      MapUnary<int32_t>(ctx, Sign<int32_t>);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSign() {
  return MakeBuiltin(tflite::BuiltinOperator_SIGN, 2, "float32, float64, int32", Prepare, Eval);
}

}  // namespace edgerun::ops
