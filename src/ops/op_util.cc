#include "ops/op_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace edgerun::ops {

OpRegistration MakeBuiltin(tflite::BuiltinOperator code, int max_version, const char* types,
                           std::function<Status(OpContext&)> prepare,
                           std::function<Status(OpContext&)> eval, int min_version) {
  OpRegistration r;
  r.name = tflite::EnumNameBuiltinOperator(code);
  r.builtin_code = code;
  r.min_version = min_version;
  r.max_version = max_version;
  r.types = types;
  r.prepare = std::move(prepare);
  r.eval = std::move(eval);
  return r;
}

std::string Describe(const Tensor* t) {
  if (t == nullptr) return "(missing)";
  return StrCat("'", t->name, "' ", TensorTypeName(t->type), ShapeToString(t->shape));
}

Status CheckIo(const OpContext& ctx, int min_inputs, int max_inputs, int outputs) {
  if (ctx.num_inputs() < min_inputs || ctx.num_inputs() > max_inputs) {
    if (min_inputs == max_inputs) return ctx.Error("expects ", min_inputs, " inputs, has ", ctx.num_inputs());
    return ctx.Error("expects ", min_inputs, " to ", max_inputs, " inputs, has ", ctx.num_inputs());
  }
  if (ctx.num_outputs() != outputs) return ctx.Error("expects ", outputs, " outputs, has ", ctx.num_outputs());
  for (int i = 0; i < min_inputs; ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  return Status::Ok();
}

Status CheckInput(const OpContext& ctx, int i) {
  if (ctx.input(i) == nullptr) return ctx.Error("input ", i, " is required but missing");
  return Status::Ok();
}

Status CheckType(const OpContext& ctx, const Tensor* t, const char* role,
                 std::initializer_list<TensorType> allowed) {
  for (TensorType type : allowed) {
    if (t->type == type) return Status::Ok();
  }
  std::string names;
  for (TensorType type : allowed) names += StrCat(names.empty() ? "" : ", ", TensorTypeName(type));
  return ctx.Unsupported(role, " ", Describe(t), " has type ", TensorTypeName(t->type), "; supported: ", names);
}

Status CheckSameType(const OpContext& ctx, const Tensor* a, const Tensor* b, const char* what) {
  if (a->type == b->type) return Status::Ok();
  return ctx.Error(what, ": types differ (", Describe(a), " vs ", Describe(b), ")");
}

Status CheckRank(const OpContext& ctx, const Tensor* t, const char* role, int min_rank, int max_rank) {
  if (t->rank() >= min_rank && t->rank() <= max_rank) return Status::Ok();
  if (min_rank == max_rank) return ctx.Error(role, " ", Describe(t), " must have rank ", min_rank);
  return ctx.Error(role, " ", Describe(t), " must have rank ", min_rank, " to ", max_rank);
}

Status PrepareUnary(OpContext& ctx, std::initializer_list<TensorType> types) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "input", types));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, ctx.input(0), ctx.output(0), "input and output"));
  return ctx.ResizeOutput(0, ctx.input(0)->shape);
}

Status ReadInts(const OpContext& ctx, const Tensor* t, const char* role, std::vector<int64_t>* values) {
  const int64_t n = t->num_elements();
  if (t->data == nullptr && n > 0) return ctx.Error(role, " ", Describe(t), " has no data");
  values->resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (t->type == TensorType::kInt32) {
    for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data_as<int32_t>()[i];
  } else if (t->type == TensorType::kInt64) {
    for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data_as<int64_t>()[i];
  } else {
    return ctx.Error(role, " ", Describe(t), " must be int32 or int64");
  }
  return Status::Ok();
}

Status NormalizeAxis(const OpContext& ctx, int64_t axis, int rank, int* out) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  // Strictly inside the rank: callers index dimensions with the result (fuzz_graph: SQUEEZE of a
  // scalar with squeeze_dims [0] read dimension 0 of an empty shape).
  if (a < 0 || a >= rank) return ctx.Error("axis ", axis, " is out of range for rank ", rank);
  *out = static_cast<int>(a);
  return Status::Ok();
}

Status ParseActivation(const OpContext& ctx, tflite::ActivationFunctionType fb, Activation* out) {
  switch (fb) {
    case tflite::ActivationFunctionType_NONE: *out = Activation::kNone; return Status::Ok();
    case tflite::ActivationFunctionType_RELU: *out = Activation::kRelu; return Status::Ok();
    case tflite::ActivationFunctionType_RELU_N1_TO_1: *out = Activation::kReluN1To1; return Status::Ok();
    case tflite::ActivationFunctionType_RELU6: *out = Activation::kRelu6; return Status::Ok();
    case tflite::ActivationFunctionType_TANH: *out = Activation::kTanh; return Status::Ok();
    case tflite::ActivationFunctionType_SIGN_BIT: *out = Activation::kSignBit; return Status::Ok();
  }
  return ctx.Error("unknown fused activation ", static_cast<int>(fb));
}

void ActivationRange(Activation act, float* min, float* max) {
  *min = -std::numeric_limits<float>::infinity();
  *max = std::numeric_limits<float>::infinity();
  switch (act) {
    case Activation::kRelu: *min = 0; break;
    case Activation::kReluN1To1: *min = -1; *max = 1; break;
    case Activation::kRelu6: *min = 0; *max = 6; break;
    default: break;
  }
}

void QuantizedActivationRange(Activation act, const Tensor* output, int32_t* min, int32_t* max) {
  int32_t qmin = 0, qmax = 0;
  switch (output->type) {
    case TensorType::kUInt8: qmin = 0; qmax = 255; break;
    case TensorType::kInt8: qmin = -128; qmax = 127; break;
    case TensorType::kInt16: qmin = -32768; qmax = 32767; break;
    default: qmin = std::numeric_limits<int32_t>::min(); qmax = std::numeric_limits<int32_t>::max(); break;
  }
  const float scale = output->scale();
  const int32_t zero_point = output->zero_point();
  // As TFLite: zero_point + round(f / scale), in float.
  auto quantize = [&](float f) {
    const float q = std::round(f / scale);
    if (!(std::fabs(q) < 2e9f)) return q > 0 ? qmax : qmin;
    return zero_point + static_cast<int32_t>(q);
  };
  switch (act) {
    case Activation::kRelu: qmin = std::max(qmin, quantize(0.0f)); break;
    case Activation::kRelu6:
      qmin = std::max(qmin, quantize(0.0f));
      qmax = std::min(qmax, quantize(6.0f));
      break;
    case Activation::kReluN1To1:
      qmin = std::max(qmin, quantize(-1.0f));
      qmax = std::min(qmax, quantize(1.0f));
      break;
    default: break;
  }
  *min = qmin;
  *max = qmax;
}

// In 64 bits: strides and dilations come from the file and may be as large as an int. Results
// that do not fit an int come back as -1 (an output size) or INT_MAX (a padding), which the
// callers reject.
int ComputeOutSize(tflite::Padding padding, int in, int filter, int stride, int dilation) {
  if (stride <= 0) return 0;
  const int64_t effective_filter = (int64_t{filter} - 1) * dilation + 1;
  const int64_t out = padding == tflite::Padding_SAME ? (int64_t{in} + stride - 1) / stride
                                                      : (int64_t{in} + stride - effective_filter) / stride;
  return out > INT32_MAX || out < INT32_MIN ? -1 : static_cast<int>(out);
}

static int PaddingForDim(int stride, int dilation, int in, int filter, int out, int* offset) {
  const int64_t effective_filter = (int64_t{filter} - 1) * dilation + 1;
  int64_t total = (int64_t{out} - 1) * stride + effective_filter - in;
  total = std::clamp<int64_t>(total, 0, INT32_MAX);
  *offset = static_cast<int>(total % 2);
  return static_cast<int>(total / 2);
}

PaddingValues ComputePadding(int stride_h, int stride_w, int dilation_h, int dilation_w, int in_h, int in_w,
                             int filter_h, int filter_w, int out_h, int out_w) {
  PaddingValues p;
  p.height = PaddingForDim(stride_h, dilation_h, in_h, filter_h, out_h, &p.height_offset);
  p.width = PaddingForDim(stride_w, dilation_w, in_w, filter_w, out_w, &p.width_offset);
  return p;
}

bool BroadcastShape(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      result[i] = da;
    } else if (da == 1) {
      result[i] = db;
    } else {
      return false;
    }
  }
  *out = std::move(result);
  return true;
}

}  // namespace edgerun::ops
