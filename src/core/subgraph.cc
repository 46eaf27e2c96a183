#include "core/subgraph.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/arena_planner.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

template <class T>
uint32_t Size(const flatbuffers::Vector<T>* v) {
  return v ? v->size() : 0;
}

std::vector<int> ToVector(const flatbuffers::Vector<int32_t>* v) {
  return v ? std::vector<int>(v->begin(), v->end()) : std::vector<int>();
}

// Types whose size is not a function of the shape: always allocated on their own.
bool NeedsOwnAllocation(TensorType type) {
  return type == TensorType::kString || type == TensorType::kResource ||
         type == TensorType::kVariant;
}

}  // namespace

Subgraph::Subgraph(Interpreter* interpreter, int index) : interpreter_(interpreter), index_(index) {}

Subgraph::~Subgraph() {
  for (Node& node : nodes_) {
    if (node.initialized && node.registration && node.registration->free) {
      node.registration->free(node.user_data);
    }
  }
}

std::string Subgraph::Location() const { return StrCat(model_name_, ": subgraph ", index_); }

std::string Subgraph::NodeLocation(int node_index) const {
  const Node& node = nodes_[node_index];
  return StrCat(Location(), ", op ", node_index, " (", node.name, " v", node.version, ")");
}

int Subgraph::AddTensor(Tensor tensor) {
  tensors_.push_back(std::move(tensor));
  return static_cast<int>(tensors_.size()) - 1;
}

Status Subgraph::Build(const Model& model, const OpResolver& resolver) {
  model_name_ = model.name();
  const tflite::SubGraph& fb = *model.fb()->subgraphs()->Get(index_);
  name_ = fb.name() ? fb.name()->str() : std::string();

  for (uint32_t t = 0; t < Size(fb.tensors()); ++t) {
    const tflite::Tensor& src = *fb.tensors()->Get(t);
    Tensor tensor;
    tensor.name = src.name() ? src.name()->str() : std::string();
    tensor.type = static_cast<TensorType>(src.type());
    if (src.shape()) tensor.shape.assign(src.shape()->begin(), src.shape()->end());
    if (src.shape_signature()) {
      tensor.shape_signature.assign(src.shape_signature()->begin(), src.shape_signature()->end());
    }
    if (const auto* q = src.quantization()) {
      if (q->scale()) tensor.quantization.scale.assign(q->scale()->begin(), q->scale()->end());
      if (q->zero_point()) {
        tensor.quantization.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
      }
      if (!tensor.quantization.scale.empty() && tensor.quantization.zero_point.empty()) {
        tensor.quantization.zero_point.assign(tensor.quantization.scale.size(), 0);
      }
      tensor.quantization.quantized_dimension = q->quantized_dimension();
    }
    tensor.is_variable = src.is_variable();
    tensor.sparsity = src.sparsity();
    const Model::Bytes data = model.buffer(src.buffer());
    if (data.size > 0) {
      tensor.bytes = data.size;
      const size_t element = std::max<size_t>(1, std::min<size_t>(8, TensorTypeSize(tensor.type)));
      if (tensor.is_variable) {
        // A variable with a buffer starts from that value (and returns to it on reset).
        tensor.allocation = Allocation::kPersistent;
      } else if (reinterpret_cast<uintptr_t>(data.data) % element != 0) {
        // Weights stored after the FlatBuffer may be unaligned: keep an aligned copy.
        if (!tensor.owned.Reserve(data.size)) {
          return Status::Errorf(Location(), ", tensor ", t, ": out of memory");
        }
        std::memcpy(tensor.owned.data(), data.data, data.size);
        tensor.data = tensor.owned.data();
        tensor.allocation = Allocation::kConstant;
      } else {
        tensor.data = const_cast<uint8_t*>(data.data);  // read-only: ops never write constants
        tensor.allocation = Allocation::kConstant;
      }
    } else if (tensor.is_variable) {
      tensor.allocation = Allocation::kPersistent;
    }
    tensors_.push_back(std::move(tensor));
  }
  inputs_ = ToVector(fb.inputs());
  outputs_ = ToVector(fb.outputs());

  std::string unresolved;
  int num_unresolved = 0;
  std::map<const OpRegistration*, const OpRegistration*> copies;
  auto keep = [&](const OpRegistration* r) -> const OpRegistration* {
    if (r == nullptr) return nullptr;
    auto [it, inserted] = copies.emplace(r, nullptr);
    if (inserted) {
      registrations_.push_back(*r);
      it->second = &registrations_.back();
    }
    return it->second;
  };
  const auto* opcodes = model.fb()->operator_codes();
  for (uint32_t o = 0; o < Size(fb.operators()); ++o) {
    const tflite::Operator* op = fb.operators()->Get(o);
    const tflite::OperatorCode* code = opcodes->Get(op->opcode_index());
    Node node;
    node.op = op;
    node.builtin_code = std::max<int32_t>(static_cast<int32_t>(code->builtin_code()),
                                          static_cast<int32_t>(code->deprecated_builtin_code()));
    node.version = std::max(1, code->version());
    node.inputs = ToVector(op->inputs());
    node.outputs = ToVector(op->outputs());
    node.intermediates = ToVector(op->intermediates());
    if (op->large_custom_options_offset() > 1) {
      node.custom_options = model.data() + op->large_custom_options_offset();
      node.custom_options_size = static_cast<size_t>(op->large_custom_options_size());
    } else if (op->custom_options()) {
      node.custom_options = op->custom_options()->data();
      node.custom_options_size = op->custom_options()->size();
    }
    std::string why;
    if (node.builtin_code == tflite::BuiltinOperator_CUSTOM) {
      node.name = code->custom_code() ? code->custom_code()->str() : std::string();
      node.registration = keep(resolver.FindCustom(node.name, node.version, &why));
      if (node.name.empty()) why = "custom op without a custom_code";
    } else {
      node.name = BuiltinOpName(node.builtin_code);
      node.registration = keep(resolver.FindBuiltin(node.builtin_code, node.version, &why));
    }
    if (node.registration == nullptr) {
      if (++num_unresolved <= 8) {
        unresolved += StrCat(unresolved.empty() ? "" : "; ", "op ", o, " (", node.name, " v",
                             node.version, "): ", why);
      }
    }
    nodes_.push_back(std::move(node));
  }
  if (num_unresolved > 0) {
    return Status::Unsupported(StrCat(Location(), ": ", num_unresolved, num_unresolved == 1 ? " op is" : " ops are",
                                      " not supported: ", unresolved, num_unresolved > 8 ? "; ..." : ""));
  }
  for (size_t n = 0; n < nodes_.size(); ++n) {
    Node& node = nodes_[n];
    if (node.registration->init) {
      OpContext context(this, static_cast<int>(n));
      node.user_data = node.registration->init(context);
    }
    node.initialized = true;
  }
  return Status::Ok();
}

Status Subgraph::ResizeInputTensor(int position, const Shape& shape) {
  if (position < 0 || position >= static_cast<int>(inputs_.size())) {
    return Status::Errorf(Location(), ": input ", position, " does not exist (", inputs_.size(),
                          " inputs)");
  }
  Tensor& t = tensors_[inputs_[position]];
  for (int32_t d : shape) {
    if (d < 0) return Status::Errorf(Location(), ": input '", t.name, "': negative dimension in ", ShapeToString(shape));
  }
  if (!t.shape_signature.empty()) {
    bool compatible = t.shape_signature.size() == shape.size();
    for (size_t i = 0; compatible && i < shape.size(); ++i) {
      compatible = t.shape_signature[i] == -1 || t.shape_signature[i] == shape[i];
    }
    if (!compatible) {
      return Status::Errorf(Location(), ": input '", t.name, "' cannot take shape ", ShapeToString(shape),
                            ": the model allows ", ShapeToString(t.shape_signature),
                            " (-1 = any size)");
    }
  }
  if (t.is_constant()) return Status::Errorf(Location(), ": input '", t.name, "' is a constant");
  if (t.shape != shape) {
    t.shape = shape;
    needs_allocation_ = true;
  }
  return Status::Ok();
}

Status Subgraph::SetInputShape(int position, const Shape& shape) {
  if (position < 0 || position >= static_cast<int>(inputs_.size())) {
    return Status::Errorf(Location(), ": input ", position, " does not exist (", inputs_.size(), " inputs)");
  }
  Tensor& t = tensors_[inputs_[position]];
  if (t.shape != shape) {
    t.shape = shape;
    needs_allocation_ = true;
  }
  return Status::Ok();
}

Status Subgraph::ResizeTensor(Tensor* tensor, Shape shape) {
  if (tensor == nullptr) return Status::Error("internal error: resizing a missing tensor");
  for (int32_t d : shape) {
    if (d < 0) return Status::Errorf("tensor '", tensor->name, "': negative dimension in ", ShapeToString(shape));
  }
  if (tensor->is_constant()) {
    if (tensor->shape == shape) return Status::Ok();
    return Status::Errorf("tensor '", tensor->name, "' is a constant of shape ", ShapeToString(tensor->shape),
                          " but the op computes ", ShapeToString(shape));
  }
  const bool changed = tensor->shape != shape;
  tensor->shape = std::move(shape);
  if (in_eval_) {
    if (tensor->allocation == Allocation::kArena) {
      if (!changed) return Status::Ok();
      return Status::Errorf("internal error: tensor '", tensor->name,
                            "' changed shape during Invoke but was not marked dynamic");
    }
    if (tensor->allocation == Allocation::kDynamic || tensor->allocation == Allocation::kPersistent) {
      return AllocateOwned(tensor);
    }
  }
  return Status::Ok();
}

void Subgraph::MarkDynamic(Tensor* tensor) {
  if (tensor == nullptr || tensor->is_constant() || tensor->allocation == Allocation::kPersistent) return;
  tensor->allocation = Allocation::kDynamic;
}

Status Subgraph::AllocateOwned(Tensor* tensor) {
  if (NeedsOwnAllocation(tensor->type)) return Status::Ok();  // sized by whoever writes it
  const int64_t elements = NumElements(tensor->shape);
  size_t bytes = 0;
  if (elements < 0 || !TensorBytes(tensor->type, elements, &bytes)) {
    return Status::Errorf("tensor '", tensor->name, "' of type ", TensorTypeName(tensor->type), " and shape ",
                          ShapeToString(tensor->shape), " has no computable size");
  }
  const size_t limit = interpreter_->options().max_tensor_bytes;
  if (bytes > limit) {
    return Status::Errorf("tensor '", tensor->name, "' of shape ", ShapeToString(tensor->shape), " needs ", bytes,
                          " bytes, over the limit of ", limit, " (InterpreterOptions::max_tensor_bytes)");
  }
  // Tensors sized at run time count against the same budget as the arenas: many of them, each
  // under max_tensor_bytes, must not add up to more memory than the caller allows.
  const size_t held = tensor->owned.data() ? tensor->owned.capacity() : 0;
  if (bytes > held) {
    const size_t budget = interpreter_->options().max_arena_bytes;
    const size_t in_use = MemoryInUse(/*include_own_arena=*/true);
    if (bytes - held > budget || in_use > budget - (bytes - held)) {
      return Status::Errorf("tensor '", tensor->name, "' of shape ", ShapeToString(tensor->shape), " needs ", bytes,
                            " bytes, with ", in_use, " bytes in use that is over the limit of ", budget,
                            " (InterpreterOptions::max_arena_bytes)");
    }
  }
  if (!tensor->owned.Reserve(bytes)) {
    return Status::Errorf("out of memory allocating ", bytes, " bytes for tensor '", tensor->name, "'");
  }
  owned_bytes_ += tensor->owned.capacity() - held;
  tensor->data = tensor->owned.data();
  tensor->bytes = bytes;
  return Status::Ok();
}

size_t Subgraph::MemoryInUse(bool include_own_arena) const {
  size_t total = 0;
  for (int s = 0; s < interpreter_->num_subgraphs(); ++s) {
    const Subgraph* sg = interpreter_->subgraph(s);
    total += sg->owned_bytes_;
    if (sg != this || include_own_arena) total += sg->arena_bytes_;
  }
  return total;
}

Result<Tensor*> Subgraph::RequestTemporary(int node_index, int slot, TensorType type, Shape shape) {
  Node& node = nodes_[node_index];
  if (slot < 0 || slot > 64) return Status::Errorf("internal error: temporary slot ", slot);
  if (static_cast<int>(node.temporaries.size()) <= slot) node.temporaries.resize(slot + 1, -1);
  if (node.temporaries[slot] < 0) {
    Tensor t;
    t.name = StrCat(node.name, ":", node_index, ":temp", slot);
    node.temporaries[slot] = AddTensor(std::move(t));
  }
  Tensor* t = &tensors_[node.temporaries[slot]];
  t->type = type;
  t->shape = std::move(shape);
  if (node.prepare_at_eval) {
    t->allocation = Allocation::kDynamic;
    ER_RETURN_IF_ERROR(AllocateOwned(t));
  }
  return t;
}

Status Subgraph::PrepareNode(int n) {
  Node& node = nodes_[n];
  for (int out : node.outputs) {
    if (out < 0) return Status::Errorf(NodeLocation(n), ": an output is missing (-1)");
    if (tensors_[out].is_constant()) {
      return Status::Errorf(NodeLocation(n), ": writes tensor ", out, " '", tensors_[out].name,
                            "', which is a constant");
    }
  }
  if (node.registration->prepare) {
    OpContext context(this, n);
    Status status = node.registration->prepare(context);
    if (!status.ok()) {
      // Errors made with OpContext::Error already say where; others get the location here.
      if (status.message().rfind(model_name_ + ":", 0) == 0) return status;
      return status.WithContext(NodeLocation(n));
    }
  }
  return Status::Ok();
}

Status Subgraph::AllocateTensors() {
  if (allocating_) {
    return Status::Errorf(Location(), ": refers to itself through control-flow ops (a subgraph cannot call "
                                      "itself, directly or indirectly)");
  }
  allocating_ = true;
  Status status = AllocateTensorsOnce();
  allocating_ = false;
  return status;
}

Status Subgraph::AllocateTensorsOnce() {
  // Forget the previous plan; keep constants, variables and owned memory for reuse.
  for (Tensor& t : tensors_) {
    if (t.allocation == Allocation::kArena || t.allocation == Allocation::kDynamic) {
      t.allocation = Allocation::kNone;
      t.data = nullptr;
    }
  }
  for (int i : inputs_) {
    if (NeedsOwnAllocation(tensors_[i].type)) tensors_[i].allocation = Allocation::kDynamic;
  }
  if (!variables_initialized_) {
    ER_RETURN_IF_ERROR(ResetVariableTensors());
    variables_initialized_ = true;
  }

  // Which tensors have a value before each node runs: constants, variables, inputs, and
  // outputs of earlier nodes. Reading anything else would read garbage.
  std::vector<bool> written(tensors_.size(), false);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    written[i] = tensors_[i].is_constant() || tensors_[i].allocation == Allocation::kPersistent;
  }
  for (int i : inputs_) written[i] = true;

  for (size_t n = 0; n < nodes_.size(); ++n) {
    Node& node = nodes_[n];
    bool dynamic_input = false;
    for (int in : node.inputs) {
      if (in < 0) continue;
      Tensor& t = tensors_[in];
      if (!written[in] && t.num_elements() != 0) {
        return Status::Errorf(NodeLocation(n), ": reads tensor ", in, " '", t.name,
                              "', which has no value: it is not a constant, a variable or a subgraph "
                              "input, and no earlier op writes it");
      }
      if (t.allocation == Allocation::kDynamic && !NeedsOwnAllocation(t.type)) dynamic_input = true;
    }
    node.prepare_at_eval = dynamic_input;
    if (dynamic_input) {
      for (int out : node.outputs) {
        if (out >= 0) MarkDynamic(&tensors_[out]);
      }
    } else {
      ER_RETURN_IF_ERROR(PrepareNode(static_cast<int>(n)));
    }
    for (int out : node.outputs) {
      if (out >= 0) {
        written[out] = true;
        if (NeedsOwnAllocation(tensors_[out].type)) MarkDynamic(&tensors_[out]);
      }
    }
  }
  ER_RETURN_IF_ERROR(PlanArena());
  needs_allocation_ = false;
  return Status::Ok();
}

Status Subgraph::PlanArena() {
  const int num_nodes = static_cast<int>(nodes_.size());
  std::vector<int> first(tensors_.size(), -1), last(tensors_.size(), -1);
  auto use = [&](int t, int n) {
    if (t < 0) return;
    if (first[t] < 0 || n < first[t]) first[t] = n;
    last[t] = std::max(last[t], n);
  };
  for (int i : inputs_) use(i, 0);
  for (int n = 0; n < num_nodes; ++n) {
    const Node& node = nodes_[n];
    for (int t : node.inputs) use(t, n);
    for (int t : node.outputs) use(t, n);
    for (int t : node.temporaries) use(t, n);
    for (int t : node.intermediates) use(t, n);
  }
  for (int o : outputs_) use(o, num_nodes);

  std::vector<int> planned;
  std::vector<TensorLifetime> lifetimes;
  const size_t limit = interpreter_->options().max_tensor_bytes;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Tensor& t = tensors_[i];
    if (first[i] < 0 || t.allocation != Allocation::kNone) continue;
    const int64_t elements = NumElements(t.shape);
    size_t bytes = 0;
    if (elements < 0 || !TensorBytes(t.type, elements, &bytes)) {
      return Status::Errorf(Location(), ", tensor ", i, " '", t.name, "': type ", TensorTypeName(t.type),
                            " with shape ", ShapeToString(t.shape), " has no computable size");
    }
    if (bytes > limit) {
      return Status::Errorf(Location(), ", tensor ", i, " '", t.name, "' of shape ", ShapeToString(t.shape),
                            " needs ", bytes, " bytes, over the limit of ", limit,
                            " (InterpreterOptions::max_tensor_bytes)");
    }
    t.bytes = bytes;
    t.allocation = Allocation::kArena;
    planned.push_back(static_cast<int>(i));
    lifetimes.push_back({bytes, first[i], last[i]});
  }
  const ArenaPlan plan = edgerun::PlanArena(lifetimes, AlignedBuffer::kAlignment);
  const size_t budget = interpreter_->options().max_arena_bytes;
  const size_t elsewhere = MemoryInUse(/*include_own_arena=*/false);
  if (plan.arena_bytes > budget || elsewhere > budget - plan.arena_bytes) {
    return Status::Errorf(Location(), ": activations need ", plan.arena_bytes, " bytes", elsewhere ? " (and " : "",
                          elsewhere ? StrCat(elsewhere, " bytes are in use elsewhere)") : "", ", over the limit of ",
                          budget, " (InterpreterOptions::max_arena_bytes)");
  }
  if (!arena_.Reserve(plan.arena_bytes)) {
    return Status::Errorf(Location(), ": out of memory allocating an arena of ", plan.arena_bytes, " bytes");
  }
  arena_bytes_ = plan.arena_bytes;
  for (size_t k = 0; k < planned.size(); ++k) {
    tensors_[planned[k]].data = arena_.data() + plan.offsets[k];
  }
  return Status::Ok();
}

Status Subgraph::ResetVariableTensors() {
  const tflite::SubGraph* fb = nullptr;
  const Model& model = interpreter_->model();
  fb = model.fb()->subgraphs()->Get(index_);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Tensor& t = tensors_[i];
    if (!t.is_variable || t.allocation != Allocation::kPersistent) continue;
    ER_RETURN_IF_ERROR(AllocateOwned(&t).WithContext(Location()));
    Model::Bytes initial;
    if (i < Size(fb->tensors())) initial = model.buffer(fb->tensors()->Get(i)->buffer());
    if (initial.size > 0 && initial.size == t.bytes) {
      std::memcpy(t.data, initial.data, t.bytes);
    } else if (t.bytes > 0) {  // an empty variable has no memory (data may be null)
      // TFLite's convention: quantized int8 state starts at its zero point, everything else at 0.
      const int fill = t.type == TensorType::kInt8 ? t.zero_point() : 0;
      std::memset(t.data, fill, t.bytes);
    }
  }
  return Status::Ok();
}

size_t Subgraph::persistent_bytes() const {
  size_t total = 0;
  for (const Tensor& t : tensors_) {
    if (t.allocation == Allocation::kPersistent) total += t.owned.capacity();
  }
  return total;
}

Status Subgraph::Invoke() {
  if (needs_allocation_) {
    return Status::Errorf(Location(), ": call AllocateTensors() before Invoke() (and again after "
                                      "ResizeInputTensor())");
  }
  if (invoke_depth_ > 0) {
    return Status::Errorf(Location(), ": invoked recursively (a control-flow op calls its own subgraph)");
  }
  ++invoke_depth_;
  in_eval_ = true;
  Status status;
  for (size_t n = 0; n < nodes_.size() && status.ok(); ++n) {
    Node& node = nodes_[n];
    if (node.prepare_at_eval) {
      in_eval_ = false;
      status = PrepareNode(static_cast<int>(n));
      in_eval_ = true;
      if (!status.ok()) break;
      for (int out : node.outputs) {
        Tensor& t = tensors_[out];
        if (t.allocation == Allocation::kNone) t.allocation = Allocation::kDynamic;
        if (t.allocation == Allocation::kDynamic) {
          status = AllocateOwned(&t).WithContext(NodeLocation(static_cast<int>(n)));
          if (!status.ok()) break;
        }
      }
      if (!status.ok()) break;
    }
    OpContext context(this, static_cast<int>(n));
    Profiler* profiler = interpreter_->profiler();
    if (profiler) profiler->OnNodeBegin(index_, static_cast<int>(n), node.name);
    status = node.registration->eval(context);
    if (profiler) profiler->OnNodeEnd(index_, static_cast<int>(n), node.name);
    if (!status.ok() && status.message().rfind(model_name_ + ":", 0) != 0) {
      status = status.WithContext(NodeLocation(static_cast<int>(n)));
    }
  }
  in_eval_ = false;
  --invoke_depth_;
  return status;
}

}  // namespace edgerun
