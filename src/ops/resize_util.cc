#include "ops/resize_util.h"

namespace edgerun::ops {
namespace {

Status SizeOutput(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* size = ctx.input(1);
  if (size->data == nullptr) return ctx.Error("size ", Describe(size), " has no data");
  const int32_t height = size->data_as<int32_t>()[0];
  const int32_t width = size->data_as<int32_t>()[1];
  if (height <= 0 || width <= 0) {
    return ctx.Error("size ", Describe(size), " must hold a positive height and width, has [", height, ",", width,
                     "]");
  }
  return ctx.ResizeOutput(0, {input->dim(0), height, width, input->dim(3)});
}

}  // namespace

Status PrepareResize(OpContext& ctx, const reference::ResizeParams& params, std::initializer_list<TensorType> types) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* size = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", types));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 4, 4));
  if (size->type != TensorType::kInt32 || size->rank() != 1 || size->dim(0) != 2) {
    return ctx.Error("size ", Describe(size), " must be an int32 tensor of 2 elements");
  }
  if (params.align_corners && params.half_pixel_centers) {
    return ctx.Error("align_corners and half_pixel_centers cannot both be true");
  }
  if (!size->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  return SizeOutput(ctx);
}

Status ResizeDynamicOutput(OpContext& ctx) {
  if (!ctx.output(0)->is_dynamic()) return Status::Ok();
  return SizeOutput(ctx);
}

}  // namespace edgerun::ops
