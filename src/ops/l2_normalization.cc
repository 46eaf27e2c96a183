// L2_NORMALIZATION over the last dimension: x / max(||x||, 1e-6). Quantized outputs have scale
// 1/128 (zero point 128 for uint8, 0 for int8); 1/||x|| is computed in fixed point as TFLite.
#include "kernels/reference/activation.h"
#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank 1 or more");
  const auto* o = Options<tflite::L2NormOptions>(ctx);
  if (o != nullptr && o->fused_activation_function() != tflite::ActivationFunctionType_NONE) {
    return ctx.Unsupported("a fused activation is not supported by L2_NORMALIZATION");
  }
  if (IsQuantized8(input->type)) {
    if (output->scale() != 1.0f / 128) {
      return ctx.Error("output ", Describe(output), " must have scale 1/128, has ", output->scale());
    }
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "output", input->type == TensorType::kUInt8 ? 128 : 0));
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const int64_t depth = input->shape.back();
  if (depth == 0 || input->num_elements() == 0) return Status::Ok();
  const int64_t rows = input->num_elements() / depth;
  switch (input->type) {
    case TensorType::kUInt8:
      reference::L2NormalizeQuantized<uint8_t>(input->data_as<uint8_t>(), output->data_as<uint8_t>(), rows, depth,
                                               input->zero_point());
      break;
    case TensorType::kInt8:
      reference::L2NormalizeQuantized<int8_t>(input->data_as<int8_t>(), output->data_as<int8_t>(), rows, depth,
                                              input->zero_point());
      break;
    default:
      reference::L2NormalizeFloat(input->data_as<float>(), output->data_as<float>(), rows, depth, 1e-6f);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterL2Normalization() {
  return MakeBuiltin(tflite::BuiltinOperator_L2_NORMALIZATION, 2, "float32, uint8, int8", Prepare, Eval);
}

}  // namespace edgerun::ops
