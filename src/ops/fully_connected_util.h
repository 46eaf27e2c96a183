// The float32 matrix-vector rule (FULLY_CONNECTED of one row, 1x1 CONV_2D of one pixel) that the
// ops and the XNNPACK delegate's node rules share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

// A CONV_2D of one image of one pixel through a 1x1 filter (the logits layer of TF-slim's
// MobileNets, 1024 or 1280 -> 1001) is the same product: filter [out, 1, 1, in] = weights
// [out, in]. Shapes as given: input [1, 1, 1, in], filter [out, 1, 1, in], output [1, 1, 1, out].
inline bool FloatConvIsMatVecInPlace(const std::vector<int32_t>& input, const std::vector<int32_t>& filter,
                                     const std::vector<int32_t>& output, bool constant_filter, size_t filter_bytes) {
  if (input.size() != 4 || filter.size() != 4 || output.size() != 4) return false;
  const bool one_pixel = input[0] == 1 && input[1] == 1 && input[2] == 1 && output[0] == 1 && output[1] == 1 &&
                         output[2] == 1;
  const bool pointwise = filter[1] == 1 && filter[2] == 1 && filter[3] == input[3] && filter[0] == output[3];
  return one_pixel && pointwise && FloatMatVecInPlace(1, constant_filter, filter_bytes);
}

}  // namespace edgerun::ops
