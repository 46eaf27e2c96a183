// STABLEHLO_PAD: pads `operand` with the one value of `padding_value`: edge_padding_low/high
// elements before/after each dim (negative values crop) and interior_padding elements between
// neighbours. Output dim = d + (d - 1) * interior + low + high. As in TFLite, a non-positive
// output dim makes the whole output shape zeros. Types: any fixed-size type.
#include <cstring>

#include "ops/shape_util.h"
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

struct PadState {
  std::vector<int64_t> low, high, interior;
};

Status ReadPadding(OpContext& ctx, const std::vector<int64_t>& v, const char* name, int rank,
                   std::vector<int64_t>* out) {
  if (v.empty()) {
    out->assign(rank, 0);
    return Status::Ok();
  }
  if (static_cast<int>(v.size()) != rank) {
    return ctx.Error(name, " has ", v.size(), " values for an operand of rank ", rank);
  }
  for (int64_t p : v) {
    if (p < -(int64_t{1} << 31) || p > (int64_t{1} << 31)) return ctx.Error(name, " value ", p, " is out of range");
  }
  *out = v;
  return Status::Ok();
}

Status Prepare(OpContext& ctx, PadState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* operand = ctx.input(0);
  const Tensor* padding_value = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, padding_value, "operand and padding_value"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, ctx.output(0), "operand and output"));
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, operand, "operand", &element));
  if (padding_value->num_elements() != 1) {
    return ctx.Error("padding_value ", Describe(padding_value), " must hold one value");
  }
  const int rank = operand->rank();
  if (rank < 1) return ctx.Error("operand ", Describe(operand), " must have rank >= 1");
  const auto* o = Options2<tflite::StablehloPadOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing StablehloPadOptions");
  ER_RETURN_IF_ERROR(ReadPadding(ctx, stablehlo::ReadLongs(o->edge_padding_low()), "edge_padding_low", rank, &state.low));
  ER_RETURN_IF_ERROR(
      ReadPadding(ctx, stablehlo::ReadLongs(o->edge_padding_high()), "edge_padding_high", rank, &state.high));
  ER_RETURN_IF_ERROR(
      ReadPadding(ctx, stablehlo::ReadLongs(o->interior_padding()), "interior_padding", rank, &state.interior));
  Shape shape(rank);
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    if (state.interior[d] < 0) return ctx.Error("interior_padding ", state.interior[d], " is negative");
    const int64_t in = operand->dim(d);
    const int64_t out = in + std::max<int64_t>(in - 1, 0) * state.interior[d] + state.low[d] + state.high[d];
    if (out > std::numeric_limits<int32_t>::max()) return ctx.Error("output dim ", d, " (", out, ") is too large");
    if (out <= 0) empty = true;
    shape[d] = static_cast<int32_t>(std::max<int64_t>(out, 0));
  }
  if (empty) std::fill(shape.begin(), shape.end(), 0);
  if (NumElements(shape) < 0) return ctx.Error("output shape ", ShapeToString(shape), " is too large");
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, PadState& state) {
  const Tensor* operand = ctx.input(0);
  Tensor* output = ctx.output(0);
  const size_t element = TensorTypeSize(operand->type);
  const int rank = operand->rank();
  const uint8_t* in = operand->data_as<uint8_t>();
  const uint8_t* pad = ctx.input(1)->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  if (output->num_elements() == 0) return Status::Ok();
  // Each output coordinate o maps to operand coordinate (o - low) / (interior + 1) when that
  // divides exactly and lands inside the operand; everything else is padding.
  std::vector<int64_t> index(rank, 0);
  int64_t position = 0;
  do {
    int64_t source = 0;
    bool inside = true;
    for (int d = 0; d < rank && inside; ++d) {
      const int64_t step = state.interior[d] + 1;
      const int64_t shifted = index[d] - state.low[d];
      if (shifted < 0 || shifted % step != 0 || shifted / step >= operand->dim(d)) inside = false;
      else source = source * operand->dim(d) + shifted / step;
    }
    std::memcpy(out + position * element, inside ? in + source * element : pad, element);
    ++position;
  } while (stablehlo::NextIndex(output->shape, index));
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloPad() {
  return MakeBuiltinWithState<PadState>(tflite::BuiltinOperator_STABLEHLO_PAD, 1, "any fixed-size type", Prepare,
                                        Eval);
}

}  // namespace edgerun::ops
