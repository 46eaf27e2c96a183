// DEPTH_TO_SPACE: NHWC; each pixel's channels, in groups of C / block_size^2, become a
// block_size x block_size patch. Bytes move unchanged (any fixed-size type).
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
  const auto* o = Options<tflite::DepthToSpaceOptions>(ctx);
  const int block = o ? o->block_size() : 0;
  if (block < 1 || block > 46340) return ctx.Error("block_size ", block, " is invalid");
  if (input->dim(3) % (block * block) != 0) {
    return ctx.Error("depth of ", Describe(input), " must be a multiple of block_size^2 = ", block * block);
  }
  const int64_t height = int64_t{input->dim(1)} * block, width = int64_t{input->dim(2)} * block;
  if (height > std::numeric_limits<int32_t>::max() || width > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("output is too large");
  }
  return ctx.ResizeOutput(0, {input->dim(0), static_cast<int32_t>(height), static_cast<int32_t>(width),
                              input->dim(3) / (block * block)});
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  const int block = Options<tflite::DepthToSpaceOptions>(ctx)->block_size();
  reference::SpaceDepth(output->shape, block, /*to_depth=*/false, TensorTypeSize(input->type),
                        input->data_as<uint8_t>(), output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDepthToSpace() {
  return MakeBuiltin(tflite::BuiltinOperator_DEPTH_TO_SPACE, 2, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
