// UNSORTED_SEGMENT_SUM / _PROD / _MAX / _MIN(data, segment_ids, num_segments): combines the slices
// of data that share a segment id, in any order. segment_ids (int32) has a prefix of data's shape;
// the output is [num_segments] + data.shape[rank(segment_ids):]. Negative ids are skipped, ids
// >= num_segments are an error. Empty segments hold 0, 1, the lowest or the highest value. The
// output is dynamic unless segment_ids and num_segments are constants.
#include "kernels/reference/segment.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

using reference::SegmentOp;

Status ReadSegments(OpContext& ctx, std::vector<int64_t>* ids, int64_t* num_segments) {
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "segment_ids", ids));
  ER_RETURN_IF_ERROR(ReadScalarInt(ctx, ctx.input(2), "num_segments", num_segments));
  if (*num_segments < 0 || *num_segments > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("invalid num_segments ", *num_segments);
  }
  for (int64_t id : *ids) {
    if (id >= *num_segments) return ctx.Error("segment id ", id, " is not below num_segments ", *num_segments);
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> ids;
  int64_t num_segments = 0;
  ER_RETURN_IF_ERROR(ReadSegments(ctx, &ids, &num_segments));
  const Shape& data = ctx.input(0)->shape;
  shape->assign(1, static_cast<int32_t>(num_segments));
  shape->insert(shape->end(), data.begin() + ctx.input(1)->rank(), data.end());
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* data = ctx.input(0);
  const Tensor* ids = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, data, "data", {TensorType::kFloat32, TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, data, ctx.output(0), "data and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ids, "segment_ids", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(2), "num_segments", {TensorType::kInt32}));
  bool prefix = ids->rank() <= data->rank();
  for (int d = 0; prefix && d < ids->rank(); ++d) prefix = ids->dim(d) == data->dim(d);
  if (!prefix) return ctx.Error("segment_ids ", Describe(ids), " must have a prefix of the shape of data ", Describe(data));
  return PrepareOutput(ctx, 0, ids->is_constant() && ctx.input(2)->is_constant(), OutputShape);
}

template <SegmentOp kOp>
Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* data = ctx.input(0);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> ids;
  int64_t num_segments = 0;
  ER_RETURN_IF_ERROR(ReadSegments(ctx, &ids, &num_segments));
  const int64_t inner = DimProduct(data->shape, ctx.input(1)->rank(), data->rank());
  if (data->type == TensorType::kInt32) {
    reference::SegmentReduce(kOp, data->data_as<int32_t>(), ids, inner, num_segments, output->data_as<int32_t>());
  } else {
    reference::SegmentReduce(kOp, data->data_as<float>(), ids, inner, num_segments, output->data_as<float>());
  }
  return Status::Ok();
}

OpRegistration Make(tflite::BuiltinOperator code, std::function<Status(OpContext&)> eval) {
  return MakeBuiltin(code, 1, "float32, int32", Prepare, std::move(eval));
}

}  // namespace

OpRegistration RegisterUnsortedSegmentSum() {
  return Make(tflite::BuiltinOperator_UNSORTED_SEGMENT_SUM, Eval<SegmentOp::kSum>);
}
OpRegistration RegisterUnsortedSegmentProd() {
  return Make(tflite::BuiltinOperator_UNSORTED_SEGMENT_PROD, Eval<SegmentOp::kProd>);
}
OpRegistration RegisterUnsortedSegmentMax() {
  return Make(tflite::BuiltinOperator_UNSORTED_SEGMENT_MAX, Eval<SegmentOp::kMax>);
}
OpRegistration RegisterUnsortedSegmentMin() {
  return Make(tflite::BuiltinOperator_UNSORTED_SEGMENT_MIN, Eval<SegmentOp::kMin>);
}

}  // namespace edgerun::ops
