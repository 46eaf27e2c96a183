// UNIQUE(x): y = the distinct values of the 1-D input in order of first appearance (dynamic
// output), idx = for each input element the position of its value in y (int32 or int64, the
// type of the idx output).
#include <map>

#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 2));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kInt8, TensorType::kUInt8, TensorType::kInt16,
                                TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output y"));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(1), "output idx", {TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 1, 1));
  ctx.MarkDynamic(ctx.output(0));
  return ctx.ResizeOutput(1, input->shape);
}

template <class T>
Status Unique(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  Tensor* idx = ctx.output(1);
  const T* in = input->data_as<T>();
  std::map<T, int64_t> position;  // value -> its index in y
  std::vector<T> unique;
  for (int64_t i = 0, n = input->num_elements(); i < n; ++i) {
    auto [it, inserted] = position.emplace(in[i], static_cast<int64_t>(unique.size()));
    if (inserted) unique.push_back(in[i]);
    if (idx->type == TensorType::kInt64) idx->data_as<int64_t>()[i] = it->second;
    else idx->data_as<int32_t>()[i] = static_cast<int32_t>(it->second);
  }
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {static_cast<int32_t>(unique.size())}));
  CopyBytes(ctx.output(0)->data, unique.data(), unique.size() * sizeof(T));
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: return Unique<float>(ctx);
    case TensorType::kInt8: return Unique<int8_t>(ctx);
    case TensorType::kUInt8: return Unique<uint8_t>(ctx);
    case TensorType::kInt16: return Unique<int16_t>(ctx);
    case TensorType::kInt32: return Unique<int32_t>(ctx);
    case TensorType::kInt64: return Unique<int64_t>(ctx);
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
}

}  // namespace

OpRegistration RegisterUnique() {
  return MakeBuiltin(tflite::BuiltinOperator_UNIQUE, 1, "float32, int8, uint8, int16, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
