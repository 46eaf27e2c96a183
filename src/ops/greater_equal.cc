// GREATER_EQUAL: a >= b element by element with broadcasting, into a bool tensor.
// float32, int8, uint8, int16, int32, int64; quantized inputs compare real values (comparison_util.h).
#include "ops/comparison_util.h"

namespace edgerun::ops {
namespace {

using elementwise::ComparisonState;

Status Prepare(OpContext& ctx, ComparisonState& state) {
  return elementwise::PrepareComparison(ctx, state, elementwise::ComparisonKind::kOrdering);
}

Status Eval(OpContext& ctx, ComparisonState& state) {
  return elementwise::EvalComparison(ctx, state, [](const auto& a, const auto& b) { return a >= b; });
}

}  // namespace

OpRegistration RegisterGreaterEqual() {
  return MakeBuiltinWithState<ComparisonState>(tflite::BuiltinOperator_GREATER_EQUAL, 3,
                                               "float32, int8, uint8, int16, int32, int64", Prepare, Eval);
}

}  // namespace edgerun::ops
