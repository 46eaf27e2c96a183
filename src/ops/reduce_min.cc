// REDUCE_MIN: the smallest element over the axes given by the second input; keep_dims keeps
// reduced dims as 1. Types, quantization and NaN handling: EvalReduceExtremum (reduce_util.h).
#include "ops/reduce_util.h"

namespace edgerun::ops {

OpRegistration RegisterReduceMin() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_REDUCE_MIN, 3,
                                           "float32, int32, int64, uint8, int8, int16", PrepareReduceExtremum,
                                           EvalReduceExtremum<false>);
}

}  // namespace edgerun::ops
