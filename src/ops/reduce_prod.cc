// REDUCE_PROD: the product over the axes given by the second input; keep_dims keeps reduced dims
// as 1. Integers wrap on overflow; an empty reduction gives 1. Quantized int8 / int16 follow
// TFLite: every multiplication step is rescaled by s_in / s_out^(1/count) (64-bit fixed point)
// so that the running product stays in range.
#include <cmath>

#include "ops/binary_op.h"
#include "ops/quant_arith_util.h"
#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

bool IsQuantizedProd(const Tensor* input) { return IsQuantizedIntType(input->type) && !input->quantization.empty(); }

// The per-step rescaling for `count` factors: their product then carries s_in^count / s_out.
Status PrepareScaling(OpContext& ctx, ReduceState& state) {
  const double scaling = static_cast<double>(ctx.input(0)->scale()) /
                         std::pow(static_cast<double>(ctx.output(0)->scale()), 1.0 / state.reduced_count);
  ER_RETURN_IF_ERROR(QuantizeScale(ctx, scaling, &state.multiplier, &state.shift));
  // The 64-bit multiply shifts right by 15 - shift bits, which must stay positive.
  if (state.shift > 14) return ctx.Unsupported("REDUCE_PROD rescaling factor ", scaling, " is too large");
  return Status::Ok();
}

Status Prepare(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state,
                                   {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                    TensorType::kInt8, TensorType::kInt16}));
  const Tensor* input = ctx.input(0);
  if (!IsQuantizedProd(input)) return Status::Ok();
  if (input->type == TensorType::kUInt8) return ctx.Unsupported("quantized uint8 REDUCE_PROD (", Describe(input), ")");
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, input, "input"));
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, ctx.output(0), "output"));
  // With constant axes the rescaling is known now (eval computes it again for runtime axes).
  if (ctx.output(0)->is_dynamic() || input->num_elements() <= 0) return Status::Ok();
  return PrepareScaling(ctx, state);
}

template <class T>
void ProdQuantized(OpContext& ctx, const ReduceState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const int64_t n = output->num_elements();
  const int32_t input_zero_point = input->zero_point(), output_zero_point = output->zero_point();
  T* out = output->data_as<T>();
  if (input->num_elements() == 0) {
    // The empty product is 1.
    const float one = std::round(1.0f / output->scale()) + static_cast<float>(output_zero_point);
    const T value = static_cast<T>(std::clamp(one, static_cast<float>(std::numeric_limits<T>::min()),
                                              static_cast<float>(std::numeric_limits<T>::max())));
    std::fill_n(out, n, value);
    return;
  }
  const int32_t multiplier = state.multiplier;
  const int shift = state.shift;
  std::vector<int32_t> products(static_cast<size_t>(n));
  reference::ReduceFold(
      input->shape, state.reduced, input->data_as<T>(), products.data(), n, int32_t{0},
      [=](T x) { return int32_t{x} - input_zero_point; },
      [=](int32_t acc, T x) {
        return quant::MultiplyByQuantizedMultiplier(int64_t{acc} * (int32_t{x} - input_zero_point), multiplier, shift);
      });
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = int64_t{quant::MultiplyByQuantizedMultiplier(int64_t{products[i]}, multiplier, shift)} +
                      output_zero_point;
    out[i] = quant::SaturateCast<T>(v);
  }
}

template <class T>
void ProdPlain(OpContext& ctx, const ReduceState& state) {
  if constexpr (std::is_integral_v<T>) {
    ReduceEach<T>(ctx, state, T{1}, [](T acc, T x) { return WrapMul(acc, x); });
  } else {
    // Rows over the innermost axes many at a time (optimized::FoldRowsF32Fn), still in order.
    ReduceEach<T>(ctx, state, T{1}, [](T acc, T x) { return acc * x; },
                  optimized::InOrderRowF32<optimized::FoldKind::kMul>{});
  }
}

Status Eval(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  const Tensor* input = ctx.input(0);
  if (IsQuantizedProd(input)) {
    if (input->num_elements() > 0) ER_RETURN_IF_ERROR(PrepareScaling(ctx, state));
    if (input->type == TensorType::kInt8) ProdQuantized<int8_t>(ctx, state);
    else ProdQuantized<int16_t>(ctx, state);
    return Status::Ok();
  }
  switch (input->type) {
    case TensorType::kFloat32: ProdPlain<float>(ctx, state); break;
    case TensorType::kInt32: ProdPlain<int32_t>(ctx, state); break;
    case TensorType::kInt64: ProdPlain<int64_t>(ctx, state); break;
    case TensorType::kUInt8: ProdPlain<uint8_t>(ctx, state); break;
    case TensorType::kInt8: ProdPlain<int8_t>(ctx, state); break;
    case TensorType::kInt16: ProdPlain<int16_t>(ctx, state); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReduceProd() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_REDUCE_PROD, 2,
                                           "float32, int32, int64, uint8, int8, int16, quantized int8 / int16",
                                           Prepare, Eval);
}

}  // namespace edgerun::ops
