// MEAN over the axes given by the second input; keep_dims keeps reduced dims as 1.
#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state, {TensorType::kFloat32}));
  return CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output");
}

Status Eval(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  float* out = output->data_as<float>();
  const float* in = input->data_as<float>();
  const int64_t n = output->num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = 0.0f;
  reference::ForEachReduce(input->shape, state.reduced, [&](int64_t o, int64_t i) { out[o] += in[i]; });
  const float count = static_cast<float>(state.reduced_count);
  for (int64_t i = 0; i < n; ++i) out[i] /= count;
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMean() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_MEAN, 3, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
