// MEAN over the axes given by the second input; keep_dims keeps reduced dims as 1.
// float32 divides the float sum; int32 / int64 divide the (int64) sum, truncating. Quantized
// uint8 / int8 / int16 follow TFLite bit for bit: for 4-D uint8 / int8 with keep_dims over axes
// {1, 2} (global average pooling) its dedicated kernel (bias and multiplier derived in float),
// otherwise the integer kernel that folds 1 / count into the multiplier. An empty input gives
// NaN (float) or 0. In kLiteRtDefault mode 8-bit nodes with constant axes (those LiteRT hands to
// XNNPACK) use XNNPACK's float rescaling: (sum - count * z_in) * (s_in / (s_out * count)),
// rounded half to even.
//
// LiteRT.js 2.5.3 itself gives wrong int8 results when the reduced axes include the innermost
// non-trivial one (its sums count some 16-element blocks twice and others not at all, depending on
// the count); edgerun computes XNNPACK's intended arithmetic there (see tools/oracle_check).
#include <cmath>
#include <cstring>

#include "kernels/optimized/reduce.h"
#include "kernels/reference/reduce.h"
#include "ops/quant_arith_util.h"
#include "ops/reduce_util.h"
#include "ops/xnnpack_util.h"
#include "quant/arith_helpers.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct MeanState : ReduceState {
  bool xnnpack = false;  // 8-bit with XNNPACK's arithmetic
};

Status Prepare(OpContext& ctx, MeanState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state,
                                   {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                    TensorType::kInt8, TensorType::kInt16}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (!IsQuantizedIntType(input->type)) return Status::Ok();
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, input, "input"));
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, output, "output"));
  // The delegate needs constant int32 axes, at most a vector of them.
  const Tensor* axes = ctx.input(1);
  state.xnnpack = axes->is_constant() && axes->type == TensorType::kInt32 && axes->rank() <= 1 &&
                  axes->num_elements() > 0 && XnnpackTakes8Bit(ctx, 1);
  if (state.xnnpack) return Status::Ok();
  return QuantizeScale(ctx, static_cast<double>(input->scale()) / static_cast<double>(output->scale()),
                       &state.multiplier, &state.shift);
}

// Sums per output element in Acc (wrapping for integers), in input order: optimized::ReduceSum,
// which adds whole rows at a time (a global mean of 7x7x1280 int8 went 83 -> ~10 us; 8-bit rows
// on the ISA's add_rows_i8, ~4 us) and equals reference::ForEachReduce's sums (integer sums wrap,
// so their order does not matter anyway). Split over the pool where the node has it.
template <class T, class Acc>
std::vector<Acc> Sums(ThreadPool* pool, const Tensor* input, const ReduceState& state, int64_t out_count) {
  std::vector<Acc> sums(static_cast<size_t>(out_count), Acc{0});
  optimized::ReduceSum<T, Acc>(pool, input->shape, state.reduced, input->data_as<T>(), sums.data(), out_count,
                               /*from_first=*/false);
  return sums;
}

template <class T, class Acc>
void MeanPlain(ThreadPool* pool, const Tensor* input, Tensor* output, const ReduceState& state) {
  const int64_t n = output->num_elements();
  const std::vector<Acc> sums = Sums<T, Acc>(pool, input, state, n);
  T* out = output->data_as<T>();
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(sums[i] / static_cast<Acc>(state.reduced_count));
}

// TFLite's global-average-pooling kernel: sum of stored values * (s_in / (count * s_out)) in
// fixed point, plus a bias that carries both zero points, rounded in float.
template <class T>
void MeanSpatialQuantized(ThreadPool* pool, const Tensor* input, Tensor* output, const ReduceState& state) {
  const int64_t n = output->num_elements();
  const std::vector<int32_t> sums = Sums<T, int32_t>(pool, input, state, n);
  const float count = static_cast<float>(state.reduced_count);
  float zero_point_shift = static_cast<float>(input->zero_point()) * input->scale() / output->scale();
  zero_point_shift = zero_point_shift > 0 ? zero_point_shift + 0.5f : zero_point_shift - 0.5f;
  const int32_t bias = output->zero_point() - static_cast<int32_t>(zero_point_shift);
  const float real_scale = input->scale() / (count * output->scale());
  int32_t multiplier = 0;
  int shift = 0;
  quant::QuantizeMultiplier(real_scale, &multiplier, &shift);
  T* out = output->data_as<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = int64_t{quant::MultiplyByQuantizedMultiplier(sums[i], multiplier, shift)} + bias;
    out[i] = quant::SaturateCast<T>(v);
  }
}

// TFLite's general integer kernel: (sum - count * z_in) * (s_in / s_out) / count + z_out, with
// 1 / count folded into the multiplier (losing a little precision for large counts, as TFLite).
template <class T>
void MeanQuantized(ThreadPool* pool, const Tensor* input, Tensor* output, const ReduceState& state) {
  const int64_t n = output->num_elements();
  const std::vector<int32_t> sums = Sums<T, int32_t>(pool, input, state, n);
  const int64_t count = state.reduced_count;
  int shift = 63 - __builtin_clzll(static_cast<uint64_t>(count));  // floor(log2(count))
  shift = std::min(shift, 32);
  shift = std::max(0, std::min(shift, 31 + state.shift));
  const int32_t multiplier = static_cast<int32_t>((static_cast<int64_t>(state.multiplier) << shift) / count);
  const int output_shift = state.shift - shift;
  T* out = output->data_as<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int32_t centered = static_cast<int32_t>(sums[i] - int64_t{input->zero_point()} * count);
    const int64_t v = int64_t{quant::MultiplyByQuantizedMultiplier(centered, multiplier, output_shift)} +
                      output->zero_point();
    out[i] = quant::SaturateCast<T>(v);
  }
}

// XNNPACK's 8-bit mean: the centered sum rescaled in float, rounded half to even.
template <class T>
void MeanXnnpack(ThreadPool* pool, const Tensor* input, Tensor* output, const ReduceState& state) {
  const int64_t n = output->num_elements();
  const std::vector<int32_t> sums = Sums<T, int32_t>(pool, input, state, n);
  const int64_t count = state.reduced_count;
  const float scale = quant::xnn::MeanScale(input->scale(), output->scale(), count);
  constexpr int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  T* out = output->data_as<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t centered = int64_t{sums[i]} - count * input->zero_point();
    out[i] = static_cast<T>(quant::xnn::Mean(centered, scale, output->zero_point(), lo, hi));
  }
}

// TFLite runs its global-average-pooling kernel for 4-D uint8 / int8 with keep_dims over
// exactly the axes {1, 2}.
bool IsSpatialMean(const OpContext& ctx, const ReduceState& state) {
  const auto* o = Options<tflite::ReducerOptions>(ctx);
  const TensorType type = ctx.input(0)->type;
  return (type == TensorType::kUInt8 || type == TensorType::kInt8) && o && o->keep_dims() &&
         ctx.input(0)->rank() == 4 && state.axes.size() == 2 && state.reduced[1] && state.reduced[2];
}

template <class T>
void MeanQuantizedDispatch(OpContext& ctx, const MeanState& state) {
  if (state.xnnpack) {
    MeanXnnpack<T>(ctx.thread_pool(), ctx.input(0), ctx.output(0), state);
  } else if (IsSpatialMean(ctx, state)) {
    MeanSpatialQuantized<T>(ctx.thread_pool(), ctx.input(0), ctx.output(0), state);
  } else {
    MeanQuantized<T>(ctx.thread_pool(), ctx.input(0), ctx.output(0), state);
  }
}

Status Eval(OpContext& ctx, MeanState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->num_elements() == 0) {
    // No element to average: TFLite writes NaN, which is 0 for the integer types.
    if (output->type == TensorType::kFloat32) {
      std::fill_n(output->data_as<float>(), output->num_elements(), std::numeric_limits<float>::quiet_NaN());
    } else if (output->bytes > 0) {
      std::memset(output->data, 0, output->bytes);
    }
    return Status::Ok();
  }
  switch (input->type) {
    case TensorType::kFloat32:
      optimized::MeanFloat(ctx.thread_pool(), input->shape, state.reduced, state.reduced_count,
                           input->data_as<float>(), output->data_as<float>(), output->num_elements());
      break;
    case TensorType::kInt32: MeanPlain<int32_t, int64_t>(ctx.thread_pool(), input, output, state); break;
    case TensorType::kInt64: MeanPlain<int64_t, int64_t>(ctx.thread_pool(), input, output, state); break;
    case TensorType::kUInt8: MeanQuantizedDispatch<uint8_t>(ctx, state); break;
    case TensorType::kInt8: MeanQuantizedDispatch<int8_t>(ctx, state); break;
    case TensorType::kInt16: MeanQuantized<int16_t>(ctx.thread_pool(), input, output, state); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMean() {
  return MakeBuiltinWithState<MeanState>(tflite::BuiltinOperator_MEAN, 3,
                                           "float32, int32, int64, quantized uint8 / int8 / int16", Prepare, Eval);
}

}  // namespace edgerun::ops
