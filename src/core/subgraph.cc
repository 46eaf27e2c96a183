#include "core/subgraph.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/arena_planner.h"
#include "core/block_memory.h"
#include "core/node_work.h"
#include "core/thread_pool.h"
#include "delegates/partition.h"
#include "ops/fused_rows.h"
#include "model/flatbuffer_read.h"
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
  if (!node.delegated_nodes.empty()) {
    return StrCat(Location(), ", ", node.name, " running ops ", node.delegated_nodes.front(), "..",
                  node.delegated_nodes.back());
  }
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
      if (q->scale()) tensor.quantization.scale = ViewOrCopy(q->scale());
      if (q->zero_point()) tensor.quantization.zero_point = ViewOrCopy(q->zero_point());
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
  num_model_nodes_ = static_cast<int>(nodes_.size());
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
  if (tensor->allocation == Allocation::kPersistent && tensor->is_variable && tensor->shape != shape) {
    // A variable's memory is made once, at its declared shape, and keeps its value across runs.
    return Status::Errorf("tensor '", tensor->name, "' is a variable of shape ", ShapeToString(tensor->shape),
                          " but the op computes ", ShapeToString(shape));
  }
  const bool changed = tensor->shape != shape;
  tensor->shape = std::move(shape);
  if (changed && !NeedsOwnAllocation(tensor->type)) {
    // At once, not at planning: ops size per-batch state and scratch from their output's shape
    // in Prepare, and must not do so for a tensor that can never be allocated.
    size_t bytes = 0;
    ER_RETURN_IF_ERROR(CheckTensorSize(*tensor, &bytes));
  }
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
  if (tensor != nullptr && tensor->is_variable && tensor->allocation == Allocation::kPersistent) {
    // Its buffer was made once at the declared shape; a kernel writing a run-time shape into it
    // would overflow it (fuzz_invoke: SPACE_TO_BATCH_ND with computed paddings).
    refused_dynamic_ = tensor;
    return;
  }
  if (tensor == nullptr || tensor->is_constant() || tensor->allocation == Allocation::kPersistent) return;
  tensor->allocation = Allocation::kDynamic;
}

Status Subgraph::CheckTensorSize(const Tensor& t, size_t* bytes) const {
  auto label = [&] {  // only for errors: finding the index is a search
    for (size_t i = 0; i < tensors_.size(); ++i) {
      if (&tensors_[i] == &t) return StrCat("tensor ", i, " '", t.name, "'");
    }
    return StrCat("tensor '", t.name, "'");
  };
  const int64_t elements = NumElements(t.shape);
  if (elements < 0 || !TensorBytes(t.type, elements, bytes)) {
    return Status::Errorf(label(), " of type ", TensorTypeName(t.type), " and shape ", ShapeToString(t.shape),
                          " has no computable size");
  }
  const size_t limit = interpreter_->options().max_tensor_bytes;
  if (*bytes > limit) {
    return Status::Errorf(label(), " of shape ", ShapeToString(t.shape), " needs ", *bytes, " bytes, over the limit of ",
                          limit, " (InterpreterOptions::max_tensor_bytes)");
  }
  return Status::Ok();
}

Status Subgraph::AllocateOwned(Tensor* tensor) {
  if (NeedsOwnAllocation(tensor->type)) return Status::Ok();  // sized by whoever writes it
  size_t bytes = 0;
  ER_RETURN_IF_ERROR(CheckTensorSize(*tensor, &bytes));
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

int Subgraph::NodeThreads(int node_index) const {
  const ThreadPool* pool = interpreter_->thread_pool();
  const int threads = pool ? pool->num_threads() : 1;
  const Node& node = nodes_[node_index];
  // Handing a few microseconds of work to other threads costs more than it saves (ToyCar's ten
  // small FULLY_CONNECTED layers in one XNNPACK partition: 3.4 us on one thread, 23 us on two).
  if (threads > 1 && node.serial_ns >= 0 && !WorthSplitting(node.serial_ns, node.parallel_ops, threads)) {
    return 1;
  }
  return threads;
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
    refused_dynamic_ = nullptr;
    Status status = node.registration->prepare(context);
    if (!status.ok()) {
      // Errors made with OpContext::Error already say where; others get the location here.
      if (status.message().rfind(model_name_ + ":", 0) == 0) return status;
      return status.WithContext(NodeLocation(n));
    }
    if (refused_dynamic_ != nullptr) {
      return Status::Errorf(NodeLocation(n), ": output '", refused_dynamic_->name, "' is a variable of shape ",
                            ShapeToString(refused_dynamic_->shape),
                            ", but the op knows its shape only when the graph runs");
    }
  }
  node.serial_ns = EstimateSerialNs(*this, n);
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
  // Back to the model's own nodes; the delegates decide again below (their kernels are kept in
  // partitions_ until then, for reuse).
  nodes_.resize(num_model_nodes_);
  plan_.clear();
  for (int n = 0; n < num_model_nodes_; ++n) plan_.push_back(n);
  // Values folded by the previous allocation may depend on shapes that changed since.
  for (int t : folded_tensors_) {
    tensors_[t].allocation = Allocation::kNone;
    tensors_[t].data = nullptr;
  }
  folded_tensors_.clear();
  for (Node& node : nodes_) node.folded = false;
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

  // The inputs' sizes are checked before any op prepares: ops size their own buffers from the
  // shapes of their inputs (fuzz_model: an int16 BATCH_MATMUL input declaring 824 GB).
  for (int i : inputs_) {
    if (NeedsOwnAllocation(tensors_[i].type)) continue;
    size_t bytes = 0;
    ER_RETURN_IF_ERROR_IN(Location(), CheckTensorSize(tensors_[i], &bytes));
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
      if (interpreter_->options().fold_constant_shapes) FoldIfConstant(static_cast<int>(n));
    }
    for (int out : node.outputs) {
      if (out >= 0) {
        written[out] = true;
        if (NeedsOwnAllocation(tensors_[out].type)) MarkDynamic(&tensors_[out]);
      }
    }
  }
  // Before the delegates see the graph: a delegate allocates the values inside its partitions
  // itself (XNNPACK's runtime does, at creation), so the per-tensor limit must hold first.
  {
    // Values inside a delegated partition live in the delegate's memory, but the per-tensor limit
    // holds for them too: whoever runs a node, the model may not demand more.
    for (int n = 0; n < num_model_nodes_; ++n) {
      for (int t : nodes_[n].outputs) {
        if (t < 0 || tensors_[t].is_constant() || NeedsOwnAllocation(tensors_[t].type)) continue;
        size_t bytes = 0;
        ER_RETURN_IF_ERROR_IN(Location(), CheckTensorSize(tensors_[t], &bytes));
      }
    }
  }
  ER_RETURN_IF_ERROR(ApplyDelegates());
  ER_RETURN_IF_ERROR(PlanArena());
  MarkNodesWithNothingToCompute();
  FlushWeightPageReleases();
  PlanRegions();
  needs_allocation_ = false;
  return Status::Ok();
}

namespace {

// Ops that compute shapes and indices in converted models, with no effect beyond their outputs.
bool FoldableOp(int32_t code) {
  switch (code) {
    case tflite::BuiltinOperator_SHAPE:
    case tflite::BuiltinOperator_RANK:
    case tflite::BuiltinOperator_STRIDED_SLICE:
    case tflite::BuiltinOperator_SLICE:
    case tflite::BuiltinOperator_PACK:
    case tflite::BuiltinOperator_UNPACK:
    case tflite::BuiltinOperator_CONCATENATION:
    case tflite::BuiltinOperator_GATHER:
    case tflite::BuiltinOperator_RESHAPE:
    case tflite::BuiltinOperator_SQUEEZE:
    case tflite::BuiltinOperator_EXPAND_DIMS:
    case tflite::BuiltinOperator_CAST:
    case tflite::BuiltinOperator_ADD:
    case tflite::BuiltinOperator_SUB:
    case tflite::BuiltinOperator_MUL:
    case tflite::BuiltinOperator_DIV:
    case tflite::BuiltinOperator_FLOOR_DIV:
    case tflite::BuiltinOperator_FLOOR_MOD:
    case tflite::BuiltinOperator_MAXIMUM:
    case tflite::BuiltinOperator_MINIMUM:
    case tflite::BuiltinOperator_REDUCE_PROD:
    case tflite::BuiltinOperator_SUM:
    case tflite::BuiltinOperator_RANGE:
    case tflite::BuiltinOperator_FILL:
      return true;
    default:
      return false;
  }
}

// Folded outputs take at most this much: shapes, paddings, indices, not activations.
constexpr size_t kMaxFoldedBytes = 4096;

}  // namespace

void Subgraph::FoldIfConstant(int n) {
  Node& node = nodes_[static_cast<size_t>(n)];
  if (!FoldableOp(node.builtin_code) || node.registration == nullptr || node.registration->eval == nullptr) return;
  // SHAPE and RANK read only the shape, which is final unless it is known only at Invoke.
  const bool shape_only =
      node.builtin_code == tflite::BuiltinOperator_SHAPE || node.builtin_code == tflite::BuiltinOperator_RANK;
  for (int in : node.inputs) {
    if (in < 0 || tensors_[in].is_constant()) continue;
    if (shape_only && tensors_[in].allocation != Allocation::kDynamic) continue;
    return;
  }
  size_t bytes = 0;
  for (int out : node.outputs) {
    if (out < 0 || std::find(outputs_.begin(), outputs_.end(), out) != outputs_.end()) return;
    const Tensor& t = tensors_[out];
    const int64_t count = NumElements(t.shape);
    if (t.allocation != Allocation::kNone || (t.type != TensorType::kInt32 && t.type != TensorType::kInt64) ||
        count < 0) {
      return;
    }
    bytes += static_cast<size_t>(count) * TensorTypeSize(t.type);
    if (bytes > kMaxFoldedBytes) return;
  }
  auto undo = [&] {
    for (int out : node.outputs) tensors_[out].data = nullptr;
  };
  for (int out : node.outputs) {
    if (!AllocateOwned(&tensors_[out]).ok()) return undo();
  }
  OpContext context(this, n);
  if (!node.registration->eval(context).ok()) return undo();
  for (int out : node.outputs) {
    tensors_[out].allocation = Allocation::kConstant;
    folded_tensors_.push_back(out);
  }
  node.folded = true;
}

void Subgraph::ReleaseWeightPages(const void* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  const auto* begin = static_cast<const uint8_t*>(data);
  pending_releases_.emplace_back(begin, begin + bytes);
  pending_release_bytes_ += bytes;
  if (pending_release_bytes_ >= kReleaseBatchBytes) FlushWeightPageReleases();
}

void Subgraph::FlushWeightPageReleases() {
  if (pending_releases_.empty()) return;
  interpreter_->model().ReleaseResidentPages(std::move(pending_releases_));
  pending_releases_.clear();
  pending_release_bytes_ = 0;
}

Status Subgraph::PlanArena() {
  // Lifetimes in steps of the execution plan: values inside a delegated partition are never
  // touched by a step, so they get no memory here.
  const int num_nodes = static_cast<int>(plan_.size());
  std::vector<int> first(tensors_.size(), -1), last(tensors_.size(), -1);
  auto use = [&](int t, int n) {
    if (t < 0) return;
    if (first[t] < 0 || n < first[t]) first[t] = n;
    last[t] = std::max(last[t], n);
  };
  for (int i : inputs_) use(i, 0);
  for (int n = 0; n < num_nodes; ++n) {
    const Node& node = nodes_[plan_[n]];
    for (int t : node.inputs) use(t, n);
    for (int t : node.outputs) use(t, n);
    for (int t : node.temporaries) use(t, n);
    for (int t : node.intermediates) use(t, n);
  }
  for (int o : outputs_) use(o, num_nodes);
  // Every value kept after Invoke: lifetimes that all overlap, so no two tensors share memory.
  if (interpreter_->options().preserve_all_tensors) {
    for (size_t t = 0; t < first.size(); ++t) {
      if (first[t] >= 0) {
        first[t] = 0;
        last[t] = num_nodes;
      }
    }
  }

  std::vector<int> planned;
  std::vector<TensorLifetime> lifetimes;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Tensor& t = tensors_[i];
    if (first[i] < 0 || t.allocation != Allocation::kNone) continue;
    size_t bytes = 0;
    ER_RETURN_IF_ERROR_IN(Location(), CheckTensorSize(t, &bytes));
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
  // Slack after the last tensor: vectorized kernels (XNNPACK) may read a few bytes past the end
  // of an input, never write there.
  constexpr size_t kTailSlack = 64;
  if (!arena_.Reserve(plan.arena_bytes + kTailSlack)) {
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
    ER_RETURN_IF_ERROR_IN(Location(), AllocateOwned(&t));
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

void Subgraph::MarkNodesWithNothingToCompute() {
  // A crafted model can give an op dimensions of millions around a 0: its kernel would walk
  // empty loops for seconds (fuzz_invoke found CONV_2D doing so). Such a node writes nothing, so
  // it does not run at all. Only outputs planned in the arena count (their shapes cannot change
  // during Invoke; dynamic and string outputs are sized by the op itself), and ops with effects
  // outside their outputs (variables, resources, control flow, custom ops) always run.
  for (int n : plan_) {
    Node& node = nodes_[n];
    if (node.folded) {  // computed by AllocateTensors
      node.nothing_to_compute = true;
      continue;
    }
    bool empty = node.delegated_nodes.empty() && !node.prepare_at_eval && !node.outputs.empty() && !IsBarrier(n);
    for (size_t i = 0; empty && i < node.outputs.size(); ++i) {
      const int t = node.outputs[i];
      empty = t >= 0 && tensors_[t].allocation == Allocation::kArena && NumElements(tensors_[t].shape) == 0;
    }
    node.nothing_to_compute = empty;
  }
}

Status Subgraph::Invoke() {
  if (needs_allocation_) {
    return Status::Errorf(Location(), ": call AllocateTensors() before Invoke() (and again after "
                                      "ResizeInputTensor())");
  }
  if (invoke_depth_ > 0) {
    return Status::Errorf(Location(), ": invoked recursively (a control-flow op calls its own subgraph)");
  }
  ThreadPool* pool = interpreter_->thread_pool();
  ++invoke_depth_;
  in_eval_ = true;
  Status status;
  for (size_t step = 0; step < plan_.size() && status.ok();) {
    const size_t region_end = region_end_[step];
    if (region_end > step) {
      pool->RunRegion([&] {
        for (size_t s = step; s < region_end && status.ok(); ++s) status = RunStep(s);
      });
      step = region_end;
    } else {
      status = RunStep(step++);
    }
  }
  in_eval_ = false;
  --invoke_depth_;
  FlushWeightPageReleases();  // weights that kernels packed in their first run
  return status;
}

Status Subgraph::RunStep(size_t step) {
  const int n = plan_[step];
  Node& node = nodes_[static_cast<size_t>(n)];
  if (node.nothing_to_compute) return Status::Ok();
  if (ThreadPool::InRegion() && !RunsInRegion(n)) {
    // PlanRegions keeps such nodes out; a subgraph called from a node inside a region would
    // reach here only if an op that calls subgraphs were missing from RunsInRegion's list.
    return Status::Errorf(NodeLocation(n), ": cannot run inside a parallel region (internal error)");
  }
  if (node.prepare_at_eval) {
    in_eval_ = false;
    Status status = PrepareNode(n);
    in_eval_ = true;
    if (!status.ok()) return status;
    for (int out : node.outputs) {
      Tensor& t = tensors_[out];
      if (t.allocation == Allocation::kNone) t.allocation = Allocation::kDynamic;
      if (t.allocation == Allocation::kDynamic) ER_RETURN_IF_ERROR_IN(NodeLocation(n), AllocateOwned(&t));
    }
  }
  OpContext context(this, n);
  Profiler* profiler = interpreter_->profiler();
  if (profiler) profiler->OnNodeBegin(index_, n, node.name);
  Status status = node.registration->eval(context);
  if (profiler) profiler->OnNodeEnd(index_, n, node.name);
  if (!status.ok() && status.message().rfind(model_name_ + ":", 0) != 0) {
    status = status.WithContext(NodeLocation(n));
  }
  return status;
}

}  // namespace edgerun

// ---- delegation

namespace edgerun {
namespace {

// Ops whose effects tensors do not show: they keep their place in the plan.
bool HasHiddenEffects(int32_t code) {
  switch (code) {
    case tflite::BuiltinOperator_VAR_HANDLE:
    case tflite::BuiltinOperator_READ_VARIABLE:
    case tflite::BuiltinOperator_ASSIGN_VARIABLE:
    case tflite::BuiltinOperator_CALL_ONCE:
    case tflite::BuiltinOperator_WHILE:
    case tflite::BuiltinOperator_IF:
    case tflite::BuiltinOperator_CALL:
    case tflite::BuiltinOperator_HASHTABLE:
    case tflite::BuiltinOperator_HASHTABLE_FIND:
    case tflite::BuiltinOperator_HASHTABLE_IMPORT:
    case tflite::BuiltinOperator_HASHTABLE_SIZE:
    case tflite::BuiltinOperator_RANDOM_UNIFORM:
    case tflite::BuiltinOperator_RANDOM_STANDARD_NORMAL:
    case tflite::BuiltinOperator_MULTINOMIAL:
    case tflite::BuiltinOperator_CUSTOM:
      return true;
    default:
      return false;
  }
}

// The plan as groups: each chosen group (consecutive plan positions) claimed, every other
// position a group of its own. Claims are set to match.
std::vector<delegates::PlanGroup> FixedPlanGroups(const std::vector<std::vector<int>>& chosen,
                                                  std::vector<NodeClaim>& claims, size_t plan_size) {
  std::vector<int> group_at(plan_size, -1);
  for (size_t g = 0; g < chosen.size(); ++g) {
    for (int k : chosen[g]) group_at[static_cast<size_t>(k)] = static_cast<int>(g);
  }
  std::vector<delegates::PlanGroup> groups;
  for (size_t k = 0; k < plan_size; ++k) {
    const int g = group_at[k];
    claims[k] = g >= 0 ? NodeClaim::Yes() : NodeClaim::No("");
    if (g < 0) {
      groups.push_back({false, {static_cast<int>(k)}});
    } else if (static_cast<size_t>(chosen[static_cast<size_t>(g)].front()) == k) {
      groups.push_back({true, chosen[static_cast<size_t>(g)]});
    }
  }
  return groups;
}

}  // namespace

bool Subgraph::IsBarrier(int node_index) const {
  const Node& node = nodes_[node_index];
  if (!node.delegated_nodes.empty()) return false;
  if (HasHiddenEffects(node.builtin_code)) return true;
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t < 0) continue;
      const Tensor& tensor = tensors_[t];
      if (tensor.is_variable || tensor.allocation == Allocation::kPersistent || tensor.type == TensorType::kResource) {
        return true;
      }
    }
  }
  return false;
}

std::string Subgraph::UndelegatableReason(int node_index) const {
  const Node& node = nodes_[node_index];
  if (IsBarrier(node_index)) return "has state or effects outside its tensors (variables, resources, control flow)";
  if (node.prepare_at_eval) return "its input shapes are known only when the graph runs";
  for (const auto* list : {&node.inputs, &node.outputs, &node.intermediates}) {
    for (int t : *list) {
      if (t < 0) continue;
      const Tensor& tensor = tensors_[t];
      if (!IsFixedSizeType(tensor.type)) return StrCat("tensor '", tensor.name, "' is ", TensorTypeName(tensor.type));
      if (tensor.allocation == Allocation::kDynamic) {
        return StrCat("tensor '", tensor.name, "' gets its shape only when the graph runs");
      }
    }
  }
  return "";
}

void Subgraph::DiscardDelegateKernels() {
  needs_allocation_ = true;
  nodes_.resize(num_model_nodes_);  // the partition nodes point into partitions_
  plan_.clear();
  partitions_.clear();
}

Status Subgraph::ApplyDelegates() {
  delegation_ = DelegationReport();
  delegation_.nodes.resize(num_model_nodes_);
  for (int n = 0; n < num_model_nodes_; ++n) delegation_.nodes[n].op = nodes_[n].name;
  std::vector<std::unique_ptr<DelegatedPartition>> reusable = std::move(partitions_);
  partitions_.clear();
  for (const auto& delegate : interpreter_->delegates()) {
    if (delegate) ER_RETURN_IF_ERROR(ApplyDelegate(*delegate, reusable));
  }
  // Chains of convolutions that the builtin kernels still run become one node each, which runs
  // them strip by strip (ops/fused_rows.h).
  if (interpreter_->options().fuse_row_chains && !interpreter_->options().preserve_all_tensors) {
    const ThreadPool* pool = interpreter_->thread_pool();
    const std::vector<std::vector<int>> chains = ops::FindRowChains(
        *this, plan_, pool ? pool->num_threads() : 1, interpreter_->options().fuse_all_row_chains);
    if (!chains.empty()) ER_RETURN_IF_ERROR(ApplyDelegate(ops::RowChainDelegate(), reusable, &chains));
  }
  return Status::Ok();  // kernels left in `reusable` belong to partitions that no longer exist
}

Status Subgraph::ApplyDelegate(Delegate& delegate, std::vector<std::unique_ptr<DelegatedPartition>>& reusable,
                               const std::vector<std::vector<int>>* fixed_groups) {
  if (delegate_registration_ == nullptr) {
    OpRegistration r;
    r.name = "DELEGATE";
    r.builtin_code = tflite::BuiltinOperator_DELEGATE;
    r.eval = [](OpContext& ctx) {
      auto* p = static_cast<DelegatedPartition*>(ctx.user_data());
      return p->kernel->Eval(ctx, p->partition);
    };
    registrations_.push_back(std::move(r));
    delegate_registration_ = &registrations_.back();
  }
  const std::string name = delegate.name();
  const std::vector<int> plan = plan_;
  const size_t nodes_before = nodes_.size();

  // The delegate's answer for every model node still on the builtin kernels.
  std::vector<delegates::PlanUnit> units(plan.size());
  std::vector<NodeClaim> claims(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    const int n = plan[k];
    const Node& node = nodes_[n];
    for (int t : node.inputs) if (t >= 0) units[k].reads.push_back(t);
    for (int t : node.outputs) if (t >= 0) units[k].writes.push_back(t);
    for (int t : node.intermediates) if (t >= 0) units[k].writes.push_back(t);
    units[k].barrier = IsBarrier(n);
    if (n >= num_model_nodes_ || fixed_groups) continue;  // an earlier delegate's node, or chosen groups
    const std::string why_not = UndelegatableReason(n);
    if (!why_not.empty()) {
      claims[k] = NodeClaim::No(why_not);
    } else {
      claims[k] = delegate.Claim(OpContext(this, n));
      if (!claims[k].claimed && claims[k].reason.empty()) claims[k].reason = "not supported";
    }
  }

  // Partition, confirm the members, create kernels; a node the delegate refuses on confirmation,
  // or a kernel that cannot handle its partition, sends those nodes back and the partitioning runs
  // again without them.
  std::vector<bool> confirmed(plan.size(), false);
  while (true) {
    for (size_t k = 0; k < plan.size(); ++k) {
      units[k].claimed = claims[k].claimed;
      units[k].heavy = claims[k].heavy;
    }
    std::vector<std::pair<int, int>> demoted;
    const int min_nodes = std::max(1, delegate.min_partition_nodes());
    const std::vector<delegates::PlanGroup> groups =
        fixed_groups ? FixedPlanGroups(*fixed_groups, claims, plan.size()) : delegates::PartitionPlan(units, min_nodes, &demoted);
    bool refused = false;
    for (const delegates::PlanGroup& group : groups) {
      if (!group.claimed) continue;
      for (int k : group.units) {
        if (confirmed[k] || plan[k] >= num_model_nodes_) continue;
        Status st = delegate.Confirm(OpContext(this, plan[k]));
        if (!st.ok() && !st.unsupported()) return st.WithContext(NodeLocation(plan[k]));
        confirmed[k] = true;
        if (!st.ok()) {
          claims[k] = NodeClaim::No(st.message());
          refused = true;
        }
      }
    }
    if (refused) continue;

    // Who reads each tensor, to find a partition's outputs.
    std::vector<std::vector<int>> readers(tensors_.size());  // tensor -> plan positions
    for (size_t k = 0; k < plan.size(); ++k) {
      for (int t : units[k].reads) readers[t].push_back(static_cast<int>(k));
    }
    std::vector<bool> is_output(tensors_.size(), false);
    for (int t : outputs_) if (t >= 0) is_output[t] = true;

    std::vector<int> new_plan;
    std::vector<std::pair<int, std::unique_ptr<DelegatedPartition>>> created;  // (node, partition)
    Status failure;
    for (const delegates::PlanGroup& group : groups) {
      if (!group.claimed) {
        for (int k : group.units) new_plan.push_back(plan[k]);
        continue;
      }
      auto dp = std::make_unique<DelegatedPartition>();
      dp->delegate = &delegate;
      std::vector<bool> member(plan.size(), false);
      std::vector<bool> inside(tensors_.size(), false);
      for (int k : group.units) {
        member[k] = true;
        dp->partition.nodes.push_back(plan[k]);
        for (int t : units[k].writes) inside[t] = true;
      }
      std::vector<bool> listed(tensors_.size(), false);
      for (int k : group.units) {
        for (int t : units[k].reads) {
          if (!inside[t] && !listed[t]) {
            listed[t] = true;
            dp->partition.inputs.push_back(t);
          }
        }
      }
      for (int k : group.units) {
        for (int t : units[k].writes) {
          if (listed[t]) continue;
          // Read outside, a subgraph output, or read by nobody (a dead value: XNNPACK would
          // not give it memory, yet it must be written somewhere).
          bool outside = is_output[t] || readers[t].empty();
          for (int r : readers[t]) outside = outside || !member[r];
          if (outside) {
            listed[t] = true;
            dp->partition.outputs.push_back(t);
          }
        }
      }
      // The delegate node.
      Node node;
      node.registration = delegate_registration_;
      node.builtin_code = tflite::BuiltinOperator_DELEGATE;
      const size_t count = dp->partition.nodes.size();
      node.name = StrCat(name, "(", count, count == 1 ? " node)" : " nodes)");
      if (fixed_groups) {  // FUSED(CONV_2D+DEPTHWISE_CONV_2D+CONV_2D)
        node.name = name + "(";
        for (size_t i = 0; i < count; ++i) node.name += StrCat(i ? "+" : "", nodes_[dp->partition.nodes[i]].name);
        node.name += ")";
      }
      node.inputs = dp->partition.inputs;
      node.outputs = dp->partition.outputs;
      node.delegated_nodes = dp->partition.nodes;
      node.initialized = true;
      node.user_data = dp.get();
      const int index = static_cast<int>(nodes_.size());
      nodes_.push_back(std::move(node));
      // A delegate splits each operator it runs over the pool it was given (none for small work).
      nodes_[index].serial_ns = EstimateSerialNs(*this, index);
      // Counted as one hand-off each, although XNNPACK (Debian's, of 2022) cuts an operator into
      // tiles of a few rows whatever the thread count and the threads contend for them: at 2
      // hand-offs an operator, VWW float32's 31-node partition ran 0.155 ms instead of 0.21 in
      // one period of this VM and 0.155 instead of 0.122 in another, BlazeFace lost its pool.
      nodes_[index].parallel_ops = fixed_groups ? 1 : static_cast<int>(count);  // a fused chain: one hand-off
      new_plan.push_back(index);

      // A kernel for the same nodes from the previous allocation is prepared again.
      for (auto& old : reusable) {
        if (old && old->delegate == &delegate && old->partition.nodes == dp->partition.nodes) {
          dp->kernel = std::move(old->kernel);
          old.reset();
          break;
        }
      }
      OpContext ctx(this, index);
      if (!dp->kernel) {
        auto kernel = delegate.CreateKernel(ctx, dp->partition);
        if (!kernel.ok()) {
          failure = kernel.status();
        } else {
          dp->kernel = std::move(*kernel);
        }
      }
      if (failure.ok()) failure = dp->kernel->Prepare(ctx, dp->partition);
      if (!failure.ok()) {
        if (!failure.unsupported()) return failure.WithContext(NodeLocation(index));
        // Back to the builtin kernels, with the delegate's reason; then partition again.
        for (int k : group.units) claims[k] = NodeClaim::No(StrCat("its partition was refused: ", failure.message()));
        break;
      }
      created.emplace_back(index, std::move(dp));
    }
    if (!failure.ok()) {
      nodes_.resize(nodes_before);
      continue;
    }

    // Record the outcome.
    for (size_t k = 0; k < plan.size(); ++k) {
      const int n = plan[k];
      if (n >= num_model_nodes_ || fixed_groups) continue;
      if (claims[k].claimed) continue;
      delegation_.nodes[n].refusals.emplace_back(name, claims[k].reason);
    }
    for (const auto& [k, size] : demoted) {
      delegation_.nodes[plan[k]].refusals.emplace_back(
          name, StrCat("supported, but its partition of ", size, size == 1 ? " node" : " nodes",
                       " is below the minimum of ", min_nodes));
    }
    for (auto& [node_index, dp] : created) {
      const int partition_index = static_cast<int>(delegation_.partitions.size());
      delegation_.partitions.push_back({name, node_index, dp->partition});
      for (int n : dp->partition.nodes) delegation_.nodes[n].partition = partition_index;
      partitions_.push_back(std::move(dp));
    }
    plan_ = std::move(new_plan);
    return Status::Ok();
  }
}

}  // namespace edgerun

namespace edgerun {

bool Subgraph::RunsInRegion(int node_index) const {
  const Node& node = nodes_[static_cast<size_t>(node_index)];
  if (!node.delegated_nodes.empty()) {
    const auto* partition = static_cast<const DelegatedPartition*>(node.user_data);
    return partition != nullptr && partition->delegate != nullptr && partition->delegate->runs_in_parallel_regions();
  }
  // Ops that call subgraphs (control flow, StableHLO bodies) could reach a delegate node there;
  // custom ops are code we do not know; the other ops with hidden effects gain nothing.
  if (node.registration == nullptr || node.registration->builtin_code < 0 || HasHiddenEffects(node.builtin_code)) {
    return false;
  }
  return std::string_view(BuiltinOpName(node.builtin_code)).substr(0, 10) != "STABLEHLO_";
}

// Measured on this VM (two vCPUs on two core complexes; ParallelFor of two tasks, medians): a
// region costs 3.2 us to open and close around one empty phase, against 1.6 us for a plain
// dispatch, and each further phase 0.8-1.3 us against 1.4-1.7. Regions pay from four parallel
// nodes on (two: ResNet (mlperf) int8 2% slower; three: VWW int8 2-3% slower), so a region spans
// runs of at least that many, from the first to the last of them: the serial nodes around a run
// keep the other threads free.
constexpr int kMinParallelNodesInRegion = 4;

void Subgraph::PlanRegions() {
  ThreadPool* pool = interpreter_->thread_pool();
  region_end_.assign(plan_.size(), 0);
  if (pool == nullptr || !pool->regions_enabled()) return;
  size_t first = 0, last = 0;
  int parallel = 0;
  auto close_run = [&] {
    if (parallel >= kMinParallelNodesInRegion) region_end_[first] = last + 1;
    parallel = 0;
  };
  for (size_t step = 0; step < plan_.size(); ++step) {
    const int n = plan_[step];
    if (nodes_[static_cast<size_t>(n)].nothing_to_compute) continue;
    if (!RunsInRegion(n)) {
      close_run();
      continue;
    }
    // Nodes without a cost model (serial_ns < 0) keep the pool but may not use it (SIN, COS):
    // they do not count towards a region (litert_rope's DIV, SIN, COS and two SLICEs: 3% slower
    // in one).
    if (NodeThreads(n) > 1 && nodes_[static_cast<size_t>(n)].serial_ns >= 0) {
      if (parallel++ == 0) first = step;
      last = step;
    }
  }
  close_run();
}

std::vector<std::pair<size_t, size_t>> Subgraph::ParallelRegions() const {
  std::vector<std::pair<size_t, size_t>> regions;
  for (size_t step = 0; step < region_end_.size(); ++step) {
    if (region_end_[step] > step) regions.emplace_back(step, region_end_[step]);
  }
  return regions;
}

}  // namespace edgerun
