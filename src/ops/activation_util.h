// Shared prepare/eval pieces of the element-wise activations (RELU family, LOGISTIC, TANH, ELU,
// GELU, LEAKY_RELU, HARD_SWISH ...): quantization checks, the 8-bit look-up-table path and the
// requantizing clamp of the RELU family.
#pragma once

#include <cstdint>

#include "kernels/optimized/isa_kernels.h"
#include "ops/op_util.h"

namespace edgerun::ops {

inline bool IsQuantized8(TensorType type) { return type == TensorType::kUInt8 || type == TensorType::kInt8; }

// A quantized tensor must carry a usable per-tensor scale (finite, > 0).
Status RequireScale(const OpContext& ctx, const Tensor* t, const char* role);
// A tensor's zero point must be `zero_point` (int16 fixed-point kernels need 0).
Status RequireZeroPoint(const OpContext& ctx, const Tensor* t, const char* role, int32_t zero_point);

// The 8-bit path of a function computed through a 256-entry table built at prepare.
struct Lut8State {
  uint8_t table[256] = {};  // int8 tables are stored as their bytes
};
// Builds the table of `fn` (float -> float) for the node's uint8/int8 input and output.
void PopulateLut8(const Tensor* input, const Tensor* output, float (*fn)(float), Lut8State* state);
// output[i] = table[input[i]] for a uint8/int8 node.
void ApplyLut8(OpContext& ctx, const Lut8State& state);

// LOGISTIC and TANH on int16 (zero points 0, output scale 2^-15). A power-of-two input scale the
// fixed-point functions accept (2^-12; TANH also 2^-11, doubled first) runs gemmlowp's math;
// any other scale is rescaled by multiplier / 2^shift into the sigmoid table's units.
struct SigmoidInt16State {
  bool fixed_point = false;
  bool double_input = false;
  int32_t multiplier = 0;
  int shift = 0;
};
Status PrepareSigmoidInt16(const OpContext& ctx, bool is_tanh, SigmoidInt16State* state);

// A float32 node's output[i] = f(input[i]): `vector_fn` (an ISA kernel within a few ulp of f,
// blocks spread over the thread pool) where this CPU has one, else `scalar_fn` (libm) per element.
void MapFloatUnary(OpContext& ctx, optimized::UnaryF32Fn vector_fn, float (*scalar_fn)(float));

// RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1: clamp to [lo, hi]; quantized types requantize from the
// input to the output scale first (TFLite's QuantizedReluX).
struct ReluState {
  int32_t multiplier = 0;
  int shift = 0;
};
Status PrepareRelu(OpContext& ctx, ReluState& state, std::initializer_list<TensorType> types);
Status EvalRelu(OpContext& ctx, const ReluState& state, float lo, float hi);

}  // namespace edgerun::ops
