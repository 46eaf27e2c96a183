// SELECT: condition ? x : y; the condition has x's shape, is a scalar, or selects whole slices
// along dimension 0 (TFLite's v1 rules). Any fixed-size element type.
#include "ops/select_util.h"

namespace edgerun::ops {
namespace {

using elementwise::SelectState;

Status Prepare(OpContext& ctx, SelectState& state) { return elementwise::PrepareSelect(ctx, state, false); }

Status Eval(OpContext& ctx, SelectState& state) { return elementwise::EvalSelect(ctx, state); }

}  // namespace

OpRegistration RegisterSelect() {
  return MakeBuiltinWithState<SelectState>(tflite::BuiltinOperator_SELECT, 4, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
