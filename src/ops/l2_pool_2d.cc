// L2_POOL_2D: sqrt of the mean of squares over each window (covered cells only), then the
// fused activation. float32 only, like TFLite's builtin kernel.
#include "ops/pool_2d.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, PoolState& state) { return PreparePool(ctx, state, {TensorType::kFloat32}); }

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  reference::L2Pool2D(state.params, input->shape, input->data_as<float>(), output->shape, output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterL2Pool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_L2_POOL_2D, 1, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
