// ADD: a + b with broadcasting and a fused activation. Quantized uint8 / int8 / int16 follow
// TFLite's integer kernels bit for bit: general scales (20 or 15 bits of headroom, one multiplier
// per input) and, for int16 with power-of-two scales, the shift-only path. In kLiteRtDefault mode
// the 8-bit nodes LiteRT hands to XNNPACK use its arithmetic (quant/xnnpack_compat.h).
#include "ops/binary_op.h"
#include "ops/row_bands.h"
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/integer_arithmetic.h"

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
      if (EvalInt16SameShapeOrRow(ctx, q, 0)) return Status::Ok();
      if (EvalQuantized8BitAddSubByInputTables(ctx, q, /*subtract=*/false)) return Status::Ok();
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

// ADD by bands of rows or ranges of pixels (ops/row_bands.h): the residual ADD after a fused block,
// one operand the chain's band, the other a tensor of the same shape read at the same pixels. Float32, and 8-bit
// with XNNPACK's arithmetic (the vector kernel) or TFLite's; the same arithmetic as Eval.
class AddRows final : public PointwiseRowKernel {
 public:
  AddRows(BinaryOpState* state, int band_input) : s_(*state), band_input_(band_input) {}

  void EvalPixels(const OpContext& ctx, const void* in, void* out, int64_t first, int64_t count) const override {
    const Tensor* other = ctx.input(1 - band_input_);
    const Tensor* output = ctx.output(0);
    const int64_t pixel = output->dim(3);
    const int64_t n = pixel * count;
    const size_t value = TensorTypeSize(output->type);
    // Input 0 and 1 in the op's order (8-bit: each has its own multiplier).
    const void* side = static_cast<const uint8_t*>(other->data) + first * pixel * static_cast<int64_t>(value);
    const void* a = band_input_ == 0 ? in : side;
    const void* b = band_input_ == 0 ? side : in;
    if (output->type == TensorType::kFloat32) {
      float lo, hi;
      ActivationRange(s_.activation, &lo, &hi);
      const auto* x = static_cast<const float*>(a);
      const auto* y = static_cast<const float*>(b);
      auto* o = static_cast<float*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = std::min(std::max(x[i] + y[i], lo), hi);
    } else if (s_.kind == BinaryKind::kXnnpackAddSub) {
      const quant::xnn::AddParams& p = s_.xnn_add;
      const optimized::AddI8Args args{p.a_multiplier, p.b_multiplier, static_cast<int32_t>(p.bias), p.shift,
                                      p.output_zero_point, p.min, p.max, output->type == TensorType::kUInt8};
      optimized::ActiveKernels().add_i8(a, b, n, args, out);
    } else if (output->type == TensorType::kUInt8) {
      Quantized<uint8_t>(a, b, n, out);
    } else {
      Quantized<int8_t>(a, b, n, out);
    }
  }

 private:
  template <class T>
  void Quantized(const void* a, const void* b, int64_t n, void* out) const {
    const auto* x = static_cast<const T*>(a);
    const auto* y = static_cast<const T*>(b);
    auto* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(reference::QuantizedAddSub(x[i], y[i], s_.q, false));
  }

  const BinaryOpState& s_;
  const int band_input_;
};

}  // namespace

std::unique_ptr<RowKernel> MakeAddRowKernel(const OpContext& ctx, int band_input) {
  BinaryOpState* state = OwnState<BinaryOpState>(ctx);
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  if (state == nullptr || a == nullptr || b == nullptr || (band_input != 0 && band_input != 1)) return nullptr;
  if (a->shape != out->shape || b->shape != out->shape || out->dim(0) != 1 || a->type != out->type) return nullptr;
  const bool supported =
      (out->type == TensorType::kFloat32 && state->kind == BinaryKind::kPlain) ||
      ((out->type == TensorType::kUInt8 || out->type == TensorType::kInt8) &&
       ((state->kind == BinaryKind::kXnnpackAddSub && optimized::ActiveKernels().add_i8 != nullptr &&
         state->xnn_add.bias >= INT32_MIN && state->xnn_add.bias <= INT32_MAX) ||
        state->kind == BinaryKind::kQuantized));
  if (!supported) return nullptr;
  return std::make_unique<AddRows>(state, band_input);
}

OpRegistration RegisterAdd() {
  return MakeBuiltinWithState<BinaryOpState>(tflite::BuiltinOperator_ADD, 5,
                                             "float32, int32, int64, int16, quantized uint8 / int8 / int16", Prepare,
                                             Eval);
}

}  // namespace edgerun::ops
