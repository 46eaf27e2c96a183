// FILL: a tensor of shape `dims` (1-D int32 / int64) filled with `value` (one element of any
// fixed-size type, or a string). Dims known only at run time make the output dynamic.
#include <cstring>
#include <limits>

#include "kernels/reference/movement.h"
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
  // The layout written directly (count, n + 1 offsets, the bytes): n copies of a short string
  // must not cost n std::strings first.
  const uint64_t n = static_cast<uint64_t>(output->num_elements());
  const uint64_t length = one[0].size();
  const size_t limit = ctx.interpreter().options().max_tensor_bytes;
  if ((static_cast<double>(n) * static_cast<double>(length + 4) + 8 > static_cast<double>(limit)) ||
      n + 2 > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) / 4) {
    return ctx.Error("FILL of ", n, " strings of ", length, " bytes is over the limit of ", limit,
                     " bytes (InterpreterOptions::max_tensor_bytes)");
  }
  const uint64_t header = 4 * (n + 2);
  const uint64_t total = header + n * length;
  if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return ctx.Error("FILL of ", n, " strings of ", length, " bytes is too large for a string tensor");
  }
  if (!output->owned.Reserve(static_cast<size_t>(total))) return ctx.Error("out of memory for ", Describe(output));
  uint8_t* out = output->owned.data();
  auto put = [&](uint64_t at, uint64_t v) {
    const int32_t v32 = static_cast<int32_t>(v);
    std::memcpy(out + at, &v32, 4);
  };
  put(0, n);
  for (uint64_t i = 0; i <= n; ++i) put(4 * (i + 1), header + i * length);
  for (uint64_t i = 0; i < n; ++i) {
    if (length > 0) std::memcpy(out + header + i * length, one[0].data(), length);
  }
  output->data = out;
  output->bytes = static_cast<size_t>(total);
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
  reference::FillElements(out, output->num_elements(), value->data_as<uint8_t>(), size);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFill() {
  return MakeBuiltin(tflite::BuiltinOperator_FILL, 4, "any fixed-size type, string", Prepare, Eval);
}

}  // namespace edgerun::ops
