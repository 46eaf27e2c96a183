// Element-wise math: unary float ops, ABS / NEG / SIGN on integers, quantized RSQRT / LOG / EXP,
// MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, POW, ATAN2, FLOOR_DIV, FLOOR_MOD, ADD_N, CUMSUM,
// BUCKETIZE, BITWISE_XOR, RIGHT_SHIFT and the random ops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/reference/elementwise.h"
#include "kernels/reference/random.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

QuantizationParams Quant(float scale, int64_t zero_point) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

// Runs a one-input op on `values` (shape [n]) of type T.
template <class T>
std::vector<T> RunUnary(tflite::BuiltinOperator code, TensorType type, const std::vector<T>& values,
                        QuantizationParams in_q = {}, QuantizationParams out_q = {}) {
  SingleOp op(code);
  op.Input(type, {static_cast<int32_t>(values.size())}, in_q);
  op.Output(type, {}, out_q);
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, values);
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<T>(*interpreter, 0);
}

// Runs a two-input broadcasting op with inputs of type In and output of type Out.
template <class In, class Out = In>
Result<std::vector<Out>> RunBinary(tflite::BuiltinOperator code, TensorType in_type, TensorType out_type, Shape sa,
                                   const std::vector<In>& a, Shape sb, const std::vector<In>& b,
                                   Shape* out_shape = nullptr, QuantizationParams qa = {}, QuantizationParams qb = {},
                                   QuantizationParams qo = {}) {
  SingleOp op(code);
  op.Input(in_type, sa, qa);
  op.Input(in_type, sb, qb);
  op.Output(out_type, {}, qo);
  auto interpreter = op.Build();
  if (!interpreter) return Status::Error("build failed");
  SetInput(*interpreter, 0, a);
  SetInput(*interpreter, 1, b);
  Status st = interpreter->Invoke();
  if (!st.ok()) return st;
  if (out_shape) *out_shape = interpreter->output(0)->shape;
  return GetOutput<Out>(*interpreter, 0);
}

template <class T>
std::vector<T> MustRunBinary(tflite::BuiltinOperator code, TensorType type, Shape sa, const std::vector<T>& a, Shape sb,
                             const std::vector<T>& b, Shape* out_shape = nullptr) {
  auto r = RunBinary<T, T>(code, type, type, sa, a, sb, b, out_shape);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::vector<T>();
}

// ---- unary float math against <cmath> (the definition of each op)

TEST(UnaryMath, FloatOpsMatchTheirDefinition) {
  const std::vector<float> values = {-3.7f, -1.0f, -0.5f, -0.0f, 0.0f, 0.25f, 0.5f, 1.0f, 2.5f, 10.0f, 1e-8f};
  struct Case {
    tflite::BuiltinOperator op;
    double (*fn)(double);
  };
  const Case cases[] = {
      {tflite::BuiltinOperator_SIN, [](double x) { return std::sin(x); }},
      {tflite::BuiltinOperator_COS, [](double x) { return std::cos(x); }},
      {tflite::BuiltinOperator_EXP, [](double x) { return std::exp(x); }},
      {tflite::BuiltinOperator_SQUARE, [](double x) { return x * x; }},
      {tflite::BuiltinOperator_FLOOR, [](double x) { return std::floor(x); }},
      {tflite::BuiltinOperator_CEIL, [](double x) { return std::ceil(x); }},
      {tflite::BuiltinOperator_ABS, [](double x) { return std::fabs(x); }},
      {tflite::BuiltinOperator_NEG, [](double x) { return -x; }},
      {tflite::BuiltinOperator_SIGN, [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }},
  };
  for (const Case& c : cases) {
    const auto got = RunUnary<float>(c.op, TensorType::kFloat32, values);
    ASSERT_EQ(got.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double want = c.fn(values[i]);
      EXPECT_NEAR(got[i], want, 1e-6 * std::max(1.0, std::fabs(want)))
          << tflite::EnumNameBuiltinOperator(c.op) << "(" << values[i] << ")";
    }
  }
}

TEST(UnaryMath, SqrtRsqrtLogOnTheirDomainAndOutsideIt) {
  const std::vector<float> values = {0.0f, 0.25f, 1.0f, 2.0f, 100.0f, -1.0f};
  const auto sqrt = RunUnary<float>(tflite::BuiltinOperator_SQRT, TensorType::kFloat32, values);
  const auto rsqrt = RunUnary<float>(tflite::BuiltinOperator_RSQRT, TensorType::kFloat32, values);
  const auto log = RunUnary<float>(tflite::BuiltinOperator_LOG, TensorType::kFloat32, values);
  for (size_t i = 1; i + 1 < values.size(); ++i) {
    EXPECT_NEAR(sqrt[i], std::sqrt(static_cast<double>(values[i])), 1e-6 * std::sqrt(values[i]));
    EXPECT_NEAR(rsqrt[i], 1.0 / std::sqrt(static_cast<double>(values[i])), 1e-6 / std::sqrt(values[i]));
    EXPECT_NEAR(log[i], std::log(static_cast<double>(values[i])), 1e-6);
  }
  EXPECT_EQ(sqrt[0], 0.0f);
  EXPECT_EQ(rsqrt[0], kInf);
  EXPECT_EQ(log[0], -kInf);
  EXPECT_TRUE(std::isnan(sqrt.back()) && std::isnan(rsqrt.back()) && std::isnan(log.back()));
}

TEST(UnaryMath, RoundHalfToEven) {
  const auto got = RunUnary<float>(tflite::BuiltinOperator_ROUND, TensorType::kFloat32,
                                   {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f, 7.0f, 1e20f});
  EXPECT_EQ(got, (std::vector<float>{0, 2, 2, 0, -2, -2, 2, 3, -3, 7, 1e20f}));
}

TEST(UnaryMath, EmptyAndHigherRankShapes) {
  for (Shape shape : {Shape{0}, Shape{2, 0, 3}, Shape{}, Shape{2, 1, 3}}) {
    SingleOp op(tflite::BuiltinOperator_SIN);
    op.Input(TensorType::kFloat32, shape);
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    std::vector<float> in(NumElements(shape), 1.0f);
    SetInput(*interpreter, 0, in);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, shape);
    for (float v : GetOutput<float>(*interpreter, 0)) EXPECT_FLOAT_EQ(v, std::sin(1.0f));
  }
}

TEST(UnaryMath, FloatOnlyOpsRejectIntegers) {
  for (auto code : {tflite::BuiltinOperator_SIN, tflite::BuiltinOperator_SQRT, tflite::BuiltinOperator_ROUND,
                    tflite::BuiltinOperator_FLOOR}) {
    SingleOp op(code);
    op.Input(TensorType::kInt32, {2});
    op.Output(TensorType::kInt32);
    const Status st = op.TryBuild();
    EXPECT_TRUE(st.unsupported()) << st.message();
  }
  SingleOp mismatch(tflite::BuiltinOperator_COS);
  mismatch.Input(TensorType::kFloat32, {2});
  mismatch.Output(TensorType::kInt32);
  EXPECT_FALSE(mismatch.TryBuild().ok());
}

// ---- integer ABS / NEG / SIGN

TEST(UnaryMath, IntegerAbsNegSign) {
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(RunUnary<int32_t>(tflite::BuiltinOperator_ABS, TensorType::kInt32, {-5, 0, 7, kMin32}),
            (std::vector<int32_t>{5, 0, 7, kMin32}));  // |INT_MIN| wraps to itself
  EXPECT_EQ(RunUnary<int16_t>(tflite::BuiltinOperator_ABS, TensorType::kInt16, {-300, 4, -32768}),
            (std::vector<int16_t>{300, 4, -32768}));
  EXPECT_EQ(RunUnary<int32_t>(tflite::BuiltinOperator_NEG, TensorType::kInt32, {-5, 0, 7, kMin32}),
            (std::vector<int32_t>{5, 0, -7, kMin32}));
  EXPECT_EQ(RunUnary<int64_t>(tflite::BuiltinOperator_NEG, TensorType::kInt64, {int64_t{1} << 40, -3}),
            (std::vector<int64_t>{-(int64_t{1} << 40), 3}));
  EXPECT_EQ(RunUnary<int32_t>(tflite::BuiltinOperator_SIGN, TensorType::kInt32, {-9, 0, 4}),
            (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(RunUnary<double>(tflite::BuiltinOperator_SIGN, TensorType::kFloat64, {-0.1, 0.0, 1e300}),
            (std::vector<double>{-1, 0, 1}));
  const auto nan_sign = RunUnary<float>(tflite::BuiltinOperator_SIGN, TensorType::kFloat32, {kNaN});
  EXPECT_EQ(nan_sign, (std::vector<float>{0.0f}));
}

TEST(UnaryMath, QuantizedAbsRescales) {
  // Input real = 0.5 * (q - 10); output real = 0.25 * (q - (-20)), so |x| in output units is
  // 2 * |q - 10| - 20, saturated to int8.
  const auto got = RunUnary<int8_t>(tflite::BuiltinOperator_ABS, TensorType::kInt8, {10, 0, 20, -128, 127},
                                    Quant(0.5f, 10), Quant(0.25f, -20));
  EXPECT_EQ(got, (std::vector<int8_t>{-20, 0, 0, 127, 127}));
  // Same scales: only the zero points move.
  const auto same =
      RunUnary<int8_t>(tflite::BuiltinOperator_ABS, TensorType::kInt8, {-3, 5, 1}, Quant(0.1f, 1), Quant(0.1f, -2));
  EXPECT_EQ(same, (std::vector<int8_t>{2, 2, -2}));
}

// ---- quantized RSQRT / LOG / EXP: within one step of the real function

TEST(UnaryMath, QuantizedRsqrtInt8) {
  const float in_scale = 0.0078125f, out_scale = 0.0625f;
  const int in_zp = -128, out_zp = -100;
  std::vector<int8_t> in;
  for (int q = -128; q <= 127; ++q) in.push_back(static_cast<int8_t>(q));
  const auto got = RunUnary<int8_t>(tflite::BuiltinOperator_RSQRT, TensorType::kInt8, in, Quant(in_scale, in_zp),
                                    Quant(out_scale, out_zp));
  ASSERT_EQ(got.size(), in.size());
  EXPECT_EQ(got[0], 127);  // a real 0 gives the largest value
  for (size_t i = 1; i < in.size(); ++i) {
    const double x = in_scale * (in[i] - in_zp);
    const double want = std::clamp(std::round(1.0 / std::sqrt(x) / out_scale) + out_zp, -128.0, 127.0);
    EXPECT_NEAR(got[i], want, 1.0) << "q=" << int(in[i]);
  }
}

TEST(UnaryMath, QuantizedRsqrtRejectsNegativeInputsAtRunTime) {
  SingleOp op(tflite::BuiltinOperator_RSQRT);
  op.Input(TensorType::kInt8, {2}, Quant(0.1f, 0));
  op.Output(TensorType::kInt8, {}, Quant(0.1f, 0));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {4, -1});
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("non-negative"), std::string::npos) << st.message();
}

TEST(UnaryMath, QuantizedRsqrtInt16) {
  const float in_scale = 1.0f / 4096, out_scale = 1.0f / 1024;
  std::vector<int16_t> in;
  for (int q = 0; q <= 32767; q += 97) in.push_back(static_cast<int16_t>(q));
  const auto got =
      RunUnary<int16_t>(tflite::BuiltinOperator_RSQRT, TensorType::kInt16, in, Quant(in_scale, 0), Quant(out_scale, 0));
  ASSERT_EQ(got.size(), in.size());
  // A real 0 samples as the largest value, but the segment's interpolation bias lowers it.
  EXPECT_GT(got[0], 20000);
  for (size_t i = 1; i < in.size(); ++i) {
    EXPECT_LE(got[i], got[i - 1]) << "q=" << in[i];  // decreasing everywhere
    // The table interpolates linearly between 512 samples: close to the curve where it is not
    // steep (within 1.5 units for x >= 0.5 by the interpolation error bound h^2/8 * f'').
    if (in[i] < 2048) continue;
    const double want = std::round(1.0 / std::sqrt(in_scale * in[i]) / out_scale);
    EXPECT_NEAR(got[i], want, 2.0) << "q=" << in[i];
  }
}

TEST(UnaryMath, QuantizedLogAndExpInt8FollowTheRealFunction) {
  std::vector<int8_t> in;
  for (int q = -128; q <= 127; ++q) in.push_back(static_cast<int8_t>(q));
  const float in_scale = 0.05f, log_scale = 0.03f, exp_scale = 0.2f;
  const auto log =
      RunUnary<int8_t>(tflite::BuiltinOperator_LOG, TensorType::kInt8, in, Quant(in_scale, -128), Quant(log_scale, 50));
  const auto exp =
      RunUnary<int8_t>(tflite::BuiltinOperator_EXP, TensorType::kInt8, in, Quant(in_scale, 0), Quant(exp_scale, -128));
  for (size_t i = 0; i < in.size(); ++i) {
    const double x_log = in_scale * (in[i] + 128);
    const double want_log = x_log <= 0 ? -128 : std::clamp(std::round(std::log(x_log) / log_scale) + 50, -128.0, 127.0);
    EXPECT_NEAR(log[i], want_log, 1.0) << "q=" << int(in[i]);
    const double x_exp = in_scale * in[i];
    const double want_exp = std::clamp(std::round(std::exp(x_exp) / exp_scale) - 128, -128.0, 127.0);
    EXPECT_NEAR(exp[i], want_exp, 1.0) << "q=" << int(in[i]);
  }
}

TEST(UnaryMath, QuantizedExpInt16) {
  std::vector<int16_t> in;
  for (int q = -32768; q <= 32767; q += 1001) in.push_back(static_cast<int16_t>(q));
  const float in_scale = 2.0f / 32768, out_scale = 8.0f / 32768;  // inputs in [-2, 2)
  const auto got =
      RunUnary<int16_t>(tflite::BuiltinOperator_EXP, TensorType::kInt16, in, Quant(in_scale, 0), Quant(out_scale, 0));
  for (size_t i = 0; i < in.size(); ++i) {
    const double want = std::round(std::exp(in_scale * in[i]) / out_scale);
    EXPECT_NEAR(got[i], want, 2.0) << "q=" << in[i];
  }
}

TEST(UnaryMath, QuantizedOpsNeedQuantizationParameters) {
  SingleOp op(tflite::BuiltinOperator_LOG);
  op.Input(TensorType::kInt8, {2});
  op.Output(TensorType::kInt8);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(UnaryMath, InverseSqrtMultiplierIsAccurate) {
  for (int32_t x : {2, 3, 4, 17, 255, 1000, 65535, 1 << 20, (1 << 29) + 5, std::numeric_limits<int32_t>::max()}) {
    int32_t multiplier;
    int shift;
    reference::math::InvSqrtQuantizedMultiplierExp(x, &multiplier, &shift);
    const double value = multiplier * std::ldexp(1.0, shift - 31);
    // Five Newton steps in fixed point with 3 integer bits: a few parts per million.
    EXPECT_NEAR(value, 1.0 / std::sqrt(static_cast<double>(x)), 3e-6 / std::sqrt(static_cast<double>(x))) << x;
  }
}

// ---- MAXIMUM / MINIMUM

TEST(MaximumMinimum, BroadcastingEveryType) {
  Shape shape;
  EXPECT_EQ(MustRunBinary<float>(tflite::BuiltinOperator_MAXIMUM, TensorType::kFloat32, {2, 2}, {1, -2, 3, -4}, {2},
                                 {0, 0}, &shape),
            (std::vector<float>{1, 0, 3, 0}));
  EXPECT_EQ(shape, (Shape{2, 2}));
  EXPECT_EQ(
      MustRunBinary<float>(tflite::BuiltinOperator_MINIMUM, TensorType::kFloat32, {}, {0.5f}, {3}, {1, 0, -1}, &shape),
      (std::vector<float>{0.5f, 0, -1}));
  EXPECT_EQ(shape, (Shape{3}));
  EXPECT_EQ(MustRunBinary<int8_t>(tflite::BuiltinOperator_MAXIMUM, TensorType::kInt8, {3}, {-128, 5, 127}, {1}, {0}),
            (std::vector<int8_t>{0, 5, 127}));
  EXPECT_EQ(MustRunBinary<uint8_t>(tflite::BuiltinOperator_MINIMUM, TensorType::kUInt8, {2}, {200, 3}, {2}, {100, 4}),
            (std::vector<uint8_t>{100, 3}));
  EXPECT_EQ(
      MustRunBinary<int16_t>(tflite::BuiltinOperator_MAXIMUM, TensorType::kInt16, {2, 1}, {-7, 9}, {1, 2}, {-8, 10}),
      (std::vector<int16_t>{-7, 10, 9, 10}));
  EXPECT_EQ(
      MustRunBinary<int32_t>(tflite::BuiltinOperator_MINIMUM, TensorType::kInt32, {2}, {1 << 30, -5}, {2}, {3, -6}),
      (std::vector<int32_t>{3, -6}));
  EXPECT_EQ(MustRunBinary<int64_t>(tflite::BuiltinOperator_MAXIMUM, TensorType::kInt64, {1}, {int64_t{1} << 40}, {2},
                                   {0, int64_t{1} << 41}),
            (std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 41}));
}

TEST(MaximumMinimum, NaNFollowsTheComparison) {
  // TFLite computes a > b ? a : b: a NaN in b is returned, a NaN in a is not.
  const auto got =
      MustRunBinary<float>(tflite::BuiltinOperator_MAXIMUM, TensorType::kFloat32, {2}, {kNaN, 1.0f}, {2}, {1.0f, kNaN});
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_TRUE(std::isnan(got[1]));
}

TEST(MaximumMinimum, BadShapesAndTypes) {
  SingleOp shapes(tflite::BuiltinOperator_MAXIMUM);
  shapes.Input(TensorType::kFloat32, {2, 3});
  shapes.Input(TensorType::kFloat32, {2});
  shapes.Output(TensorType::kFloat32);
  EXPECT_FALSE(shapes.TryBuild().ok());
  SingleOp types(tflite::BuiltinOperator_MINIMUM);
  types.Input(TensorType::kFloat32, {2});
  types.Input(TensorType::kInt32, {2});
  types.Output(TensorType::kFloat32);
  EXPECT_FALSE(types.TryBuild().ok());
}

// ---- SQUARED_DIFFERENCE, POW, ATAN2

TEST(BinaryMath, SquaredDifference) {
  EXPECT_EQ(MustRunBinary<float>(tflite::BuiltinOperator_SQUARED_DIFFERENCE, TensorType::kFloat32, {2, 2}, {1, 2, 3, 4},
                                 {2}, {1, -1}),
            (std::vector<float>{0, 9, 4, 25}));
  EXPECT_EQ(
      MustRunBinary<int32_t>(tflite::BuiltinOperator_SQUARED_DIFFERENCE, TensorType::kInt32, {3}, {5, -5, 0}, {}, {2}),
      (std::vector<int32_t>{9, 49, 4}));
}

TEST(BinaryMath, QuantizedSquaredDifferenceInt8) {
  const QuantizationParams qa = Quant(0.05f, -10), qb = Quant(0.02f, 3), qo = Quant(0.1f, -128);
  std::vector<int8_t> a, b;
  for (int i = 0; i < 64; ++i) {
    a.push_back(static_cast<int8_t>(i * 4 - 128));
    b.push_back(static_cast<int8_t>(127 - i * 3));
  }
  auto got = RunBinary<int8_t>(tflite::BuiltinOperator_SQUARED_DIFFERENCE, TensorType::kInt8, TensorType::kInt8, {64},
                               a, {64}, b, nullptr, qa, qb, qo);
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (int i = 0; i < 64; ++i) {
    const double d = 0.05 * (a[i] + 10) - 0.02 * (b[i] - 3);
    const double want = std::clamp(std::round(d * d / 0.1) - 128, -128.0, 127.0);
    EXPECT_NEAR((*got)[i], want, 1.0) << i;
  }
}

TEST(BinaryMath, Pow) {
  const auto f =
      MustRunBinary<float>(tflite::BuiltinOperator_POW, TensorType::kFloat32, {3}, {2, 9, -2}, {3}, {10, 0.5f, 3});
  EXPECT_EQ(f, (std::vector<float>{1024, 3, -8}));
  EXPECT_EQ(MustRunBinary<int32_t>(tflite::BuiltinOperator_POW, TensorType::kInt32, {4}, {3, -2, 7, 0}, {}, {3}),
            (std::vector<int32_t>{27, -8, 343, 0}));
  EXPECT_EQ(MustRunBinary<int32_t>(tflite::BuiltinOperator_POW, TensorType::kInt32, {2}, {5, 0}, {2}, {0, 0}),
            (std::vector<int32_t>{1, 1}));
  auto negative =
      RunBinary<int32_t>(tflite::BuiltinOperator_POW, TensorType::kInt32, TensorType::kInt32, {1}, {2}, {1}, {-1});
  EXPECT_FALSE(negative.ok());
}

TEST(BinaryMath, Atan2Quadrants) {
  const auto got = MustRunBinary<float>(tflite::BuiltinOperator_ATAN2, TensorType::kFloat32, {5}, {1, 1, -1, -1, 0},
                                        {5}, {1, -1, -1, 1, -1});
  const double pi = M_PI;
  const std::vector<double> want = {pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6);
}

// ---- FLOOR_DIV / FLOOR_MOD

TEST(FloorDivMod, RoundTowardNegativeInfinity) {
  EXPECT_EQ(MustRunBinary<int32_t>(tflite::BuiltinOperator_FLOOR_DIV, TensorType::kInt32, {4}, {7, -7, 7, -7}, {4},
                                   {2, 2, -2, -2}),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(
      MustRunBinary<int16_t>(tflite::BuiltinOperator_FLOOR_DIV, TensorType::kInt16, {3}, {-1, 6, -32768}, {}, {-1}),
      (std::vector<int16_t>{1, -6, -32768}));  // -32768 / -1 wraps, as in TFLite
  EXPECT_EQ(
      MustRunBinary<int8_t>(tflite::BuiltinOperator_FLOOR_DIV, TensorType::kInt8, {3}, {-128, 9, -9}, {3}, {-1, 4, 4}),
      (std::vector<int8_t>{-128, 2, -3}));
  EXPECT_EQ(
      MustRunBinary<float>(tflite::BuiltinOperator_FLOOR_DIV, TensorType::kFloat32, {3}, {7.5f, -7.5f, 1}, {}, {2}),
      (std::vector<float>{3, -4, 0}));
  EXPECT_EQ(MustRunBinary<int32_t>(tflite::BuiltinOperator_FLOOR_MOD, TensorType::kInt32, {4}, {7, -7, 7, -7}, {4},
                                   {3, 3, -3, -3}),
            (std::vector<int32_t>{1, 2, -2, -1}));
  EXPECT_EQ(MustRunBinary<int64_t>(tflite::BuiltinOperator_FLOOR_MOD, TensorType::kInt64, {2},
                                   {std::numeric_limits<int64_t>::min(), 10}, {2}, {-1, 4}),
            (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(MustRunBinary<float>(tflite::BuiltinOperator_FLOOR_MOD, TensorType::kFloat32, {3}, {7.5f, -7.5f, 7.5f}, {3},
                                 {2, 2, -2}),
            (std::vector<float>{1.5f, 0.5f, -0.5f}));
}

TEST(FloorDivMod, ZeroDivisorIsARunTimeError) {
  for (auto code : {tflite::BuiltinOperator_FLOOR_DIV, tflite::BuiltinOperator_FLOOR_MOD}) {
    auto r = RunBinary<int32_t>(code, TensorType::kInt32, TensorType::kInt32, {2}, {4, 5}, {2}, {1, 0});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("division by zero"), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE((RunBinary<float>(tflite::BuiltinOperator_FLOOR_DIV, TensorType::kFloat32, TensorType::kFloat32, {1},
                                 {1.0f}, {1}, {0.0f})
                    .ok()));
  // Float FLOOR_MOD by zero is NaN, not an error (TFLite checks integer divisors only).
  auto nan = RunBinary<float>(tflite::BuiltinOperator_FLOOR_MOD, TensorType::kFloat32, TensorType::kFloat32, {1},
                              {1.0f}, {1}, {0.0f});
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan((*nan)[0]));
}

// ---- ADD_N

TEST(AddN, SumsAllInputs) {
  SingleOp op(tflite::BuiltinOperator_ADD_N);
  op.Input(TensorType::kFloat32, {2, 2});
  op.Input(TensorType::kFloat32, {2, 2});
  op.Const<float>(TensorType::kFloat32, {2, 2}, {100, 200, 300, 400});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
  SetInput<float>(*interpreter, 1, {10, 20, 30, 40});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{111, 222, 333, 444}));

  SingleOp ints(tflite::BuiltinOperator_ADD_N);
  ints.Input(TensorType::kInt32, {2});
  ints.Input(TensorType::kInt32, {2});
  ints.Output(TensorType::kInt32);
  auto i = ints.Build();
  ASSERT_TRUE(i);
  SetInput<int32_t>(*i, 0, {std::numeric_limits<int32_t>::max(), -4});
  SetInput<int32_t>(*i, 1, {1, 9});
  ASSERT_TRUE(i->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*i, 0), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 5}));

  SingleOp bad(tflite::BuiltinOperator_ADD_N);
  bad.Input(TensorType::kFloat32, {2});
  bad.Input(TensorType::kFloat32, {3});
  bad.Output(TensorType::kFloat32);
  EXPECT_FALSE(bad.TryBuild().ok());
}

// ---- CUMSUM

std::vector<float> RunCumsum(const std::vector<float>& in, Shape shape, int32_t axis, bool exclusive, bool reverse) {
  SingleOp op(tflite::BuiltinOperator_CUMSUM);
  op.Input(TensorType::kFloat32, shape);
  op.Const<int32_t>(TensorType::kInt32, {}, {axis});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_CumsumOptions, ER_OPTIONS(tflite::CreateCumsumOptions(fbb, exclusive, reverse)));
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, in);
  EXPECT_TRUE(interpreter->Invoke().ok());
  return GetOutput<float>(*interpreter, 0);
}

TEST(Cumsum, ExclusiveReverseAndAxes) {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};  // [2, 3]
  EXPECT_EQ(RunCumsum(in, {2, 3}, 1, false, false), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(RunCumsum(in, {2, 3}, -1, true, false), (std::vector<float>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(RunCumsum(in, {2, 3}, 1, false, true), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(RunCumsum(in, {2, 3}, 1, true, true), (std::vector<float>{5, 3, 0, 11, 6, 0}));
  EXPECT_EQ(RunCumsum(in, {2, 3}, 0, false, false), (std::vector<float>{1, 2, 3, 5, 7, 9}));
}

TEST(Cumsum, IntegerTypesAndBadAxis) {
  SingleOp op(tflite::BuiltinOperator_CUMSUM);
  op.Input(TensorType::kInt64, {4});
  op.Const<int32_t>(TensorType::kInt32, {}, {0});
  op.Output(TensorType::kInt64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int64_t>(*interpreter, 0, {int64_t{1} << 40, 1, 2, 3});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(
      GetOutput<int64_t>(*interpreter, 0),
      (std::vector<int64_t>{int64_t{1} << 40, (int64_t{1} << 40) + 1, (int64_t{1} << 40) + 3, (int64_t{1} << 40) + 6}));

  SingleOp bad(tflite::BuiltinOperator_CUMSUM);
  bad.Input(TensorType::kFloat32, {2, 2});
  bad.Const<int32_t>(TensorType::kInt32, {}, {2});
  bad.Output(TensorType::kFloat32);
  EXPECT_FALSE(bad.TryBuild().ok());

  // An axis known only at run time is checked at run time.
  SingleOp runtime(tflite::BuiltinOperator_CUMSUM);
  runtime.Input(TensorType::kInt32, {3});
  runtime.Input(TensorType::kInt32, {});
  runtime.Output(TensorType::kInt32);
  auto r = runtime.Build();
  ASSERT_TRUE(r);
  SetInput<int32_t>(*r, 0, {1, 1, 1});
  SetInput<int32_t>(*r, 1, {5});
  EXPECT_FALSE(r->Invoke().ok());
  SetInput<int32_t>(*r, 1, {-1});
  ASSERT_TRUE(r->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*r, 0), (std::vector<int32_t>{1, 2, 3}));
}

// ---- BUCKETIZE

TEST(Bucketize, CountsBoundariesAtOrBelow) {
  const std::vector<float> boundaries = {0, 10, 100};
  SingleOp op(tflite::BuiltinOperator_BUCKETIZE);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_BucketizeOptions,
             ER_OPTIONS(tflite::CreateBucketizeOptionsDirect(fbb, &boundaries)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-5, 0, 5, 10, 150, 99.9f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0, 1, 1, 2, 3, 2}));

  SingleOp ints(tflite::BuiltinOperator_BUCKETIZE);
  ints.Input(TensorType::kInt64, {3});
  ints.Output(TensorType::kInt32);
  ints.Options(tflite::BuiltinOptions_BucketizeOptions,
               ER_OPTIONS(tflite::CreateBucketizeOptionsDirect(fbb, &boundaries)));
  auto i = ints.Build();
  ASSERT_TRUE(i);
  SetInput<int64_t>(*i, 0, {-1, 10, 1000});
  ASSERT_TRUE(i->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*i, 0), (std::vector<int32_t>{0, 2, 3}));

  const std::vector<float> unsorted = {1, 0};
  SingleOp bad(tflite::BuiltinOperator_BUCKETIZE);
  bad.Input(TensorType::kFloat32, {1});
  bad.Output(TensorType::kInt32);
  bad.Options(tflite::BuiltinOptions_BucketizeOptions,
              ER_OPTIONS(tflite::CreateBucketizeOptionsDirect(fbb, &unsorted)));
  EXPECT_FALSE(bad.TryBuild().ok());
}

// ---- BITWISE_XOR / RIGHT_SHIFT

TEST(Bitwise, XorAndRightShift) {
  EXPECT_EQ(
      MustRunBinary<uint8_t>(tflite::BuiltinOperator_BITWISE_XOR, TensorType::kUInt8, {3}, {0xF0, 0xFF, 0}, {}, {0x0F}),
      (std::vector<uint8_t>{0xFF, 0xF0, 0x0F}));
  EXPECT_EQ(MustRunBinary<int32_t>(tflite::BuiltinOperator_BITWISE_XOR, TensorType::kInt32, {2}, {-1, 6}, {2}, {1, 3}),
            (std::vector<int32_t>{-2, 5}));
  // Arithmetic shift for signed values; shifts clamp to [0, bits - 1].
  EXPECT_EQ(MustRunBinary<int8_t>(tflite::BuiltinOperator_RIGHT_SHIFT, TensorType::kInt8, {4}, {-128, 64, -1, 100}, {4},
                                  {1, 3, 100, -2}),
            (std::vector<int8_t>{-64, 8, -1, 100}));
  EXPECT_EQ(MustRunBinary<uint16_t>(tflite::BuiltinOperator_RIGHT_SHIFT, TensorType::kUInt16, {2}, {0x8000, 0xFFFF}, {},
                                    {20}),
            (std::vector<uint16_t>{1, 1}));
  SingleOp floats(tflite::BuiltinOperator_RIGHT_SHIFT);
  floats.Input(TensorType::kFloat32, {1});
  floats.Input(TensorType::kFloat32, {1});
  floats.Output(TensorType::kFloat32);
  EXPECT_TRUE(floats.TryBuild().unsupported());
}

// ---- random ops

TEST(Random, PhiloxMatchesPublishedTestVectors) {
  // Known-answer vectors of Philox4x32-10 from Random123 (counter, key all zeros / all ones).
  reference::math::Philox4x32 zeros(0, 0);
  EXPECT_EQ(zeros.Next(), (reference::math::Philox4x32::Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  reference::math::Philox4x32 ones(~uint64_t{0}, ~uint64_t{0});
  ones.Skip(~uint64_t{0});  // counter words 0 and 1 to all ones as well
  EXPECT_EQ(ones.Next(), (reference::math::Philox4x32::Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

std::unique_ptr<Interpreter> BuildRandom(tflite::BuiltinOperator code, Shape shape, int64_t seed, int64_t seed2) {
  SingleOp op(code);
  op.Const<int32_t>(TensorType::kInt32, {static_cast<int32_t>(shape.size())},
                    std::vector<int32_t>(shape.begin(), shape.end()));
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_RandomOptions, ER_OPTIONS(tflite::CreateRandomOptions(fbb, seed, seed2)));
  return op.Build();
}

TEST(Random, UniformIsSeededAndInRange) {
  auto a = BuildRandom(tflite::BuiltinOperator_RANDOM_UNIFORM, {64, 64}, 7, 3);
  auto b = BuildRandom(tflite::BuiltinOperator_RANDOM_UNIFORM, {64, 64}, 7, 3);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->Invoke().ok());
  ASSERT_TRUE(b->Invoke().ok());
  const auto first = GetOutput<float>(*a, 0);
  EXPECT_EQ(first, GetOutput<float>(*b, 0));  // same seeds, same values
  double sum = 0;
  for (float v : first) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / first.size(), 0.5, 0.02);
  // The first value is the first Philox word as a 23-bit fraction.
  reference::math::Philox4x32 rng(7, 3);
  const uint32_t word = rng.Next()[0];
  EXPECT_EQ(first[0], static_cast<float>(word & 0x7fffff) / (1 << 23));
  ASSERT_TRUE(a->Invoke().ok());
  EXPECT_NE(GetOutput<float>(*a, 0), first);  // the stream continues
}

TEST(Random, StandardNormalMoments) {
  auto interpreter = BuildRandom(tflite::BuiltinOperator_RANDOM_STANDARD_NORMAL, {4099}, 42, 0);
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto v = GetOutput<float>(*interpreter, 0);
  ASSERT_EQ(v.size(), 4099u);
  double sum = 0, sum_sq = 0;
  for (float x : v) {
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / v.size();
  EXPECT_NEAR(mean, 0.0, 0.06);
  EXPECT_NEAR(sum_sq / v.size() - mean * mean, 1.0, 0.08);
}

TEST(Random, MultinomialFollowsTheLogits) {
  SingleOp op(tflite::BuiltinOperator_MULTINOMIAL);
  op.Input(TensorType::kFloat32, {2, 3});
  op.Const<int32_t>(TensorType::kInt32, {}, {1000});
  op.Output(TensorType::kInt64);
  op.Options(tflite::BuiltinOptions_RandomOptions, ER_OPTIONS(tflite::CreateRandomOptions(fbb, 5, 6)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  // Row 0: class 1 has probability 0 (-inf); classes 0 and 2 are 1:3. Row 1: only class 2.
  SetInput<float>(*interpreter, 0, {0.0f, -kInf, std::log(3.0f), -100.0f, -kInf, 100.0f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1000}));
  const auto got = GetOutput<int64_t>(*interpreter, 0);
  int counts[3] = {0, 0, 0};
  for (int s = 0; s < 1000; ++s) ++counts[got[s]];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[2] / 1000.0, 0.75, 0.05);
  for (int s = 1000; s < 2000; ++s) EXPECT_EQ(got[s], 2);
}

TEST(Random, BadShapeInputs) {
  SingleOp op(tflite::BuiltinOperator_RANDOM_UNIFORM);
  op.Const<int32_t>(TensorType::kInt32, {2}, {3, -1});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
  SingleOp floats(tflite::BuiltinOperator_RANDOM_UNIFORM);
  floats.Const<float>(TensorType::kFloat32, {1}, {3});
  floats.Output(TensorType::kFloat32);
  EXPECT_FALSE(floats.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
