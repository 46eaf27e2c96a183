#include "kernels/optimized/winograd.h"

#include <algorithm>
#include <limits>

#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {
namespace {

constexpr int kPositions = 16;  // of a transformed 4x4 block
constexpr int64_t kMaxChannelPairs = 128 * 128;

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

}  // namespace

bool WinogradF23Applies(const reference::ConvParams& p, const Shape& filter_shape, int groups) {
  if (groups != 1 || filter_shape.size() != 4 || filter_shape[1] != 3 || filter_shape[2] != 3) return false;
  if (p.stride_h != 1 || p.stride_w != 1 || p.dilation_h != 1 || p.dilation_w != 1) return false;
  const int o = filter_shape[0], c = filter_shape[3];
  return o >= 16 && c >= 16 && static_cast<int64_t>(o) * c <= kMaxChannelPairs;
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
  const int in_h = in_shape[1], in_w = in_shape[2], c = in_shape[3];
  const int out_h = out_shape[1], out_w = out_shape[2], o = u[0].n;
  const int tiles_h = (out_h + 1) / 2, tiles_w = (out_w + 1) / 2;
  const int64_t per_image = static_cast<int64_t>(tiles_h) * tiles_w;
  const int64_t tiles = per_image * in_shape[0];
  if (tiles <= 0) return;
  const int per_block = TilesPerBlock(c, o);
  const int64_t blocks = (tiles + per_block - 1) / per_block;
  const float inf = std::numeric_limits<float>::infinity();
  const IsaKernels& kernels = ActiveKernels();
  const WinogradInputFn transform_input = kernels.winograd_input_f32 ? kernels.winograd_input_f32 : &TransformInput;
  const WinogradOutputFn transform_output =
      kernels.winograd_output_f32 ? kernels.winograd_output_f32 : &TransformOutput;
  // Tile `tile`'s image and the top-left output pixel of its 2x2 outputs.
  struct Origin {
    int64_t image;
    int oy, ox;
  };
  auto origin = [&](int64_t tile) {
    return Origin{tile / per_image, static_cast<int>(tile % per_image / tiles_w) * 2,
                  static_cast<int>(tile % tiles_w) * 2};
  };
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
      const Origin at = origin(first + t);
      const int64_t b = at.image;
      const int y0 = at.oy - p.pad_h, x0 = at.ox - p.pad_w;
      const float* cells[16];
      for (int i = 0; i < 4; ++i) {
        const int iy = y0 + i;
        for (int j = 0; j < 4; ++j) {
          const int ix = x0 + j;
          cells[i * 4 + j] = iy >= 0 && iy < in_h && ix >= 0 && ix < in_w
                                 ? input + ((b * in_h + iy) * in_w + ix) * c
                                 : zeros;
        }
      }
      transform_input(cells, c, v + static_cast<int64_t>(t) * c, static_cast<int64_t>(per_block) * c);
    }
    for (int position = 0; position < kPositions; ++position) {
      GemmF32Tile(v + static_cast<int64_t>(position) * per_block * c, c, count, u[position], 0, o,
                  m + static_cast<int64_t>(position) * per_block * o, o, nullptr, -inf, inf);
    }
    for (int t = 0; t < count; ++t) {
      const Origin at = origin(first + t);
      const int64_t b = at.image;
      float* out[4];
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          const int oy = at.oy + i, ox = at.ox + j;
          out[i * 2 + j] = oy < out_h && ox < out_w ? output + ((b * out_h + oy) * out_w + ox) * o : discard;
        }
      }
      transform_output(m + static_cast<int64_t>(t) * o, static_cast<int64_t>(per_block) * o, o, bias, p.act_min,
                      p.act_max, out);
    }
  });
}

}  // namespace edgerun::optimized
