// SPLIT_V(input, size_splits, axis): pieces of the given sizes along `axis`; one size may be -1
// (whatever remains). When size_splits or axis is not a constant the outputs are dynamic.
#include "kernels/reference/split.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status ReadSplits(OpContext& ctx, int* axis, std::vector<int64_t>* sizes) {
  const Tensor* input = ctx.input(0);
  int64_t axis_value = 0;
  ER_RETURN_IF_ERROR(ReadScalarInt(ctx, ctx.input(2), "axis", &axis_value));
  if (input->rank() == 0) return ctx.Error("cannot split a scalar ", Describe(input));
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, axis_value, input->rank(), axis));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "size_splits", sizes));
  if (static_cast<int>(sizes->size()) != ctx.num_outputs()) {
    return ctx.Error("size_splits ", Describe(ctx.input(1)), " must have one value per output (", ctx.num_outputs(),
                     ")");
  }
  const int64_t dim = input->dim(*axis);
  int64_t known = 0;
  int inferred = -1;
  for (size_t k = 0; k < sizes->size(); ++k) {
    const int64_t s = (*sizes)[k];
    if (s == -1 && inferred < 0) {
      inferred = static_cast<int>(k);
    } else if (s < 0 || s > dim) {
      return ctx.Error("size_splits has invalid size ", s, " for dimension ", *axis, " of ", Describe(input),
                       " (one -1 is allowed)");
    } else {
      known += s;
    }
  }
  if (inferred >= 0 && known <= dim) (*sizes)[inferred] = dim - known;
  if (known > dim || (inferred < 0 && known != dim)) {
    return ctx.Error("size_splits do not add up to dimension ", *axis, " of ", Describe(input));
  }
  return Status::Ok();
}

Status ResizeOutputs(OpContext& ctx, int axis, const std::vector<int64_t>& sizes) {
  Shape shape = ctx.input(0)->shape;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    shape[axis] = static_cast<int32_t>(sizes[i]);
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(i, shape));
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  const auto* o = Options<tflite::SplitVOptions>(ctx);
  if (ctx.num_outputs() < 1 || (o && o->num_splits() != ctx.num_outputs())) {
    return ctx.Error("num_splits ", o ? o->num_splits() : 0, " must equal the number of outputs (", ctx.num_outputs(),
                     ")");
  }
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, ctx.num_outputs()));
  const Tensor* input = ctx.input(0);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "size_splits", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(2), "axis", {TensorType::kInt32, TensorType::kInt64}));
  if (ctx.input(1)->rank() != 1) return ctx.Error("size_splits ", Describe(ctx.input(1)), " must be 1-D");
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(i), "input and output"));
  }
  if (!ctx.input(1)->is_constant() || !ctx.input(2)->is_constant()) {
    for (int i = 0; i < ctx.num_outputs(); ++i) ctx.MarkDynamic(ctx.output(i));
    return Status::Ok();
  }
  int axis = 0;
  std::vector<int64_t> sizes;
  ER_RETURN_IF_ERROR(ReadSplits(ctx, &axis, &sizes));
  return ResizeOutputs(ctx, axis, sizes);
}

Status Eval(OpContext& ctx) {
  int axis = 0;
  std::vector<int64_t> sizes;
  ER_RETURN_IF_ERROR(ReadSplits(ctx, &axis, &sizes));
  if (ctx.output(0)->is_dynamic()) ER_RETURN_IF_ERROR(ResizeOutputs(ctx, axis, sizes));
  const Tensor* input = ctx.input(0);
  std::vector<uint8_t*> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) outputs.push_back(ctx.output(i)->data_as<uint8_t>());
  reference::Split(input->shape, axis, sizes, TensorTypeSize(input->type), input->data_as<uint8_t>(), outputs);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSplitV() { return MakeBuiltin(tflite::BuiltinOperator_SPLIT_V, 2, "any fixed-size type", Prepare, Eval); }

}  // namespace edgerun::ops
