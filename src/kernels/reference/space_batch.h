// Moving blocks of space into depth or batch and back, on raw bytes (any fixed-size type):
// SPACE_TO_DEPTH, DEPTH_TO_SPACE (NHWC), SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND (any number of
// spatial dims after the batch; the dims after those move along as one block of bytes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "edgerun/tensor.h"
#include "kernels/reference/movement.h"

namespace edgerun::reference {

// SPACE_TO_DEPTH: out[n, h, w, (by * b + bx) * C + c] = in[n, h * b + by, w * b + bx, c].
// DEPTH_TO_SPACE is the inverse; `to_depth` picks the direction. `shape` is the NHWC space side.
inline void SpaceDepth(const Shape& space, int block, bool to_depth, size_t element, const uint8_t* input,
                       uint8_t* output) {
  const int64_t n = space[0], h = space[1], w = space[2];
  const int64_t run = space[3] * static_cast<int64_t>(element);  // one pixel's channels
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const int64_t space_offset = ((b * h + y) * w + x) * run;
        const int64_t depth_pixel = (b * (h / block) + y / block) * (w / block) + x / block;
        const int64_t depth_offset = depth_pixel * run * block * block + ((y % block) * block + x % block) * run;
        if (to_depth) std::memcpy(output + depth_offset, input + space_offset, run);
        else std::memcpy(output + space_offset, input + depth_offset, run);
      }
    }
  }
}

// Geometry shared by SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND, seen from the space side:
// [batch, space..., rest] <-> [batch * prod(block), space' ..., rest] where for each spatial dim
// m, space position p = q * block[m] + k[m] - offset[m] (q: position in the batch side, k: the
// block offset, which selects batch index k * batch + b).
struct SpaceBatchGeometry {
  int64_t batch = 0;                     // batch size of the space side
  std::vector<int64_t> space;            // spatial dims of the space side
  std::vector<int64_t> batch_space;      // spatial dims of the batch side
  std::vector<int64_t> block;            // block size per spatial dim
  std::vector<int64_t> offset;           // padding before (space->batch) or crop start (batch->space)
  int64_t rest_bytes = 0;                // bytes of the trailing dims
};

// Calls f(space_offset, batch_offset, count) (offsets in units of rest_bytes) for each run of
// batch-side elements along the last spatial dim whose space positions lie inside the space side:
// `count` elements, consecutive on the batch side and block.back() apart on the space side. The
// runs' bounds come from the block offset (no test per element): a dilated 3x3 conv's
// [1,1,1,3] -> [36,3,3,3] has one element inside, and an element-wise walk over the 324 took 7 us.
template <class F>
void ForEachSpaceBatchRun(const SpaceBatchGeometry& g, F f) {
  const int m_count = static_cast<int>(g.block.size());
  const int last = m_count - 1;
  int64_t blocks = 1, outer_points = 1;  // outer: the batch side's spatial dims before the last
  for (int m = 0; m < m_count; ++m) blocks *= g.block[m];
  for (int m = 0; m < last; ++m) outer_points *= g.batch_space[m];
  auto floor_div = [](int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); };
  const int64_t block = g.block[last], space = g.space[last], offset = g.offset[last];
  std::vector<int64_t> k(static_cast<size_t>(m_count)), q(static_cast<size_t>(m_count));
  for (int64_t kb = 0; kb < blocks; ++kb) {
    int64_t rem = kb;  // block offsets, row-major
    for (int m = last; m >= 0; --m) {
      k[m] = rem % g.block[m];
      rem /= g.block[m];
    }
    // Along the last dim p = q * block + k - offset must lie in [0, space).
    const int64_t q_begin = std::max<int64_t>(0, -floor_div(k[last] - offset, block));
    const int64_t q_end = std::min(g.batch_space[last], floor_div(space - 1 + offset - k[last], block) + 1);
    if (q_end <= q_begin) continue;
    const int64_t p_begin = q_begin * block + k[last] - offset;
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t batch_index = kb * g.batch + b;
      std::fill(q.begin(), q.end(), 0);
      for (int64_t i = 0; i < outer_points; ++i) {
        int64_t space_offset = b;
        bool inside = true;
        for (int m = 0; m < last; ++m) {
          const int64_t p = q[m] * g.block[m] + k[m] - g.offset[m];
          inside = inside && p >= 0 && p < g.space[m];
          space_offset = space_offset * g.space[m] + p;
        }
        if (inside) {
          f(space_offset * space + p_begin, (batch_index * outer_points + i) * g.batch_space[last] + q_begin,
            q_end - q_begin);
        }
        for (int m = last - 1; m >= 0; --m) {
          if (++q[m] < g.batch_space[m]) break;
          q[m] = 0;
        }
      }
    }
  }
}

// SPACE_TO_BATCH_ND: padded positions get `pad_value` (one element, repeated over the rest dims).
// The whole output is filled first (one memset for a zero pad), then the inside runs copied.
inline void SpaceToBatch(const SpaceBatchGeometry& g, size_t element, const uint8_t* input, const uint8_t* pad_value,
                         uint8_t* output) {
  if (g.rest_bytes == 0) return;
  int64_t positions = g.batch;
  for (size_t m = 0; m < g.block.size(); ++m) positions *= g.block[m] * g.batch_space[m];
  FillElements(output, positions * g.rest_bytes / static_cast<int64_t>(element), pad_value, element);
  const int64_t step = g.block.back() * g.rest_bytes;
  ForEachSpaceBatchRun(g, [&](int64_t from, int64_t to, int64_t count) {
    CopyRuns(output + to * g.rest_bytes, g.rest_bytes, input + from * g.rest_bytes, step, count,
             static_cast<size_t>(g.rest_bytes));
  });
}

// BATCH_TO_SPACE_ND: batch-side elements that land in the cropped border are dropped.
inline void BatchToSpace(const SpaceBatchGeometry& g, const uint8_t* input, uint8_t* output) {
  if (g.rest_bytes == 0) return;
  const int64_t step = g.block.back() * g.rest_bytes;
  ForEachSpaceBatchRun(g, [&](int64_t to, int64_t from, int64_t count) {
    CopyRuns(output + to * g.rest_bytes, step, input + from * g.rest_bytes, g.rest_bytes, count,
             static_cast<size_t>(g.rest_bytes));
  });
}

}  // namespace edgerun::reference
