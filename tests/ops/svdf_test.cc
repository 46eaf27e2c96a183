// SVDF against its definition written here: each (batch, filter) keeps the last memory_size
// feature activations dot(weights_feature[f], x); output[u] = act(bias[u] + sum over the rank
// filters of unit u of dot(weights_time[f], memory[f])). Float over several steps and ranks,
// hybrid (feature product as defined in recurrent_test_util.h), integer with int16 and int8
// (TFLite Micro) state against the float definition on dequantized values; then bad models.
#include <gtest/gtest.h>

#include <deque>
#include <limits>

#include "recurrent_test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::RecurrentOp;
using testing::SetInput;

struct SvdfSpec {
  int batch = 1, input_size = 1, units = 1, rank = 1, memory = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType_NONE;
  int filters() const { return units * rank; }
};

class ReferenceSvdf {
 public:
  // feature(b, f, x_b) gives the newest activation of filter f.
  ReferenceSvdf(const SvdfSpec& s, std::vector<float> weights_time, std::vector<float> bias)
      : s_(s), wt_(std::move(weights_time)), bias_(std::move(bias)),
        memory_(s.batch * s.filters(), std::deque<float>(s.memory, 0.0f)) {}

  std::vector<float> Step(const std::vector<float>& activations) {  // [batch, filters]
    std::vector<float> out(s_.batch * s_.units);
    for (int b = 0; b < s_.batch; ++b) {
      for (int f = 0; f < s_.filters(); ++f) {
        auto& m = memory_[b * s_.filters() + f];
        m.pop_front();
        m.push_back(activations[b * s_.filters() + f]);
      }
      for (int u = 0; u < s_.units; ++u) {
        double sum = bias_.empty() ? 0.0 : bias_[u];
        for (int r = 0; r < s_.rank; ++r) {
          const int f = u * s_.rank + r;
          const auto& m = memory_[b * s_.filters() + f];
          for (int k = 0; k < s_.memory; ++k) sum += wt_[f * s_.memory + k] * m[k];
        }
        float v = static_cast<float>(sum);
        if (s_.activation == tflite::ActivationFunctionType_RELU) v = std::max(0.0f, v);
        out[b * s_.units + u] = v;
      }
    }
    return out;
  }

 private:
  SvdfSpec s_;
  std::vector<float> wt_, bias_;
  std::vector<std::deque<float>> memory_;
};

std::vector<float> FeatureActivations(const SvdfSpec& s, const std::vector<float>& wf, const std::vector<float>& x) {
  std::vector<float> a(s.batch * s.filters(), 0.0f);
  for (int b = 0; b < s.batch; ++b) {
    for (int f = 0; f < s.filters(); ++f) {
      for (int i = 0; i < s.input_size; ++i) a[b * s.filters() + f] += wf[f * s.input_size + i] * x[b * s.input_size + i];
    }
  }
  return a;
}

void SetSvdfOptions(RecurrentOp& op, int rank, tflite::ActivationFunctionType act, bool asymmetric = false) {
  // Written when the model is built: capture by value.
  op.Options(tflite::BuiltinOptions_SVDFOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateSVDFOptions(fbb, rank, act, asymmetric).Union();
  });
}

void CheckFloatSvdf(const SvdfSpec& s, uint32_t seed, bool with_bias) {
  const auto wf = testing::RandomFloats(s.filters() * s.input_size, seed, -1.0f, 1.0f);
  const auto wt = testing::RandomFloats(s.filters() * s.memory, seed + 1, -1.0f, 1.0f);
  const auto bias = with_bias ? testing::RandomFloats(s.units, seed + 2, -0.5f, 0.5f) : std::vector<float>{};
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kFloat32, {s.batch, s.input_size});
  op.Const<float>(TensorType::kFloat32, {s.filters(), s.input_size}, wf);
  op.Const<float>(TensorType::kFloat32, {s.filters(), s.memory}, wt);
  if (with_bias) {
    op.Const<float>(TensorType::kFloat32, {s.units}, bias);
  } else {
    op.Omitted();
  }
  op.Variable(TensorType::kFloat32, {s.batch, s.filters() * s.memory});
  op.Output(TensorType::kFloat32);
  SetSvdfOptions(op, s.rank, s.activation);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ReferenceSvdf ref(s, wt, bias);
  for (int t = 0; t < s.memory + 3; ++t) {
    const auto x = testing::RandomFloats(s.batch * s.input_size, seed * 13 + t, -1.0f, 1.0f);
    SetInput<float>(*interpreter, 0, x);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{s.batch, s.units}));
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), ref.Step(FeatureActivations(s, wf, x)), 1e-5f))
        << "step " << t;
  }
}

TEST(Svdf, FloatRankOne) {
  SvdfSpec s;
  s.batch = 2, s.input_size = 3, s.units = 4, s.rank = 1, s.memory = 3;
  CheckFloatSvdf(s, 1, true);
}

TEST(Svdf, FloatRankTwoReluNoBias) {
  SvdfSpec s;
  s.batch = 2, s.input_size = 4, s.units = 3, s.rank = 2, s.memory = 5;
  s.activation = tflite::ActivationFunctionType_RELU;
  CheckFloatSvdf(s, 2, false);
}

TEST(Svdf, FloatMemoryOfOne) {
  SvdfSpec s;
  s.batch = 1, s.input_size = 2, s.units = 2, s.rank = 1, s.memory = 1;
  CheckFloatSvdf(s, 3, true);
}

TEST(Svdf, HandComputedMemoryTwo) {
  // One filter, weights_feature [2], weights_time [0.5, 1] (oldest, newest), bias 1:
  // step 1 activation 3: out = 1 + 0.5*0 + 1*3 = 4; step 2 activation -1: 1 + 0.5*3 - 1 = 1.5.
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kFloat32, {1, 1});
  op.Const<float>(TensorType::kFloat32, {1, 1}, {2.0f});
  op.Const<float>(TensorType::kFloat32, {1, 2}, {0.5f, 1.0f});
  op.Const<float>(TensorType::kFloat32, {1}, {1.0f});
  op.Variable(TensorType::kFloat32, {1, 2});
  op.Output(TensorType::kFloat32);
  SetSvdfOptions(op, 1, tflite::ActivationFunctionType_NONE);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1.5f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{4.0f}));
  SetInput<float>(*interpreter, 0, {-0.5f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1.5f}));
}

TEST(Svdf, HybridMatchesQuantizedFeatureProduct) {
  SvdfSpec s;
  s.batch = 2, s.input_size = 4, s.units = 3, s.rank = 2, s.memory = 3;
  const auto wf = testing::RandomFloats(s.filters() * s.input_size, 30, -1.0f, 1.0f);
  const auto wt = testing::RandomFloats(s.filters() * s.memory, 31, -1.0f, 1.0f);
  const auto bias = testing::RandomFloats(s.units, 32, -0.5f, 0.5f);
  float wf_scale = 0, wt_scale = 0;
  std::vector<float> wf_deq, wt_deq;
  const auto qf = testing::QuantizeWeights(wf, &wf_scale, &wf_deq);
  const auto qt = testing::QuantizeWeights(wt, &wt_scale, &wt_deq);
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kFloat32, {s.batch, s.input_size});
  op.Const<int8_t>(TensorType::kInt8, {s.filters(), s.input_size}, qf, testing::Quant(wf_scale));
  op.Const<int8_t>(TensorType::kInt8, {s.filters(), s.memory}, qt, testing::Quant(wt_scale));
  op.Const<float>(TensorType::kFloat32, {s.units}, bias);
  op.Variable(TensorType::kFloat32, {s.batch, s.filters() * s.memory});
  op.Output(TensorType::kFloat32);
  SetSvdfOptions(op, s.rank, tflite::ActivationFunctionType_NONE);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ReferenceSvdf ref(s, wt_deq, bias);
  for (int t = 0; t < 5; ++t) {
    const auto x = testing::RandomFloats(s.batch * s.input_size, 33 + t, -1.0f, 1.0f);
    SetInput<float>(*interpreter, 0, x);
    ASSERT_TRUE(interpreter->Invoke().ok());
    std::vector<float> activations;
    for (int b = 0; b < s.batch; ++b) {
      const std::vector<float> xb(x.begin() + b * s.input_size, x.begin() + (b + 1) * s.input_size);
      const auto a = testing::HybridMatVec(qf, wf_scale, s.filters(), s.input_size, xb);
      activations.insert(activations.end(), a.begin(), a.end());
    }
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), ref.Step(activations), 1e-5f)) << "step " << t;
  }
}

// Integer SVDF from float weights: the result, dequantized, stays within a few output steps of
// the float definition on the dequantized weights (activations rounded to the state's scale).
template <class StateT>
void CheckIntegerSvdf(int64_t state_zero_point) {
  SvdfSpec s;
  s.batch = 2, s.input_size = 5, s.units = 3, s.rank = 2, s.memory = 4;
  s.activation = tflite::ActivationFunctionType_RELU;
  constexpr bool kInt16 = sizeof(StateT) == 2;
  const float in_scale = 1.0f / 64, state_scale = kInt16 ? 1.0f / 4096 : 1.0f / 24, out_scale = 1.0f / 16;
  const int64_t out_zp = -20;
  const auto wf = testing::RandomFloats(s.filters() * s.input_size, 40, -1.0f, 1.0f);
  const auto wt = testing::RandomFloats(s.filters() * s.memory, 41, -1.0f, 1.0f);
  const auto bias_f = testing::RandomFloats(s.units, 42, -0.5f, 0.5f);
  float wf_scale = 0;
  std::vector<float> wf_deq;
  const auto qf = testing::QuantizeWeights(wf, &wf_scale, &wf_deq);
  const float wt_scale = kInt16 ? 1.0f / 16384 : 1.0f / 100;
  std::vector<StateT> qt(wt.size());
  std::vector<float> wt_deq(wt.size());
  for (size_t i = 0; i < wt.size(); ++i) {
    qt[i] = static_cast<StateT>(std::lround(wt[i] / wt_scale));
    wt_deq[i] = qt[i] * wt_scale;
  }
  const float bias_scale = state_scale * wt_scale;
  std::vector<int32_t> qb(s.units);
  std::vector<float> bias_deq(s.units);
  for (int u = 0; u < s.units; ++u) {
    qb[u] = static_cast<int32_t>(std::lround(bias_f[u] / bias_scale));
    bias_deq[u] = qb[u] * bias_scale;
  }
  const TensorType state_type = kInt16 ? TensorType::kInt16 : TensorType::kInt8;
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kInt8, {s.batch, s.input_size}, testing::Quant(in_scale, 3));
  op.Const<int8_t>(TensorType::kInt8, {s.filters(), s.input_size}, qf, testing::Quant(wf_scale));
  op.Const<StateT>(state_type, {s.filters(), s.memory}, qt, testing::Quant(wt_scale));
  op.Const<int32_t>(TensorType::kInt32, {s.units}, qb, testing::Quant(bias_scale));
  op.Variable(state_type, {s.batch, s.filters() * s.memory}, testing::Quant(state_scale, state_zero_point));
  op.Output(TensorType::kInt8, testing::Quant(out_scale, out_zp));
  SetSvdfOptions(op, s.rank, s.activation);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  // TFLite requires RELU but applies only the int8 clamp: the reference has no activation.
  SvdfSpec ref_spec = s;
  ref_spec.activation = tflite::ActivationFunctionType_NONE;
  ReferenceSvdf ref(ref_spec, wt_deq, bias_deq);
  const float state_min = std::numeric_limits<StateT>::min(), state_max = std::numeric_limits<StateT>::max();
  for (int t = 0; t < 6; ++t) {
    const auto xf = testing::RandomFloats(s.batch * s.input_size, 43 + t, -1.0f, 1.0f);
    std::vector<int8_t> xq(xf.size());
    std::vector<float> xd(xf.size());
    for (size_t i = 0; i < xf.size(); ++i) {
      xq[i] = static_cast<int8_t>(std::lround(xf[i] / in_scale) + 3);
      xd[i] = (xq[i] - 3) * in_scale;
    }
    SetInput<int8_t>(*interpreter, 0, xq);
    ASSERT_TRUE(interpreter->Invoke().ok());
    auto activations = FeatureActivations(s, wf_deq, xd);
    // The newest activation lands on the state's grid, saturated to its type.
    for (float& a : activations) {
      const float q = std::min(state_max, std::max(state_min, std::round(a / state_scale) + state_zero_point));
      a = (q - state_zero_point) * state_scale;
    }
    const auto want = ref.Step(activations);
    const auto got = GetOutput<int8_t>(*interpreter, 0);
    for (size_t i = 0; i < got.size(); ++i) {
      const float want_q = std::round(want[i] / out_scale) + out_zp;
      EXPECT_NEAR(got[i], std::min(127.0f, std::max(-128.0f, want_q)), 1.0f) << "step " << t << " i " << i;
    }
  }
}

TEST(Svdf, IntegerInt16State) { CheckIntegerSvdf<int16_t>(0); }
TEST(Svdf, IntegerInt8StateWithZeroPoint) { CheckIntegerSvdf<int8_t>(-7); }

// ---- bad models

RecurrentOp SvdfWith(Shape input, Shape features, Shape time, Shape state, int rank, bool bias = true) {
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kFloat32, input);
  op.Const<float>(TensorType::kFloat32, features, std::vector<float>(NumElements(features), 0.1f));
  op.Const<float>(TensorType::kFloat32, time, std::vector<float>(NumElements(time), 0.1f));
  if (bias) {
    op.Const<float>(TensorType::kFloat32, {features[0] / std::max(rank, 1)}, std::vector<float>(features[0] / std::max(rank, 1), 0.0f));
  } else {
    op.Omitted();
  }
  op.Variable(TensorType::kFloat32, state);
  op.Output(TensorType::kFloat32);
  SetSvdfOptions(op, rank, tflite::ActivationFunctionType_NONE);
  return op;
}

TEST(SvdfErrors, ShapesAndRank) {
  EXPECT_TRUE(SvdfWith({1, 3}, {4, 3}, {4, 2}, {1, 8}, 2).TryBuild().ok());
  EXPECT_FALSE(SvdfWith({1, 3}, {4, 3}, {4, 2}, {1, 8}, 0).TryBuild().ok());   // rank 0
  EXPECT_FALSE(SvdfWith({1, 3}, {4, 3}, {4, 2}, {1, 8}, 3, false).TryBuild().ok());  // 4 % 3
  EXPECT_FALSE(SvdfWith({1, 2}, {4, 3}, {4, 2}, {1, 8}, 2).TryBuild().ok());   // input width
  EXPECT_FALSE(SvdfWith({1, 3}, {4, 3}, {5, 2}, {1, 10}, 2).TryBuild().ok());  // time rows
  const Status st = SvdfWith({1, 3}, {4, 3}, {4, 2}, {1, 9}, 2).TryBuild();  // state size
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("state"), std::string::npos) << st.message();
}

TEST(SvdfErrors, MissingOptionsAndIntegerNeedsRelu) {
  RecurrentOp op(tflite::BuiltinOperator_SVDF);
  op.Input(TensorType::kFloat32, {1, 3});
  op.Const<float>(TensorType::kFloat32, {2, 3}, std::vector<float>(6, 0.1f));
  op.Const<float>(TensorType::kFloat32, {2, 2}, std::vector<float>(4, 0.1f));
  op.Omitted();
  op.Variable(TensorType::kFloat32, {1, 4});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());

  RecurrentOp q(tflite::BuiltinOperator_SVDF);
  q.Input(TensorType::kInt8, {1, 3}, testing::Quant(0.1f));
  q.Const<int8_t>(TensorType::kInt8, {2, 3}, std::vector<int8_t>(6, 1), testing::Quant(0.1f));
  q.Const<int16_t>(TensorType::kInt16, {2, 2}, std::vector<int16_t>(4, 1), testing::Quant(0.001f));
  q.Omitted();
  q.Variable(TensorType::kInt16, {1, 4}, testing::Quant(0.001f));
  q.Output(TensorType::kInt8, testing::Quant(0.1f));
  SetSvdfOptions(q, 1, tflite::ActivationFunctionType_TANH);
  const Status st = q.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("RELU"), std::string::npos) << st.message();
}

TEST(SvdfErrors, StateTypeMustMatchTheTimeWeights) {
  RecurrentOp q(tflite::BuiltinOperator_SVDF);
  q.Input(TensorType::kInt8, {1, 3}, testing::Quant(0.1f));
  q.Const<int8_t>(TensorType::kInt8, {2, 3}, std::vector<int8_t>(6, 1), testing::Quant(0.1f));
  q.Const<int16_t>(TensorType::kInt16, {2, 2}, std::vector<int16_t>(4, 1), testing::Quant(0.001f));
  q.Omitted();
  q.Variable(TensorType::kInt8, {1, 4}, testing::Quant(0.001f));
  q.Output(TensorType::kInt8, testing::Quant(0.1f));
  SetSvdfOptions(q, 1, tflite::ActivationFunctionType_RELU);
  EXPECT_FALSE(q.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
