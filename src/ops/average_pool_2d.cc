// AVERAGE_POOL_2D: mean over each window, counting only input elements inside the image.
#include "ops/pool_2d.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  reference::Pool2D<false>(state.params, input->shape, input->data_as<float>(), output->shape,
                           output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterAveragePool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_AVERAGE_POOL_2D, 3, "float32", PreparePool, Eval);
}

}  // namespace edgerun::ops
