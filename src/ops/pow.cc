// POW: a^b with broadcasting; float32 (std::pow) and int32 (repeated squaring, wrapping on
// overflow; a negative exponent is an error at run time, as in TFLite).
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

int32_t IntegerPow(int32_t base, int32_t exponent) {
  int32_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = WrapMul(result, base);
    exponent >>= 1;
    base = WrapMul(base, base);
  }
  return result;
}

Status Prepare(OpContext& ctx) { return PrepareBinary(ctx, {TensorType::kFloat32, TensorType::kInt32}); }

Status Eval(OpContext& ctx) {
  if (ctx.input(0)->type == TensorType::kFloat32) {
    elementwise::BroadcastInputs<float, float>(ctx, [](float a, float b) { return std::pow(a, b); });
    return Status::Ok();
  }
  const Tensor* exponents = ctx.input(1);
  for (int64_t i = 0, n = exponents->num_elements(); i < n; ++i) {
    if (exponents->data_as<int32_t>()[i] < 0) {
      return ctx.Error("integer POW with a negative exponent (", exponents->data_as<int32_t>()[i], " at element ", i,
                       " of ", Describe(exponents), ") is not defined");
    }
  }
  elementwise::BroadcastInputs<int32_t, int32_t>(ctx, IntegerPow);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterPow() { return MakeBuiltin(tflite::BuiltinOperator_POW, 1, "float32, int32", Prepare, Eval); }

}  // namespace edgerun::ops
