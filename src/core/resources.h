// ResourceStore: state that lives in an interpreter rather than in a tensor -- resource
// variables (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE) and hash tables. Shared by all the
// subgraphs of one interpreter, as in TFLite.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edgerun/status.h"
#include "edgerun/tensor.h"

namespace edgerun {

class ResourceStore {
 public:
  // The id of the variable named (container, shared_name); the same name gives the same id in
  // every subgraph. Ids start at 1.
  int32_t VariableId(const std::string& container, const std::string& shared_name);
  // The variable's current value, or null before the first assignment.
  const Tensor* Variable(int32_t id) const;
  Status AssignVariable(int32_t id, const Tensor& value);

  struct HashTable {
    TensorType key_type = TensorType::kInt64;
    TensorType value_type = TensorType::kInt64;
    std::map<std::string, std::string> entries;  // keys and values as raw bytes (or strings)
    bool initialized = false;  // set by the first import (HASHTABLE_IMPORT); later imports are ignored
  };
  HashTable* Table(int32_t table_id, TensorType key_type, TensorType value_type);
  HashTable* FindTable(int32_t table_id);

  void Clear();

 private:
  std::map<std::pair<std::string, std::string>, int32_t> names_;
  std::map<int32_t, std::unique_ptr<Tensor>> variables_;
  std::map<int32_t, HashTable> tables_;
};

}  // namespace edgerun
