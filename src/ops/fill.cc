// FILL: a tensor of shape `dims` (1-D int32 / int64) filled with `value` (one element of any
// fixed-size type, or a string). Dims known only at run time make the output dynamic.
#include <cstring>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status ComputeShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> dims;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(0), "dims", &dims));
  shape->clear();
  for (int64_t d : dims) {
    if (d < 0 || d > std::numeric_limits<int32_t>::max()) {
      return ctx.Error("dims ", Describe(ctx.input(0)), " holds the invalid dimension ", d);
    }
    shape->push_back(static_cast<int32_t>(d));
  }
  if (NumElements(*shape) < 0) return ctx.Error("FILL shape ", ShapeToString(*shape), " is too large");
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* dims = ctx.input(0);
  const Tensor* value = ctx.input(1);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, dims, "dims", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, dims, "dims", 1, 1));
  if (value->num_elements() != 1) return ctx.Error("value ", Describe(value), " must be a scalar");
  ER_RETURN_IF_ERROR(CheckSameType(ctx, value, output, "value and output"));
  if (value->type != TensorType::kString && (!IsFixedSizeType(value->type) || TensorTypeSize(value->type) == 0)) {
    return ctx.Unsupported("value ", Describe(value), ": type ", TensorTypeName(value->type), " is not supported");
  }
  if (value->scale() != output->scale() || value->zero_point() != output->zero_point()) {
    return ctx.Error("value ", Describe(value), " and output ", Describe(output), " must share their quantization");
  }
  if (!dims->is_constant()) {
    ctx.MarkDynamic(output);
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeShape(ctx, &shape));
  return ctx.ResizeOutput(0, shape);
}

Status FillStrings(OpContext& ctx) {
  const Tensor* value = ctx.input(1);
  Tensor* output = ctx.output(0);
  bool ok = true;
  const std::vector<std::string> one = ReadStringTensor(value->data, value->bytes, &ok);
  if (!ok || one.size() != 1) return ctx.Error("value ", Describe(value), " is not a valid string tensor");
  const int64_t n = output->num_elements();
  if (static_cast<double>(n) * static_cast<double>(one[0].size() + 4) > (1u << 30)) {
    return ctx.Error("FILL of ", n, " strings is too large");
  }
  const std::vector<uint8_t> bytes = WriteStringTensor(std::vector<std::string>(static_cast<size_t>(n), one[0]));
  if (!output->owned.Reserve(bytes.size())) return ctx.Error("out of memory for ", Describe(output));
  std::memcpy(output->owned.data(), bytes.data(), bytes.size());
  output->data = output->owned.data();
  output->bytes = bytes.size();
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  const Tensor* value = ctx.input(1);
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    Shape shape;
    ER_RETURN_IF_ERROR(ComputeShape(ctx, &shape));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  if (value->type == TensorType::kString) return FillStrings(ctx);
  const size_t size = TensorTypeSize(value->type);
  uint8_t* out = output->data_as<uint8_t>();
  for (int64_t i = 0; i < output->num_elements(); ++i) std::memcpy(out + i * size, value->data, size);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFill() {
  return MakeBuiltin(tflite::BuiltinOperator_FILL, 4, "any fixed-size type, string", Prepare, Eval);
}

}  // namespace edgerun::ops
