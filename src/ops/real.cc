// REAL: the real part of each element; complex64 -> float32, complex128 -> float64.
#include <complex>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kComplex64, TensorType::kComplex128}));
  const TensorType real_type = input->type == TensorType::kComplex64 ? TensorType::kFloat32 : TensorType::kFloat64;
  if (ctx.output(0)->type != real_type) {
    return ctx.Error("output ", Describe(ctx.output(0)), " must be ", TensorTypeName(real_type));
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class T>
void Map(OpContext& ctx) {
  const std::complex<T>* in = ctx.input(0)->data_as<std::complex<T>>();
  T* out = ctx.output(0)->data_as<T>();
  for (int64_t i = 0; i < ctx.input(0)->num_elements(); ++i) out[i] = in[i].real();
}

Status Eval(OpContext& ctx) {
  if (ctx.input(0)->type == TensorType::kComplex64) {
    Map<float>(ctx);
  } else {
    Map<double>(ctx);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReal() {
  return MakeBuiltin(tflite::BuiltinOperator_REAL, 1, "complex64, complex128", Prepare, Eval);
}

}  // namespace edgerun::ops
