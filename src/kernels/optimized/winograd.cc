#include "kernels/optimized/winograd.h"

#include <algorithm>
#include <limits>

#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {
namespace {

constexpr int kPositions = 16;  // of a transformed 4x4 block
constexpr int64_t kMaxChannelPairs = 128 * 128;
// Limits of the transform from the direct packing (single-thread layer times, direct -> Winograd,
// AVX-512): 14x14 and 8x8 outputs gain (14x14x256: 1108 -> 652 us; 8x8x512: 1.38-1.43 ms ->
// 1.09-1.26), 7x7 loses (7x7x512: 1.06-1.08 -> 1.22-1.28 ms; its 4x4 tiles compute 8x8 outputs);
// beyond 512 input channels a block holds too few tiles for its filter transform
// (14x14 1024 -> 256: 4.19-4.57 -> 3.79-4.71 ms).
constexpr int kMinDirectPixels = 64;
constexpr int kMaxDirectChannels = 512;

// Tiles per block: the block's transformed inputs (16 x T x C) and products (16 x T x O) take
// about 384 KB, in L2 with one transformed filter at a time.
int TilesPerBlock(int c, int o) { return std::clamp(6144 / (c + o), 8, 64); }

// Channels [0, c) of the 4x4 input block whose 16 cells (NHWC pixels, row-major; cells outside
// the image point at zeros) are cells[0..15] into v[position * stride + channel]: V = B^T d B
// with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
void TransformInput(const float* const* cells, int c, float* v, int64_t stride) {
  for (int ch = 0; ch < c; ++ch) {
    float d[4][4];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) d[i][j] = cells[i * 4 + j][ch];
    }
    float t[4][4];  // B^T d
    for (int j = 0; j < 4; ++j) {
      t[0][j] = d[0][j] - d[2][j];
      t[1][j] = d[1][j] + d[2][j];
      t[2][j] = d[2][j] - d[1][j];
      t[3][j] = d[1][j] - d[3][j];
    }
    for (int i = 0; i < 4; ++i) {  // (B^T d) B
      v[(i * 4 + 0) * stride + ch] = t[i][0] - t[i][2];
      v[(i * 4 + 1) * stride + ch] = t[i][1] + t[i][2];
      v[(i * 4 + 2) * stride + ch] = t[i][2] - t[i][1];
      v[(i * 4 + 3) * stride + ch] = t[i][1] - t[i][3];
    }
  }
}

// The 2x2 outputs of one tile from its products m[position * stride + channel]: Y = A^T M A with
// A^T = [1 1 1 0; 0 1 -1 -1], plus the bias, clamped; out[k] is output k (row-major) of the tile.
void TransformOutput(const float* m, int64_t stride, int o, const float* bias, float lo, float hi,
                     float* const* out) {
  for (int ch = 0; ch < o; ++ch) {
    float s[2][4];  // A^T M
    for (int j = 0; j < 4; ++j) {
      const float m0 = m[(0 * 4 + j) * stride + ch], m1 = m[(1 * 4 + j) * stride + ch];
      const float m2 = m[(2 * 4 + j) * stride + ch], m3 = m[(3 * 4 + j) * stride + ch];
      s[0][j] = m0 + m1 + m2;
      s[1][j] = m1 - m2 - m3;
    }
    const float b = bias ? bias[ch] : 0.0f;
    for (int i = 0; i < 2; ++i) {
      const float y0 = s[i][0] + s[i][1] + s[i][2] + b;
      const float y1 = s[i][1] - s[i][2] - s[i][3] + b;
      out[i * 2 + 0][ch] = std::min(std::max(y0, lo), hi);
      out[i * 2 + 1][ch] = std::min(std::max(y1, lo), hi);
    }
  }
}

// Row `row` of U = G g G^T in float (WinogradFilterFn's scalar twin),
// G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
void TransformFilter(const float* g, int64_t tap_stride, int64_t count, int row, float* u, int64_t position_stride) {
  for (int64_t i = 0; i < count; ++i) {
    float t[3];  // row `row` of G g
    for (int kx = 0; kx < 3; ++kx) {
      const float g0 = g[(0 * 3 + kx) * tap_stride + i], g1 = g[(1 * 3 + kx) * tap_stride + i];
      const float g2 = g[(2 * 3 + kx) * tap_stride + i];
      t[kx] = row == 0 ? g0 : row == 3 ? g2 : row == 1 ? ((g0 + g2) + g1) * 0.5f : ((g0 + g2) - g1) * 0.5f;
    }
    u[0 * position_stride + i] = t[0];  // (G g) G^T
    u[1 * position_stride + i] = ((t[0] + t[2]) + t[1]) * 0.5f;
    u[2 * position_stride + i] = ((t[0] + t[2]) - t[1]) * 0.5f;
    u[3 * position_stride + i] = t[2];
  }
}

// A 3x3 window, stride 1, no dilation, one group, at least 16 input and output channels.
bool ThreeByThreeStrideOne(const reference::ConvParams& p, const Shape& filter_shape, int groups) {
  if (groups != 1 || filter_shape.size() != 4 || filter_shape[1] != 3 || filter_shape[2] != 3) return false;
  if (p.stride_h != 1 || p.stride_w != 1 || p.dilation_h != 1 || p.dilation_w != 1) return false;
  return filter_shape[0] >= 16 && filter_shape[3] >= 16;
}

// The 2x2 tiles of outputs, numbered image by image, row by row.
class TileLayout {
 public:
  TileLayout(const reference::ConvParams& p, const Shape& in_shape, const Shape& out_shape)
      : pad_h_(p.pad_h), pad_w_(p.pad_w), in_h_(in_shape[1]), in_w_(in_shape[2]), c_(in_shape[3]),
        out_h_(out_shape[1]), out_w_(out_shape[2]), o_(out_shape[3]), tiles_w_((out_w_ + 1) / 2),
        per_image_(static_cast<int64_t>((out_h_ + 1) / 2) * tiles_w_), tiles_(per_image_ * in_shape[0]) {}

  int64_t tiles() const { return tiles_; }

  // The tile's 16 input cells (row-major NHWC pixels; `zeros`, c floats, for those outside).
  void Cells(const float* input, int64_t tile, const float* zeros, const float* cells[16]) const {
    const Origin at = OriginOf(tile);
    const int y0 = at.oy - pad_h_, x0 = at.ox - pad_w_;
    for (int i = 0; i < 4; ++i) {
      const int iy = y0 + i;
      for (int j = 0; j < 4; ++j) {
        const int ix = x0 + j;
        cells[i * 4 + j] = iy >= 0 && iy < in_h_ && ix >= 0 && ix < in_w_
                               ? input + ((at.image * in_h_ + iy) * in_w_ + ix) * c_
                               : zeros;
      }
    }
  }

  // Channel `channel` of the tile's 4 output pixels (row-major); `discard` for those past the
  // image's edge.
  void Outputs(float* output, int64_t tile, int channel, float* discard, float* out[4]) const {
    const Origin at = OriginOf(tile);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const int oy = at.oy + i, ox = at.ox + j;
        out[i * 2 + j] =
            oy < out_h_ && ox < out_w_ ? output + ((at.image * out_h_ + oy) * out_w_ + ox) * o_ + channel : discard;
      }
    }
  }

 private:
  // The tile's image and the top-left output pixel of its 2x2 outputs.
  struct Origin {
    int64_t image;
    int oy, ox;
  };
  Origin OriginOf(int64_t tile) const {
    return Origin{tile / per_image_, static_cast<int>(tile % per_image_ / tiles_w_) * 2,
                  static_cast<int>(tile % tiles_w_) * 2};
  }

  int pad_h_, pad_w_, in_h_, in_w_, c_, out_h_, out_w_, o_, tiles_w_;
  int64_t per_image_, tiles_;
};

WinogradInputFn InputTransform() {
  const IsaKernels& kernels = ActiveKernels();
  return kernels.winograd_input_f32 ? kernels.winograd_input_f32 : &TransformInput;
}

WinogradOutputFn OutputTransform() {
  const IsaKernels& kernels = ActiveKernels();
  return kernels.winograd_output_f32 ? kernels.winograd_output_f32 : &TransformOutput;
}

}  // namespace

void WinogradFilterTransform(const float* g, int64_t tap_stride, int64_t count, int row, float* u,
                             int64_t position_stride) {
  const WinogradFilterFn kernel = ActiveKernels().winograd_filter_f32;
  (kernel ? kernel : &TransformFilter)(g, tap_stride, count, row, u, position_stride);
}

bool WinogradF23FromDirectApplies(const reference::ConvParams& p, const Shape& filter_shape, int groups,
                                  const Shape& out_shape) {
  if (!ThreeByThreeStrideOne(p, filter_shape, groups) || out_shape.size() != 4) return false;
  const int o = filter_shape[0], c = filter_shape[3];
  if (static_cast<int64_t>(o) * c <= kMaxChannelPairs || c > kMaxDirectChannels) return false;
  return static_cast<int64_t>(out_shape[1]) * out_shape[2] >= kMinDirectPixels;
}

bool WinogradF23Applies(const reference::ConvParams& p, const Shape& filter_shape, int groups) {
  return ThreeByThreeStrideOne(p, filter_shape, groups) &&
         static_cast<int64_t>(filter_shape[0]) * filter_shape[3] <= kMaxChannelPairs;
}

void PackWinogradF23(const Shape& filter_shape, const float* filter, Isa isa, std::vector<PackedF32>* u,
                     const ConsumedRowsFn* consumed) {
  const int o = filter_shape[0], c = filter_shape[3];
  if (static_cast<int>(u->size()) == kPositions && (*u)[0].source == filter && (*u)[0].isa == isa &&
      (*u)[0].n == o && (*u)[0].k == c) {
    return;
  }
  // U = G g G^T, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], in double, written straight into
  // the 16 packed operands (B[c][o] of each): no transposed copy of all 16 resident next to the
  // file's filter and the packed result while packing.
  u->resize(kPositions);
  for (PackedF32& b : *u) ZeroF32Panels(o, c, isa, &b);
  const int nr = (*u)[0].nr;
  for (int oc = 0; oc < o; ++oc) {
    const int64_t column = static_cast<int64_t>(oc / nr) * c * nr + oc % nr;
    for (int ch = 0; ch < c; ++ch) {
      double g[3][3];
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) g[ky][kx] = filter[((static_cast<int64_t>(oc) * 3 + ky) * 3 + kx) * c + ch];
      }
      double t[4][3];  // G g
      for (int kx = 0; kx < 3; ++kx) {
        t[0][kx] = g[0][kx];
        t[1][kx] = 0.5 * (g[0][kx] + g[1][kx] + g[2][kx]);
        t[2][kx] = 0.5 * (g[0][kx] - g[1][kx] + g[2][kx]);
        t[3][kx] = g[2][kx];
      }
      const int64_t at = column + static_cast<int64_t>(ch) * nr;
      for (int i = 0; i < 4; ++i) {  // (G g) G^T
        const double row[4] = {t[i][0], 0.5 * (t[i][0] + t[i][1] + t[i][2]), 0.5 * (t[i][0] - t[i][1] + t[i][2]),
                               t[i][2]};
        for (int j = 0; j < 4; ++j) (*u)[i * 4 + j].data.data()[at] = static_cast<float>(row[j]);
      }
    }
    // Output channels a panel at a time (the source rows are 9 x c floats).
    if (consumed != nullptr && (oc % nr == nr - 1 || oc == o - 1)) {
      const int first = oc / nr * nr;
      (*consumed)(filter + static_cast<int64_t>(first) * 9 * c, oc + 1 - first);
    }
  }
  (*u)[0].source = filter;
}

void ConvWinogradF23(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape, const float* input,
                     const std::vector<PackedF32>& u, const float* bias, const Shape& out_shape, float* output) {
  const TileLayout layout(p, in_shape, out_shape);
  const int c = in_shape[3], o = u[0].n;
  const int64_t tiles = layout.tiles();
  if (tiles <= 0) return;
  const int per_block = TilesPerBlock(c, o);
  const int64_t blocks = (tiles + per_block - 1) / per_block;
  const float inf = std::numeric_limits<float>::infinity();
  const WinogradInputFn transform_input = InputTransform();
  const WinogradOutputFn transform_output = OutputTransform();
  ParallelFor(pool, blocks, [&](int64_t block) {
    const int64_t first = block * per_block;
    const int count = static_cast<int>(std::min<int64_t>(per_block, tiles - first));
    // Transformed inputs [position][tile][c], then products [position][tile][o], then zeros for
    // the cells outside the image and a row for the outputs past its edge.
    const int64_t v_size = static_cast<int64_t>(kPositions) * per_block * c;
    const int64_t m_size = static_cast<int64_t>(kPositions) * per_block * o;
    float* v = ScratchF32(static_cast<size_t>(v_size + m_size + c + o));
    float* m = v + v_size;
    float* zeros = m + m_size;
    float* discard = zeros + c;
    std::fill(zeros, zeros + c, 0.0f);
    for (int t = 0; t < count; ++t) {
      const float* cells[16];
      layout.Cells(input, first + t, zeros, cells);
      transform_input(cells, c, v + static_cast<int64_t>(t) * c, static_cast<int64_t>(per_block) * c);
    }
    for (int position = 0; position < kPositions; ++position) {
      GemmF32Tile(v + static_cast<int64_t>(position) * per_block * c, c, count, u[position], 0, o,
                  m + static_cast<int64_t>(position) * per_block * o, o, nullptr, -inf, inf);
    }
    for (int t = 0; t < count; ++t) {
      float* out[4];
      layout.Outputs(output, first + t, 0, discard, out);
      transform_output(m + static_cast<int64_t>(t) * o, static_cast<int64_t>(per_block) * o, o, bias, p.act_min,
                       p.act_max, out);
    }
  });
}

void ConvWinogradF23FromDirect(ThreadPool* pool, const reference::ConvParams& p, const Shape& in_shape,
                               const float* input, const PackedF32& direct, const float* bias, const Shape& out_shape,
                               float* output) {
  const TileLayout layout(p, in_shape, out_shape);
  const int c = in_shape[3], o = direct.n, nr = direct.nr, panels = direct.panels();
  const int64_t tiles = layout.tiles();
  if (tiles <= 0 || o <= 0) return;
  // Blocks of tiles whose transformed inputs take about 1 MB (ResNet-18's 14x14x256 layers: all
  // 49 tiles at once; 7x7x512: 16), shared evenly; each block transforms the filters again.
  const int64_t most = std::clamp<int64_t>((int64_t{1} << 20) / (int64_t{kPositions} * c * sizeof(float)), 8, 64);
  const int64_t blocks = (tiles + most - 1) / most;
  const int per_block = static_cast<int>((tiles + blocks - 1) / blocks);
  const float inf = std::numeric_limits<float>::infinity();
  const WinogradInputFn transform_input = InputTransform();
  const WinogradOutputFn transform_output = OutputTransform();
  // The calling thread's scratch, read by every task: transformed inputs [position][tile][c],
  // then c zeros for the cells outside the image.
  const int64_t v_size = static_cast<int64_t>(kPositions) * per_block * c;
  float* v = ScratchF32(static_cast<size_t>(v_size + c), 1);
  float* zeros = v + v_size;
  std::fill(zeros, zeros + c, 0.0f);
  const int64_t panel_values = static_cast<int64_t>(c) * nr;
  for (int64_t first = 0; first < tiles; first += per_block) {
    const int count = static_cast<int>(std::min<int64_t>(per_block, tiles - first));
    const int64_t v_stride = static_cast<int64_t>(count) * c;
    constexpr int kTilesPerTask = 4;
    ParallelFor(pool, (count + kTilesPerTask - 1) / kTilesPerTask, [&](int64_t task) {
      for (int t = static_cast<int>(task) * kTilesPerTask; t < std::min(count, static_cast<int>(task + 1) * kTilesPerTask);
           ++t) {
        const float* cells[16];
        layout.Cells(input, first + t, zeros, cells);
        transform_input(cells, c, v + static_cast<int64_t>(t) * c, v_stride);
      }
    });
    ParallelFor(pool, panels, [&](int64_t panel) {
      const int col0 = static_cast<int>(panel) * nr, cols = std::min(nr, o - col0);
      // Products [position][tile][nr], then a row for the outputs past the image's edge.
      const int64_t m_stride = static_cast<int64_t>(count) * nr;
      float* m = ScratchF32(static_cast<size_t>(kPositions * m_stride + nr), 0);
      float* discard = m + kPositions * m_stride;
      // The panel's 16 transformed filters a run of input channels at a time, as the 16 panels
      // of one operand (position s is panel s), whose products add up over the runs: at most
      // 256 KB, which stays in L2 between the transform writing it and the GEMMs reading it, and
      // the direct panel is read once. All channels at once (1 MB at 512 x 512) went to memory
      // and back: ResNet-18's 7x7x512 layers took 1.78 ms against 1.50 by the direct sum.
      const int depth = std::max(1, static_cast<int>((256 << 10) / (kPositions * nr * sizeof(float))));
      thread_local PackedF32 u;
      u.isa = direct.isa;
      u.n = kPositions * nr;
      u.nr = nr;
      for (int c0 = 0; c0 < c; c0 += depth) {
        const int run = std::min(depth, c - c0);
        const int64_t run_values = static_cast<int64_t>(run) * nr;
        u.k = run;
        u.data.Resize(static_cast<size_t>(kPositions * run_values));
        for (int row = 0; row < 4; ++row) {
          WinogradFilterTransform(direct.panel(static_cast<int>(panel)) + static_cast<int64_t>(c0) * nr, panel_values,
                                  run_values, row, u.data.data() + row * 4 * run_values, run_values);
        }
        for (int s = 0; s < kPositions; ++s) {
          // GemmF32Tile writes columns [s * nr, s * nr + cols) of its C: shifted back by s * nr,
          // they land at the start of position s's products.
          GemmF32Tile(v + s * v_stride + c0, c, count, u, s * nr, s * nr + cols, m + s * m_stride - s * nr, nr,
                      nullptr, -inf, inf, /*accumulate=*/c0 > 0);
        }
      }
      for (int t = 0; t < count; ++t) {
        float* out[4];
        layout.Outputs(output, first + t, col0, discard, out);
        transform_output(m + static_cast<int64_t>(t) * nr, m_stride, cols, bias ? bias + col0 : nullptr, p.act_min,
                         p.act_max, out);
      }
    });
  }
}

}  // namespace edgerun::optimized
