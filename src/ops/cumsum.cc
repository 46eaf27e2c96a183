// CUMSUM: running sums along `axis` (an int32 scalar, negative counts from the end); options
// `exclusive` (each sum leaves out its own element) and `reverse` (sum from the end).
// float32, int32, int64 (wrapping).
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

Status ReadAxis(OpContext& ctx, int* axis) {
  const Tensor* t = ctx.input(1);
  ER_RETURN_IF_ERROR(elementwise::CheckScalarInput(ctx, 1, "axis"));
  return NormalizeAxis(ctx, *t->data_as<int32_t>(), ctx.input(0)->rank(), axis);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "axis", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (input->rank() == 0) return ctx.Error("input ", Describe(input), " must have rank 1 or more");
  if (ctx.input(1)->is_constant()) {
    int axis = 0;
    ER_RETURN_IF_ERROR(ReadAxis(ctx, &axis));
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class T>
void CumulativeSum(const T* in, T* out, int64_t outer, int64_t dim, int64_t inner, bool exclusive, bool reverse) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T sum = 0;
      for (int64_t k = 0; k < dim; ++k) {
        const int64_t index = (o * dim + (reverse ? dim - 1 - k : k)) * inner + i;
        const T x = in[index];
        if (exclusive) out[index] = sum;
        if constexpr (std::is_integral_v<T>) {
          sum = WrapAdd(sum, x);
        } else {
          sum += x;
        }
        if (!exclusive) out[index] = sum;
      }
    }
  }
}

Status Eval(OpContext& ctx) {
  int axis = 0;
  ER_RETURN_IF_ERROR(ReadAxis(ctx, &axis));
  const Tensor* input = ctx.input(0);
  const auto* options = Options<tflite::CumsumOptions>(ctx);
  const bool exclusive = options && options->exclusive();
  const bool reverse = options && options->reverse();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= input->dim(d);
  for (int d = axis + 1; d < input->rank(); ++d) inner *= input->dim(d);
  const int64_t dim = input->dim(axis);
  switch (input->type) {
    case TensorType::kFloat32:
      CumulativeSum(input->data_as<float>(), ctx.output(0)->data_as<float>(), outer, dim, inner, exclusive, reverse);
      break;
    case TensorType::kInt32:
      CumulativeSum(input->data_as<int32_t>(), ctx.output(0)->data_as<int32_t>(), outer, dim, inner, exclusive,
                    reverse);
      break;
    default:
      CumulativeSum(input->data_as<int64_t>(), ctx.output(0)->data_as<int64_t>(), outer, dim, inner, exclusive,
                    reverse);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterCumsum() {
  return MakeBuiltin(tflite::BuiltinOperator_CUMSUM, 1, "float32, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
