// RANDOM_UNIFORM: floats uniform in [0, 1) of the given shape, from TensorFlow's Philox
// generator and seeds (options seed, seed2); the sequence continues across invocations.
#include "ops/random_util.h"

namespace edgerun::ops {
namespace {

using elementwise::RandomState;

Status Prepare(OpContext& ctx, RandomState& state) { return elementwise::PrepareRandom(ctx, state); }

Status Eval(OpContext& ctx, RandomState& state) {
  float* out = nullptr;
  int64_t n = 0;
  ER_RETURN_IF_ERROR(elementwise::PrepareRandomOutput(ctx, &out, &n));
  // Each block of four values fills four outputs; the unused rest of the last block is dropped.
  for (int64_t i = 0; i < n; i += 4) {
    const auto block = state.rng.Next();
    for (int64_t k = 0; k < 4 && i + k < n; ++k) out[i + k] = reference::math::Uint32ToFloat(block[k]);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRandomUniform() {
  return MakeBuiltinWithState<RandomState>(tflite::BuiltinOperator_RANDOM_UNIFORM, 1, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
