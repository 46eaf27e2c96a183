// ARG_MAX: index of the largest element along one axis (from a 0-D or 1-D tensor); ties give
// the smallest index. Output int32 or int64 as ArgMaxOptions / ArgMinOptions.output_type says.
#include "ops/arg_min_max_util.h"

namespace edgerun::ops {

OpRegistration RegisterArgMax() {
  return MakeBuiltin(
      tflite::BuiltinOperator_ARG_MAX, 3, "float32, int32, int64, uint8, int8, int16, bool -> int32, int64",
      [](OpContext& ctx) { return PrepareArgMinMax(ctx, /*is_max=*/true); },
      [](OpContext& ctx) { return EvalArgMinMax(ctx, /*is_max=*/true); });
}

}  // namespace edgerun::ops
