// MAXIMUM: the larger of a and b with broadcasting; float32, int8, uint8, int16, int32, int64. Quantized
// values are compared as stored, as TFLite does (inputs and output share their quantization).
// NaN: a NaN in b wins, a NaN in a loses (TFLite's a > b ? a : b).
#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

constexpr std::initializer_list<TensorType> kTypes = {TensorType::kFloat32, TensorType::kInt8,  TensorType::kUInt8,
                                                      TensorType::kInt16,   TensorType::kInt32, TensorType::kInt64};

Status Prepare(OpContext& ctx) { return PrepareBinary(ctx, kTypes); }

Status Eval(OpContext& ctx) {
  elementwise::VisitType(ctx.input(0)->type, [&](auto tag) {
    using T = decltype(tag);
    elementwise::BroadcastInputs<T, T>(ctx, [](T a, T b) { return a > b ? a : b; });
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterMaximum() {
  return MakeBuiltin(tflite::BuiltinOperator_MAXIMUM, 4, "float32, int8, uint8, int16, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
