// Shared prepare of AVERAGE_POOL_2D and MAX_POOL_2D.
#pragma once

#include "kernels/reference/pooling.h"
#include "ops/conv_util.h"

namespace edgerun::ops {

struct PoolState {
  reference::PoolParams params;
  Activation activation = Activation::kNone;
};

Status PreparePool(OpContext& ctx, PoolState& state);

}  // namespace edgerun::ops
