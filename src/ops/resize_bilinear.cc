// RESIZE_BILINEAR to the [height, width] of the size tensor, with align_corners and
// half_pixel_centers. Quantized outputs keep the input's quantization (no rescaling).
#include "kernels/optimized/resize.h"
#include "kernels/reference/resize.h"
#include "ops/resize_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, reference::ResizeParams& params) {
  const auto* o = Options<tflite::ResizeBilinearOptions>(ctx);
  params.align_corners = o != nullptr && o->align_corners();
  params.half_pixel_centers = o != nullptr && o->half_pixel_centers();
  return PrepareResize(ctx, params, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16});
}

Status Eval(OpContext& ctx, reference::ResizeParams& params) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->num_elements() == 0 || output->num_elements() == 0) return Status::Ok();
  switch (input->type) {
    case TensorType::kUInt8:
      reference::ResizeBilinearWeighted<uint8_t>(params, input->shape, input->data_as<uint8_t>(), output->shape,
                                                 output->data_as<uint8_t>());
      break;
    case TensorType::kInt8:
      reference::ResizeBilinearInteger<int8_t>(params, input->shape, input->data_as<int8_t>(), output->shape,
                                               output->data_as<int8_t>());
      break;
    case TensorType::kInt16:
      optimized::ResizeBilinearInteger<int16_t>(ctx.thread_pool(), params, input->shape, input->data_as<int16_t>(),
                                                output->shape, output->data_as<int16_t>());
      break;
    default:
      optimized::ResizeBilinearFloat(ctx.thread_pool(), params, input->shape, input->data_as<float>(), output->shape,
                                     output->data_as<float>());
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterResizeBilinear() {
  return MakeBuiltinWithState<reference::ResizeParams>(tflite::BuiltinOperator_RESIZE_BILINEAR, 4,
                                                       "float32, uint8, int8, int16", Prepare, Eval);
}

}  // namespace edgerun::ops
