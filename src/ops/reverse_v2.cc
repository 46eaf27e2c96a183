// REVERSE_V2(input, axis): reverses the input along each dimension listed in the 1-D int32 axis
// tensor (negative axes count from the end; an axis may not repeat).
#include <numeric>

#include "kernels/reference/layout.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

constexpr int kMaxRank = 8;

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* axis = ctx.input(1);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, axis, "axis", {TensorType::kInt32, TensorType::kInt64}));
  if (axis->rank() != 1 || axis->num_elements() > input->rank()) {
    return ctx.Error("axis ", Describe(axis), " must be 1-D with at most ", input->rank(), " values");
  }
  if (input->rank() > kMaxRank) return ctx.Unsupported("input rank ", input->rank(), " is over ", kMaxRank);
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> axes;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "axis", &axes));
  const int rank = input->rank();
  std::vector<std::vector<int32_t>> maps(rank);
  std::vector<bool> reversed(rank, false);
  for (int64_t value : axes) {
    int axis = 0;
    ER_RETURN_IF_ERROR(NormalizeAxis(ctx, value, rank, &axis));
    if (reversed[axis]) return ctx.Error("axis ", value, " is listed twice");
    reversed[axis] = true;
  }
  // An empty tensor may declare any other dimension: no index maps sized from those.
  if (input->num_elements() == 0) return Status::Ok();
  for (int d = 0; d < rank; ++d) {
    maps[d].resize(input->dim(d));
    std::iota(maps[d].begin(), maps[d].end(), 0);
    if (reversed[d]) std::reverse(maps[d].begin(), maps[d].end());
  }
  reference::GatherPerDim(input->shape, maps, TensorTypeSize(input->type), input->data_as<uint8_t>(),
                          ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReverseV2() {
  return MakeBuiltin(tflite::BuiltinOperator_REVERSE_V2, 3, "any fixed-size type", Prepare, Eval);
}

}  // namespace edgerun::ops
