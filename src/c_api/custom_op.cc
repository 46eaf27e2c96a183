// Kernels written against TFLite's TfLiteRegistration, run as edgerun ops: each subgraph that
// uses one gets a TfLiteContext whose `tensors` mirror the subgraph's tensors (refreshed around
// every call into the kernel), and whose functions map onto OpContext (ResizeTensor,
// ReportError, buffers). Delegate-only functions report that edgerun has no delegates.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "c_api/internal.h"
#include "core/subgraph.h"
#include "edgerun/interpreter.h"

namespace edgerun::capi {
namespace {

// The TfLiteContext of one subgraph, for the custom kernels of one registration.
struct ContextBridge {
  TfLiteContext context{};  // context.impl_ points back here
  Subgraph* subgraph = nullptr;
  OpContext* current = nullptr;  // the node being prepared or run
  std::vector<TfLiteTensor> tensors;
  std::vector<std::unique_ptr<MirrorStorage>> storage;
  std::string errors;                      // ReportError text of the current call
  std::vector<void*> persistent_buffers;   // live as long as the interpreter
  std::vector<void*> eval_buffers;         // freed after each invoke of a node
  std::vector<std::vector<uint8_t>> scratch_buffers;

  ~ContextBridge() {
    for (void* p : persistent_buffers) std::free(p);
    for (void* p : eval_buffers) std::free(p);
  }

  // Mirrors every tensor of the subgraph into `tensors` (which may move: tensors can be added).
  void SyncAll() {
    const size_t count = subgraph->num_tensors();
    while (storage.size() < count) storage.push_back(std::make_unique<MirrorStorage>());
    tensors.resize(count);
    const bool in_eval = subgraph->in_eval();
    for (size_t i = 0; i < count; ++i) SyncOne(i, in_eval);
    context.tensors = tensors.data();
    context.tensors_size = count;
  }
  void SyncOne(size_t i, bool in_eval) {
    const Tensor& t = *subgraph->tensor(static_cast<int>(i));
    const bool memory_valid = in_eval || t.is_constant() || t.allocation == Allocation::kPersistent;
    storage[i]->Sync(t, memory_valid, &tensors[i]);
  }
};

ContextBridge* Bridge(const TfLiteContext* context) { return static_cast<ContextBridge*>(context->impl_); }

// What a node of a custom op keeps: its TfLiteNode and the kernel's own data.
struct KernelNode {
  TfLiteNode node{};
  ContextBridge* bridge = nullptr;
  std::vector<TfLiteIntArray*> arrays;  // inputs, outputs, intermediates, temporaries

  ~KernelNode() {
    for (TfLiteIntArray* a : arrays) TfLiteIntArrayFree(a);
  }
};

TfLiteIntArray* IndexArray(const std::vector<int>& indices) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(indices.size()));
  for (size_t i = 0; i < indices.size(); ++i) array->data[i] = indices[i];
  return array;
}

// ---- the context's functions

void ReportError(TfLiteContext* context, const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  ContextBridge* bridge = Bridge(context);
  if (!bridge->errors.empty()) bridge->errors += "; ";
  bridge->errors += buffer;
}

TfLiteStatus Unavailable(TfLiteContext* context, const char* what) {
  ReportError(context, "%s is not available in edgerun (it has no delegates)", what);
  return kTfLiteError;
}

TfLiteStatus GetExecutionPlan(TfLiteContext* context, TfLiteIntArray**) {
  return Unavailable(context, "GetExecutionPlan");
}
TfLiteStatus AddTensors(TfLiteContext* context, int, int*) { return Unavailable(context, "AddTensors"); }
TfLiteStatus GetNodeAndRegistration(TfLiteContext* context, int, TfLiteNode**, TfLiteRegistration**) {
  return Unavailable(context, "GetNodeAndRegistration");
}
TfLiteStatus ReplaceNodeSubsets(TfLiteContext* context, TfLiteRegistration, const TfLiteIntArray*, TfLiteDelegate*) {
  return Unavailable(context, "ReplaceNodeSubsetsWithDelegateKernels");
}
TfLiteStatus PreviewPartitioning(TfLiteContext* context, const TfLiteIntArray*, TfLiteDelegateParams**, int*) {
  return Unavailable(context, "PreviewDelegatePartitioning");
}
TfLiteStatus AcquireSubgraphContext(TfLiteContext* context, int, TfLiteContext**) {
  return Unavailable(context, "AcquireSubgraphContext");
}
TfLiteStatus ReleaseSubgraphContext(TfLiteContext* context, int) {
  return Unavailable(context, "ReleaseSubgraphContext");
}
TfLiteExternalContext* GetExternalContext(TfLiteContext*, TfLiteExternalContextType) { return nullptr; }
void SetExternalContext(TfLiteContext*, TfLiteExternalContextType, TfLiteExternalContext*) {}

TfLiteStatus ResizeTensor(TfLiteContext* context, TfLiteTensor* tensor, TfLiteIntArray* new_size) {
  ContextBridge* bridge = Bridge(context);
  const ptrdiff_t index = tensor - bridge->tensors.data();
  if (new_size == nullptr || index < 0 || index >= static_cast<ptrdiff_t>(bridge->tensors.size()) ||
      bridge->current == nullptr) {
    TfLiteIntArrayFree(new_size);
    ReportError(context, "ResizeTensor: not a tensor of this context");
    return kTfLiteError;
  }
  const Shape shape(new_size->data, new_size->data + new_size->size);
  TfLiteIntArrayFree(new_size);
  Tensor* target = bridge->subgraph->tensor(static_cast<int>(index));
  // A kernel that sizes an output in invoke marks it dynamic first (TFLite's SetTensorToDynamic).
  if (tensor->allocation_type == kTfLiteDynamic) bridge->current->MarkDynamic(target);
  const Status status = bridge->current->ResizeTensor(target, shape);
  bridge->SyncOne(static_cast<size_t>(index), bridge->subgraph->in_eval());
  if (!status.ok()) {
    ReportError(context, "%s", status.message().c_str());
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus ResizeTensorExplicit(TfLiteContext* context, TfLiteTensor* tensor, int dims, const int* shape) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(dims);
  if (array == nullptr || (dims > 0 && shape == nullptr)) {
    TfLiteIntArrayFree(array);
    ReportError(context, "ResizeTensorExplicit: bad shape");
    return kTfLiteError;
  }
  for (int i = 0; i < dims; ++i) array->data[i] = shape[i];
  return ResizeTensor(context, tensor, array);
}

void* AllocatePersistentBuffer(TfLiteContext* context, size_t bytes) {
  void* p = std::calloc(1, bytes == 0 ? 1 : bytes);
  if (p != nullptr) Bridge(context)->persistent_buffers.push_back(p);
  return p;
}

TfLiteStatus AllocateBufferForEval(TfLiteContext* context, size_t bytes, void** ptr) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) {
    ReportError(context, "out of memory allocating %zu bytes", bytes);
    return kTfLiteError;
  }
  Bridge(context)->eval_buffers.push_back(p);
  *ptr = p;
  return kTfLiteOk;
}

TfLiteStatus RequestScratchBuffer(TfLiteContext* context, size_t bytes, int* buffer_idx) {
  auto& buffers = Bridge(context)->scratch_buffers;
  buffers.emplace_back(bytes);
  *buffer_idx = static_cast<int>(buffers.size()) - 1;
  return kTfLiteOk;
}

void* GetScratchBuffer(TfLiteContext* context, int buffer_idx) {
  auto& buffers = Bridge(context)->scratch_buffers;
  if (buffer_idx < 0 || buffer_idx >= static_cast<int>(buffers.size())) return nullptr;
  return buffers[buffer_idx].data();
}

TfLiteTensor* GetTensor(const TfLiteContext* context, int tensor_idx) {
  ContextBridge* bridge = Bridge(context);
  if (tensor_idx < 0 || tensor_idx >= static_cast<int>(bridge->tensors.size())) return nullptr;
  return &bridge->tensors[tensor_idx];
}

TfLiteEvalTensor* GetEvalTensor(const TfLiteContext*, int) { return nullptr; }

TfLiteStatus GetModelMetadata(const TfLiteContext* context, const char* name, const char** ptr, size_t* bytes) {
  Model::Bytes data;
  if (name == nullptr || !Bridge(context)->subgraph->interpreter()->model().metadata(name, &data)) return kTfLiteError;
  *ptr = reinterpret_cast<const char*>(data.data);
  *bytes = data.size;
  return kTfLiteOk;
}

void InitContext(ContextBridge* bridge, Subgraph* subgraph) {
  bridge->subgraph = subgraph;
  TfLiteContext& c = bridge->context;
  c.impl_ = bridge;
  c.GetExecutionPlan = GetExecutionPlan;
  c.ResizeTensor = ResizeTensor;
  c.ReportError = ReportError;
  c.AddTensors = AddTensors;
  c.GetNodeAndRegistration = GetNodeAndRegistration;
  c.ReplaceNodeSubsetsWithDelegateKernels = ReplaceNodeSubsets;
  c.recommended_num_threads = subgraph->interpreter()->options().num_threads;
  c.GetExternalContext = GetExternalContext;
  c.SetExternalContext = SetExternalContext;
  c.AllocatePersistentBuffer = AllocatePersistentBuffer;
  c.AllocateBufferForEval = AllocateBufferForEval;
  c.RequestScratchBufferInArena = RequestScratchBuffer;
  c.GetScratchBuffer = GetScratchBuffer;
  c.ResizeTensorExplicit = ResizeTensorExplicit;
  c.PreviewDelegatePartitioning = PreviewPartitioning;
  c.GetTensor = GetTensor;
  c.GetEvalTensor = GetEvalTensor;
  c.GetModelMetadata = GetModelMetadata;
  c.AcquireSubgraphContext = AcquireSubgraphContext;
  c.ReleaseSubgraphContext = ReleaseSubgraphContext;
}

// The bridges of one registration, one per subgraph that runs the op.
struct Bridges {
  std::map<const Subgraph*, std::unique_ptr<ContextBridge>> by_subgraph;

  ContextBridge* For(Subgraph* subgraph) {
    auto& bridge = by_subgraph[subgraph];
    if (!bridge) {
      bridge = std::make_unique<ContextBridge>();
      InitContext(bridge.get(), subgraph);
    }
    return bridge.get();
  }
};

// Calls into the kernel with the mirrors current, then carries back what it changed (tensors it
// marked dynamic). A failure returns the kernel's reported errors.
template <class Call>
Status CallKernel(OpContext& ctx, KernelNode* state, const char* phase, Call&& call) {
  ContextBridge* bridge = state->bridge;
  bridge->current = &ctx;
  bridge->errors.clear();
  bridge->SyncAll();
  const TfLiteStatus status = call(&bridge->context, &state->node);
  for (size_t i = 0; i < bridge->tensors.size(); ++i) {
    Tensor* t = bridge->subgraph->tensor(static_cast<int>(i));
    if (bridge->tensors[i].allocation_type == kTfLiteDynamic && t->allocation != Allocation::kDynamic &&
        t->allocation != Allocation::kConstant && t->allocation != Allocation::kPersistent && !ctx.in_eval()) {
      ctx.MarkDynamic(t);
    }
  }
  bridge->current = nullptr;
  if (status == kTfLiteOk) return Status::Ok();
  return ctx.Error(phase, " failed", bridge->errors.empty() ? "" : ": ", bridge->errors);
}

}  // namespace

OpRegistration MakeCustomOp(const CustomKernel& kernel) {
  auto bridges = std::make_shared<Bridges>();
  OpRegistration r;
  r.name = kernel.name;
  r.builtin_code = -1;
  r.min_version = kernel.min_version;
  r.max_version = kernel.max_version;
  r.types = "(TfLiteRegistration kernel)";
  r.init = [kernel, bridges](OpContext& ctx) -> void* {
    auto state = std::make_unique<KernelNode>();
    state->bridge = bridges->For(&ctx.subgraph());
    std::vector<int> inputs, outputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input_tensor_index(i));
    for (int i = 0; i < ctx.num_outputs(); ++i) outputs.push_back(ctx.output_tensor_index(i));
    state->arrays = {IndexArray(inputs), IndexArray(outputs), IndexArray({}), IndexArray({})};
    TfLiteNode& node = state->node;
    node.inputs = state->arrays[0];
    node.outputs = state->arrays[1];
    node.intermediates = state->arrays[2];
    node.temporaries = state->arrays[3];
    size_t size = 0;
    const uint8_t* options = ctx.custom_options(&size);
    node.custom_initial_data = options;
    node.custom_initial_data_size = static_cast<int>(size);
    if (kernel.init != nullptr) {
      ContextBridge* bridge = state->bridge;
      bridge->current = &ctx;
      bridge->SyncAll();
      node.user_data = kernel.init(&bridge->context, reinterpret_cast<const char*>(options), size);
      bridge->current = nullptr;
    }
    return state.release();
  };
  r.free = [kernel](void* data) {
    auto* state = static_cast<KernelNode*>(data);
    if (state == nullptr) return;
    if (kernel.free != nullptr) kernel.free(&state->bridge->context, state->node.user_data);
    delete state;
  };
  r.prepare = [kernel](OpContext& ctx) -> Status {
    auto* state = static_cast<KernelNode*>(ctx.user_data());
    if (kernel.prepare == nullptr) return Status::Ok();
    return CallKernel(ctx, state, "prepare", kernel.prepare);
  };
  r.eval = [kernel](OpContext& ctx) -> Status {
    auto* state = static_cast<KernelNode*>(ctx.user_data());
    if (kernel.invoke == nullptr) return ctx.Error("the registration has no invoke function");
    Status status = CallKernel(ctx, state, "invoke", kernel.invoke);
    ContextBridge* bridge = state->bridge;
    for (void* p : bridge->eval_buffers) std::free(p);
    bridge->eval_buffers.clear();
    return status;
  };
  return r;
}

}  // namespace edgerun::capi
