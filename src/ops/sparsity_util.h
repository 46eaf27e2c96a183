// Sparse constant tensors (TFLite's SparsityParameters, a TACO-style format): reading and
// validating the metadata, and expanding the values into a dense row-major buffer. Used by
// DENSIFY and by FULLY_CONNECTED for sparse weights (densified once at prepare).
//
// The format: the dense shape's n dims, some of them split into blocks (block_map names the k
// blocked dims; the block sizes are the dense sizes of the k extra dims n..n+k-1), are visited
// level by level in traversal_order; each level is DENSE (every coordinate 0..size-1) or
// SPARSE_CSR (the coordinates of each parent position listed in array_indices, between
// array_segments[p] and array_segments[p + 1]). The leaves, in visiting order, are the values
// stored in the tensor's buffer.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_util.h"

namespace edgerun::ops {

struct SparseFormat {
  struct Level {
    bool sparse = false;
    int32_t dense_size = 0;           // DENSE levels
    std::vector<int32_t> segments;    // SPARSE_CSR levels
    std::vector<int32_t> indices;
  };
  Shape dense_shape;                  // n dims
  std::vector<int> traversal_order;   // n + k expanded dims, in visiting order
  std::vector<int> block_map;         // k: the dense dim each block dim splits
  std::vector<int32_t> block_size;    // k
  std::vector<int64_t> expanded_shape;  // n + k: blocked dense dims, then the block sizes
  std::vector<Level> levels;          // n + k, in traversal order
};

// Reads and checks `t`'s sparsity metadata against its shape (every index and segment in range,
// permutations well formed). Errors name the tensor and the offending field.
Status ReadSparseFormat(const OpContext& ctx, const Tensor* t, SparseFormat* format);

// The dense bytes of the sparse constant `t` (its shape, its element type); the number of
// values the metadata visits must equal the number stored in the buffer.
Status DensifyConstant(const OpContext& ctx, const Tensor* t, std::vector<uint8_t>* dense);

// For an op whose constant input may be sparse: when `t` is sparse, fills `dense` (a stand-in
// tensor pointing into `storage`) and returns it; otherwise returns `t`.
Status DenseView(const OpContext& ctx, const Tensor* t, std::vector<uint8_t>* storage, Tensor* dense,
                 const Tensor** out);

}  // namespace edgerun::ops
