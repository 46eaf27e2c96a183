// RANDOM_STANDARD_NORMAL: standard normal floats of the given shape (Box-Muller on TensorFlow's
// Philox generator, seeds from the options); the sequence continues across invocations.
#include "ops/random_util.h"

namespace edgerun::ops {
namespace {

using elementwise::RandomState;

Status Prepare(OpContext& ctx, RandomState& state) { return elementwise::PrepareRandom(ctx, state); }

Status Eval(OpContext& ctx, RandomState& state) {
  float* out = nullptr;
  int64_t n = 0;
  ER_RETURN_IF_ERROR(elementwise::PrepareRandomOutput(ctx, &out, &n));
  // Each block of four values gives two pairs, i.e. four outputs; extra values are dropped.
  for (int64_t i = 0; i < n; i += 4) {
    const auto block = state.rng.Next();
    float values[4];
    reference::math::BoxMuller(block[0], block[1], &values[0], &values[1]);
    reference::math::BoxMuller(block[2], block[3], &values[2], &values[3]);
    for (int64_t k = 0; k < 4 && i + k < n; ++k) out[i + k] = values[k];
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRandomStandardNormal() {
  return MakeBuiltinWithState<RandomState>(tflite::BuiltinOperator_RANDOM_STANDARD_NORMAL, 1, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
