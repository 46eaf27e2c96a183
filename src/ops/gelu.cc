// GELU: 0.5 * x * (1 + erf(x / sqrt(2))), computed as 0.5 * x * erfc(-x / sqrt(2)); with
// `approximate`, 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). uint8/int8 through a
// table built at prepare, as TFLite.
#include <cmath>

#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

constexpr float kSqrt1Over2 = 0.70710678118654752440f;
constexpr float kSqrt2OverPi = 0.79788456080286535588f;

float GeluExact(float x) { return 0.5f * x * std::erfc(x * -kSqrt1Over2); }
float GeluApproximate(float x) { return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x))); }

struct GeluState {
  bool approximate = false;
  Lut8State lut;
};

Status Prepare(OpContext& ctx, GeluState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8}));
  const auto* o = Options<tflite::GeluOptions>(ctx);
  state.approximate = o != nullptr && o->approximate();
  const Tensor* input = ctx.input(0);
  if (IsQuantized8(input->type)) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, ctx.output(0), "output"));
    PopulateLut8(input, ctx.output(0), state.approximate ? GeluApproximate : GeluExact, &state.lut);
  }
  return Status::Ok();
}

Status Eval(OpContext& ctx, GeluState& state) {
  if (IsQuantized8(ctx.input(0)->type)) {
    ApplyLut8(ctx, state.lut);
  } else if (state.approximate) {
    // x^3 as x * x * x, then the same expression as the table's.
    MapUnary<float>(ctx, [](float x) {
      const float cube = x * x * x;
      return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * cube)));
    });
  } else {
    MapUnary<float>(ctx, GeluExact);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterGelu() {
  return MakeBuiltinWithState<GeluState>(tflite::BuiltinOperator_GELU, 2, "float32, uint8, int8", Prepare, Eval);
}

}  // namespace edgerun::ops
