// IMAG: the imaginary part of each element; complex64 -> float32, complex128 -> float64.
#include "ops/complex_util.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx) {
  return EvalComplexToReal(ctx, [](auto z) { return z.imag(); });
}

}  // namespace

OpRegistration RegisterImag() {
  return MakeBuiltin(tflite::BuiltinOperator_IMAG, 1, "complex64, complex128", PrepareComplexToReal, Eval);
}

}  // namespace edgerun::ops
