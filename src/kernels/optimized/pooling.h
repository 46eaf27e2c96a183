// Optimized AVERAGE_POOL_2D and MAX_POOL_2D over NHWC: each output pixel's window is folded a row
// of channels at a time (contiguous loads the compiler vectorizes) instead of the reference's
// one channel at a time across the window (a stride of the depth at every cell). Every channel
// still meets its cells in the reference's order (window rows, then columns), so the results
// equal reference::Pool2D / AveragePoolQuantized / MaxPoolQuantized bit for bit, floats
// included. MAX pooling on AVX2 / AVX-512 runs each output pixel through the ISA's kernel
// (IsaKernels::max_pool_*), which keeps the maxima in vector registers across the window. Output
// pixels are shared among the threads; a few pixels with many channels (a global average pool:
// 7x7x1280 -> 1x1x1280) split the channels instead.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "edgerun/tensor.h"
#include "kernels/optimized/conv.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/pooling.h"

namespace edgerun::optimized {

namespace pooling_detail {

// Channels per block: the block's accumulators (up to 256 x 4 bytes) stay in L1.
constexpr int kChannelBlock = 256;

// Runs fn(pixel, c0, c1) over every output pixel (batch, y, x flattened) and channel block.
// Under about 256 K cell visits the work stays on the calling thread: a handoff costs more than
// it saves, and the other core would pull the cache lines over. Except a pool of few pixels and
// many channels over 32 K cells (a global pool of 7x7x1280 bytes: 10 us alone): it comes after a
// convolution whose threads each wrote some of the channels, so on one thread half of its input
// crosses from the other core (18 us at 2 threads); split by channels, each thread reads mostly
// the channels it wrote (10 us). The caller gives it the pool only when it has threads to spare
// (EstimateSerialNs prices the crossing).
template <class Fn>
void ForEachPixelBlock(ThreadPool* pool, const reference::PoolParams& p, int64_t pixels, int depth, const Fn& fn) {
  const double visits = static_cast<double>(pixels) * p.filter_h * p.filter_w * depth;  // an upper bound
  const bool by_channels = pixels < 4 * NumThreads(pool) && depth > 64;
  const int threads = visits < (by_channels ? 32768.0 : 262144.0) ? 1 : NumThreads(pool);
  const int blocks = (depth + kChannelBlock - 1) / kChannelBlock;
  if (threads == 1) {
    for (int64_t pixel = 0; pixel < pixels; ++pixel) {
      for (int b = 0; b < blocks; ++b) fn(pixel, b * kChannelBlock, std::min(depth, (b + 1) * kChannelBlock));
    }
    return;
  }
  if (by_channels) {
    // Few pixels: split the channels as well, in chunks of at least 64.
    const int chunks = std::min<int64_t>(4 * threads, (depth + 63) / 64);
    const int per_chunk = (depth + chunks - 1) / chunks;
    ParallelFor(pool, pixels * chunks, [&](int64_t task) {
      const int64_t pixel = task / chunks;
      const int c0 = static_cast<int>(task % chunks) * per_chunk;
      const int c1 = std::min(depth, c0 + per_chunk);
      for (int c = c0; c < c1; c += kChannelBlock) fn(pixel, c, std::min(c1, c + kChannelBlock));
    });
    return;
  }
  ParallelRows(pool, pixels, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t pixel = p0; pixel < p1; ++pixel) {
      for (int b = 0; b < blocks; ++b) fn(pixel, b * kChannelBlock, std::min(depth, (b + 1) * kChannelBlock));
    }
  });
}

// Calls row(first_cell, cells) for each window row of the output pixel, in the reference's order:
// the covered cells of that row, `cells` pixels from first_cell (in_shape[3] values apart).
// Returns the number of cells.
template <class T, class Row>
int ForEachWindowRow(const reference::PoolParams& p, const Shape& in_shape, const Shape& out_shape, const T* input,
                     int64_t pixel, const Row& row) {
  const int in_h = in_shape[1], in_w = in_shape[2], depth = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  const int64_t b = pixel / (static_cast<int64_t>(out_h) * out_w);
  const int oy = static_cast<int>(pixel / out_w % out_h), ox = static_cast<int>(pixel % out_w);
  const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
  const int fy0 = std::max(0, -y0), fy1 = std::min(p.filter_h, in_h - y0);
  const int fx0 = std::max(0, -x0), fx1 = std::min(p.filter_w, in_w - x0);
  if (fx1 <= fx0) return 0;
  for (int fy = fy0; fy < fy1; ++fy) {
    row(input + ((b * in_h + y0 + fy) * in_w + x0 + fx0) * depth, fx1 - fx0);
  }
  return std::max(0, fy1 - fy0) * (fx1 - fx0);
}

// Calls cell(row_pointer_of_each_covered_cell) for the output pixel, in the reference's order
// (window rows, then columns); returns the number of cells.
template <class T, class Cell>
int ForEachCell(const reference::PoolParams& p, const Shape& in_shape, const Shape& out_shape, const T* input,
                int64_t pixel, const Cell& cell) {
  const int64_t depth = in_shape[3];
  return ForEachWindowRow(p, in_shape, out_shape, input, pixel, [&](const T* first, int cells) {
    for (int i = 0; i < cells; ++i) cell(first + i * depth);
  });
}

// The ISA's kernel for one output pixel of a max pool (null: the loops below).
template <class T>
MaxPoolCellsFn<T> MaxPoolKernel() {
  const IsaKernels& k = ActiveKernels();
  if constexpr (std::is_same_v<T, float>) return k.max_pool_f32;
  if constexpr (std::is_same_v<T, uint8_t>) return k.max_pool_u8;
  if constexpr (std::is_same_v<T, int8_t>) return k.max_pool_i8;
  if constexpr (std::is_same_v<T, int16_t>) return k.max_pool_i16;
  return nullptr;
}

// Windows of up to this many cells go to the ISA kernel (their pointers on the stack).
constexpr int kMaxKernelCells = 256;

// Output pixel `pixel`, channels [c0, c1), by the ISA kernel; false (nothing done) without one.
template <class T>
bool MaxPoolPixel(MaxPoolCellsFn<T> kernel, const reference::PoolParams& p, const Shape& in_shape, const T* input,
                  const Shape& out_shape, int64_t pixel, int c0, int c1, T lo, T hi, T* output) {
  if (kernel == nullptr || static_cast<int64_t>(p.filter_h) * p.filter_w > kMaxKernelCells) return false;
  const T* cells[kMaxKernelCells];
  int count = 0;
  ForEachCell(p, in_shape, out_shape, input, pixel, [&](const T* cell) { cells[count++] = cell + c0; });
  kernel(cells, count, c1 - c0, lo, hi, output + pixel * in_shape[3] + c0);
  return true;
}

}  // namespace pooling_detail

// Float MAX (kMax) or AVERAGE pooling with the activation clamp, as reference::Pool2D.
template <bool kMax>
void Pool2DF32(ThreadPool* pool, const reference::PoolParams& p, const Shape& in_shape, const float* input,
               const Shape& out_shape, float* output) {
  const int depth = in_shape[3];
  const int64_t pixels = static_cast<int64_t>(out_shape[0]) * out_shape[1] * out_shape[2];
  if (pixels <= 0 || depth <= 0) return;
  const MaxPoolCellsFn<float> max_kernel = kMax ? pooling_detail::MaxPoolKernel<float>() : nullptr;
  pooling_detail::ForEachPixelBlock(pool, p, pixels, depth, [&](int64_t pixel, int c0, int c1) {
    if (pooling_detail::MaxPoolPixel(max_kernel, p, in_shape, input, out_shape, pixel, c0, c1, p.act_min, p.act_max,
                                     output)) {
      return;
    }
    float acc[pooling_detail::kChannelBlock];
    const int n = c1 - c0;
    std::fill(acc, acc + n, kMax ? std::numeric_limits<float>::lowest() : 0.0f);
    const int count = pooling_detail::ForEachCell(p, in_shape, out_shape, input, pixel, [&](const float* cell) {
      const float* v = cell + c0;
      // std::max(acc, v) on values: the library's returns a reference, which GCC compiled into a
      // branch per element (8 ms for ResNet-18's 56x56x64 pool on random data, mispredicted half
      // the time); the select vectorizes (maxps keeps acc for a NaN v, as std::max does).
      for (int i = 0; i < n; ++i) {
        const float a = acc[i], x = v[i];
        acc[i] = kMax ? (a < x ? x : a) : a + x;
      }
    });
    float* out = output + pixel * depth + c0;
    const float lo = p.act_min, hi = p.act_max;
    for (int i = 0; i < n; ++i) {
      float a = acc[i];
      if (!kMax) a = count > 0 ? a / static_cast<float>(count) : 0.0f;
      out[i] = std::min(std::max(a, lo), hi);
    }
  });
}

// Quantized AVERAGE pooling as reference::AveragePoolQuantized (false when a window covers no
// cell). Sums in int32, exact for windows of up to 65536 cells of 16-bit values; larger windows
// go to the reference (int64).
template <class T>
bool AveragePoolQuantized(ThreadPool* pool, const reference::PoolParams& p, const Shape& in_shape, const T* input,
                          const Shape& out_shape, T* output) {
  if (static_cast<int64_t>(p.filter_h) * p.filter_w > 65536) {
    return reference::AveragePoolQuantized<T>(p, in_shape, input, out_shape, output);
  }
  const int depth = in_shape[3];
  const int64_t pixels = static_cast<int64_t>(out_shape[0]) * out_shape[1] * out_shape[2];
  if (pixels <= 0 || depth <= 0) return true;
  std::atomic<bool> empty_window{false};
  // 8-bit windows: each window row's cells (pixels `depth` apart) added by the ISA's kernel, its
  // sums in registers across the cells (coral MobileNet v2's global pool of 7x7x1280 bytes:
  // 9.7 -> 4.3 us at 1 thread, 11.6 -> 5.7-6.0 at 2).
  const AddRowsI8Fn add_rows = sizeof(T) == 1 ? ActiveKernels().add_rows_i8 : nullptr;
  pooling_detail::ForEachPixelBlock(pool, p, pixels, depth, [&](int64_t pixel, int c0, int c1) {
    int32_t acc[pooling_detail::kChannelBlock];
    const int n = c1 - c0;
    std::fill(acc, acc + n, 0);
    const int count = add_rows != nullptr
        ? pooling_detail::ForEachWindowRow(p, in_shape, out_shape, input, pixel, [&](const T* first, int cells) {
            add_rows(first + c0, cells, depth, n, std::is_unsigned_v<T>, acc);
          })
        : pooling_detail::ForEachCell(p, in_shape, out_shape, input, pixel, [&](const T* cell) {
            const T* v = cell + c0;
            for (int i = 0; i < n; ++i) acc[i] += v[i];
          });
    T* out = output + pixel * depth + c0;
    if (count == 0) {
      std::fill(out, out + n, T{0});
      empty_window.store(true, std::memory_order_relaxed);
      return;
    }
    const int64_t half = count / 2;
    for (int i = 0; i < n; ++i) {
      const int64_t sum = acc[i];
      const int64_t average = sum > 0 ? (sum + half) / count : (sum - half) / count;
      out[i] = static_cast<T>(std::clamp<int64_t>(average, p.quant_min, p.quant_max));
    }
  });
  return !empty_window.load();
}

// Quantized MAX pooling with the activation clamp, as reference::MaxPoolQuantized.
template <class T>
void MaxPoolQuantized(ThreadPool* pool, const reference::PoolParams& p, const Shape& in_shape, const T* input,
                      const Shape& out_shape, T* output) {
  const int depth = in_shape[3];
  const int64_t pixels = static_cast<int64_t>(out_shape[0]) * out_shape[1] * out_shape[2];
  if (pixels <= 0 || depth <= 0) return;
  // The bounds in locals: read through p, they were loaded again for every value (out may
  // alias p as far as the compiler knows), which kept the clamp loop scalar.
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  const T lo = static_cast<T>(std::clamp<int32_t>(p.quant_min, kMin, kMax));
  const T hi = static_cast<T>(std::clamp<int32_t>(p.quant_max, kMin, kMax));
  const MaxPoolCellsFn<T> max_kernel = pooling_detail::MaxPoolKernel<T>();
  pooling_detail::ForEachPixelBlock(pool, p, pixels, depth, [&](int64_t pixel, int c0, int c1) {
    if (pooling_detail::MaxPoolPixel(max_kernel, p, in_shape, input, out_shape, pixel, c0, c1, lo, hi, output)) return;
    T acc[pooling_detail::kChannelBlock];
    const int n = c1 - c0;
    std::fill(acc, acc + n, std::numeric_limits<T>::min());
    pooling_detail::ForEachCell(p, in_shape, out_shape, input, pixel, [&](const T* cell) {
      const T* v = cell + c0;
      for (int i = 0; i < n; ++i) {
        const T a = acc[i], x = v[i];
        acc[i] = a < x ? x : a;  // on values, as in Pool2DF32
      }
    });
    T* out = output + pixel * depth + c0;
    for (int i = 0; i < n; ++i) {
      const T a = acc[i];
      out[i] = a < lo ? lo : (hi < a ? hi : a);
    }
  });
}

}  // namespace edgerun::optimized
