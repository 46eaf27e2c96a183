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

// In-place forward DFT (X[k] = sum x[j] e^{-2 pi i jk / n}) of n values spaced `stride` apart;
// n is a power of two.
inline void Fft(std::complex<double>* data, int64_t n, int64_t stride = 1) {
  auto at = [&](int64_t i) -> std::complex<double>& { return data[i * stride]; };
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(at(i), at(j));
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const double angle = -2.0 * M_PI / static_cast<double>(len);
    for (int64_t k = 0; k < len / 2; ++k) {
      const std::complex<double> twiddle(std::cos(angle * k), std::sin(angle * k));
      for (int64_t start = 0; start < n; start += len) {
        const std::complex<double> even = at(start + k);
        const std::complex<double> odd = at(start + k + len / 2) * twiddle;
        at(start + k) = even + odd;
        at(start + k + len / 2) = even - odd;
      }
    }
  }
}

// The 2-D DFT of a real height x width slice cropped or zero-padded to fft_height x fft_width
// (powers of two), keeping the fft_width / 2 + 1 non-redundant columns, row-major into `out`.
// `work` is scratch space of fft_height * fft_width values.
inline void Rfft2dSlice(const float* in, int64_t height, int64_t width, int64_t fft_height, int64_t fft_width,
                        std::complex<float>* out, std::vector<std::complex<double>>& work) {
  work.assign(static_cast<size_t>(fft_height * fft_width), std::complex<double>(0.0, 0.0));
  const int64_t rows = std::min(height, fft_height), cols = std::min(width, fft_width);
  for (int64_t r = 0; r < rows; ++r) {
    std::complex<double>* row = work.data() + r * fft_width;
    for (int64_t c = 0; c < cols; ++c) row[c] = in[r * width + c];
    Fft(row, fft_width);
  }
  const int64_t out_cols = fft_width / 2 + 1;
  for (int64_t c = 0; c < out_cols; ++c) {
    Fft(work.data() + c, fft_height, fft_width);
    for (int64_t r = 0; r < fft_height; ++r) {
      const std::complex<double> v = work[r * fft_width + c];
      out[r * out_cols + c] = std::complex<float>(static_cast<float>(v.real()), static_cast<float>(v.imag()));
    }
  }
}

}  // namespace edgerun::reference::math
