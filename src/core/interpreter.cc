#include "edgerun/interpreter.h"

#include "core/resources.h"
#include "core/subgraph.h"
#include "core/thread_pool.h"
#include "delegates/xnnpack_default.h"
#include "tflite_generated.h"

namespace edgerun {

Result<std::unique_ptr<Interpreter>> Interpreter::Create(std::shared_ptr<const Model> model,
                                                         InterpreterOptions options) {
  BuiltinOpResolver resolver;
  return Create(std::move(model), resolver, options);
}

Result<std::unique_ptr<Interpreter>> Interpreter::Create(std::shared_ptr<const Model> model,
                                                         const OpResolver& resolver,
                                                         InterpreterOptions options) {
  if (!model) return Status::Error("Interpreter::Create: no model");
  if (options.num_threads < 1) options.num_threads = 1;
  if (model->subgraph_nesting() > options.max_subgraph_depth) {
    return Status::Errorf(model->name(), ": subgraphs call each other ", model->subgraph_nesting(),
                          " levels deep, over the limit of ", options.max_subgraph_depth,
                          " (InterpreterOptions::max_subgraph_depth)");
  }
  auto interpreter = std::unique_ptr<Interpreter>(new Interpreter());
  interpreter->model_ = std::move(model);
  interpreter->options_ = options;
  interpreter->thread_pool_ = std::make_unique<ThreadPool>(ThreadsToStart(options.num_threads), options.parallel_regions);
  interpreter->resources_ = std::make_unique<ResourceStore>();
  interpreter->delegates_ = options.delegates;
  if (options.use_xnnpack && !options.preserve_all_tensors) {
    if (auto xnnpack = CreateDefaultXnnpackDelegate(options.xnnpack_min_partition_nodes)) {
      interpreter->delegates_.push_back(std::move(xnnpack));
    }
  }
  const Model& m = *interpreter->model_;
  for (int s = 0; s < m.num_subgraphs(); ++s) {
    interpreter->subgraphs_.push_back(std::make_unique<Subgraph>(interpreter.get(), s));
  }
  for (auto& subgraph : interpreter->subgraphs_) {
    ER_RETURN_IF_ERROR(subgraph->Build(m, resolver));
  }
  if (const auto* sigs = m.fb()->signature_defs()) {
    for (const tflite::SignatureDef* sig : *sigs) {
      std::vector<std::pair<std::string, int>> ins, outs;
      if (sig->inputs()) {
        for (const auto* map : *sig->inputs()) {
          ins.emplace_back(map->name() ? map->name()->str() : "", static_cast<int>(map->tensor_index()));
        }
      }
      if (sig->outputs()) {
        for (const auto* map : *sig->outputs()) {
          outs.emplace_back(map->name() ? map->name()->str() : "", static_cast<int>(map->tensor_index()));
        }
      }
      interpreter->signatures_.push_back(std::make_unique<SignatureRunner>(
          interpreter.get(), sig->signature_key() ? sig->signature_key()->str() : "",
          static_cast<int>(sig->subgraph_index()), std::move(ins), std::move(outs)));
    }
  }
  return interpreter;
}

Interpreter::~Interpreter() {
  // Subgraphs (and the op state and delegate kernels they free) go before the thread pools and
  // delegates they may use.
  subgraphs_.clear();
  resources_.reset();
  delegates_.clear();
}

Status Interpreter::ModifyGraphWithDelegate(std::shared_ptr<Delegate> delegate) {
  if (!delegate) return Status::Error("ModifyGraphWithDelegate: no delegate");
  delegates_.push_back(std::move(delegate));
  for (auto& s : subgraphs_) s->InvalidateAllocation();
  return Status::Ok();
}

Status Interpreter::SetNumThreads(int num_threads) {
  if (num_threads == -1) num_threads = 1;
  if (num_threads < 1) {
    return Status::Errorf("SetNumThreads(", num_threads, "): the number of threads must be positive (or -1 for 1)");
  }
  if (num_threads == options_.num_threads) return Status::Ok();
  // Delegate kernels may hold the old pool (XNNPACK runtimes do): they go first.
  for (auto& s : subgraphs_) s->DiscardDelegateKernels();
  options_.num_threads = num_threads;
  thread_pool_ = std::make_unique<ThreadPool>(ThreadsToStart(num_threads), options_.parallel_regions);
  return Status::Ok();
}

const DelegationReport* Interpreter::delegation(int subgraph) const {
  if (subgraph < 0 || subgraph >= static_cast<int>(subgraphs_.size())) return nullptr;
  return &subgraphs_[subgraph]->delegation();
}

Status Interpreter::AllocateTensors() { return subgraphs_[0]->AllocateTensors(); }

Status Interpreter::ResizeInputTensor(int input_position, const Shape& shape) {
  return subgraphs_[0]->ResizeInputTensor(input_position, shape);
}

Status Interpreter::Invoke() { return subgraphs_[0]->Invoke(); }

Status Interpreter::ResetVariableTensors() {
  for (auto& s : subgraphs_) ER_RETURN_IF_ERROR(s->ResetVariableTensors());
  return Status::Ok();
}

size_t Interpreter::num_inputs() const { return subgraphs_[0]->inputs().size(); }
size_t Interpreter::num_outputs() const { return subgraphs_[0]->outputs().size(); }

Tensor* Interpreter::input(int position) {
  const auto& list = subgraphs_[0]->inputs();
  if (position < 0 || position >= static_cast<int>(list.size())) return nullptr;
  return subgraphs_[0]->tensor(list[position]);
}

Tensor* Interpreter::output(int position) {
  const auto& list = subgraphs_[0]->outputs();
  if (position < 0 || position >= static_cast<int>(list.size())) return nullptr;
  return subgraphs_[0]->tensor(list[position]);
}

int Interpreter::input_position(const std::string& name) const {
  const auto& list = subgraphs_[0]->inputs();
  for (size_t i = 0; i < list.size(); ++i) {
    if (subgraphs_[0]->tensor(list[i])->name == name) return static_cast<int>(i);
  }
  return -1;
}

int Interpreter::output_position(const std::string& name) const {
  const auto& list = subgraphs_[0]->outputs();
  for (size_t i = 0; i < list.size(); ++i) {
    if (subgraphs_[0]->tensor(list[i])->name == name) return static_cast<int>(i);
  }
  return -1;
}

const std::vector<int>& Interpreter::inputs() const { return subgraphs_[0]->inputs(); }
const std::vector<int>& Interpreter::outputs() const { return subgraphs_[0]->outputs(); }
size_t Interpreter::num_tensors() const { return subgraphs_[0]->num_tensors(); }

Tensor* Interpreter::tensor(int index) {
  if (index < 0 || index >= static_cast<int>(subgraphs_[0]->num_tensors())) return nullptr;
  return subgraphs_[0]->tensor(index);
}

std::vector<std::string> Interpreter::signature_keys() const {
  std::vector<std::string> keys;
  for (const auto& s : signatures_) keys.push_back(s->key());
  return keys;
}

SignatureRunner* Interpreter::GetSignatureRunner(const std::string& key) {
  for (auto& s : signatures_) {
    if (s->key() == key) return s.get();
  }
  return nullptr;
}

size_t Interpreter::arena_bytes() const {
  size_t total = 0;
  for (const auto& s : subgraphs_) total += s->arena_bytes();
  return total;
}

size_t Interpreter::persistent_bytes() const {
  size_t total = 0;
  for (const auto& s : subgraphs_) total += s->persistent_bytes();
  return total;
}

int Interpreter::num_subgraphs() const { return static_cast<int>(subgraphs_.size()); }

Subgraph* Interpreter::subgraph(int index) {
  if (index < 0 || index >= static_cast<int>(subgraphs_.size())) return nullptr;
  return subgraphs_[index].get();
}

SignatureRunner::SignatureRunner(Interpreter* interpreter, std::string key, int subgraph_index,
                                 std::vector<std::pair<std::string, int>> inputs,
                                 std::vector<std::pair<std::string, int>> outputs)
    : interpreter_(interpreter),
      key_(std::move(key)),
      subgraph_index_(subgraph_index),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)) {}

std::vector<std::string> SignatureRunner::input_names() const {
  std::vector<std::string> names;
  for (const auto& [name, index] : inputs_) names.push_back(name);
  return names;
}

std::vector<std::string> SignatureRunner::output_names() const {
  std::vector<std::string> names;
  for (const auto& [name, index] : outputs_) names.push_back(name);
  return names;
}

Tensor* SignatureRunner::input(const std::string& name) {
  for (const auto& [n, index] : inputs_) {
    if (n == name) return interpreter_->subgraph(subgraph_index_)->tensor(index);
  }
  return nullptr;
}

Tensor* SignatureRunner::output(const std::string& name) {
  for (const auto& [n, index] : outputs_) {
    if (n == name) return interpreter_->subgraph(subgraph_index_)->tensor(index);
  }
  return nullptr;
}

Status SignatureRunner::ResizeInputTensor(const std::string& name, const Shape& shape) {
  Subgraph* subgraph = interpreter_->subgraph(subgraph_index_);
  for (const auto& [n, index] : inputs_) {
    if (n != name) continue;
    const auto& list = subgraph->inputs();
    for (size_t pos = 0; pos < list.size(); ++pos) {
      if (list[pos] == index) return subgraph->ResizeInputTensor(static_cast<int>(pos), shape);
    }
    return Status::Errorf("signature '", key_, "': input '", name, "' is not an input of subgraph ",
                          subgraph_index_);
  }
  return Status::Errorf("signature '", key_, "' has no input named '", name, "'");
}

Status SignatureRunner::AllocateTensors() { return interpreter_->subgraph(subgraph_index_)->AllocateTensors(); }

Status SignatureRunner::Invoke() { return interpreter_->subgraph(subgraph_index_)->Invoke(); }

}  // namespace edgerun
