// BROADCAST_ARGS(s0, s1): the shape that numpy broadcasting gives for two shapes held in 1-D
// int32/int64 tensors of one type. The output's length is known at prepare; incompatible shapes
// are an error at eval.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* s0 = ctx.input(0);
  const Tensor* s1 = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, s0, "s0", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, s0, s1, "s0 and s1"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, s0, ctx.output(0), "inputs and output"));
  if (s0->rank() != 1 || s1->rank() != 1) {
    return ctx.Error("shapes ", Describe(s0), " and ", Describe(s1), " must be 1-D");
  }
  return ctx.ResizeOutput(0, {std::max(s0->dim(0), s1->dim(0))});
}

Status Eval(OpContext& ctx) {
  std::vector<int64_t> a, b;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(0), "s0", &a));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "s1", &b));
  if (a.size() < b.size()) std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);  // align to the right
  Tensor* output = ctx.output(0);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      return ctx.Error("shapes ", Describe(ctx.input(0)), " and ", Describe(ctx.input(1)),
                       " do not broadcast: dimension ", i, " is ", a[i], " vs ", b[i]);
    }
    const int64_t dim = a[i] == 1 ? b[i] : a[i];
    if (output->type == TensorType::kInt64) output->data_as<int64_t>()[i] = dim;
    else output->data_as<int32_t>()[i] = static_cast<int32_t>(dim);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBroadcastArgs() {
  return MakeBuiltin(tflite::BuiltinOperator_BROADCAST_ARGS, 1, "int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
