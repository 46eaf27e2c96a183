#include "kernels/optimized/conv.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/winograd.h"

namespace edgerun::optimized {

void ParallelRows(ThreadPool* pool, int64_t rows, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn) {
  if (rows <= 0) return;
  const int threads = NumThreads(pool);
  const int64_t tasks = threads == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(4 * threads, rows / std::max<int64_t>(1, min_rows)));
  // Rows dealt evenly (sizes differ by at most one): 14 rows in 8 tasks as 2,2,2,2,2,2,1,1, not
  // 7 tasks of 2, which 2 threads share as 4 + 3.
  ParallelFor(pool, tasks, [&](int64_t t) {
    const int64_t r0 = t * rows / tasks, r1 = (t + 1) * rows / tasks;
    if (r0 < r1) fn(r0, r1);
  });
}

void PackConvFilterF32(const Shape& filter_shape, const float* filter, int groups, Isa isa, ConvFilterF32* out,
                       const ConsumedRowsFn* consumed) {
  const int out_c = filter_shape[0];
  const int k = filter_shape[1] * filter_shape[2] * filter_shape[3];
  const int per_group = out_c / groups;
  if (static_cast<int>(out->groups.size()) == groups && !out->groups.empty() && out->groups[0].source == filter &&
      out->groups[0].isa == isa && out->groups[0].n == per_group && out->groups[0].k == k) {
    return;
  }
  out->groups.resize(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) {
    PackF32FromNK(filter + static_cast<int64_t>(g) * per_group * k, k, per_group, k, isa, &out->groups[g], consumed);
  }
  // Marks the whole set as packed from `filter` (group 0's source is its start).
  out->groups[0].source = filter;
}

namespace {

// n floats; the windows are short (often 3 to 48 values), where a library call per window row
// costs more than the copy.
inline void CopyFloats(float* dst, const float* src, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) std::memcpy(dst + i, src + i, 4 * sizeof(float));
  for (; i < n; ++i) dst[i] = src[i];
}

// Rows [r0, r0 + rows) of the im2col matrix of group g: for each output pixel, the window's
// input values (zeros outside the image), KH * KW * f_c per row.
void Im2Col(const reference::ConvParams& p, const Shape& in, const float* input, int kh, int kw, int f_c, int group,
            int out_h, int out_w, int64_t r0, int rows, float* a) {
  const int in_h = in[1], in_w = in[2], in_c = in[3];
  const int64_t k = static_cast<int64_t>(kh) * kw * f_c;
  const int64_t row_stride = static_cast<int64_t>(in_w) * in_c, image_stride = in_h * row_stride;
  // Without groups or dilation along x, the part of a window row inside the image is one run of
  // the input.
  const bool runs = f_c == in_c && p.dilation_w == 1;
  // The pixel of row r0, then advanced one pixel per row (no division per row).
  int64_t b = r0 / (static_cast<int64_t>(out_h) * out_w);
  int oy = static_cast<int>(r0 / out_w % out_h), ox = static_cast<int>(r0 % out_w);
  for (int r = 0; r < rows; ++r) {
    float* dst = a + r * k;
    const float* image = input + b * image_stride + static_cast<int64_t>(group) * f_c;
    const int ix0 = ox * p.stride_w - p.pad_w;
    // Taps [x_lo, x_hi) of a window row fall inside the image (runs only).
    const int x_lo = runs ? std::min(kw, std::max(0, -ix0)) : 0;
    const int x_hi = runs ? std::max(x_lo, std::min(kw, in_w - ix0)) : 0;
    for (int ky = 0; ky < kh; ++ky, dst += static_cast<int64_t>(kw) * f_c) {
      const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
      if (iy < 0 || iy >= in_h) {
        std::fill(dst, dst + static_cast<int64_t>(kw) * f_c, 0.0f);
        continue;
      }
      const float* row = image + iy * row_stride;
      if (runs) {
        // (Tests first: most windows are inside the image, and a fill of nothing is still a call.)
        if (x_lo > 0) std::fill(dst, dst + x_lo * f_c, 0.0f);
        if (x_hi > x_lo) CopyFloats(dst + x_lo * f_c, row + static_cast<int64_t>(ix0 + x_lo) * in_c, (x_hi - x_lo) * f_c);
        if (x_hi < kw) std::fill(dst + x_hi * f_c, dst + kw * f_c, 0.0f);
        continue;
      }
      for (int kx = 0; kx < kw; ++kx) {
        const int ix = ix0 + kx * p.dilation_w;
        float* d = dst + kx * f_c;
        if (ix < 0 || ix >= in_w) {
          std::fill(d, d + f_c, 0.0f);
        } else {
          CopyFloats(d, row + static_cast<int64_t>(ix) * in_c, f_c);
        }
      }
    }
    if (++ox == out_w) {
      ox = 0;
      if (++oy == out_h) {
        oy = 0;
        ++b;
      }
    }
  }
}

}  // namespace

bool WindowRowsInPlace(int kh, int64_t depth, int64_t out_channels, int groups, int dilation_w, Isa isa) {
  constexpr int64_t kMaxPackedFilterValues = 256 * 1024;  // 1 MB: half of this CPU's L2
  return groups == 1 && dilation_w == 1 && kh <= kMaxGemmParts && depth * out_channels <= kMaxPackedFilterValues &&
         HasGemmF32Rows(isa);
}

void Conv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
               const Shape& filter_shape, const ConvFilterF32& filter, const float* bias, const Shape& out_shape,
               float* output) {
  if (!filter.winograd.empty()) {
    ConvWinogradF23(pool, p, in_shape, input, filter.winograd, bias, out_shape, output);
    return;
  }
  if (filter.winograd_from_direct) {
    ConvWinogradF23FromDirect(pool, p, in_shape, input, filter.groups[0], bias, out_shape, output);
    return;
  }
  const int in_c = in_shape[3];
  const int out_c = filter_shape[0], kh = filter_shape[1], kw = filter_shape[2], f_c = filter_shape[3];
  const int groups = in_c / f_c, per_group = out_c / groups;
  const int out_h = out_shape[1], out_w = out_shape[2];
  const int64_t m = static_cast<int64_t>(out_shape[0]) * out_h * out_w;
  if (m == 0 || out_c == 0) return;
  const bool pointwise = kh == 1 && kw == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 && p.pad_w == 0;
  if (pointwise) {
    // The input rows are the GEMM's A as they are.
    for (int g = 0; g < groups; ++g) {
      GemmF32(pool, input + static_cast<int64_t>(g) * f_c, in_c, static_cast<int>(m), filter.groups[g],
              output + static_cast<int64_t>(g) * per_group, out_c, bias ? bias + g * per_group : nullptr, p.act_min,
              p.act_max);
    }
    return;
  }
  const PackedF32& first = filter.groups[0];
  const int mr = KernelsFor(first.isa).f32_mr;
  const int64_t k = static_cast<int64_t>(kh) * kw * f_c;
  const TileGrid grid = PlanTiles(static_cast<int>(std::min<int64_t>(m, INT32_MAX)), first.panels(), mr,
                                  NumThreads(pool));
  // Without groups or dilation along x, a window row is one run of the input, and the runs of
  // neighbouring output pixels are stride_w * in_c floats apart: for the pixels whose window is
  // inside the image horizontally, the GEMM reads each window row in place (GemmF32TileRows),
  // with the sums in registers across the rows. Edge pixels, and windows too deep to keep a B
  // panel in L2, go through im2col.
  const bool in_place = k > 0 && WindowRowsInPlace(kh, k, per_group, groups, p.dilation_w, first.isa);
  int x_lo = 0, x_hi = 0;  // output columns whose window is inside the image horizontally
  if (in_place) {
    x_lo = p.pad_w <= 0 ? 0 : (p.pad_w + p.stride_w - 1) / p.stride_w;
    const int64_t last = static_cast<int64_t>(in_shape[2]) - kw + p.pad_w;  // largest ox * stride_w
    x_hi = last < 0 ? 0 : static_cast<int>(std::min<int64_t>(out_w, last / p.stride_w + 1));
    x_lo = std::min(x_lo, x_hi);
  }
  // Split over columns as well (few pixels: deep layers), every task of a row tile would copy the
  // same im2col rows; they are copied once instead, split over the pool, when they take at most
  // 4 MB (ResNet-18's 7x7x512 layer at 2 threads: eight tasks had each copied 0.9 MB).
  const bool shared_im2col = !in_place && groups == 1 && grid.col_groups > 1 && m * k <= (int64_t{1} << 20);
  float* shared = nullptr;
  if (shared_im2col) {
    shared = ScratchF32(static_cast<size_t>(m * k), 1);
    ParallelRows(pool, m, 8, [&](int64_t r0, int64_t r1) {
      Im2Col(p, in_shape, input, kh, kw, f_c, 0, out_h, out_w, r0, static_cast<int>(r1 - r0), shared + r0 * k);
    });
  }
  ParallelFor(pool, grid.tasks() * groups, [&](int64_t task) {
    const int g = static_cast<int>(task % groups);
    const int64_t t = task / groups;
    const int rt = static_cast<int>(t / grid.col_groups), cg = static_cast<int>(t % grid.col_groups);
    const int64_t r0 = static_cast<int64_t>(rt) * grid.rows_per_tile;
    const int rows = static_cast<int>(std::min<int64_t>(grid.rows_per_tile, m - r0));
    const PackedF32& b = filter.groups[g];
    const int n0 = cg * grid.panels_per_group * b.nr, n1 = std::min(b.n, n0 + grid.panels_per_group * b.nr);
    if (rows <= 0 || n0 >= n1) return;
    const float* group_bias = bias ? bias + g * per_group : nullptr;
    // Pixels [pixel, pixel + count) through im2col.
    auto im2col_gemm = [&](int64_t pixel, int count) {
      if (count <= 0) return;
      float* a = ScratchF32(static_cast<size_t>(count) * k);
      Im2Col(p, in_shape, input, kh, kw, f_c, g, out_h, out_w, pixel, count, a);
      GemmF32Tile(a, k, count, b, n0, n1, output + pixel * out_c + static_cast<int64_t>(g) * per_group, out_c,
                  group_bias, p.act_min, p.act_max);
    };
    if (shared != nullptr) {
      GemmF32Tile(shared + r0 * k, k, rows, b, n0, n1, output + r0 * out_c, out_c, group_bias, p.act_min, p.act_max);
      return;
    }
    if (!in_place) {
      im2col_gemm(r0, rows);
      return;
    }
    const int in_h = in_shape[1], in_w = in_shape[2];
    const float* parts[kMaxGemmParts];
    int depth0[kMaxGemmParts];
    // The tile's pixels, one output row at a time: [x0, lo) and [hi, x1) at the edges.
    for (int64_t pixel = r0, end = r0 + rows; pixel < end;) {
      const int64_t out_row = pixel / out_w;  // batch * out_h + oy
      const int x0 = static_cast<int>(pixel % out_w);
      const int x1 = static_cast<int>(std::min<int64_t>(out_w, x0 + (end - pixel)));
      const int lo = std::max(x0, std::min(x_lo, x1)), hi = std::max(lo, std::min(x_hi, x1));
      im2col_gemm(pixel, lo - x0);
      if (hi > lo) {
        const int64_t batch = out_row / out_h;
        const int oy = static_cast<int>(out_row % out_h);
        const int64_t ix = static_cast<int64_t>(lo) * p.stride_w - p.pad_w;
        int count = 0;
        for (int ky = 0; ky < kh; ++ky) {
          const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
          if (iy < 0 || iy >= in_h) continue;  // zeros: the row adds nothing
          parts[count] = input + ((batch * in_h + iy) * in_w + ix) * in_c;
          depth0[count++] = ky * kw * f_c;
        }
        GemmF32TileRows(count, parts, static_cast<int64_t>(p.stride_w) * in_c, depth0, kw * f_c, hi - lo, b, n0, n1,
                        output + (out_row * out_w + lo) * out_c, out_c, group_bias, p.act_min, p.act_max);
      }
      im2col_gemm(out_row * out_w + hi, x1 - hi);
      pixel += x1 - x0;
    }
  });
}

void DepthwiseConv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
                        const Shape& filter_shape, const float* filter, const float* bias, const Shape& out_shape,
                        float* output, int x0, int x1) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], c = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  DwConvArgs args{};
  args.x0 = x0;
  args.x1 = x1;
  args.in_h = in_h;
  args.in_w = in_w;
  args.channels = c;
  args.k_h = filter_shape[1];
  args.k_w = filter_shape[2];
  args.stride_h = p.stride_h;
  args.stride_w = p.stride_w;
  args.dilation_h = p.dilation_h;
  args.dilation_w = p.dilation_w;
  args.pad_h = p.pad_h;
  args.pad_w = p.pad_w;
  args.out_w = out_w;
  args.filter = filter;
  args.bias = bias;
  args.lo = p.act_min;
  args.hi = p.act_max;
  const DwConvRowFn row_fn = ActiveKernels().dwconv_f32;
  const int64_t image_in = static_cast<int64_t>(in_h) * in_w * c, row_out = static_cast<int64_t>(out_w) * c;
  ParallelRows(pool, static_cast<int64_t>(batches) * out_h, 1, [&](int64_t r0, int64_t r1) {
    DwConvArgs a = args;
    // The rows of each image in the range in one call.
    for (int64_t r = r0; r < r1;) {
      const int64_t b = r / out_h;
      const int oy = static_cast<int>(r % out_h);
      const int oy_end = static_cast<int>(std::min<int64_t>(out_h, oy + (r1 - r)));
      a.input = input + b * image_in;
      row_fn(a, oy, oy_end, output + r * row_out);
      r += oy_end - oy;
    }
  });
}

}  // namespace edgerun::optimized
