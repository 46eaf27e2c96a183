// EMBEDDING_LOOKUP(ids, value): output row i = row ids[i] of value (int32 ids, value of rank >= 2).
// Same input and output type: the row's bytes are copied. Hybrid (int8/uint8 value, float32
// output): the row is dequantized as q * scale (symmetric: zero point 0; one scale per row when
// per-channel). As TFLite, uint8 weights are read as signed bytes: legacy hybrid models store
// symmetric int8 values in UINT8 tensors. Ids outside [0, rows) are an error at eval.
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

bool IsHybrid(const OpContext& ctx) {
  const TensorType value = ctx.input(1)->type;
  return ctx.output(0)->type == TensorType::kFloat32 && (value == TensorType::kInt8 || value == TensorType::kUInt8);
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* ids = ctx.input(0);
  const Tensor* value = ctx.input(1);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, ids, "ids", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, ids, "ids", 1, 1));
  if (value->rank() < 2) return ctx.Error("value ", Describe(value), " must have rank >= 2");
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, value, "value", &element));
  if (IsHybrid(ctx)) {
    const QuantizationParams& q = value->quantization;
    if (q.empty()) return ctx.Error("hybrid value ", Describe(value), " has no quantization scale");
    for (int64_t zp : q.zero_point) {
      if (zp != 0) return ctx.Unsupported("hybrid value ", Describe(value), " must be symmetric (zero point 0)");
    }
    if (q.per_channel() && (q.quantized_dimension != 0 || static_cast<int64_t>(q.scale.size()) != value->dim(0))) {
      return ctx.Error("per-channel value ", Describe(value), " must have one scale per row (dimension 0)");
    }
  } else if (value->type != output->type) {
    return ctx.Unsupported("value ", Describe(value), " with output ", Describe(output),
                           ": only equal types or int8/uint8 -> float32 are supported");
  }
  Shape shape = value->shape;
  shape[0] = ids->dim(0);
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* ids = ctx.input(0);
  const Tensor* value = ctx.input(1);
  Tensor* output = ctx.output(0);
  const int64_t rows = value->dim(0);
  const int64_t row_size = DimProduct(value->shape, 1, value->rank());
  const int32_t* id = ids->data_as<int32_t>();
  const bool hybrid = IsHybrid(ctx);
  const size_t row_bytes = row_size * TensorTypeSize(value->type);
  for (int64_t i = 0; i < ids->dim(0); ++i) {
    if (id[i] < 0 || id[i] >= rows) {
      return ctx.Error("id ", id[i], " in ", Describe(ids), " is out of range [0, ", rows, ")");
    }
    if (!hybrid) {
      CopyBytes(output->data_as<uint8_t>() + i * row_bytes, value->data_as<uint8_t>() + id[i] * row_bytes, row_bytes);
      continue;
    }
    const QuantizationParams& q = value->quantization;
    const float scale = q.per_channel() ? q.scale[id[i]] : q.scale[0];
    const int8_t* from = value->data_as<int8_t>() + id[i] * row_size;
    float* to = output->data_as<float>() + i * row_size;
    for (int64_t j = 0; j < row_size; ++j) to[j] = from[j] * scale;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterEmbeddingLookup() {
  return MakeBuiltin(tflite::BuiltinOperator_EMBEDDING_LOOKUP, 5, "any fixed-size type; int8/uint8 -> float32 (hybrid)",
                     Prepare, Eval);
}

}  // namespace edgerun::ops
