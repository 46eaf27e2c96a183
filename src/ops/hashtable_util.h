// Shared code of HASHTABLE, HASHTABLE_FIND, HASHTABLE_IMPORT and HASHTABLE_SIZE: the tables live
// in the interpreter's ResourceStore under the id HASHTABLE gives them (its table_id option), keys
// and values stored as bytes (an int64 as its 8 bytes, a string as its characters).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "core/resources.h"
#include "ops/control_flow_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {

// Key and value types a table can hold. TFLite builds int64 -> string and string -> int64
// tables; edgerun also runs int64 -> int64 and string -> string.
inline bool IsTableType(TensorType t) { return t == TensorType::kInt64 || t == TensorType::kString; }

// The elements of an int64 or string tensor as table entries.
inline Status ReadTableEntries(const OpContext& ctx, const Tensor* t, const char* role, std::vector<std::string>* out) {
  out->clear();
  if (t->type == TensorType::kString) {
    std::vector<std::string_view> views;
    ER_RETURN_IF_ERROR(ReadStringViews(ctx, t, role, &views));
    out->assign(views.begin(), views.end());
    return Status::Ok();
  }
  if (t->type != TensorType::kInt64) return ctx.Error(role, " ", Describe(t), " must be int64 or string");
  const int64_t n = t->num_elements();
  if (n > 0 && (t->data == nullptr || t->bytes < static_cast<size_t>(n) * 8)) {
    return ctx.Error(role, " ", Describe(t), " has no data");
  }
  out->reserve(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) out->emplace_back(static_cast<const char*>(t->data) + 8 * i, 8);
  return Status::Ok();
}

// The table a resource tensor refers to; an error when no HASHTABLE op created it.
inline Status FindHashTable(OpContext& ctx, const Tensor* handle, ResourceStore::HashTable** table) {
  int32_t id;
  ER_RETURN_IF_ERROR(ReadResourceId(ctx, handle, &id));
  *table = ctx.interpreter().resources().FindTable(id);
  if (*table == nullptr) return ctx.Error("hash table ", id, " does not exist (no HASHTABLE op created it)");
  return Status::Ok();
}

// The table's key and value types must be those of the op's tensors.
inline Status CheckTableTypes(const OpContext& ctx, const ResourceStore::HashTable& table, TensorType key,
                              TensorType value) {
  if (table.key_type != key || table.value_type != value) {
    return ctx.Error("hash table holds ", TensorTypeName(table.key_type), " -> ", TensorTypeName(table.value_type),
                     ", the op uses ", TensorTypeName(key), " -> ", TensorTypeName(value));
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
