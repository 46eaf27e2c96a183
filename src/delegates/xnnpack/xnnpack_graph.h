// Translating edgerun nodes into one XNNPACK subgraph (the Debian 2022 "subgraph" API).
//
// The same code checks a node (GraphBuilder without an XNNPACK subgraph: every rule is applied,
// nothing is defined) and defines it; so what the delegate claims is exactly what it can build.
#pragma once

#include <xnnpack.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/subgraph.h"
#include "edgerun/op.h"
#include "edgerun/status.h"

namespace edgerun::xnnpack {

// Element kinds XNNPACK runs activations in.
enum class Kind { kF32, kQS8, kQU8, kNone };

// Memory that static values point at; it must outlive the XNNPACK subgraph and runtime.
class StaticStorage {
 public:
  // Zeroed, with XNN_EXTRA_BYTES of slack (XNNPACK may read, never write, past the end).
  void* Allocate(size_t bytes);
  float* AllocateFloats(size_t count) { return static_cast<float*>(Allocate(count * sizeof(float))); }

 private:
  std::vector<std::unique_ptr<uint8_t[]>> blocks_;
};

class GraphBuilder {
 public:
  // `subgraph` null: check only. `external(t)`: XNN_VALUE_FLAG_EXTERNAL_INPUT / _OUTPUT for a
  // tensor that crosses the partition boundary, 0 for one that lives inside.
  GraphBuilder(Subgraph& graph, xnn_subgraph_t subgraph, std::function<uint32_t(int)> external,
               StaticStorage& storage);

  bool defining() const { return subgraph_ != nullptr; }
  xnn_subgraph_t subgraph() const { return subgraph_; }
  Subgraph& graph() const { return graph_; }

  // A tensor XNNPACK reads or writes as an activation (float32, or 8-bit per-tensor quantized);
  // constants and folded DEQUANTIZE outputs become static values.
  Result<uint32_t> Value(int tensor);
  // A new internal value shaped `dims`, with the type and quantization of tensor `like`.
  Result<uint32_t> InternalValue(int like, const Shape& dims);
  // Static weights of a convolution-like op: per-tensor or per-channel along `channel_dim`.
  Result<uint32_t> Filter(int tensor, int channel_dim);
  // Static bias of a convolution-like op; quantized biases take the scales input x filter.
  Result<uint32_t> Bias(int tensor, int input, int filter);
  // A static float value shaped `dims` holding `values`.
  Result<uint32_t> StaticFloats(const std::vector<float>& values, const Shape& dims);

  // Tensors with an external id, in id order.
  const std::vector<int>& externals() const { return externals_; }
  // Whether tensor t has static data XNNPACK can use (a constant, or a folded DEQUANTIZE of one),
  // and that data as float32 when it is a folded DEQUANTIZE.
  bool IsStatic(int tensor) const;
  const float* FoldedData(int tensor);
  // Checks an XNNPACK call; a failure is a refusal of the node with the call's name.
  Status Check(xnn_status status, const char* what) const;

 private:
  Result<uint32_t> Define(int tensor, xnn_datatype type, const void* data, const QuantValues<float>* channel_scales,
                          int channel_dim, float scale, int32_t zero_point, const Shape& dims);

  Subgraph& graph_;
  xnn_subgraph_t subgraph_;
  std::function<uint32_t(int)> external_;
  StaticStorage& storage_;
  std::map<int, uint32_t> ids_;
  std::map<int, const float*> folded_;
  std::vector<int> externals_;
};

// Kind of an activation tensor, or kNone with the reason in `why`.
Kind KindOf(const Tensor& t, std::string* why);

// The tensor is the output of a DEQUANTIZE of a constant (fp16, int8 or uint8) that XNNPACK
// folds into a static float value; returns that DEQUANTIZE node or -1.
int FoldableDequantize(const Subgraph& graph, int tensor);

struct OpTraits {
  bool heavy = false;  // convolution-like: worth a partition of its own; checked by rules only
};

// Checks (builder not defining) or defines one node. kUnsupported: refused, with the reason.
Status VisitNode(GraphBuilder& builder, const OpContext& node, OpTraits* traits);

}  // namespace edgerun::xnnpack
