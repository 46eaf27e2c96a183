// Subgraph: tensors and nodes of one graph, in execution order; prepares, plans memory for and
// runs them. Internal to edgerun (the public face is Interpreter).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/block_memory.h"
#include "edgerun/delegate.h"
#include "edgerun/interpreter.h"
#include "edgerun/model.h"
#include "edgerun/op.h"
#include "edgerun/tensor.h"

namespace tflite {
struct SubGraph;
}

namespace edgerun {

struct Node {
  const OpRegistration* registration = nullptr;
  const tflite::Operator* op = nullptr;  // null for nodes created by a delegate
  int32_t builtin_code = -1;
  int version = 1;
  std::string name;  // op name as shown in messages and profiles
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<int> intermediates;
  std::vector<int> temporaries;  // tensor index per slot, -1 where unused
  const uint8_t* custom_options = nullptr;
  size_t custom_options_size = 0;
  void* user_data = nullptr;
  bool initialized = false;
  // An input has no known shape before Invoke: prepare runs just before eval, every time.
  bool prepare_at_eval = false;
  // A delegate node: the model's nodes it runs, in order (empty for the model's own nodes).
  std::vector<int> delegated_nodes;
  // Every output is empty and sized before Invoke, and the op has no other effect: Invoke skips
  // it (set by AllocateTensors, see MarkNodesWithNothingToCompute).
  bool nothing_to_compute = false;
  // Its outputs were computed by AllocateTensors from constants and static shapes, and are
  // constants until the next allocation (Subgraph::FoldIfConstant): Invoke skips it.
  bool folded = false;
  // Its estimated time on one thread (EstimateSerialNs, set after prepare; -1 when not known) and
  // the parallel ops that time is spread over (a delegate node's: one per node it runs). A node
  // too small to gain from threads runs on the calling thread alone (OpContext::thread_pool).
  double serial_ns = -1;
  int parallel_ops = 1;
};

// The nodes of a subgraph, in metadata blocks (core/block_memory.h).
using NodeList = std::vector<Node, MetadataAllocator<Node>>;

class Subgraph {
 public:
  Subgraph(Interpreter* interpreter, int index);
  ~Subgraph();
  Subgraph(const Subgraph&) = delete;
  Subgraph& operator=(const Subgraph&) = delete;

  // Reads tensors and operators from the model, resolves every op and runs its init.
  Status Build(const Model& model, const OpResolver& resolver);

  Status ResizeInputTensor(int position, const Shape& shape);
  // For control-flow ops passing values between subgraphs: no shape_signature check (a loop
  // variable may grow).
  Status SetInputShape(int position, const Shape& shape);
  Status AllocateTensors();
  Status Invoke();
  Status ResetVariableTensors();
  bool needs_allocation() const { return needs_allocation_; }
  // The next Invoke needs AllocateTensors first (e.g. a delegate was added).
  void InvalidateAllocation() { needs_allocation_ = true; }
  // Drops the delegates' kernels (the next AllocateTensors, which this makes necessary, asks the
  // delegates again and makes new ones).
  void DiscardDelegateKernels();

  int index() const { return index_; }
  const std::string& name() const { return name_; }
  Interpreter* interpreter() const { return interpreter_; }
  size_t num_tensors() const { return tensors_.size(); }
  Tensor* tensor(int i) { return &tensors_[i]; }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  // The model's nodes, then the delegate nodes of the current allocation.
  NodeList& nodes() { return nodes_; }
  const NodeList& nodes() const { return nodes_; }
  int num_model_nodes() const { return num_model_nodes_; }
  // Nodes in the order Invoke runs them: the model's nodes no delegate took, and delegate nodes.
  const std::vector<int>& execution_plan() const { return plan_; }
  // Who runs each node, and why delegates refused the others (after AllocateTensors).
  const DelegationReport& delegation() const { return delegation_; }
  size_t arena_bytes() const { return arena_bytes_; }
  size_t persistent_bytes() const;

  // "model.tflite: subgraph 0, op 12 (CONV_2D v3)"
  std::string NodeLocation(int node_index) const;
  // How many threads the node's kernels use: 1 when it is too small to gain from more (see
  // Node::serial_ns), else the interpreter's.
  int NodeThreads(int node_index) const;
  // The runs of plan steps [first, end) that Invoke runs as parallel regions
  // (ThreadPool::RunRegion): at least four nodes that use the pool, no node between them that
  // must run outside one (a delegate on its own threads, a control-flow or custom op).
  std::vector<std::pair<size_t, size_t>> ParallelRegions() const;
  std::string Location() const;  // "model.tflite: subgraph 0"

  // Used through OpContext.
  bool in_eval() const { return in_eval_; }
  Status ResizeTensor(Tensor* tensor, Shape shape);
  // Constants and persistent tensors keep their memory: asking for a persistent variable (an op
  // output whose shape is known only when the graph runs) is refused, and PrepareNode reports it.
  void MarkDynamic(Tensor* tensor);
  Result<Tensor*> RequestTemporary(int node_index, int slot, TensorType type, Shape shape);
  // Gives a dynamic or persistent tensor memory for its current shape.
  Status AllocateOwned(Tensor* tensor);
  void MarkNodesWithNothingToCompute();
  // Puts the bytes of `t` at its shape in `bytes`; an error naming the tensor when it has no
  // computable size or is over InterpreterOptions::max_tensor_bytes.
  Status CheckTensorSize(const Tensor& t, size_t* bytes) const;
  // Adds a tensor (e.g. a delegate's or an op's state) and returns its index.
  int AddTensor(Tensor tensor);

  // A kernel packed its own copy of the model file's bytes [data, data + bytes), which are no
  // longer read: their pages leave the process (Model::ReleaseResidentPages) at the end of this
  // AllocateTensors or Invoke, or as soon as kReleaseBatchBytes are pending. Batched because
  // each release is a TLB flush, which on a virtual machine exits to the hypervisor: one
  // madvise per packed tensor cost ~50 us each, a millisecond of start-up for MobileNet v2.
  void ReleaseWeightPages(const void* data, size_t bytes);
  // Releases what is pending, one call per contiguous span.
  void FlushWeightPageReleases();
  // 256 KiB, not 1 MiB: the peak RSS of a first inference (packed copies growing while the file's
  // pages wait) 0.7 MiB lower for MoveNet and DeepLab v3 float, 1.1 MiB for TF2 MobileNet v2, for
  // 0.1-1 ms more first inference.
  static constexpr size_t kReleaseBatchBytes = size_t{256} << 10;

 private:
  Status AllocateTensorsOnce();
  Status PrepareNode(int node_index);
  // After node n prepared: when it is shape arithmetic (a small int32 / int64 result) whose inputs
  // are constants, or a SHAPE of a tensor whose shape is known, computes it now and makes its
  // outputs constants (folded_tensors_) for the nodes after it. A node whose eval fails is left
  // to fail at Invoke.
  void FoldIfConstant(int node_index);
  Status PlanArena();
  // Bytes of every arena and every tensor given memory by AllocateOwned, across the interpreter's
  // subgraphs (the budget of InterpreterOptions::max_arena_bytes).
  size_t MemoryInUse(bool include_own_arena) const;

  // Delegation (redone at every allocation). A partition a delegate runs, with its kernel; the
  // delegate node's user_data points at it.
  struct DelegatedPartition {
    Delegate* delegate = nullptr;
    Partition partition;
    std::unique_ptr<DelegateKernel> kernel;
  };
  Status ApplyDelegates();
  // With fixed_groups (lists of consecutive plan positions) those groups are the partitions and the
  // delegate is not asked to claim anything (the fused chains of ops/fused_rows.h).
  Status ApplyDelegate(Delegate& delegate, std::vector<std::unique_ptr<DelegatedPartition>>& reusable,
                       const std::vector<std::vector<int>>* fixed_groups = nullptr);
  // Why `delegate` cannot be offered node n at all (state, dynamic shapes), or empty.
  std::string UndelegatableReason(int node_index) const;
  bool IsBarrier(int node_index) const;
  // Whether node n may run inside a parallel region (ThreadPool::RunRegion).
  bool RunsInRegion(int node_index) const;
  // One step of Invoke: plan_[step]'s prepare at eval (when it has one) and eval.
  Status RunStep(size_t step);
  // For each plan step that starts a parallel region, the step after its last; 0 elsewhere. At
  // the end of every allocation (a new thread count needs one: SetNumThreads).
  void PlanRegions();

  Interpreter* interpreter_;
  std::vector<std::pair<const uint8_t*, const uint8_t*>> pending_releases_;  // [begin, end)
  size_t pending_release_bytes_ = 0;
  int index_;
  std::string name_;
  std::string model_name_;
  // Both in metadata blocks (core/block_memory.h: huge pages, not fresh heap pages). A deque:
  // tensors added later do not move the others.
  std::deque<Tensor, MetadataAllocator<Tensor>> tensors_;
  // Copies of the registrations the nodes use: the resolver need not outlive the interpreter.
  std::deque<OpRegistration> registrations_;
  NodeList nodes_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  int num_model_nodes_ = 0;
  std::vector<int> plan_;
  std::vector<int> folded_tensors_;  // made constants by FoldIfConstant (until the next allocation)
  std::vector<std::unique_ptr<DelegatedPartition>> partitions_;
  const OpRegistration* delegate_registration_ = nullptr;
  DelegationReport delegation_;
  AlignedBuffer arena_;
  size_t arena_bytes_ = 0;
  const Tensor* refused_dynamic_ = nullptr;  // set by MarkDynamic during one node's prepare
  size_t owned_bytes_ = 0;  // capacity handed out by AllocateOwned
  bool needs_allocation_ = true;
  bool in_eval_ = false;
  bool variables_initialized_ = false;
  int invoke_depth_ = 0;
  std::vector<size_t> region_end_;  // PlanRegions, one entry per step of plan_
  bool allocating_ = false;  // guards against subgraphs that reference themselves while preparing
};

}  // namespace edgerun
