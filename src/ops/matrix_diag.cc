// MATRIX_DIAG: [..., n] -> [..., n, n] with the input on the diagonal and zeros (all bits 0, as
// TFLite) elsewhere.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  Shape shape = input->shape;
  shape.push_back(shape.back());
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const size_t element = TensorTypeSize(input->type);
  const int64_t n = input->dim(input->rank() - 1);
  const int64_t batches = n == 0 ? 0 : input->num_elements() / n;
  if (output->bytes > 0) std::memset(output->data, 0, output->bytes);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(output->data_as<uint8_t>() + ((b * n + i) * n + i) * element,
                  input->data_as<uint8_t>() + (b * n + i) * element, element);
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMatrixDiag() {
  return MakeBuiltin(tflite::BuiltinOperator_MATRIX_DIAG, 1, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
