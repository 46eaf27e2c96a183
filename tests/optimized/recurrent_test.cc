// The recurrent products (LSTM, RNN, SVDF) against their reference twins in
// kernels/reference/recurrent_util.h on random shapes, odd sizes and tails included.
#include "kernels/optimized/recurrent.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/recurrent_util.h"
#include "quant/gemmlowp_fixed_point.h"
#include "quant/hybrid.h"
#include "quant/lstm_quant.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::ForEachIsaAndThreads;
using testing::Random;

TEST(OptimizedRecurrent, MatVecAccumulateMatchesReference) {
  Random r(31);
  ForEachIsaAndThreads([&](Isa, ThreadPool*) {
    for (int iter = 0; iter < 20; ++iter) {
      const int rows = r.Int(1, 37), cols = r.Int(1, 70), batch = r.Int(1, 3), stride = rows + r.Int(0, 5);
      const std::vector<float> matrix = r.Floats(static_cast<size_t>(rows) * cols);
      const std::vector<float> vectors = r.Floats(static_cast<size_t>(batch) * cols);
      std::vector<float> want = r.Floats(static_cast<size_t>(batch) * stride), got = want;
      reference::MatVecAccumulate(matrix.data(), rows, cols, vectors.data(), batch, want.data(), stride);
      MatVecAccumulate(matrix.data(), rows, cols, vectors.data(), batch, got.data(), stride);
      testing::ExpectNear(got, want, static_cast<float>(cols));
    }
  });
}

TEST(OptimizedRecurrent, GateActivationsNearTheReference) {
  // tanh and the sigmoid of the float recurrent gates on the vector kernels: within a few ulp of
  // the reference's libm values, in place as well, every length to 70 (tails), large inputs
  // (saturation) included; the other activations are the reference's exactly.
  Random r(11);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    if (pool->num_threads() != 1) return;
    for (auto act : {reference::VectorActivation::kTanh, reference::VectorActivation::kSigmoid,
                     reference::VectorActivation::kRelu6, reference::VectorActivation::kSignBit}) {
      for (int n = 0; n <= 70; ++n) {
        std::vector<float> x = r.Floats(static_cast<size_t>(n), -12.0f, 12.0f);
        if (n > 3) x[3] = 90.0f;
        if (n > 4) x[4] = -90.0f;
        std::vector<float> want(x.size()), got(x.size()), in_place = x;
        reference::ApplyActivation(x.data(), n, act, want.data());
        ApplyActivationF32(x.data(), n, act, got.data());
        ApplyActivationF32(in_place.data(), n, act, in_place.data());
        const bool exact = act != reference::VectorActivation::kTanh && act != reference::VectorActivation::kSigmoid;
        for (int i = 0; i < n; ++i) {
          SCOPED_TRACE(::testing::Message() << "n " << n << " x " << x[i]);
          ASSERT_EQ(in_place[i], got[i]);
          if (exact) {
            ASSERT_EQ(got[i], want[i]);
          } else {
            ASSERT_NEAR(got[i], want[i], 4 * std::numeric_limits<float>::epsilon() * std::max(1e-30f, std::abs(want[i])) + 1e-37f);
          }
        }
      }
    }
  });
}

TEST(OptimizedRecurrent, HybridMatVecAccumulateBitExact) {
  Random r(32);
  ForEachIsaAndThreads([&](Isa, ThreadPool*) {
    for (int iter = 0; iter < 20; ++iter) {
      const int rows = r.Int(1, 37), cols = r.Int(1, 70), batch = r.Int(1, 3), stride = rows + r.Int(0, 5);
      const bool asymmetric = r.Bool();
      const std::vector<int8_t> matrix = r.Ints<int8_t>(static_cast<size_t>(rows) * cols, -128, 127);
      const std::vector<int8_t> vectors = r.Ints<int8_t>(static_cast<size_t>(batch) * cols, -128, 127);
      const std::vector<float> scales = r.Floats(static_cast<size_t>(batch), 0.001f, 0.1f);
      const std::vector<int32_t> zero_points = r.Ints<int32_t>(static_cast<size_t>(batch), -128, 127);
      std::vector<int32_t> row_sums(static_cast<size_t>(rows), 0);
      for (int i = 0; i < rows; ++i) {
        for (int c = 0; c < cols; ++c) row_sums[i] += matrix[static_cast<size_t>(i) * cols + c];
      }
      std::vector<float> want = r.Floats(static_cast<size_t>(batch) * stride), got = want;
      const int32_t* zp = asymmetric ? zero_points.data() : nullptr;
      reference::HybridMatVecAccumulate(matrix.data(), rows, cols, vectors.data(), scales.data(), zp, row_sums.data(),
                                        batch, want.data(), stride);
      HybridMatVecAccumulate(matrix.data(), rows, cols, vectors.data(), scales.data(), zp, row_sums.data(), batch,
                             got.data(), stride);
      ASSERT_EQ(got, want);
    }
  });
}

TEST(OptimizedRecurrent, DotRowsInt8Exact) {
  Random r(33);
  ForEachIsaAndThreads([&](Isa, ThreadPool*) {
    for (int iter = 0; iter < 20; ++iter) {
      const int rows = r.Int(1, 40), cols = r.Int(1, 130);
      const std::vector<int8_t> matrix = r.Ints<int8_t>(static_cast<size_t>(rows) * cols, -128, 127);
      const std::vector<int8_t> vector = r.Ints<int8_t>(static_cast<size_t>(cols), -128, 127);
      std::vector<int32_t> want(static_cast<size_t>(rows), 0), got(static_cast<size_t>(rows), -1);
      for (int i = 0; i < rows; ++i) {
        for (int c = 0; c < cols; ++c) want[i] += matrix[static_cast<size_t>(i) * cols + c] * vector[c];
      }
      DotRowsInt8(matrix.data(), rows, cols, vector.data(), got.data());
      ASSERT_EQ(got, want);
    }
  });
}

// The 16-bit fixed-point tanh / logistic kernels against quant::fp16 on every int16 input and
// every number of integer bits the scalar functions are defined for (tanh 0..12, logistic
// 0..13), on each ISA's kernel; with 3 integer bits also against the templated gemmlowp port
// (quant::fp) that the int16 TANH / LOGISTIC ops use. Odd lengths exercise the tails.
TEST(OptimizedRecurrent, FixedPointSigmoid16BitExact) {
  using F3 = quant::fp::FixedPoint<int16_t, 3>;
  struct Function {
    const char* name;
    FixedPointSigmoid16Fn IsaKernels::*kernel;
    int max_bits;
    int16_t (*scalar)(int16_t, int);
    int16_t (*gemmlowp3)(int16_t);  // quant::fp with 3 integer bits
  };
  const Function functions[] = {
      {"tanh", &IsaKernels::tanh_q16, 12, quant::fp16::Tanh,
       [](int16_t x) { return quant::fp::Tanh(F3::FromRaw(x)).raw; }},
      {"logistic", &IsaKernels::logistic_q16, 13, quant::fp16::Logistic,
       [](int16_t x) { return quant::fp::Logistic(F3::FromRaw(x)).raw; }},
  };
  std::vector<int16_t> all(65536 + 13);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int16_t>(static_cast<uint16_t>(i * 40503u));
  std::vector<int16_t> got(all.size()), want(all.size());
  const int64_t n = static_cast<int64_t>(all.size());
  for (int isa = 0; isa <= static_cast<int>(DetectedIsa()); ++isa) {
    const IsaKernels& kernels = KernelsFor(static_cast<Isa>(isa));
    if (kernels.tanh_q16 == nullptr) continue;
    SCOPED_TRACE(IsaName(static_cast<Isa>(isa)));
    for (const Function& f : functions) {
      for (int bits = 0; bits <= f.max_bits; ++bits) {
        (kernels.*f.kernel)(all.data(), n, bits, got.data());
        for (size_t i = 0; i < all.size(); ++i) want[i] = f.scalar(all[i], bits);
        ASSERT_EQ(got, want) << f.name << ", integer bits " << bits;
        if (bits == 3) {
          for (size_t i = 0; i < all.size(); ++i) want[i] = f.gemmlowp3(all[i]);
          ASSERT_EQ(got, want) << f.name << " against quant::fp";
        }
      }
    }
    // In place, and a short length: nothing past n written.
    std::vector<int16_t> buffer(all.begin(), all.begin() + 40);
    kernels.tanh_q16(buffer.data(), 37, 3, buffer.data());
    for (int i = 0; i < 37; ++i) ASSERT_EQ(buffer[i], quant::fp16::Tanh(all[i], 3));
    for (int i = 37; i < 40; ++i) ASSERT_EQ(buffer[i], all[i]);
  }
}

// The hybrid input quantizer (IsaKernels::quantize_symmetric_f32) against
// quant::SymmetricQuantizeFloats: random rows of every length to 70, values placed exactly on
// rounding ties (k + 0.5 after scaling, both signs), all-zero rows, inf; NaN rows are refused.
TEST(OptimizedRecurrent, QuantizeSymmetricMatchesScalar) {
  Random r(41);
  for (int isa = 0; isa <= static_cast<int>(DetectedIsa()); ++isa) {
    const IsaKernels& kernels = KernelsFor(static_cast<Isa>(isa));
    if (kernels.quantize_symmetric_f32 == nullptr) continue;
    SCOPED_TRACE(IsaName(static_cast<Isa>(isa)));
    for (int iter = 0; iter < 400; ++iter) {
      const int n = iter % 71;
      std::vector<float> x = r.Floats(static_cast<size_t>(n), -3.0f, 3.0f);
      if (iter % 5 == 1 && n > 1) {
        // max |x| = 127 exactly: the scale is 1 and x = k + 0.5 lands on ties.
        x[0] = 127.0f;
        for (int i = 1; i < n; ++i) x[i] = static_cast<float>(r.Int(-126, 126)) + (r.Bool() ? 0.5f : -0.5f);
      }
      if (iter % 7 == 2) std::fill(x.begin(), x.end(), 0.0f);
      if (iter % 11 == 3 && n > 0) x[n / 2] = -std::numeric_limits<float>::infinity();
      std::vector<int8_t> want(static_cast<size_t>(n)), got(static_cast<size_t>(n) + 8, 77);
      float want_scale = 0, got_scale = 0;
      quant::SymmetricQuantizeFloats(x.data(), n, want.data(), &want_scale);
      ASSERT_TRUE(kernels.quantize_symmetric_f32(x.data(), n, got.data(), &got_scale));
      EXPECT_EQ(std::memcmp(&got_scale, &want_scale, sizeof(float)), 0) << "n " << n;
      for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "n " << n << " at " << i << " x " << x[i];
      for (int i = n; i < n + 8; ++i) ASSERT_EQ(got[i], 77) << "wrote past " << n;
    }
    std::vector<float> with_nan = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
    std::vector<int8_t> q(3);
    float scale = 0;
    EXPECT_FALSE(kernels.quantize_symmetric_f32(with_nan.data(), 3, q.data(), &scale));
  }
}

}  // namespace
}  // namespace edgerun::optimized
