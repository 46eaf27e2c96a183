// Shared prepare/eval code of the element-wise math, comparison, logic and selection ops:
// broadcasting loops into any output type, quantization checks, and quantized lookup tables.
#pragma once

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "kernels/reference/broadcast.h"
#include "kernels/reference/elementwise.h"
#include "ops/binary_op.h"
#include "ops/op_util.h"
#include "quant/lut.h"

namespace edgerun::ops::elementwise {

// out[i] = op(a[i'], b[i'']) over the broadcast of inputs 0 and 1 (prepared by PrepareBinary).
template <class In, class Out, class Op>
void BroadcastInputs(OpContext& ctx, Op op) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  reference::BroadcastBinary(a->shape, a->data_as<In>(), b->shape, b->data_as<In>(), out->shape, out->data_as<Out>(),
                             op);
}

// Calls fn(T{}) with T the C++ element type of `type` (float32/64, int8..int64, uint8..uint64,
// bool). Returns false, without calling, for other types.
template <class Fn>
bool VisitType(TensorType type, Fn&& fn) {
  switch (type) {
    case TensorType::kFloat32:
      fn(float{});
      return true;
    case TensorType::kFloat64:
      fn(double{});
      return true;
    case TensorType::kInt8:
      fn(int8_t{});
      return true;
    case TensorType::kInt16:
      fn(int16_t{});
      return true;
    case TensorType::kInt32:
      fn(int32_t{});
      return true;
    case TensorType::kInt64:
      fn(int64_t{});
      return true;
    case TensorType::kUInt8:
      fn(uint8_t{});
      return true;
    case TensorType::kUInt16:
      fn(uint16_t{});
      return true;
    case TensorType::kUInt32:
      fn(uint32_t{});
      return true;
    case TensorType::kUInt64:
      fn(uint64_t{});
      return true;
    case TensorType::kBool:
      fn(bool{});
      return true;
    default:
      return false;
  }
}

// A per-tensor quantized tensor: a positive finite scale and a zero point within T's range.
template <class T>
Status CheckQuantized(const OpContext& ctx, const Tensor* t, const char* role) {
  if (t->quantization.empty()) return ctx.Error(role, " ", Describe(t), " has no quantization parameters");
  const float scale = t->scale();
  if (!(scale > 0) || !std::isfinite(scale)) return ctx.Error(role, " ", Describe(t), " has invalid scale ", scale);
  const int64_t zp = t->quantization.zero_point.empty() ? 0 : t->quantization.zero_point[0];
  if (zp < std::numeric_limits<T>::min() || zp > std::numeric_limits<T>::max()) {
    return ctx.Error(role, " ", Describe(t), " has zero point ", zp, " outside its type's range");
  }
  return Status::Ok();
}

// Quantized unary functions computed once per node into a table (int8: 256 entries; int16:
// 513 entries with interpolation), as TFLite does for EXP, LOG and int16 RSQRT.
struct LutState {
  int8_t lut8[256] = {};
  int16_t lut16[quant::kLut16Size] = {};
};

// Fills the table for an int8 or (symmetric) int16 input and its output. `fn` maps real input
// values to real output values.
inline Status PrepareLut(OpContext& ctx, LutState& state, const std::function<float(float)>& fn) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type == TensorType::kInt8) {
    ER_RETURN_IF_ERROR(CheckQuantized<int8_t>(ctx, input, "input"));
    ER_RETURN_IF_ERROR(CheckQuantized<int8_t>(ctx, output, "output"));
    quant::PopulateLut8<int8_t>(input->scale(), input->zero_point(), output->scale(), output->zero_point(), fn,
                                state.lut8);
    return Status::Ok();
  }
  ER_RETURN_IF_ERROR(CheckQuantized<int16_t>(ctx, input, "input"));
  ER_RETURN_IF_ERROR(CheckQuantized<int16_t>(ctx, output, "output"));
  if (input->zero_point() != 0 || output->zero_point() != 0) {
    return ctx.Unsupported("int16 ", ctx.op_name(), " needs zero points of 0 (input ", input->zero_point(), ", output ",
                           output->zero_point(), ")");
  }
  quant::PopulateLut16<float>(input->scale(), 0, output->scale(), 0, fn, state.lut16);
  return Status::Ok();
}

inline void EvalLut(OpContext& ctx, const LutState& state) {
  if (ctx.input(0)->type == TensorType::kInt8) {
    MapUnary<int8_t>(ctx, [&](int8_t q) { return quant::LookupLut8(q, state.lut8); });
  } else {
    MapUnary<int16_t>(ctx, [&](int16_t q) { return quant::LookupLut16(q, state.lut16); });
  }
}

// Input i has data and holds exactly one element (a scalar parameter).
inline Status CheckScalarInput(const OpContext& ctx, int i, const char* role) {
  const Tensor* t = ctx.input(i);
  if (t->num_elements() != 1) return ctx.Error(role, " ", Describe(t), " must hold exactly one value");
  if (t->data == nullptr) return ctx.Error(role, " ", Describe(t), " has no data");
  return Status::Ok();
}

// The two inputs of a broadcasting binary op with an output of type `output_type` (e.g. bool
// for comparisons): same input types, output sized to the broadcast shape.
inline Status PrepareBinaryTo(OpContext& ctx, std::initializer_list<TensorType> types, TensorType output_type) {
  ER_RETURN_IF_ERROR(PrepareBinary(ctx, types, /*same_output_type=*/false));
  const Tensor* out = ctx.output(0);
  if (out->type != output_type) {
    return ctx.Error("output ", Describe(out), " must be ", TensorTypeName(output_type));
  }
  return Status::Ok();
}

}  // namespace edgerun::ops::elementwise
