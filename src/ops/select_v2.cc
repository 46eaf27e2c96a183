// SELECT_V2: condition ? x : y with numpy broadcasting of all three inputs. Any fixed-size
// element type.
#include "ops/select_util.h"

namespace edgerun::ops {
namespace {

using elementwise::SelectState;

Status Prepare(OpContext& ctx, SelectState& state) { return elementwise::PrepareSelect(ctx, state, true); }

Status Eval(OpContext& ctx, SelectState& state) { return elementwise::EvalSelect(ctx, state); }

}  // namespace

OpRegistration RegisterSelectV2() {
  return MakeBuiltinWithState<SelectState>(tflite::BuiltinOperator_SELECT_V2, 2, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
