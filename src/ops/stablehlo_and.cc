// STABLEHLO_AND: element-wise bitwise AND of two integer tensors (logical AND for bool) of the
// same shape and type. Types: int8/16/32/64, uint8/16/32/64, bool (floats are an error, as in
// TFLite).
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

bool IsFloat(TensorType t) {
  return t == TensorType::kFloat16 || t == TensorType::kFloat32 || t == TensorType::kFloat64;
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(stablehlo::PrepareSameShapeBinary(ctx));
  const TensorType type = ctx.input(0)->type;
  if (IsFloat(type)) return ctx.Error("AND is not defined on ", TensorTypeName(type));
  if (!stablehlo::IsElementwiseType(type)) return ctx.Unsupported("type ", TensorTypeName(type), " is not supported");
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  return stablehlo::EvalSameShapeBinary(
      ctx,
      [](auto a, auto b) {
        using T = decltype(a);
        if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
        else return a;  // not reached: floats are rejected at prepare
      },
      /*with_float16=*/false);
}

}  // namespace

OpRegistration RegisterStablehloAnd() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_AND, 1, "int8/16/32/64, uint8/16/32/64, bool", Prepare, Eval);
}

}  // namespace edgerun::ops
