#include "edgerun/op.h"

#include "core/subgraph.h"
#include "core/thread_pool.h"
#include "tflite_generated.h"

namespace edgerun {

OpContext::OpContext(Subgraph* subgraph, int node_index) : subgraph_(subgraph), node_index_(node_index) {}

Node& OpContext::node() const { return subgraph_->nodes()[node_index_]; }

int OpContext::num_inputs() const { return static_cast<int>(node().inputs.size()); }
int OpContext::num_outputs() const { return static_cast<int>(node().outputs.size()); }
int OpContext::num_intermediates() const { return static_cast<int>(node().intermediates.size()); }

static Tensor* Lookup(Subgraph* subgraph, const std::vector<int>& list, int i) {
  if (i < 0 || i >= static_cast<int>(list.size()) || list[i] < 0) return nullptr;
  return subgraph->tensor(list[i]);
}

Tensor* OpContext::input(int i) const { return Lookup(subgraph_, node().inputs, i); }
Tensor* OpContext::output(int i) const { return Lookup(subgraph_, node().outputs, i); }
Tensor* OpContext::intermediate(int i) const { return Lookup(subgraph_, node().intermediates, i); }

int OpContext::input_tensor_index(int i) const {
  const auto& list = node().inputs;
  return (i >= 0 && i < static_cast<int>(list.size())) ? list[i] : -1;
}
int OpContext::output_tensor_index(int i) const {
  const auto& list = node().outputs;
  return (i >= 0 && i < static_cast<int>(list.size())) ? list[i] : -1;
}

const tflite::Operator* OpContext::op() const { return node().op; }

const uint8_t* OpContext::custom_options(size_t* size) const {
  *size = node().custom_options_size;
  return node().custom_options;
}

int32_t OpContext::builtin_code() const { return node().builtin_code; }
int OpContext::version() const { return node().version; }
const std::string& OpContext::op_name() const { return node().name; }
void* OpContext::user_data() const { return node().user_data; }
bool OpContext::in_eval() const { return subgraph_->in_eval(); }

Status OpContext::ResizeTensor(Tensor* tensor, Shape shape) {
  Status status = subgraph_->ResizeTensor(tensor, std::move(shape));
  return status.ok() ? status : status.WithContext(Location());
}

void OpContext::MarkDynamic(Tensor* tensor) { subgraph_->MarkDynamic(tensor); }

Result<Tensor*> OpContext::RequestTemporary(int slot, TensorType type, Shape shape) {
  auto result = subgraph_->RequestTemporary(node_index_, slot, type, std::move(shape));
  if (!result.ok()) return result.status().WithContext(Location());
  return result;
}

Tensor* OpContext::temporary(int slot) const {
  const auto& temps = node().temporaries;
  if (slot < 0 || slot >= static_cast<int>(temps.size()) || temps[slot] < 0) return nullptr;
  return subgraph_->tensor(temps[slot]);
}

std::string OpContext::Location() const { return subgraph_->NodeLocation(node_index_); }

Interpreter& OpContext::interpreter() const { return *subgraph_->interpreter(); }

ThreadPool* OpContext::thread_pool() const {
  ThreadPool* pool = subgraph_->interpreter()->thread_pool();
  // A node too small to gain from threads runs on the calling thread alone (NodeThreads).
  return pool != nullptr && pool->num_threads() > 1 && subgraph_->NodeThreads(node_index_) == 1 ? nullptr : pool;
}

const char* BuiltinOpName(int32_t code) {
  if (code >= tflite::BuiltinOperator_MIN && code <= tflite::BuiltinOperator_MAX) {
    const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
    if (name != nullptr && name[0] != '\0') return name;
  }
  thread_local std::string unknown;
  unknown = "UNKNOWN_" + std::to_string(code);
  return unknown.c_str();
}

bool ParseBuiltinOpName(const std::string& name, int32_t* code) {
  for (int32_t c = tflite::BuiltinOperator_MIN; c <= tflite::BuiltinOperator_MAX; ++c) {
    if (name == tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(c))) {
      *code = c;
      return true;
    }
  }
  return false;
}

}  // namespace edgerun
