// Shared code of SELECT and SELECT_V2: out = condition ? x : y, element by element. SELECT (v1)
// takes a condition of the inputs' shape, a scalar, or a vector along dimension 0; SELECT_V2
// broadcasts all three. Values are copied as bytes, so every fixed-size type works.
#pragma once

#include <cstring>

#include "ops/elementwise_util.h"

namespace edgerun::ops::elementwise {

struct SelectState {
  bool rows = false;  // v1: one condition per slice along dimension 0 (or one for everything)
};

inline Status PrepareSelect(OpContext& ctx, SelectState& state, bool broadcast) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* cond = ctx.input(0);
  const Tensor* x = ctx.input(1);
  const Tensor* y = ctx.input(2);
  Tensor* out = ctx.output(0);
  state = SelectState();
  if (cond->type != TensorType::kBool) return ctx.Error("condition ", Describe(cond), " must be bool");
  ER_RETURN_IF_ERROR(CheckSameType(ctx, x, y, "x and y"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, x, out, "x and output"));
  if (!IsFixedSizeType(x->type) || TensorTypeSize(x->type) == 0) {
    return ctx.Unsupported("x ", Describe(x), ": type ", TensorTypeName(x->type), " is not supported");
  }
  // TFLite keeps the output's own shape when everything holds a single value.
  if (cond->num_elements() == 1 && x->num_elements() == 1 && y->num_elements() == 1 && out->num_elements() == 1) {
    return ctx.ResizeOutput(0, out->shape);
  }
  if (cond->shape == x->shape && x->shape == y->shape) return ctx.ResizeOutput(0, x->shape);
  if (!broadcast) {
    const bool scalar = cond->rank() == 0;
    const bool per_row = cond->rank() == 1 && x->rank() >= 1 && cond->dim(0) == x->dim(0);
    if (!scalar && !per_row) {
      return ctx.Error("condition ", Describe(cond), " must have the shape of x ", Describe(x),
                       ", be a scalar, or be a vector of x's first dimension");
    }
    if (x->shape != y->shape) return ctx.Error("x ", Describe(x), " and y ", Describe(y), " must have the same shape");
    state.rows = true;
    return ctx.ResizeOutput(0, x->shape);
  }
  Shape xy, shape;
  if (!BroadcastShape(x->shape, y->shape, &xy) || !BroadcastShape(cond->shape, xy, &shape)) {
    return ctx.Error("shapes ", ShapeToString(cond->shape), ", ", ShapeToString(x->shape), " and ",
                     ShapeToString(y->shape), " cannot be broadcast together");
  }
  return ctx.ResizeOutput(0, shape);
}

inline Status EvalSelect(OpContext& ctx, const SelectState& state) {
  const Tensor* cond = ctx.input(0);
  const Tensor* x = ctx.input(1);
  const Tensor* y = ctx.input(2);
  Tensor* out = ctx.output(0);
  const size_t size = TensorTypeSize(x->type);
  const uint8_t* c = cond->data_as<uint8_t>();  // any non-zero byte is true
  const uint8_t* xd = x->data_as<uint8_t>();
  const uint8_t* yd = y->data_as<uint8_t>();
  uint8_t* o = out->data_as<uint8_t>();
  const int64_t total = out->num_elements();
  if (total <= 0) return Status::Ok();
  if (total == 1) {  // includes the single-value case whose shapes may not broadcast
    std::memcpy(o, c[0] ? xd : yd, size);
    return Status::Ok();
  }
  if (state.rows) {
    const int64_t outer = cond->num_elements();
    const int64_t inner = outer > 0 ? total / outer : 0;
    for (int64_t i = 0; i < outer; ++i) {
      std::memcpy(o + i * inner * size, (c[i] ? xd : yd) + i * inner * size, inner * size);
    }
    return Status::Ok();
  }
  reference::math::ForEachBroadcast3(cond->shape, x->shape, y->shape, out->shape,
                                     [&](int64_t ic, int64_t ix, int64_t iy, int64_t io) {
                                       std::memcpy(o + io * size, c[ic] ? xd + ix * size : yd + iy * size, size);
                                     });
  return Status::Ok();
}

}  // namespace edgerun::ops::elementwise
