#include "ops/xnnpack_util.h"

#include <cmath>

#include "edgerun/interpreter.h"
#include "ops/quant_arith_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {

bool LiteRtDefaultArithmetic(const OpContext& ctx) {
  return ctx.interpreter().options().int8_arithmetic == Int8Arithmetic::kLiteRtDefault;
}

bool XnnpackQuantized8(const Tensor* t, TensorType type) {
  if (t == nullptr || t->type != type || t->quantization.empty() || t->quantization.per_channel()) return false;
  if (!std::isnormal(t->scale()) || t->scale() < 0 || t->rank() > 6) return false;
  if (t->zero_point() < TypeMin(type) || t->zero_point() > TypeMax(type)) return false;
  for (int d = 0; d < t->rank(); ++d) {
    if (t->dim(d) <= 0) return false;
  }
  return true;
}

bool XnnpackTakes8Bit(const OpContext& ctx, int data_inputs) {
  if (!LiteRtDefaultArithmetic(ctx)) return false;
  if (ctx.num_inputs() < data_inputs || ctx.num_outputs() < 1) return false;
  const TensorType type = ctx.input(0) ? ctx.input(0)->type : TensorType::kFloat32;
  if (type != TensorType::kUInt8 && type != TensorType::kInt8) return false;
  for (int i = 0; i < data_inputs; ++i) {
    if (!XnnpackQuantized8(ctx.input(i), type)) return false;
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (!XnnpackQuantized8(ctx.output(i), type)) return false;
  }
  return true;
}

void XnnpackActivationBounds(Activation act, const Tensor* output, int32_t* min, int32_t* max) {
  float lo = 0, hi = 0;
  ActivationRange(act, &lo, &hi);
  const int32_t qmin = TypeMin(output->type), qmax = TypeMax(output->type);
  *min = quant::xnn::QuantizeBound(lo, output->scale(), output->zero_point(), qmin, qmax);
  *max = quant::xnn::QuantizeBound(hi, output->scale(), output->zero_point(), qmin, qmax);
}

void PopulateXnnpackLut8(const Tensor* input, const Tensor* output, float (*fn)(float), Lut8State* state) {
  if (input->type == TensorType::kInt8) {
    quant::xnn::BuildLut<int8_t>(fn, input->scale(), input->zero_point(), output->scale(), output->zero_point(),
                                 reinterpret_cast<int8_t*>(state->table));
  } else {
    quant::xnn::BuildLut<uint8_t>(fn, input->scale(), input->zero_point(), output->scale(), output->zero_point(),
                                  state->table);
  }
}

}  // namespace edgerun::ops
