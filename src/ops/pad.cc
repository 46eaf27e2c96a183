// PAD and PADV2: pads each dimension with [before, after] elements from a [rank, 2] paddings
// tensor. PAD fills with zero (the zero point for quantized tensors); PADV2 with its third input.
#include <cstring>

#include "kernels/reference/movement.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status ReadPaddings(OpContext& ctx, std::vector<int64_t>* before, std::vector<int64_t>* after) {
  const Tensor* input = ctx.input(0);
  const Tensor* paddings = ctx.input(1);
  const int rank = input->rank();
  if (paddings->rank() != 2 || paddings->dim(0) != rank || paddings->dim(1) != 2) {
    return ctx.Error("paddings ", Describe(paddings), " must have shape [", rank, ",2]");
  }
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, paddings, "paddings", &values));
  before->resize(rank);
  after->resize(rank);
  for (int d = 0; d < rank; ++d) {
    (*before)[d] = values[2 * d];
    (*after)[d] = values[2 * d + 1];
    if ((*before)[d] < 0 || (*after)[d] < 0) return ctx.Error("negative padding in dimension ", d);
    // Each term is checked before the sum: paddings from the file can be any int64.
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if ((*before)[d] > kMax || (*after)[d] > kMax || input->dim(d) + (*before)[d] + (*after)[d] > kMax) {
      return ctx.Error("padded dimension ", d, " is too large");
    }
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> before, after;
  ER_RETURN_IF_ERROR(ReadPaddings(ctx, &before, &after));
  *shape = ctx.input(0)->shape;
  for (size_t d = 0; d < shape->size(); ++d) (*shape)[d] += static_cast<int32_t>(before[d] + after[d]);
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (!IsFixedSizeType(input->type)) return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  if (const Tensor* value = ctx.input(2)) {
    ER_RETURN_IF_ERROR(CheckSameType(ctx, input, value, "input and constant_values"));
    if (value->num_elements() != 1) return ctx.Error("constant_values ", Describe(value), " must have one element");
  }
  if (!ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(OutputShape(ctx, &shape));
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    Shape shape;
    ER_RETURN_IF_ERROR(OutputShape(ctx, &shape));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  std::vector<int64_t> before, after;
  ER_RETURN_IF_ERROR(ReadPaddings(ctx, &before, &after));
  const size_t element = TensorTypeSize(input->type);
  uint8_t fill[16] = {0};
  if (const Tensor* value = ctx.input(2)) {
    std::memcpy(fill, value->data, element);
  } else if (!input->quantization.empty()) {
    // Zero in a quantized tensor is its zero point.
    const int32_t zp = output->zero_point();
    if (element == 1) fill[0] = static_cast<uint8_t>(zp);
    if (element == 2) {
      const int16_t v = static_cast<int16_t>(zp);
      std::memcpy(fill, &v, 2);
    }
  }
  reference::Pad(input->shape, before, after, element, input->data_as<uint8_t>(), fill, output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterPad() { return MakeBuiltin(tflite::BuiltinOperator_PAD, 5, "any fixed-size type", Prepare, Eval); }
OpRegistration RegisterPadV2() { return MakeBuiltin(tflite::BuiltinOperator_PADV2, 5, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
