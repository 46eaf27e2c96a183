// RFFT2D against the DFT computed from its definition, and COMPLEX_ABS, REAL, IMAG.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;
using C = std::complex<float>;

// X[u][v] = sum_{r < H, c < W} x[r][c] e^{-2 pi i (u r / H + v c / W)} for v <= W / 2, where x is
// the slice cropped or zero-padded to H x W.
std::vector<std::complex<double>> DirectRfft2d(const std::vector<float>& in, int height, int width, int fft_h,
                                               int fft_w) {
  std::vector<std::complex<double>> out;
  for (int u = 0; u < fft_h; ++u) {
    for (int v = 0; v <= fft_w / 2; ++v) {
      std::complex<double> sum = 0;
      for (int r = 0; r < std::min(height, fft_h); ++r) {
        for (int c = 0; c < std::min(width, fft_w); ++c) {
          const double angle = -2 * M_PI * (static_cast<double>(u) * r / fft_h + static_cast<double>(v) * c / fft_w);
          sum += static_cast<double>(in[r * width + c]) * std::complex<double>(std::cos(angle), std::sin(angle));
        }
      }
      out.push_back(sum);
    }
  }
  return out;
}

void CheckRfft2d(Shape input_shape, int fft_h, int fft_w, bool constant_length) {
  SingleOp op(tflite::BuiltinOperator_RFFT2D);
  op.Input(TensorType::kFloat32, input_shape);
  if (constant_length) {
    op.Const<int32_t>(TensorType::kInt32, {2}, {fft_h, fft_w});
  } else {
    op.Input(TensorType::kInt32, {2});
  }
  op.Output(TensorType::kComplex64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const auto in = testing::RandomFloats(NumElements(input_shape), 3);
  SetInput(*interpreter, 0, in);
  if (!constant_length) SetInput<int32_t>(*interpreter, 1, {fft_h, fft_w});
  ASSERT_TRUE(interpreter->Invoke().ok());
  Shape want_shape = input_shape;
  want_shape[want_shape.size() - 2] = fft_h;
  want_shape[want_shape.size() - 1] = fft_w / 2 + 1;
  ASSERT_EQ(interpreter->output(0)->shape, want_shape);
  const auto got = GetOutput<C>(*interpreter, 0);
  const int height = input_shape[input_shape.size() - 2], width = input_shape[input_shape.size() - 1];
  const int64_t slices = NumElements(input_shape) / (height * width);
  const int64_t out_slice = fft_h * (fft_w / 2 + 1);
  for (int64_t s = 0; s < slices; ++s) {
    const std::vector<float> slice(in.begin() + s * height * width, in.begin() + (s + 1) * height * width);
    const auto want = DirectRfft2d(slice, height, width, fft_h, fft_w);
    for (int64_t i = 0; i < out_slice; ++i) {
      EXPECT_NEAR(got[s * out_slice + i].real(), want[i].real(), 1e-4) << "slice " << s << " element " << i;
      EXPECT_NEAR(got[s * out_slice + i].imag(), want[i].imag(), 1e-4) << "slice " << s << " element " << i;
    }
  }
}

TEST(Rfft2d, MatchesTheDefinition) {
  CheckRfft2d({4, 8}, 4, 8, true);        // exact size
  CheckRfft2d({2, 3, 5, 6}, 8, 8, true);  // batch of slices, zero-padded
  CheckRfft2d({1, 16, 16}, 4, 2, true);   // cropped
  CheckRfft2d({1, 1}, 1, 1, true);        // trivial
  CheckRfft2d({3, 7}, 2, 16, false);      // fft_length known at run time
}

TEST(Rfft2d, ConstantInputGivesKnownSpectrum) {
  SingleOp op(tflite::BuiltinOperator_RFFT2D);
  op.Input(TensorType::kFloat32, {2, 4});
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 4});
  op.Output(TensorType::kComplex64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, std::vector<float>(8, 1.0f));
  ASSERT_TRUE(interpreter->Invoke().ok());
  // All the energy is at frequency (0, 0): the sum of the 8 ones.
  const auto got = GetOutput<C>(*interpreter, 0);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), i == 0 ? 8.0 : 0.0, 1e-6) << i;
    EXPECT_NEAR(got[i].imag(), 0.0, 1e-6) << i;
  }
}

TEST(Rfft2d, PrepareAndRunTimeErrors) {
  SingleOp odd(tflite::BuiltinOperator_RFFT2D);
  odd.Input(TensorType::kFloat32, {4, 6});
  odd.Const<int32_t>(TensorType::kInt32, {2}, {4, 6});
  odd.Output(TensorType::kComplex64);
  EXPECT_FALSE(odd.TryBuild().ok());  // 6 is not a power of two

  SingleOp rank(tflite::BuiltinOperator_RFFT2D);
  rank.Input(TensorType::kFloat32, {8});
  rank.Const<int32_t>(TensorType::kInt32, {2}, {1, 8});
  rank.Output(TensorType::kComplex64);
  EXPECT_FALSE(rank.TryBuild().ok());

  SingleOp length(tflite::BuiltinOperator_RFFT2D);
  length.Input(TensorType::kFloat32, {2, 2});
  length.Const<int32_t>(TensorType::kInt32, {3}, {2, 2, 2});
  length.Output(TensorType::kComplex64);
  EXPECT_FALSE(length.TryBuild().ok());

  SingleOp runtime(tflite::BuiltinOperator_RFFT2D);
  runtime.Input(TensorType::kFloat32, {2, 2});
  runtime.Input(TensorType::kInt32, {2});
  runtime.Output(TensorType::kComplex64);
  auto interpreter = runtime.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
  SetInput<int32_t>(*interpreter, 1, {0, 2});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

// ---- COMPLEX_ABS / REAL / IMAG

TEST(Complex, AbsRealImag) {
  const std::vector<C> values = {C(3, 4), C(-1, 0), C(0, -2.5f), C(0, 0)};
  const std::vector<float> want_abs = {5, 1, 2.5f, 0}, want_real = {3, -1, 0, 0}, want_imag = {4, 0, -2.5f, 0};
  for (auto [code, want] :
       {std::pair{tflite::BuiltinOperator_COMPLEX_ABS, want_abs}, std::pair{tflite::BuiltinOperator_REAL, want_real},
        std::pair{tflite::BuiltinOperator_IMAG, want_imag}}) {
    SingleOp op(code);
    op.Input(TensorType::kComplex64, {2, 2});
    op.Output(TensorType::kFloat32);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetInput(*interpreter, 0, values);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want) << tflite::EnumNameBuiltinOperator(code);
  }
  SingleOp wide(tflite::BuiltinOperator_COMPLEX_ABS);
  wide.Input(TensorType::kComplex128, {1});
  wide.Output(TensorType::kFloat64);
  auto interpreter = wide.Build();
  ASSERT_TRUE(interpreter);
  SetInput<std::complex<double>>(*interpreter, 0, {std::complex<double>(5, 12)});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<double>(*interpreter, 0), (std::vector<double>{13}));

  // complex64 magnitudes exactly as std::abs gives them (glibc's hypotf), on random values of
  // every scale, infinities and NaNs.
  std::mt19937 rng(7);
  std::vector<C> many;
  for (int i = 0; i < 20000; ++i) {
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 250) - 125);
    auto value = [&] { return (static_cast<float>(rng() % 2000001) / 1e6f - 1.0f) * scale; };
    many.emplace_back(value(), value());
  }
  const float inf = INFINITY, nan = NAN;
  for (C special : {C(inf, nan), C(nan, -inf), C(nan, 1), C(1, nan), C(-inf, 3), C(0, -0.0f), C(3.4e38f, 3.4e38f),
                    C(1e-45f, 1e-45f)}) {
    many.push_back(special);
  }
  SingleOp abs_op(tflite::BuiltinOperator_COMPLEX_ABS);
  abs_op.Input(TensorType::kComplex64, {static_cast<int32_t>(many.size())});
  abs_op.Output(TensorType::kFloat32);
  auto abs_interpreter = abs_op.Build();
  ASSERT_TRUE(abs_interpreter);
  SetInput(*abs_interpreter, 0, many);
  ASSERT_TRUE(abs_interpreter->Invoke().ok());
  const std::vector<float> got = GetOutput<float>(*abs_interpreter, 0);
  for (size_t i = 0; i < many.size(); ++i) {
    const float want = std::abs(many[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      ASSERT_EQ(got[i], want) << many[i];
    }
  }

  SingleOp bad(tflite::BuiltinOperator_REAL);
  bad.Input(TensorType::kComplex64, {1});
  bad.Output(TensorType::kFloat64);
  EXPECT_FALSE(bad.TryBuild().ok());
  SingleOp real_input(tflite::BuiltinOperator_IMAG);
  real_input.Input(TensorType::kFloat32, {1});
  real_input.Output(TensorType::kFloat32);
  EXPECT_FALSE(real_input.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
