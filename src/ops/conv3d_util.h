// Options of CONV_3D and CONV_3D_TRANSPOSE (Conv3DOptions) turned into kernel parameters.
#pragma once

#include "kernels/reference/conv3d.h"
#include "ops/op_util.h"

namespace edgerun::ops {

// Reads strides, dilations and the activation; checks they are valid.
Status ParseConv3DOptions(const OpContext& ctx, tflite::Padding* padding, reference::Conv3DParams* params);

}  // namespace edgerun::ops
