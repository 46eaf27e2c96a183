// TOPK_V2(input, k): the k largest values of each row (last dimension), largest first, and their
// positions (int32 or int16); equal values keep the lower position first. k is an int32/int16
// scalar; k <= 0 gives empty rows. A non-constant k makes both outputs dynamic.
#include <algorithm>
#include <numeric>

#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status ReadK(OpContext& ctx, int64_t* k) {
  const Tensor* t = ctx.input(1);
  if (t->num_elements() != 1) return ctx.Error("k ", Describe(t), " must hold exactly one value");
  std::vector<int64_t> values;
  ER_RETURN_IF_ERROR(ReadIndices(ctx, t, "k", &values));
  *k = std::max<int64_t>(values[0], 0);
  const Tensor* input = ctx.input(0);
  if (*k > input->dim(input->rank() - 1)) {
    return ctx.Error("k = ", *k, " is larger than the last dimension of ", Describe(input));
  }
  return Status::Ok();
}

Status ResizeOutputs(OpContext& ctx) {
  int64_t k = 0;
  ER_RETURN_IF_ERROR(ReadK(ctx, &k));
  Shape shape = ctx.input(0)->shape;
  shape.back() = static_cast<int32_t>(k);
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  return ctx.ResizeOutput(1, shape);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 2));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16,
                                TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and values output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(1), "k", {TensorType::kInt32, TensorType::kInt16}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(1), "indices output", {TensorType::kInt32, TensorType::kInt16}));
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  if (!ctx.input(1)->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    ctx.MarkDynamic(ctx.output(1));
    return Status::Ok();
  }
  return ResizeOutputs(ctx);
}

template <class T, class Index>
void TopK(const Tensor* input, int64_t k, Tensor* values, Tensor* indices) {
  const int64_t row = input->dim(input->rank() - 1);
  const int64_t rows = row == 0 ? 0 : input->num_elements() / row;
  std::vector<int64_t> order(row);
  for (int64_t r = 0; r < rows; ++r) {
    const T* in = input->data_as<T>() + r * row;
    std::iota(order.begin(), order.end(), 0);
    // Larger values first; among equal values the lower position first.
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [in](int64_t a, int64_t b) {
      return in[b] < in[a] || (!(in[a] < in[b]) && a < b);
    });
    for (int64_t j = 0; j < k; ++j) {
      values->data_as<T>()[r * k + j] = in[order[j]];
      indices->data_as<Index>()[r * k + j] = static_cast<Index>(order[j]);
    }
  }
}

template <class T>
void TopKFor(const Tensor* input, int64_t k, Tensor* values, Tensor* indices) {
  if (indices->type == TensorType::kInt16) TopK<T, int16_t>(input, k, values, indices);
  else TopK<T, int32_t>(input, k, values, indices);
}

Status Eval(OpContext& ctx) {
  if (ctx.output(0)->is_dynamic() || ctx.output(1)->is_dynamic()) ER_RETURN_IF_ERROR(ResizeOutputs(ctx));
  int64_t k = 0;
  ER_RETURN_IF_ERROR(ReadK(ctx, &k));
  const Tensor* input = ctx.input(0);
  Tensor* values = ctx.output(0);
  Tensor* indices = ctx.output(1);
  switch (input->type) {
    case TensorType::kFloat32: TopKFor<float>(input, k, values, indices); break;
    case TensorType::kUInt8: TopKFor<uint8_t>(input, k, values, indices); break;
    case TensorType::kInt8: TopKFor<int8_t>(input, k, values, indices); break;
    case TensorType::kInt16: TopKFor<int16_t>(input, k, values, indices); break;
    case TensorType::kInt32: TopKFor<int32_t>(input, k, values, indices); break;
    case TensorType::kInt64: TopKFor<int64_t>(input, k, values, indices); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterTopkV2() {
  return MakeBuiltin(tflite::BuiltinOperator_TOPK_V2, 3, "float32, uint8, int8, int16, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
