// SEGMENT_SUM(data, segment_ids): sums the rows (first dimension) of data that share a segment id.
// segment_ids (int32, one per row) must start at 0 and grow by 0 or 1 from row to row; the output
// has max id + 1 rows. Non-constant inputs make the output dynamic.
#include "kernels/reference/segment.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status ReadIds(OpContext& ctx, std::vector<int64_t>* ids) {
  const Tensor* data = ctx.input(0);
  const Tensor* segment_ids = ctx.input(1);
  ER_RETURN_IF_ERROR(ReadInts(ctx, segment_ids, "segment_ids", ids));
  for (size_t i = 0; i < ids->size(); ++i) {
    const int64_t step = (*ids)[i] - (i == 0 ? -1 : (*ids)[i - 1]);
    if ((i == 0 && (*ids)[0] != 0) || step < 0 || step > 1) {
      return ctx.Error("segment_ids ", Describe(segment_ids), " must be sorted, start at 0 and have no gaps; id ",
                       (*ids)[i], " at row ", i, " of ", Describe(data));
    }
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> ids;
  ER_RETURN_IF_ERROR(ReadIds(ctx, &ids));
  *shape = ctx.input(0)->shape;
  (*shape)[0] = ids.empty() ? 0 : static_cast<int32_t>(ids.back() + 1);
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* data = ctx.input(0);
  const Tensor* segment_ids = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, data, "data", {TensorType::kFloat32, TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, data, ctx.output(0), "data and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, segment_ids, "segment_ids", {TensorType::kInt32}));
  if (data->rank() < 1 || segment_ids->rank() != 1 || segment_ids->dim(0) != data->dim(0)) {
    return ctx.Error("segment_ids ", Describe(segment_ids), " must be 1-D with one id per row of data ",
                     Describe(data));
  }
  return PrepareOutput(ctx, 0, segment_ids->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* data = ctx.input(0);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> ids;
  ER_RETURN_IF_ERROR(ReadIds(ctx, &ids));
  const int64_t inner = DimProduct(data->shape, 1, data->rank());
  const int64_t segments = output->dim(0);
  if (data->type == TensorType::kInt32) {
    reference::SegmentReduce(reference::SegmentOp::kSum, data->data_as<int32_t>(), ids, inner, segments,
                             output->data_as<int32_t>());
  } else {
    reference::SegmentReduce(reference::SegmentOp::kSum, data->data_as<float>(), ids, inner, segments,
                             output->data_as<float>());
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSegmentSum() {
  return MakeBuiltin(tflite::BuiltinOperator_SEGMENT_SUM, 1, "float32, int32", Prepare, Eval);
}

}  // namespace edgerun::ops
