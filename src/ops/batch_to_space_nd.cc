// BATCH_TO_SPACE_ND(input, block_shape, crops): the inverse of SPACE_TO_BATCH_ND:
// [B * prod(block), S1.., R..] -> [B, S1 * block1 - crop1.., R..]. Non-constant block_shape or
// crops make the output dynamic.
#include "kernels/reference/space_batch.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Geometry(OpContext& ctx, reference::SpaceBatchGeometry* g, Shape* out_shape) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> block, crops;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "block_shape", &block));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(2), "crops", &crops));
  const int m_count = static_cast<int>(block.size());
  if (m_count < 1 || m_count > input->rank() - 1 || crops.size() != 2 * block.size()) {
    return ctx.Error("block_shape ", Describe(ctx.input(1)), " and crops ", Describe(ctx.input(2)),
                     " do not fit input ", Describe(input));
  }
  *out_shape = input->shape;
  g->space.clear();
  g->batch_space.clear();
  g->block = block;
  g->offset.clear();
  int64_t batch = input->dim(0);
  for (int m = 0; m < m_count; ++m) {
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    const int64_t start = crops[2 * m], end = crops[2 * m + 1];
    if (block[m] < 1 || block[m] > kMax || batch % block[m] != 0) {
      return ctx.Error("block ", block[m], " does not divide the batch of ", Describe(input));
    }
    batch /= block[m];
    const bool crops_valid = start >= 0 && start <= kMax && end >= 0 && end <= kMax;
    const int64_t dim = crops_valid ? input->dim(m + 1) * block[m] - start - end : -1;
    if (dim < 0 || dim > kMax) {
      return ctx.Error("crops [", start, ", ", end, "] are invalid for spatial dimension ", m + 1, " of ",
                       Describe(input), " with block ", block[m]);
    }
    g->space.push_back(dim);
    g->batch_space.push_back(input->dim(m + 1));
    g->offset.push_back(start);
    (*out_shape)[m + 1] = static_cast<int32_t>(dim);
  }
  (*out_shape)[0] = static_cast<int32_t>(batch);
  g->batch = batch;
  g->rest_bytes = DimProduct(input->shape, m_count + 1, input->rank()) * TensorTypeSize(input->type);
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  reference::SpaceBatchGeometry g;
  return Geometry(ctx, &g, shape);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (input->rank() < 2) return ctx.Error("input ", Describe(input), " must have rank >= 2");
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "block_shape", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(2), "crops", {TensorType::kInt32, TensorType::kInt64}));
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant() && ctx.input(2)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  reference::SpaceBatchGeometry g;
  Shape shape;
  ER_RETURN_IF_ERROR(Geometry(ctx, &g, &shape));
  reference::BatchToSpace(g, ctx.input(0)->data_as<uint8_t>(), ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBatchToSpaceNd() {
  return MakeBuiltin(tflite::BuiltinOperator_BATCH_TO_SPACE_ND, 4, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
