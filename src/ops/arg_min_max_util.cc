#include "ops/arg_min_max_util.h"

#include <functional>

#include "kernels/optimized/arg_min_max.h"

namespace edgerun::ops {
namespace {

// The index type the options ask for (FLOAT32, the schema default, when they say nothing).
tflite::TensorType RequestedOutputType(const OpContext& ctx, bool is_max) {
  if (is_max) {
    const auto* o = Options<tflite::ArgMaxOptions>(ctx);
    return o ? o->output_type() : tflite::TensorType_FLOAT32;
  }
  const auto* o = Options<tflite::ArgMinOptions>(ctx);
  return o ? o->output_type() : tflite::TensorType_FLOAT32;
}

// Reads and normalizes the axis, sizes the output; an empty axis has no arg max.
Status ResizeForAxis(OpContext& ctx, int* axis) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "axis", &values));
  if (values.size() != 1) return ctx.Error("axis ", Describe(ctx.input(1)), " must hold exactly one value");
  const int64_t value = values[0] < 0 ? values[0] + input->rank() : values[0];
  if (value < 0 || value >= input->rank()) {
    return ctx.Error("axis ", values[0], " is out of range for input ", Describe(input));
  }
  *axis = static_cast<int>(value);
  if (input->dim(*axis) == 0) return ctx.Error("cannot take the arg max/min over the empty axis ", *axis, " of ", Describe(input));
  Shape shape;
  for (int d = 0; d < input->rank(); ++d) {
    if (d != *axis) shape.push_back(input->dim(d));
  }
  return ctx.ResizeOutput(0, shape);
}

// Compares stored bools by truth, whatever nonzero byte they hold.
struct BoolGreater {
  bool operator()(uint8_t a, uint8_t b) const { return (a != 0) > (b != 0); }
};
struct BoolLess {
  bool operator()(uint8_t a, uint8_t b) const { return (a != 0) < (b != 0); }
};

template <class T, class Index, class Greater, class Less>
void Run(OpContext& ctx, int axis, bool is_max) {
  const Tensor* input = ctx.input(0);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= input->dim(d);
  for (int d = axis + 1; d < input->rank(); ++d) inner *= input->dim(d);
  const T* in = input->data_as<T>();
  Index* out = ctx.output(0)->data_as<Index>();
  if (is_max) {
    optimized::ArgMinMax(ctx.thread_pool(), in, outer, input->dim(axis), inner, out, Greater());
  } else {
    optimized::ArgMinMax(ctx.thread_pool(), in, outer, input->dim(axis), inner, out, Less());
  }
}

template <class T, class Greater = std::greater<T>, class Less = std::less<T>>
void RunForIndex(OpContext& ctx, int axis, bool is_max) {
  if (ctx.output(0)->type == TensorType::kInt32) Run<T, int32_t, Greater, Less>(ctx, axis, is_max);
  else Run<T, int64_t, Greater, Less>(ctx, axis, is_max);
}

}  // namespace

Status PrepareArgMinMax(OpContext& ctx, bool is_max) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* axis = ctx.input(1);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                TensorType::kInt8, TensorType::kInt16, TensorType::kBool}));
  ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kInt32, TensorType::kInt64}));
  const tflite::TensorType requested = RequestedOutputType(ctx, is_max);
  if ((requested == tflite::TensorType_INT32 || requested == tflite::TensorType_INT64) &&
      static_cast<int>(requested) != static_cast<int>(output->type)) {
    return ctx.Error("output ", Describe(output), " does not have the type the options ask for (",
                     tflite::EnumNameTensorType(requested), ")");
  }
  if (axis->type != TensorType::kInt32 && axis->type != TensorType::kInt64) {
    return ctx.Error("axis ", Describe(axis), " must be int32 or int64");
  }
  if (axis->num_elements() != 1) return ctx.Error("axis ", Describe(axis), " must hold exactly one value");
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank 1 or more");
  if (!axis->is_constant()) {
    ctx.MarkDynamic(output);
    return Status::Ok();
  }
  int axis_value;
  return ResizeForAxis(ctx, &axis_value);
}

Status EvalArgMinMax(OpContext& ctx, bool is_max) {
  int axis;
  ER_RETURN_IF_ERROR(ResizeForAxis(ctx, &axis));
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: RunForIndex<float>(ctx, axis, is_max); break;
    case TensorType::kInt32: RunForIndex<int32_t>(ctx, axis, is_max); break;
    case TensorType::kInt64: RunForIndex<int64_t>(ctx, axis, is_max); break;
    case TensorType::kUInt8: RunForIndex<uint8_t>(ctx, axis, is_max); break;
    case TensorType::kInt8: RunForIndex<int8_t>(ctx, axis, is_max); break;
    case TensorType::kInt16: RunForIndex<int16_t>(ctx, axis, is_max); break;
    case TensorType::kBool: RunForIndex<uint8_t, BoolGreater, BoolLess>(ctx, axis, is_max); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
