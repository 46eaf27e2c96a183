// SOFTMAX over the last dimension: exp((x - max) * beta) / sum.
#include <cmath>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct SoftmaxState {
  float beta = 1.0f;
};

Status Prepare(OpContext& ctx, SoftmaxState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32}));
  if (ctx.input(0)->rank() < 1) return ctx.Error("input ", Describe(ctx.input(0)), " must have rank 1 or more");
  const auto* o = Options<tflite::SoftmaxOptions>(ctx);
  state.beta = o ? o->beta() : 1.0f;
  return Status::Ok();
}

Status Eval(OpContext& ctx, SoftmaxState& state) {
  const Tensor* input = ctx.input(0);
  const int64_t depth = input->shape.back();
  if (depth == 0) return Status::Ok();
  const int64_t rows = input->num_elements() / depth;
  const float* in = input->data_as<float>();
  float* out = ctx.output(0)->data_as<float>();
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    float max = in[0];
    for (int64_t i = 1; i < depth; ++i) max = std::max(max, in[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < depth; ++i) {
      out[i] = std::exp((in[i] - max) * state.beta);
      sum += out[i];
    }
    for (int64_t i = 0; i < depth; ++i) out[i] /= sum;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSoftmax() {
  return MakeBuiltinWithState<SoftmaxState>(tflite::BuiltinOperator_SOFTMAX, 3, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
