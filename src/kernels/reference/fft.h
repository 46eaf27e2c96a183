// Discrete Fourier transforms for RFFT2D, in double precision like TFLite (which uses Ooura's
// fft2d library): a radix-2 FFT and the real 2-D transform of one slice.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

namespace edgerun::reference::math {

// The twiddle factors e^{-2 pi i k / len} of every stage of an n-point radix-2 FFT (len = 2, 4,
// ..., n; k < len / 2), stage after stage: n - 1 values. Computing them once per transform size
// instead of once per row made YAMNet's RFFT2D (96 rows of 512) 5x faster; the values are the
// same cos/sin calls, so the transform is unchanged to the last bit.
inline std::vector<std::complex<double>> FftTwiddles(int64_t n) {
  std::vector<std::complex<double>> twiddles;
  twiddles.reserve(static_cast<size_t>(std::max<int64_t>(n - 1, 0)));
  for (int64_t len = 2; len <= n; len <<= 1) {
    const double angle = -2.0 * M_PI / static_cast<double>(len);
    for (int64_t k = 0; k < len / 2; ++k) twiddles.emplace_back(std::cos(angle * k), std::sin(angle * k));
  }
  return twiddles;
}

// In-place forward DFT (X[k] = sum x[j] e^{-2 pi i jk / n}) of n values spaced `stride` apart;
// n is a power of two and `twiddles` is FftTwiddles(n).
inline void Fft(std::complex<double>* data, int64_t n, int64_t stride, const std::complex<double>* twiddles) {
  auto at = [&](int64_t i) -> std::complex<double>& { return data[i * stride]; };
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(at(i), at(j));
  }
  const std::complex<double>* stage = twiddles;
  for (int64_t len = 2; len <= n; len <<= 1) {
    for (int64_t k = 0; k < len / 2; ++k) {
      const std::complex<double> twiddle = stage[k];
      for (int64_t start = 0; start < n; start += len) {
        const std::complex<double> even = at(start + k);
        const std::complex<double> odd = at(start + k + len / 2) * twiddle;
        at(start + k) = even + odd;
        at(start + k + len / 2) = even - odd;
      }
    }
    stage += len / 2;
  }
}

// The 2-D DFT of a real height x width slice cropped or zero-padded to fft_height x fft_width
// (powers of two), keeping the fft_width / 2 + 1 non-redundant columns, row-major into `out`.
// `work` is scratch space of fft_height * fft_width values; the twiddles are
// FftTwiddles(fft_width) and FftTwiddles(fft_height).
inline void Rfft2dSlice(const float* in, int64_t height, int64_t width, int64_t fft_height, int64_t fft_width,
                        std::complex<float>* out, std::vector<std::complex<double>>& work,
                        const std::vector<std::complex<double>>& row_twiddles,
                        const std::vector<std::complex<double>>& column_twiddles) {
  work.assign(static_cast<size_t>(fft_height * fft_width), std::complex<double>(0.0, 0.0));
  const int64_t rows = std::min(height, fft_height), cols = std::min(width, fft_width);
  for (int64_t r = 0; r < rows; ++r) {
    std::complex<double>* row = work.data() + r * fft_width;
    for (int64_t c = 0; c < cols; ++c) row[c] = in[r * width + c];
    Fft(row, fft_width, 1, row_twiddles.data());
  }
  const int64_t out_cols = fft_width / 2 + 1;
  for (int64_t c = 0; c < out_cols; ++c) {
    Fft(work.data() + c, fft_height, fft_width, column_twiddles.data());
    for (int64_t r = 0; r < fft_height; ++r) {
      const std::complex<double> v = work[r * fft_width + c];
      out[r * out_cols + c] = std::complex<float>(static_cast<float>(v.real()), static_cast<float>(v.imag()));
    }
  }
}

}  // namespace edgerun::reference::math
