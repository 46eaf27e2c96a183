// Which 8-bit nodes LiteRT's default CPU path hands to XNNPACK, for the ops that reproduce
// XNNPACK's arithmetic (quant/xnnpack_compat.h) in Int8Arithmetic::kLiteRtDefault mode.
#pragma once

#include "ops/activation_util.h"
#include "ops/op_util.h"

namespace edgerun::ops {

// InterpreterOptions::int8_arithmetic is kLiteRtDefault.
bool LiteRtDefaultArithmetic(const OpContext& ctx);

// `t` has type `type` (uint8 or int8), a per-tensor quantization with a normal scale and a zero
// point in the type's range, a rank of at most 6 and no empty dimension.
bool XnnpackQuantized8(const Tensor* t, TensorType type);

// True in kLiteRtDefault mode when the first `data_inputs` inputs and every output share one
// 8-bit type (uint8 or int8) with a per-tensor quantization whose scale is a normal float, a
// rank of at most 6 and no empty dimension: the delegate's common conditions (each op then adds
// its own range checks on the scales).
bool XnnpackTakes8Bit(const OpContext& ctx, int data_inputs);

// The fused activation as XNNPACK clamps it: its float bounds quantized half to even into the
// output's type range.
void XnnpackActivationBounds(Activation act, const Tensor* output, int32_t* min, int32_t* max);

// The 8-bit table of `fn` as XNNPACK builds it from its float reference (see quant::xnn::BuildLut).
void PopulateXnnpackLut8(const Tensor* input, const Tensor* output, float (*fn)(float), Lut8State* state);

}  // namespace edgerun::ops
