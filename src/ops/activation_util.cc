#include "ops/activation_util.h"

#include <cmath>
#include <limits>

#include "kernels/optimized/gemm.h"
#include "kernels/reference/activation.h"
#include "quant/fixed_point.h"
#include "quant/lut.h"

namespace edgerun::ops {

Status RequireScale(const OpContext& ctx, const Tensor* t, const char* role) {
  const float scale = t->scale();
  if (scale > 0.0f && std::isfinite(scale)) return Status::Ok();
  return ctx.Error(role, " ", Describe(t), " needs quantization with a positive scale, has ", scale);
}

Status RequireZeroPoint(const OpContext& ctx, const Tensor* t, const char* role, int32_t zero_point) {
  if (t->zero_point() == zero_point) return Status::Ok();
  return ctx.Error(role, " ", Describe(t), " must have zero point ", zero_point, ", has ", t->zero_point());
}

void PopulateLut8(const Tensor* input, const Tensor* output, float (*fn)(float), Lut8State* state) {
  if (input->type == TensorType::kInt8) {
    quant::PopulateLut8<int8_t>(input->scale(), input->zero_point(), output->scale(), output->zero_point(), fn,
                                reinterpret_cast<int8_t*>(state->table));
  } else {
    quant::PopulateLut8<uint8_t>(input->scale(), input->zero_point(), output->scale(), output->zero_point(), fn,
                                 state->table);
  }
}

void ApplyLut8(OpContext& ctx, const Lut8State& state) {
  // Both element types index the table by their byte.
  const uint8_t* in = static_cast<const uint8_t*>(ctx.input(0)->data);
  uint8_t* out = static_cast<uint8_t*>(ctx.output(0)->data);
  const int64_t n = ctx.input(0)->num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = state.table[in[i]];
}

namespace {

// log2(x) rounded, and whether x is a power of two within TFLite's tolerance (CheckedLog2).
bool CheckedLog2(float x, int* log2) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2 = static_cast<int>(rounded);
  return std::fabs(x_log2 - rounded) < 1e-3f;
}

}  // namespace

Status PrepareSigmoidInt16(const OpContext& ctx, bool is_tanh, SigmoidInt16State* state) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
  ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
  ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, input, "int16 input", 0));
  ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "int16 output", 0));
  int output_log2 = 0;
  if (!CheckedLog2(output->scale(), &output_log2) || output_log2 != -15) {
    return ctx.Error("int16 output ", Describe(output), " must have scale 2^-15, has ", output->scale());
  }
  // The input in Q3.12 needs a left shift of 12 + log2(scale).
  int input_log2 = 0;
  const bool pot = CheckedLog2(input->scale(), &input_log2);
  const int left_shift = 12 + input_log2;
  *state = SigmoidInt16State{};
  if (pot && (left_shift == 0 || (is_tanh && left_shift == 1))) {
    state->fixed_point = true;
    state->double_input = left_shift == 1;
    return Status::Ok();
  }
  // The sigmoid table spans [-10.7, 10.7] in units of 1 / (3 * 4096); scale up to 15 bits of precision.
  double multiplier = static_cast<double>(input->scale()) * 4096.0 * 3.0;
  int shift = 0;
  while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    multiplier *= 2.0;
  }
  if (multiplier >= 65536.0) return ctx.Unsupported("int16 input scale ", input->scale(), " is too large");
  state->multiplier = static_cast<int32_t>(multiplier);
  state->shift = shift;
  // A scale so small that nothing is left: TFLite falls back to the fixed-point functions.
  if (state->multiplier == 0) {
    state->fixed_point = true;
    state->double_input = shift != 0;
  }
  return Status::Ok();
}

Status PrepareRelu(OpContext& ctx, ReluState& state, std::initializer_list<TensorType> types) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, types));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->type == TensorType::kFloat32) return Status::Ok();
  ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
  ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
  if (input->type == TensorType::kInt16) {
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, input, "int16 input", 0));
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "int16 output", 0));
  }
  // The ratio is taken in float, as TFLite does, before it becomes a fixed-point multiplier.
  const float ratio = input->scale() / output->scale();
  if (!quant::QuantizeMultiplier(ratio, &state.multiplier, &state.shift)) {
    return ctx.Error("cannot rescale from ", Describe(input), " to ", Describe(output));
  }
  return Status::Ok();
}

namespace {

template <class T>
void QuantizedRelu(OpContext& ctx, const ReluState& state, float lo, float hi) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  const float scale = output->scale();
  const int32_t zero_point = output->zero_point();
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  // The bounds in output units, rounded in float like TFLite; an infinite upper bound is the type max.
  auto to_quantized = [&](float v) {
    const float q = std::round(v / scale);
    if (!(std::fabs(q) < 2e9f)) return q > 0 ? kMax : kMin;
    return zero_point + static_cast<int32_t>(q);
  };
  const int32_t act_min = std::max(kMin, to_quantized(lo));
  const int32_t act_max = std::isinf(hi) ? kMax : std::min(kMax, to_quantized(hi));
  reference::QuantizedClamp<T>(input->data_as<T>(), ctx.output(0)->data_as<T>(), input->num_elements(),
                               input->zero_point(), zero_point, state.multiplier, state.shift, act_min, act_max);
}

}  // namespace

Status EvalRelu(OpContext& ctx, const ReluState& state, float lo, float hi) {
  switch (ctx.input(0)->type) {
    case TensorType::kUInt8: QuantizedRelu<uint8_t>(ctx, state, lo, hi); break;
    case TensorType::kInt8: QuantizedRelu<int8_t>(ctx, state, lo, hi); break;
    case TensorType::kInt16: QuantizedRelu<int16_t>(ctx, state, lo, hi); break;
    default: MapUnary<float>(ctx, [lo, hi](float x) { return std::min(std::max(x, lo), hi); }); break;
  }
  return Status::Ok();
}

void MapFloatUnary(OpContext& ctx, optimized::UnaryF32Fn vector_fn, float (*scalar_fn)(float)) {
  if (vector_fn == nullptr) {
    MapUnary<float>(ctx, scalar_fn);
    return;
  }
  const float* in = ctx.input(0)->data_as<float>();
  float* out = ctx.output(0)->data_as<float>();
  const int64_t n = ctx.input(0)->num_elements();
  // Blocks of 16K values (~10 us each): fewer would not pay for waking a thread.
  constexpr int64_t kBlock = 16384;
  optimized::ParallelFor(n > kBlock ? ctx.thread_pool() : nullptr, (n + kBlock - 1) / kBlock, [&](int64_t b) {
    const int64_t first = b * kBlock;
    vector_fn(in + first, std::min(kBlock, n - first), out + first);
  });
}

}  // namespace edgerun::ops
