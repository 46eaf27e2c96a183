// MAX_POOL_2D: maximum over each window (padding never wins), then the fused activation.
#include "kernels/optimized/pooling.h"
#include "ops/pool_2d.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, PoolState& state) {
  return PreparePool(ctx, state, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16});
}

template <class T>
void EvalQuantized(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  optimized::MaxPoolQuantized<T>(ctx.thread_pool(), state.params, input->shape, input->data_as<T>(), output->shape,
                                 output->data_as<T>());
}

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  switch (input->type) {
    case TensorType::kUInt8: EvalQuantized<uint8_t>(ctx, state); break;
    case TensorType::kInt8: EvalQuantized<int8_t>(ctx, state); break;
    case TensorType::kInt16: EvalQuantized<int16_t>(ctx, state); break;
    default:
      optimized::Pool2DF32<true>(ctx.thread_pool(), state.params, input->shape, input->data_as<float>(),
                                 output->shape, output->data_as<float>());
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMaxPool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_MAX_POOL_2D, 3, "float32, uint8, int8, int16",
                                         Prepare, Eval);
}

}  // namespace edgerun::ops
