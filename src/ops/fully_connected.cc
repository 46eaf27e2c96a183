// FULLY_CONNECTED: output = input x weights^T + bias. Weights are [units, depth]; the input is
// read as [batches, depth] with batches = elements / depth. keep_num_dims keeps the input's
// leading dims instead of flattening them.
#include "kernels/reference/conv.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct FcState {
  float act_min = 0, act_max = 0;
};

Status Prepare(OpContext& ctx, FcState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* weights = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights, "weights", 2, 2));
  const auto* o = Options<tflite::FullyConnectedOptions>(ctx);
  if (o && o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT) {
    return ctx.Error("shuffled weights format is not supported for float inputs");
  }
  Activation act;
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE, &act));
  if (act == Activation::kTanh || act == Activation::kSignBit) return ctx.Unsupported("unsupported fused activation");
  ActivationRange(act, &state.act_min, &state.act_max);
  const int units = weights->dim(0), depth = weights->dim(1);
  if (bias) {
    ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
    if (bias->num_elements() != units) return ctx.Error("bias ", Describe(bias), " must have ", units, " elements");
  }
  const int64_t elements = input->num_elements();
  if (depth == 0 ? elements != 0 : elements % depth != 0) {
    return ctx.Error("input ", Describe(input), " does not divide into rows of ", depth, " (weights ",
                     Describe(weights), ")");
  }
  if (o && o->keep_num_dims()) {
    if (input->rank() == 0 || input->shape.back() != depth) {
      return ctx.Error("keep_num_dims needs the input's last dimension to be ", depth, ", got ", Describe(input));
    }
    Shape shape = input->shape;
    shape.back() = units;
    return ctx.ResizeOutput(0, shape);
  }
  const int64_t batches = depth == 0 ? 0 : elements / depth;
  return ctx.ResizeOutput(0, {static_cast<int32_t>(batches), units});
}

Status Eval(OpContext& ctx, FcState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* weights = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  const int units = weights->dim(0), depth = weights->dim(1);
  const int64_t batches = depth == 0 ? 0 : input->num_elements() / depth;
  reference::FullyConnected(state.act_min, state.act_max, batches, depth, units, input->data_as<float>(),
                            weights->data_as<float>(), bias ? bias->data_as<float>() : nullptr,
                            output->data_as<float>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFullyConnected() {
  return MakeBuiltinWithState<FcState>(tflite::BuiltinOperator_FULLY_CONNECTED, 14, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
