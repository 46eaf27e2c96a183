// SPACE_TO_BATCH_ND(input, block_shape, paddings): pads the spatial dims (those after the batch,
// one per block_shape entry), then moves each block offset into the batch:
// [B, S1.., R..] -> [B * prod(block), (S1 + pads) / block1.., R..]. Padding is zero (the zero
// point for quantized tensors). Non-constant block_shape or paddings make the output dynamic.
#include "kernels/reference/space_batch.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Geometry(OpContext& ctx, reference::SpaceBatchGeometry* g, Shape* out_shape) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> block, paddings;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "block_shape", &block));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(2), "paddings", &paddings));
  const int m_count = static_cast<int>(block.size());
  if (m_count < 1 || m_count > input->rank() - 1 || paddings.size() != 2 * block.size()) {
    return ctx.Error("block_shape ", Describe(ctx.input(1)), " and paddings ", Describe(ctx.input(2)),
                     " do not fit input ", Describe(input));
  }
  *out_shape = input->shape;
  g->batch = input->dim(0);
  g->space.clear();
  g->batch_space.clear();
  g->block = block;
  g->offset.clear();
  int64_t batch = input->dim(0);
  for (int m = 0; m < m_count; ++m) {
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    const int64_t before = paddings[2 * m], after = paddings[2 * m + 1];
    if (block[m] < 1 || block[m] > kMax || before < 0 || before > kMax || after < 0 || after > kMax ||
        (input->dim(m + 1) + before + after) % block[m] != 0) {
      return ctx.Error("spatial dimension ", m + 1, " of ", Describe(input), " padded by [", before, ", ", after,
                       "] is not a multiple of block ", block[m]);
    }
    const int64_t padded = input->dim(m + 1) + before + after;
    batch *= block[m];
    if (batch > kMax || padded > kMax) {
      return ctx.Error("output of ", Describe(input), " is too large");
    }
    g->space.push_back(input->dim(m + 1));
    g->batch_space.push_back(padded / block[m]);
    g->offset.push_back(before);
    (*out_shape)[m + 1] = static_cast<int32_t>(padded / block[m]);
  }
  (*out_shape)[0] = static_cast<int32_t>(batch);
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
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(2), "paddings", {TensorType::kInt32, TensorType::kInt64}));
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant() && ctx.input(2)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  reference::SpaceBatchGeometry g;
  Shape shape;
  ER_RETURN_IF_ERROR(Geometry(ctx, &g, &shape));
  uint8_t zero[16];
  ZeroElement(output, zero);
  reference::SpaceToBatch(g, TensorTypeSize(input->type), input->data_as<uint8_t>(), zero, output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSpaceToBatchNd() {
  return MakeBuiltin(tflite::BuiltinOperator_SPACE_TO_BATCH_ND, 4, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
