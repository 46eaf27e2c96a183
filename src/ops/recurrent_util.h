// Prepare helpers shared by the recurrent ops (LSTM, RNN and SVDF families): their state
// inputs are variable tensors that the op reads and updates in place.
#pragma once

#include <cmath>

#include "kernels/reference/recurrent_util.h"
#include "ops/op_util.h"

namespace edgerun::ops {

inline reference::VectorActivation ToVectorActivation(Activation act) {
  switch (act) {
    case Activation::kNone: return reference::VectorActivation::kNone;
    case Activation::kRelu: return reference::VectorActivation::kRelu;
    case Activation::kReluN1To1: return reference::VectorActivation::kReluN1To1;
    case Activation::kRelu6: return reference::VectorActivation::kRelu6;
    case Activation::kTanh: return reference::VectorActivation::kTanh;
    case Activation::kSignBit: return reference::VectorActivation::kSignBit;
  }
  return reference::VectorActivation::kNone;
}

// A state input: present, a variable tensor (TFLite refuses anything else), of `type`.
inline Status CheckStateTensor(const OpContext& ctx, const Tensor* t, const char* role, TensorType type) {
  if (t == nullptr) return ctx.Error(role, " is required but missing");
  if (!t->is_variable) return ctx.Error(role, " ", Describe(t), " must be a variable tensor");
  if (t->type != type) {
    return ctx.Error(role, " ", Describe(t), " must be ", TensorTypeName(type));
  }
  return Status::Ok();
}

// A tensor that must have data when the op is prepared (integer kernels precompute from it).
inline Status CheckConstant(const OpContext& ctx, const Tensor* t, const char* role) {
  if (t != nullptr && !t->is_constant() && t->num_elements() > 0) {
    return ctx.Unsupported(role, " ", Describe(t), " must be a constant for this kernel");
  }
  return Status::Ok();
}

// A tensor's per-tensor quantization scale, or an error when it has none.
inline Status GetScale(const OpContext& ctx, const Tensor* t, const char* role, float* scale) {
  if (t->quantization.scale.empty()) return ctx.Error(role, " ", Describe(t), " has no quantization parameters");
  *scale = t->quantization.scale[0];
  if (!(*scale > 0.0f) || !std::isfinite(*scale)) {
    return ctx.Error(role, " ", Describe(t), " has an invalid scale ", *scale);
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
