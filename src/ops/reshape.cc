// RESHAPE: same bytes, new shape. The shape comes from the second input when it is a 1-D int32
// tensor, else from the options; one dimension may be -1 (inferred). A shape input that is only
// known at run time makes the output dynamic.
#include <cstring>

#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

// TFLite's rule: a 1-D int32 shape tensor wins over the options.
bool ShapeFromTensor(const OpContext& ctx) {
  const Tensor* shape = ctx.input(1);
  return shape != nullptr && shape->rank() == 1 && shape->type == TensorType::kInt32;
}

Status ComputeShape(OpContext& ctx, Shape* out) {
  std::vector<int64_t> dims;
  if (ShapeFromTensor(ctx)) {
    ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "shape", &dims));
  } else {
    const auto* o = Options<tflite::ReshapeOptions>(ctx);
    if (o && o->new_shape()) dims.assign(o->new_shape()->begin(), o->new_shape()->end());
    // Old converters wrote [0] for a scalar.
    if (dims.size() == 1 && dims[0] == 0) dims.clear();
  }
  const int64_t elements = ctx.input(0)->num_elements();
  int stretch = -1;
  int64_t known = 1;
  out->assign(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (stretch >= 0) return ctx.Error("new shape has more than one -1");
      stretch = static_cast<int>(i);
      continue;
    }
    if (dims[i] < 0 || dims[i] > std::numeric_limits<int32_t>::max()) {
      return ctx.Error("invalid dimension ", dims[i], " in new shape");
    }
    (*out)[i] = static_cast<int32_t>(dims[i]);
    // Checked before multiplying: 2^40 times a dimension near 2^31 overflows int64 (fuzz_graph).
    constexpr int64_t kMaxElements = int64_t{1} << 40;
    if (dims[i] != 0 && known > kMaxElements / dims[i]) return ctx.Error("new shape is too large");
    known *= dims[i];
  }
  if (stretch >= 0) {
    if (known == 0 || elements % known != 0) {
      return ctx.Error("cannot infer the -1 dimension: ", elements, " elements do not divide by ", known);
    }
    (*out)[stretch] = static_cast<int32_t>(elements / known);
    known *= (*out)[stretch];
  }
  if (known != elements) {
    return ctx.Error("cannot reshape ", Describe(ctx.input(0)), " (", elements, " elements) to ",
                     ShapeToString(*out), " (", known, " elements)");
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 2, 1));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  if (ShapeFromTensor(ctx) && !ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  ER_RETURN_IF_ERROR(ComputeShape(ctx, &shape));
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    Shape shape;
    ER_RETURN_IF_ERROR(ComputeShape(ctx, &shape));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  }
  const Tensor* input = ctx.input(0);
  if (input->type == TensorType::kString) return CopyStrings(ctx, input, output, output->shape);
  if (input->bytes > 0 && output->data != input->data) std::memcpy(output->data, input->data, input->bytes);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReshape() { return MakeBuiltin(tflite::BuiltinOperator_RESHAPE, 1, "any type", Prepare, Eval); }

}  // namespace edgerun::ops
