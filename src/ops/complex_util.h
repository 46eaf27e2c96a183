// Shared by the ops that map each complex element to a real one (REAL, IMAG, COMPLEX_ABS):
// complex64 -> float32, complex128 -> float64, same shape.
#pragma once

#include <complex>

#include "ops/op_util.h"

namespace edgerun::ops {

Status PrepareComplexToReal(OpContext& ctx);

// output[i] = fn(input[i]); fn takes a std::complex<float> or std::complex<double>.
template <class Fn>
Status EvalComplexToReal(OpContext& ctx, Fn fn) {
  const Tensor* input = ctx.input(0);
  const int64_t n = input->num_elements();
  auto map = [&](auto zero) {
    using T = decltype(zero);
    const std::complex<T>* in = input->data_as<std::complex<T>>();
    T* out = ctx.output(0)->data_as<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]);
  };
  if (input->type == TensorType::kComplex64) {
    map(0.0f);
  } else {
    map(0.0);
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
