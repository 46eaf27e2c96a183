// Run-time quantization of hybrid kernels' float inputs (quant/hybrid.h): the inlined rounding
// against std::round, and the row quantizers against their definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "quant/hybrid.h"

namespace edgerun::quant {
namespace {

int32_t WithLibraryRound(float v) { return FloatToInt32(std::round(v)); }

TEST(HybridQuantize, RoundToInt32IsStdRound) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f, -0.49999997f, 0.50000006f,
                  126.5f, -127.5f, 8388607.5f, -8388607.5f, 16777217.0f, 2147483520.0f, -2147483648.0f,
                  2147483648.0f, -2147483904.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::min()}) {
    EXPECT_EQ(RoundToInt32(v), WithLibraryRound(v)) << v;
  }
  // Every float with a magnitude in [2^-3, 2^9), where the quantizers' products lie, and random
  // bit patterns elsewhere.
  for (uint32_t bits = 0x3E000000u; bits < 0x44000000u; bits += 7) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      float v;
      const uint32_t b = bits | sign;
      std::memcpy(&v, &b, sizeof(v));
      ASSERT_EQ(RoundToInt32(v), WithLibraryRound(v)) << v;
    }
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t b = static_cast<uint32_t>(rng());
    float v;
    std::memcpy(&v, &b, sizeof(v));
    ASSERT_EQ(RoundToInt32(v), WithLibraryRound(v)) << v;
  }
}

TEST(HybridQuantize, RowsQuantizeAsDefined) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> value(-3.0f, 2.0f);
  std::vector<float> row(300);
  for (float& v : row) v = value(rng);
  row[17] = 2.5f;  // exactly representable halves after scaling are rare; ties come from the formula
  std::vector<int8_t> q(row.size());
  float scale = 0;
  SymmetricQuantizeFloats(row.data(), static_cast<int64_t>(row.size()), q.data(), &scale);
  float range = 0;
  for (float v : row) range = std::max(range, std::fabs(v));
  ASSERT_EQ(scale, range / 127);
  for (size_t i = 0; i < row.size(); ++i) {
    const int32_t want = std::clamp(WithLibraryRound(row[i] * (127 / range)), -127, 127);
    ASSERT_EQ(q[i], want) << i;
  }
  int32_t zero_point = 0;
  AsymmetricQuantizeFloats(row.data(), static_cast<int64_t>(row.size()), q.data(), &scale, &zero_point);
  for (size_t i = 0; i < row.size(); ++i) {
    const int32_t want =
        std::clamp(WithLibraryRound(static_cast<float>(zero_point) + row[i] * (1.0f / scale)), -128, 127);
    ASSERT_EQ(q[i], want) << i;
  }
}

}  // namespace
}  // namespace edgerun::quant
