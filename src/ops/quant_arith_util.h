// Checks and parameters shared by the quantized arithmetic ops (ADD, SUB, MUL, DIV, QUANTIZE,
// CONCATENATION and the reductions): what a tensor's affine quantization must look like for an
// integer kernel, and the value range of each integer type.
#pragma once

#include <cstdint>

#include "ops/op_util.h"

namespace edgerun::ops {

// uint8, int8, int16 (the types whose kernels work on quantized values).
bool IsQuantizedIntType(TensorType type);
// Value range of an integer type (int32's for other types).
int32_t TypeMin(TensorType type);
int32_t TypeMax(TensorType type);

// `t` has a per-tensor scale that is positive and finite and a zero point inside its type's
// range; otherwise an error naming `role`.
Status CheckQuantized(const OpContext& ctx, const Tensor* t, const char* role);

// TFLite's QuantizeMultiplier for a multiplier computed from scales; an error when it is not a
// positive finite number or is 2^31 or more.
Status QuantizeScale(const OpContext& ctx, double real_multiplier, int32_t* multiplier, int* shift);

}  // namespace edgerun::ops
