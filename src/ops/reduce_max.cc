// REDUCE_MAX: the largest element over the axes given by the second input; keep_dims keeps
// reduced dims as 1. Types, quantization and NaN handling: EvalReduceExtremum (reduce_util.h).
#include "ops/reduce_util.h"

namespace edgerun::ops {

OpRegistration RegisterReduceMax() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_REDUCE_MAX, 3,
                                           "float32, int32, int64, uint8, int8, int16", PrepareReduceExtremum,
                                           EvalReduceExtremum<true>);
}

}  // namespace edgerun::ops
