// Geometry shared by the convolution ops: output size and padding from the options.
#pragma once

#include "kernels/reference/conv.h"
#include "ops/op_util.h"

namespace edgerun::ops {

struct ConvGeometry {
  tflite::Padding padding = tflite::Padding_SAME;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType_NONE;
};

// Validates strides/dilations and the activation, computes the output height/width of an NHWC
// input with a kh x kw window, and fills params (strides, dilations, padding, clamp range).
Status PrepareConvGeometry(const OpContext& ctx, const ConvGeometry& g, const Tensor* input, int kh, int kw,
                           reference::ConvParams* params, int* out_h, int* out_w, Activation* activation);

}  // namespace edgerun::ops
