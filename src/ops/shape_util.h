// Helpers of the shape, indexing and data-movement ops: element sizes, integer inputs that hold
// shapes or scalars, and TFLite's rule for outputs whose shape depends on input values (sized in
// prepare when those inputs are constants, else marked dynamic and sized in eval).
#pragma once

#include <cstring>
#include <functional>
#include <vector>

#include "ops/op_util.h"

namespace edgerun::ops {

// Bytes of one element of `t`; Unsupported for types without a fixed size (string, int4, ...).
inline Status ElementSize(const OpContext& ctx, const Tensor* t, const char* role, size_t* size) {
  *size = IsFixedSizeType(t->type) ? TensorTypeSize(t->type) : 0;
  if (*size == 0) return ctx.Unsupported(role, " ", Describe(t), ": type ", TensorTypeName(t->type), " is not supported");
  return Status::Ok();
}

// The one value of an int32/int64 tensor that must hold exactly one element (scalar or [1]).
inline Status ReadScalarInt(const OpContext& ctx, const Tensor* t, const char* role, int64_t* value) {
  if (t->num_elements() != 1) return ctx.Error(role, " ", Describe(t), " must hold exactly one value");
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, t, role, &values));
  *value = values[0];
  return Status::Ok();
}

// Index values of an int16, int32 or int64 tensor, widened to int64.
inline Status ReadIndices(const OpContext& ctx, const Tensor* t, const char* role, std::vector<int64_t>* values) {
  if (t->type != TensorType::kInt16) return ReadInts(ctx, t, role, values);
  const int64_t n = t->num_elements();
  if (t->data == nullptr && n > 0) return ctx.Error(role, " ", Describe(t), " has no data");
  values->resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data_as<int16_t>()[i];
  return Status::Ok();
}

// A shape held in a 1-D int32/int64 tensor: every dimension in [0, int32 max].
inline Status ReadShape(const OpContext& ctx, const Tensor* t, const char* role, Shape* shape) {
  if (t->rank() != 1) return ctx.Error(role, " ", Describe(t), " must be 1-D");
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, t, role, &values));
  shape->resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] > std::numeric_limits<int32_t>::max()) {
      return ctx.Error(role, " ", Describe(t), " has invalid dimension ", values[i]);
    }
    (*shape)[i] = static_cast<int32_t>(values[i]);
  }
  return Status::Ok();
}

// Product of shape[begin, end) (1 when empty).
inline int64_t DimProduct(const Shape& shape, int begin, int end) {
  int64_t product = 1;
  for (int d = begin; d < end; ++d) product *= shape[d];
  return product;
}

// Computes the shape of an output from the op's inputs.
using ShapeFn = std::function<Status(OpContext&, Shape*)>;

// Prepare: sizes output `i` now when the inputs its shape depends on are known (`known`), else
// marks it dynamic so that eval sizes it (ResizeDynamicOutput).
inline Status PrepareOutput(OpContext& ctx, int i, bool known, const ShapeFn& shape_of) {
  if (!known) {
    ctx.MarkDynamic(ctx.output(i));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(shape_of(ctx, &shape));
  return ctx.ResizeOutput(i, std::move(shape));
}

// Eval: sizes (and allocates) output `i` when prepare left it dynamic.
inline Status ResizeDynamicOutput(OpContext& ctx, int i, const ShapeFn& shape_of) {
  if (!ctx.output(i)->is_dynamic()) return Status::Ok();
  Shape shape;
  ER_RETURN_IF_ERROR(shape_of(ctx, &shape));
  return ctx.ResizeOutput(i, std::move(shape));
}

// Copies `bytes` bytes; a no-op for empty tensors, whose data may be null.
inline void CopyBytes(void* to, const void* from, size_t bytes) {
  if (bytes > 0) std::memcpy(to, from, bytes);
}

// One element equal to zero: the zero point for quantized 8/16-bit tensors, else all bits 0.
inline void ZeroElement(const Tensor* t, uint8_t* element) {
  const size_t size = TensorTypeSize(t->type);
  std::memset(element, 0, size);
  if (t->quantization.empty()) return;
  const int32_t zp = t->zero_point();
  if (t->type == TensorType::kInt8 || t->type == TensorType::kUInt8) element[0] = static_cast<uint8_t>(zp);
  if (t->type == TensorType::kInt16) {
    const int16_t v = static_cast<int16_t>(zp);
    std::memcpy(element, &v, sizeof(v));
  }
}

}  // namespace edgerun::ops
