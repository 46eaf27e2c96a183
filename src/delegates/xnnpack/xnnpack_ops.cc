// Which TFLite ops the Debian XNNPACK (git 2022-02-16, graph API) runs, and how. The choices
// follow TFLite's XNNPACK delegate of the same generation: what it refuses we refuse (so results
// match LiteRT's default path), and where this XNNPACK lacks an op or a type the node is refused
// with that reason.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "delegates/xnnpack/xnnpack_graph.h"
#include "ops/op_util.h"
#include "tflite_generated.h"

namespace edgerun::xnnpack {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// `decl` = the value of a Result, or return its status.
#define ER_ASSIGN_OR_RETURN_VALUE(decl, expr)                                  \
  auto ER_CONCAT(result_, __LINE__) = (expr);                                 \
  if (!ER_CONCAT(result_, __LINE__).ok()) return ER_CONCAT(result_, __LINE__).status(); \
  decl = *ER_CONCAT(result_, __LINE__)

template <class... Args>
Status Refuse(const Args&... args) {
  return Status::Unsupported(StrCat(args...));
}

// The node's tensors, with refusals for missing ones.
struct Io {
  const OpContext& ctx;
  int in(int i) const { return ctx.input_tensor_index(i); }
  int out(int i) const { return ctx.output_tensor_index(i); }
  const Tensor* input(int i) const { return ctx.input(i); }
  const Tensor* output(int i) const { return ctx.output(i); }
};

Status CheckCounts(const OpContext& ctx, int min_inputs, int max_inputs, int outputs) {
  if (ctx.num_inputs() < min_inputs || ctx.num_inputs() > max_inputs || ctx.num_outputs() != outputs) {
    return Refuse("unexpected number of inputs or outputs");
  }
  for (int i = 0; i < min_inputs; ++i) {
    if (ctx.input(i) == nullptr) return Refuse("input ", i, " is missing");
  }
  return Status::Ok();
}

Kind KindOrRefuse(const Tensor* t, Status* status) {
  std::string why;
  const Kind k = KindOf(*t, &why);
  if (k == Kind::kNone) *status = Status::Unsupported(why);
  return k;
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kF32: return "float32";
    case Kind::kQS8: return "int8";
    case Kind::kQU8: return "uint8";
    default: return "?";
  }
}

// Every listed tensor has one of `allowed` kinds, all the same kind.
Status SameKind(std::initializer_list<const Tensor*> tensors, std::initializer_list<Kind> allowed, Kind* out) {
  Kind first = Kind::kNone;
  for (const Tensor* t : tensors) {
    Status st;
    const Kind k = KindOrRefuse(t, &st);
    ER_RETURN_IF_ERROR(st);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      return Refuse(KindName(k), " is not supported for this op by this XNNPACK");
    }
    if (first == Kind::kNone) first = k;
    if (k != first) return Refuse("mixed types");
  }
  if (out) *out = first;
  return Status::Ok();
}

const std::initializer_list<Kind> kFloatOnly = {Kind::kF32};
const std::initializer_list<Kind> kAll = {Kind::kF32, Kind::kQS8, Kind::kQU8};

// Quantized ops that move values without arithmetic need equal quantization in and out.
// This XNNPACK's unary, convert and copy operators take the channel count from the last
// dimension and assert (abort) on a 0-D tensor, so those ops keep scalars on the builtin kernels.
Status NotScalar(const Tensor* t) {
  if (t->rank() < 1) return Refuse("0-D tensor '", t->name, "': this XNNPACK needs at least one dimension here");
  return Status::Ok();
}

Status SameQuantization(const Tensor* a, const Tensor* b) {
  if (a->type == TensorType::kFloat32) return Status::Ok();
  if (a->scale() != b->scale() || a->zero_point() != b->zero_point()) {
    return Refuse("input and output quantization differ (this XNNPACK cannot requantize here)");
  }
  return Status::Ok();
}

Status ActivationRange(tflite::ActivationFunctionType act, float* min, float* max) {
  *min = -kInf;
  *max = kInf;
  switch (act) {
    case tflite::ActivationFunctionType_NONE: return Status::Ok();
    case tflite::ActivationFunctionType_RELU: *min = 0; return Status::Ok();
    case tflite::ActivationFunctionType_RELU_N1_TO_1: *min = -1; *max = 1; return Status::Ok();
    case tflite::ActivationFunctionType_RELU6: *min = 0; *max = 6; return Status::Ok();
    default: return Refuse("fused activation ", tflite::EnumNameActivationFunctionType(act), " is not supported");
  }
}

// XNNPACK's 8-bit convolution and matrix kernels need input x weight scale / output scale in
// [2^-32, 256): outside it, Debian's build (assertions on) aborts the process (fuzz_invoke found a
// scale under 2^-32). Checked in double and in float as XNNPACK computes it, so that rounding at
// either edge cannot slip through.
Status CheckRequantization(const Tensor* input, const Tensor* filter, const Tensor* output) {
  if (input->type == TensorType::kFloat32) return Status::Ok();
  constexpr double kMin = 0x1.0p-32, kMax = 256.0;
  for (float fs : filter->quantization.scale) {
    const double scale = static_cast<double>(input->scale()) * fs / output->scale();
    const float scale_f = input->scale() * fs / output->scale();
    if (!(scale >= kMin && scale < kMax) || !(scale_f >= static_cast<float>(kMin) && scale_f < static_cast<float>(kMax))) {
      return Refuse("requantization scale ", scale, " is out of XNNPACK's range [2^-32, 256)");
    }
  }
  return Status::Ok();
}

// Float input with 8-bit weights and no DEQUANTIZE: TFLite's "dynamic range" (hybrid) ops.
bool IsHybrid(GraphBuilder& b, const Tensor* input, int filter) {
  return input->type == TensorType::kFloat32 && b.graph().tensor(filter)->type != TensorType::kFloat32 &&
         FoldableDequantize(b.graph(), filter) < 0;
}

Status ConvWeightsKind(GraphBuilder& b, const Tensor* input, int filter, int bias) {
  const Tensor* f = b.graph().tensor(filter);
  if (IsHybrid(b, input, filter)) {
    return Refuse("dynamic-range quantization (float input, ", TensorTypeName(f->type),
                  " weights): this XNNPACK has no dynamically quantized kernels");
  }
  if (!b.IsStatic(filter)) return Refuse("weights '", f->name, "' are not constant");
  if (bias >= 0 && !b.IsStatic(bias)) return Refuse("bias is not constant");
  const bool want_float = input->type == TensorType::kFloat32;
  if (want_float != (f->type == TensorType::kFloat32 || FoldableDequantize(b.graph(), filter) >= 0)) {
    return Refuse("weights type ", TensorTypeName(f->type), " does not match the input");
  }
  if (input->type == TensorType::kUInt8 && f->type != TensorType::kUInt8) return Refuse("uint8 input needs uint8 weights");
  if (input->type == TensorType::kInt8 && f->type != TensorType::kInt8) {
    return Refuse(TensorTypeName(f->type), " weights with int8 input are not supported by this XNNPACK");
  }
  return Status::Ok();
}

uint32_t PaddingFlags(tflite::Padding padding) {
  return padding == tflite::Padding_SAME ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
}

// ---- ops

Status Conv2D(GraphBuilder& b, const OpContext& ctx, OpTraits* traits) {
  traits->heavy = true;
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 3, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  const auto* o = ops::Options<tflite::Conv2DOptions>(ctx);
  if (o == nullptr) return Refuse("missing options");
  Kind kind;
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, &kind));
  ER_RETURN_IF_ERROR(ConvWeightsKind(b, input, io.in(1), io.in(2)));
  const Tensor* filter = io.input(1);
  if (input->rank() != 4 || filter->rank() != 4) return Refuse("needs 4-D input and weights");
  ER_RETURN_IF_ERROR(CheckRequantization(input, filter, output));
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(o->fused_activation_function(), &min, &max));
  const int in_c = input->dim(3), out_c = filter->dim(0), f_c = filter->dim(3);
  const int groups = in_c / f_c;
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t filter_id, b.Filter(io.in(1), 0));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t bias_id, b.Bias(io.in(2), io.in(0), io.in(1)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_convolution_2d(b.subgraph(), 0, 0, 0, 0, filter->dim(1), filter->dim(2), o->stride_h(),
                                           o->stride_w(), o->dilation_h_factor(), o->dilation_w_factor(), groups, f_c,
                                           out_c / groups, min, max, in_id, filter_id, bias_id, out_id,
                                           PaddingFlags(o->padding())),
                 "CONV_2D");
}

Status DepthwiseConv2D(GraphBuilder& b, const OpContext& ctx, OpTraits* traits) {
  traits->heavy = true;
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 3, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  const auto* o = ops::Options<tflite::DepthwiseConv2DOptions>(ctx);
  if (o == nullptr) return Refuse("missing options");
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  ER_RETURN_IF_ERROR(ConvWeightsKind(b, input, io.in(1), io.in(2)));
  const Tensor* filter = io.input(1);
  if (input->rank() != 4 || filter->rank() != 4 || filter->dim(0) != 1) return Refuse("needs 4-D input and [1,H,W,C] weights");
  const int in_c = input->dim(3), out_c = filter->dim(3);
  if (in_c <= 0 || out_c % in_c != 0) return Refuse("output channels are not a multiple of the input channels");
  ER_RETURN_IF_ERROR(CheckRequantization(input, filter, output));
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(o->fused_activation_function(), &min, &max));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t filter_id, b.Filter(io.in(1), 3));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t bias_id, b.Bias(io.in(2), io.in(0), io.in(1)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_depthwise_convolution_2d(
                     b.subgraph(), 0, 0, 0, 0, filter->dim(1), filter->dim(2), o->stride_h(), o->stride_w(),
                     o->dilation_h_factor(), o->dilation_w_factor(), out_c / in_c, in_c, min, max, in_id, filter_id,
                     bias_id, out_id, PaddingFlags(o->padding())),
                 "DEPTHWISE_CONV_2D");
}

Status TransposeConv(GraphBuilder& b, const OpContext& ctx, OpTraits* traits) {
  traits->heavy = true;
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 3, 4, 1));
  Io io{ctx};
  const Tensor* input = io.input(2);
  const Tensor* output = io.output(0);
  const auto* o = ops::Options<tflite::TransposeConvOptions>(ctx);
  if (o == nullptr) return Refuse("missing options");
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  const int bias = ctx.num_inputs() > 3 ? io.in(3) : -1;
  ER_RETURN_IF_ERROR(ConvWeightsKind(b, input, io.in(1), bias));
  const Tensor* filter = io.input(1);
  if (filter->quantization.per_channel()) return Refuse("per-channel weights: this XNNPACK has no per-channel deconvolution");
  if (input->rank() != 4 || filter->rank() != 4 || output->rank() != 4) return Refuse("needs 4-D tensors");
  ER_RETURN_IF_ERROR(CheckRequantization(input, filter, output));
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(o->fused_activation_function(), &min, &max));
  // TFLite's padding is that of a convolution from the output back to the input; XNNPACK
  // crops `padding` from a full deconvolution and adds `adjustment` rows at the end.
  // In 64 bits: the stride comes from the file and may be anything the builtin kernel accepts.
  auto geometry = [&](int64_t in, int64_t out, int64_t k, int64_t stride, uint32_t* before, uint32_t* after,
                      uint32_t* adjust) {
    if (stride < 1 || stride > INT32_MAX || in < 1 || k < 1) return false;
    const int64_t full = (in - 1) * stride + k;
    if (full > INT32_MAX) return false;
    const int64_t total = o->padding() == tflite::Padding_SAME ? std::max<int64_t>(0, full - out) : 0;
    *before = static_cast<uint32_t>(total / 2);
    *after = static_cast<uint32_t>(total - total / 2);
    const int64_t adj = out - (full - total);
    *adjust = static_cast<uint32_t>(std::max<int64_t>(0, adj));
    return adj >= 0 && adj < stride;
  };
  uint32_t top, bottom, adj_h, left, right, adj_w;
  if (!geometry(input->dim(1), output->dim(1), filter->dim(1), o->stride_h(), &top, &bottom, &adj_h) ||
      !geometry(input->dim(2), output->dim(2), filter->dim(2), o->stride_w(), &left, &right, &adj_w)) {
    return Refuse("output size ", ShapeToString(output->shape), " cannot be expressed as an XNNPACK deconvolution");
  }
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(2)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t filter_id, b.Filter(io.in(1), 0));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t bias_id, b.Bias(bias, io.in(2), io.in(1)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_deconvolution_2d(b.subgraph(), top, right, bottom, left, adj_h, adj_w, filter->dim(1),
                                             filter->dim(2), o->stride_h(), o->stride_w(), 1, 1, 1, input->dim(3),
                                             filter->dim(0), min, max, in_id, filter_id, bias_id, out_id, 0),
                 "TRANSPOSE_CONV");
}

Status FullyConnected(GraphBuilder& b, const OpContext& ctx, OpTraits* traits) {
  traits->heavy = true;
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 3, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  const auto* o = ops::Options<tflite::FullyConnectedOptions>(ctx);
  if (ctx.version() >= 8 && io.input(1)->sparsity != nullptr) return Refuse("sparse weights");
  if (o && o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT) {
    return Refuse("shuffled weights format");
  }
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  const int bias = ctx.num_inputs() > 2 ? io.in(2) : -1;
  ER_RETURN_IF_ERROR(ConvWeightsKind(b, input, io.in(1), bias));
  const Tensor* filter = io.input(1);
  if (filter->rank() != 2) return Refuse("weights must be 2-D");
  if (filter->quantization.per_channel()) {
    return Refuse("per-channel weights: this XNNPACK has no per-channel fully connected kernel");
  }
  if (input->rank() < 1) return Refuse("scalar input");
  ER_RETURN_IF_ERROR(CheckRequantization(input, filter, output));
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE, &min, &max));
  const bool keep_dims = o && o->keep_num_dims();
  if (keep_dims && input->dim(input->rank() - 1) != filter->dim(1)) return Refuse("keep_num_dims with a reshaped input");
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t filter_id, b.Filter(io.in(1), 0));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t bias_id, b.Bias(bias, io.in(0), io.in(1)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_fully_connected(b.subgraph(), min, max, in_id, filter_id, bias_id, out_id,
                                            keep_dims ? 0 : XNN_FLAG_TENSORFLOW_RESHAPE_2D),
                 "FULLY_CONNECTED");
}

Status Pool2D(GraphBuilder& b, const OpContext& ctx, bool average) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 1, 1, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  const auto* o = ops::Options<tflite::Pool2DOptions>(ctx);
  if (o == nullptr) return Refuse("missing options");
  if (average && input->type != TensorType::kFloat32) {
    return Refuse("quantized average pooling: not in this XNNPACK's graph API (TFLite keeps it on its kernels too)");
  }
  ER_RETURN_IF_ERROR(SameKind({input, output}, average ? kFloatOnly : kAll, nullptr));
  if (!average) ER_RETURN_IF_ERROR(SameQuantization(input, output));
  if (input->rank() != 4) return Refuse("needs a 4-D input");
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(o->fused_activation_function(), &min, &max));
  const int ph = o->filter_height(), pw = o->filter_width(), sh = o->stride_h(), sw = o->stride_w();
  if (ph <= 0 || pw <= 0 || sh <= 0 || sw <= 0) return Refuse("invalid pooling parameters");
  const bool identity = ph == 1 && pw == 1;
  if (identity && (sh != 1 || sw != 1)) return Refuse("1x1 pooling with strides");
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  if (identity) return b.Check(xnn_define_clamp(b.subgraph(), min, max, in_id, out_id, 0), "1x1 pooling");
  if (average) {
    return b.Check(xnn_define_average_pooling_2d(b.subgraph(), 0, 0, 0, 0, ph, pw, sh, sw, min, max, in_id, out_id,
                                                 PaddingFlags(o->padding())),
                   "AVERAGE_POOL_2D");
  }
  return b.Check(xnn_define_max_pooling_2d(b.subgraph(), 0, 0, 0, 0, ph, pw, sh, sw, 1, 1, min, max, in_id, out_id,
                                           PaddingFlags(o->padding())),
                 "MAX_POOL_2D");
}

Status Mean(GraphBuilder& b, const OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 2, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  const Tensor* axes = io.input(1);
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  if (input->rank() != 4) return Refuse("only the mean over height and width of a 4-D tensor");
  if (!axes->is_constant()) return Refuse("axes are not constant");
  std::vector<int64_t> values;
  if (!ops::ReadInts(ctx, axes, "axes", &values).ok()) return Refuse("unreadable axes");
  bool h = false, w = false;
  for (int64_t a : values) {
    const int64_t axis = a < 0 ? a + 4 : a;
    if (axis == 1) h = true;
    else if (axis == 2) w = true;
    else return Refuse("only the mean over height and width (axes 1 and 2)");
  }
  if (!h || !w) return Refuse("only the mean over both height and width");
  const auto* o = ops::Options<tflite::ReducerOptions>(ctx);
  const bool keep_dims = o && o->keep_dims();
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  const Shape pooled = {input->dim(0), 1, 1, input->dim(3)};
  uint32_t pooled_id = out_id;
  if (!keep_dims) {
    ER_ASSIGN_OR_RETURN_VALUE(uint32_t id, b.InternalValue(io.out(0), pooled));
    pooled_id = id;
  }
  if (!b.defining()) return Status::Ok();
  ER_RETURN_IF_ERROR(
      b.Check(xnn_define_global_average_pooling_2d(b.subgraph(), -kInf, kInf, in_id, pooled_id, 0), "MEAN"));
  if (keep_dims) return Status::Ok();
  std::vector<size_t> dims(output->shape.begin(), output->shape.end());
  return b.Check(xnn_define_static_reshape(b.subgraph(), dims.size(), dims.data(), pooled_id, out_id, 0),
                 "MEAN's reshape");
}

using BinaryDefine = xnn_status (*)(xnn_subgraph_t, float, float, uint32_t, uint32_t, uint32_t, uint32_t);
using PlainBinaryDefine = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t, uint32_t);

Status Binary(GraphBuilder& b, const OpContext& ctx, std::initializer_list<Kind> kinds, BinaryDefine with_range,
              PlainBinaryDefine plain, tflite::ActivationFunctionType act) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 2, 1));
  Io io{ctx};
  ER_RETURN_IF_ERROR(SameKind({io.input(0), io.input(1), io.output(0)}, kinds, nullptr));
  for (const Tensor* t : {io.input(0), io.input(1), io.output(0)}) {
    if (t->rank() > XNN_MAX_TENSOR_DIMS) return Refuse("rank over ", XNN_MAX_TENSOR_DIMS);
  }
  float min, max;
  ER_RETURN_IF_ERROR(ActivationRange(act, &min, &max));
  if (!with_range && (min != -kInf || max != kInf)) return Refuse("fused activation");
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t a, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t c, b.Value(io.in(1)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  const xnn_status s = with_range ? with_range(b.subgraph(), min, max, a, c, out, 0) : plain(b.subgraph(), a, c, out, 0);
  return b.Check(s, ctx.op_name().c_str());
}

// One input, one output of the same kind and shape.
template <class DefineFn>
Status Unary(GraphBuilder& b, const OpContext& ctx, std::initializer_list<Kind> kinds, bool same_quantization,
             DefineFn define) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 1, 1, 1));
  Io io{ctx};
  ER_RETURN_IF_ERROR(SameKind({io.input(0), io.output(0)}, kinds, nullptr));
  ER_RETURN_IF_ERROR(NotScalar(io.input(0)));
  if (same_quantization) ER_RETURN_IF_ERROR(SameQuantization(io.input(0), io.output(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(define(b.subgraph(), in, out), ctx.op_name().c_str());
}

Status Clamp(GraphBuilder& b, const OpContext& ctx, float min, float max) {
  return Unary(b, ctx, kAll, true, [&](xnn_subgraph_t s, uint32_t in, uint32_t out) {
    return xnn_define_clamp(s, min, max, in, out, 0);
  });
}

template <xnn_status (*Fn)(xnn_subgraph_t, uint32_t, uint32_t, uint32_t)>
Status FloatUnary(GraphBuilder& b, const OpContext& ctx) {
  return Unary(b, ctx, kFloatOnly, false, [](xnn_subgraph_t s, uint32_t in, uint32_t out) { return Fn(s, in, out, 0); });
}

Status Logistic(GraphBuilder& b, const OpContext& ctx) {
  const Tensor* out = ctx.output(0);
  if (out && out->type != TensorType::kFloat32) {
    // XNNPACK's 8-bit sigmoid has TFLite's fixed output quantization: 1/256, zero point -128 / 0.
    const int32_t zp = out->type == TensorType::kInt8 ? -128 : 0;
    if (out->scale() != 1.0f / 256 || out->zero_point() != zp) return Refuse("output quantization is not 1/256");
  }
  return Unary(b, ctx, kAll, false, [](xnn_subgraph_t s, uint32_t in, uint32_t o) {
    return xnn_define_sigmoid(s, in, o, 0);
  });
}

Status Softmax(GraphBuilder& b, const OpContext& ctx) {
  const auto* o = ops::Options<tflite::SoftmaxOptions>(ctx);
  if (o == nullptr || o->beta() != 1.0f) return Refuse("beta other than 1");
  const Tensor* in = ctx.input(0);
  if (in && in->rank() < 1) return Refuse("scalar input");
  if (in && in->type != TensorType::kFloat32) return Refuse("quantized softmax: not in this XNNPACK's graph API");
  return FloatUnary<xnn_define_softmax>(b, ctx);
}

Status LeakyRelu(GraphBuilder& b, const OpContext& ctx) {
  const auto* o = ops::Options<tflite::LeakyReluOptions>(ctx);
  const float alpha = o ? o->alpha() : 0.0f;
  if (ctx.input(0) && ctx.input(0)->type != TensorType::kFloat32) {
    return Refuse("quantized LEAKY_RELU: not in this XNNPACK's graph API");
  }
  return Unary(b, ctx, kFloatOnly, false, [&](xnn_subgraph_t s, uint32_t in, uint32_t out) {
    return xnn_define_leaky_relu(s, alpha, in, out, 0);
  });
}

Status Elu(GraphBuilder& b, const OpContext& ctx) {
  return Unary(b, ctx, {Kind::kF32, Kind::kQS8}, false, [](xnn_subgraph_t s, uint32_t in, uint32_t out) {
    return xnn_define_elu(s, 1.0f, in, out, 0);
  });
}

Status Prelu(GraphBuilder& b, const OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 2, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* slope = io.input(1);
  ER_RETURN_IF_ERROR(SameKind({input, slope, io.output(0)}, kFloatOnly, nullptr));
  if (!b.IsStatic(io.in(1))) return Refuse("slope is not constant");
  if (input->rank() < 1 || input->shape != io.output(0)->shape) return Refuse("broadcast output");
  const int channels = input->dim(input->rank() - 1);
  for (int d = 0; d + 1 < slope->rank(); ++d) {
    if (slope->dim(d) != 1) return Refuse("slope varies along other than the channel dimension");
  }
  if (slope->rank() < 1 || slope->dim(slope->rank() - 1) != channels) return Refuse("slope is not one per channel");
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  const float* data = slope->is_constant() ? slope->data_as<float>() : (b.defining() ? b.FoldedData(io.in(1)) : nullptr);
  std::vector<float> values;
  if (b.defining()) values.assign(data, data + channels);
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t slope_id, b.StaticFloats(values, {channels}));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_prelu(b.subgraph(), in_id, slope_id, out_id, 0), "PRELU");
}

Status Pad(GraphBuilder& b, const OpContext& ctx, bool v2) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, v2 ? 3 : 2, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  ER_RETURN_IF_ERROR(SameQuantization(input, output));
  ER_RETURN_IF_ERROR(NotScalar(input));
  const Tensor* paddings = io.input(1);
  if (!paddings->is_constant()) return Refuse("paddings are not constant");
  std::vector<int64_t> p;
  if (!ops::ReadInts(ctx, paddings, "paddings", &p).ok() || p.size() != 2 * static_cast<size_t>(input->rank())) {
    return Refuse("unreadable paddings");
  }
  for (int64_t v : p) {
    if (v < 0) return Refuse("negative padding");
  }
  float value = 0.0f;
  if (v2 && ctx.num_inputs() > 2 && io.input(2) != nullptr) {
    const Tensor* c = io.input(2);
    if (!c->is_constant() || c->num_elements() != 1 || c->type != input->type) return Refuse("pad value is not a constant scalar");
    if (c->type == TensorType::kFloat32) value = c->data_as<float>()[0];
    else if (c->type == TensorType::kInt8) value = input->scale() * (c->data_as<int8_t>()[0] - input->zero_point());
    else value = input->scale() * (c->data_as<uint8_t>()[0] - input->zero_point());
  }
  std::vector<size_t> pre, post;
  for (int d = 0; d < input->rank(); ++d) {
    pre.push_back(static_cast<size_t>(p[2 * d]));
    post.push_back(static_cast<size_t>(p[2 * d + 1]));
  }
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_static_constant_pad(b.subgraph(), pre.data(), post.data(), value, in_id, out_id, 0),
                 ctx.op_name().c_str());
}

// RESHAPE, SQUEEZE, EXPAND_DIMS: the output shape is known after prepare.
Status Reshape(GraphBuilder& b, const OpContext& ctx) {
  if (ctx.num_outputs() != 1 || ctx.num_inputs() < 1 || ctx.input(0) == nullptr) return Refuse("unexpected inputs");
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  ER_RETURN_IF_ERROR(SameQuantization(input, output));
  ER_RETURN_IF_ERROR(NotScalar(input));
  ER_RETURN_IF_ERROR(NotScalar(output));
  if (output->rank() > XNN_MAX_TENSOR_DIMS) return Refuse("rank over ", XNN_MAX_TENSOR_DIMS);
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  std::vector<size_t> dims(output->shape.begin(), output->shape.end());
  return b.Check(xnn_define_static_reshape(b.subgraph(), dims.size(), dims.data(), in_id, out_id, 0),
                 ctx.op_name().c_str());
}

Status ResizeBilinear(GraphBuilder& b, const OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 2, 2, 1));
  Io io{ctx};
  const Tensor* input = io.input(0);
  const Tensor* output = io.output(0);
  ER_RETURN_IF_ERROR(SameKind({input, output}, kAll, nullptr));
  ER_RETURN_IF_ERROR(SameQuantization(input, output));
  if (input->rank() != 4 || output->rank() != 4) return Refuse("needs 4-D tensors");
  if (input->type != TensorType::kFloat32) {
    return Refuse("8-bit: this XNNPACK rounds the interpolation differently from TFLite's kernels");
  }
  const auto* o = ops::Options<tflite::ResizeBilinearOptions>(ctx);
  const bool align = o && o->align_corners(), half = o && o->half_pixel_centers();
  if (align && half) return Refuse("align_corners with half_pixel_centers");
  const uint32_t flags = align ? XNN_FLAG_ALIGN_CORNERS : (half ? 0 : XNN_FLAG_TENSORFLOW_LEGACY_MODE);
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(
      xnn_define_static_resize_bilinear_2d(b.subgraph(), output->dim(1), output->dim(2), in_id, out_id, flags),
      "RESIZE_BILINEAR");
}

Status DepthToSpace(GraphBuilder& b, const OpContext& ctx) {
  const auto* o = ops::Options<tflite::DepthToSpaceOptions>(ctx);
  if (o == nullptr || o->block_size() <= 1) return Refuse("block size");
  const uint32_t block = static_cast<uint32_t>(o->block_size());
  if (ctx.input(0) && ctx.input(0)->rank() != 4) return Refuse("needs 4-D tensors");
  return Unary(b, ctx, kFloatOnly, false, [&](xnn_subgraph_t s, uint32_t in, uint32_t out) {
    return xnn_define_depth_to_space(s, in, out, block, 0);
  });
}

Status Dequantize(GraphBuilder& b, const OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckCounts(ctx, 1, 1, 1));
  Io io{ctx};
  // A DEQUANTIZE of constant weights (float16 models, weight-only int8) becomes static data.
  if (FoldableDequantize(b.graph(), io.out(0)) >= 0) return Status::Ok();
  const Tensor* input = io.input(0);
  if (input->is_constant()) return Refuse("constant of type ", TensorTypeName(input->type));
  Status st;
  const Kind in = KindOrRefuse(input, &st);
  ER_RETURN_IF_ERROR(st);
  if (in != Kind::kQS8 && in != Kind::kQU8) return Refuse("input is not 8-bit quantized");
  ER_RETURN_IF_ERROR(NotScalar(input));
  if (io.output(0)->type != TensorType::kFloat32) return Refuse("output is not float32");
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t in_id, b.Value(io.in(0)));
  ER_ASSIGN_OR_RETURN_VALUE(uint32_t out_id, b.Value(io.out(0)));
  if (!b.defining()) return Status::Ok();
  return b.Check(xnn_define_convert(b.subgraph(), in_id, out_id, 0), "DEQUANTIZE");
}

Status Quantize(GraphBuilder&, const OpContext& ctx) {
  if (ctx.input(0) && ctx.input(0)->type != TensorType::kFloat32) return Refuse("requantization: not in this XNNPACK");
  // Its float -> 8-bit conversion (xnn_define_convert) rounds ties to even and NaN to the
  // maximum, where TFLite rounds ties away from zero.
  return Refuse("this XNNPACK rounds ties to even, TFLite away from zero");
}

template <class T>
tflite::ActivationFunctionType FusedActivation(const OpContext& ctx) {
  const T* o = ops::Options<T>(ctx);
  return o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE;
}

}  // namespace

Status VisitNode(GraphBuilder& b, const OpContext& ctx, OpTraits* traits) {
  *traits = OpTraits();
  switch (ctx.builtin_code()) {
    case tflite::BuiltinOperator_CONV_2D: return Conv2D(b, ctx, traits);
    case tflite::BuiltinOperator_DEPTHWISE_CONV_2D: return DepthwiseConv2D(b, ctx, traits);
    case tflite::BuiltinOperator_TRANSPOSE_CONV: return TransposeConv(b, ctx, traits);
    case tflite::BuiltinOperator_FULLY_CONNECTED: return FullyConnected(b, ctx, traits);
    case tflite::BuiltinOperator_AVERAGE_POOL_2D: return Pool2D(b, ctx, true);
    case tflite::BuiltinOperator_MAX_POOL_2D: return Pool2D(b, ctx, false);
    case tflite::BuiltinOperator_MEAN: return Mean(b, ctx);
    case tflite::BuiltinOperator_ADD:
      return Binary(b, ctx, kAll, xnn_define_add2, nullptr, FusedActivation<tflite::AddOptions>(ctx));
    case tflite::BuiltinOperator_SUB:
      return Binary(b, ctx, kAll, xnn_define_subtract, nullptr, FusedActivation<tflite::SubOptions>(ctx));
    case tflite::BuiltinOperator_MUL:
      return Binary(b, ctx, kAll, xnn_define_multiply2, nullptr, FusedActivation<tflite::MulOptions>(ctx));
    case tflite::BuiltinOperator_DIV:
      // This XNNPACK clamps every quotient to [min, max], which turns 0/0 (NaN) into a number.
      return Refuse("this XNNPACK's division clamps NaN (0/0) to a number; the builtin kernel keeps it");
    case tflite::BuiltinOperator_MAXIMUM:
      return Binary(b, ctx, kFloatOnly, nullptr, xnn_define_maximum2, tflite::ActivationFunctionType_NONE);
    case tflite::BuiltinOperator_MINIMUM:
      return Binary(b, ctx, kFloatOnly, nullptr, xnn_define_minimum2, tflite::ActivationFunctionType_NONE);
    case tflite::BuiltinOperator_SQUARED_DIFFERENCE:
      return Binary(b, ctx, kFloatOnly, nullptr, xnn_define_squared_difference, tflite::ActivationFunctionType_NONE);
    case tflite::BuiltinOperator_RELU: return Clamp(b, ctx, 0.0f, kInf);
    case tflite::BuiltinOperator_RELU6: return Clamp(b, ctx, 0.0f, 6.0f);
    case tflite::BuiltinOperator_RELU_N1_TO_1: return Clamp(b, ctx, -1.0f, 1.0f);
    case tflite::BuiltinOperator_RELU_0_TO_1: return Clamp(b, ctx, 0.0f, 1.0f);
    case tflite::BuiltinOperator_LEAKY_RELU: return LeakyRelu(b, ctx);
    case tflite::BuiltinOperator_HARD_SWISH: return FloatUnary<xnn_define_hardswish>(b, ctx);
    case tflite::BuiltinOperator_ELU: return Elu(b, ctx);
    case tflite::BuiltinOperator_LOGISTIC: return Logistic(b, ctx);
    case tflite::BuiltinOperator_SOFTMAX: return Softmax(b, ctx);
    case tflite::BuiltinOperator_PRELU: return Prelu(b, ctx);
    case tflite::BuiltinOperator_ABS: return FloatUnary<xnn_define_abs>(b, ctx);
    case tflite::BuiltinOperator_NEG: return FloatUnary<xnn_define_negate>(b, ctx);
    case tflite::BuiltinOperator_FLOOR: return FloatUnary<xnn_define_floor>(b, ctx);
    case tflite::BuiltinOperator_CEIL: return FloatUnary<xnn_define_ceiling>(b, ctx);
    case tflite::BuiltinOperator_ROUND: return FloatUnary<xnn_define_bankers_rounding>(b, ctx);
    case tflite::BuiltinOperator_SQUARE: return FloatUnary<xnn_define_square>(b, ctx);
    case tflite::BuiltinOperator_SQRT: return FloatUnary<xnn_define_square_root>(b, ctx);
    case tflite::BuiltinOperator_PAD: return Pad(b, ctx, false);
    case tflite::BuiltinOperator_PADV2: return Pad(b, ctx, true);
    case tflite::BuiltinOperator_RESHAPE:
    case tflite::BuiltinOperator_SQUEEZE:
    case tflite::BuiltinOperator_EXPAND_DIMS:
      return Reshape(b, ctx);
    case tflite::BuiltinOperator_RESIZE_BILINEAR: return ResizeBilinear(b, ctx);
    case tflite::BuiltinOperator_DEPTH_TO_SPACE: return DepthToSpace(b, ctx);
    case tflite::BuiltinOperator_DEQUANTIZE: return Dequantize(b, ctx);
    case tflite::BuiltinOperator_QUANTIZE: return Quantize(b, ctx);
    case tflite::BuiltinOperator_CONCATENATION:
    case tflite::BuiltinOperator_TRANSPOSE:
    case tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR:
    case tflite::BuiltinOperator_TANH:
    case tflite::BuiltinOperator_SPLIT:
    case tflite::BuiltinOperator_SLICE:
    case tflite::BuiltinOperator_STRIDED_SLICE:
    case tflite::BuiltinOperator_BATCH_MATMUL:
    case tflite::BuiltinOperator_SPACE_TO_DEPTH:
      return Refuse("not in this XNNPACK's graph API (Debian's 2022-02 XNNPACK; newer ones have it)");
    default:
      return Refuse("XNNPACK has no ", ctx.op_name());
  }
}

}  // namespace edgerun::xnnpack
