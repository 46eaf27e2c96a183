// ADD: a + b with broadcasting and a fused activation. Quantized uint8 / int8 / int16 follow
// TFLite's integer kernels bit for bit: general scales (20 or 15 bits of headroom, one multiplier
// per input) and, for int16 with power-of-two scales, the shift-only path. In kLiteRtDefault mode
// the 8-bit nodes LiteRT hands to XNNPACK use its arithmetic (quant/xnnpack_compat.h).
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

struct AddFn {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapAdd(a, b);
    else return a + b;
  }
};

Status Prepare(OpContext& ctx, BinaryOpState& state) {
  AdoptInputType(ctx);
  ER_RETURN_IF_ERROR(PrepareArithmetic<tflite::AddOptions>(
      ctx, state,
      {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8, TensorType::kInt8,
       TensorType::kInt16}));
  const auto* options = Options<tflite::AddOptions>(ctx);
  // Without options TFLite's parameters are zeroed: general scales.
  return PrepareQuantizedAddSub(ctx, state, options ? options->pot_scale_int16() : false, /*subtract=*/false);
}

Status Eval(OpContext& ctx, BinaryOpState& state) {
  const reference::QuantizedBinaryParams& q = state.q;
  switch (state.kind) {
    case BinaryKind::kQuantized:
      return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::QuantizedAddSub(a, b, q, false); });
    case BinaryKind::kXnnpackAddSub: {
      const quant::xnn::AddParams& p = state.xnn_add;
      if (EvalXnnpackAddSubSameShape(ctx, p)) return Status::Ok();
      return EvalQuantizedBinary(ctx, [&p](int32_t a, int32_t b) { return quant::xnn::Add(p, a, b); });
    }
    case BinaryKind::kPotInt16:
      return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::PotInt16AddSub(a, b, q, false); });
    default: return EvalArithmetic(ctx, state, AddFn{});
  }
}

}  // namespace

OpRegistration RegisterAdd() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_ADD, 5,
                                             "float32, int32, int64, int16, quantized uint8 / int8 / int16", Prepare,
                                             Eval);
}

}  // namespace edgerun::ops
