// Shared prepare and eval of ARG_MAX and ARG_MIN: the axis comes from a 0-D or 1-D int32 / int64
// tensor of one element, the output (int32 or int64, ArgMaxOptions / ArgMinOptions.output_type)
// drops that axis.
#pragma once

#include "ops/op_util.h"

namespace edgerun::ops {

Status PrepareArgMinMax(OpContext& ctx, bool is_max);
Status EvalArgMinMax(OpContext& ctx, bool is_max);

}  // namespace edgerun::ops
