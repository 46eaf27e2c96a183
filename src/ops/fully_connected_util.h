// The float32 FULLY_CONNECTED rule that the op and the XNNPACK delegate's node rules share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgerun::ops {

// One input row against float32 weights that are not constant, or constant and over 1 MiB (more
// than L2 keeps between calls), runs on the weights where they are (optimized::MatVecF32): the
// product streams them from memory on every call either way, so a packed copy only costs time,
// at start-up or on every call. XNNPACK packed synthetic MobileNet v2's 5 MB classifier in 7-17 ms
// of AllocateTensors. Smaller constant weights stay packed: their one-row GEMM tiles, read from L2,
// run faster than the in-place dot products.
constexpr size_t kInPlaceMatVecMinWeightBytes = size_t{1} << 20;
inline bool FloatMatVecInPlace(int64_t rows, bool constant_weights, size_t weight_bytes) {
  return rows == 1 && (!constant_weights || weight_bytes > kInPlaceMatVecMinWeightBytes);
}

}  // namespace edgerun::ops
