// REAL: the real part of each element; complex64 -> float32, complex128 -> float64.
#include "ops/complex_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return EvalComplexToReal(ctx, [](auto z) { return z.real(); });
}

}  // namespace

OpRegistration RegisterReal() {
  return MakeBuiltin(tflite::BuiltinOperator_REAL, 1, "complex64, complex128", PrepareComplexToReal, Eval);
}

}  // namespace edgerun::ops
