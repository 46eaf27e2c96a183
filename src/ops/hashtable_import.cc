// HASHTABLE_IMPORT: fills the table with keys[i] -> values[i] (keys and values of the same
// shape). Only the first import counts, later ones are ignored (converters leave the
// initializer in the graph that runs at every invocation); a repeated key keeps its first value.
#include "ops/hashtable_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 0));
  const Tensor* keys = ctx.input(1);
  const Tensor* values = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "table", {TensorType::kResource, TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, keys, "keys", {TensorType::kInt64, TensorType::kString}));
  ER_RETURN_IF_ERROR(CheckType(ctx, values, "values", {TensorType::kInt64, TensorType::kString}));
  if (keys->shape != values->shape) {
    return ctx.Error("keys ", Describe(keys), " and values ", Describe(values), " must have the same shape");
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  const Tensor* keys = ctx.input(1);
  const Tensor* values = ctx.input(2);
  ResourceStore::HashTable* table = nullptr;  // set by FindHashTable when it succeeds
  ER_RETURN_IF_ERROR(FindHashTable(ctx, ctx.input(0), &table));
  ER_RETURN_IF_ERROR(CheckTableTypes(ctx, *table, keys->type, values->type));
  if (table->initialized) return Status::Ok();
  std::vector<std::string> key_list, value_list;
  ER_RETURN_IF_ERROR(ReadTableEntries(ctx, keys, "keys", &key_list));
  ER_RETURN_IF_ERROR(ReadTableEntries(ctx, values, "values", &value_list));
  if (key_list.size() != value_list.size()) {
    return ctx.Error(key_list.size(), " keys for ", value_list.size(), " values");
  }
  for (size_t i = 0; i < key_list.size(); ++i) table->entries.emplace(std::move(key_list[i]), std::move(value_list[i]));
  table->initialized = true;
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterHashtableImport() {
  return MakeBuiltin(tflite::BuiltinOperator_HASHTABLE_IMPORT, 1, "int64 / string keys and values", Prepare, Eval);
}

}  // namespace edgerun::ops
