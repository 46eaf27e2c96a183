// STABLEHLO_REDUCE_WINDOW: reduces windows of `input` (dilated by base_dilations and padded by
// `padding` (low, high) pairs with `init_value`; negative padding crops) with the body
// subgraph, one output element per window position (window_dimensions, window_strides,
// window_dilations). A body of one ADD/MUL/MAXIMUM/MINIMUM/AND/OR op runs with TFLite's kernel;
// any other body subgraph is called per element. Missing options default to 1 (strides,
// dilations) and 0 (padding). Types: bool, int8/16/32/64, uint8, float32, float64 with a
// recognized body; any fixed-size type with a general body.
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

using stablehlo::Body;

struct ReduceWindowState {
  reference::WindowGeometry geometry;
  Body body = Body::kOther;
  stablehlo::BodyCaller caller;
  bool use_caller = false;
};

Status LoadOption(OpContext& ctx, const flatbuffers::Vector<int64_t>* v, const char* name, size_t size, int64_t fill,
                  bool positive, std::vector<int64_t>* out) {
  if (v == nullptr || v->size() == 0) {
    out->assign(size, fill);
    return Status::Ok();
  }
  if (v->size() != size) return ctx.Error(name, " has ", v->size(), " values, expected ", size);
  *out = ReadInt64Vector(v);
  for (int64_t x : *out) {
    if (positive && x <= 0) return ctx.Error(name, " value ", x, " must be positive");
    if (x < -(int64_t{1} << 31) || x > (int64_t{1} << 31)) return ctx.Error(name, " value ", x, " is out of range");
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, ReduceWindowState& s) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* init = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, init, "input and init_value"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (init->num_elements() != 1) return ctx.Error("init_value ", Describe(init), " must hold one value");
  if (!IsFixedSizeType(input->type)) return ctx.Unsupported("type ", TensorTypeName(input->type), " is not supported");
  const int rank = input->rank();
  if (rank < 1) return ctx.Error("input ", Describe(input), " must have rank >= 1");
  const auto* o = Options2<tflite::StablehloReduceWindowOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing StablehloReduceWindowOptions");
  if (o->window_dimensions() == nullptr || o->window_dimensions()->size() == 0) {
    return ctx.Error("window_dimensions is required");
  }
  reference::WindowGeometry& g = s.geometry;
  ER_RETURN_IF_ERROR(LoadOption(ctx, o->window_dimensions(), "window_dimensions", rank, 1, true, &g.window));
  ER_RETURN_IF_ERROR(LoadOption(ctx, o->window_strides(), "window_strides", rank, 1, true, &g.strides));
  ER_RETURN_IF_ERROR(LoadOption(ctx, o->base_dilations(), "base_dilations", rank, 1, true, &g.base_dilations));
  ER_RETURN_IF_ERROR(LoadOption(ctx, o->window_dilations(), "window_dilations", rank, 1, true, &g.window_dilations));
  std::vector<int64_t> padding;
  ER_RETURN_IF_ERROR(LoadOption(ctx, o->padding(), "padding", 2 * rank, 0, false, &padding));
  g.input.assign(input->shape.begin(), input->shape.end());
  g.pad_low.resize(rank);
  g.pad_high.resize(rank);
  bool padded = false;
  for (int d = 0; d < rank; ++d) {
    g.pad_low[d] = padding[2 * d];
    g.pad_high[d] = padding[2 * d + 1];
    padded = padded || g.pad_low[d] != 0 || g.pad_high[d] != 0;
  }
  for (int d = 0; d < rank; ++d) {
    if (g.Padded(d) < 0 || (padded && g.Padded(d) == 0)) {
      return ctx.Error("the padding of dim ", d, " (", g.pad_low[d], ", ", g.pad_high[d], ") leaves an empty tensor");
    }
  }
  // TFLite builds the dilated and padded input as a temporary: it must fit the tensor size limit.
  double padded_bytes = static_cast<double>(TensorTypeSize(input->type));
  for (int d = 0; d < rank; ++d) padded_bytes *= static_cast<double>(g.Padded(d));
  if (padded_bytes > static_cast<double>(ctx.interpreter().options().max_tensor_bytes)) {
    return ctx.Error("the dilated and padded input of ", Describe(input), " would need ", padded_bytes,
                     " bytes, over the tensor size limit");
  }
  reference::ComputeWindowOutput(g);
  Shape shape;
  for (int64_t d : g.output) {
    if (d > std::numeric_limits<int32_t>::max()) return ctx.Error("output dim ", d, " is too large");
    shape.push_back(static_cast<int32_t>(d));
  }
  Subgraph* body;
  ER_RETURN_IF_ERROR(CalledSubgraph(ctx, o->body_subgraph_index(), "body", &body));
  s.body = stablehlo::ClassifyBody(*body);
  s.use_caller = !stablehlo::ReduceWindowFastPath(s.body, input->type);
  if (s.use_caller) ER_RETURN_IF_ERROR(s.caller.Prepare(ctx, body, input->type));
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, ReduceWindowState& s) {
  return stablehlo::RunReduceWindow(ctx, s.geometry, s.body, s.use_caller ? &s.caller : nullptr, ctx.input(0),
                                    ctx.input(1), ctx.output(0));
}

}  // namespace

OpRegistration RegisterStablehloReduceWindow() {
  return MakeBuiltinWithState<ReduceWindowState>(
      tflite::BuiltinOperator_STABLEHLO_REDUCE_WINDOW, 1,
      "bool, int8/16/32/64, uint8, float32, float64 (any fixed-size type with a general body)", Prepare, Eval);
}

}  // namespace edgerun::ops
