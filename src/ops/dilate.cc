// DILATE(input, dilations, padding_value): spreads the input out, element i of dimension d going
// to i * dilations[d]; the holes hold padding_value. Output dim = (dim - 1) * dilation + 1
// (0 stays 0). dilations is 1-D int32, each >= 1; when it is not a constant the output is dynamic.
#include "kernels/reference/layout.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status ReadDilations(OpContext& ctx, std::vector<int64_t>* dilations, Shape* shape) {
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "dilations", dilations));
  if (static_cast<int>(dilations->size()) != input->rank()) {
    return ctx.Error("dilations ", Describe(ctx.input(1)), " must have one value per dimension of ", Describe(input));
  }
  shape->resize(dilations->size());
  for (size_t d = 0; d < dilations->size(); ++d) {
    const int64_t k = (*dilations)[d], dim = input->dim(d);
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    // k is checked before multiplying: dilations from the file can be any int64.
    if (k < 1 || (dim > 1 && k > (kMax - 1) / (dim - 1))) {
      return ctx.Error("invalid dilation ", k, " for dimension ", d, " of ", Describe(input));
    }
    (*shape)[d] = static_cast<int32_t>(dim == 0 ? 0 : (dim - 1) * k + 1);
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<int64_t> dilations;
  return ReadDilations(ctx, &dilations, shape);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.input(2), "input and padding_value"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "dilations", {TensorType::kInt32, TensorType::kInt64}));
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  if (ctx.input(1)->rank() != 1) return ctx.Error("dilations ", Describe(ctx.input(1)), " must be 1-D");
  if (ctx.input(2)->num_elements() != 1) {
    return ctx.Error("padding_value ", Describe(ctx.input(2)), " must hold one value");
  }
  return PrepareOutput(ctx, 0, ctx.input(1)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  std::vector<int64_t> dilations;
  Shape shape;
  ER_RETURN_IF_ERROR(ReadDilations(ctx, &dilations, &shape));
  reference::Dilate(input->shape, dilations, output->shape, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                    ctx.input(2)->data_as<uint8_t>(), output->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDilate() { return MakeBuiltin(tflite::BuiltinOperator_DILATE, 1, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
