// Shared prepare of AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D.
#pragma once

#include "kernels/reference/pooling.h"
#include "ops/conv_util.h"

namespace edgerun::ops {

struct PoolState {
  reference::PoolParams params;
  Activation activation = Activation::kNone;
};

// Checks a 4-D NHWC input of one of `types` and an output of the same type, reads the
// Pool2DOptions, sizes the output and fills the window geometry and the activation range (float
// and, for quantized outputs, integer). Quantized pooling needs no rescaling: like TFLite it
// assumes the input and output share scale and zero point.
Status PreparePool(OpContext& ctx, PoolState& state, std::initializer_list<TensorType> types);

}  // namespace edgerun::ops
