// MATRIX_SET_DIAG(input [..., r, c], diagonal [..., min(r, c)]): the input with its main diagonal
// replaced.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* diagonal = ctx.input(1);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, diagonal, "input and diagonal"));
  if (input->rank() < 2) return ctx.Error("input ", Describe(input), " must have rank >= 2");
  Shape want(input->shape.begin(), input->shape.end() - 2);
  want.push_back(std::min(input->dim(input->rank() - 2), input->dim(input->rank() - 1)));
  if (diagonal->shape != want) {
    return ctx.Error("diagonal ", Describe(diagonal), " must have shape ", ShapeToString(want), " for input ",
                     Describe(input));
  }
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* diagonal = ctx.input(1);
  Tensor* output = ctx.output(0);
  const size_t element = TensorTypeSize(input->type);
  const int64_t rows = input->dim(input->rank() - 2), cols = input->dim(input->rank() - 1);
  const int64_t n = std::min(rows, cols);
  const int64_t batches = DimProduct(input->shape, 0, input->rank() - 2);
  if (output->data != input->data) CopyBytes(output->data, input->data, input->bytes);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(output->data_as<uint8_t>() + ((b * rows + i) * cols + i) * element,
                  diagonal->data_as<uint8_t>() + (b * n + i) * element, element);
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMatrixSetDiag() {
  return MakeBuiltin(tflite::BuiltinOperator_MATRIX_SET_DIAG, 1, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
