// Helpers shared by op files: registration, option access, type and shape checks, fused
// activations, padding and broadcasting rules. Everything here follows TFLite's semantics.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "core/block_memory.h"
#include "core/subgraph.h"
#include "edgerun/op.h"
#include "edgerun/tensor.h"
#include "tflite_generated.h"

namespace edgerun::ops {

// A builtin op registration: name from the schema, versions 1..max_version.
// `types` says which element types the kernel runs, for docs/ops.md ("float32, int8").
OpRegistration MakeBuiltin(tflite::BuiltinOperator code, int max_version, const char* types,
                           std::function<Status(OpContext&)> prepare,
                           std::function<Status(OpContext&)> eval, int min_version = 1);

// The op's builtin options of type T, or null when the file has none (then defaults apply).
template <class T>
const T* Options(const OpContext& ctx) {
  return ctx.op() ? ctx.op()->template builtin_options_as<T>() : nullptr;
}
template <class T>
const T* Options2(const OpContext& ctx) {
  return ctx.op() ? ctx.op()->template builtin_options_2_as<T>() : nullptr;
}

// ---- checks (each returns an error that names the op, the tensor and what was expected)

Status CheckIo(const OpContext& ctx, int min_inputs, int max_inputs, int outputs);
Status CheckInput(const OpContext& ctx, int i);  // present
Status CheckType(const OpContext& ctx, const Tensor* t, const char* role,
                 std::initializer_list<TensorType> allowed);
Status CheckSameType(const OpContext& ctx, const Tensor* a, const Tensor* b, const char* what);
Status CheckRank(const OpContext& ctx, const Tensor* t, const char* role, int min_rank, int max_rank);
std::string Describe(const Tensor* t);  // "'name' float32[1,2,3]"

// One input, one output of the same type and shape (activations, element-wise math).
Status PrepareUnary(OpContext& ctx, std::initializer_list<TensorType> types);

// Reads an integer tensor (int32 or int64) into int64 values; fails for other types.
Status ReadInts(const OpContext& ctx, const Tensor* t, const char* role, std::vector<int64_t>* values);
// An axis in [-rank, rank) made non-negative (none for rank 0).
Status NormalizeAxis(const OpContext& ctx, int64_t axis, int rank, int* out);

// ---- fused activations

enum class Activation { kNone, kRelu, kReluN1To1, kRelu6, kTanh, kSignBit };
Status ParseActivation(const OpContext& ctx, tflite::ActivationFunctionType fb, Activation* out);
// Clamping range of an activation that is a clamp (None, Relu, ReluN1To1, Relu6).
void ActivationRange(Activation act, float* min, float* max);
// Integer clamping range for a quantized output (TFLite's CalculateActivationRangeQuantized).
void QuantizedActivationRange(Activation act, const Tensor* output, int32_t* min, int32_t* max);

// ---- convolution geometry (TFLite's ComputePaddingHeightWidth)

int ComputeOutSize(tflite::Padding padding, int in, int filter, int stride, int dilation);
struct PaddingValues {
  int width = 0, height = 0;                // padding before (left, top)
  int width_offset = 0, height_offset = 0;  // extra padding after, for odd totals
};
PaddingValues ComputePadding(int stride_h, int stride_w, int dilation_h, int dilation_w, int in_h, int in_w,
                             int filter_h, int filter_w, int out_h, int out_w);

// ---- broadcasting (numpy rules)

bool BroadcastShape(const Shape& a, const Shape& b, Shape* out);

}  // namespace edgerun::ops

namespace edgerun::ops {

// The init of MakeBuiltinWithState's registrations: a named type, so that OwnState can tell
// edgerun's own kernel of an op from one registered in its place (BuiltinOpResolver::AddBuiltin).
// States live in metadata blocks (core/block_memory.h), not fresh heap pages.
template <class State>
struct NewOpState {
  void* operator()(OpContext&) const {
    MetadataAllocator<State> allocator;
    State* block = allocator.allocate(1);
    try {
      return new (block) State();  // freed by the registration's free
    } catch (...) {
      allocator.deallocate(block, 1);
      throw;
    }
  }
};

// The `State` of a node whose kernel is the MakeBuiltinWithState<State> registration, else null.
template <class State>
State* OwnState(const OpContext& ctx) {
  const OpRegistration* r = ctx.subgraph().nodes()[static_cast<size_t>(ctx.node_index())].registration;
  if (r == nullptr || r->init.target<NewOpState<State>>() == nullptr) return nullptr;
  return static_cast<State*>(ctx.user_data());
}

// A registration whose nodes each own a `State` (created at init, freed with the interpreter):
// prepare computes it once, eval uses it.
template <class State>
OpRegistration MakeBuiltinWithState(tflite::BuiltinOperator code, int max_version, const char* types,
                                    Status (*prepare)(OpContext&, State&), Status (*eval)(OpContext&, State&),
                                    int min_version = 1) {
  OpRegistration r = MakeBuiltin(
      code, max_version, types, [prepare](OpContext& c) { return prepare(c, *static_cast<State*>(c.user_data())); },
      [eval](OpContext& c) { return eval(c, *static_cast<State*>(c.user_data())); }, min_version);
  r.init = NewOpState<State>{};
  r.free = [](void* p) {
    if (p == nullptr) return;
    static_cast<State*>(p)->~State();
    MetadataAllocator<State>().deallocate(static_cast<State*>(p), 1);
  };
  return r;
}

}  // namespace edgerun::ops

namespace edgerun::ops {

// output[i] = fn(input[i]) for an op prepared with PrepareUnary.
template <class T, class Fn>
void MapUnary(OpContext& ctx, Fn fn) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const T* in = input->data_as<T>();
  T* out = output->data_as<T>();
  const int64_t n = input->num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]);
}

}  // namespace edgerun::ops
