// Optimized RFFT2D (one real FFT per row) against the reference 2-D transform with fft_height 1:
// random row counts, widths cropped and zero-padded, every power of two from 1 to 1024, for 1 and
// 3 threads. Both work in double precision, so they agree to float rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/optimized/rfft.h"
#include "kernels/reference/fft.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::Random;

void Check(Random& r, ThreadPool* pool, int64_t rows, int64_t width, int64_t n) {
  const std::vector<float> input = r.Floats(static_cast<size_t>(rows * width), -4.0f, 4.0f);
  const int64_t out_cols = n / 2 + 1;
  std::vector<std::complex<float>> want(static_cast<size_t>(rows * out_cols)), got(want.size());
  std::vector<std::complex<double>> work;
  const auto row_twiddles = reference::math::FftTwiddles(n), column_twiddles = reference::math::FftTwiddles(1);
  for (int64_t row = 0; row < rows; ++row) {
    reference::math::Rfft2dSlice(input.data() + row * width, 1, width, 1, n, want.data() + row * out_cols, work,
                                 row_twiddles, column_twiddles);
  }
  RealFftRows(pool, input.data(), rows, width, n, got.data());
  // Sums of up to 1024 values of magnitude 4: a few ulps of float at that scale.
  const float tolerance = 1e-6f * 4.0f * static_cast<float>(std::max<int64_t>(width, 1)) + 1e-6f;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i].real(), want[i].real(), tolerance) << "rows " << rows << " width " << width << " n " << n
                                                          << " at " << i;
    ASSERT_NEAR(got[i].imag(), want[i].imag(), tolerance) << "rows " << rows << " width " << width << " n " << n
                                                          << " at " << i;
  }
}

TEST(OptimizedRfft, MatchesReference) {
  Random r(17);
  ThreadPool one(1), three(3);
  for (ThreadPool* pool : {&one, &three}) {
    SCOPED_TRACE(pool->num_threads());
    for (int64_t n = 1; n <= 1024; n *= 2) {
      for (int i = 0; i < 4; ++i) {
        const int64_t rows = r.Int(1, 40);
        const int64_t width = r.Int(0, 2) == 0 ? n : r.Int(1, static_cast<int>(2 * n));  // exact, cropped or padded
        Check(r, pool, rows, width, n);
      }
    }
    Check(r, pool, 96, 400, 512);  // YAMNet's spectrogram frames
  }
}

}  // namespace
}  // namespace edgerun::optimized
