// SLICE(input, begin, size): input[begin[d] : begin[d] + size[d]] in every dimension; size -1
// means "to the end". begin and size are int32 or int64; when either is not a constant the output
// is dynamic.
#include "kernels/reference/movement.h"
#include "ops/shape_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

Status ReadSlice(OpContext& ctx, std::vector<int64_t>* begin, Shape* size) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> sizes;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "begin", begin));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(2), "size", &sizes));
  const int rank = input->rank();
  if (static_cast<int>(begin->size()) != rank || static_cast<int>(sizes.size()) != rank) {
    return ctx.Error("begin ", Describe(ctx.input(1)), " and size ", Describe(ctx.input(2)), " must have ", rank,
                     " values for input ", Describe(input));
  }
  size->resize(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t b = (*begin)[d];
    const int64_t dim = input->dim(d);
    int64_t s = sizes[d];
    if (s == -1) s = dim - b;
    if (b < 0 || b > dim || s < 0 || b + s > dim) {
      return ctx.Error("slice begin ", b, " size ", sizes[d], " is out of range for dimension ", d, " of ",
                       Describe(input));
    }
    (*size)[d] = static_cast<int32_t>(s);
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> begin;
  return ReadSlice(ctx, &begin, shape);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  size_t element;
  if (ctx.input(0)->type != TensorType::kString) ER_RETURN_IF_ERROR(ElementSize(ctx, ctx.input(0), "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  for (int i = 1; i < 3; ++i) {
    const Tensor* t = ctx.input(i);
    ER_RETURN_IF_ERROR(CheckType(ctx, t, i == 1 ? "begin" : "size", {TensorType::kInt32, TensorType::kInt64}));
    if (t->rank() != 1) return ctx.Error(i == 1 ? "begin " : "size ", Describe(t), " must be 1-D");
  }
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant() && ctx.input(2)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> begin;
  Shape size;
  ER_RETURN_IF_ERROR(ReadSlice(ctx, &begin, &size));
  if (input->type == TensorType::kString) {
    return MoveStrings(ctx, input, ctx.output(0), ctx.output(0)->shape,
                       [&](const uint8_t* src, uint8_t* dst, size_t element) {
                         reference::StridedSlice(input->shape, begin, std::vector<int64_t>(begin.size(), 1), size,
                                                 element, src, dst);
                       });
  }
  reference::StridedSlice(input->shape, begin, std::vector<int64_t>(begin.size(), 1), size,
                          TensorTypeSize(input->type), input->data_as<uint8_t>(), ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSlice() { return MakeBuiltin(tflite::BuiltinOperator_SLICE, 7, "any fixed-size type, string", Prepare, Eval); }

}  // namespace edgerun::ops
