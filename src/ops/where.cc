// WHERE(condition): the coordinates of the true (non-zero) elements, row-major, as an int64
// tensor [num_true, rank]. The output's size depends on the values, so it is dynamic unless the
// condition is a constant.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

template <class T>
void TrueFlags(const Tensor* t, std::vector<bool>* flags) {
  const T* data = t->data_as<T>();
  for (int64_t i = 0, n = t->num_elements(); i < n; ++i) (*flags)[i] = data[i] != T(0);
}

Status TrueElements(OpContext& ctx, std::vector<bool>* flags) {
  const Tensor* condition = ctx.input(0);
  flags->assign(static_cast<size_t>(condition->num_elements()), false);
  if (condition->num_elements() > 0 && condition->data == nullptr) {
    return ctx.Error("condition ", Describe(condition), " has no data");
  }
  switch (condition->type) {
    case TensorType::kBool: TrueFlags<bool>(condition, flags); break;
    case TensorType::kFloat32: TrueFlags<float>(condition, flags); break;
    case TensorType::kInt8: TrueFlags<int8_t>(condition, flags); break;
    case TensorType::kUInt8: TrueFlags<uint8_t>(condition, flags); break;
    case TensorType::kInt32: TrueFlags<int32_t>(condition, flags); break;
    case TensorType::kUInt32: TrueFlags<uint32_t>(condition, flags); break;
    case TensorType::kInt64: TrueFlags<int64_t>(condition, flags); break;
    default: return ctx.Unsupported("condition ", Describe(condition), " has an unsupported type");
  }
  return Status::Ok();
}

Status OutputShape(OpContext& ctx, Shape* shape) {
  std::vector<bool> flags;
  ER_RETURN_IF_ERROR(TrueElements(ctx, &flags));
  *shape = {static_cast<int32_t>(std::count(flags.begin(), flags.end(), true)), ctx.input(0)->rank()};
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "condition",
                               {TensorType::kBool, TensorType::kFloat32, TensorType::kInt8, TensorType::kUInt8,
                                TensorType::kInt32, TensorType::kUInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt64}));
  return PrepareOutput(ctx, 0, ctx.input(0)->is_constant(), OutputShape);
}

Status Eval(OpContext& ctx) {
  ER_RETURN_IF_ERROR(ResizeDynamicOutput(ctx, 0, OutputShape));
  const Shape& shape = ctx.input(0)->shape;
  std::vector<bool> flags;
  ER_RETURN_IF_ERROR(TrueElements(ctx, &flags));
  int64_t* out = ctx.output(0)->data_as<int64_t>();
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i]) out = std::copy(index.begin(), index.end(), out);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterWhere() {
  return MakeBuiltin(tflite::BuiltinOperator_WHERE, 1, "bool, float32, int8, uint8, int32, uint32, int64 -> int64",
                     Prepare, Eval);
}

}  // namespace edgerun::ops
