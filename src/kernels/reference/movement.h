// Data movement on raw bytes: works for every fixed-size element type (float, int8, ...).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "edgerun/tensor.h"

namespace edgerun::reference {

inline std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

// `count` elements of `element` bytes equal to `value`: one memset when the value's bytes are all
// the same (zero, the usual pad), else typed stores the compiler vectorizes. A memcpy call per
// element took 10 us for the 2,656 int16 values of a [1,2,166,8] pad.
inline void FillElements(uint8_t* dst, int64_t count, const uint8_t* value, size_t element) {
  if (count <= 0) return;
  if (std::all_of(value, value + element, [&](uint8_t b) { return b == value[0]; })) {
    std::memset(dst, value[0], static_cast<size_t>(count) * element);
    return;
  }
  auto fill_as = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, value, sizeof v);
    for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(sizeof v), &v, sizeof v);
  };
  switch (element) {
    case 2: return fill_as(uint16_t{});
    case 4: return fill_as(uint32_t{});
    case 8: return fill_as(uint64_t{});
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(element), value, element);
  }
}

// Pads each dim with before[d] / after[d] elements equal to `pad_value` (one element's bytes).
// The dims are first reduced: a dim without padding is merged into the one outside it (its rows
// are contiguous in both input and output), so a pad of one middle dim is a few long runs. Then
// each output element is written once: the padding of a dim as one fill of whole output rows,
// the innermost dim as fill, copy, fill.
inline void Pad(const Shape& in_shape, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
                size_t element, const uint8_t* input, const uint8_t* pad_value, uint8_t* output) {
  const size_t rank = in_shape.size();
  Shape out_shape(rank);
  for (size_t d = 0; d < rank; ++d) out_shape[d] = static_cast<int32_t>(in_shape[d] + before[d] + after[d]);
  if (NumElements(in_shape) <= 0) {
    FillElements(output, NumElements(out_shape), pad_value, element);
    return;
  }
  if (rank == 0) {
    std::memcpy(output, input, element);
    return;
  }
  struct Dim {
    int64_t size, before, after;
  };
  std::vector<Dim> dims;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in_shape[d];
    if (before[d] == 0 && after[d] == 0 && !dims.empty()) {
      dims.back().size *= size;
      dims.back().before *= size;
      dims.back().after *= size;
    } else {
      dims.push_back({size, before[d], after[d]});
    }
  }
  const int r = static_cast<int>(dims.size());
  std::vector<int64_t> in_stride(static_cast<size_t>(r), 1), out_stride(static_cast<size_t>(r), 1);
  for (int d = r - 2; d >= 0; --d) {
    in_stride[d] = in_stride[d + 1] * dims[d + 1].size;
    out_stride[d] = out_stride[d + 1] * (dims[d + 1].before + dims[d + 1].size + dims[d + 1].after);
  }
  const int64_t el = static_cast<int64_t>(element);
  auto pad_dim = [&](auto& self, int d, const uint8_t* src, uint8_t* dst) -> void {
    const Dim& dim = dims[d];
    FillElements(dst, dim.before * out_stride[d], pad_value, element);
    dst += dim.before * out_stride[d] * el;
    if (d == r - 1) {
      std::memcpy(dst, src, static_cast<size_t>(dim.size * el));
    } else {
      for (int64_t i = 0; i < dim.size; ++i) self(self, d + 1, src + i * in_stride[d] * el, dst + i * out_stride[d] * el);
    }
    FillElements(dst + dim.size * out_stride[d] * el, dim.after * out_stride[d], pad_value, element);
  };
  pad_dim(pad_dim, 0, input, output);
}

// bytes from src to dst, the sizes of short runs (a slice of a few channels, a concatenation of
// two halves of a pixel) known to the compiler: a library call per 8 bytes costs more than the
// copy.
inline void CopyRun(uint8_t* dst, const uint8_t* src, size_t bytes) {
  switch (bytes) {
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 12: std::memcpy(dst, src, 12); return;
    case 16: std::memcpy(dst, src, 16); return;
    case 32: std::memcpy(dst, src, 32); return;
    default: std::memcpy(dst, src, bytes); return;
  }
}

// `count` runs of `bytes` bytes, src_step and dst_step bytes apart: the size switch made once for
// the whole loop, not once a run (RoPE's slices of 2 of 4 floats are 51,200 runs of 8 bytes).
template <size_t kBytes>
inline void CopyRunsOf(uint8_t* dst, int64_t dst_step, const uint8_t* src, int64_t src_step, int64_t count) {
  for (int64_t i = 0; i < count; ++i, dst += dst_step, src += src_step) std::memcpy(dst, src, kBytes);
}
inline void CopyRuns(uint8_t* dst, int64_t dst_step, const uint8_t* src, int64_t src_step, int64_t count,
                     size_t bytes) {
  switch (bytes) {
    case 1: return CopyRunsOf<1>(dst, dst_step, src, src_step, count);
    case 2: return CopyRunsOf<2>(dst, dst_step, src, src_step, count);
    case 4: return CopyRunsOf<4>(dst, dst_step, src, src_step, count);
    case 8: return CopyRunsOf<8>(dst, dst_step, src, src_step, count);
    case 12: return CopyRunsOf<12>(dst, dst_step, src, src_step, count);
    case 16: return CopyRunsOf<16>(dst, dst_step, src, src_step, count);
    case 32: return CopyRunsOf<32>(dst, dst_step, src, src_step, count);
    default:
      for (int64_t i = 0; i < count; ++i, dst += dst_step, src += src_step) std::memcpy(dst, src, bytes);
  }
}

// f(src, dst) for every combination of indices over dims (size, src step, dst step), offsets in
// elements: an odometer over the outer dimensions of a copy whose inner loop the caller runs.
template <class Fn>
void ForEachOffset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& src_steps,
                   const std::vector<int64_t>& dst_steps, const Fn& f) {
  const int rank = static_cast<int>(sizes.size());
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t src = 0, dst = 0;
  while (true) {
    f(src, dst);
    int d = rank - 1;
    for (; d >= 0; --d) {
      src += src_steps[d];
      dst += dst_steps[d];
      if (++index[d] < sizes[d]) break;
      src -= src_steps[d] * sizes[d];
      dst -= dst_steps[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// A rows x cols block of kBytes elements: element (i, j) from src + (i + j * src_step) elements to
// dst + (i * dst_step + j), in tiles of 8 x 8, so that a tile's 8 source runs and 8 destination
// runs are each a few cache lines instead of every element its own line.
template <size_t kBytes>
void TransposeBlock(const uint8_t* src, int64_t src_step, uint8_t* dst, int64_t dst_step, int64_t rows,
                    int64_t cols) {
  constexpr int64_t kTile = 8;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        uint8_t* out = dst + (i * dst_step) * static_cast<int64_t>(kBytes);
        const uint8_t* in = src + i * static_cast<int64_t>(kBytes);
        for (int64_t j = j0; j < j1; ++j) std::memcpy(out + j * kBytes, in + j * src_step * kBytes, kBytes);
      }
    }
  }
}

// output[i0..in] = input[i_perm[0]..]: output dim d is input dim perm[d]. The permutation is first
// reduced: size-1 dims dropped, output dims that are consecutive in the input merged. Then either
// the innermost dim is contiguous in both (runs of it copied, CopyRuns) or the input's contiguous
// dim lands elsewhere in the output, and each 2-D block of it and the output's innermost dim is
// transposed in tiles (TransposeBlock). An element-by-element odometer took 35 us for a
// [1, 64, 32, 4] attention transpose.
// block32, when given, replaces TransposeBlock<4> (optimized::TransposeBlock32Fn: the same
// contract on vector shuffles).
using TransposeBlock32Fn = void (*)(const uint8_t* src, int64_t src_step, uint8_t* dst, int64_t dst_step,
                                    int64_t rows, int64_t cols);
inline void Transpose(const Shape& in_shape, const std::vector<int>& perm, size_t element, const uint8_t* input,
                      uint8_t* output, TransposeBlock32Fn block32 = nullptr) {
  const size_t rank = in_shape.size();
  if (NumElements(in_shape) <= 0) return;
  const std::vector<int64_t> in_strides = Strides(in_shape);
  std::vector<int64_t> sizes, steps;  // per reduced output dim: its size and input stride (elements)
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in_shape[perm[d]], step = in_strides[perm[d]];
    if (size == 1) continue;
    if (!steps.empty() && steps.back() == step * size) {
      sizes.back() *= size;
      steps.back() = step;
    } else {
      sizes.push_back(size);
      steps.push_back(step);
    }
  }
  const int r = static_cast<int>(sizes.size());
  if (r <= 1) {  // the identity on the data
    std::memcpy(output, input, static_cast<size_t>(NumElements(in_shape)) * element);
    return;
  }
  std::vector<int64_t> out_strides(static_cast<size_t>(r), 1);
  for (int d = r - 2; d >= 0; --d) out_strides[d] = out_strides[d + 1] * sizes[d + 1];
  const int64_t el = static_cast<int64_t>(element);
  if (steps.back() == 1) {
    // Runs of the innermost dim, a strided loop of them along the next one.
    const size_t run = static_cast<size_t>(sizes.back() * el);
    const int inner = r - 2;
    const std::vector<int64_t> outer(sizes.begin(), sizes.begin() + inner);
    ForEachOffset(outer, std::vector<int64_t>(steps.begin(), steps.begin() + inner),
                  std::vector<int64_t>(out_strides.begin(), out_strides.begin() + inner), [&](int64_t src, int64_t dst) {
                    CopyRuns(output + dst * el, static_cast<int64_t>(run), input + src * el, steps[inner] * el,
                             sizes[inner], run);
                  });
    return;
  }
  // The input's contiguous dim is output dim q (the stride-1 one; not the last).
  int q = 0;
  while (steps[q] != 1) ++q;
  std::vector<int64_t> outer, outer_src, outer_dst;
  for (int d = 0; d + 1 < r; ++d) {
    if (d == q) continue;
    outer.push_back(sizes[d]);
    outer_src.push_back(steps[d]);
    outer_dst.push_back(out_strides[d]);
  }
  const int64_t rows = sizes[q], cols = sizes.back(), src_step = steps.back(), dst_step = out_strides[q];
  ForEachOffset(outer, outer_src, outer_dst, [&](int64_t src, int64_t dst) {
    const uint8_t* in = input + src * el;
    uint8_t* out = output + dst * el;
    switch (element) {
      case 1: return TransposeBlock<1>(in, src_step, out, dst_step, rows, cols);
      case 2: return TransposeBlock<2>(in, src_step, out, dst_step, rows, cols);
      case 4:
        if (block32 != nullptr) return block32(in, src_step, out, dst_step, rows, cols);
        return TransposeBlock<4>(in, src_step, out, dst_step, rows, cols);
      case 8: return TransposeBlock<8>(in, src_step, out, dst_step, rows, cols);
      default:
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            std::memcpy(out + (i * dst_step + j) * el, in + (i + j * src_step) * el, element);
    }
  });
}

// Strided slice over a dense spec: for each dim, start, stride and output size.
inline void StridedSlice(const Shape& in_shape, const std::vector<int64_t>& start, const std::vector<int64_t>& stride,
                         const Shape& out_dims, size_t element, const uint8_t* input, uint8_t* output) {
  const int64_t total = NumElements(out_dims);
  if (total <= 0) return;
  size_t rank = in_shape.size();
  if (rank == 0) {
    std::memcpy(output, input, element);
    return;
  }
  // Trailing dimensions taken whole (start 0, stride 1, every element) join the element, and the
  // last one left, when its stride is 1, is copied a row at a time: the odometer then walks rows.
  size_t block = element;
  while (rank > 1 && start[rank - 1] == 0 && stride[rank - 1] == 1 && out_dims[rank - 1] == in_shape[rank - 1]) {
    block *= static_cast<size_t>(in_shape[--rank]);
  }
  const Shape shape(in_shape.begin(), in_shape.begin() + static_cast<std::ptrdiff_t>(rank));
  const std::vector<int64_t> in_strides = Strides(shape);
  const size_t last = rank - 1;
  const bool rows = stride[last] == 1;
  const int64_t row_items = rows ? out_dims[last] : 1;  // elements (of `block` bytes) per copy
  const size_t run = static_cast<size_t>(row_items) * block;
  int64_t first = 0;
  for (size_t d = 0; d < rank; ++d) first += start[d] * in_strides[d];
  // The innermost dimension the odometer walks is copied as one strided loop of runs.
  const int inner = rows ? static_cast<int>(last) - 1 : static_cast<int>(last);
  if (inner < 0) {  // one row: the whole output
    CopyRun(output, input + first * block, run);
    return;
  }
  const int64_t inner_count = out_dims[inner], inner_step = stride[inner] * in_strides[inner];
  // The dims outside it: input steps in blocks, output steps in runs.
  std::vector<int64_t> sizes(out_dims.begin(), out_dims.begin() + inner), src_steps(inner), dst_steps(inner);
  int64_t runs_below = inner_count;
  for (int d = inner - 1; d >= 0; --d) {
    src_steps[d] = stride[d] * in_strides[d];
    dst_steps[d] = runs_below;
    runs_below *= out_dims[d];
  }
  ForEachOffset(sizes, src_steps, dst_steps, [&](int64_t src, int64_t dst) {
    CopyRuns(output + dst * static_cast<int64_t>(run), static_cast<int64_t>(run), input + (first + src) * block,
             inner_step * static_cast<int64_t>(block), inner_count, run);
  });
}

// Concatenates along `axis`: each input contributes its slice of every outer row in turn.
inline void Concatenate(const std::vector<const uint8_t*>& inputs, const std::vector<Shape>& shapes, int axis,
                        size_t element, uint8_t* output) {
  if (inputs.empty()) return;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= shapes[0][d];
  std::vector<int64_t> chunk(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t inner = 1;
    for (size_t d = axis; d < shapes[i].size(); ++d) inner *= shapes[i][d];
    chunk[i] = inner * static_cast<int64_t>(element);
  }
  // Input by input: each one's chunks are a strided loop of runs into the output rows.
  int64_t row = 0, offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) row += chunk[i];
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (chunk[i] > 0) CopyRuns(output + offset, row, inputs[i], chunk[i], outer, static_cast<size_t>(chunk[i]));
    offset += chunk[i];
  }
}

}  // namespace edgerun::reference
