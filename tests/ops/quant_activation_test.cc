// Quantized (and the new float) activations: RELU family, LEAKY_RELU, HARD_SWISH, PRELU, ELU, GELU,
// LOGISTIC, TANH, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION.
// Expected values come from the mathematical definition evaluated in the test (in double, then
// quantized), from hand computation, or, where noted, from Google's LiteRT run on the same model
// (its int16 kernels are integer-exact, so a few outputs are pinned bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "quant/gemmlowp_fixed_point.h"
#include "quant/lut.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

QuantizationParams Q(float scale, int64_t zero_point) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

template <class T>
TensorType TypeOf() {
  if constexpr (std::is_same_v<T, uint8_t>) return TensorType::kUInt8;
  if constexpr (std::is_same_v<T, int8_t>) return TensorType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return TensorType::kInt16;
  return TensorType::kFloat32;
}

// Every value of an 8-bit type, or a spread of int16 values.
template <class T>
std::vector<T> AllValues() {
  std::vector<T> v;
  if constexpr (sizeof(T) == 1) {
    for (int i = std::numeric_limits<T>::min(); i <= std::numeric_limits<T>::max(); ++i) v.push_back(static_cast<T>(i));
  } else {
    for (int i = -32768; i <= 32767; i += 97) v.push_back(static_cast<T>(i));
    v.push_back(32767);
  }
  return v;
}

struct UnaryOp {
  UnaryOp(tflite::BuiltinOperator c, int v = 1, tflite::BuiltinOptions t = tflite::BuiltinOptions_NONE,
          ModelBuilder::OptionsWriter w = nullptr)
      : code(c), version(v), options_type(t), options(std::move(w)) {}
  tflite::BuiltinOperator code;
  int version;
  tflite::BuiltinOptions options_type;
  ModelBuilder::OptionsWriter options;
};

// Runs a one-op model on `in` (shape [n]); fails the test when building or invoking fails.
template <class T, class U = T>
std::vector<U> RunOp(const UnaryOp& op, const std::vector<T>& in, QuantizationParams qin = {},
                   QuantizationParams qout = {}) {
  SingleOp s(op.code, op.version);
  s.Input(TypeOf<T>(), {static_cast<int32_t>(in.size())}, qin);
  s.Output(TypeOf<U>(), {}, qout);
  if (op.options) s.Options(op.options_type, op.options);
  auto interpreter = s.Build();
  if (!interpreter) return {};
  SetInput(*interpreter, 0, in);
  const Status st = interpreter->Invoke();
  EXPECT_TRUE(st.ok()) << st.message();
  return GetOutput<U>(*interpreter, 0);
}

template <class T>
Status TryUnary(const UnaryOp& op, QuantizationParams qin, QuantizationParams qout, TensorType out_type,
                InterpreterOptions options = {}) {
  SingleOp s(op.code, op.version);
  s.Input(TypeOf<T>(), {4}, qin);
  s.Output(out_type, {}, qout);
  if (op.options) s.Options(op.options_type, op.options);
  return s.TryBuild(options);
}

// clamp(round(real / scale) + zero_point) for type T, in double.
template <class T>
int32_t Quantize(double real, double scale, int32_t zero_point) {
  const double q = std::round(real / scale) + zero_point;
  return static_cast<int32_t>(
      std::clamp<double>(q, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// Every output is within `tolerance` steps of f applied to the dequantized input.
template <class T>
void ExpectQuantizedFunction(const std::vector<T>& in, const std::vector<T>& out, QuantizationParams qin,
                             QuantizationParams qout, const std::function<double(double)>& f, int tolerance) {
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = qin.scale[0] * (static_cast<double>(in[i]) - qin.zero_point[0]);
    const int32_t want = Quantize<T>(f(x), qout.scale[0], static_cast<int32_t>(qout.zero_point[0]));
    ASSERT_LE(std::abs(want - static_cast<int32_t>(out[i])), tolerance)
        << "input " << +in[i] << " (" << x << "): want " << want << ", got " << +out[i];
  }
}

// ---- RELU family

template <class T>
void CheckRelu(tflite::BuiltinOperator code, double lo, double hi, QuantizationParams qin, QuantizationParams qout) {
  const auto in = AllValues<T>();
  const auto out = RunOp<T>({code}, in, qin, qout);
  // Scales 0.05 -> 0.03 never produce a rounding tie, so the fixed-point rescale is exact.
  ExpectQuantizedFunction<T>(in, out, qin, qout, [&](double x) { return std::min(std::max(x, lo), hi); }, 0);
}

TEST(QuantizedRelu, AllTypesRequantizeThenClamp) {
  CheckRelu<uint8_t>(tflite::BuiltinOperator_RELU, 0, INFINITY, Q(0.05f, 128), Q(0.03f, 10));
  CheckRelu<int8_t>(tflite::BuiltinOperator_RELU, 0, INFINITY, Q(0.05f, 3), Q(0.03f, -128));
  CheckRelu<int16_t>(tflite::BuiltinOperator_RELU, 0, INFINITY, Q(0.0005f, 0), Q(0.0003f, 0));
  CheckRelu<uint8_t>(tflite::BuiltinOperator_RELU6, 0, 6, Q(0.05f, 128), Q(0.03f, 0));
  CheckRelu<int8_t>(tflite::BuiltinOperator_RELU6, 0, 6, Q(0.05f, -7), Q(0.03f, -128));
  CheckRelu<int16_t>(tflite::BuiltinOperator_RELU6, 0, 6, Q(0.0005f, 0), Q(0.0003f, 0));
  CheckRelu<uint8_t>(tflite::BuiltinOperator_RELU_N1_TO_1, -1, 1, Q(0.05f, 128), Q(0.01f, 128));
  CheckRelu<int8_t>(tflite::BuiltinOperator_RELU_N1_TO_1, -1, 1, Q(0.05f, 3), Q(0.01f, 0));
  CheckRelu<uint8_t>(tflite::BuiltinOperator_RELU_0_TO_1, 0, 1, Q(0.05f, 128), Q(0.01f, 0));
  CheckRelu<int8_t>(tflite::BuiltinOperator_RELU_0_TO_1, 0, 1, Q(0.05f, 3), Q(0.01f, -100));
}

TEST(QuantizedRelu, SameScaleIsAPureClamp) {
  // RELU6 of the traffic model's LSTM: scale 5e-6, zero point 124; 6.0 is far outside the range,
  // so only the lower bound (the zero point) applies.
  const auto q = Q(5.03828323e-06f, 124);
  const auto out = RunOp<uint8_t>({tflite::BuiltinOperator_RELU6}, {0, 100, 123, 124, 125, 255}, q, q);
  EXPECT_EQ(out, (std::vector<uint8_t>{124, 124, 124, 124, 125, 255}));
}

TEST(QuantizedRelu, RejectsBadQuantization) {
  // int16 needs symmetric quantization; RELU_N1_TO_1 has no int16 kernel; a scale is required.
  EXPECT_FALSE(TryUnary<int16_t>({tflite::BuiltinOperator_RELU}, Q(0.1f, 3), Q(0.1f, 0), TensorType::kInt16).ok());
  EXPECT_TRUE(
      TryUnary<int16_t>({tflite::BuiltinOperator_RELU_N1_TO_1}, Q(0.1f, 0), Q(0.1f, 0), TensorType::kInt16)
          .unsupported());
  EXPECT_FALSE(TryUnary<int8_t>({tflite::BuiltinOperator_RELU6}, {}, Q(0.1f, 0), TensorType::kInt8).ok());
}

// ---- LEAKY_RELU

// Option writers run when the model is serialized, after these helpers return: capture by value.
UnaryOp LeakyRelu(float alpha) {
  return {tflite::BuiltinOperator_LEAKY_RELU, 2, tflite::BuiltinOptions_LeakyReluOptions,
          [alpha](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateLeakyReluOptions(fbb, alpha).Union(); }};
}

TEST(LeakyRelu, Float) {
  const std::vector<float> in = {-4, -0.5f, 0, 0.5f, 3};
  EXPECT_EQ(RunOp<float>(LeakyRelu(0.2f), in), (std::vector<float>{-4 * 0.2f, -0.5f * 0.2f, 0, 0.5f, 3}));
  // alpha may be negative or above 1.
  EXPECT_EQ(RunOp<float>(LeakyRelu(-1.5f), in), (std::vector<float>{6, 0.75f, 0, 0.5f, 3}));
}

TEST(LeakyRelu, QuantizedAllTypes) {
  // One step of slack: TFLite's fixed-point rescale rounds twice (doubling high multiply, then
  // rounding shift), e.g. -130 / 3 = -43.3 becomes -86.7 -> -87 -> -43.5 -> -44.
  auto f = [](double x) { return x > 0 ? x : 0.2 * x; };
  {
    const auto in = AllValues<int8_t>();
    ExpectQuantizedFunction<int8_t>(in, RunOp<int8_t>(LeakyRelu(0.2f), in, Q(0.05f, 3), Q(0.03f, -4)), Q(0.05f, 3),
                                    Q(0.03f, -4), f, 1);
  }
  {
    const auto in = AllValues<uint8_t>();
    ExpectQuantizedFunction<uint8_t>(in, RunOp<uint8_t>(LeakyRelu(0.2f), in, Q(0.05f, 128), Q(0.03f, 90)),
                                     Q(0.05f, 128), Q(0.03f, 90), f, 1);
  }
  {
    const auto in = AllValues<int16_t>();
    ExpectQuantizedFunction<int16_t>(in, RunOp<int16_t>(LeakyRelu(0.2f), in, Q(0.0005f, 0), Q(0.0003f, 0)),
                                     Q(0.0005f, 0), Q(0.0003f, 0), f, 1);
  }
}

TEST(LeakyRelu, Int16NegativeAlphaSameScale) {
  // Same scale on both sides: x >= 0 is copied, x < 0 becomes -0.5 * x rounded half away from
  // zero (TFLite's int16 kernel multiplies by the signed multiplier; pinned to LiteRT too).
  const auto q = Q(0.0017488234f, 0);
  const auto out = RunOp<int16_t>(LeakyRelu(-0.5f), {-32768, -7, -3, -1, 0, 1, 32767}, q, q);
  EXPECT_EQ(out, (std::vector<int16_t>{16384, 4, 2, 1, 0, 1, 32767}));
}

TEST(LeakyRelu, Int16RequiresZeroPointZero) {
  EXPECT_FALSE(TryUnary<int16_t>(LeakyRelu(0.1f), Q(0.1f, 1), Q(0.1f, 0), TensorType::kInt16).ok());
}

// ---- HARD_SWISH

double HardSwishReal(double x) { return x * std::min(6.0, std::max(0.0, x + 3)) / 6; }

TEST(HardSwish, Float) {
  const std::vector<float> in = {-5, -3, -1.5f, 0, 1, 3, 7};
  const auto out = RunOp<float>({tflite::BuiltinOperator_HARD_SWISH}, in);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(out[i], HardSwishReal(in[i]), 1e-6) << in[i];
}

TEST(HardSwish, QuantizedWithinOneStep) {
  for (auto [qin, qout] : {std::pair{Q(0.05f, 3), Q(0.03f, -20)}, std::pair{Q(0.5f, 0), Q(0.3f, 30)}}) {
    const auto in = AllValues<int8_t>();
    ExpectQuantizedFunction<int8_t>(in, RunOp<int8_t>({tflite::BuiltinOperator_HARD_SWISH}, in, qin, qout), qin, qout,
                                    HardSwishReal, 1);
  }
  const auto in = AllValues<uint8_t>();
  ExpectQuantizedFunction<uint8_t>(
      in, RunOp<uint8_t>({tflite::BuiltinOperator_HARD_SWISH}, in, Q(0.05f, 128), Q(0.03f, 30)), Q(0.05f, 128),
      Q(0.03f, 30), HardSwishReal, 1);
}

// ---- PRELU

TEST(Prelu, FloatBroadcastsAlphaOverChannels) {
  SingleOp s(tflite::BuiltinOperator_PRELU);
  s.Input(TensorType::kFloat32, {2, 2, 3});
  s.Const<float>(TensorType::kFloat32, {1, 1, 3}, {0.0f, 0.5f, -2.0f});
  s.Output(TensorType::kFloat32);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-1, -1, -1, 2, 2, 2, -4, -4, -4, 0, -0.5f, 1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0),
            (std::vector<float>{0, -0.5f, 2, 2, 2, 2, 0, -2, 8, 0, -0.25f, 1}));
}

TEST(Prelu, Uint8WithinOneStep) {
  const auto qin = Q(0.05f, 128), qa = Q(0.01f, 100), qout = Q(0.04f, 120);
  SingleOp s(tflite::BuiltinOperator_PRELU);
  s.Input(TensorType::kUInt8, {256, 2}, qin);
  s.Const<uint8_t>(TensorType::kUInt8, {2}, {40, 160}, qa);  // alpha -0.6 and 0.6
  s.Output(TensorType::kUInt8, {}, qout);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  std::vector<uint8_t> in(512);
  for (int i = 0; i < 512; ++i) in[i] = static_cast<uint8_t>(i / 2);
  SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto out = GetOutput<uint8_t>(*interpreter, 0);
  for (int i = 0; i < 512; ++i) {
    const double x = 0.05 * (in[i] - 128.0), alpha = 0.01 * ((i % 2 == 0 ? 40 : 160) - 100.0);
    const int want = Quantize<uint8_t>(x >= 0 ? x : alpha * x, 0.04, 120);
    ASSERT_LE(std::abs(want - out[i]), 1) << i;
  }
}

TEST(Prelu, RejectsAlphaThatGrowsTheInput) {
  SingleOp s(tflite::BuiltinOperator_PRELU);
  s.Input(TensorType::kFloat32, {2, 3});
  s.Const<float>(TensorType::kFloat32, {2, 2, 3}, std::vector<float>(12, 0.1f));
  s.Output(TensorType::kFloat32);
  EXPECT_FALSE(s.TryBuild().ok());
}

// ---- ELU and GELU

TEST(Elu, FloatAndInt8Table) {
  const std::vector<float> fin = {-10, -1, -0.001f, 0, 2};
  const auto fout = RunOp<float>({tflite::BuiltinOperator_ELU}, fin);
  ASSERT_EQ(fout.size(), fin.size());
  for (size_t i = 0; i < fin.size(); ++i) {
    EXPECT_NEAR(fout[i], fin[i] < 0 ? std::expm1(static_cast<double>(fin[i])) : fin[i], 1e-7);
  }
  const auto in = AllValues<int8_t>();
  ExpectQuantizedFunction<int8_t>(in, RunOp<int8_t>({tflite::BuiltinOperator_ELU}, in, Q(0.05f, 3), Q(0.04f, -60)),
                                  Q(0.05f, 3), Q(0.04f, -60), [](double x) { return x < 0 ? std::expm1(x) : x; }, 1);
  EXPECT_TRUE(
      TryUnary<uint8_t>({tflite::BuiltinOperator_ELU}, Q(0.1f, 0), Q(0.1f, 0), TensorType::kUInt8).unsupported());
}

UnaryOp Gelu(bool approximate) {
  return {tflite::BuiltinOperator_GELU, 1, tflite::BuiltinOptions_GeluOptions,
          [approximate](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateGeluOptions(fbb, approximate).Union();
          }};
}

double GeluExact(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double GeluTanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

TEST(Gelu, FloatExactAndApproximate) {
  const std::vector<float> in = {-6, -2, -0.5f, 0, 0.3f, 1, 4};
  const auto exact = RunOp<float>(Gelu(false), in);
  const auto approx = RunOp<float>(Gelu(true), in);
  ASSERT_EQ(exact.size(), in.size());
  ASSERT_EQ(approx.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_NEAR(exact[i], GeluExact(in[i]), 2e-6) << in[i];
    EXPECT_NEAR(approx[i], GeluTanh(in[i]), 2e-6) << in[i];
  }
}

TEST(Gelu, QuantizedTables) {
  const auto i8 = AllValues<int8_t>();
  ExpectQuantizedFunction<int8_t>(i8, RunOp<int8_t>(Gelu(false), i8, Q(0.05f, 3), Q(0.04f, -60)), Q(0.05f, 3),
                                  Q(0.04f, -60), GeluExact, 1);
  const auto u8 = AllValues<uint8_t>();
  ExpectQuantizedFunction<uint8_t>(u8, RunOp<uint8_t>(Gelu(true), u8, Q(0.05f, 128), Q(0.04f, 60)), Q(0.05f, 128),
                                   Q(0.04f, 60), GeluTanh, 1);
}

// ---- LOGISTIC and TANH

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(Logistic, EightBitTablesOfRealModels) {
  // The traffic model's LSTM gate (uint8) and MoveNet's heatmap (int8); output scale 1/256.
  const auto u8 = AllValues<uint8_t>();
  for (auto qin : {Q(0.00392367132f, 0), Q(5.03828323e-06f, 124), Q(0.07f, 120)}) {
    ExpectQuantizedFunction<uint8_t>(u8, RunOp<uint8_t>({tflite::BuiltinOperator_LOGISTIC}, u8, qin, Q(1.0f / 256, 0)),
                                     qin, Q(1.0f / 256, 0), Sigmoid, 0);
  }
  const auto i8 = AllValues<int8_t>();
  for (auto qin : {Q(0.280927479f, 115), Q(0.347177476f, 100)}) {
    ExpectQuantizedFunction<int8_t>(
        i8, RunOp<int8_t>({tflite::BuiltinOperator_LOGISTIC}, i8, qin, Q(1.0f / 256, -128)), qin, Q(1.0f / 256, -128),
        Sigmoid, 0);
  }
}

TEST(Logistic, EightBitOutputScaleMustBe1Over256WithTfliteArithmetic) {
  // TFLite's kernel only has the 1/256 table; XNNPACK (LiteRT's default path) takes any scale.
  EXPECT_FALSE(TryUnary<uint8_t>({tflite::BuiltinOperator_LOGISTIC}, Q(0.1f, 0), Q(1.0f / 255, 0), TensorType::kUInt8,
                                 testing::TfliteReferenceArithmetic())
                   .ok());
  EXPECT_TRUE(
      TryUnary<uint8_t>({tflite::BuiltinOperator_LOGISTIC}, Q(0.1f, 0), Q(1.0f / 255, 0), TensorType::kUInt8).ok());
}

TEST(Tanh, EightBitTables) {
  const auto i8 = AllValues<int8_t>();
  ExpectQuantizedFunction<int8_t>(i8, RunOp<int8_t>({tflite::BuiltinOperator_TANH}, i8, Q(0.03f, -5), Q(1.0f / 128, 0)),
                                  Q(0.03f, -5), Q(1.0f / 128, 0), [](double x) { return std::tanh(x); }, 0);
  const auto u8 = AllValues<uint8_t>();
  ExpectQuantizedFunction<uint8_t>(
      u8, RunOp<uint8_t>({tflite::BuiltinOperator_TANH}, u8, Q(0.03f, 128), Q(1.0f / 128, 128)), Q(0.03f, 128),
      Q(1.0f / 128, 128), [](double x) { return std::tanh(x); }, 0);
}

TEST(SigmoidInt16, FixedPointAndTablePathsFollowTheFunctions) {
  const auto in = AllValues<int16_t>();
  const auto qout = Q(1.0f / 32768, 0);
  // Power-of-two input scales run gemmlowp's 16-bit fixed point (a few steps of error at most);
  // other scales interpolate the sigmoid table (one or two steps).
  struct Case {
    tflite::BuiltinOperator op;
    float scale;
    int tolerance;
  };
  for (const Case& c :
       {Case{tflite::BuiltinOperator_LOGISTIC, 1.0f / 4096, 8}, Case{tflite::BuiltinOperator_LOGISTIC, 1.0f / 3000, 2},
        Case{tflite::BuiltinOperator_TANH, 1.0f / 4096, 16}, Case{tflite::BuiltinOperator_TANH, 1.0f / 2048, 16},
        Case{tflite::BuiltinOperator_TANH, 1.0f / 3000, 3}}) {
    const auto qin = Q(c.scale, 0);
    const bool logistic = c.op == tflite::BuiltinOperator_LOGISTIC;
    ExpectQuantizedFunction<int16_t>(
        in, RunOp<int16_t>({c.op}, in, qin, qout), qin, qout,
        [logistic](double x) { return logistic ? Sigmoid(x) : std::tanh(x); }, c.tolerance);
  }
}

TEST(SigmoidInt16, PinnedToLiteRT) {
  // Outputs of Google's LiteRT (TFLite int16 kernels) for these inputs and scales.
  const std::vector<int16_t> in = {-32768, -20000, -4096, -1, 0, 1, 777, 4096, 12345, 32767};
  const auto qout = Q(1.0f / 32768, 0);
  EXPECT_EQ(RunOp<int16_t>({tflite::BuiltinOperator_LOGISTIC}, in, Q(1.0f / 4096, 0), qout),
            (std::vector<int16_t>{11, 243, 8815, 16383, 16384, 16384, 17932, 23952, 31236, 32756}));
  EXPECT_EQ(RunOp<int16_t>({tflite::BuiltinOperator_TANH}, in, Q(1.0f / 3000, 0), qout),
            (std::vector<int16_t>{-32767, -32767, -28758, -11, 0, 11, 8303, 28758, 32751, 32767}));
}

TEST(SigmoidInt16, RequiresOutputScale2PowMinus15AndZeroPoints) {
  EXPECT_FALSE(
      TryUnary<int16_t>({tflite::BuiltinOperator_TANH}, Q(1.0f / 4096, 0), Q(1.0f / 16384, 0), TensorType::kInt16)
          .ok());
  EXPECT_FALSE(
      TryUnary<int16_t>({tflite::BuiltinOperator_LOGISTIC}, Q(1.0f / 4096, 2), Q(1.0f / 32768, 0), TensorType::kInt16)
          .ok());
}

// ---- SOFTMAX

UnaryOp Softmax(float beta) {
  return {tflite::BuiltinOperator_SOFTMAX, 2, tflite::BuiltinOptions_SoftmaxOptions,
          [beta](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSoftmaxOptions(fbb, beta).Union(); }};
}

std::vector<double> SoftmaxReal(const std::vector<double>& x, double beta) {
  const double max = *std::max_element(x.begin(), x.end());
  std::vector<double> e(x.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += e[i] = std::exp((x[i] - max) * beta);
  for (auto& v : e) v /= sum;
  return e;
}

template <class In, class Out>
void CheckSoftmax(const std::vector<In>& in, QuantizationParams qin, QuantizationParams qout, float beta,
                  int tolerance) {
  const auto out = RunOp<In, Out>(Softmax(beta), in, qin, qout);
  ASSERT_EQ(out.size(), in.size());
  std::vector<double> x;
  for (In v : in) x.push_back(qin.scale[0] * (static_cast<double>(v) - qin.zero_point[0]));
  const auto p = SoftmaxReal(x, beta);
  for (size_t i = 0; i < in.size(); ++i) {
    const int want = Quantize<Out>(p[i], qout.scale[0], static_cast<int32_t>(qout.zero_point[0]));
    ASSERT_LE(std::abs(want - static_cast<int>(out[i])), tolerance) << i << ": want " << want << " got " << +out[i];
  }
}

TEST(QuantizedSoftmax, EightBitWithScalesOfRealModels) {
  std::vector<uint8_t> u8(1001);
  std::vector<int8_t> i8(1001);
  for (int i = 0; i < 1001; ++i) {
    u8[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
    i8[i] = static_cast<int8_t>(u8[i] - 128);
  }
  // MobileNet v1 / v2 (uint8, 1001 classes), MobileNet v2 PTQ (int8), micro speech (4 labels).
  CheckSoftmax<uint8_t, uint8_t>(u8, Q(0.130832836f, 96), Q(1.0f / 256, 0), 1.0f, 1);
  CheckSoftmax<uint8_t, uint8_t>(u8, Q(0.0988925397f, 58), Q(1.0f / 256, 0), 1.0f, 1);
  CheckSoftmax<int8_t, int8_t>(i8, Q(0.0633650199f, -53), Q(1.0f / 256, -128), 1.0f, 1);
  CheckSoftmax<int8_t, int8_t>({-128, 14, 40, 127}, Q(0.0917319208f, 14), Q(1.0f / 256, -128), 1.0f, 1);
  CheckSoftmax<int8_t, int8_t>({3, -7, 100, 101, -128}, Q(0.1f, 3), Q(1.0f / 256, -128), 0.5f, 1);
  // 8-bit input, int16 output.
  CheckSoftmax<int8_t, int16_t>({3, -7, 100, 101, -128}, Q(0.1f, 3), Q(1.0f / 32768, 0), 1.0f, 1);
}

TEST(QuantizedSoftmax, Int16) {
  std::vector<int16_t> in;
  for (int i = 0; i < 40; ++i) in.push_back(static_cast<int16_t>(i * 1637 % 9000 - 4500));
  CheckSoftmax<int16_t, int16_t>(in, Q(1.0f / 1000, 0), Q(1.0f / 32768, 0), 1.0f, 3);
  CheckSoftmax<int16_t, int16_t>(in, Q(3.0f / 1000, 0), Q(1.0f / 32768, 0), 0.7f, 3);
  // Pinned to LiteRT's output for this row.
  EXPECT_EQ(RunOp<int16_t>(Softmax(1.0f), {0, 1000, -2000, 3000, 500}, Q(1.0f / 1000, 0), Q(1.0f / 32768, 0)),
            (std::vector<int16_t>{1281, 3481, 173, 25720, 2112}));
}

TEST(QuantizedSoftmax, RowsAreIndependentAndMultiDimensional) {
  SingleOp s(tflite::BuiltinOperator_SOFTMAX);
  s.Input(TensorType::kUInt8, {2, 1, 3}, Q(0.5f, 0));
  s.Output(TensorType::kUInt8, {}, Q(1.0f / 256, 0));
  s.Options(tflite::BuiltinOptions_SoftmaxOptions, ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 1.0f)));
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {7, 7, 7, 0, 0, 200});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // Equal logits -> 1/3 each = 85.33 -> 85; a 100-unit gap -> 255 (saturated 256) and 0.
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{85, 85, 85, 0, 0, 255}));
}

TEST(QuantizedSoftmax, RejectsWrongOutputQuantization) {
  EXPECT_FALSE(TryUnary<int8_t>(Softmax(1.0f), Q(0.1f, 0), Q(1.0f / 256, 0), TensorType::kInt8).ok());
  EXPECT_FALSE(TryUnary<int8_t>(Softmax(1.0f), Q(0.1f, 0), Q(1.0f / 128, -128), TensorType::kInt8).ok());
  EXPECT_FALSE(TryUnary<int16_t>(Softmax(1.0f), Q(0.1f, 0), Q(1.0f / 256, 0), TensorType::kInt16).ok());
  EXPECT_TRUE(TryUnary<int16_t>(Softmax(1.0f), Q(0.1f, 0), Q(1.0f / 32768, 0), TensorType::kInt8).unsupported());
}

// ---- LOG_SOFTMAX

TEST(LogSoftmax, Float) {
  const std::vector<float> in = {1, 2, 3, -1000, 0, 1000};
  SingleOp s(tflite::BuiltinOperator_LOG_SOFTMAX);
  s.Input(TensorType::kFloat32, {2, 3});
  s.Output(TensorType::kFloat32);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto out = GetOutput<float>(*interpreter, 0);
  const double log_sum = std::log(std::exp(-2.0) + std::exp(-1.0) + 1);
  EXPECT_NEAR(out[0], -2 - log_sum, 1e-6);
  EXPECT_NEAR(out[1], -1 - log_sum, 1e-6);
  EXPECT_NEAR(out[2], -log_sum, 1e-6);
  EXPECT_NEAR(out[3], -2000, 1e-3);  // no overflow with large logits
  EXPECT_NEAR(out[5], 0, 1e-6);
}

TEST(LogSoftmax, EightBit) {
  std::vector<uint8_t> u8;
  std::vector<int8_t> i8;
  for (int i = 0; i < 60; ++i) {
    u8.push_back(static_cast<uint8_t>(i * 53 % 256));
    i8.push_back(static_cast<int8_t>(i * 53 % 256 - 128));
  }
  auto check = [](auto in, QuantizationParams qin, QuantizationParams qout, auto out) {
    ASSERT_EQ(out.size(), in.size());
    std::vector<double> x;
    for (auto v : in) x.push_back(qin.scale[0] * (v - qin.zero_point[0]));
    const auto p = SoftmaxReal(x, 1.0);
    using T = typename decltype(in)::value_type;
    for (size_t i = 0; i < in.size(); ++i) {
      const int want = Quantize<T>(std::log(p[i]), qout.scale[0], static_cast<int32_t>(qout.zero_point[0]));
      ASSERT_LE(std::abs(want - static_cast<int>(out[i])), 1) << i;
    }
  };
  check(u8, Q(0.1f, 128), Q(16.0f / 256, 255),
        RunOp<uint8_t>({tflite::BuiltinOperator_LOG_SOFTMAX}, u8, Q(0.1f, 128), Q(16.0f / 256, 255)));
  check(i8, Q(0.1f, 0), Q(16.0f / 256, 127),
        RunOp<int8_t>({tflite::BuiltinOperator_LOG_SOFTMAX}, i8, Q(0.1f, 0), Q(16.0f / 256, 127)));
  EXPECT_FALSE(
      TryUnary<int8_t>({tflite::BuiltinOperator_LOG_SOFTMAX}, Q(0.1f, 0), Q(16.0f / 256, 0), TensorType::kInt8).ok());
}

// ---- L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION

TEST(L2Normalization, FloatRowsAndZeroRow) {
  SingleOp s(tflite::BuiltinOperator_L2_NORMALIZATION);
  s.Input(TensorType::kFloat32, {3, 2});
  s.Output(TensorType::kFloat32);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {3, 4, 0, 0, -1, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // A zero row divides by epsilon: stays zero.
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0.6f, 0.8f, 0, 0, -1, 0}));
}

TEST(L2Normalization, QuantizedOutputScale1Over128) {
  const std::vector<uint8_t> u8 = {128, 131, 132, 200, 10, 128, 128, 129};
  const auto u8_out = RunOp<uint8_t>({tflite::BuiltinOperator_L2_NORMALIZATION}, u8, Q(0.05f, 128), Q(1.0f / 128, 128));
  const std::vector<int8_t> i8 = {3, 6, 7, 75, -115, 3, 3, 4};
  const auto i8_out = RunOp<int8_t>({tflite::BuiltinOperator_L2_NORMALIZATION}, i8, Q(0.05f, 3), Q(1.0f / 128, 0));
  double norm = 0;
  for (auto v : u8) norm += (v - 128.0) * (v - 128.0);
  norm = std::sqrt(norm);
  ASSERT_EQ(u8_out.size(), u8.size());
  ASSERT_EQ(i8_out.size(), i8.size());
  for (size_t i = 0; i < u8.size(); ++i) {
    const double unit = (u8[i] - 128.0) / norm;
    EXPECT_LE(std::abs(Quantize<uint8_t>(unit, 1.0 / 128, 128) - u8_out[i]), 1) << i;
    EXPECT_LE(std::abs(Quantize<int8_t>(unit, 1.0 / 128, 0) - i8_out[i]), 1) << i;
  }
  EXPECT_FALSE(TryUnary<uint8_t>({tflite::BuiltinOperator_L2_NORMALIZATION}, Q(0.05f, 128), Q(1.0f / 128, 0),
                                 TensorType::kUInt8)
                   .ok());
}

TEST(LocalResponseNormalization, MatchesDefinition) {
  const float bias = 1.5f, alpha = 0.3f, beta = 0.75f;
  const int radius = 2, depth = 7;
  SingleOp s(tflite::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION);
  s.Input(TensorType::kFloat32, {1, 1, 2, depth});
  s.Output(TensorType::kFloat32);
  s.Options(tflite::BuiltinOptions_LocalResponseNormalizationOptions,
            ER_OPTIONS(tflite::CreateLocalResponseNormalizationOptions(fbb, radius, bias, alpha, beta)));
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  const auto in = testing::RandomFloats(2 * depth, 5, -2, 2);
  SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto out = GetOutput<float>(*interpreter, 0);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < depth; ++c) {
      double sum = 0;
      for (int k = std::max(0, c - radius); k <= std::min(depth - 1, c + radius); ++k) {
        sum += static_cast<double>(in[r * depth + k]) * in[r * depth + k];
      }
      EXPECT_NEAR(out[r * depth + c], in[r * depth + c] / std::pow(bias + alpha * sum, beta), 1e-5);
    }
  }
}

// ---- the fixed-point and table helpers behind these kernels

TEST(FixedPointMath, Int32FunctionsFollowTheRealOnes) {
  using F4 = quant::fp::FixedPoint<int32_t, 4>;
  for (double x = -15.9; x < 15.9; x += 0.0937) {
    const F4 in = F4::FromRaw(static_cast<int32_t>(std::lround(x * (1 << 27))));
    const double real = static_cast<double>(in.raw) / (1 << 27);
    EXPECT_NEAR(quant::fp::Logistic(in).raw / 2147483648.0, Sigmoid(real), 2e-7) << x;
    EXPECT_NEAR(quant::fp::Tanh(in).raw / 2147483648.0, std::tanh(real), 4e-7) << x;
    if (real <= 0) {
      EXPECT_NEAR(quant::fp::ExpOnNegativeValues(in).raw / 2147483648.0, std::exp(real), 2e-7) << x;
    }
  }
  // Exact anchors: logistic(0) = 1/2, tanh(0) = 0, exp(0) = the largest Q0.31 value.
  EXPECT_EQ(quant::fp::Logistic(F4::Zero()).raw, 1 << 30);
  EXPECT_EQ(quant::fp::Tanh(F4::Zero()).raw, 0);
  EXPECT_EQ(quant::fp::ExpOnNegativeValues(F4::Zero()).raw, std::numeric_limits<int32_t>::max());
}

TEST(FixedPointMath, InverseSqrtMultiplier) {
  for (int32_t v : {2, 3, 100, 12345, 1 << 20, (1 << 30) + 12345}) {
    int32_t multiplier = 0;
    int shift = 0;
    quant::fp::InvSqrtQuantizedMultiplierExp(v, -1, &multiplier, &shift);
    EXPECT_LE(shift, 0);
    const double value = multiplier / 2147483648.0 * std::pow(2.0, shift);
    EXPECT_NEAR(value * std::sqrt(static_cast<double>(v)), 1.0, 1e-5) << v;
  }
  int32_t multiplier = 0;
  int shift = 5;
  quant::fp::InvSqrtQuantizedMultiplierExp(0, -1, &multiplier, &shift);  // 0 and 1 are treated as 1
  EXPECT_EQ(multiplier, std::numeric_limits<int32_t>::max());
  EXPECT_EQ(shift, 0);
}

TEST(LookupTables, EightBitTablesAreIndexedByTheByte) {
  int8_t lut[256];
  quant::PopulateLut8<int8_t>(1.0f, 0, 1.0f, 0, [](float x) { return -x; }, lut);
  EXPECT_EQ(quant::LookupLut8<int8_t>(5, lut), -5);
  EXPECT_EQ(quant::LookupLut8<int8_t>(-1, lut), 1);
  EXPECT_EQ(lut[255], 1);                              // -1 lives at byte 0xFF
  EXPECT_EQ(quant::LookupLut8<int8_t>(-128, lut), 127);  // 128 saturates
}

TEST(LookupTables, SixteenBitTableInterpolates) {
  // exp over [-10, 0] into a symmetric [-1, 1] output (1.0 = 32768), the int16 softmax's table;
  // linear interpolation between 512 samples stays within a few steps.
  int16_t lut[quant::kLut16Size];
  quant::PopulateLut16<double>(10.0 / 65535, 32767, 2.0 / 65535, 0, [](double x) { return std::exp(x); }, lut);
  // The 512 steps split [input_min, input_max] evenly: raw v sits at (v + 32768) / 65536 of it.
  const double input_min = 10.0 / 65535 * (-32768 - 32767), input_max = 0;
  for (int v = -32768; v <= 32767; v += 131) {
    const double x = input_min + (v + 32768) / 65536.0 * (input_max - input_min);
    EXPECT_NEAR(quant::LookupLut16(static_cast<int16_t>(v), lut), std::exp(x) * 32768, 2.0) << v;
  }
}

TEST(LookupTables, SixteenBitTableMapsNaNSamplesToZero) {
  // 1 / sqrt(x) over [-1, 1]: the negative half is NaN (int16 RSQRT of a negative input), which
  // must give 0 rather than an undefined float-to-int conversion; the positive half saturates
  // near 0 and falls after.
  int16_t lut[quant::kLut16Size];
  quant::PopulateLut16<float>(1.0f / 32768, 0, 8.0f / 32768, 0, [](float x) { return 1.0f / std::sqrt(x); }, lut);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(lut[i], 0) << i;
  EXPECT_EQ(lut[257], 32767);
  EXPECT_EQ(lut[512], 4096);  // 1 / sqrt(32767 / 32768) ~ 1.0 = 4096 steps of 8 / 32768
}

TEST(QuantizedActivations, EmptyTensorsRunAndKeepTheirShape) {
  struct Case {
    tflite::BuiltinOperator op;
    TensorType type;
    Shape shape;
    QuantizationParams qin, qout;
  };
  for (const Case& c : {Case{tflite::BuiltinOperator_SOFTMAX, TensorType::kInt8, {0, 5}, Q(0.1f, 0), Q(1.0f / 256, -128)},
                        Case{tflite::BuiltinOperator_SOFTMAX, TensorType::kFloat32, {3, 0}, {}, {}},
                        Case{tflite::BuiltinOperator_LOGISTIC, TensorType::kInt16, {0}, Q(1.0f / 4096, 0),
                             Q(1.0f / 32768, 0)},
                        Case{tflite::BuiltinOperator_LEAKY_RELU, TensorType::kUInt8, {2, 0}, Q(0.1f, 3), Q(0.1f, 3)},
                        Case{tflite::BuiltinOperator_L2_NORMALIZATION, TensorType::kInt8, {2, 0}, Q(0.1f, 0),
                             Q(1.0f / 128, 0)},
                        Case{tflite::BuiltinOperator_RELU6, TensorType::kInt8, {0, 3}, Q(0.1f, 0), Q(0.1f, 0)}}) {
    SingleOp s(c.op);
    s.Input(c.type, c.shape, c.qin);
    s.Output(c.type, {}, c.qout);
    auto interpreter = s.Build();
    ASSERT_TRUE(interpreter) << tflite::EnumNameBuiltinOperator(c.op);
    ASSERT_TRUE(interpreter->Invoke().ok()) << tflite::EnumNameBuiltinOperator(c.op);
    EXPECT_EQ(interpreter->output(0)->shape, c.shape);
  }
}

}  // namespace
}  // namespace edgerun
