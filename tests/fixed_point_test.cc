// The fixed-point helpers against values computed by hand, including rounding corner cases.
#include "quant/fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace edgerun::quant {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(FixedPoint, SaturatingRoundingDoublingHighMul) {
  // a * b * 2 / 2^32, rounded to nearest.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);  // 0.5 * 0.5 = 0.25
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);           // the only overflow
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), -kMax);
  // Ties go up: 3 * 2^30 / 2^31 = 1.5 -> 2, but -1.5 -> -1 (the nudge is 1 - 2^30 for
  // negative products and the division truncates toward zero).
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3, 1 << 30), 2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1, 1 << 30), 1);   // 0.5 -> 1
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1, 1 << 30), 0);  // -0.5 -> 0
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-5, 1 << 30), -2);  // -2.5 -> -2
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(0, kMax), 0);
}

TEST(FixedPoint, RoundingDivideByPOT) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);  // -2.5 -> -3 (away from zero)
  EXPECT_EQ(RoundingDivideByPOT(7, 2), 2);    // 1.75 -> 2
  EXPECT_EQ(RoundingDivideByPOT(-7, 2), -2);
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);    // 1.25 -> 1
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(RoundingDivideByPOT(12345, 0), 12345);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
}

TEST(FixedPoint, QuantizeMultiplier) {
  int32_t m;
  int shift;
  ASSERT_TRUE(QuantizeMultiplier(0.5, &m, &shift));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(shift, 0);
  ASSERT_TRUE(QuantizeMultiplier(1.0, &m, &shift));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(shift, 1);
  ASSERT_TRUE(QuantizeMultiplier(0.75, &m, &shift));
  EXPECT_EQ(m, 3 << 29);
  EXPECT_EQ(shift, 0);
  ASSERT_TRUE(QuantizeMultiplier(3.0, &m, &shift));  // 0.75 * 2^2
  EXPECT_EQ(m, 3 << 29);
  EXPECT_EQ(shift, 2);
  // 0.999999999999 rounds up to 2^31 and is renormalised to 2^30 with shift + 1.
  ASSERT_TRUE(QuantizeMultiplier(0.9999999999999, &m, &shift));
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(shift, 1);
  // Too small: every bit would be shifted out.
  ASSERT_TRUE(QuantizeMultiplier(1e-12, &m, &shift));
  EXPECT_EQ(m, 0);
  EXPECT_EQ(shift, 0);
  ASSERT_TRUE(QuantizeMultiplier(0.0, &m, &shift));
  EXPECT_EQ(m, 0);
  EXPECT_FALSE(QuantizeMultiplier(-1.0, &m, &shift));
  EXPECT_FALSE(QuantizeMultiplier(NAN, &m, &shift));
  EXPECT_FALSE(QuantizeMultiplier(INFINITY, &m, &shift));
}

TEST(FixedPoint, MultiplyByQuantizedMultiplier) {
  int32_t m;
  int shift;
  ASSERT_TRUE(QuantizeMultiplier(0.25, &m, &shift));  // m = 2^30, shift = -1
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{100}, m, shift), 25);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{102}, m, shift), 26);    // 25.5 -> 26
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{-102}, m, shift), -26);  // -25.5 -> -26
  // Double rounding: 101 * 0.25 = 25.25, but the high multiply first gives 50.5 -> 51 and the
  // right shift then 25.5 -> 26. TFLite (default build) gives 26 too.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{101}, m, shift), 26);
  ASSERT_TRUE(QuantizeMultiplier(3.0, &m, &shift));
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{7}, m, shift), 21);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{-7}, m, shift), -21);
  // 0.3 = 0.6 * 2^-1: 5 * 0.6 = 3.0000000003 -> 3, then 3 / 2 = 1.5 -> 2 (away from zero).
  ASSERT_TRUE(QuantizeMultiplier(0.3, &m, &shift));
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{5}, m, shift), 2);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int32_t{-5}, m, shift), -2);
}

TEST(FixedPoint, MultiplyByQuantizedMultiplier64) {
  int32_t m;
  int shift;
  ASSERT_TRUE(QuantizeMultiplier(0.25, &m, &shift));
  // reduced multiplier = 2^14, total shift 16: x * 2^14 / 2^16 rounded half up.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int64_t{1} << 20, m, shift), 1 << 18);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int64_t{6}, m, shift), 2);    // 1.5 -> 2
  EXPECT_EQ(MultiplyByQuantizedMultiplier(int64_t{-6}, m, shift), -1);  // -1.5 -> -1 (rounds up)
}

TEST(FixedPoint, MultiplyByQuantizedMultiplier64WrapsInsteadOfOverflowing) {
  // fuzz_invoke: an int16 CONV_2D with a crafted int64 bias made x * multiplier overflow int64
  // (undefined). The product now wraps as two's-complement hardware does; computed here in 128 bits.
  auto expected = [](int64_t x, int32_t m, int shift) {
    const int32_t reduced = m < 0x7FFF0000 ? ((m + (1 << 15)) >> 16) : 0x7FFF;
    const int total_shift = 15 - shift;
    const auto wrapped = static_cast<uint64_t>(static_cast<__int128>(x) * reduced + (__int128{1} << (total_shift - 1)));
    return static_cast<int32_t>(static_cast<int64_t>(wrapped) >> total_shift);
  };
  for (double scale : {0.25, 0.0003, 0.9, 3.0}) {
    int32_t m;
    int shift;
    ASSERT_TRUE(QuantizeMultiplier(scale, &m, &shift));
    for (int64_t x : {int64_t{1407374883560043}, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                      int64_t{-123456789012345}, int64_t{77}}) {
      EXPECT_EQ(MultiplyByQuantizedMultiplier(x, m, shift), expected(x, m, shift)) << scale << " " << x;
    }
  }
}

TEST(FixedPoint, SaturateCast) {
  EXPECT_EQ(SaturateCast<int8_t>(200), 127);
  EXPECT_EQ(SaturateCast<int8_t>(-200), -128);
  EXPECT_EQ(SaturateCast<uint8_t>(-1), 0);
  EXPECT_EQ(SaturateCast<int16_t>(40000), 32767);
}

}  // namespace
}  // namespace edgerun::quant
