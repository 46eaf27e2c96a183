// The XNNPACK delegate: claims the nodes xnnpack_ops.cc can translate, builds one XNNPACK runtime
// per partition when the subgraph is allocated, and runs it with one call per inference, reading
// and writing the subgraph's tensors in place.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

#include "core/block_memory.h"
#include "core/thread_pool.h"
#include "delegates/xnnpack_default.h"
#include "delegates/xnnpack/xnnpack_allocator.h"
#include "delegates/xnnpack/xnnpack_graph.h"
#include "kernels/optimized/cpu.h"
#include "kernels/optimized/conv.h"
#include "kernels/reference/broadcast.h"
#include "ops/conv_util.h"
#include "ops/fully_connected_util.h"
#include "edgerun/interpreter.h"
#include "tflite_generated.h"

namespace edgerun {
namespace xnnpack {
namespace {

bool InitializeXnnpack() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = xnn_initialize(PrefaultingAllocator()) == xnn_status_success; });
  return ok;
}

class XnnpackKernel : public DelegateKernel {
 public:
  // own_threadpool: the delegate's own pool, or null to share the interpreter's.
  explicit XnnpackKernel(pthreadpool_t own_threadpool) : own_threadpool_(own_threadpool) {}
  ~XnnpackKernel() override { Reset(); }

  Status Prepare(OpContext& ctx, const Partition& partition) override {
    Subgraph& graph = ctx.subgraph();
    // No pool when the partition's work is too small to gain from threads (ctx.thread_pool() is
    // then null), else the delegate's own or the interpreter's (whose pthreadpool is null when it
    // has one thread, or in ThreadSanitizer builds: XNNPACK then runs on the caller).
    pthreadpool_t pool = nullptr;
    if (ThreadPool* shared = ctx.thread_pool()) pool = own_threadpool_ ? own_threadpool_ : shared->pthreadpool();
    std::vector<Shape> shapes;
    for (int n : partition.nodes) {
      for (const auto* list : {&graph.nodes()[n].inputs, &graph.nodes()[n].outputs}) {
        for (int t : *list) shapes.push_back(t >= 0 ? graph.tensor(t)->shape : Shape{-1});
      }
    }
    if (built_ && shapes == shapes_ && pool == threadpool_) return Status::Ok();  // the runtime still fits
    Reset();
    threadpool_ = pool;
    ER_RETURN_IF_ERROR(Build(graph, partition, ctx.interpreter().model()));
    shapes_ = std::move(shapes);
    built_ = true;
    return Status::Ok();
  }

  Status Eval(OpContext& ctx, const Partition& partition) override {
    Subgraph& graph = ctx.subgraph();
    if (runtime_ != nullptr) {
      bool changed = values_.size() != externals_.size();
      values_.resize(externals_.size());
      size_t staging_offset = 0;
      for (size_t i = 0; i < externals_.size(); ++i) {
        Tensor* t = graph.tensor(externals_[i].tensor);
        void* data = t->data;
        if (externals_[i].input && !HasReadSlack(*t)) {
          // XNNPACK may read up to XNN_EXTRA_BYTES past an input; copy the rare ones that end
          // at the edge of their allocation.
          data = staging_.data() + staging_offset;
          std::memcpy(data, t->data, t->bytes);
          staging_offset += (t->bytes + XNN_EXTRA_BYTES + 63) / 64 * 64;
        }
        if (data == nullptr) return Status::Errorf("XNNPACK partition: tensor '", t->name, "' has no memory");
        changed = changed || values_[i].data != data;
        values_[i] = {static_cast<uint32_t>(i), data};
      }
      if (changed) {
        const xnn_status s = xnn_setup_runtime(runtime_, values_.size(), values_.data());
        if (s != xnn_status_success) {
          values_.clear();
          return Status::Errorf("XNNPACK setup failed (status ", static_cast<int>(s), ")");
        }
      }
      const xnn_status s = xnn_invoke_runtime(runtime_);
      if (s != xnn_status_success) return Status::Errorf("XNNPACK invoke failed (status ", static_cast<int>(s), ")");
    }
    for (const auto& [tensor, data] : folded_outputs_) {
      Tensor* t = graph.tensor(tensor);
      std::memcpy(t->data, data, t->bytes);
    }
    return Status::Ok();
  }

 private:
  struct External {
    int tensor;
    bool input;
  };

  static bool HasReadSlack(const Tensor& t) {
    if (t.allocation == Allocation::kArena) return true;  // the arena ends with slack
    return t.data == t.owned.data() && t.owned.capacity() >= t.bytes + XNN_EXTRA_BYTES;
  }

  void Reset() {
    if (runtime_ != nullptr) xnn_delete_runtime(runtime_);
    runtime_ = nullptr;
    storage_ = std::make_unique<StaticStorage>();
    externals_.clear();
    values_.clear();
    folded_outputs_.clear();
    built_ = false;
  }

  Status Build(Subgraph& graph, const Partition& partition, const Model& model) {
    const std::set<int> inputs(partition.inputs.begin(), partition.inputs.end());
    const std::set<int> outputs(partition.outputs.begin(), partition.outputs.end());
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(inputs.size() + outputs.size()), 0, &subgraph) !=
        xnn_status_success) {
      return Status::Error("XNNPACK: cannot create a subgraph (out of memory?)");
    }
    auto flags = [&](int t) -> uint32_t {
      if (outputs.count(t)) return XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
      return inputs.count(t) ? XNN_VALUE_FLAG_EXTERNAL_INPUT : 0;
    };
    GraphBuilder builder(graph, subgraph, flags, *storage_);
    Status status;
    size_t defined_nodes = 0;
    for (int n : partition.nodes) {
      OpContext node(&graph, n);
      OpTraits traits;
      status = VisitNode(builder, node, &traits);
      if (!status.ok()) {
        status = Status::Unsupported(StrCat("op ", n, " (", node.op_name(), "): ", status.message()));
        break;
      }
      if (FoldableDequantize(graph, node.output_tensor_index(0)) < 0) ++defined_nodes;
    }
    if (status.ok()) {
      for (int t : partition.outputs) {
        if (FoldableDequantize(graph, t) >= 0) folded_outputs_.emplace_back(t, builder.FoldedData(t));
      }
      size_t staging = 0;
      for (int t : builder.externals()) {
        const bool input = inputs.count(t) > 0 && outputs.count(t) == 0;
        externals_.push_back({t, input});
        if (input) staging += (graph.tensor(t)->bytes + XNN_EXTRA_BYTES + 63) / 64 * 64;
      }
      if (!staging_.Reserve(staging)) status = Status::Error("XNNPACK: out of memory");
    }
    if (status.ok() && defined_nodes > 0) {
      // Once packed, the weights are read from XNNPACK's copy only (static operands of the
      // element-wise ops are private copies, see GraphBuilder): the file's pages can go. While
      // a large partition packs, those of the operators packed so far go after every MiB of
      // packed blocks, so that file and copy are never both resident; the rest goes with the
      // subgraph's next batch of releases (each release is a costly TLB flush).
      const auto weights = WeightRanges(graph, partition);
      size_t packed_since_release = 0;
      ReleaseBeforeEachPacking releasing([&](size_t block_bytes) {
        packed_since_release += block_bytes;
        if (packed_since_release < Subgraph::kReleaseBatchBytes) return;
        packed_since_release = 0;
        model.ReleaseResidentPages(weights);
      });
      // Without XNN_FLAG_YIELD_WORKERS, which would send the pool's workers to sleep after each
      // partition, so that the builtin ops after it wake them again. With or without it, the
      // workers of this pthreadpool spin about 20 ms after a parallel op before they sleep (CPU
      // time measured around Invoke calls 33 ms apart, coral MobileNet v2 and VWW float32).
      const xnn_status s = xnn_create_runtime_v2(subgraph, threadpool_, /*flags=*/0, &runtime_);
      if (s != xnn_status_success) {
        runtime_ = nullptr;
        status = Status::Unsupported(StrCat("XNNPACK could not create the runtime (status ", static_cast<int>(s), ")"));
      }
      for (const auto& [begin, end] : weights) graph.ReleaseWeightPages(begin, end - begin);
    }
    xnn_delete_subgraph(subgraph);
    return status;
  }

  // The byte ranges of the partition's constant inputs.
  static std::vector<ByteRange> WeightRanges(Subgraph& graph, const Partition& partition) {
    std::vector<ByteRange> ranges;
    for (int n : partition.nodes) {
      for (int t : graph.nodes()[n].inputs) {
        const Tensor* tensor = t >= 0 ? graph.tensor(t) : nullptr;
        if (tensor == nullptr || !tensor->is_constant() || tensor->data == nullptr || tensor->bytes == 0) continue;
        const auto* begin = static_cast<const uint8_t*>(tensor->data);
        ranges.emplace_back(begin, begin + tensor->bytes);
      }
    }
    return ranges;
  }

  pthreadpool_t own_threadpool_;
  pthreadpool_t threadpool_ = nullptr;  // the runtime's
  bool built_ = false;
  std::vector<Shape> shapes_;
  xnn_runtime_t runtime_ = nullptr;
  std::unique_ptr<StaticStorage> storage_ = std::make_unique<StaticStorage>();
  std::vector<External> externals_;  // in external id order
  std::vector<xnn_external_value> values_;  // as last given to xnn_setup_runtime
  std::vector<std::pair<int, const float*>> folded_outputs_;
  AlignedBuffer staging_;
};

class XnnpackDelegate : public Delegate {
 public:
  XnnpackDelegate(int num_threads, int min_partition_nodes)
      : min_partition_nodes_(min_partition_nodes), own_threadpool_(num_threads > 0) {
    num_threads = ThreadsToStart(num_threads);  // spinning workers without a CPU stall every op
    if (num_threads > 1) threadpool_ = pthreadpool_create(static_cast<size_t>(num_threads));
  }
  ~XnnpackDelegate() override {
    if (threadpool_ != nullptr) pthreadpool_destroy(threadpool_);
  }

  std::string name() const override { return "XNNPACK"; }
  int min_partition_nodes() const override { return min_partition_nodes_; }

  NodeClaim Claim(const OpContext& node) override {
    Subgraph& graph = node.subgraph();
    if (node.interpreter().options().int8_arithmetic == Int8Arithmetic::kTfliteReference) {
      // TFLite's reference rounding was asked for: 8-bit nodes stay on the builtin kernels.
      for (int i = 0; i < node.num_outputs(); ++i) {
        const Tensor* t = node.output(i);
        if (t && (t->type == TensorType::kInt8 || t->type == TensorType::kUInt8)) {
          return NodeClaim::No("8-bit, and InterpreterOptions::int8_arithmetic asks for TFLite's reference rounding");
        }
      }
    }
    std::string builtin = BuiltinGemmIsFaster(node);
    if (builtin.empty()) builtin = ReadsTheBuiltinGemm(node);
    if (builtin.empty()) builtin = ProjectsTheBuiltinDepthwise(node);
    if (builtin.empty()) builtin = OneChannelDepthwiseIsAConvolution(node);
    if (builtin.empty()) builtin = BroadcastsShortRuns(node);
    if (builtin.empty()) builtin = BuiltinResizeIsFaster(node);
    if (!builtin.empty()) return NodeClaim::No(builtin);
    StaticStorage storage;
    GraphBuilder check(graph, nullptr, [](int) { return 0u; }, storage);
    OpTraits traits;
    Status status = VisitNode(check, node, &traits);
    if (!status.ok()) return NodeClaim::No(status.message());
    if (node.builtin_code() == tflite::BuiltinOperator_DEQUANTIZE &&
        FoldableDequantize(graph, node.output_tensor_index(0)) >= 0) {
      return NodeClaim::Yes();
    }
    return NodeClaim::Yes(traits.heavy);
  }

  // Rules cover the convolution-like ops; for the others this XNNPACK's own parameter checks
  // (scale ratios, ranks) decide, by building the node alone: a subgraph and a runtime, so only
  // for nodes that are about to be delegated (about 0.1 ms each at start-up).
  Status Confirm(const OpContext& node) override {
    if (!InitializeXnnpack()) return Status::Unsupported("XNNPACK could not be initialized");
    OpTraits traits;
    {
      StaticStorage storage;
      GraphBuilder check(node.subgraph(), nullptr, [](int) { return 0u; }, storage);
      ER_RETURN_IF_ERROR(VisitNode(check, node, &traits));
    }
    if (traits.heavy) return Status::Ok();
    if (node.builtin_code() == tflite::BuiltinOperator_DEQUANTIZE &&
        FoldableDequantize(node.subgraph(), node.output_tensor_index(0)) >= 0) {
      return Status::Ok();
    }
    return TryAlone(node.subgraph(), node);
  }

  Result<std::unique_ptr<DelegateKernel>> CreateKernel(OpContext& ctx, const Partition&) override {
    if (!InitializeXnnpack()) return Status::Unsupported("XNNPACK could not be initialized");
    return std::unique_ptr<DelegateKernel>(new XnnpackKernel(own_threadpool_ ? threadpool_ : nullptr));
  }

 private:
  // The rules below hold where edgerun's GEMM runs on vector registers: AVX-512 (12 x 32 tiles)
  // and AVX2 + FMA (6 x 16 tiles, 12 of the 16 registers accumulating, as XNNPACK's own AVX2
  // kernels; AMD Zen 3: synthetic MobileNet v2 float 10.6-13 ms builtin against 20-22 ms on
  // this XNNPACK). The portable build leaves everything to XNNPACK.
  static bool BuiltinGemmHasVectors() { return optimized::ActiveIsa() >= optimized::Isa::kAvx2; }
  // The smallest 8-bit 1x1 convolution kept on the int16-pair GEMM where there is no VNNI. Above
  // the largest layer of MobileNet v1 0.25 128 (1.05M multiply-adds), which as a whole ran 1.10x
  // slower builtin on AMD Zen 3 (stop 21) and so stays on XNNPACK; below every 1x1 layer of
  // MobileNet v2 1.0 224 (2.4M and more).
  static constexpr int64_t kInt16PairGemmMinMacs = 2000000;

  // A CONV_2D of int8 x int8 -> int8 or uint8 x uint8 -> uint8: the 8-bit GEMMs' operands.
  static bool EightBitConv(const Tensor* input, const Tensor* filter, const Tensor* output) {
    return (input->type == TensorType::kInt8 || input->type == TensorType::kUInt8) && filter->type == input->type &&
           output->type == input->type;
  }
  // Where the 8-bit rules use the int16-pair GEMM: vector kernels without VNNI, and 8-bit
  // convolutions not all given to XNNPACK (builtin_int8_gemm_min_macs 0).
  static bool Int16PairGemmRules(const InterpreterOptions& options) {
    return BuiltinGemmHasVectors() && !optimized::HasGemmI8(optimized::ActiveIsa()) &&
           options.builtin_int8_gemm_min_macs > 0;
  }

  // Why a CONV_2D stays on the builtin kernel, on CPUs where edgerun's GEMM runs it faster than
  // the 2022 XNNPACK that Debian ships. Empty when XNNPACK should take the node.
  //  - float32 (one group, no dilation): a 1x1 convolution (stride 1) is one GEMM on the input as
  //    it is, other windows a GEMM that reads the window rows in place or an im2col copy;
  //    edgerun's tiles (above) against XNNPACK's 7 x 16 (AVX-512) and its AVX2 kernels.
  //  - int8 x int8 and uint8 x uint8: edgerun's GEMM on VNNI byte dot products (vpdpbusd, 64
  //    products an instruction) with the requantization in its epilogue, where this XNNPACK
  //    widens to int16 pairs. Its rounding is XNNPACK's (conv_util's float requantization), so
  //    the outputs do not change with the choice.
  static std::string BuiltinGemmIsFaster(const OpContext& node) {
    if (node.builtin_code() == tflite::BuiltinOperator_FULLY_CONNECTED) return BuiltinFullyConnectedIsFaster(node);
    if (node.builtin_code() != tflite::BuiltinOperator_CONV_2D) return {};
    if (!BuiltinGemmHasVectors() || node.num_inputs() < 2 || node.num_outputs() < 1) return {};
    const Tensor* input = node.input(0);
    const Tensor* filter = node.input(1);
    const Tensor* output = node.output(0);
    if (!input || !filter || !output || !filter->is_constant() || input->rank() != 4 || filter->rank() != 4 ||
        output->rank() != 4) {
      return {};
    }
    const auto* o = node.op() ? node.op()->builtin_options_as_Conv2DOptions() : nullptr;
    if (!o) return {};
    const int64_t depth = static_cast<int64_t>(filter->dim(1)) * filter->dim(2) * filter->dim(3);
    const int64_t macs = output->num_elements() * depth;
    const InterpreterOptions& options = node.interpreter().options();
    if (EightBitConv(input, filter, output)) {
      const bool int8 = input->type == TensorType::kInt8;
      const int64_t min_macs = options.builtin_int8_gemm_min_macs;
      if (min_macs <= 0 || macs < min_macs) return {};
      if (optimized::HasGemmI8(optimized::ActiveIsa())) {
        return StrCat(int8 ? "int8 " : "uint8 ", filter->dim(1), "x", filter->dim(2), " convolution of ", macs,
                      " multiply-adds: edgerun's VNNI GEMM runs it faster than this XNNPACK "
                      "(InterpreterOptions::builtin_int8_gemm_min_macs)");
      }
      // Without VNNI both sides multiply int16 pairs (vpmaddwd). A 1x1 convolution of stride 1
      // is then one GEMM on the input rows, widened by vector loads, with the requantization in
      // the micro-kernel's epilogue; the depthwise convolution and the projection after it stay
      // builtin too (ReadsTheBuiltinGemm, ProjectsTheBuiltinDepthwise). AMD Zen 3 (AVX2 only),
      // 1 thread, whole models builtin against this XNNPACK (stop 22): coral MobileNet v2 7.8
      // against 10.4 ms, TF2 MobileNet v2 int8 7.9 / 9.9, MoveNet 8.6 / 9.7, DeepLab v3 uint8
      // 38.7 / 46.6. Larger windows (im2col into int16: mlperf ResNet int8 ran 1.48x slower
      // builtin at stop 21) and small layers stay with XNNPACK.
      if (!Int16PairGemmRules(options) || macs < kInt16PairGemmMinMacs || filter->dim(1) != 1 || filter->dim(2) != 1 ||
          o->stride_h() != 1 || o->stride_w() != 1 || filter->dim(3) != input->dim(3)) {
        return {};
      }
      return StrCat(int8 ? "int8 " : "uint8 ", "1x1 convolution of ", macs,
                    " multiply-adds: edgerun's int16-pair GEMM with the requantization in its epilogue runs it "
                    "faster than this XNNPACK on a CPU without VNNI (InterpreterOptions::builtin_int8_gemm_min_macs, "
                    "at least ", kInt16PairGemmMinMacs, " here)");
    }
    const int64_t min_macs = options.builtin_float_gemm_min_macs;
    if (min_macs <= 0 || input->type != TensorType::kFloat32 || filter->type != TensorType::kFloat32) return {};
    if (filter->dim(3) != input->dim(3)) return {};  // one group only
    if (ops::FloatConvIsMatVecInPlace(input->shape, filter->shape, output->shape, /*constant_filter=*/true,
                                      filter->bytes)) {
      return StrCat("float32 1x1 convolution of one pixel, a matrix-vector product over ", filter->bytes,
                    " bytes of weights: edgerun reads them in place, where XNNPACK would pack a copy at start-up "
                    "(InterpreterOptions::builtin_float_gemm_min_macs > 0)");
    }
    // Dilated windows are left to XNNPACK (not measured); the others run on the GEMM in place or
    // through im2col, both faster than this XNNPACK (ResNet-18's 3x3 layers of 256 and 512
    // channels: 2.3-2.9 ms against 5-8 ms).
    if (o->dilation_h_factor() != 1 || o->dilation_w_factor() != 1) return {};
    if (macs < min_macs) return {};
    return StrCat("float32 ", filter->dim(1), "x", filter->dim(2), " convolution of ", macs,
                  " multiply-adds: edgerun's GEMM runs it faster than this XNNPACK "
                  "(InterpreterOptions::builtin_float_gemm_min_macs)");
  }

  // The same for a float32 FULLY_CONNECTED with constant float32 weights and at least 8 rows: one
  // GEMM on the input rows as they are. litert_ff's [64, 512] x [512, 128]: 55-60 us, and its two
  // XNNPACK partitions of elementwise ops 25 us each, against 63-68 us each for the two partitions
  // when XNNPACK takes the product too.
  static constexpr int64_t kMinVectorMacs = 1024;
  static constexpr size_t kMaxVectorWeightBytes = size_t{1} << 20;
  static std::string BuiltinFullyConnectedIsFaster(const OpContext& node) {
    if (!BuiltinGemmHasVectors() || node.num_inputs() < 2 || node.num_outputs() < 1) return {};
    const Tensor* input = node.input(0);
    const Tensor* weights = node.input(1);
    const Tensor* output = node.output(0);
    if (!input || !weights || !output || !weights->is_constant() || weights->rank() != 2 ||
        input->type != TensorType::kFloat32 || weights->type != TensorType::kFloat32 ||
        output->type != TensorType::kFloat32) {
      return {};
    }
    const int64_t min_macs = node.interpreter().options().builtin_float_gemm_min_macs;
    const int64_t macs = output->num_elements() * weights->dim(1);
    const int64_t rows = output->num_elements() / std::max(1, weights->dim(0));
    if (min_macs <= 0) return {};
    if (rows < 8) {
      // Matrix-vector products: reading the weights is all of it. Up to 1 MB of them edgerun's
      // one-row tiles run without XNNPACK's per-operator call (ToyCar float's ten layers of 640
      // x 128 down to 128 x 8: 14 against 18 us a run); larger ones (MobileNet's 5 MB classifier)
      // stream from memory either way, so one row of them is read in place, with no copy for
      // XNNPACK to pack at start-up (ops/fully_connected_util.h); and tiny ones (under 1024
      // multiply-adds: hello world's 16 x 16) are cheaper inside an XNNPACK partition than as
      // nodes of their own.
      if (ops::FloatMatVecInPlace(rows, /*constant_weights=*/true, weights->bytes)) {
        return StrCat("float32 matrix-vector product over ", weights->bytes,
                      " bytes of weights: edgerun reads them in place, where XNNPACK would pack a copy "
                      "at start-up (InterpreterOptions::builtin_float_gemm_min_macs > 0)");
      }
      if (macs < kMinVectorMacs || weights->bytes > kMaxVectorWeightBytes) return {};
      return StrCat("float32 matrix-vector product of ", macs,
                    " multiply-adds: edgerun's one-row GEMM tiles run it faster than this XNNPACK "
                    "(InterpreterOptions::builtin_float_gemm_min_macs > 0)");
    }
    if (macs < min_macs) return {};
    return StrCat("float32 fully connected of ", macs,
                  " multiply-adds: edgerun's GEMM runs it faster than this XNNPACK "
                  "(InterpreterOptions::builtin_float_gemm_min_macs)");
  }

  // Why a DEPTHWISE_CONV_2D (float32 or 8-bit, depth multiplier 1) stays on the builtin kernel:
  // its input comes from a convolution that BuiltinGemmIsFaster keeps (an inverted-residual
  // block: expand, depthwise, project), so it would be a partition of its own between two builtin
  // nodes, and the builtin depthwise kernels (filter taps in registers, four pixels at a time)
  // run as fast as XNNPACK's without the handoff and without a runtime to build at start-up.
  // Empty when XNNPACK should take the node.
  static std::string ReadsTheBuiltinGemm(const OpContext& node) {
    if (node.builtin_code() != tflite::BuiltinOperator_DEPTHWISE_CONV_2D || node.num_inputs() < 2) return {};
    const Tensor* input = node.input(0);
    const Tensor* filter = node.input(1);
    if (!input || !filter || input->rank() != 4 || filter->rank() != 4) return {};
    const bool same_type = filter->type == input->type;
    if (!same_type || (input->type != TensorType::kFloat32 && input->type != TensorType::kInt8 &&
                       input->type != TensorType::kUInt8)) {
      return {};
    }
    if (filter->dim(3) != input->dim(3)) return {};  // depth multiplier 1: the optimized kernels
    const int t = node.input_tensor_index(0);
    Subgraph& graph = node.subgraph();
    for (int n = 0; n < graph.num_model_nodes(); ++n) {
      const OpContext producer(&graph, n);
      for (int o = 0; o < producer.num_outputs(); ++o) {
        if (producer.output_tensor_index(o) != t) continue;
        if (BuiltinGemmIsFaster(producer).empty()) return {};
        return StrCat(TensorTypeName(input->type), " depthwise convolution of the output of op ", n,
                      ", which stays on edgerun's GEMM: alone in a partition it would cost a handoff and save nothing");
      }
    }
    return {};
  }

  // Why a float32 1x1 CONV_2D below the size rule stays builtin: it projects the output of a
  // depthwise convolution that ReadsTheBuiltinGemm keeps (the last convolution of an
  // inverted-residual block), so with the chains fused (InterpreterOptions::fuse_row_chains) it
  // runs in the same FUSED node, strip by strip, instead of a one-node partition and a handoff.
  // The same for an 8-bit one where there is no VNNI (the 8-bit chains do not fuse there): it
  // would be a one-node partition, a handoff each way, between builtin nodes (a projection under
  // kInt16PairGemmMinMacs after an expansion over it).
  static std::string ProjectsTheBuiltinDepthwise(const OpContext& node) {
    if (node.builtin_code() != tflite::BuiltinOperator_CONV_2D || node.num_inputs() < 2) return {};
    const Tensor* input = node.input(0);
    const Tensor* filter = node.input(1);
    const Tensor* output = node.num_outputs() == 1 ? node.output(0) : nullptr;
    if (!input || !filter || !output) return {};
    const InterpreterOptions& options = node.interpreter().options();
    const bool float32 = input->type == TensorType::kFloat32 && filter->type == TensorType::kFloat32;
    const bool applies = float32 ? options.fuse_row_chains
                                 : EightBitConv(input, filter, output) && Int16PairGemmRules(options);
    if (!applies) return {};
    if (input->rank() != 4 || filter->rank() != 4 || output->rank() != 4 || filter->dim(1) != 1 ||
        filter->dim(2) != 1 || filter->dim(3) != input->dim(3) || input->dim(1) != output->dim(1) ||
        input->dim(2) != output->dim(2)) {
      return {};
    }
    const int t = node.input_tensor_index(0);
    Subgraph& graph = node.subgraph();
    for (int n = 0; n < graph.num_model_nodes(); ++n) {
      const OpContext producer(&graph, n);
      if (producer.num_outputs() != 1 || producer.output_tensor_index(0) != t) continue;
      if (ReadsTheBuiltinGemm(producer).empty()) return {};
      if (!float32) {
        return StrCat(TensorTypeName(input->type), " 1x1 convolution of the output of op ", n,
                      ", a depthwise convolution that stays builtin: alone in a partition it would cost a handoff "
                      "each way");
      }
      return StrCat("float32 1x1 convolution of the output of op ", n,
                    ", a depthwise convolution that stays builtin: it runs fused with it "
                    "(InterpreterOptions::fuse_row_chains)");
    }
    return {};
  }

  // Why a DEPTHWISE_CONV_2D of a one-channel input stays builtin: it is a CONV_2D of depth KH * KW,
  // which the builtin kernel runs as one on edgerun's GEMM, where this XNNPACK walks the window one
  // tap (one channel) at a time (micro speech's 10x8 filter into 8 channels: 105 us against 14 us).
  static std::string OneChannelDepthwiseIsAConvolution(const OpContext& node) {
    if (node.builtin_code() != tflite::BuiltinOperator_DEPTHWISE_CONV_2D || node.num_inputs() < 2) return {};
    if (!BuiltinGemmHasVectors()) return {};
    const Tensor* input = node.input(0);
    const Tensor* filter = node.input(1);
    if (!input || !filter || input->rank() != 4 || filter->rank() != 4 ||
        !ops::DepthwiseRunsAsConvolution(input, filter)) {
      return {};
    }
    return StrCat(TensorTypeName(input->type), " depthwise convolution of one input channel into ", filter->dim(3),
                  ": a convolution of depth ", filter->dim(1) * filter->dim(2),
                  ", which edgerun's GEMM runs faster than this XNNPACK");
  }

  // Why a float32 RESIZE_BILINEAR stays builtin: the builtin kernel's rows run on vector
  // registers (IsaKernels::resize_row_f32) with the reference's arithmetic, where this XNNPACK
  // walks an indirection buffer of four pointers per output pixel, built at setup and kept (2 MiB
  // for DeepLab v3's [1,65,65,21] -> [1,257,257,21]: a tenth of that model's peak RSS). Measured
  // on Zen 4, 1 thread: DeepLab v3's two final resizes 0.35 ms builtin against 0.49 ms on XNNPACK.
  // Exact 2x upsampling without either flag has a kernel of its own (optimized::ResizeBilinear2x),
  // not compared, and stays with XNNPACK.
  static std::string BuiltinResizeIsFaster(const OpContext& node) {
    if (node.builtin_code() != tflite::BuiltinOperator_RESIZE_BILINEAR) return {};
    if (!BuiltinGemmHasVectors() || node.num_inputs() < 1 || node.num_outputs() != 1) return {};
    // builtin_float_gemm_min_macs 0 asks for XNNPACK on every float node it supports.
    if (node.interpreter().options().builtin_float_gemm_min_macs <= 0) return {};
    const Tensor* input = node.input(0);
    const Tensor* output = node.output(0);
    if (!input || !output || input->type != TensorType::kFloat32 || output->type != TensorType::kFloat32 ||
        input->rank() != 4 || output->rank() != 4 || optimized::ActiveKernels().resize_row_f32 == nullptr) {
      return {};
    }
    const auto* o = node.op() ? node.op()->builtin_options_as_ResizeBilinearOptions() : nullptr;
    const bool flags = o != nullptr && (o->align_corners() || o->half_pixel_centers());
    if (!flags && output->dim(1) == 2 * input->dim(1) && output->dim(2) == 2 * input->dim(2)) return {};
    return StrCat("float32 bilinear resize to ", output->dim(1), "x", output->dim(2), "x", output->dim(3),
                  ": edgerun's vector rows run it faster than this XNNPACK, without its indirection buffer");
  }

  // Why a float32 ADD / SUB / MUL / DIV stays builtin: one operand is broadcast just outside a
  // short run of both, with dimensions outside that ([8,100,32,2] x [8,100,1,2], RoPE's cos and
  // sin over the heads), which this
  // XNNPACK walks one run (a call) at a time, and the builtin kernel as long contiguous loops
  // (reference::IsShortInnerRunBroadcast): 146 -> 47 us a node on litert_rope.
  static std::string BroadcastsShortRuns(const OpContext& node) {
    const int code = node.builtin_code();
    if (code != tflite::BuiltinOperator_ADD && code != tflite::BuiltinOperator_SUB &&
        code != tflite::BuiltinOperator_MUL && code != tflite::BuiltinOperator_DIV) {
      return {};
    }
    if (node.num_inputs() != 2 || node.num_outputs() != 1) return {};
    const Tensor* a = node.input(0);
    const Tensor* b = node.input(1);
    const Tensor* out = node.output(0);
    if (!a || !b || !out || a->type != TensorType::kFloat32 || b->type != TensorType::kFloat32 ||
        out->type != TensorType::kFloat32) {
      return {};
    }
    reference::CollapsedBroadcast c;
    if (!reference::IsShortInnerRunBroadcast(a->shape, b->shape, out->shape, &c)) return {};
    // Only with dimensions outside the broadcast one (RoPE's): a row against a whole image
    // ([1,H,W,C] + [C]) stays with XNNPACK, inside the partitions of the layers around it.
    if (c.size.size() < 3) return {};
    return StrCat("float32 broadcast of ", ShapeToString(b->shape), " against ", ShapeToString(a->shape),
                  " over runs of at most ", reference::kShortInnerRun,
                  " elements: this XNNPACK calls its kernel per run, the builtin kernel loops over whole blocks");
  }

  Status TryAlone(Subgraph& graph, const OpContext& node) {
    std::set<int> ins, outs;
    for (int i = 0; i < node.num_inputs(); ++i) ins.insert(node.input_tensor_index(i));
    for (int i = 0; i < node.num_outputs(); ++i) outs.insert(node.output_tensor_index(i));
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(ins.size() + outs.size()), 0, &subgraph) != xnn_status_success) {
      return Status::Unsupported("XNNPACK cannot create a subgraph");
    }
    StaticStorage storage;
    GraphBuilder builder(graph, subgraph,
                         [&](int t) -> uint32_t {
                           return outs.count(t) ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
                         },
                         storage);
    OpTraits traits;
    Status status = VisitNode(builder, node, &traits);
    if (status.ok()) {
      xnn_runtime_t runtime = nullptr;
      const xnn_status s = xnn_create_runtime_v2(subgraph, nullptr, 0, &runtime);
      if (s == xnn_status_success) {
        xnn_delete_runtime(runtime);
      } else {
        status = Status::Unsupported(
            StrCat("this XNNPACK rejects the parameters (status ", static_cast<int>(s),
                   s == xnn_status_unsupported_parameter ? ", e.g. a scale ratio out of its range)" : ")"));
      }
    }
    xnn_delete_subgraph(subgraph);
    return status;
  }

  int min_partition_nodes_;
  bool own_threadpool_;
  pthreadpool_t threadpool_ = nullptr;
};

}  // namespace
}  // namespace xnnpack

bool XnnpackAvailable() { return xnnpack::InitializeXnnpack(); }

std::shared_ptr<Delegate> CreateDefaultXnnpackDelegate(int min_partition_nodes) {
  // Claim needs no XNNPACK call (the node rules and a dry run of the graph builder); Confirm and
  // CreateKernel initialize it first.
  return std::make_shared<xnnpack::XnnpackDelegate>(0, min_partition_nodes);
}

std::shared_ptr<Delegate> CreateXnnpackDelegate(int num_threads, int min_partition_nodes) {
  if (!xnnpack::InitializeXnnpack()) return nullptr;
  return std::make_shared<xnnpack::XnnpackDelegate>(num_threads, min_partition_nodes);
}

}  // namespace edgerun
