// HASHTABLE_LOOKUP: for each int32 in `lookup`, finds it in the sorted int32 `keys` (binary
// search) and copies the matching row of `values`; a missing key gives a row of zeros (an empty
// string for string values) and hits[i] = 0, a found one hits[i] = 1.
// Values: any fixed-size type (rows of any shape), or a 1-D string tensor.
#include <cstring>

#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 2));
  const Tensor* lookup = ctx.input(0);
  const Tensor* keys = ctx.input(1);
  const Tensor* values = ctx.input(2);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, lookup, "lookup", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, lookup, "lookup", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, keys, "keys", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, keys, "keys", 1, 1));
  if (values->rank() < 1) return ctx.Error("values ", Describe(values), " must have rank >= 1");
  if (values->dim(0) != keys->dim(0)) {
    return ctx.Error("values ", Describe(values), " must have one row per key (", keys->dim(0), ")");
  }
  ER_RETURN_IF_ERROR(CheckSameType(ctx, values, output, "values and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(1), "hits", {TensorType::kUInt8}));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, {lookup->dim(0)}));
  if (values->type == TensorType::kString) {
    if (values->rank() != 1) return ctx.Error("string values ", Describe(values), " must be 1-D");
    return ctx.ResizeOutput(0, {lookup->dim(0)});  // the bytes come when written
  }
  if (!IsFixedSizeType(values->type)) {
    return ctx.Unsupported("values ", Describe(values), ": type ", TensorTypeName(values->type), " is not supported");
  }
  Shape shape = values->shape;
  shape[0] = lookup->dim(0);
  return ctx.ResizeOutput(0, shape);
}

// The position of `key` in the sorted keys, or -1. The probing order is that of the C library's
// bsearch, which TFLite uses: with repeated keys the same one is found.
int64_t FindKey(const int32_t* keys, int64_t n, int32_t key) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (key < keys[mid]) hi = mid;
    else if (key > keys[mid]) lo = mid + 1;
    else return mid;
  }
  return -1;
}

Status Eval(OpContext& ctx) {
  const Tensor* lookup = ctx.input(0);
  const Tensor* keys = ctx.input(1);
  const Tensor* values = ctx.input(2);
  Tensor* output = ctx.output(0);
  uint8_t* hits = ctx.output(1)->data_as<uint8_t>();
  const int64_t rows = values->dim(0);
  if (rows == 0) return ctx.Error("values ", Describe(values), " has no rows");
  const int32_t* ids = lookup->data_as<int32_t>();
  const int64_t count = lookup->dim(0);
  if (values->type == TensorType::kString) {
    std::vector<std::string_view> strings;
    ER_RETURN_IF_ERROR(ReadStringViews(ctx, values, "values", &strings));
    StringTensorWriter writer;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t row = FindKey(keys->data_as<int32_t>(), rows, ids[i]);
      writer.Add(row < 0 ? std::string_view() : strings[row]);
      hits[i] = row < 0 ? 0 : 1;
    }
    return writer.WriteTo(ctx, output, {static_cast<int32_t>(count)});
  }
  const size_t row_bytes = values->bytes / static_cast<size_t>(rows);
  uint8_t* out = output->data_as<uint8_t>();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = FindKey(keys->data_as<int32_t>(), rows, ids[i]);
    if (row < 0) std::memset(out + i * row_bytes, 0, row_bytes);
    else std::memcpy(out + i * row_bytes, values->data_as<uint8_t>() + row * row_bytes, row_bytes);
    hits[i] = row < 0 ? 0 : 1;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterHashtableLookup() {
  return MakeBuiltin(tflite::BuiltinOperator_HASHTABLE_LOOKUP, 1,
                     "int32 keys; values of any fixed-size type or string", Prepare, Eval);
}

}  // namespace edgerun::ops
