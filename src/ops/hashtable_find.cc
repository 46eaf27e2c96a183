// HASHTABLE_FIND: looks each key up in the table; keys not in it give the first element of
// `default_value`. The output has the keys' shape. Finding in a table that no HASHTABLE_IMPORT
// filled is an error (as TFLite).
#include "ops/hashtable_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* keys = ctx.input(1);
  const Tensor* default_value = ctx.input(2);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "table", {TensorType::kResource, TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, keys, "keys", {TensorType::kInt64, TensorType::kString}));
  ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kInt64, TensorType::kString}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, default_value, output, "default_value and output"));
  if (default_value->num_elements() < 1) return ctx.Error("default_value ", Describe(default_value), " is empty");
  // String keys may change shape without a new prepare (strings own their memory): the output
  // then follows them at eval. String outputs get their bytes when written.
  if (keys->type == TensorType::kString) ctx.MarkDynamic(output);
  return ctx.ResizeOutput(0, keys->shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* keys = ctx.input(1);
  const Tensor* default_value = ctx.input(2);
  Tensor* output = ctx.output(0);
  ResourceStore::HashTable* table = nullptr;  // set by FindHashTable when it succeeds
  ER_RETURN_IF_ERROR(FindHashTable(ctx, ctx.input(0), &table));
  ER_RETURN_IF_ERROR(CheckTableTypes(ctx, *table, keys->type, output->type));
  if (!table->initialized) return ctx.Error("hash table is used before HASHTABLE_IMPORT initialized it");
  std::vector<std::string> key_list, defaults;
  ER_RETURN_IF_ERROR(ReadTableEntries(ctx, keys, "keys", &key_list));
  ER_RETURN_IF_ERROR(ReadTableEntries(ctx, default_value, "default_value", &defaults));
  if (defaults.empty()) return ctx.Error("default_value ", Describe(default_value), " is empty");
  std::vector<const std::string*> found(key_list.size());
  for (size_t i = 0; i < key_list.size(); ++i) {
    auto it = table->entries.find(key_list[i]);
    found[i] = it == table->entries.end() ? &defaults[0] : &it->second;
  }
  if (output->is_dynamic() || output->shape != keys->shape) ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, keys->shape));
  if (output->type == TensorType::kString) {
    StringTensorWriter writer;
    for (const std::string* v : found) writer.Add(*v);
    return writer.WriteTo(ctx, output, keys->shape);
  }
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i]->size() != 8) return ctx.Error("internal error: int64 table value of ", found[i]->size(), " bytes");
    std::memcpy(output->data_as<uint8_t>() + 8 * i, found[i]->data(), 8);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterHashtableFind() {
  return MakeBuiltin(tflite::BuiltinOperator_HASHTABLE_FIND, 1, "int64 / string keys -> int64 / string values",
                     Prepare, Eval);
}

}  // namespace edgerun::ops
