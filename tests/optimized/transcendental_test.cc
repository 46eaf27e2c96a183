// The vector exp / tanh / logistic kernels (IsaKernels::exp_f32, tanh_f32, logistic_f32) against
// the exact values (libm in double, rounded to float) on every 4099th float bit pattern (both
// signs, subnormals to inf), dense steps over the ranges where the formulas change, the special
// values, and every tail length. Worst measured: exp 1 ulp, tanh 1, logistic 2; bounds 1, 2, 2.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/optimized/cpu.h"
#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {
namespace {

// Distance in representable floats (0 for equal values, +0 and -0 count as equal).
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    const int64_t bits = std::bit_cast<int32_t>(f);
    return bits < 0 ? -(bits & 0x7fffffff) : bits;
  };
  return std::llabs(ordered(a) - ordered(b));
}

struct Function {
  const char* name;
  UnaryF32Fn IsaKernels::*kernel;
  double (*exact)(double);
  int64_t max_ulps;
};

const Function kFunctions[] = {
    {"exp", &IsaKernels::exp_f32, [](double x) { return std::exp(x); }, 1},
    {"tanh", &IsaKernels::tanh_f32, [](double x) { return std::tanh(x); }, 2},
    {"logistic", &IsaKernels::logistic_f32, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 2},
};

std::vector<float> TestInputs() {
  std::vector<float> v;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(f)) v.push_back(f);
  }
  // Where the formulas switch or saturate: tanh's 0.625 and ~9, exp's overflow (88.7), its
  // subnormal range (-87.3 .. -103.9) and its clamps (-110, 89), small arguments.
  for (float x = -120.0f; x <= 120.0f; x += 0.00390625f) v.push_back(x);
  for (float x = 0.6f; x <= 0.65f; x = std::nextafter(x, 1.0f)) v.push_back(x), v.push_back(-x);
  for (float x = 1e-6f; x <= 1e-2f; x *= 1.001f) v.push_back(x), v.push_back(-x);
  return v;
}

TEST(Transcendental, VectorKernelsWithinTheirUlpBounds) {
  const std::vector<float> inputs = TestInputs();
  std::vector<float> got(inputs.size());
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const Isa isa = static_cast<Isa>(i);
    const IsaKernels& kernels = KernelsFor(isa);
    for (const Function& f : kFunctions) {
      const UnaryF32Fn kernel = kernels.*f.kernel;
      if (kernel == nullptr) continue;  // libm per element on this ISA
      SCOPED_TRACE(std::string(IsaName(isa)) + " " + f.name);
      kernel(inputs.data(), static_cast<int64_t>(inputs.size()), got.data());
      int64_t worst = 0;
      float worst_at = 0;
      for (size_t j = 0; j < inputs.size(); ++j) {
        const float want = static_cast<float>(f.exact(inputs[j]));
        const int64_t d = UlpDistance(got[j], want);
        if (d > worst) worst = d, worst_at = inputs[j];
      }
      EXPECT_LE(worst, f.max_ulps) << "worst at x = " << worst_at;
    }
  }
}

TEST(Transcendental, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min(), big = std::numeric_limits<float>::max();
  const std::vector<float> in = {0.0f, -0.0f, inf, -inf, nan, -nan, tiny, -tiny, big, -big};
  std::vector<float> out(in.size());
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const IsaKernels& kernels = KernelsFor(static_cast<Isa>(i));
    SCOPED_TRACE(IsaName(static_cast<Isa>(i)));
    if (kernels.tanh_f32 != nullptr) {
      kernels.tanh_f32(in.data(), static_cast<int64_t>(in.size()), out.data());
      EXPECT_EQ(std::bit_cast<uint32_t>(out[0]), 0u);           // tanh(+0) = +0
      EXPECT_EQ(std::bit_cast<uint32_t>(out[1]), 0x80000000u);  // tanh(-0) = -0
      EXPECT_EQ(out[2], 1.0f);
      EXPECT_EQ(out[3], -1.0f);
      EXPECT_TRUE(std::isnan(out[4]) && std::isnan(out[5]));
      EXPECT_EQ(out[6], tiny);
      EXPECT_EQ(out[7], -tiny);
      EXPECT_EQ(out[8], 1.0f);
      EXPECT_EQ(out[9], -1.0f);
    }
    if (kernels.exp_f32 != nullptr) {
      kernels.exp_f32(in.data(), static_cast<int64_t>(in.size()), out.data());
      EXPECT_EQ(out[0], 1.0f);
      EXPECT_EQ(out[1], 1.0f);
      EXPECT_EQ(out[2], inf);
      EXPECT_EQ(std::bit_cast<uint32_t>(out[3]), 0u);  // exp(-inf) = +0
      EXPECT_TRUE(std::isnan(out[4]) && std::isnan(out[5]));
      EXPECT_EQ(out[6], 1.0f);
      EXPECT_EQ(out[8], inf);
      EXPECT_EQ(out[9], 0.0f);
    }
    if (kernels.logistic_f32 != nullptr) {
      kernels.logistic_f32(in.data(), static_cast<int64_t>(in.size()), out.data());
      EXPECT_EQ(out[0], 0.5f);
      EXPECT_EQ(out[1], 0.5f);
      EXPECT_EQ(out[2], 1.0f);
      EXPECT_EQ(out[3], 0.0f);
      EXPECT_TRUE(std::isnan(out[4]) && std::isnan(out[5]));
      EXPECT_EQ(out[8], 1.0f);
      EXPECT_EQ(out[9], 0.0f);
    }
  }
}

// Lengths 1 .. 40 (tails of every size on 8 and 16 lanes): each output written once, nothing
// past the end.
TEST(Transcendental, TailsWriteOnlyTheirLength) {
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const IsaKernels& kernels = KernelsFor(static_cast<Isa>(i));
    SCOPED_TRACE(IsaName(static_cast<Isa>(i)));
    for (const Function& f : kFunctions) {
      const UnaryF32Fn kernel = kernels.*f.kernel;
      if (kernel == nullptr) continue;
      for (int n = 1; n <= 40; ++n) {
        std::vector<float> in(n), out(n + 16, 12345.0f);
        for (int j = 0; j < n; ++j) in[j] = 0.37f * static_cast<float>(j) - 5.0f;
        kernel(in.data(), n, out.data());
        for (int j = 0; j < n; ++j) {
          EXPECT_LE(UlpDistance(out[j], static_cast<float>(f.exact(in[j]))), f.max_ulps) << f.name << " n " << n;
        }
        for (int j = n; j < n + 16; ++j) ASSERT_EQ(out[j], 12345.0f) << f.name << " wrote past " << n;
      }
    }
  }
}

}  // namespace
}  // namespace edgerun::optimized
