// LOCAL_RESPONSE_NORMALIZATION over the last dimension of a 4-D float input:
// x / (bias + alpha * sum of x^2 over the 2 * radius + 1 nearest channels) ^ beta.
#include <vector>

#include "kernels/reference/activation.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct LrnState {
  int radius = 0;
  float bias = 0, alpha = 0, beta = 0;
  std::vector<float> padded_squares;  // scratch of depth + 2 * radius values
};

Status Prepare(OpContext& ctx, LrnState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, ctx.input(0), "input", 4, 4));
  const auto* o = Options<tflite::LocalResponseNormalizationOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing LocalResponseNormalizationOptions");
  if (o->radius() < 0 || o->radius() > (1 << 20)) return ctx.Error("radius ", o->radius(), " is out of range");
  state.radius = o->radius();
  state.bias = o->bias();
  state.alpha = o->alpha();
  state.beta = o->beta();
  // Sized from the depth only when there is data: an empty tensor may declare any depth (fuzz_graph:
  // [0,1,1,2147483647] asked for 8 GB of scratch).
  const size_t depth = ctx.input(0)->num_elements() > 0 ? static_cast<size_t>(ctx.input(0)->dim(3)) : 0;
  state.padded_squares.assign(depth == 0 ? 0 : depth + 2 * static_cast<size_t>(state.radius), 0);
  return Status::Ok();
}

Status Eval(OpContext& ctx, LrnState& state) {
  const Tensor* input = ctx.input(0);
  const int64_t depth = input->dim(3);
  if (depth == 0 || input->num_elements() == 0) return Status::Ok();
  reference::LocalResponseNormalization(input->data_as<float>(), ctx.output(0)->data_as<float>(),
                                        input->num_elements() / depth, depth, state.radius, state.bias, state.alpha,
                                        state.beta, state.padded_squares.data());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLocalResponseNormalization() {
  return MakeBuiltinWithState<LrnState>(tflite::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION, 1, "float32", Prepare,
                                        Eval);
}

}  // namespace edgerun::ops
