// DYNAMIC_UPDATE_SLICE(operand, update, start_indices): the operand with `update` written at
// start_indices (int32/int64, one per dimension), XLA semantics: each start is clamped to
// [0, operand dim - update dim] so the update always fits.
#include "kernels/reference/movement.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* operand = ctx.input(0);
  const Tensor* update = ctx.input(1);
  const Tensor* start = ctx.input(2);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, operand, "operand", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, update, "operand and update"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, ctx.output(0), "operand and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, start, "start_indices", {TensorType::kInt32, TensorType::kInt64}));
  if (start->rank() != 1 || start->dim(0) != operand->rank()) {
    return ctx.Error("start_indices ", Describe(start), " must be 1-D with one value per dimension of ",
                     Describe(operand));
  }
  bool fits = update->rank() == operand->rank();
  for (int d = 0; fits && d < operand->rank(); ++d) fits = update->dim(d) <= operand->dim(d);
  if (!fits) return ctx.Error("update ", Describe(update), " does not fit in operand ", Describe(operand));
  return ctx.ResizeOutput(0, operand->shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* operand = ctx.input(0);
  const Tensor* update = ctx.input(1);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> start;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(2), "start_indices", &start));
  if (output->data != operand->data) CopyBytes(output->data, operand->data, operand->bytes);
  const int rank = operand->rank();
  if (update->num_elements() <= 0) return Status::Ok();
  if (rank == 0) {
    CopyBytes(output->data, update->data, update->bytes);
    return Status::Ok();
  }
  int64_t base = 0;
  const std::vector<int64_t> strides = reference::Strides(operand->shape);
  for (int d = 0; d < rank; ++d) {
    base += std::clamp<int64_t>(start[d], 0, operand->dim(d) - update->dim(d)) * strides[d];
  }
  // Copy the update row by row (its last dimension is contiguous in both tensors).
  const size_t element = TensorTypeSize(operand->type);
  const int64_t row = update->dim(rank - 1);
  const int64_t rows = update->num_elements() / row;
  std::vector<int32_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t to = base;
    for (int d = 0; d + 1 < rank; ++d) to += index[d] * strides[d];
    std::memcpy(output->data_as<uint8_t>() + to * element, update->data_as<uint8_t>() + r * row * element, row * element);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < update->dim(d)) break;
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDynamicUpdateSlice() {
  return MakeBuiltin(tflite::BuiltinOperator_DYNAMIC_UPDATE_SLICE, 5, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
