// MAX_POOL_2D: maximum over each window (padding never wins).
#include "ops/pool_2d.h"

namespace edgerun::ops {
namespace {

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  reference::Pool2D<true>(state.params, input->shape, input->data_as<float>(), output->shape,
                          output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMaxPool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_MAX_POOL_2D, 3, "float32", PreparePool, Eval);
}

}  // namespace edgerun::ops
