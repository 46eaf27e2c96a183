// Shared machinery of the arithmetic binary ops (ADD, SUB, MUL, DIV, ...): broadcast shapes,
// type checks, fused activation, and the float / integer element loops.
#pragma once

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/reference/broadcast.h"
#include "ops/op_util.h"

namespace edgerun::ops {

struct BinaryOpState {
  Activation activation = Activation::kNone;
  // Quantized paths fill these in prepare (see the op's own file).
  int32_t left_shift = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0, output_multiplier = 0;
  int input1_shift = 0, input2_shift = 0, output_shift = 0;
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  int32_t act_min = 0, act_max = 0;
  bool pot_int16 = false;
};

// Checks the two inputs and the output, sizes the output to the broadcast shape.
Status PrepareBinary(OpContext& ctx, std::initializer_list<TensorType> types, bool same_output_type = true);

// Parses the fused activation of an arithmetic op's options (null options = none) and checks
// the inputs and output; the activation must be a clamp.
template <class OptionsT>
Status PrepareArithmetic(OpContext& ctx, BinaryOpState& state, std::initializer_list<TensorType> types) {
  const OptionsT* options = Options<OptionsT>(ctx);
  ER_RETURN_IF_ERROR(ParseActivation(
      ctx, options ? options->fused_activation_function() : tflite::ActivationFunctionType_NONE,
      &state.activation));
  if (state.activation == Activation::kTanh || state.activation == Activation::kSignBit) {
    return ctx.Unsupported("fused activation TANH/SIGN_BIT is not defined for ", ctx.op_name());
  }
  return PrepareBinary(ctx, types);
}

// Integer clamp range of a fused activation (TFLite's CalculateActivationRange for ints).
template <class T>
void IntActivationRange(Activation act, T* min, T* max) {
  *min = std::numeric_limits<T>::lowest();
  *max = std::numeric_limits<T>::max();
  if (act == Activation::kRelu) *min = 0;
  if (act == Activation::kRelu6) { *min = 0; *max = 6; }
  if (act == Activation::kReluN1To1) { *min = -1; *max = 1; }
}

// Runs `op` elementwise with broadcasting and clamps by the activation.
template <class T, class Op>
void EvalBinaryArithmetic(OpContext& ctx, Activation act, Op op) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  if constexpr (std::is_floating_point_v<T>) {
    float lo, hi;
    ActivationRange(act, &lo, &hi);
    const T tlo = static_cast<T>(lo), thi = static_cast<T>(hi);
    reference::BroadcastBinary(a->shape, a->data_as<T>(), b->shape, b->data_as<T>(), out->shape, out->data_as<T>(),
                               [&](T x, T y) { return std::min(std::max(op(x, y), tlo), thi); });
  } else {
    T lo, hi;
    IntActivationRange(act, &lo, &hi);
    reference::BroadcastBinary(a->shape, a->data_as<T>(), b->shape, b->data_as<T>(), out->shape, out->data_as<T>(),
                               [&](T x, T y) { return std::min(std::max(op(x, y), lo), hi); });
  }
}

// Float and plain-integer arithmetic (no quantization): `fn` is a functor with a templated
// operator()(T, T).
template <class Fn>
Status EvalArithmetic(OpContext& ctx, const BinaryOpState& state, Fn fn) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: EvalBinaryArithmetic<float>(ctx, state.activation, fn); return Status::Ok();
    case TensorType::kInt32: EvalBinaryArithmetic<int32_t>(ctx, state.activation, fn); return Status::Ok();
    case TensorType::kInt64: EvalBinaryArithmetic<int64_t>(ctx, state.activation, fn); return Status::Ok();
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
}

// Two's-complement wrapping arithmetic: integer overflow is defined (TFLite wraps on every
// target it runs on) and sanitizers stay quiet.
template <class T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

}  // namespace edgerun::ops
