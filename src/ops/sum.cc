// SUM over the axes given by the second input; keep_dims keeps reduced dims as 1. Integers wrap
// on overflow. Quantized uint8 / int8 / int16 rescale the integer sum in float as TFLite's
// kernel does: round(sum * s_in / s_out - count * z_in * s_in / s_out) + z_out, saturated.
#include <cmath>

#include "kernels/optimized/reduce.h"
#include "ops/binary_op.h"
#include "ops/quant_arith_util.h"
#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state,
                                   {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                    TensorType::kInt8, TensorType::kInt16}));
  if (!IsQuantizedIntType(ctx.input(0)->type)) return Status::Ok();
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, ctx.input(0), "input"));
  return CheckQuantized(ctx, ctx.output(0), "output");
}

template <class T>
void SumQuantized(OpContext& ctx, const Tensor* input, Tensor* output, const ReduceState& state) {
  const int64_t n = output->num_elements();
  std::vector<int32_t> sums(static_cast<size_t>(n));
  optimized::ReduceSum(ctx.thread_pool(), input->shape, state.reduced, input->data_as<T>(), sums.data(), n,
                       /*from_first=*/true);
  const float scale = input->scale() / output->scale();
  const float bias = static_cast<float>(-input->zero_point()) * scale * static_cast<float>(state.reduced_count);
  const float lo = static_cast<float>(TypeMin(output->type)), hi = static_cast<float>(TypeMax(output->type));
  const float output_zero_point = static_cast<float>(output->zero_point());
  T* out = output->data_as<T>();
  for (int64_t i = 0; i < n; ++i) {
    const float value = std::round(static_cast<float>(sums[i]) * scale + bias) + output_zero_point;
    // NaN cannot occur (finite scales); clamping in float keeps the conversion defined.
    out[i] = static_cast<T>(std::clamp(value, lo, hi));
  }
}

template <class T>
void SumPlain(OpContext& ctx, const ReduceState& state) {
  Tensor* output = ctx.output(0);
  optimized::ReduceSum(ctx.thread_pool(), ctx.input(0)->shape, state.reduced, ctx.input(0)->data_as<T>(),
                       output->data_as<T>(), output->num_elements(), /*from_first=*/true);
}

Status Eval(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  switch (input->type) {
    case TensorType::kFloat32: SumPlain<float>(ctx, state); break;
    case TensorType::kInt32: SumPlain<int32_t>(ctx, state); break;
    case TensorType::kInt64: SumPlain<int64_t>(ctx, state); break;
    case TensorType::kUInt8: SumQuantized<uint8_t>(ctx, input, output, state); break;
    case TensorType::kInt8: SumQuantized<int8_t>(ctx, input, output, state); break;
    case TensorType::kInt16: SumQuantized<int16_t>(ctx, input, output, state); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSum() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_SUM, 2,
                                           "float32, int32, int64, quantized uint8 / int8 / int16", Prepare, Eval);
}

}  // namespace edgerun::ops
