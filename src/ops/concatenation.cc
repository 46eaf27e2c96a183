// CONCATENATION along one axis (negative axes count from the end). Inputs must agree on every
// other dimension; scalars concatenate into a vector. A fused activation clamps float outputs.
// uint8 / int8 inputs whose scale or zero point differ from the output's are requantized the way
// TFLite's ConcatenationWithScaling does (in float, rounding half away from zero). int16 inputs
// are copied as stored, as TFLite does.
#include <cmath>

#include "kernels/reference/movement.h"
#include "ops/quant_arith_util.h"

namespace edgerun::ops {
namespace {

struct ConcatState {
  int axis = 0;
  Activation activation = Activation::kNone;
};

// Shape an input takes part with: a scalar is a vector of one element.
Shape ConcatShape(const Tensor* t) { return t->rank() == 0 ? Shape{1} : t->shape; }

Status Prepare(OpContext& ctx, ConcatState& state) {
  if (ctx.num_inputs() < 1 || ctx.num_outputs() != 1) return ctx.Error("expects 1 or more inputs and 1 output");
  for (int i = 0; i < ctx.num_inputs(); ++i) ER_RETURN_IF_ERROR(CheckInput(ctx, i));
  const Tensor* first = ctx.input(0);
  Tensor* output = ctx.output(0);
  const auto* o = Options<tflite::ConcatenationOptions>(ctx);
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE,
                                     &state.activation));
  if (state.activation != Activation::kNone && first->type != TensorType::kFloat32) {
    return ctx.Error("a fused activation is only supported for float32");
  }
  // Scalars join as [1] (ConcatShape): axis 0 is theirs.
  ER_RETURN_IF_ERROR(NormalizeAxis(ctx, o ? o->axis() : 0, std::max(first->rank(), 1), &state.axis));
  if (!IsFixedSizeType(first->type)) return ctx.Unsupported("unsupported type ", TensorTypeName(first->type));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, first, output, "input and output"));
  Shape shape = ConcatShape(first);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const Tensor* t = ctx.input(i);
    ER_RETURN_IF_ERROR(CheckSameType(ctx, first, t, "inputs"));
    bool match = t->rank() == first->rank();
    for (int d = 0; match && d < t->rank(); ++d) match = d == state.axis || t->dim(d) == first->dim(d);
    if (!match) return ctx.Error("input ", i, " ", Describe(t), " does not match input 0 ", Describe(first),
                                 " outside axis ", state.axis);
    const int64_t sum = int64_t{shape[state.axis]} + ConcatShape(t)[state.axis];
    if (sum > std::numeric_limits<int32_t>::max()) return ctx.Error("concatenated dimension is too large");
    shape[state.axis] = static_cast<int32_t>(sum);
  }
  if ((first->type == TensorType::kUInt8 || first->type == TensorType::kInt8) && !output->quantization.empty()) {
    ER_RETURN_IF_ERROR(CheckQuantized(ctx, output, "output"));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.input(i)->quantization.empty()) ER_RETURN_IF_ERROR(CheckQuantized(ctx, ctx.input(i), "input"));
    }
  }
  return ctx.ResizeOutput(0, shape);
}

// True when input `t` is stored on another scale than the output and must be requantized.
bool NeedsRescale(const Tensor* t, const Tensor* output) {
  if (t->type != TensorType::kUInt8 && t->type != TensorType::kInt8) return false;
  if (t->quantization.empty() || output->quantization.empty()) return false;
  return t->scale() != output->scale() || t->zero_point() != output->zero_point();
}

// Rewrites, in place, the output slices that came from input `index` (copied as stored) on the
// output's scale.
template <class T>
void RescaleSlices(OpContext& ctx, int index, int axis) {
  const Tensor* input = ctx.input(index);
  Tensor* output = ctx.output(0);
  const Shape out_shape = output->shape;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape[d];
  for (size_t d = axis + 1; d < out_shape.size(); ++d) inner *= out_shape[d];
  int64_t offset = 0;  // start of this input's slice inside each outer row
  for (int i = 0; i < index; ++i) offset += int64_t{ConcatShape(ctx.input(i))[axis]} * inner;
  const int64_t slice = int64_t{ConcatShape(input)[axis]} * inner;
  const int64_t row = int64_t{out_shape.empty() ? 1 : out_shape[axis]} * inner;
  const float scale = input->scale() * (1.0f / output->scale());
  const float bias = static_cast<float>(-input->zero_point()) * scale;
  const float lo = static_cast<float>(std::numeric_limits<T>::min()), hi = static_cast<float>(std::numeric_limits<T>::max());
  const int32_t output_zero_point = output->zero_point();
  auto rescale = [&](T v) {
    const float rounded = std::round(static_cast<float>(v) * scale + bias) + static_cast<float>(output_zero_point);
    return static_cast<T>(std::clamp(rounded, lo, hi));
  };
  // The result depends on the stored byte alone: over 256 values, one table of all 256 instead
  // of a float multiply and round per value (the traffic SSD's ten concatenations of LSTM
  // states and box predictions).
  const bool by_table = outer * slice > 256;
  T table[256];
  if (by_table) {
    for (int byte = 0; byte < 256; ++byte) table[byte] = rescale(static_cast<T>(static_cast<uint8_t>(byte)));
  }
  T* out = output->data_as<T>();
  for (int64_t o = 0; o < outer; ++o) {
    T* p = out + o * row + offset;
    if (by_table) {
      for (int64_t j = 0; j < slice; ++j) p[j] = table[static_cast<uint8_t>(p[j])];
    } else {
      for (int64_t j = 0; j < slice; ++j) p[j] = rescale(p[j]);
    }
  }
}

Status Eval(OpContext& ctx, ConcatState& state) {
  std::vector<const uint8_t*> data;
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    data.push_back(ctx.input(i)->data_as<uint8_t>());
    shapes.push_back(ConcatShape(ctx.input(i)));
  }
  Tensor* output = ctx.output(0);
  reference::Concatenate(data, shapes, state.axis, TensorTypeSize(output->type), output->data_as<uint8_t>());
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!NeedsRescale(ctx.input(i), output)) continue;
    if (output->type == TensorType::kUInt8) RescaleSlices<uint8_t>(ctx, i, state.axis);
    else RescaleSlices<int8_t>(ctx, i, state.axis);
  }
  if (state.activation != Activation::kNone) {
    float lo, hi;
    ActivationRange(state.activation, &lo, &hi);
    float* out = output->data_as<float>();
    for (int64_t i = 0, n = output->num_elements(); i < n; ++i) out[i] = std::min(std::max(out[i], lo), hi);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterConcatenation() {
  return MakeBuiltinWithState<ConcatState>(tflite::BuiltinOperator_CONCATENATION, 5,
                                           "any fixed-size type; uint8 / int8 requantized to the output's scale",
                                           Prepare, Eval);
}

}  // namespace edgerun::ops
