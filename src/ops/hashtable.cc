// HASHTABLE: outputs the resource id of the hash table named by its table_id option (the same id
// in every subgraph), creating the empty table on first use. HASHTABLE_IMPORT fills it.
#include "ops/hashtable_util.h"

namespace edgerun::ops {
namespace {

struct HashTableState {
  int32_t id = 0;
  TensorType key = TensorType::kInt64;
  TensorType value = TensorType::kString;
};

Status Prepare(OpContext& ctx, HashTableState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 0, 0, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kResource, TensorType::kInt32}));
  const auto* o = Options<tflite::HashtableOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing HashtableOptions");
  state.id = o->table_id();
  state.key = static_cast<TensorType>(o->key_dtype());
  state.value = static_cast<TensorType>(o->value_dtype());
  if (!IsTableType(state.key) || !IsTableType(state.value)) {
    return ctx.Unsupported("hash table of ", TensorTypeName(state.key), " -> ", TensorTypeName(state.value),
                           " (keys and values must be int64 or string)");
  }
  ctx.MarkDynamic(ctx.output(0));
  return Status::Ok();
}

Status Eval(OpContext& ctx, HashTableState& state) {
  // An existing table keeps its types; a mismatch shows when an op uses it.
  ctx.interpreter().resources().Table(state.id, state.key, state.value);
  Tensor* out = ctx.output(0);
  out->shape = {1};
  return WriteResourceId(out, state.id);
}

}  // namespace

OpRegistration RegisterHashtable() {
  return MakeBuiltinWithState<HashTableState>(tflite::BuiltinOperator_HASHTABLE, 1,
                                              "int64 -> string, string -> int64 (also int64 -> int64, string -> string)",
                                              Prepare, Eval);
}

}  // namespace edgerun::ops
