// Portable C++ versions of the inner kernels (any CPU; the compiler vectorizes what it can for
// the baseline ISA). They define what the SIMD versions compute.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "kernels/optimized/cpu.h"
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/batch_matmul.h"
#include "quant/fixed_point.h"

namespace edgerun::optimized {
namespace {

constexpr int kGenericMr = 4;
constexpr int kGenericNr = 8;

template <int MR>
void GemmF32(int kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int nc, bool accumulate,
             const F32Epilogue* ep, const float* /*prefetch: the portable kernel leaves it to the hardware*/) {
  float acc[MR][kGenericNr];
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < kGenericNr; ++j) acc[i][j] = (accumulate && j < nc) ? c[i * ldc + j] : 0.0f;
  }
  for (int k = 0; k < kc; ++k) {
    const float* bk = b + static_cast<int64_t>(k) * kGenericNr;
    for (int i = 0; i < MR; ++i) {
      const float av = a[i * lda + k];
      for (int j = 0; j < kGenericNr; ++j) acc[i][j] += av * bk[j];
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < nc; ++j) {
      float v = acc[i][j];
      if (ep) {
        if (ep->bias) v += ep->bias[j];
        v = std::min(std::max(v, ep->lo), ep->hi);
      }
      c[i * ldc + j] = v;
    }
  }
}

// The float requantization of one sum (RequantizeFn's float path): (sum + bias) * scale in
// float, clamped to [lo, hi] (the activation range minus the zero point), rounded to nearest
// even, plus the zero point. The sum and bias add as int32 that wraps, as the reference's sums.
inline int32_t RequantizeFloatValue(int32_t sum, int32_t bias, float scale, float lo, float hi, int32_t zero_point) {
  const uint32_t total = static_cast<uint32_t>(sum) + static_cast<uint32_t>(bias);
  const float v = std::min(std::max(static_cast<float>(static_cast<int32_t>(total)) * scale, lo), hi);
  return static_cast<int32_t>(std::nearbyint(v)) + zero_point;
}

template <int MR>
void GemmI16(int kc2, const int16_t* a, int64_t lda, const int16_t* b, int32_t* c, int64_t ldc, int nc,
             bool accumulate, const Requant8Output* ep) {
  uint32_t acc[MR][kGenericNr];
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < kGenericNr; ++j) acc[i][j] = (accumulate && j < nc) ? static_cast<uint32_t>(c[i * ldc + j]) : 0u;
  }
  for (int p = 0; p < kc2; ++p) {
    const int16_t* bp = b + static_cast<int64_t>(p) * kGenericNr * 2;
    for (int i = 0; i < MR; ++i) {
      const int32_t a0 = a[i * lda + 2 * p], a1 = a[i * lda + 2 * p + 1];
      for (int j = 0; j < kGenericNr; ++j) {
        acc[i][j] += static_cast<uint32_t>(a0 * bp[2 * j] + a1 * bp[2 * j + 1]);
      }
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < nc; ++j) {
      if (ep == nullptr) {
        c[i * ldc + j] = static_cast<int32_t>(acc[i][j]);
        continue;
      }
      const int32_t q = RequantizeFloatValue(static_cast<int32_t>(acc[i][j]), ep->bias ? ep->bias[j] : 0, ep->scale[j],
                                             ep->lo, ep->hi, ep->zero_point);
      ep->out[i * ep->ldo + j] = static_cast<int8_t>(q);
    }
  }
}

// The taps of a window that fall inside the input: [*lo, *hi) of k for position `start`.
inline void ValidTaps(int start, int dilation, int k, int size, int* lo, int* hi) {
  *lo = 0;
  while (*lo < k && start + *lo * dilation < 0) ++*lo;
  *hi = k;
  while (*hi > *lo && start + (*hi - 1) * dilation >= size) --*hi;
}

void DwConvF32Row(const DwConvArgs& a, int oy, void* out_row) {
  const float* input = static_cast<const float*>(a.input);
  const float* filter = static_cast<const float*>(a.filter);
  float* out = static_cast<float*>(out_row);
  const int c = a.channels;
  const int iy0 = oy * a.stride_h - a.pad_h;
  int ky_lo = 0, ky_hi = 0;
  ValidTaps(iy0, a.dilation_h, a.k_h, a.in_h, &ky_lo, &ky_hi);
  for (int ox = std::max(a.x0, 0), x1 = std::min(a.x1, a.out_w); ox < x1; ++ox) {
    const int ix0 = ox * a.stride_w - a.pad_w;
    int kx_lo = 0, kx_hi = 0;
    ValidTaps(ix0, a.dilation_w, a.k_w, a.in_w, &kx_lo, &kx_hi);
    float* o = out + static_cast<int64_t>(ox) * c;
    for (int ch = 0; ch < c; ++ch) o[ch] = a.bias ? a.bias[ch] : 0.0f;
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      const float* row = input + static_cast<int64_t>(iy0 + ky * a.dilation_h) * a.in_w * c;
      for (int kx = kx_lo; kx < kx_hi; ++kx) {
        const float* in = row + static_cast<int64_t>(ix0 + kx * a.dilation_w) * c;
        const float* f = filter + (static_cast<int64_t>(ky) * a.k_w + kx) * c;
        for (int ch = 0; ch < c; ++ch) o[ch] += in[ch] * f[ch];
      }
    }
    for (int ch = 0; ch < c; ++ch) o[ch] = std::min(std::max(o[ch], a.lo), a.hi);
  }
}

template <class In>
void DwConvIntTyped(const DwConvArgs& a, int oy, int32_t* out) {
  const In* input = static_cast<const In*>(a.input);
  const int32_t* filter = static_cast<const int32_t*>(a.filter);
  const int c = a.channels;
  const int iy0 = oy * a.stride_h - a.pad_h;
  int ky_lo = 0, ky_hi = 0;
  ValidTaps(iy0, a.dilation_h, a.k_h, a.in_h, &ky_lo, &ky_hi);
  for (int ox = std::max(a.x0, 0), x1 = std::min(a.x1, a.out_w); ox < x1; ++ox) {
    const int ix0 = ox * a.stride_w - a.pad_w;
    int kx_lo = 0, kx_hi = 0;
    ValidTaps(ix0, a.dilation_w, a.k_w, a.in_w, &kx_lo, &kx_hi);
    uint32_t* o = reinterpret_cast<uint32_t*>(out + static_cast<int64_t>(ox) * c);
    for (int ch = 0; ch < c; ++ch) o[ch] = 0;
    for (int ky = ky_lo; ky < ky_hi; ++ky) {
      const In* row = input + static_cast<int64_t>(iy0 + ky * a.dilation_h) * a.in_w * c;
      for (int kx = kx_lo; kx < kx_hi; ++kx) {
        const In* in = row + static_cast<int64_t>(ix0 + kx * a.dilation_w) * c;
        const int32_t* f = filter + (static_cast<int64_t>(ky) * a.k_w + kx) * c;
        for (int ch = 0; ch < c; ++ch) o[ch] += static_cast<uint32_t>(f[ch] * (in[ch] + a.input_offset));
      }
    }
  }
}

void DwConvF32(const DwConvArgs& a, int oy0, int oy1, void* out_rows) {
  float* out = static_cast<float*>(out_rows);
  for (int oy = oy0; oy < oy1; ++oy) DwConvF32Row(a, oy, out + static_cast<int64_t>(oy - oy0) * a.out_w * a.channels);
}

void DwConvInt(const DwConvArgs& a, int oy0, int oy1, void* out_rows) {
  for (int oy = oy0; oy < oy1; ++oy) {
    int32_t* out = static_cast<int32_t*>(out_rows) + static_cast<int64_t>(oy - oy0) * a.out_w * a.channels;
    switch (a.input_type) {
      case 0: DwConvIntTyped<uint8_t>(a, oy, out); break;
      case 1: DwConvIntTyped<int8_t>(a, oy, out); break;
      default: DwConvIntTyped<int16_t>(a, oy, out); break;
    }
  }
}

template <class Out>
void StoreClamped(const int32_t* v, int n, void* out) {
  Out* o = static_cast<Out*>(out);
  for (int i = 0; i < n; ++i) o[i] = static_cast<Out>(v[i]);
}

void Store(const int32_t* v, int n, OutType t, void* out) {
  switch (t) {
    case OutType::kUInt8: StoreClamped<uint8_t>(v, n, out); break;
    case OutType::kInt8: StoreClamped<int8_t>(v, n, out); break;
    case OutType::kInt16: StoreClamped<int16_t>(v, n, out); break;
  }
}

constexpr int kChunk = 64;

void RequantizeFixed(const int32_t* sums, int n, int c0, const RequantArgs& r, void* out) {
  int32_t tmp[kChunk];
  const int size = r.out_type == OutType::kInt16 ? 2 : 1;
  for (int start = 0; start < n; start += kChunk) {
    const int count = std::min(kChunk, n - start);
    for (int i = 0; i < count; ++i) {
      const int c = c0 + start + i;
      uint32_t sum = static_cast<uint32_t>(sums[start + i]);
      if (r.bias) sum += static_cast<uint32_t>(r.bias[c]);
      const int32_t scaled = quant::MultiplyByQuantizedMultiplier(static_cast<int32_t>(sum), r.multiplier[c], r.shift[c]);
      const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(r.zero_point));
      tmp[i] = std::clamp(shifted, r.act_min, r.act_max);
    }
    Store(tmp, count, r.out_type, static_cast<char*>(out) + static_cast<int64_t>(start) * size);
  }
}

void RequantizeFloat(const int32_t* sums, int n, int c0, const RequantArgs& r, void* out) {
  int32_t tmp[kChunk];
  const int size = r.out_type == OutType::kInt16 ? 2 : 1;
  const float lo = static_cast<float>(r.act_min - r.zero_point), hi = static_cast<float>(r.act_max - r.zero_point);
  for (int start = 0; start < n; start += kChunk) {
    const int count = std::min(kChunk, n - start);
    for (int i = 0; i < count; ++i) {
      const int c = c0 + start + i;
      tmp[i] = RequantizeFloatValue(sums[start + i], r.bias ? r.bias[c] : 0, r.scale[c], lo, hi, r.zero_point);
    }
    Store(tmp, count, r.out_type, static_cast<char*>(out) + static_cast<int64_t>(start) * size);
  }
}

void DotRowsF32(const float* m, int64_t ldm, int rows, int cols, const float* v, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* row = m + r * ldm;
    float dot = 0.0f;
    for (int c = 0; c < cols; ++c) dot += row[c] * v[c];
    out[r] += dot;
  }
}

void DotRowsI8(const int8_t* m, int64_t ldm, int rows, int cols, const int8_t* v, int32_t* out) {
  for (int r = 0; r < rows; ++r) {
    const int8_t* row = m + r * ldm;
    int32_t dot = 0;
    for (int c = 0; c < cols; ++c) dot += static_cast<int32_t>(row[c]) * v[c];
    out[r] = dot;
  }
}

template <int... MR>
void FillGemm(IsaKernels* k, std::integer_sequence<int, MR...>) {
  ((k->gemm_f32[MR + 1] = &GemmF32<MR + 1>), ...);
  ((k->gemm_i16[MR + 1] = &GemmI16<MR + 1>), ...);
}

// BATCH_MATMUL's float sums with b stored [k][n]: b transposed a block of columns at a time.
void MatMulBlockedKn(const float* a, const float* b, int m, int n, int k, float* out) {
  constexpr int kCols = 16;
  std::vector<float> bt(static_cast<size_t>(kCols) * k);
  std::vector<float> part(static_cast<size_t>(m) * kCols);
  for (int j0 = 0; j0 < n; j0 += kCols) {
    const int cols = std::min(kCols, n - j0);
    for (int j = 0; j < cols; ++j)
      for (int x = 0; x < k; ++x) bt[static_cast<size_t>(j) * k + x] = b[static_cast<int64_t>(x) * n + j0 + j];
    reference::MatMulTransposedB(a, bt.data(), m, cols, k, part.data());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < cols; ++j) out[static_cast<int64_t>(i) * n + j0 + j] = part[static_cast<size_t>(i) * cols + j];
  }
}

// reference::MatMulTransposedB with out's rows ldc apart.
void MatMulBlocked(const float* a, const float* bt, int m, int n, int k, float* out, int64_t ldc) {
  for (int i = 0; i < m; ++i) {
    const float* row = a + static_cast<int64_t>(i) * k;
    for (int j = 0; j < n; ++j) out[i * ldc + j] = reference::DotBlocked(row, bt + static_cast<int64_t>(j) * k, k);
  }
}

}  // namespace

bool FillGenericKernels(IsaKernels* k) {
  k->isa = Isa::kGeneric;
  k->f32_mr = kGenericMr;
  k->f32_nr = kGenericNr;
  k->i16_mr = kGenericMr;
  k->i16_nr = kGenericNr;
  FillGemm(k, std::make_integer_sequence<int, kGenericMr>{});
  k->dwconv_f32 = &DwConvF32;
  k->dwconv_int = &DwConvInt;
  k->requantize_fixed = &RequantizeFixed;
  k->requantize_float = &RequantizeFloat;
  k->dot_rows_f32 = &DotRowsF32;
  k->matmul_blocked_f32 = &MatMulBlocked;
  k->matmul_blocked_kn_f32 = &MatMulBlockedKn;
  k->dot_rows_i8 = &DotRowsI8;
  return true;
}

namespace {

struct KernelTables {
  IsaKernels by_isa[3];
  KernelTables() {
    FillGenericKernels(&by_isa[0]);
    // A level this build or CPU lacks keeps the kernels of the level below. The fill functions
    // are compiled with their level's flags, so even filling a table may execute that level's
    // instructions (the compiler vectorizes the pointer stores): never call one the CPU lacks.
    const Isa detected = DetectedIsa();
    by_isa[1] = by_isa[0];
    if (detected < Isa::kAvx2 || !FillAvx2Kernels(&by_isa[1])) by_isa[1] = by_isa[0];
    by_isa[2] = by_isa[1];
    if (detected < Isa::kAvx512 || !FillAvx512Kernels(&by_isa[2], HasAvx512Vnni())) by_isa[2] = by_isa[1];
  }
};

}  // namespace

const IsaKernels& KernelsFor(Isa isa) {
  static const KernelTables tables;
  return tables.by_isa[static_cast<int>(isa)];
}

}  // namespace edgerun::optimized
