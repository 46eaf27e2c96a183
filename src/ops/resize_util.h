// Shared prepare of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: a 4-D NHWC input and a 2-element
// int32 size tensor (new height, new width). A constant size sizes the output at prepare; a
// computed one makes the output dynamic and it is sized at each eval.
#pragma once

#include "kernels/reference/resize.h"
#include "ops/op_util.h"

namespace edgerun::ops {

// Checks the inputs and sizes the output (or marks it dynamic). `types`: accepted input types.
Status PrepareResize(OpContext& ctx, const reference::ResizeParams& params, std::initializer_list<TensorType> types);
// Sizes a dynamic output from the size tensor's current values (no-op for a static output).
Status ResizeDynamicOutput(OpContext& ctx);

}  // namespace edgerun::ops
