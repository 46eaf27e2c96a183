// BROADCAST_TO(input, shape): input repeated along its dimensions of size 1 (and new leading
// dimensions) to `shape` (int32/int64, rank <= 8), numpy rules. When `shape` is not a constant the
// output is dynamic. TFLite numbers this op from version 2.
#include "kernels/reference/layout.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

constexpr int kMaxRank = 8;

Status OutputShape(OpContext& ctx, Shape* shape) {
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(ReadShape(ctx, ctx.input(1), "shape", shape));
  const int rank = static_cast<int>(shape->size());
  if (rank > kMaxRank) return ctx.Unsupported("output rank ", rank, " is over ", kMaxRank);
  bool ok = input->rank() <= rank;
  for (int i = 0; ok && i < input->rank(); ++i) {
    const int32_t in = input->dim(input->rank() - 1 - i), out = (*shape)[rank - 1 - i];
    ok = in == out || in == 1;
  }
  if (!ok) return ctx.Error("cannot broadcast ", Describe(input), " to ", ShapeToString(*shape));
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "shape", {TensorType::kInt32, TensorType::kInt64}));
  if (input->rank() > kMaxRank) return ctx.Unsupported("input rank ", input->rank(), " is over ", kMaxRank);
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  Shape in_shape(output->rank() - input->rank(), 1);  // align ranks with leading ones
  in_shape.insert(in_shape.end(), input->shape.begin(), input->shape.end());
  reference::Repeat(in_shape, output->shape, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                    output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBroadcastTo() {
  return MakeBuiltin(tflite::BuiltinOperator_BROADCAST_TO, 3, "any fixed-size type", Prepare, Eval, /*min_version=*/2);
}

}  // namespace edgerun::ops
