// RESIZE_NEAREST_NEIGHBOR to the [height, width] of the size tensor, with align_corners and
// half_pixel_centers; copies whole pixels, so every element type works.
#include "kernels/reference/resize.h"
#include "ops/resize_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, reference::ResizeParams& params) {
  const auto* o = Options<tflite::ResizeNearestNeighborOptions>(ctx);
  params.align_corners = o != nullptr && o->align_corners();
  params.half_pixel_centers = o != nullptr && o->half_pixel_centers();
  return PrepareResize(ctx, params,
                       {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16,
                        TensorType::kInt32, TensorType::kInt64, TensorType::kBool});
}

Status Eval(OpContext& ctx, reference::ResizeParams& params) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->num_elements() == 0 || output->num_elements() == 0) return Status::Ok();
  if (input->type == TensorType::kUInt8 && !params.align_corners && !params.half_pixel_centers) {
    reference::ResizeNearestNeighborFixedPoint(input->shape, input->data_as<uint8_t>(), output->shape,
                                               output->data_as<uint8_t>());
    return Status::Ok();
  }
  const size_t element_size = TensorTypeSize(input->type);
  reference::ResizeNearestNeighbor(params, input->shape, input->data, output->shape, output->data, element_size);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterResizeNearestNeighbor() {
  return MakeBuiltinWithState<reference::ResizeParams>(tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, 4,
                                                       "float32, uint8, int8, int16, int32, int64, bool", Prepare,
                                                       Eval);
}

}  // namespace edgerun::ops
