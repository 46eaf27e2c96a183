// ADD_N: the element-wise sum of any number of tensors of the same shape; float32, int32
// (wrapping).
#include "ops/binary_op.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  if (ctx.num_inputs() < 1) return ctx.Error("ADD_N needs at least one input");
  ER_RETURN_IF_ERROR(CheckIo(ctx, ctx.num_inputs(), ctx.num_inputs(), 1));
  const Tensor* first = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, first, "input 0", {TensorType::kFloat32, TensorType::kInt32}));
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const Tensor* t = ctx.input(i);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, first, t, "inputs"));
    if (t->shape != first->shape) {
      return ctx.Error("input ", i, " ", Describe(t), " does not have the shape of input 0 ", Describe(first));
    }
  }
  ER_RETURN_IF_ERROR(CheckSameType(ctx, first, ctx.output(0), "input and output"));
  return ctx.ResizeOutput(0, first->shape);
}

template <class T>
void Sum(OpContext& ctx) {
  T* out = ctx.output(0)->data_as<T>();
  const int64_t n = ctx.output(0)->num_elements();
  // Per element, from 0 and in input order, as TFLite sums.
  for (int64_t e = 0; e < n; ++e) {
    T sum = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const T x = ctx.input(i)->data_as<T>()[e];
      if constexpr (std::is_integral_v<T>) {
        sum = WrapAdd(sum, x);
      } else {
        sum += x;
      }
    }
    out[e] = sum;
  }
}

Status Eval(OpContext& ctx) {
  if (ctx.input(0)->type == TensorType::kFloat32) {
    Sum<float>(ctx);
  } else {
    Sum<int32_t>(ctx);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterAddN() { return MakeBuiltin(tflite::BuiltinOperator_ADD_N, 1, "float32, int32", Prepare, Eval); }

}  // namespace edgerun::ops
