#include "ops/sparsity_util.h"

#include <cstring>
#include <functional>

namespace edgerun::ops {
namespace {

constexpr int kMaxExpandedRank = 16;

// array_segments / array_indices: int32, uint16 or uint8 values.
Status ReadIndexVector(const OpContext& ctx, const Tensor* t, const char* field, int level,
                       tflite::SparseIndexVector type, const void* table, std::vector<int32_t>* out) {
  out->clear();
  auto copy = [&](const auto* vector) {
    if (vector == nullptr || vector->values() == nullptr) return false;
    out->assign(vector->values()->begin(), vector->values()->end());
    return true;
  };
  bool ok = false;
  switch (type) {
    case tflite::SparseIndexVector_Int32Vector:
      ok = copy(static_cast<const tflite::Int32Vector*>(table));
      break;
    case tflite::SparseIndexVector_Uint16Vector:
      ok = copy(static_cast<const tflite::Uint16Vector*>(table));
      break;
    case tflite::SparseIndexVector_Uint8Vector:
      ok = copy(static_cast<const tflite::Uint8Vector*>(table));
      break;
    default:
      break;
  }
  if (!ok) return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " is SPARSE_CSR but has no ", field);
  return Status::Ok();
}

// True when `values` holds each of [begin, begin + values.size()) once.
bool IsPermutationOf(const std::vector<int>& values, int begin) {
  std::vector<bool> seen(values.size(), false);
  for (int v : values) {
    const int k = v - begin;
    if (k < 0 || k >= static_cast<int>(values.size()) || seen[k]) return false;
    seen[k] = true;
  }
  return true;
}

}  // namespace

Status ReadSparseFormat(const OpContext& ctx, const Tensor* t, SparseFormat* f) {
  const auto* sp = static_cast<const tflite::SparsityParameters*>(t->sparsity);
  if (sp == nullptr) return ctx.Error("tensor ", Describe(t), " is not sparse");
  const int n = t->rank();
  f->dense_shape = t->shape;
  f->traversal_order.clear();
  f->block_map.clear();
  if (sp->traversal_order()) f->traversal_order.assign(sp->traversal_order()->begin(), sp->traversal_order()->end());
  if (sp->block_map()) f->block_map.assign(sp->block_map()->begin(), sp->block_map()->end());
  const int k = static_cast<int>(f->block_map.size());
  const int levels = n + k;
  if (n == 0) return ctx.Error("sparse tensor ", Describe(t), " must have rank >= 1");
  if (levels > kMaxExpandedRank) return ctx.Unsupported("sparse tensor ", Describe(t), " has too many dimensions");
  if (static_cast<int>(f->traversal_order.size()) != levels) {
    return ctx.Error("sparse tensor ", Describe(t), ": traversal_order has ", f->traversal_order.size(),
                     " entries, expected ", levels, " (rank ", n, " + ", k, " block dims)");
  }
  // The dense dims come first, then the block dims (the order TFLite's expansion assumes).
  const std::vector<int> outer(f->traversal_order.begin(), f->traversal_order.begin() + n);
  const std::vector<int> inner(f->traversal_order.begin() + n, f->traversal_order.end());
  if (!IsPermutationOf(outer, 0) || !IsPermutationOf(inner, n)) {
    return ctx.Error("sparse tensor ", Describe(t), ": traversal_order must order dims 0..", n - 1,
                     " first, then the block dims ", n, "..", levels - 1);
  }
  for (int j = 0; j < k; ++j) {
    if (f->block_map[j] < 0 || f->block_map[j] >= n || (j > 0 && f->block_map[j] <= f->block_map[j - 1])) {
      return ctx.Error("sparse tensor ", Describe(t), ": block_map must list increasing dims in [0, ", n, ")");
    }
  }
  const auto* metadata = sp->dim_metadata();
  if (metadata == nullptr || static_cast<int>(metadata->size()) != levels) {
    return ctx.Error("sparse tensor ", Describe(t), ": dim_metadata has ", metadata ? metadata->size() : 0,
                     " entries, expected ", levels);
  }
  f->levels.assign(levels, {});
  for (int level = 0; level < levels; ++level) {
    const tflite::DimensionMetadata* m = metadata->Get(level);
    if (m == nullptr) return ctx.Error("sparse tensor ", Describe(t), ": dim_metadata ", level, " is null");
    SparseFormat::Level& lv = f->levels[level];
    if (m->format() == tflite::DimensionType_DENSE) {
      lv.dense_size = m->dense_size();
    } else if (m->format() == tflite::DimensionType_SPARSE_CSR) {
      lv.sparse = true;
      ER_RETURN_IF_ERROR(ReadIndexVector(ctx, t, "array_segments", level, m->array_segments_type(),
                                         m->array_segments(), &lv.segments));
      ER_RETURN_IF_ERROR(ReadIndexVector(ctx, t, "array_indices", level, m->array_indices_type(),
                                         m->array_indices(), &lv.indices));
    } else {
      return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " has unknown format ",
                       static_cast<int>(m->format()));
    }
  }
  // Block sizes are the dense sizes of the levels that visit the block dims.
  f->block_size.assign(k, 0);
  for (int level = n; level < levels; ++level) {
    const int j = f->traversal_order[level] - n;
    if (f->levels[level].sparse) {
      return ctx.Unsupported("sparse tensor ", Describe(t), ": block dim ", n + j, " is SPARSE_CSR (only dense blocks)");
    }
    f->block_size[j] = f->levels[level].dense_size;
  }
  f->expanded_shape.assign(levels, 0);
  for (int d = 0; d < n; ++d) f->expanded_shape[d] = f->dense_shape[d];
  for (int j = 0; j < k; ++j) {
    const int d = f->block_map[j];
    const int32_t b = f->block_size[j];
    if (b <= 0 || f->dense_shape[d] % b != 0) {
      return ctx.Error("sparse tensor ", Describe(t), ": block size ", b, " does not divide dim ", d, " (",
                       f->dense_shape[d], ")");
    }
    f->expanded_shape[d] = f->dense_shape[d] / b;
    f->expanded_shape[n + j] = b;
  }
  for (int level = 0; level < levels; ++level) {
    const SparseFormat::Level& lv = f->levels[level];
    const int64_t size = f->expanded_shape[f->traversal_order[level]];
    if (!lv.sparse && lv.dense_size != size) {
      return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " has dense_size ", lv.dense_size,
                       ", the dim it visits has size ", size);
    }
  }
  return Status::Ok();
}

Status DensifyConstant(const OpContext& ctx, const Tensor* t, std::vector<uint8_t>* dense) {
  SparseFormat f;
  ER_RETURN_IF_ERROR(ReadSparseFormat(ctx, t, &f));
  const size_t element = IsFixedSizeType(t->type) ? TensorTypeSize(t->type) : 0;
  if (element == 0) {
    return ctx.Unsupported("sparse tensor ", Describe(t), ": type ", TensorTypeName(t->type), " is not supported");
  }
  const int64_t elements = t->num_elements();
  size_t bytes = 0;
  if (elements < 0 || !TensorBytes(t->type, elements, &bytes) || bytes > ctx.interpreter().options().max_tensor_bytes) {
    return ctx.Error("sparse tensor ", Describe(t), " is too large to densify");
  }
  const size_t stored = t->data ? t->bytes / element : 0;
  if (t->data != nullptr && t->bytes % element != 0) {
    return ctx.Error("sparse tensor ", Describe(t), " has ", t->bytes, " bytes, not a multiple of ", element);
  }
  dense->assign(bytes, 0);  // zero is all-zero bytes for every fixed-size type
  const int n = static_cast<int>(f.dense_shape.size());
  const int levels = static_cast<int>(f.levels.size());
  std::vector<int64_t> coords(levels, 0);
  size_t next_value = 0;
  const auto* values = static_cast<const uint8_t*>(t->data);

  std::function<Status(int, int64_t)> visit = [&](int level, int64_t position) -> Status {
    if (level == levels) {
      if (next_value >= stored) {
        return ctx.Error("sparse tensor ", Describe(t), ": the metadata visits more than the ", stored,
                         " values stored");
      }
      int64_t flat = 0;
      for (int d = 0; d < n; ++d) {
        int64_t index = coords[d];
        for (size_t j = 0; j < f.block_map.size(); ++j) {
          if (f.block_map[j] == d) index = index * f.block_size[j] + coords[n + j];
        }
        flat = flat * f.dense_shape[d] + index;
      }
      std::memcpy(dense->data() + flat * element, values + next_value * element, element);
      ++next_value;
      return Status::Ok();
    }
    const SparseFormat::Level& lv = f.levels[level];
    const int dim = f.traversal_order[level];
    if (!lv.sparse) {
      for (int64_t i = 0; i < lv.dense_size; ++i) {
        coords[dim] = i;
        ER_RETURN_IF_ERROR(visit(level + 1, position * lv.dense_size + i));
      }
      return Status::Ok();
    }
    if (position < 0 || position + 1 >= static_cast<int64_t>(lv.segments.size())) {
      return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " has ", lv.segments.size(),
                       " segments, position ", position, " needs ", position + 2);
    }
    const int64_t begin = lv.segments[position], end = lv.segments[position + 1];
    if (begin < 0 || end < begin || end > static_cast<int64_t>(lv.indices.size())) {
      return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " segment [", begin, ", ", end,
                       ") is outside its ", lv.indices.size(), " indices");
    }
    for (int64_t i = begin; i < end; ++i) {
      const int32_t index = lv.indices[i];
      if (index < 0 || index >= f.expanded_shape[dim]) {
        return ctx.Error("sparse tensor ", Describe(t), ": level ", level, " index ", index, " is outside [0, ",
                         f.expanded_shape[dim], ")");
      }
      coords[dim] = index;
      ER_RETURN_IF_ERROR(visit(level + 1, i));
    }
    return Status::Ok();
  };
  ER_RETURN_IF_ERROR(visit(0, 0));
  if (next_value != stored) {
    return ctx.Error("sparse tensor ", Describe(t), " stores ", stored, " values, its metadata visits ", next_value);
  }
  return Status::Ok();
}

Status DenseView(const OpContext& ctx, const Tensor* t, std::vector<uint8_t>* storage, Tensor* dense,
                 const Tensor** out) {
  *out = t;
  if (t == nullptr || t->sparsity == nullptr) return Status::Ok();
  if (!t->is_constant()) return ctx.Error("sparse tensor ", Describe(t), " must be a constant");
  ER_RETURN_IF_ERROR(DensifyConstant(ctx, t, storage));
  dense->name = t->name;
  dense->type = t->type;
  dense->shape = t->shape;
  dense->quantization = t->quantization;
  dense->allocation = Allocation::kConstant;
  dense->sparsity = nullptr;
  dense->data = storage->data();
  dense->bytes = storage->size();
  *out = dense;
  return Status::Ok();
}

}  // namespace edgerun::ops
