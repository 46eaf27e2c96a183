// BITCAST: reinterprets the bytes as the output's type. A wider input gains a last dimension
// of size(in) / size(out); a narrower one loses its last dimension, which must equal
// size(out) / size(in) (TensorFlow's rules). Any fixed-size types.
#include <cstring>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  const size_t in_size = TensorTypeSize(input->type), out_size = TensorTypeSize(output->type);
  if (!IsFixedSizeType(input->type) || !IsFixedSizeType(output->type) || in_size == 0 || out_size == 0) {
    return ctx.Unsupported("bitcast from ", TensorTypeName(input->type), " to ", TensorTypeName(output->type),
                           " is not supported");
  }
  Shape shape = input->shape;
  if (in_size > out_size) {
    shape.push_back(static_cast<int32_t>(in_size / out_size));
  } else if (in_size < out_size) {
    if (shape.empty() || static_cast<size_t>(shape.back()) != out_size / in_size) {
      return ctx.Error("input ", Describe(input), " must end in a dimension of ", out_size / in_size, " to become ",
                       TensorTypeName(output->type));
    }
    shape.pop_back();
  }
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (input->bytes > 0 && output->data != input->data) std::memcpy(output->data, input->data, input->bytes);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBitcast() {
  return MakeBuiltin(tflite::BuiltinOperator_BITCAST, 1, "any fixed-size types", Prepare, Eval);
}

}  // namespace edgerun::ops
