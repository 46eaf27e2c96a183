// Shared prepare of the reductions (MEAN, SUM, REDUCE_MAX, ...): axes from the second input,
// keep_dims from ReducerOptions.
#pragma once

#include "kernels/reference/reduce.h"
#include "ops/op_util.h"

namespace edgerun::ops {

struct ReduceState {
  std::vector<bool> reduced;  // per input dimension
  int64_t reduced_count = 1;  // input elements per output element
};

// Checks inputs, sizes the output (or marks it dynamic when the axes are not constant).
Status PrepareReduce(OpContext& ctx, ReduceState& state, std::initializer_list<TensorType> types);
// For dynamic outputs: computes the axes and sizes the output at eval time.
Status ResolveReduce(OpContext& ctx, ReduceState& state);

}  // namespace edgerun::ops
