// Optimized integer convolutions and matrix products, bit-exact with the reference kernels of
// kernels/reference/integer_conv.h: the products are summed exactly (int32 sums wrap like the
// reference's uint32 ones; int64 sums are built from int32 blocks too short to overflow), and
// the output value of every sum is computed by an output stage:
//   - RequantStage: the ISA's vectorized copy of reference::Requantizer / FloatRequantizer
//     (int32 sums only);
//   - EmitStage: the reference's own `emit(channel, sum)` functor, one value at a time (hybrid
//     kernels, int64 sums).
// Operands are int16: 8-bit values plus their offset (|v| <= 255) and int16 activations (whose
// offset is 0), multiplied in pairs (vpmaddwd) into int32.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/optimized/conv.h"
#include "kernels/optimized/gemm.h"
#include "kernels/reference/integer_conv.h"

namespace edgerun::optimized {

static_assert(sizeof(int) == sizeof(int32_t), "shifts are passed as int32");

// Pairs summed in int32 before an int64 sum takes them: 128 pairs of |int16 x int8| products
// stay below 2^31.
constexpr int kWidePairsPerBlock = 128;

// ---- output stages: stage(row, c0, count, sums) writes channels [c0, c0 + count) of `row`.

template <class Out>
struct RequantStage {
  RequantizeFn fn;
  RequantArgs args;
  Out* out;
  int64_t row_stride;  // output elements from one row to the next
  int channel_base;    // channel of column 0 (a group's first output channel)
  bool float_rounding;  // fn is the float requantizer (kernels may fuse it, see FusedOutputOf)
  void operator()(int64_t row, int c0, int count, const int32_t* sums) const {
    fn(sums, count, channel_base + c0, args, out + row * row_stride + channel_base + c0);
  }
};

template <class Out>
constexpr OutType OutTypeOf() {
  if constexpr (std::is_same_v<Out, uint8_t>) return OutType::kUInt8;
  if constexpr (std::is_same_v<Out, int8_t>) return OutType::kInt8;
  return OutType::kInt16;
}

// The vectorized requantizer matching reference::Requantizer<int32_t, int32_t, Out> (fixed point)
// or reference::FloatRequantizer<int32_t, Out>; bias may be null.
template <class Out>
RequantStage<Out> MakeRequantStage(bool float_requantization, const int32_t* multiplier, const int* shift,
                                   const float* float_scale, int32_t output_offset, int32_t act_min, int32_t act_max,
                                   const int32_t* bias, Out* out, int64_t row_stride, int channel_base = 0) {
  const IsaKernels& k = ActiveKernels();
  RequantArgs args{bias, multiplier, reinterpret_cast<const int32_t*>(shift), float_scale, output_offset, act_min,
                   act_max, OutTypeOf<Out>()};
  return {float_requantization ? k.requantize_float : k.requantize_fixed, args, out, row_stride, channel_base,
          float_requantization};
}

// The micro-kernels' own 8-bit output (Requant8Output) for a stage that requantizes in float to
// uint8 or int8: true and *fused set (out at row 0, bias and scale by column); false for the
// other stages, which take the int32 sums.
template <class Stage>
bool FusedOutputOf(const Stage&, Requant8Output*) {
  return false;
}
template <class Out>
bool FusedOutputOf(const RequantStage<Out>& stage, Requant8Output* fused) {
  if constexpr (std::is_same_v<Out, int8_t> || std::is_same_v<Out, uint8_t>) {
    if (!stage.float_rounding) return false;
    const RequantArgs& r = stage.args;
    *fused = {r.bias ? r.bias + stage.channel_base : nullptr,
              r.scale + stage.channel_base,
              static_cast<float>(r.act_min - r.zero_point),
              static_cast<float>(r.act_max - r.zero_point),
              r.zero_point,
              // The epilogues' truncating byte stores write uint8 values as well.
              reinterpret_cast<int8_t*>(stage.out + stage.channel_base),
              stage.row_stride};
    return true;
  }
  return false;
}

// int32 sums to int16 through the int64 requantization (RequantizeI64Fn): the int16 x int8
// convolutions whose sums fit int32 (ops::Int32SumCheck) with an int64 bias.
struct RequantI64Stage {
  RequantizeI64Fn fn;
  RequantI64Args args;
  int16_t* out;
  int64_t row_stride;
  int channel_base;
  void operator()(int64_t row, int c0, int count, const int32_t* sums) const {
    fn(sums, count, channel_base + c0, args, out + row * row_stride + channel_base + c0);
  }
};

// Scalar stage: out[row][channel] = emit(channel, sum) with the reference's functor.
template <class Out, class Acc, class Emit>
struct EmitStage {
  const Emit& emit;
  Out* out;
  int64_t row_stride;
  int channel_base;
  template <class Sum>
  void operator()(int64_t row, int c0, int count, const Sum* sums) const {
    Out* o = out + row * row_stride + channel_base + c0;
    for (int i = 0; i < count; ++i) {
      o[i] = emit(channel_base + c0 + i, static_cast<reference::AccSum<Acc>>(sums[i]));
    }
  }
};
template <class Out, class Acc, class Emit>
EmitStage<Out, Acc, Emit> MakeEmitStage(const Emit& emit, Out* out, int64_t row_stride, int channel_base = 0) {
  return {emit, out, row_stride, channel_base};
}

// ---- the product: rows of A made by fill(first_row, rows, dst, dst_stride) as int16 (offset
// applied, padded to PaddedDepth(b) with zeros), columns from b; int64 sums when kWide (else a
// float requantization to 8 bits runs in the micro-kernel, see FusedOutputOf). With
// `low` (kWide only, packed like b): the sums are 256 * (A x b) + A x low, for an int16 B split
// into its high bytes (b, -128..127) and its low bytes (low, 0..255), so that every product is
// int16 x 8-bit and a block of kWidePairsPerBlock pairs stays inside int32 (128 * 2 * 32768 *
// 255 < 2^31): exact int64 sums of int16 x int16 products.
template <bool kWide, class Fill, class Stage>
void IntGemm(ThreadPool* pool, int64_t m, const PackedI16& b, const Fill& fill, const Stage& stage,
             const PackedI16* low = nullptr) {
  if (m <= 0 || b.n <= 0) return;
  const int mr = KernelsFor(b.isa).i16_mr;
  const TileGrid g = PlanTiles(static_cast<int>(std::min<int64_t>(m, INT32_MAX)), b.panels(), mr, NumThreads(pool));
  const int64_t lda = PaddedDepth(b);
  // Columns per pass: a few panels, so that the sums stay small.
  const int chunk = std::max(b.nr, 256 / b.nr * b.nr);
  Requant8Output fused{};
  const bool fuse = !kWide && b.k2 > 0 && FusedOutputOf(stage, &fused);
  ParallelFor(pool, g.tasks(), [&](int64_t task) {
    const int rt = static_cast<int>(task / g.col_groups), cg = static_cast<int>(task % g.col_groups);
    const int64_t r0 = static_cast<int64_t>(rt) * g.rows_per_tile;
    const int rows = static_cast<int>(std::min<int64_t>(g.rows_per_tile, m - r0));
    const int n0 = cg * g.panels_per_group * b.nr, n1 = std::min(b.n, n0 + g.panels_per_group * b.nr);
    if (rows <= 0 || n0 >= n1) return;
    int16_t* a = ScratchI16(static_cast<size_t>(rows) * lda, 0);
    fill(r0, rows, a, lda);
    for (int c0 = n0; c0 < n1; c0 += chunk) {
      const int cols = std::min(chunk, n1 - c0);
      int32_t* sums = ScratchI32(static_cast<size_t>(rows) * cols, 0);
      if constexpr (!kWide) {
        if (fuse) {
          Requant8Output tile = fused;
          tile.out += r0 * tile.ldo;
          GemmI16Tile(a, lda, rows, b, c0, c0 + cols, 0, b.k2, sums, cols, false, &tile);
          continue;
        }
        GemmI16Tile(a, lda, rows, b, c0, c0 + cols, 0, b.k2, sums, cols, false);
        for (int r = 0; r < rows; ++r) stage(r0 + r, c0, cols, sums + static_cast<int64_t>(r) * cols);
      } else {
        int64_t* wide = ScratchI64(static_cast<size_t>(rows) * cols, 0);
        std::fill(wide, wide + static_cast<int64_t>(rows) * cols, int64_t{0});
        const int64_t count = static_cast<int64_t>(rows) * cols;
        for (int p0 = 0; p0 < b.k2; p0 += kWidePairsPerBlock) {
          GemmI16Tile(a, lda, rows, b, c0, c0 + cols, p0, std::min(b.k2, p0 + kWidePairsPerBlock), sums, cols, false);
          for (int64_t i = 0; i < count; ++i) wide[i] += sums[i];
        }
        if (low != nullptr) {
          for (int64_t i = 0; i < count; ++i) wide[i] *= 256;
          for (int p0 = 0; p0 < low->k2; p0 += kWidePairsPerBlock) {
            GemmI16Tile(a, lda, rows, *low, c0, c0 + cols, p0, std::min(low->k2, p0 + kWidePairsPerBlock), sums, cols,
                        false);
            for (int64_t i = 0; i < count; ++i) wide[i] += sums[i];
          }
        }
        for (int r = 0; r < rows; ++r) stage(r0 + r, c0, cols, wide + static_cast<int64_t>(r) * cols);
      }
    }
  });
}

// The active ISA's widening of 8-bit rows of In to int16 (null: none, the scalar loops).
template <class In>
WidenRowsI16Fn WidenRowsFor() {
  const IsaKernels& kernels = ActiveKernels();
  return std::is_same_v<In, uint8_t> ? kernels.widen_u8_i16 : kernels.widen_i8_i16;
}

// Rows of In values (lda apart) plus offset, as int16 rows of width `ldd` (zero padded); 8-bit
// ones on the ISA's vectors (WidenRowsI16Fn).
template <class In>
void ConvertRows(const In* a, int64_t lda, int rows, int k, int32_t offset, int16_t* dst, int64_t ldd) {
  if constexpr (sizeof(In) == 1) {
    const WidenRowsI16Fn widen = WidenRowsFor<In>();
    if (widen != nullptr) {
      widen(a, lda, rows, k, offset, dst, ldd);
      return;
    }
  }
  for (int r = 0; r < rows; ++r) {
    const In* src = a + r * lda;
    int16_t* d = dst + r * ldd;
    for (int i = 0; i < k; ++i) d[i] = static_cast<int16_t>(src[i] + offset);
    for (int64_t i = k; i < ldd; ++i) d[i] = 0;
  }
}

// n bytes from src to dst without a library call for the short runs of im2col (a 3x3 window
// of 3 channels copies 9 bytes a row, of 16 channels 48): overlapping 16-, 8- or 4-byte moves
// inside [0, n).
inline void CopyBytes(int8_t* dst, const int8_t* src, int n) {
  if (n > 16 && n <= 64) {
    // 16-byte moves from both ends (the middle ones overlap when n < 64).
    char v[4][16];
    const int tail = n - 16, mid = n > 32 ? 16 : tail, mid2 = n > 48 ? 32 : tail;
    std::memcpy(v[0], src, 16);
    std::memcpy(v[1], src + mid, 16);
    std::memcpy(v[2], src + mid2, 16);
    std::memcpy(v[3], src + tail, 16);
    std::memcpy(dst, v[0], 16);
    std::memcpy(dst + mid, v[1], 16);
    std::memcpy(dst + mid2, v[2], 16);
    std::memcpy(dst + tail, v[3], 16);
  } else if (n >= 8 && n <= 16) {
    uint64_t lo, hi;
    std::memcpy(&lo, src, 8);
    std::memcpy(&hi, src + n - 8, 8);
    std::memcpy(dst, &lo, 8);
    std::memcpy(dst + n - 8, &hi, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, src, 4);
    std::memcpy(&hi, src + n - 4, 4);
    std::memcpy(dst, &lo, 4);
    std::memcpy(dst + n - 4, &hi, 4);
  } else if (n < 4) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n));
  }
}

// n bytes of `value` at dst without a library call for the short fills of im2col's padding
// (a few taps of a few channels; nothing at all inside the image).
inline void FillBytes(int8_t* dst, int8_t value, int64_t n) {
  if (n <= 0) return;
  if (n > 16) {
    std::memset(dst, value, static_cast<size_t>(n));
    return;
  }
  const uint64_t word = 0x0101010101010101ull * static_cast<uint8_t>(value);
  if (n >= 8) {
    std::memcpy(dst, &word, 8);
    std::memcpy(dst + n - 8, &word, 8);
  } else if (n >= 4) {
    std::memcpy(dst, &word, 4);
    std::memcpy(dst + n - 4, &word, 4);
  } else {
    dst[0] = dst[n / 2] = dst[n - 1] = value;
  }
}

// The taps [first, end) of a window row or column starting at `start` (dilation `step`, `taps`
// taps) that fall inside [0, size).
inline void TapsInside(int start, int step, int taps, int size, int* first, int* end) {
  *first = start >= 0 ? 0 : std::min(taps, (-start + step - 1) / step);
  *end = size - start <= 0 ? *first : std::max(*first, std::min(taps, (size - start + step - 1) / step));
}

// Rows [r0, r0 + rows) of group g's im2col matrix as int8, taps outside the image set to
// `pad` (the input zero point, whose offset value is 0) and depths past k to 0. A window row is
// one run of the input when its taps are adjacent; the rows above and below the image and the
// columns left and right of it are filled a run at a time, not a tap at a time (which costs more
// than the taps when the channels are few: one-channel spectrogram convolutions).
inline void Im2ColI8(const reference::ConvParams& p, const reference::ConvDims& d, int f_c, int group,
                     const int8_t* input, int8_t pad, int64_t r0, int rows, int8_t* dst, int64_t ldd) {
  const int64_t k = static_cast<int64_t>(d.k_h) * d.k_w * f_c;
  const bool one_run = p.dilation_w == 1 && f_c == d.in_c;
  const int run = d.k_w * f_c;
  const int64_t in_row = static_cast<int64_t>(d.in_w) * d.in_c;
  const int64_t ky_step = in_row * p.dilation_h;
  const int8_t* base = input + static_cast<int64_t>(group) * f_c;
  int oy = static_cast<int>(r0 / d.out_w), ox = static_cast<int>(r0 % d.out_w);
  for (int r = 0; r < rows; ++r) {
    int8_t* row = dst + r * ldd;
    int8_t* out = row;
    const int iy0 = oy * p.stride_h - p.pad_h, ix0 = ox * p.stride_w - p.pad_w;
    int ky0, ky1, kx0, kx1;
    TapsInside(iy0, p.dilation_h, d.k_h, d.in_h, &ky0, &ky1);
    TapsInside(ix0, p.dilation_w, d.k_w, d.in_w, &kx0, &kx1);
    FillBytes(out, pad, static_cast<int64_t>(ky0) * run);
    out += static_cast<int64_t>(ky0) * run;
    // The input offset of tap (ky0, 0), which may lie left of its row; only taps inside are read.
    int64_t src = static_cast<int64_t>(iy0 + ky0 * p.dilation_h) * in_row + static_cast<int64_t>(ix0) * d.in_c;
    if (one_run && kx0 == 0 && kx1 == d.k_w) {
      for (int ky = ky0; ky < ky1; ++ky, out += run, src += ky_step) CopyBytes(out, base + src, run);
    } else if (one_run) {
      const int lo = kx0 * f_c, hi = kx1 * f_c;
      for (int ky = ky0; ky < ky1; ++ky, out += run, src += ky_step) {
        FillBytes(out, pad, lo);
        if (hi > lo) CopyBytes(out + lo, base + src + lo, hi - lo);
        FillBytes(out + hi, pad, run - hi);
      }
    } else {
      for (int ky = ky0; ky < ky1; ++ky, src += ky_step) {
        for (int kx = 0; kx < d.k_w; ++kx, out += f_c) {
          if (kx < kx0 || kx >= kx1) {
            FillBytes(out, pad, f_c);
          } else {
            CopyBytes(out, base + src + static_cast<int64_t>(kx) * p.dilation_w * d.in_c, f_c);
          }
        }
      }
    }
    FillBytes(out, pad, static_cast<int64_t>(d.k_h - ky1) * run);
    for (int64_t i = k; i < ldd; ++i) row[i] = 0;  // at most 3 bytes
    if (++ox == d.out_w) {
      ox = 0;
      ++oy;
    }
  }
}

// Rows [r0, r0 + rows) (output pixels of one image) of group g's im2col matrix, plus offset.
// 8-bit inputs go through Im2ColI8's runs into thread scratch and are widened on the ISA's
// vectors (on MobileNet's 3x3 stride-2 stem of 3 channels, two thirds of the layer's time went
// to the tap-by-tap loop below).
template <class In>
void Im2ColI16(const reference::ConvParams& p, const reference::ConvDims& d, int f_c, int group, const In* input,
               int32_t offset, int64_t r0, int rows, int16_t* dst, int64_t ldd) {
  const int64_t k = static_cast<int64_t>(d.k_h) * d.k_w * f_c;
  if constexpr (sizeof(In) == 1) {
    const WidenRowsI16Fn widen = WidenRowsFor<In>();
    // Taps outside the image hold the value whose offset value is 0 (the input zero point).
    const int32_t pad = -offset;
    if (widen != nullptr && pad >= std::numeric_limits<In>::min() && pad <= std::numeric_limits<In>::max() &&
        k <= INT32_MAX) {
      int8_t* bytes = ScratchI8(static_cast<size_t>(rows) * k, 1);
      Im2ColI8(p, d, f_c, group, reinterpret_cast<const int8_t*>(input), static_cast<int8_t>(static_cast<In>(pad)),
               r0, rows, bytes, k);
      widen(bytes, k, rows, static_cast<int>(k), offset, dst, ldd);
      return;
    }
  }
  for (int r = 0; r < rows; ++r) {
    const int64_t pixel = r0 + r;
    const int oy = static_cast<int>(pixel / d.out_w), ox = static_cast<int>(pixel % d.out_w);
    int16_t* row = dst + r * ldd;
    int16_t* out = row;
    for (int ky = 0; ky < d.k_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
      for (int kx = 0; kx < d.k_w; ++kx, out += f_c) {
        const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
        if (iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w) {
          std::fill(out, out + f_c, int16_t{0});
        } else {
          const In* src = input + (static_cast<int64_t>(iy) * d.in_w + ix) * d.in_c + static_cast<int64_t>(group) * f_c;
          for (int c = 0; c < f_c; ++c) out[c] = static_cast<int16_t>(src[c] + offset);
        }
      }
    }
    std::fill(row + k, row + ldd, int16_t{0});
  }
}

// A filter [O][KH][KW][C/groups] plus offset, packed per group (repacked when the data or the
// ISA changes; callers clear it for filters that are not constant).
struct ConvFilterI16 {
  std::vector<PackedI16> groups;
};
template <class W>
void PackConvFilterI16(const Shape& filter_shape, const W* filter, int32_t offset, int groups, ConvFilterI16* out) {
  const int out_c = filter_shape[0];
  const int k = filter_shape[1] * filter_shape[2] * filter_shape[3];
  const int per_group = out_c / groups;
  const Isa isa = ActiveIsa();
  if (static_cast<int>(out->groups.size()) == groups && out->groups[0].source == filter && out->groups[0].isa == isa &&
      out->groups[0].n == per_group && out->groups[0].k == k) {
    return;
  }
  out->groups.resize(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) {
    PackI16FromNK(filter + static_cast<int64_t>(g) * per_group * k, k, per_group, k, offset, isa, &out->groups[g]);
  }
  out->groups[0].source = filter;
}

// One image of CONV_2D (as reference::IntegerConv2D); make_stage(group) gives the output stage
// of a group's channels, whose rows are the image's output pixels.
template <bool kWide, class In, class MakeStage>
void IntegerConv2D(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d, int f_c,
                   const In* input, int32_t input_offset, const ConvFilterI16& filter, const MakeStage& make_stage) {
  const int groups = d.in_c / f_c;
  const int64_t m = static_cast<int64_t>(d.out_h) * d.out_w;
  const bool pointwise = d.k_h == 1 && d.k_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 &&
                         p.pad_w == 0;
  for (int g = 0; g < groups; ++g) {
    const PackedI16& b = filter.groups[g];
    auto stage = make_stage(g);
    if (pointwise) {
      IntGemm<kWide>(pool, m, b, [&](int64_t r0, int rows, int16_t* dst, int64_t ldd) {
        ConvertRows(input + r0 * d.in_c + static_cast<int64_t>(g) * f_c, d.in_c, rows, f_c, input_offset, dst, ldd);
      }, stage);
    } else {
      IntGemm<kWide>(pool, m, b, [&](int64_t r0, int rows, int16_t* dst, int64_t ldd) {
        Im2ColI16(p, d, f_c, g, input, input_offset, r0, rows, dst, ldd);
      }, stage);
    }
  }
}

// Rows of a matrix product (FULLY_CONNECTED, BATCH_MATMUL): A [m][k] (rows lda apart) plus
// input_offset times packed B (kWide with `low`: an int16 B split in bytes, see IntGemm).
template <bool kWide, class In, class Stage>
void IntegerMatMul(ThreadPool* pool, const In* a, int64_t lda, int64_t m, int32_t input_offset, const PackedI16& b,
                   const Stage& stage, const PackedI16* low = nullptr) {
  IntGemm<kWide>(pool, m, b, [&](int64_t r0, int rows, int16_t* dst, int64_t ldd) {
    ConvertRows(a + r0 * lda, lda, rows, b.k, input_offset, dst, ldd);
  }, stage, low);
}

// ---- int8 x int8 on byte dot products (HasGemmI8; see PackedI8)

// Rows of A for GemmI8Tile: read in place, or a copy in thread scratch; `flip`: uint8 values that
// GemmI8Tile flips as it reads them (flip_a).
struct I8Rows {
  const int8_t* a;
  int64_t lda;
  bool flip = false;
};

// The product split over the pool as IntGemm; rows_of(first_row, rows) gives the rows of A.
// With `fused` (rows of the whole product, see FusedOutputOf) the micro-kernel requantizes and
// stores; otherwise stage(row, c0, count, sums) takes the int32 sums.
template <class RowsOf, class Stage>
void IntGemmI8Staged(ThreadPool* pool, int64_t m, const PackedI8& b, const RowsOf& rows_of, const Stage& stage,
                     const Requant8Output* fused) {
  if (m <= 0 || b.n <= 0) return;
  const int mr = KernelsFor(b.isa).i8_mr;
  const TileGrid g = PlanTiles(static_cast<int>(std::min<int64_t>(m, INT32_MAX)), b.panels(), mr, NumThreads(pool));
  const int chunk = std::max(b.nr, 256 / b.nr * b.nr);
  ParallelFor(pool, g.tasks(), [&](int64_t task) {
    const int rt = static_cast<int>(task / g.col_groups), cg = static_cast<int>(task % g.col_groups);
    const int64_t r0 = static_cast<int64_t>(rt) * g.rows_per_tile;
    const int rows = static_cast<int>(std::min<int64_t>(g.rows_per_tile, m - r0));
    const int n0 = cg * g.panels_per_group * b.nr, n1 = std::min(b.n, n0 + g.panels_per_group * b.nr);
    if (rows <= 0 || n0 >= n1) return;
    const I8Rows src = rows_of(r0, rows);
    for (int c0 = n0; c0 < n1; c0 += chunk) {
      const int cols = std::min(chunk, n1 - c0);
      int32_t* sums = ScratchI32(static_cast<size_t>(rows) * cols, 0);
      if (fused) {
        Requant8Output tile = *fused;
        tile.out += r0 * tile.ldo;
        GemmI8Tile(src.a, src.lda, rows, b, c0, c0 + cols, sums, cols, &tile, src.flip);
      } else {
        GemmI8Tile(src.a, src.lda, rows, b, c0, c0 + cols, sums, cols, nullptr, src.flip);
        for (int r = 0; r < rows; ++r) stage(r0 + r, c0, cols, sums + static_cast<int64_t>(r) * cols);
      }
    }
  });
}

// With a requantization stage: a float requantization to 8 bits runs inside the micro-kernel.
template <class RowsOf, class Out>
void IntGemmI8(ThreadPool* pool, int64_t m, const PackedI8& b, const RowsOf& rows_of, const RequantStage<Out>& stage) {
  Requant8Output fused{};
  IntGemmI8Staged(pool, m, b, rows_of, stage, FusedOutputOf(stage, &fused) ? &fused : nullptr);
}

// Rows of 8-bit activations as the signed bytes GemmI8Tile reads: int8 as they are, uint8 with
// the top bit flipped (a - 128).
template <class In>
void ToSignedBytes(int8_t* row, int64_t n) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    for (int64_t i = 0; i < n; ++i) row[i] = static_cast<int8_t>(static_cast<uint8_t>(row[i]) ^ 0x80);
  }
}

// Rows of an 8-bit matrix A [m][k] (rows lda apart) as GemmI8Tile reads them: in place for rows
// whose depth is a multiple of 4 (uint8 ones flipped as they are read, where the ISA can), else
// copied (and flipped for uint8) into thread scratch.
template <class In>
I8Rows MatrixRowsI8(const In* a, int64_t lda, int64_t r0, int rows, int k, int64_t ldd) {
  const auto* bytes = reinterpret_cast<const int8_t*>(a);
  if (k % 4 == 0) {
    if (std::is_same_v<In, int8_t>) return I8Rows{bytes + r0 * lda, lda};
    if (ActiveKernels().row_sums_u8 != nullptr) return I8Rows{bytes + r0 * lda, lda, true};
  }
  int8_t* dst = ScratchI8(static_cast<size_t>(rows) * ldd, 0);
  for (int r = 0; r < rows; ++r) {
    if (k > 0) std::memcpy(dst + r * ldd, bytes + (r0 + r) * lda, static_cast<size_t>(k));  // a may be null
    std::memset(dst + r * ldd + k, 0, static_cast<size_t>(ldd - k));
  }
  ToSignedBytes<In>(dst, rows * ldd);
  return I8Rows{dst, ldd};
}

// An 8-bit filter [O][KH][KW][C/groups] (int8 or uint8, with its offset) packed per group for
// GemmI8Tile, for activations of type In and input_offset (repacked when any of them or the ISA
// changes; callers clear it for filters that are not constant).
struct ConvFilterI8 {
  std::vector<PackedI8> groups;
};
template <class In, class W>
void PackConvFilterI8(const Shape& filter_shape, const W* filter, int32_t filter_offset, int32_t input_offset,
                      int groups, ConvFilterI8* out) {
  const int out_c = filter_shape[0];
  const int k = filter_shape[1] * filter_shape[2] * filter_shape[3];
  const int per_group = out_c / groups;
  const Isa isa = ActiveIsa();
  constexpr bool kFlip = std::is_same_v<In, uint8_t>;
  if (static_cast<int>(out->groups.size()) == groups) {
    const PackedI8& b = out->groups[0];
    if (b.source == filter && b.isa == isa && b.n == per_group && b.k == k && b.input_offset == input_offset &&
        b.filter_offset == filter_offset && b.flip_input == kFlip) {
      return;
    }
  }
  out->groups.resize(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g) {
    PackI8FromNK(filter + static_cast<int64_t>(g) * per_group * k, k, per_group, k, filter_offset, input_offset, kFlip,
                 isa, &out->groups[g]);
  }
  out->groups[0].source = filter;
}

// One image of an 8-bit CONV_2D (int8 or uint8 activations; as reference::IntegerConv2D with
// int32 sums). Pointwise int8 convolutions whose depth is a multiple of 4 read the input in place.
template <class In, class MakeStage>  // make_stage(group) returns a RequantStage
void IntegerConv2DI8(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d, int f_c,
                     const In* input_values, int32_t input_offset, const ConvFilterI8& filter,
                     const MakeStage& make_stage) {
  const int groups = d.in_c / f_c;
  const int64_t m = static_cast<int64_t>(d.out_h) * d.out_w;
  const bool pointwise = d.k_h == 1 && d.k_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_h == 0 &&
                         p.pad_w == 0;
  const auto* input = reinterpret_cast<const int8_t*>(input_values);
  // Taps outside the image hold the input zero point, whose offset value is 0.
  const int8_t pad = static_cast<int8_t>(static_cast<In>(-input_offset));
  for (int g = 0; g < groups; ++g) {
    const PackedI8& b = filter.groups[g];
    const int64_t ldd = PaddedDepth(b);
    auto stage = make_stage(g);
    if (pointwise) {
      const In* rows_base = input_values + static_cast<int64_t>(g) * f_c;
      IntGemmI8(pool, m, b, [&](int64_t r0, int rows) {
        return MatrixRowsI8(rows_base, d.in_c, r0, rows, f_c, ldd);
      }, stage);
    } else {
      IntGemmI8(pool, m, b, [&](int64_t r0, int rows) {
        int8_t* dst = ScratchI8(static_cast<size_t>(rows) * ldd, 0);
        Im2ColI8(p, d, f_c, g, input, pad, r0, rows, dst, ldd);
        // uint8: flipped as the GEMM reads them, where the ISA can (the padding holds the raw
        // zero point, so flips to the same value as the taps).
        if (std::is_same_v<In, uint8_t> && ActiveKernels().row_sums_u8 != nullptr) return I8Rows{dst, ldd, true};
        ToSignedBytes<In>(dst, rows * ldd);
        return I8Rows{dst, ldd};
      }, stage);
    }
  }
}

// ---- depthwise (depth multiplier 1): the filter [KH][KW][C] plus its offset as int32.
template <class Stage>
struct IsEightBitRequantStage : std::false_type {};
template <>
struct IsEightBitRequantStage<RequantStage<int8_t>> : std::true_type {};
template <>
struct IsEightBitRequantStage<RequantStage<uint8_t>> : std::true_type {};

template <class W>
void PrepareDepthwiseFilter(const W* filter, int64_t n, int32_t offset, AlignedBuffer<int32_t>* out) {
  out->Resize(static_cast<size_t>(n));
  int32_t* values = out->data();
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(filter[i]) + offset;
}

// int32 sums of one image (as reference::IntegerDepthwiseConv2D, depth multiplier 1); stage rows
// are output pixels. kWide needs at most kWidePairsPerBlock * 2 taps (checked by the caller).
// Only the output columns [x0, x1) of each row are computed (DwConvArgs::x0, x1).
template <class In, class Stage>
void IntegerDepthwiseConv2D(ThreadPool* pool, const reference::ConvParams& p, const reference::ConvDims& d,
                            const In* input, int32_t input_offset, const int32_t* filter, const Stage& stage,
                            int x0 = 0, int x1 = 1 << 30) {
  x1 = std::min(x1, d.out_w);
  x0 = std::max(0, std::min(x0, x1));
  DwConvArgs args{};
  args.x0 = x0;
  args.x1 = x1;
  args.input = input;
  args.in_h = d.in_h;
  args.in_w = d.in_w;
  args.channels = d.in_c;
  args.k_h = d.k_h;
  args.k_w = d.k_w;
  args.stride_h = p.stride_h;
  args.stride_w = p.stride_w;
  args.dilation_h = p.dilation_h;
  args.dilation_w = p.dilation_w;
  args.pad_h = p.pad_h;
  args.pad_w = p.pad_w;
  args.out_w = d.out_w;
  args.filter = filter;
  args.input_type = std::is_same_v<In, uint8_t> ? 0 : std::is_same_v<In, int8_t> ? 1 : 2;
  args.input_offset = input_offset;
  const IsaKernels& kernels = ActiveKernels();
  if constexpr (IsEightBitRequantStage<Stage>::value && sizeof(In) == 1) {
    // 8-bit outputs with the float requantization: fused into the row kernel (3x3 and 5x5).
    const bool fixed_window = (d.k_h == 3 && d.k_w == 3) || (d.k_h == 5 && d.k_w == 5);
    if (kernels.dwconv_int_requant && stage.float_rounding && fixed_window && stage.channel_base == 0 &&
        stage.row_stride == d.in_c) {
      args.bias_i32 = stage.args.bias;
      args.scale = stage.args.scale;
      args.zero_point = stage.args.zero_point;
      args.lo = static_cast<float>(stage.args.act_min - stage.args.zero_point);
      args.hi = static_cast<float>(stage.args.act_max - stage.args.zero_point);
      ParallelRows(pool, d.out_h, 1, [&](int64_t r0, int64_t r1) {
        kernels.dwconv_int_requant(args, static_cast<int>(r0), static_cast<int>(r1),
                                   stage.out + r0 * d.out_w * stage.row_stride);
      });
      return;
    }
  }
  const DwConvRowFn row_fn = kernels.dwconv_int;
  ParallelRows(pool, d.out_h, 1, [&](int64_t r0, int64_t r1) {
    int32_t* sums = ScratchI32(static_cast<size_t>(d.out_w) * d.in_c, 1);
    for (int64_t oy = r0; oy < r1; ++oy) {
      row_fn(args, static_cast<int>(oy), static_cast<int>(oy) + 1, sums);
      for (int ox = x0; ox < x1; ++ox) {
        stage(oy * d.out_w + ox, 0, d.in_c, sums + static_cast<int64_t>(ox) * d.in_c);
      }
    }
  });
}

}  // namespace edgerun::optimized
