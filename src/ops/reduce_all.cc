// REDUCE_ALL: true when every element is true, over the axes given by the second input (bool);
// keep_dims keeps reduced dims as 1. An empty reduction gives true.
#include "ops/reduce_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, ReduceState& state) { return PrepareReduce(ctx, state, {TensorType::kBool}); }

Status Eval(OpContext& ctx, ReduceState& state) {
  ER_RETURN_IF_ERROR(ResolveReduce(ctx, state));
  // Stored bools are bytes that a file or caller may set to values other than 0 and 1.
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  // Written as 0 / 1 (any order gives the same answer: the fold is associative).
  optimized::ReduceFoldOrderedRows(
      ctx.thread_pool(), input->shape, state.reduced, input->data_as<uint8_t>(), output->data_as<uint8_t>(),
      output->num_elements(), /*from_first=*/false, uint8_t{true},
      [](uint8_t acc, uint8_t x) -> uint8_t { return acc & (x != 0); }, optimized::AllTrueRow{});
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReduceAll() {
  return MakeBuiltinWithState<ReduceState>(tflite::BuiltinOperator_REDUCE_ALL, 1, "bool", Prepare, Eval);
}

}  // namespace edgerun::ops
