// REDUCE_WINDOW (TFLite's own, deprecated form of STABLEHLO_REDUCE_WINDOW): reduces windows of
// `input` with the reduce_function option (ADD, MUL, MINIMUM, MAXIMUM, ALL, ANY) starting from
// `init_value`; window_dimensions, window_strides and window_dilations are constant int64
// inputs; no base dilation and no padding. Types: bool, int8/16/32/64, uint8, float32, float64.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

using stablehlo::Body;

struct ReduceWindowState {
  reference::WindowGeometry geometry;
  Body body = Body::kOther;
};

Status ReadWindowInput(OpContext& ctx, int i, const char* name, int rank, std::vector<int64_t>* out) {
  const Tensor* t = ctx.input(i);
  ER_RETURN_IF_ERROR(CheckType(ctx, t, name, {TensorType::kInt64}));
  if (!t->is_constant()) return ctx.Error(name, " ", Describe(t), " must be a constant");
  if (t->num_elements() != rank) return ctx.Error(name, " ", Describe(t), " must hold ", rank, " values");
  ER_RETURN_IF_ERROR(ReadInts(ctx, t, name, out));
  for (int64_t x : *out) {
    if (x <= 0 || x > (int64_t{1} << 31)) return ctx.Error(name, " value ", x, " must be in [1, 2^31]");
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, ReduceWindowState& s) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 5, 5, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* init = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, init, "input and init_value"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (init->num_elements() != 1) return ctx.Error("init_value ", Describe(init), " must hold one value");
  const int rank = input->rank();
  if (rank < 1) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  reference::WindowGeometry& g = s.geometry;
  ER_RETURN_IF_ERROR(ReadWindowInput(ctx, 2, "window_dimensions", rank, &g.window));
  ER_RETURN_IF_ERROR(ReadWindowInput(ctx, 3, "window_strides", rank, &g.strides));
  ER_RETURN_IF_ERROR(ReadWindowInput(ctx, 4, "window_dilations", rank, &g.window_dilations));
  g.input.assign(input->shape.begin(), input->shape.end());
  g.base_dilations.assign(rank, 1);
  g.pad_low.assign(rank, 0);
  g.pad_high.assign(rank, 0);
  const auto* o = Options2<tflite::ReduceWindowOptions>(ctx);
  switch (o ? o->reduce_function() : tflite::ReduceWindowFunction_UNSUPPORTED) {
    case tflite::ReduceWindowFunction_ADD: s.body = Body::kAdd; break;
    case tflite::ReduceWindowFunction_MUL: s.body = Body::kMul; break;
    case tflite::ReduceWindowFunction_MINIMUM: s.body = Body::kMin; break;
    case tflite::ReduceWindowFunction_MAXIMUM: s.body = Body::kMax; break;
    case tflite::ReduceWindowFunction_ALL: s.body = Body::kAnd; break;
    case tflite::ReduceWindowFunction_ANY: s.body = Body::kOr; break;
    default: return ctx.Error("unsupported reduce_function");
  }
  if (!stablehlo::ReduceWindowFastPath(s.body, input->type)) {
    return ctx.Unsupported("type ", TensorTypeName(input->type), " is not supported");
  }
  reference::ComputeWindowOutput(g);
  Shape shape;
  for (int64_t d : g.output) shape.push_back(static_cast<int32_t>(d));
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, ReduceWindowState& s) {
  return stablehlo::RunReduceWindow(ctx, s.geometry, s.body, nullptr, ctx.input(0), ctx.input(1), ctx.output(0));
}

}  // namespace

OpRegistration RegisterReduceWindow() {
  return MakeBuiltinWithState<ReduceWindowState>(tflite::BuiltinOperator_REDUCE_WINDOW, 1,
                                                 "bool, int8/16/32/64, uint8, float32, float64", Prepare, Eval);
}

}  // namespace edgerun::ops
