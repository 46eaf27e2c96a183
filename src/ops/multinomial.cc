// MULTINOMIAL: `num_samples` class indices per batch row, drawn from the categorical
// distribution given by a row of logits [batch, classes] (float32); output int32 or int64
// [batch, num_samples]. Sampling follows TFLite exactly (TensorFlow's Philox stream, a skip of
// a fixed number of blocks per invocation, inverse-CDF search in double).
#include <algorithm>
#include <cmath>

#include "ops/elementwise_util.h"
#include "ops/random_util.h"

namespace edgerun::ops {
namespace {

using elementwise::RandomState;

Status ReadSizes(OpContext& ctx, int32_t* batch, int32_t* classes, int32_t* samples) {
  const Tensor* logits = ctx.input(0);
  ER_RETURN_IF_ERROR(elementwise::CheckScalarInput(ctx, 1, "num_samples"));
  *batch = logits->dim(0);
  *classes = logits->dim(1);
  *samples = *ctx.input(1)->data_as<int32_t>();
  if (*classes <= 0) return ctx.Error("logits ", Describe(logits), " must have at least one class");
  if (*samples < 0) return ctx.Error("num_samples must not be negative, is ", *samples);
  return Status::Ok();
}

Status Prepare(OpContext& ctx, RandomState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* logits = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, logits, "logits", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, logits, "logits", 2, 2));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "num_samples", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt32, TensorType::kInt64}));
  elementwise::SeedRandom(ctx, state);
  if (!ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  int32_t batch, classes, samples;
  ER_RETURN_IF_ERROR(ReadSizes(ctx, &batch, &classes, &samples));
  return ctx.ResizeOutput(0, {batch, samples});
}

template <class T>
void Sample(reference::math::Philox4x32& rng, const float* logits, int32_t batch, int32_t classes, int32_t samples,
            T* out) {
  // TensorFlow skips a generous fixed number of blocks per call so that successive calls never
  // reuse values; this call draws from a copy taken before the skip.
  reference::math::Philox4x32 draw = rng;
  rng.Skip(static_cast<uint64_t>(batch) * ((static_cast<uint64_t>(samples) + 3) / 4 * 4) * 2 * 256);
  reference::math::Philox4x32::Block block{};
  int used = 4;
  std::vector<double> cdf(classes);
  for (int32_t b = 0; b < batch; ++b) {
    const float* row = logits + static_cast<int64_t>(b) * classes;
    float max = std::numeric_limits<float>::lowest();
    for (int32_t c = 0; c < classes; ++c) {
      if (std::isfinite(row[c])) max = std::max(max, row[c]);
    }
    // Unnormalized cumulative probabilities, shifted by the largest logit for stability;
    // non-finite logits get probability 0.
    double total = 0.0;
    for (int32_t c = 0; c < classes; ++c) {
      if (std::isfinite(row[c])) total += std::exp(row[c] - static_cast<double>(max));
      cdf[c] = total;
    }
    for (int32_t s = 0; s < samples; ++s) {
      if (used == 4) {
        block = draw.Next();
        used = 0;
      }
      const double target = reference::math::Uint64ToDouble(block[used], block[used + 1]) * total;
      used += 2;
      out[static_cast<int64_t>(b) * samples + s] =
          static_cast<T>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
    }
  }
}

Status Eval(OpContext& ctx, RandomState& state) {
  int32_t batch, classes, samples;
  ER_RETURN_IF_ERROR(ReadSizes(ctx, &batch, &classes, &samples));
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch, samples}));
  const float* logits = ctx.input(0)->data_as<float>();
  if (output->type == TensorType::kInt64) {
    Sample(state.rng, logits, batch, classes, samples, output->data_as<int64_t>());
  } else {
    Sample(state.rng, logits, batch, classes, samples, output->data_as<int32_t>());
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMultinomial() {
  return MakeBuiltinWithState<RandomState>(tflite::BuiltinOperator_MULTINOMIAL, 1, "float32 -> int32, int64", Prepare,
                                           Eval);
}

}  // namespace edgerun::ops
