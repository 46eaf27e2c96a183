// EMBEDDING_LOOKUP_SPARSE: combines rows of `params` chosen by a sparse tensor (ids, their
// int32 coordinates `indices` [N, rank] in a dense tensor of shape `dense_shape`, and float32
// weights). Entries sharing the coordinates but the last are one bucket: output row
// = sum(weight * params[id]), divided by the weight sum (MEAN) or the root of the squared weight
// sum (SQRTN). Output shape: dense_shape[:-1] + params.shape[1:], known only from values.
// A bucket is finished when the next entry is in another one, as in TFLite, so entries are
// expected sorted by bucket.
#include <cmath>
#include <cstring>

#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 5, 5, 1));
  const Tensor* ids = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* dense_shape = ctx.input(2);
  const Tensor* weights = ctx.input(3);
  const Tensor* params = ctx.input(4);
  ER_RETURN_IF_ERROR(CheckType(ctx, ids, "ids", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, ids, "ids", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "indices", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, indices, "indices", 2, 2));
  ER_RETURN_IF_ERROR(CheckType(ctx, dense_shape, "dense_shape", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, dense_shape, "dense_shape", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights, "weights", 1, 1));
  if (indices->dim(0) != ids->dim(0) || weights->dim(0) != ids->dim(0)) {
    return ctx.Error("ids ", Describe(ids), ", indices ", Describe(indices), " and weights ", Describe(weights),
                     " must have the same number of entries");
  }
  if (indices->dim(1) < 1) return ctx.Error("indices ", Describe(indices), " must have at least one column");
  ER_RETURN_IF_ERROR(CheckType(ctx, params, "params", {TensorType::kFloat32}));
  if (params->rank() < 2) return ctx.Error("params ", Describe(params), " must have rank >= 2");
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kFloat32}));
  const auto* o = Options<tflite::EmbeddingLookupSparseOptions>(ctx);
  const int combiner = o ? static_cast<int>(o->combiner()) : 0;
  if (combiner < tflite::CombinerType_SUM || combiner > tflite::CombinerType_SQRTN) {
    return ctx.Error("unknown combiner ", combiner);
  }
  ctx.MarkDynamic(ctx.output(0));
  return Status::Ok();
}

void Finish(tflite::CombinerType combiner, int count, float total, float squares, int64_t size, float* row) {
  if (combiner == tflite::CombinerType_SUM || count == 0) return;
  const float divisor = combiner == tflite::CombinerType_MEAN ? total : std::sqrt(squares);
  for (int64_t k = 0; k < size; ++k) row[k] /= divisor;
}

Status Eval(OpContext& ctx) {
  const Tensor* ids = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* dense_shape = ctx.input(2);
  const Tensor* weights = ctx.input(3);
  const Tensor* params = ctx.input(4);
  const auto* o = Options<tflite::EmbeddingLookupSparseOptions>(ctx);
  const auto combiner = o ? o->combiner() : tflite::CombinerType_SUM;
  const int lookup_rank = indices->dim(1);
  if (dense_shape->dim(0) != lookup_rank) {
    return ctx.Error("dense_shape ", Describe(dense_shape), " must have ", lookup_rank, " entries (indices' columns)");
  }
  const int32_t* dims = dense_shape->data_as<int32_t>();
  Shape shape;
  for (int i = 0; i < lookup_rank - 1; ++i) {
    if (dims[i] < 0) return ctx.Error("dense_shape ", Describe(dense_shape), " has negative dimension ", dims[i]);
    shape.push_back(dims[i]);
  }
  shape.insert(shape.end(), params->shape.begin() + 1, params->shape.end());
  if (NumElements(shape) < 0) return ctx.Error("output shape ", ShapeToString(shape), " is too large");
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  float* out = ctx.output(0)->data_as<float>();
  const int64_t out_size = ctx.output(0)->num_elements();
  if (out_size > 0) std::memset(out, 0, static_cast<size_t>(out_size) * sizeof(float));
  const int64_t embedding = DimProduct(params->shape, 1, params->rank());
  const int64_t rows = params->dim(0);
  const float* table = params->data_as<float>();
  const int32_t* id = ids->data_as<int32_t>();
  const int32_t* coords = indices->data_as<int32_t>();
  const float* w = weights->data_as<float>();

  int64_t bucket_offset = 0;
  float total = 0, squares = 0;
  int count = 0;
  for (int64_t i = 0; i < ids->dim(0); ++i) {
    if (id[i] < 0 || id[i] >= rows) {
      return ctx.Error("id ", id[i], " (entry ", i, ") is outside [0, ", rows, ") of params ", Describe(params));
    }
    // The bucket: the entry's coordinates without the last, row-major in dense_shape.
    int64_t bucket = 0;
    for (int k = 0; k < lookup_rank - 1; ++k) {
      const int32_t c = coords[i * lookup_rank + k];
      if (c < 0 || c >= dims[k]) {
        return ctx.Error("indices entry ", i, " has coordinate ", c, " outside [0, ", dims[k], ") in dimension ", k);
      }
      bucket = bucket * dims[k] + c;
    }
    const int64_t offset = bucket * embedding;
    if (offset != bucket_offset) {
      Finish(combiner, count, total, squares, embedding, out + bucket_offset);
      count = 0;
      total = squares = 0;
      bucket_offset = offset;
    }
    ++count;
    total += w[i];
    squares += w[i] * w[i];
    const float* row = table + id[i] * embedding;
    for (int64_t k = 0; k < embedding; ++k) out[offset + k] += row[k] * w[i];
  }
  if (out_size > 0) Finish(combiner, count, total, squares, embedding, out + bucket_offset);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterEmbeddingLookupSparse() {
  return MakeBuiltin(tflite::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE, 1, "float32 (int32 ids)", Prepare, Eval);
}

}  // namespace edgerun::ops
