// Shared code of RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL: the generator state of
// a node, seeded from RandomOptions at each prepare (as TFLite does), and the output shape
// from a 1-D int32 shape tensor.
#pragma once

#include <random>

#include "kernels/reference/random.h"
#include "ops/op_util.h"

namespace edgerun::ops::elementwise {

struct RandomState {
  reference::math::Philox4x32 rng;
};

// seed = seed2 = 0 asks for a different sequence every time (TFLite draws the seeds from the
// system's entropy then); any other pair gives TensorFlow's deterministic sequence.
inline void SeedRandom(const OpContext& ctx, RandomState& state) {
  const auto* options = Options<tflite::RandomOptions>(ctx);
  uint64_t seed = options ? static_cast<uint64_t>(options->seed()) : 0;
  uint64_t seed2 = options ? static_cast<uint64_t>(options->seed2()) : 0;
  if (seed == 0 && seed2 == 0) {
    static std::mt19937_64 entropy{std::random_device{}()};
    seed = entropy();
    seed2 = entropy();
  }
  state.rng = reference::math::Philox4x32(seed, seed2);
}

inline Status RandomShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> dims;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(0), "shape", &dims));
  shape->clear();
  for (int64_t d : dims) {
    if (d < 0 || d > std::numeric_limits<int32_t>::max()) return ctx.Error("invalid output dimension ", d);
    shape->push_back(static_cast<int32_t>(d));
  }
  if (NumElements(*shape) < 0) return ctx.Error("output shape ", ShapeToString(*shape), " is too large");
  return Status::Ok();
}

// One input (the int32 shape), one float32 output: dynamic unless the shape is a constant.
inline Status PrepareRandom(OpContext& ctx, RandomState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "shape", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, ctx.input(0), "shape", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kFloat32}));
  SeedRandom(ctx, state);
  if (!ctx.input(0)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(RandomShape(ctx, &shape));
  return ctx.ResizeOutput(0, shape);
}

// Sizes a dynamic output; returns the output's data and element count.
inline Status PrepareRandomOutput(OpContext& ctx, float** data, int64_t* count) {
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    Shape shape;
    ER_RETURN_IF_ERROR(RandomShape(ctx, &shape));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  *data = output->data_as<float>();
  *count = output->num_elements();
  return Status::Ok();
}

}  // namespace edgerun::ops::elementwise
