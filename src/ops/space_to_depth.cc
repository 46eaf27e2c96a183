// SPACE_TO_DEPTH: NHWC; each block_size x block_size patch of pixels becomes one pixel with
// block_size^2 times the channels. Bytes move unchanged (any fixed-size type).
#include "kernels/reference/space_batch.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  const auto* o = Options<tflite::SpaceToDepthOptions>(ctx);
  const int block = o ? o->block_size() : 0;
  if (block < 1) return ctx.Error("block_size ", block, " must be positive");
  if (input->dim(1) % block != 0 || input->dim(2) % block != 0) {
    return ctx.Error("height and width of ", Describe(input), " must be multiples of block_size ", block);
  }
  const int64_t depth = int64_t{input->dim(3)} * block * block;
  if (depth > std::numeric_limits<int32_t>::max()) return ctx.Error("output depth is too large");
  return ctx.ResizeOutput(0, {input->dim(0), input->dim(1) / block, input->dim(2) / block, static_cast<int32_t>(depth)});
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const int block = Options<tflite::SpaceToDepthOptions>(ctx)->block_size();
  reference::SpaceDepth(input->shape, block, /*to_depth=*/true, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                        ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSpaceToDepth() {
  return MakeBuiltin(tflite::BuiltinOperator_SPACE_TO_DEPTH, 2, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
