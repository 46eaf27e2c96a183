// COMPLEX_ABS: |z| of each element; complex64 -> float32, complex128 -> float64.
#include "ops/complex_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return EvalComplexToReal(ctx, [](auto z) { return std::abs(z); });
}

}  // namespace

OpRegistration RegisterComplexAbs() {
  return MakeBuiltin(tflite::BuiltinOperator_COMPLEX_ABS, 1, "complex64, complex128", PrepareComplexToReal, Eval);
}

}  // namespace edgerun::ops
