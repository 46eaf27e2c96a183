// The inner kernels of each instruction set, as a table of function pointers. The drivers
// (gemm.cc, conv.cc, ...) are compiled for the baseline and call through KernelsFor(isa); the
// table entries live in kernels_generic.cc, kernels_avx2.cc and kernels_avx512.cc.
//
// Only <cstdint> and <cstddef> here: the SIMD translation units must not instantiate inline
// library code that the baseline code could then pick up (an AVX-512 copy of std::min would
// crash on an older CPU).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/cpu.h"

namespace edgerun::optimized {

constexpr int kMaxMr = 16;

// ---- float GEMM micro-kernel
// C[mr x nc] = (C if accumulate) + A[mr x kc] * B, where A's rows are lda floats apart and B is a
// packed panel of kc rows of NR floats (columns past nc are zero). With `ep` the bias (nullable,
// nc values) is added and the result clamped to [lo, hi] before the store. With `prefetch`, the
// lines from there on are prefetched into L2 as fast as B is read (two a depth step): the packed
// B that comes next, so that weights streamed from memory arrive while these are multiplied.
struct F32Epilogue {
  const float* bias;
  float lo, hi;
};
using GemmF32Fn = void (*)(int kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int nc,
                           bool accumulate, const F32Epilogue* ep, const float* prefetch);

// ---- float GEMM micro-kernel over window rows (a convolution without im2col)
// C[mr x nc] = clamp(sum over parts j of A_j[mr x kc] * B_j + bias): part j's A rows start at a[j]
// (lda floats apart), its packed B rows at b[j] (kc rows of NR floats). ep is not null. The
// accumulators stay in registers across the parts.
using GemmF32RowsFn = void (*)(int parts, const float* const* a, int64_t lda, const float* const* b, int kc, float* c,
                               int64_t ldc, int nc, const F32Epilogue* ep);

// ---- integer GEMM micro-kernel on int16 pairs
// C[mr x nc] = (C if accumulate) + sum over kc2 pairs of A[m][2p] * B[2p][n] + A[m][2p+1] * B[2p+1][n],
// int32 sums that wrap. A rows hold int16 values (lda int16s apart, pairs at even offsets); the
// packed B panel is [kc2][NR][2] int16.
//
// With `ep` the sums (plus ep->bias, nullable) are requantized to 8 bits as the float stage of
// RequantizeFn does (x * scale clamped to [lo, hi], rounded to nearest even, plus zero_point) and
// their low bytes stored to ep->out (rows ldo apart; uint8 and int8 alike) instead of C. bias,
// scale and out point at the tile's first column (and out at its first row).
struct Requant8Output {
  const int32_t* bias;
  const float* scale;
  float lo, hi;  // the activation range minus the zero point
  int32_t zero_point;
  int8_t* out;
  int64_t ldo;
};
using GemmI16Fn = void (*)(int kc2, const int16_t* a, int64_t lda, const int16_t* b, int32_t* c, int64_t ldc, int nc,
                           bool accumulate, const Requant8Output* ep);

// The A operand of that GEMM from 8-bit rows: dst[r][i] = src[r][i] + offset for i < k (src rows
// lds bytes apart, uint8 or int8 by the variant), 0 for k <= i < ldd (dst rows ldd int16 apart).
using WidenRowsI16Fn = void (*)(const void* src, int64_t lds, int rows, int k, int32_t offset, int16_t* dst,
                                int64_t ldd);

// ---- int8 GEMM micro-kernel on byte dot products (AVX-512 VNNI vpdpbusd)
// C[mr x nc] = (C if accumulate) + sum over kc4 groups g of sum_{j<4} A[m][4g + j] * B[4g + j][n],
// int32 sums that wrap; with `ep`, ep->row[m] + ep->col[n] are added before the store. A holds
// int8 rows lda bytes apart (4 * kc4 readable bytes each); the packed B panel is [kc4][NR][4]
// uint8: the int8 weights plus 128, since vpdpbusd multiplies unsigned by signed bytes.
//
// With ep->scale the sums (plus ep->bias, nullable) are requantized to int8 as the float stage of
// RequantizeFn does (x * scale clamped to [lo, hi], rounded to nearest even, plus zero_point) and
// stored to ep->out (rows ldo apart) instead of C: no int32 round trip through memory.
struct I8Epilogue {
  const int32_t* row;  // mr values
  const int32_t* col;  // nc values
  const int32_t* bias;
  const float* scale;
  float lo, hi;
  int32_t zero_point;
  int8_t* out;
  int64_t ldo;
};
using GemmI8Fn = void (*)(int kc4, const int8_t* a, int64_t lda, const uint8_t* b, int32_t* c, int64_t ldc, int nc,
                          bool accumulate, const I8Epilogue* ep);
// out[r] = scale * (sum of a[r][0 .. k)), int32 that wraps; rows lda bytes apart. The _u8 variant
// reads A as uint8 values a and sums a - 128, the signed bytes the _flip GEMM kernels make of them.
using RowSumsI8Fn = void (*)(const int8_t* a, int64_t lda, int rows, int k, int32_t scale, int32_t* out);

// ---- depthwise convolution, a range of output rows, channels in SIMD lanes (depth multiplier 1)
struct DwConvArgs {
  const void* input;  // one image [in_h][in_w][channels]
  int in_h, in_w, channels;
  int k_h, k_w, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
  int out_w;
  // Output columns [x0, x1) of each row (clipped to out_w); the others are not written. A fused
  // chain's thread computes part of a row this way (ops/fused_rows.cc, the pixel split).
  int x0 = 0, x1 = 1 << 30;
  // float: filter [k_h][k_w][channels] float, bias (nullable), clamp [lo, hi], out float.
  // integer: filter as int32 with its offset added, input of `input_type` plus input_offset,
  // out int32 sums [out_w][channels] (no bias).
  const void* filter;
  const float* bias;
  float lo, hi;
  int input_type;  // 0 uint8, 1 int8, 2 int16 (integer kernel)
  int32_t input_offset;
  // dwconv_int_requant (8-bit input): out 8-bit [out_w][channels], each sum requantized as
  // RequantizeFn's float path: clamp(float(sum + bias_i32[c]) * scale[c], lo, hi) rounded to
  // nearest even, plus zero_point (lo, hi: the activation range minus the zero point).
  const int32_t* bias_i32;  // nullable
  const float* scale;
  int32_t zero_point;
};
// Output rows [oy0, oy1); out_rows points at row oy0, rows out_w * channels values apart.
using DwConvRowFn = void (*)(const DwConvArgs& args, int oy0, int oy1, void* out_rows);

// ---- requantization of int32 sums to 8/16-bit outputs, bit-exact with reference::Requantizer
// (fixed point) and reference::FloatRequantizer (XNNPACK's float rounding).
enum class OutType { kUInt8 = 0, kInt8 = 1, kInt16 = 2 };
struct RequantArgs {
  const int32_t* bias;        // per channel, nullable
  const int32_t* multiplier;  // fixed point: per channel
  const int32_t* shift;
  const float* scale;  // float: per channel
  int32_t zero_point, act_min, act_max;
  OutType out_type;
};
// Channels c0 .. c0 + n - 1: out[i] = requantize(sums[i] + bias[c0 + i]); out points at the first.
using RequantizeFn = void (*)(const int32_t* sums, int n, int c0, const RequantArgs& r, void* out);

// The int16 x int8 convolutions' int64 requantization (reference::Requantizer<int64_t, int64_t,
// int16_t>) of int32 sums: acc = sum + bias[c] in int64, TFLite's 64-bit
// MultiplyByQuantizedMultiplier with the multiplier reduced to 16 bits (reduced[c]) and one
// rounding right shift by total_shift[c] (every one in [1, 63]: the callers check), truncated to
// int32, plus zero_point (wrapping), clamped, stored as int16. AVX-512 only (64-bit multiplies
// and shifts by lane); null elsewhere, where the reference functor runs.
struct RequantI64Args {
  const int64_t* bias;  // nullable
  const int64_t* reduced;
  const int64_t* total_shift;
  int32_t zero_point, act_min, act_max;
};
using RequantizeI64Fn = void (*)(const int32_t* sums, int n, int c0, const RequantI64Args& r, int16_t* out);

// ---- 8-bit ADD / SUB with XNNPACK's arithmetic (quant::xnn::Add), same shapes
// out[i] = clamp(zero_point + ((bias + a[i] * a_multiplier + b[i] * b_multiplier) >> shift), min,
// max) in int32, which is exact: the multipliers are below 2^21 (quant::xnn::PrepareAdd).
struct AddI8Args {
  int32_t a_multiplier, b_multiplier, bias, shift, zero_point, min, max;
  bool is_unsigned;  // uint8 values, else int8
};
using AddI8Fn = void (*)(const void* a, const void* b, int64_t n, const AddI8Args& p, void* out);

// ---- 8-bit rows summed into int32: acc[i] += src[r * stride + i] for r < rows, i < n (uint8
// values with is_unsigned, else int8), adds that wrap. Integer sums in any order are equal, so
// this is the reference's sum of a global average pool or MEAN over its leading axes.
using AddRowsI8Fn = void (*)(const void* src, int64_t rows, int64_t stride, int64_t n, bool is_unsigned, int32_t* acc);

// ---- RESIZE_BILINEAR of 8-bit values with XNNPACK's 11-bit weights, bit-exact with
// quant::xnn::ResizeBilinear8Row: one output row of out_w pixels from the input rows `top` and
// `bottom` ([in_w][channels]); x_taps holds (lo, hi, weight) per output pixel.
using ResizeRow8Fn = void (*)(const void* top, const void* bottom, int32_t channels, int32_t wy,
                              const int32_t* x_taps, int32_t out_w, void* out);

// ---- RESIZE_BILINEAR of floats, one output row, bit-exact with reference::ResizeBilinearWeighted:
// per output pixel x the weights (1 - dy)(1 - dx), (1 - dy)dx, dy(1 - dx), dy dx with
// dx = dxs[x], and per channel 0 + c0 w0 + c1 w1 + c2 w2 + c3 w3 in that order, each product
// rounded (no FMA). The corners are top/bottom + x0[x] * channels and + x1[x] * channels.
using ResizeRowF32Fn = void (*)(const float* top, const float* bottom, int32_t channels, float dy, const float* dxs,
                                const int32_t* x0, const int32_t* x1, int32_t out_w, float* out);

// ---- ARG_MAX / ARG_MIN of 8-bit rows along their last axis: out[r] is the first index of the
// largest (is_max) or smallest value of row r (rows `axis_size` bytes apart, `count` of them).
// Loads may read past a row, never past input_end.
using ArgMinMax8Fn = void (*)(const void* rows, int64_t count, int32_t axis_size, bool is_max,
                              const void* input_end, int32_t* out);

// ---- TRANSPOSE of 4-byte elements, one 2-D block (reference::TransposeBlock<4>'s contract):
// element (i, j) of rows x cols from src + 4 * (i + j * src_step) bytes to
// dst + 4 * (i * dst_step + j). In 4 x 4 tiles on 128-bit shuffles; null on the generic build.
using TransposeBlock32Fn = void (*)(const uint8_t* src, int64_t src_step, uint8_t* dst, int64_t dst_step,
                                    int64_t rows, int64_t cols);

// ---- MAX_POOL_2D, one output pixel: out[i] = clamp(max over the cells of cells[j][i], lo, hi)
// (MaxPoolCellsF32 / MaxPoolCellsInt in simd_kernels.inc; null on the generic build).
template <class T>
using MaxPoolCellsFn = void (*)(const T* const* cells, int count, int n, T lo, T hi, T* out);

// ---- Winograd F(2x2, 3x3) transforms (winograd.cc), channels [0, n) a vector at a time.
// Input: the 4x4 block whose 16 cells (NHWC pixels, row-major) are cells[0..15] into
// v[position * stride + channel], V = B^T d B.
using WinogradInputFn = void (*)(const float* const* cells, int n, float* v, int64_t stride);
// Output: the tile's 2x2 outputs from m[position * stride + channel], Y = A^T M A, plus the bias
// (or none), clamped to [lo, hi], into out[0..3] (row-major).
using WinogradOutputFn = void (*)(const float* m, int64_t stride, int n, const float* bias, float lo, float hi,
                                  float* const* out);
// Filter: row `row` of U = G g G^T of `count` values side by side, tap (ky, kx) of value i at
// g[(ky * 3 + kx) * tap_stride + i], position (row, s) of it to u[s * position_stride + i].
using WinogradFilterFn = void (*)(const float* g, int64_t tap_stride, int64_t count, int row, float* u,
                                  int64_t position_stride);

// ---- int16 ADD / SUB / MUL with TFLite's fixed-point steps (reference::QuantizedAddSub and
// QuantizedMul) for zero points 0 and shifts in [-31, 30], operands of the same shape.
struct BinaryI16Args {
  int op;  // 0 add, 1 subtract, 2 multiply
  int32_t left_shift;
  int32_t multiplier1, shift1, multiplier2, shift2;  // add / subtract: each input's rescaling
  int32_t output_multiplier, output_shift;
  int32_t act_min, act_max;
};
using BinaryI16Fn = void (*)(const int16_t* a, const int16_t* b, int64_t n, const BinaryI16Args& p, int16_t* out);

// The shifts that the AVX-512 lanes' MultiplyByQuantizedMultiplier (binary_i16, leaky_relu_i16)
// takes as quant::MultiplyByQuantizedMultiplier does: left shifts up to 30, right shifts up to 31.
inline bool VectorRequantShiftOk(int shift) { return shift >= -31 && shift <= 30; }

// ---- int16 LEAKY_RELU (reference::QuantizedLeakyRelu<int16_t>, zero points 0): x >= 0 takes the
// identity multiplier, x < 0 the signed alpha multiplier, each quant::MultiplyByQuantizedMultiplier
// with shifts in [-31, 30], then clamped to int16.
struct LeakyReluI16Args {
  int32_t identity_multiplier, identity_shift, alpha_multiplier, alpha_shift;
};
using LeakyReluI16Fn = void (*)(const int16_t* in, int64_t n, const LeakyReluI16Args& p, int16_t* out);

// ---- dot products of matrix rows with one vector (recurrent ops, GEMV)
// out[r] += dot(m[r], v) for rows r < rows, rows ldm apart.
using DotRowsF32Fn = void (*)(const float* m, int64_t ldm, int rows, int cols, const float* v, float* out);
// out[i][j] = reference::DotBlocked(a[i], bt[j], k) bit for bit (BATCH_MATMUL's float order);
// a's and bt's rows k apart, out's rows ldc apart.
using MatMulBlockedF32Fn = void (*)(const float* a, const float* bt, int m, int n, int k, float* out, int64_t ldc);
// The same sums with b stored [k][n] (not transposed), out's rows n apart.
using MatMulBlockedKnF32Fn = void (*)(const float* a, const float* b, int m, int n, int k, float* out);
// out[r] = dot(m[r], v) in int32 (exact: |products| < 2^14, cols < 2^17).
using DotRowsI8Fn = void (*)(const int8_t* m, int64_t ldm, int rows, int cols, const int8_t* v, int32_t* out);

// ---- float transcendentals, elementwise: out[i] = f(in[i]) within a few ulp (see simd_kernels.inc)
using UnaryF32Fn = void (*)(const float* in, int64_t n, float* out);

// The largest (kMax) or smallest of n >= 1 floats, lane by lane and then across lanes, and whether
// every x - x was 0 (no NaN, no infinity): only then is the result the in-order fold's value
// (optimized::ExtremumRow, reduce.h, decides).
using ExtremumF32Fn = float (*)(const float* in, int64_t n, bool* finite);
// out[r] = init[r] folded with row r's n floats (in + r * stride) one at a time, in order:
// acc + x, acc * x, (acc > x) ? acc : x or (acc < x) ? acc : x (FoldKind). The rows go
// kLanes at a time, one per lane, each block of kLanes x kLanes values transposed in registers,
// so the results equal the scalar in-order fold bit for bit (init and out may be the same).
enum class FoldKind { kAdd = 0, kMul = 1, kMax = 2, kMin = 3 };
using FoldRowsF32Fn = void (*)(const float* in, int64_t rows, int64_t n, int64_t stride, const float* init,
                               float* out);

// gemmlowp's 16-bit fixed-point tanh / logistic (quant::fp16::Tanh, Logistic) bit for bit:
// inputs with integer_bits integer bits (0..6 for tanh, 0..7 for logistic), outputs Q0.15.
using FixedPointSigmoid16Fn = void (*)(const int16_t* in, int64_t n, int integer_bits, int16_t* out);

// quant::SymmetricQuantizeFloats, the same bytes and scale; false (nothing written) when a value
// is NaN, which the caller leaves to the scalar function.
using QuantizeSymmetricF32Fn = bool (*)(const float* values, int64_t n, int8_t* quantized, float* scale);

struct IsaKernels {
  Isa isa = Isa::kGeneric;
  int f32_mr = 0, f32_nr = 0;
  GemmF32Fn gemm_f32[kMaxMr + 1] = {};  // by number of rows, 1 .. f32_mr
  // Panels of f32_nr_narrow columns for products of at most that many (0: none, use f32_nr).
  int f32_nr_narrow = 0;
  GemmF32Fn gemm_f32_narrow[kMaxMr + 1] = {};
  // Panels of f32_nr_mid columns (0: none): 24 on AVX-512, a 16-lane and an 8-lane vector a row,
  // 3/4 of a 32-column panel's FMA time where the CPU splits its 512-bit FMAs (SplitsWideFma).
  int f32_nr_mid = 0;
  GemmF32Fn gemm_f32_mid[kMaxMr + 1] = {};
  // Over window rows, for panels of f32_nr, f32_nr_narrow and f32_nr_mid columns (null: use im2col).
  GemmF32RowsFn gemm_f32_rows[kMaxMr + 1] = {};
  GemmF32RowsFn gemm_f32_rows_narrow[kMaxMr + 1] = {};
  GemmF32RowsFn gemm_f32_rows_mid[kMaxMr + 1] = {};
  int i16_mr = 0, i16_nr = 0;
  GemmI16Fn gemm_i16[kMaxMr + 1] = {};
  WidenRowsI16Fn widen_u8_i16 = nullptr;  // null (generic): the scalar loop of ConvertRows
  WidenRowsI16Fn widen_i8_i16 = nullptr;
  // Byte dot products: only on CPUs with AVX-512 VNNI (i8_mr 0 elsewhere).
  int i8_mr = 0, i8_nr = 0, i8_nr_narrow = 0;
  GemmI8Fn gemm_i8[kMaxMr + 1] = {};
  GemmI8Fn gemm_i8_narrow[kMaxMr + 1] = {};
  // The same with A holding uint8 values, each byte's top bit flipped as it is read (a - 128):
  // uint8 activations read in place instead of copied flipped.
  GemmI8Fn gemm_i8_flip[kMaxMr + 1] = {};
  GemmI8Fn gemm_i8_flip_narrow[kMaxMr + 1] = {};
  RowSumsI8Fn row_sums_i8 = nullptr;
  RowSumsI8Fn row_sums_u8 = nullptr;
  AddI8Fn add_i8 = nullptr;  // AVX2 and AVX-512; null: the scalar kernel
  AddRowsI8Fn add_rows_i8 = nullptr;  // AVX2 and AVX-512; null: the callers' loops
  BinaryI16Fn binary_i16 = nullptr;  // AVX-512 only; null: the scalar kernel
  LeakyReluI16Fn leaky_relu_i16 = nullptr;  // AVX-512 only; null: the scalar kernel
  DwConvRowFn dwconv_f32 = nullptr;
  DwConvRowFn dwconv_int = nullptr;
  DwConvRowFn dwconv_int_requant = nullptr;  // null: dwconv_int, then a RequantizeFn pass
  RequantizeFn requantize_fixed = nullptr;
  RequantizeI64Fn requantize_i64 = nullptr;
  RequantizeFn requantize_float = nullptr;
  DotRowsF32Fn dot_rows_f32 = nullptr;
  MatMulBlockedF32Fn matmul_blocked_f32 = nullptr;
  int matmul_blocked_cols = 1;  // its tiles' columns: callers split n into multiples of it
  MatMulBlockedKnF32Fn matmul_blocked_kn_f32 = nullptr;
  DotRowsI8Fn dot_rows_i8 = nullptr;
  // null (generic): libm per element
  UnaryF32Fn exp_f32 = nullptr;
  ExtremumF32Fn max_f32 = nullptr, min_f32 = nullptr;  // null: ExtremumRow's portable lanes
  FoldRowsF32Fn fold_rows_f32[4] = {};  // by FoldKind; null (generic): the rows one by one
  UnaryF32Fn tanh_f32 = nullptr;
  UnaryF32Fn logistic_f32 = nullptr;
  FixedPointSigmoid16Fn tanh_q16 = nullptr;  // null (generic): quant::fp16 per element
  FixedPointSigmoid16Fn logistic_q16 = nullptr;
  QuantizeSymmetricF32Fn quantize_symmetric_f32 = nullptr;  // null (generic): the scalar function
  ResizeRow8Fn resize_row_u8 = nullptr;
  ResizeRow8Fn resize_row_i8 = nullptr;
  ResizeRowF32Fn resize_row_f32 = nullptr;  // null (generic): the compiler's loop in optimized/resize.h
  ArgMinMax8Fn arg_min_max_u8 = nullptr;
  ArgMinMax8Fn arg_min_max_i8 = nullptr;
  WinogradInputFn winograd_input_f32 = nullptr;  // null (generic): the scalar loops in winograd.cc
  WinogradOutputFn winograd_output_f32 = nullptr;
  WinogradFilterFn winograd_filter_f32 = nullptr;
  MaxPoolCellsFn<float> max_pool_f32 = nullptr;
  MaxPoolCellsFn<uint8_t> max_pool_u8 = nullptr;
  MaxPoolCellsFn<int8_t> max_pool_i8 = nullptr;
  MaxPoolCellsFn<int16_t> max_pool_i16 = nullptr;
  TransposeBlock32Fn transpose_block_32 = nullptr;
};

const IsaKernels& KernelsFor(Isa isa);
inline const IsaKernels& ActiveKernels() { return KernelsFor(ActiveIsa()); }

// Filled by the ISA translation units (false when this build has no such kernels).
bool FillGenericKernels(IsaKernels* k);
bool FillAvx2Kernels(IsaKernels* k);
bool FillAvx512Kernels(IsaKernels* k, bool vnni);

}  // namespace edgerun::optimized
