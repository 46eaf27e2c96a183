// Interpreter: builds the graph of a Model, plans memory, runs it. One interpreter per thread;
// many interpreters may share one Model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edgerun/delegate.h"
#include "edgerun/model.h"
#include "edgerun/op.h"
#include "edgerun/status.h"
#include "edgerun/tensor.h"

namespace edgerun {

class Subgraph;
class SignatureRunner;
class ResourceStore;

// Google's runtime gives two answers for 8-bit (int8/uint8) models: its default CPU path hands
// most 8-bit ops to XNNPACK, whose requantization rounds in float (half to even), while its
// builtin kernels use fixed-point arithmetic (half away from zero). The difference is at most one
// step per layer. edgerun reproduces either.
enum class Int8Arithmetic {
  kLiteRtDefault,     // what LiteRT/TFLite gives out of the box (XNNPACK arithmetic where it applies)
  kTfliteReference,   // TFLite's builtin (reference) kernels everywhere
};

// Receives a callback around every node that runs (profiling, tracing). Must be cheap.
class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual void OnNodeBegin(int subgraph, int node, const std::string& op_name) = 0;
  virtual void OnNodeEnd(int subgraph, int node, const std::string& op_name) = 0;
};

struct InterpreterOptions {
  // Threads for the kernels and XNNPACK, the calling thread included. At most as many start as
  // the process has CPUs to run on (its affinity mask): waiting threads spin, and a thread without
  // a CPU of its own would stall every parallel op (2-CPU VM, coral MobileNet v2: 140 ms a run at
  // 3 threads against 0.95 ms at 2).
  int num_threads = 1;
  Int8Arithmetic int8_arithmetic = Int8Arithmetic::kLiteRtDefault;
  // Resource limits: a file cannot make edgerun allocate or loop without bound.
  size_t max_tensor_bytes = size_t{4} << 30;   // largest single tensor
  size_t max_arena_bytes = size_t{16} << 30;   // all activations: arenas + tensors sized at run time
  int64_t max_while_iterations = 100000000;    // per WHILE op invocation
  int max_subgraph_depth = 64;                 // nesting of WHILE / IF / CALL_ONCE calls
  // XNNPACK runs the float32, int8 and uint8 nodes it supports, as in TFLite (when edgerun was
  // built with it; see XnnpackAvailable). It runs on the interpreter's thread pool (num_threads
  // threads in all, shared with the builtin kernels).
  bool use_xnnpack = true;
  // XNNPACK partitions of fewer nodes stay on the builtin kernels, unless they hold a
  // convolution-like node or the whole subgraph.
  int xnnpack_min_partition_nodes = 2;
  // On CPUs with AVX-512, float32 convolutions (one group, no dilation) and fully connected
  // layers (constant weights, at least 8 rows) of at least this many multiply-adds stay on
  // edgerun's own GEMM, which runs them faster than the XNNPACK that edgerun is built with, and
  // so do the depthwise convolutions that read their outputs, and float32 RESIZE_BILINEAR
  // (docs/performance.md). 0: XNNPACK takes every node it supports.
  int64_t builtin_float_gemm_min_macs = 4000000;
  // Float32 3x3 stride-1 convolutions on the builtin kernels (16+ channels in and out) by
  // Winograd's F(2x2, 3x3): 16 multiplies per 2x2 outputs instead of 36, results within rounding
  // of the direct sum (kernels/optimized/winograd.h). Up to 128 x 128 channels the transformed
  // filters are packed once; larger ones (up to 512 input channels, outputs of 8x8 or more) are
  // transformed from the direct packing at each inference. False: the direct GEMM, as TFLite does.
  bool float_winograd = true;
  // Shape arithmetic whose inputs are constants or static shapes (SHAPE, STRIDED_SLICE, PACK,
  // ADD, ... on small int32 / int64 tensors, as converters write for dynamic batch sizes) is
  // computed once by AllocateTensors; its results become constants, so the ops that read them
  // are prepared once instead of at every Invoke. False: every node runs at every Invoke.
  bool fold_constant_shapes = true;
  // The same for 8-bit convolutions (int8 x int8, uint8 x uint8) on CPUs with AVX-512 VNNI,
  // where edgerun's GEMM multiplies bytes four at a time (vpdpbusd) and rounds as XNNPACK does;
  // by default all of them. 0: XNNPACK takes every one it supports.
  int64_t builtin_int8_gemm_min_macs = 1;
  // Chains of convolutions left to the builtin kernels (a 1x1 expansion, a depthwise convolution
  // and a 1x1 projection: MobileNet v2's blocks) run as one node, strip by strip, with the values
  // between them in cache and no arena memory; the same results (docs/performance.md).
  bool fuse_row_chains = true;
  // With several threads, runs of builtin nodes that use the thread pool run in one parallel
  // region: the other threads spin between those nodes instead of going back to the pool, so a
  // hand-off costs a cache line each way (ThreadPool::RunRegion). Off only for comparisons.
  bool parallel_regions = true;
  // Fuse every chain the kernels can run by bands, also where the cost rules say that the
  // unfused nodes are faster (large weights for small values, few rows per thread): for tests.
  bool fuse_all_row_chains = false;
  // Every tensor keeps its value after Invoke, for reading intermediate values (TFLite's
  // experimental_preserve_all_tensors): no arena memory is shared between tensors, XNNPACK is not
  // applied and no chain is fused (the values inside them would have no memory of their own).
  // Costs the sum of all activations in memory.
  bool preserve_all_tensors = false;
  // Delegates applied before XNNPACK, in this order; each sees the nodes the previous left.
  std::vector<std::shared_ptr<Delegate>> delegates;
};

// True when this build of edgerun has the XNNPACK delegate.
bool XnnpackAvailable();
// A new XNNPACK delegate (for InterpreterOptions::delegates or ModifyGraphWithDelegate); null when
// XNNPACK is not available. num_threads 0: run on the thread pool of each interpreter it is
// applied to (what use_xnnpack does); N >= 1: on a pool of its own with N threads, as TFLite's
// XNNPACK delegate options do.
std::shared_ptr<Delegate> CreateXnnpackDelegate(int num_threads = 0, int min_partition_nodes = 2);

class Interpreter {
 public:
  // Builds every subgraph: resolves each op (an unknown op or version is an error naming it),
  // reads tensors, runs op init. Tensors get memory only in AllocateTensors.
  static Result<std::unique_ptr<Interpreter>> Create(std::shared_ptr<const Model> model,
                                                     const OpResolver& resolver,
                                                     InterpreterOptions options = {});
  // Same, with BuiltinOpResolver.
  static Result<std::unique_ptr<Interpreter>> Create(std::shared_ptr<const Model> model,
                                                     InterpreterOptions options = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Prepares every op of the primary subgraph (0) and plans its arena. Call again after
  // ResizeInputTensor.
  Status AllocateTensors();
  // Changes the shape of input `input_position` (position in inputs()); AllocateTensors must
  // follow. Checks the new shape against shape_signature.
  Status ResizeInputTensor(int input_position, const Shape& shape);
  Status Invoke();
  // Variable tensors back to their initial value (zero, or the zero point).
  Status ResetVariableTensors();
  // Adds a delegate after those already applied; it takes effect at the next AllocateTensors
  // (which this call makes necessary).
  Status ModifyGraphWithDelegate(std::shared_ptr<Delegate> delegate);
  // Sets how many threads (the caller included) the kernels and the XNNPACK delegate use, as
  // InterpreterOptions::num_threads does at creation; -1 means the default, 1. Delegate kernels
  // are made anew, so AllocateTensors must follow (as after ModifyGraphWithDelegate).
  Status SetNumThreads(int num_threads);
  // The delegates, in the order they are applied.
  const std::vector<std::shared_ptr<Delegate>>& delegates() const { return delegates_; }
  // Which nodes of a subgraph run where, and why delegates refused the others; null for a
  // subgraph that does not exist. Filled by the subgraph's AllocateTensors.
  const DelegationReport* delegation(int subgraph = 0) const;

  // Primary subgraph I/O.
  size_t num_inputs() const;
  size_t num_outputs() const;
  Tensor* input(int position);
  Tensor* output(int position);
  // Position of an input/output by tensor name, -1 if none.
  int input_position(const std::string& name) const;
  int output_position(const std::string& name) const;
  const std::vector<int>& inputs() const;   // tensor indices
  const std::vector<int>& outputs() const;
  size_t num_tensors() const;
  Tensor* tensor(int index);

  // Signatures (named entry points). Keys in file order.
  std::vector<std::string> signature_keys() const;
  // nullptr when there is no such key.
  SignatureRunner* GetSignatureRunner(const std::string& key);

  // Bytes of all planned arenas (activations), across subgraphs allocated so far.
  size_t arena_bytes() const;
  // Bytes of variable tensors and other memory kept across invocations.
  size_t persistent_bytes() const;

  const Model& model() const { return *model_; }
  const InterpreterOptions& options() const { return options_; }
  int num_subgraphs() const;
  Subgraph* subgraph(int index);
  ThreadPool* thread_pool() { return thread_pool_.get(); }
  // Not owned; null to stop profiling. Set it between invocations, not during one.
  void SetProfiler(Profiler* profiler) { profiler_ = profiler; }
  Profiler* profiler() const { return profiler_; }
  // Resource variables and hash tables shared by the subgraphs.
  ResourceStore& resources() { return *resources_; }

 private:
  Interpreter() = default;
  std::shared_ptr<const Model> model_;
  InterpreterOptions options_;
  std::vector<std::unique_ptr<Subgraph>> subgraphs_;
  std::vector<std::unique_ptr<SignatureRunner>> signatures_;
  std::unique_ptr<ThreadPool> thread_pool_;
  std::unique_ptr<ResourceStore> resources_;
  std::vector<std::shared_ptr<Delegate>> delegates_;
  Profiler* profiler_ = nullptr;
};

// One signature of the model: named inputs and outputs of one subgraph.
class SignatureRunner {
 public:
  SignatureRunner(Interpreter* interpreter, std::string key, int subgraph_index,
                  std::vector<std::pair<std::string, int>> inputs,
                  std::vector<std::pair<std::string, int>> outputs);
  const std::string& key() const { return key_; }
  int subgraph_index() const { return subgraph_index_; }
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // nullptr when there is no input/output of that name.
  Tensor* input(const std::string& name);
  Tensor* output(const std::string& name);
  Status ResizeInputTensor(const std::string& name, const Shape& shape);
  Status AllocateTensors();
  Status Invoke();

 private:
  Interpreter* interpreter_;
  std::string key_;
  int subgraph_index_;
  std::vector<std::pair<std::string, int>> inputs_;   // name -> tensor index
  std::vector<std::pair<std::string, int>> outputs_;
};

}  // namespace edgerun
