// SUB: a - b with broadcasting and a fused activation. Quantized uint8 / int8 / int16 follow
// TFLite's integer kernels bit for bit (the same schemes as ADD, and XNNPACK's in kLiteRtDefault
// mode for the 8-bit nodes LiteRT hands to it).
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

struct SubFn {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapSub(a, b);
    else return a - b;
  }
};

Status Prepare(OpContext& ctx, BinaryOpState& state) {
  AdoptInputType(ctx);
  ER_RETURN_IF_ERROR(PrepareArithmetic<tflite::SubOptions>(
      ctx, state,
      {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8, TensorType::kInt8,
       TensorType::kInt16}));
  const auto* options = Options<tflite::SubOptions>(ctx);
  // Without options TFLite's parameters are zeroed: general scales.
  return PrepareQuantizedAddSub(ctx, state, options ? options->pot_scale_int16() : false, /*subtract=*/true);
}

Status Eval(OpContext& ctx, BinaryOpState& state) {
  const reference::QuantizedBinaryParams& q = state.q;
  switch (state.kind) {
    case BinaryKind::kQuantized:
      if (EvalInt16SameShapeOrRow(ctx, q, 1)) return Status::Ok();
      if (EvalQuantized8BitAddSubByInputTables(ctx, q, /*subtract=*/true)) return Status::Ok();
      return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::QuantizedAddSub(a, b, q, true); });
    case BinaryKind::kXnnpackAddSub: {
      const quant::xnn::AddParams& p = state.xnn_add;
      if (EvalXnnpackAddSubSameShape(ctx, p)) return Status::Ok();
      return EvalQuantizedBinary(ctx, [&p](int32_t a, int32_t b) { return quant::xnn::Add(p, a, b); });
    }
    case BinaryKind::kPotInt16:
      return EvalQuantizedBinary(ctx, [&q](int32_t a, int32_t b) { return reference::PotInt16AddSub(a, b, q, true); });
    default: return EvalArithmetic(ctx, state, SubFn{});
  }
}

}  // namespace

OpRegistration RegisterSub() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_SUB, 5,
                                             "float32, int32, int64, int16, quantized uint8 / int8 / int16", Prepare,
                                             Eval);
}

}  // namespace edgerun::ops
