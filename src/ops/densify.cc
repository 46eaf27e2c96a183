// DENSIFY: expands a sparse constant (SparsityParameters) into a dense tensor of the same type
// and shape. The input is a constant, so the work happens once, at prepare: the output owns its
// memory, becomes a constant that keeps its values across invocations, and eval has nothing to do.
// Types: float32, float16, int8 as TFLite, and every other fixed-size type.
#include <cstring>

#include "ops/sparsity_util.h"

namespace edgerun::ops {
namespace {

struct DensifyState {
  std::vector<uint8_t> dense;
};

Status Prepare(OpContext& ctx, DensifyState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, output, "input and output"));
  if (!input->is_constant()) return ctx.Error("input ", Describe(input), " must be a constant");
  if (input->sparsity == nullptr) return ctx.Error("input ", Describe(input), " has no sparsity parameters");
  ER_RETURN_IF_ERROR(DensifyConstant(ctx, input, &state.dense));
  // Owned memory the planner leaves alone, so the values written here stay.
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, input->shape));
  output->allocation = Allocation::kPersistent;
  ER_RETURN_IF_ERROR(ctx.subgraph().AllocateOwned(output));
  if (output->bytes != state.dense.size()) {
    return ctx.Error("internal error: densified ", state.dense.size(), " bytes for ", Describe(output));
  }
  if (!state.dense.empty()) std::memcpy(output->data, state.dense.data(), state.dense.size());
  state.dense = {};
  // From now on the output is a constant, as LiteRT's default (XNNPACK) path treats densified
  // weights: the ops after it see static weights (e.g. 8-bit convolutions then requantize as
  // they do for weights stored dense).
  output->allocation = Allocation::kConstant;
  return Status::Ok();
}

Status Eval(OpContext&, DensifyState&) { return Status::Ok(); }

}  // namespace

OpRegistration RegisterDensify() {
  return MakeBuiltinWithState<DensifyState>(tflite::BuiltinOperator_DENSIFY, 1,
                                            "float32, float16, int8 (any fixed-size type)", Prepare, Eval);
}

}  // namespace edgerun::ops
