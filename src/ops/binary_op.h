// Shared machinery of the arithmetic binary ops (ADD, SUB, MUL, DIV): broadcast shapes, type
// checks, fused activation, the float / plain-integer element loops and the quantized paths
// (TFLite's integer kernels, see kernels/reference/integer_arithmetic.h, and for 8-bit ADD / SUB /
// MUL in Int8Arithmetic::kLiteRtDefault mode XNNPACK's, see quant/xnnpack_compat.h).
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/reference/broadcast.h"
#include "kernels/reference/integer_arithmetic.h"
#include "ops/op_util.h"
#include "ops/quant_arith_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {

// How a node computes: on plain values, or on quantized values with one of TFLite's schemes.
enum class BinaryKind {
  kPlain,           // float32, int32, int64, unquantized int16
  kQuantized,       // uint8 / int8 / int16 with general scales
  kPotInt16,        // int16 ADD/SUB with power-of-two scales (TFLite's pot_scale_int16 path)
  kInt16MulToInt8,  // MUL of two int16 Q0.15 tensors into an 8-bit output
  kXnnpackAddSub,   // uint8 / int8 ADD or SUB with XNNPACK's arithmetic (LiteRT's default path)
  kXnnpackMul,      // uint8 / int8 MUL with XNNPACK's arithmetic
};

struct BinaryOpState {
  Activation activation = Activation::kNone;
  BinaryKind kind = BinaryKind::kPlain;
  reference::QuantizedBinaryParams q;  // filled in prepare for the quantized kinds
  quant::xnn::AddParams xnn_add;       // kXnnpackAddSub
  quant::xnn::MulParams xnn_mul;       // kXnnpackMul
};

// fn(first, end) over [0, n) in blocks of `block` elements, shared by the pool's threads (in
// contiguous shares; a tensor of fewer than 4 blocks stays on the caller).
void InBlocks(OpContext& ctx, int64_t n, int64_t block, const std::function<void(int64_t, int64_t)>& fn);

// Checks the two inputs and the output, sizes the output to the broadcast shape.
Status PrepareBinary(OpContext& ctx, std::initializer_list<TensorType> types, bool same_output_type = true);

// Parses the fused activation of an arithmetic op's options (null options = none) and checks
// the inputs and output; the activation must be a clamp.
template <class OptionsT>
Status PrepareArithmetic(OpContext& ctx, BinaryOpState& state, std::initializer_list<TensorType> types,
                         bool same_output_type = true) {
  const OptionsT* options = Options<OptionsT>(ctx);
  ER_RETURN_IF_ERROR(ParseActivation(
      ctx, options ? options->fused_activation_function() : tflite::ActivationFunctionType_NONE,
      &state.activation));
  if (state.activation == Activation::kTanh || state.activation == Activation::kSignBit) {
    return ctx.Unsupported("fused activation TANH/SIGN_BIT is not defined for ", ctx.op_name());
  }
  return PrepareBinary(ctx, types, same_output_type);
}

// ADD and SUB give their output the inputs' type, whatever the file declares (as TFLite does;
// some converted quantized graphs declare float32 intermediates there).
void AdoptInputType(OpContext& ctx);

// True when the node works on quantized values: an 8-bit type, or int16 with quantization
// parameters (unquantized int16 is plain integer arithmetic, as in TFLite).
bool UsesQuantizedKernel(const OpContext& ctx);

// ADD / SUB on quantized types: chooses TFLite's power-of-two int16 path (when
// `pot_scale_int16` and every scale is a power of two with zero points 0) or the general one,
// and computes the multipliers; 8-bit nodes that LiteRT's XNNPACK delegate takes run XNNPACK's
// arithmetic in kLiteRtDefault mode. Leaves plain types alone.
Status PrepareQuantizedAddSub(OpContext& ctx, BinaryOpState& state, bool pot_scale_int16, bool subtract);
// kXnnpackAddSub on inputs of the output's shape, vectorized and split over the thread pool;
// false (nothing done) where the CPU or the shapes have no such kernel.
bool EvalXnnpackAddSubSameShape(OpContext& ctx, const quant::xnn::AddParams& p);
// int16 ADD / SUB (op 0 / 1) or MUL (op 2) with TFLite's arithmetic on the vector kernel
// (optimized::BinaryI16Fn) when both operands have the output's shape, or one does and the other
// is a row of its trailing dims (a per-channel bias); false: use another path.
bool EvalInt16SameShapeOrRow(OpContext& ctx, const reference::QuantizedBinaryParams& q, int op);
// 8-bit ADD / SUB with TFLite's general scales (kQuantized) on at least 256 output elements: each
// input's rescaled value depends on its stored byte alone, so both are tabulated (256 values
// each) and one of the three fixed-point rescalings per element remains. The same results as
// reference::QuantizedAddSub; false (nothing done) for other types and small outputs.
bool EvalQuantized8BitAddSubByInputTables(OpContext& ctx, const reference::QuantizedBinaryParams& q, bool subtract);
// MUL / DIV on quantized types: offsets, the output multiplier (s_a * s_b / s_out, or
// s_a / (s_b * s_out) when `divide`) and the activation range.
Status PrepareQuantizedMulDiv(OpContext& ctx, BinaryOpState& state, bool divide);
// 8-bit MUL that LiteRT's XNNPACK delegate takes, in kLiteRtDefault mode: switches `state` to
// kXnnpackMul and returns true (false: TFLite's kernel runs the node).
bool PrepareXnnpackMul(OpContext& ctx, BinaryOpState& state);

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
  T lo, hi;
  if constexpr (std::is_floating_point_v<T>) {
    float flo, fhi;
    ActivationRange(act, &flo, &fhi);
    lo = static_cast<T>(flo);
    hi = static_cast<T>(fhi);
  } else {
    IntActivationRange(act, &lo, &hi);
  }
  const auto clamped = [&](T x, T y) { return std::min(std::max(op(x, y), lo), hi); };
  if (a->shape == out->shape && b->shape == out->shape) {
    // Same shapes (a residual ADD): blocks of 16 KB over the pool. Each thread then reads the
    // share of the inputs that it most likely wrote itself in the layers before (contiguous
    // shares in the same order); on the calling thread alone, ResNet-18's 56x56x64 ADD took
    // 46 us at 1 thread and 77 at 2, half its inputs coming from the other core's cache.
    const T* pa = a->data_as<T>();
    const T* pb = b->data_as<T>();
    T* po = out->data_as<T>();
    InBlocks(ctx, out->num_elements(), 16384 / static_cast<int64_t>(sizeof(T)), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) po[i] = clamped(pa[i], pb[i]);
    });
    return;
  }
  reference::BroadcastBinary(a->shape, a->data_as<T>(), b->shape, b->data_as<T>(), out->shape, out->data_as<T>(),
                             clamped);
}

// Float and plain-integer arithmetic (no quantization): `fn` is a functor with a templated
// operator()(T, T).
template <class Fn>
Status EvalArithmetic(OpContext& ctx, const BinaryOpState& state, Fn fn) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: EvalBinaryArithmetic<float>(ctx, state.activation, fn); return Status::Ok();
    case TensorType::kInt32: EvalBinaryArithmetic<int32_t>(ctx, state.activation, fn); return Status::Ok();
    case TensorType::kInt64: EvalBinaryArithmetic<int64_t>(ctx, state.activation, fn); return Status::Ok();
    case TensorType::kInt16: EvalBinaryArithmetic<int16_t>(ctx, state.activation, fn); return Status::Ok();
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
}

// Whether `small`, broadcast to `out`, repeats as one block along the flattened output: its
// shape less leading 1s is the output's trailing dimensions ([1,1,1,3] against [1,192,192,3]).
inline bool RepeatsAsABlock(const Shape& small, const Shape& out) {
  size_t first = 0;
  while (first < small.size() && small[first] == 1) ++first;
  const size_t kept = small.size() - first;
  if (kept > out.size()) return false;
  return std::equal(small.begin() + static_cast<std::ptrdiff_t>(first), small.end(),
                    out.end() - static_cast<std::ptrdiff_t>(kept));
}

// Quantized arithmetic on stored values: out = fn(a, b) with broadcasting, where fn returns the
// clamped int32 result; In and Out are the input and output element types.
// 8-bit operands where one side has few elements (an image minus a per-channel mean, a scalar):
// fn tabulated for each element of the small side against all 256 values of the other, then one
// lookup per output element instead of the fixed-point arithmetic (MoveNet's [1,192,192,3] -
// [1,1,1,3] went 1.17 ms -> ~0.1 ms). Same results: fn is a function of the two stored values.
template <class In, class Out, class Fn>
bool EvalQuantizedBinaryByTable(const Tensor* a, const Tensor* b, Tensor* out, Fn fn) {
  if constexpr (sizeof(In) != 1 || sizeof(Out) != 1) {
    return false;
  } else {
    const int64_t a_count = a->num_elements(), b_count = b->num_elements(), total = out->num_elements();
    const bool small_b = b_count <= a_count;
    const int64_t small = small_b ? b_count : a_count;
    if (small <= 0 || small * 256 * 4 > total) return false;  // the table would cost more than it saves
    std::vector<Out> table(static_cast<size_t>(small) * 256);
    const In* small_values = small_b ? b->data_as<In>() : a->data_as<In>();
    for (int64_t k = 0; k < small; ++k) {
      for (int byte = 0; byte < 256; ++byte) {
        const int32_t other = static_cast<In>(static_cast<uint8_t>(byte));
        const int32_t x = small_b ? other : int32_t{small_values[k]}, y = small_b ? int32_t{small_values[k]} : other;
        table[static_cast<size_t>(k) * 256 + byte] = static_cast<Out>(fn(x, y));
      }
    }
    const auto* pa = static_cast<const uint8_t*>(a->data);
    const auto* pb = static_cast<const uint8_t*>(b->data);
    Out* po = out->data_as<Out>();
    const Tensor* large = small_b ? a : b;
    if (large->shape == out->shape && RepeatsAsABlock(small_b ? b->shape : a->shape, out->shape)) {
      // A per-channel row (an image minus its mean): element i of the output pairs element i of
      // the large operand with element i % small of the small one, without the index walk below
      // (MoveNet's [1,192,192,3] - [1,1,1,3]: about 3x faster, 58 us).
      const uint8_t* values = small_b ? pa : pb;
      for (int64_t i = 0; i < total; i += small) {
        for (int64_t k = 0; k < small; ++k) po[i + k] = table[static_cast<size_t>(k) * 256 + values[i + k]];
      }
      return true;
    }
    reference::ForEachBroadcast(a->shape, b->shape, out->shape, [&](int64_t ia, int64_t ib, int64_t io) {
      po[io] = small_b ? table[static_cast<size_t>(ib) * 256 + pa[ia]] : table[static_cast<size_t>(ia) * 256 + pb[ib]];
    });
    return true;
  }
}

template <class In, class Out, class Fn>
void EvalQuantizedBinaryAs(OpContext& ctx, Fn fn) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  if (EvalQuantizedBinaryByTable<In, Out>(a, b, out, fn)) return;
  reference::BroadcastBinary(a->shape, a->data_as<In>(), b->shape, b->data_as<In>(), out->shape, out->data_as<Out>(),
                             [&](In x, In y) { return static_cast<Out>(fn(int32_t{x}, int32_t{y})); });
}

// Same-type quantized arithmetic dispatched on the input type (uint8, int8, int16).
template <class Fn>
Status EvalQuantizedBinary(OpContext& ctx, Fn fn) {
  switch (ctx.input(0)->type) {
    case TensorType::kUInt8: EvalQuantizedBinaryAs<uint8_t, uint8_t>(ctx, fn); return Status::Ok();
    case TensorType::kInt8: EvalQuantizedBinaryAs<int8_t, int8_t>(ctx, fn); return Status::Ok();
    case TensorType::kInt16: EvalQuantizedBinaryAs<int16_t, int16_t>(ctx, fn); return Status::Ok();
    default: return ctx.Unsupported("unsupported quantized type ", TensorTypeName(ctx.input(0)->type));
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
  // Promote to at least unsigned int: uint16 * uint16 would otherwise become a signed int.
  using W = std::common_type_t<U, unsigned int>;
  return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}

}  // namespace edgerun::ops
