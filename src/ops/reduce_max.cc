// REDUCE_MAX: the largest element over the axes given by the second input; keep_dims keeps
// reduced dims as 1. Quantized types compare stored values, so input and output must share scale
// and zero point. Elements are folded in input order as acc = (acc > x) ? acc : x, which
// is how TFLite treats NaN; an empty reduction gives std::numeric_limits<T>::lowest().
#include <limits>

#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(PrepareReduce(ctx, state,
                                   {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt64, TensorType::kUInt8,
                                    TensorType::kInt8, TensorType::kInt16}));
  return CheckSameQuantization(ctx);
}

template <class T>
void ReduceMax(OpContext& ctx, const ReduceState& state) {
  ReduceEach<T>(ctx, state, std::numeric_limits<T>::lowest(), [](T acc, T x) { return (acc > x) ? acc : x; });
}

Status Eval(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  switch (ctx.input(0)->type) {
    case TensorType::kFloat32: ReduceMax<float>(ctx, state); break;
    case TensorType::kInt32: ReduceMax<int32_t>(ctx, state); break;
    case TensorType::kInt64: ReduceMax<int64_t>(ctx, state); break;
    case TensorType::kUInt8: ReduceMax<uint8_t>(ctx, state); break;
    case TensorType::kInt8: ReduceMax<int8_t>(ctx, state); break;
    case TensorType::kInt16: ReduceMax<int16_t>(ctx, state); break;
    default: return ctx.Unsupported("unsupported type ", TensorTypeName(ctx.input(0)->type));
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReduceMax() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_REDUCE_MAX, 3,
                                           "float32, int32, int64, uint8, int8, int16", Prepare, Eval);
}

}  // namespace edgerun::ops
