// HASHTABLE_SIZE: the number of entries of the table, as int64 of shape [1].
#include "ops/hashtable_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "table", {TensorType::kResource, TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt64}));
  return ctx.ResizeOutput(0, {1});
}

Status Eval(OpContext& ctx) {
  ResourceStore::HashTable* table = nullptr;  // set by FindHashTable when it succeeds
  ER_RETURN_IF_ERROR(FindHashTable(ctx, ctx.input(0), &table));
  *ctx.output(0)->data_as<int64_t>() = static_cast<int64_t>(table->entries.size());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterHashtableSize() {
  return MakeBuiltin(tflite::BuiltinOperator_HASHTABLE_SIZE, 1, "resource -> int64", Prepare, Eval);
}

}  // namespace edgerun::ops
