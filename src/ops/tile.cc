// TILE(input, multiples): output dim d = input dim d * multiples[d], the input repeated.
// multiples is int32 or int64; when it is not a constant the output is dynamic.
#include "kernels/reference/layout.h"
#include "ops/shape_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status OutputShape(OpContext& ctx, Shape* shape) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> multiples;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "multiples", &multiples));
  if (static_cast<int>(multiples.size()) != input->rank()) {
    return ctx.Error("multiples ", Describe(ctx.input(1)), " must have one value per dimension of ", Describe(input));
  }
  shape->resize(multiples.size());
  for (size_t d = 0; d < multiples.size(); ++d) {
    // Checked before multiplying: a multiple from the file can be any int64.
    const int64_t limit = std::numeric_limits<int32_t>::max();
    if (multiples[d] < 0 || (input->dim(d) > 0 && multiples[d] > limit / input->dim(d))) {
      return ctx.Error("invalid multiple ", multiples[d], " for dimension ", d, " of ", Describe(input));
    }
    (*shape)[d] = static_cast<int32_t>(input->dim(d) * multiples[d]);
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  size_t element;
  if (ctx.input(0)->type != TensorType::kString) ER_RETURN_IF_ERROR(ElementSize(ctx, ctx.input(0), "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "multiples", {TensorType::kInt32, TensorType::kInt64}));
  if (ctx.input(1)->rank() != 1) return ctx.Error("multiples ", Describe(ctx.input(1)), " must be 1-D");
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->type == TensorType::kString) {
    return MoveStrings(ctx, input, output, output->shape, [&](const uint8_t* src, uint8_t* dst, size_t element) {
      reference::Repeat(input->shape, output->shape, element, src, dst);
    });
  }
  reference::Repeat(input->shape, output->shape, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                    output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTile() { return MakeBuiltin(tflite::BuiltinOperator_TILE, 3, "any fixed-size type, string", Prepare, Eval); }

}  // namespace edgerun::ops
