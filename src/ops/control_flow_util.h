// Passing values into and out of called subgraphs (WHILE, IF, CALL_ONCE, STABLEHLO_COMPOSITE)
// and reading resource ids.
#pragma once

#include <vector>

#include "ops/op_util.h"

namespace edgerun::ops {

// The subgraph an op refers to by index: checked to exist and not to be the caller itself.
Status CalledSubgraph(OpContext& ctx, int64_t index, const char* role, Subgraph** out);

// Copies `src` into `dst` (an op output, or a called subgraph's input): a dynamic destination
// takes the source's shape; a planned one must already have it.
Status CopyTensor(OpContext& ctx, const Tensor& src, Tensor* dst);

// Gives the callee's inputs the shapes of `values`, (re)allocates it when needed, copies the data.
Status PassToSubgraph(OpContext& ctx, Subgraph& callee, const std::vector<const Tensor*>& values);

// Sets the callee's input shapes from `values` and allocates it (for prepare).
Status PrepareSubgraph(OpContext& ctx, Subgraph& callee, const std::vector<const Tensor*>& values);

// True when an output of the callee has no shape until it runs.
bool HasDynamicOutputs(Subgraph& callee);

// Resource tensors hold an int32 id.
Status ReadResourceId(OpContext& ctx, const Tensor* t, int32_t* id);
Status WriteResourceId(Tensor* t, int32_t id);

}  // namespace edgerun::ops
