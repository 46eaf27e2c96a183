// Optimized RFFT2D for the case audio models use: fft_height 1, i.e. one real FFT per row
// (YAMNet's spectrogram: 96 frames of 512). Each row's n real values are transformed as n/2
// complex ones, z[k] = x[2k] + i x[2k+1], and the n/2 + 1 outputs recovered from Z; rows are split
// over the pool. Same double precision as reference::math::Rfft2dSlice; the results agree with it
// to rounding (tests/optimized/rfft_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/optimized/gemm.h"
#include "kernels/reference/fft.h"

namespace edgerun::optimized {

// In-place radix-2 FFT of n contiguous values, the reference's butterflies with the complex
// products written out (std::complex's operator* checks for NaN on every product, which made the
// reference's loop about 3x slower).
inline void FftContiguous(std::complex<double>* data, int64_t n, const std::complex<double>* twiddles) {
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  auto* v = reinterpret_cast<double*>(data);  // [re, im] pairs, as std::complex guarantees
  const std::complex<double>* stage = twiddles;
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t h = len / 2;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < h; ++k) {
        const double wr = stage[k].real(), wi = stage[k].imag();
        double* even = v + 2 * (start + k);
        double* odd = v + 2 * (start + k + h);
        const double tr = odd[0] * wr - odd[1] * wi, ti = odd[0] * wi + odd[1] * wr;
        odd[0] = even[0] - tr;
        odd[1] = even[1] - ti;
        even[0] += tr;
        even[1] += ti;
      }
    }
    stage += h;
  }
}

// rows x width real values, each cropped or zero-padded to n (a power of two), to rows x
// (n / 2 + 1) complex outputs.
inline void RealFftRows(ThreadPool* pool, const float* in, int64_t rows, int64_t width, int64_t n,
                        std::complex<float>* out) {
  const int64_t out_cols = n / 2 + 1;
  if (n == 1) {
    for (int64_t r = 0; r < rows; ++r) out[r] = std::complex<float>(width > 0 ? in[r * width] : 0.0f, 0.0f);
    return;
  }
  const int64_t half = n / 2;
  const std::vector<std::complex<double>> twiddles = reference::math::FftTwiddles(half);
  std::vector<std::complex<double>> unpack(static_cast<size_t>(half + 1));  // e^{-2 pi i k / n}
  for (int64_t k = 0; k <= half; ++k) {
    const double angle = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
    unpack[k] = std::complex<double>(std::cos(angle), std::sin(angle));
  }
  constexpr int64_t kRowsPerTask = 8;
  ParallelFor(pool, (rows + kRowsPerTask - 1) / kRowsPerTask, [&](int64_t task) {
    std::vector<std::complex<double>> z(static_cast<size_t>(half));
    const int64_t end = std::min(rows, (task + 1) * kRowsPerTask);
    const int64_t cols = std::min(width, n);
    for (int64_t r = task * kRowsPerTask; r < end; ++r) {
      const float* x = in + r * width;
      for (int64_t k = 0; k < half; ++k) {
        const int64_t even = 2 * k, odd = 2 * k + 1;
        z[k] = std::complex<double>(even < cols ? x[even] : 0.0f, odd < cols ? x[odd] : 0.0f);
      }
      FftContiguous(z.data(), half, twiddles.data());
      // With A = Z[k], B = conj(Z[half - k]): the even samples' transform is (A + B) / 2, the odd
      // samples' is (A - B) / 2i, and X[k] = even + e^{-2 pi i k / n} odd.
      std::complex<float>* y = out + r * out_cols;
      // In plain doubles: std::complex temporaries went through the stack as two 8-byte stores
      // read back as one 16-byte load, a store-forwarding stall on every output (most of YAMNet's
      // RFFT2D).
      const double* zv = reinterpret_cast<const double*>(z.data());
      for (int64_t k = 0; k <= half; ++k) {
        const int64_t ka = k == half ? 0 : k, kb = k == 0 ? 0 : half - k;  // k % half, (half - k) % half
        const double ar = zv[2 * ka], ai = zv[2 * ka + 1];
        const double br = zv[2 * kb], bi = -zv[2 * kb + 1];
        const double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
        const double dr = ar - br, di = ai - bi;
        const double odd_r = 0.5 * di, odd_i = -0.5 * dr;  // d / 2i
        const double wr = unpack[k].real(), wi = unpack[k].imag();
        const double re = er + (wr * odd_r - wi * odd_i);
        const double im = ei + (wr * odd_i + wi * odd_r);
        y[k] = std::complex<float>(static_cast<float>(re), static_cast<float>(im));
      }
    }
  });
}

}  // namespace edgerun::optimized
