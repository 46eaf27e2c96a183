// AVERAGE_POOL_2D: mean over each window, counting only input elements inside the image.
// Quantized types average the stored integers (rounding half away from zero), as TFLite does.
#include "kernels/optimized/pooling.h"
#include "ops/pool_2d.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, PoolState& state) {
  return PreparePool(ctx, state, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16});
}

template <class T>
Status EvalQuantized(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (!optimized::AveragePoolQuantized<T>(ctx.thread_pool(), state.params, input->shape, input->data_as<T>(),
                                          output->shape, output->data_as<T>())) {
    return ctx.Error("a pooling window covers no input element");
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  switch (input->type) {
    case TensorType::kUInt8: return EvalQuantized<uint8_t>(ctx, state);
    case TensorType::kInt8: return EvalQuantized<int8_t>(ctx, state);
    case TensorType::kInt16: return EvalQuantized<int16_t>(ctx, state);
    default:
      optimized::Pool2DF32<false>(ctx.thread_pool(), state.params, input->shape, input->data_as<float>(),
                                  output->shape, output->data_as<float>());
      return Status::Ok();
  }
}

}  // namespace

OpRegistration RegisterAveragePool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_AVERAGE_POOL_2D, 3, "float32, uint8, int8, int16",
                                         Prepare, Eval);
}

}  // namespace edgerun::ops
