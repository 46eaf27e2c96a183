// RESIZE_BILINEAR to the [height, width] of the size tensor, with align_corners and
// half_pixel_centers. Quantized outputs keep the input's quantization (no rescaling). In
// kLiteRtDefault mode 8-bit nodes with a constant size (those LiteRT hands to XNNPACK) use
// XNNPACK's 11-bit weights and rounding.
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/resize.h"
#include "kernels/reference/resize.h"
#include "ops/resize_util.h"
#include "ops/xnnpack_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct ResizeBilinearState {
  reference::ResizeParams params;
  bool xnnpack = false;
  std::vector<quant::xnn::BilinearTap> ys, xs;  // XNNPACK's taps, computed at prepare
};

Status Prepare(OpContext& ctx, ResizeBilinearState& state) {
  const auto* o = Options<tflite::ResizeBilinearOptions>(ctx);
  state.params.align_corners = o != nullptr && o->align_corners();
  state.params.half_pixel_centers = o != nullptr && o->half_pixel_centers();
  ER_RETURN_IF_ERROR(
      PrepareResize(ctx, state.params, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  state.xnnpack = ctx.input(1)->is_constant() && XnnpackTakes8Bit(ctx, 1);
  if (state.xnnpack) {
    const Shape& in = ctx.input(0)->shape;
    const Shape& out = ctx.output(0)->shape;
    state.ys = quant::xnn::BilinearTaps(in[1], out[1], state.params.align_corners, state.params.half_pixel_centers);
    state.xs = quant::xnn::BilinearTaps(in[2], out[2], state.params.align_corners, state.params.half_pixel_centers);
  }
  return Status::Ok();
}

// Output rows of every batch spread over the interpreter's threads.
template <class T>
void EvalXnnpack(const OpContext& ctx, const ResizeBilinearState& state, const Tensor* input, Tensor* output) {
  const Shape& in = input->shape;
  const int64_t in_image = static_cast<int64_t>(in[1]) * in[2] * in[3];
  const int64_t out_h = output->shape[1];
  const int64_t out_row = static_cast<int64_t>(output->shape[2]) * output->shape[3];
  const T* in_data = input->data_as<T>();
  T* out_data = output->data_as<T>();
  optimized::ParallelFor(ctx.thread_pool(), in[0] * out_h, [&](int64_t row) {
    const int64_t b = row / out_h, y = row % out_h;
    optimized::ResizeBilinear8Row<T>(in_data + b * in_image, in[2], in[3], state.ys[static_cast<size_t>(y)],
                                      state.xs, out_data + row * out_row);
  });
}

Status Eval(OpContext& ctx, ResizeBilinearState& state) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->num_elements() == 0 || output->num_elements() == 0) return Status::Ok();
  const reference::ResizeParams& params = state.params;
  switch (input->type) {
    case TensorType::kUInt8:
      if (state.xnnpack) {
        EvalXnnpack<uint8_t>(ctx, state, input, output);
      } else {
        reference::ResizeBilinearWeighted<uint8_t>(params, input->shape, input->data_as<uint8_t>(), output->shape,
                                                   output->data_as<uint8_t>());
      }
      break;
    case TensorType::kInt8:
      if (state.xnnpack) {
        EvalXnnpack<int8_t>(ctx, state, input, output);
      } else {
        reference::ResizeBilinearInteger<int8_t>(params, input->shape, input->data_as<int8_t>(), output->shape,
                                                 output->data_as<int8_t>());
      }
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
  return MakeBuiltinWithState<ResizeBilinearState>(tflite::BuiltinOperator_RESIZE_BILINEAR, 4,
                                                   "float32, uint8, int8, int16", Prepare, Eval);
}

}  // namespace edgerun::ops
