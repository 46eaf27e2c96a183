#include "kernels/optimized/conv.h"

#include <algorithm>
#include <cstring>

namespace edgerun::optimized {

void ParallelRows(ThreadPool* pool, int64_t rows, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn) {
  if (rows <= 0) return;
  const int threads = NumThreads(pool);
  const int64_t tasks = threads == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(4 * threads, rows / std::max<int64_t>(1, min_rows)));
  const int64_t per_task = (rows + tasks - 1) / tasks;
  ParallelFor(pool, tasks, [&](int64_t t) {
    const int64_t r0 = t * per_task, r1 = std::min(rows, r0 + per_task);
    if (r0 < r1) fn(r0, r1);
  });
}

void PackConvFilterF32(const Shape& filter_shape, const float* filter, int groups, Isa isa, ConvFilterF32* out) {
  const int out_c = filter_shape[0];
  const int k = filter_shape[1] * filter_shape[2] * filter_shape[3];
  const int per_group = out_c / groups;
  if (static_cast<int>(out->groups.size()) == groups && !out->groups.empty() && out->groups[0].source == filter &&
      out->groups[0].isa == isa && out->groups[0].n == per_group && out->groups[0].k == k) {
    return;
  }
  out->groups.resize(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) {
    PackF32FromNK(filter + static_cast<int64_t>(g) * per_group * k, k, per_group, k, isa, &out->groups[g]);
  }
  // Marks the whole set as packed from `filter` (group 0's source is its start).
  out->groups[0].source = filter;
}

namespace {

// Rows [r0, r0 + rows) of the im2col matrix of group g: for each output pixel, the window's
// input values (zeros outside the image), KH * KW * f_c per row.
void Im2Col(const reference::ConvParams& p, const Shape& in, const float* input, int kh, int kw, int f_c, int group,
            int out_h, int out_w, int64_t r0, int rows, float* a) {
  const int in_h = in[1], in_w = in[2], in_c = in[3];
  const int64_t k = static_cast<int64_t>(kh) * kw * f_c;
  for (int r = 0; r < rows; ++r) {
    const int64_t pixel = r0 + r;
    const int64_t b = pixel / (static_cast<int64_t>(out_h) * out_w);
    const int oy = static_cast<int>(pixel / out_w % out_h), ox = static_cast<int>(pixel % out_w);
    float* dst = a + r * k;
    for (int ky = 0; ky < kh; ++ky) {
      const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
      for (int kx = 0; kx < kw; ++kx, dst += f_c) {
        const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
        if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) {
          std::fill(dst, dst + f_c, 0.0f);
        } else {
          std::memcpy(dst, input + ((b * in_h + iy) * in_w + ix) * in_c + static_cast<int64_t>(group) * f_c,
                      sizeof(float) * f_c);
        }
      }
    }
  }
}

}  // namespace

void Conv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
               const Shape& filter_shape, const ConvFilterF32& filter, const float* bias, const Shape& out_shape,
               float* output) {
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
  ParallelFor(pool, grid.tasks() * groups, [&](int64_t task) {
    const int g = static_cast<int>(task % groups);
    const int64_t t = task / groups;
    const int rt = static_cast<int>(t / grid.col_groups), cg = static_cast<int>(t % grid.col_groups);
    const int64_t r0 = static_cast<int64_t>(rt) * grid.rows_per_tile;
    const int rows = static_cast<int>(std::min<int64_t>(grid.rows_per_tile, m - r0));
    const PackedF32& b = filter.groups[g];
    const int n0 = cg * grid.panels_per_group * b.nr, n1 = std::min(b.n, n0 + grid.panels_per_group * b.nr);
    if (rows <= 0 || n0 >= n1) return;
    float* a = ScratchF32(static_cast<size_t>(rows) * k);
    Im2Col(p, in_shape, input, kh, kw, f_c, g, out_h, out_w, r0, rows, a);
    GemmF32Tile(a, k, rows, b, n0, n1, output + r0 * out_c + static_cast<int64_t>(g) * per_group, out_c,
                bias ? bias + g * per_group : nullptr, p.act_min, p.act_max);
  });
}

void DepthwiseConv2DF32(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
                        const Shape& filter_shape, const float* filter, const float* bias, const Shape& out_shape,
                        float* output) {
  const int batches = in_shape[0], in_h = in_shape[1], in_w = in_shape[2], c = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2];
  DwConvArgs args{};
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
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / out_h;
      const int oy = static_cast<int>(r % out_h);
      a.input = input + b * image_in;
      row_fn(a, oy, output + r * row_out);
    }
  });
}

}  // namespace edgerun::optimized
