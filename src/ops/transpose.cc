// TRANSPOSE: output dimension d is input dimension perm[d].
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/movement.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status ReadPerm(OpContext& ctx, std::vector<int>* perm) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "perm", &values));
  const int rank = input->rank();
  if (static_cast<int>(values.size()) != rank) {
    return ctx.Error("perm has ", values.size(), " entries for input ", Describe(input));
  }
  perm->resize(rank);
  std::vector<bool> seen(rank, false);
  for (int d = 0; d < rank; ++d) {
    int axis;
    ER_RETURN_IF_ERROR(NormalizeAxis(ctx, values[d], rank, &axis));
    if (seen[axis]) return ctx.Error("perm repeats dimension ", axis);
    seen[axis] = true;
    (*perm)[d] = axis;
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (!IsFixedSizeType(input->type)) return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  if (!ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  std::vector<int> perm;
  ER_RETURN_IF_ERROR(ReadPerm(ctx, &perm));
  Shape shape(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) shape[d] = input->dim(perm[d]);
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  std::vector<int> perm;
  ER_RETURN_IF_ERROR(ReadPerm(ctx, &perm));
  if (ctx.output(0)->is_dynamic()) {
    Shape shape(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) shape[d] = input->dim(perm[d]);
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  reference::Transpose(input->shape, perm, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                       ctx.output(0)->data_as<uint8_t>(), optimized::ActiveKernels().transpose_block_32);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTranspose() { return MakeBuiltin(tflite::BuiltinOperator_TRANSPOSE, 7, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
