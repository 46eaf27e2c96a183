// Shared prepare and eval of the reductions (MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD,
// REDUCE_ANY, REDUCE_ALL): axes from the second input (negative and repeated axes allowed, an
// empty list reduces nothing, a scalar input ignores them), keep_dims from ReducerOptions.
#pragma once

#include <limits>

#include "kernels/optimized/reduce.h"
#include "kernels/reference/reduce.h"
#include "ops/op_util.h"

namespace edgerun::ops {

struct ReduceState {
  std::vector<bool> reduced;  // per input dimension
  std::vector<int> axes;      // the reduced dimensions, without repeats, in the order given
  int64_t reduced_count = 1;  // input elements per output element
  // Fixed-point rescaling of the quantized reductions (MEAN, SUM, REDUCE_PROD).
  int32_t multiplier = 0;
  int shift = 0;
};

// Checks inputs, sizes the output (or marks it dynamic when the axes are not constant). The
// output must have the input's type.
Status PrepareReduce(OpContext& ctx, ReduceState& state, std::initializer_list<TensorType> types);
// Computes the axes and, for dynamic outputs, sizes the output (call first in eval).
Status ResolveReduce(OpContext& ctx, ReduceState& state);

// For REDUCE_MAX / REDUCE_MIN on quantized types: input and output must share scale and zero point.
Status CheckSameQuantization(const OpContext& ctx);

// out[o] = the inputs of output o folded with `next` (the first one taken as is); outputs with no
// input get `empty`. `row`, when given, folds each contiguous run of reduced inputs with the
// same results (optimized::ExtremumRow).
template <class T, class Next, class Row>
void ReduceEach(OpContext& ctx, const ReduceState& state, T empty, Next next, Row row) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  // reference::ReduceFold's results on the optimized walk (runs of dimensions, threads).
  optimized::ReduceFoldOrderedRows(ctx.thread_pool(), input->shape, state.reduced, input->data_as<T>(),
                                   output->data_as<T>(), output->num_elements(), /*from_first=*/true, empty, next, row);
}

template <class T, class Next>
void ReduceEach(OpContext& ctx, const ReduceState& state, T empty, Next next) {
  ReduceEach(ctx, state, empty, next, optimized::SerialRow<T, T, Next>{next});
}

// REDUCE_MAX (kMax) and REDUCE_MIN: float32, int32, int64, uint8, int8, int16; quantized types
// compare stored values, so input and output must share scale and zero point. Elements fold in
// input order as acc = (acc > x) ? acc : x (or <), which is how TFLite treats NaN; an empty
// reduction gives lowest() (or max()).
Status PrepareReduceExtremum(OpContext& ctx, ReduceState& state);
template <bool kMax>
Status EvalReduceExtremum(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  auto run = [&](auto zero) {
    using T = decltype(zero);
    using Row = optimized::ExtremumRow<kMax, T>;
    // A lambda, not the function's address: the walk's per-element loops inline it.
    ReduceEach<T>(ctx, state, kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max(),
                  [](T acc, T x) { return Row::Next(acc, x); }, Row{});
  };
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: run(float{}); break;
    case TensorType::kInt32: run(int32_t{}); break;
    case TensorType::kInt64: run(int64_t{}); break;
    case TensorType::kUInt8: run(uint8_t{}); break;
    case TensorType::kInt8: run(int8_t{}); break;
    case TensorType::kInt16: run(int16_t{}); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
