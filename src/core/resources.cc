#include "core/resources.h"

#include <cstring>

namespace edgerun {

int32_t ResourceStore::VariableId(const std::string& container, const std::string& shared_name) {
  auto [it, inserted] = names_.emplace(std::make_pair(container, shared_name), 0);
  if (inserted) it->second = static_cast<int32_t>(names_.size());
  return it->second;
}

const Tensor* ResourceStore::Variable(int32_t id) const {
  auto it = variables_.find(id);
  return it == variables_.end() ? nullptr : it->second.get();
}

Status ResourceStore::AssignVariable(int32_t id, const Tensor& value) {
  auto& slot = variables_[id];
  if (!slot) slot = std::make_unique<Tensor>();
  Tensor& v = *slot;
  if (v.data != nullptr && v.type != value.type) {
    return Status::Errorf("resource variable ", id, " holds ", TensorTypeName(v.type), ", cannot assign ",
                          TensorTypeName(value.type));
  }
  v.name = "resource variable " + std::to_string(id);
  v.type = value.type;
  v.shape = value.shape;
  v.quantization = value.quantization;
  v.allocation = Allocation::kPersistent;
  if (!v.owned.Reserve(value.bytes)) return Status::Errorf("out of memory assigning resource variable ", id);
  v.data = v.owned.data();
  v.bytes = value.bytes;
  if (value.bytes > 0) std::memcpy(v.data, value.data, value.bytes);
  return Status::Ok();
}

ResourceStore::HashTable* ResourceStore::Table(int32_t table_id, TensorType key_type, TensorType value_type) {
  auto [it, inserted] = tables_.emplace(table_id, HashTable());
  if (inserted) {
    it->second.key_type = key_type;
    it->second.value_type = value_type;
  }
  return &it->second;
}

ResourceStore::HashTable* ResourceStore::FindTable(int32_t table_id) {
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : &it->second;
}

void ResourceStore::Clear() {
  variables_.clear();
  tables_.clear();
}

}  // namespace edgerun
