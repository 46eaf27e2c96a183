// RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN against h' = act(W x + W_h h + b)
// written here: float, hybrid (products as defined in recurrent_test_util.h), hybrid with
// asymmetric inputs (close to float), both sequence layouts, merged outputs, aux inputs; then
// bad models.
#include <gtest/gtest.h>

#include "recurrent_test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::RecurrentOp;
using testing::SetInput;

struct RnnSpec {
  int n_batch = 1, input_size = 1, num_units = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType_RELU;
  bool hybrid = false;
};

struct RnnWeights {
  std::vector<float> w, wh, b;
};

RnnWeights RandomRnn(const RnnSpec& s, uint32_t seed) {
  return {testing::RandomFloats(s.num_units * s.input_size, seed, -0.8f, 0.8f),
          testing::RandomFloats(s.num_units * s.num_units, seed + 1, -0.5f, 0.5f),
          testing::RandomFloats(s.num_units, seed + 2, -0.3f, 0.3f)};
}

float Act(tflite::ActivationFunctionType act, float x) {
  switch (act) {
    case tflite::ActivationFunctionType_RELU: return std::max(0.0f, x);
    case tflite::ActivationFunctionType_RELU_N1_TO_1: return std::min(1.0f, std::max(-1.0f, x));
    case tflite::ActivationFunctionType_TANH: return std::tanh(x);
    default: return x;
  }
}

class ReferenceRnn {
 public:
  ReferenceRnn(const RnnSpec& s, const RnnWeights& w) : s_(s), w_(w), h_(s.n_batch * s.num_units, 0.0f) {
    if (s.hybrid) {
      qw_ = testing::QuantizeWeights(w.w, &sw_, &dw_);
      qh_ = testing::QuantizeWeights(w.wh, &sh_, &dh_);
    }
  }
  std::vector<float> Step(const std::vector<float>& x) {
    std::vector<float> out(s_.n_batch * s_.num_units);
    for (int b = 0; b < s_.n_batch; ++b) {
      const std::vector<float> xb(x.begin() + b * s_.input_size, x.begin() + (b + 1) * s_.input_size);
      const std::vector<float> hb(h_.begin() + b * s_.num_units, h_.begin() + (b + 1) * s_.num_units);
      const auto px = Product(w_.w, qw_, sw_, s_.input_size, xb);
      const auto ph = Product(w_.wh, qh_, sh_, s_.num_units, hb);
      for (int u = 0; u < s_.num_units; ++u) {
        out[b * s_.num_units + u] = Act(s_.activation, w_.b[u] + px[u] + ph[u]);
      }
    }
    h_ = out;
    return out;
  }

 private:
  std::vector<float> Product(const std::vector<float>& w, const std::vector<int8_t>& q, float scale, int cols,
                             const std::vector<float>& v) const {
    if (s_.hybrid) return testing::HybridMatVec(q, scale, s_.num_units, cols, v);
    std::vector<float> out(s_.num_units, 0.0f);
    for (int r = 0; r < s_.num_units; ++r) {
      for (int c = 0; c < cols; ++c) out[r] += w[r * cols + c] * v[c];
    }
    return out;
  }
  RnnSpec s_;
  RnnWeights w_;
  std::vector<float> h_;
  std::vector<int8_t> qw_, qh_;
  float sw_ = 1, sh_ = 1;
  std::vector<float> dw_, dh_;
};

// Adds weights, recurrent weights and bias (float or int8).
void AddRnnWeights(RecurrentOp& op, const RnnSpec& s, const RnnWeights& w) {
  auto matrix = [&](const std::vector<float>& v, Shape shape) {
    if (s.hybrid) {
      float scale = 0;
      std::vector<float> unused;
      const auto q = testing::QuantizeWeights(v, &scale, &unused);
      op.Const<int8_t>(TensorType::kInt8, shape, q, testing::Quant(scale));
    } else {
      op.Const<float>(TensorType::kFloat32, shape, v);
    }
  };
  matrix(w.w, {s.num_units, s.input_size});
  matrix(w.wh, {s.num_units, s.num_units});
  op.Const<float>(TensorType::kFloat32, {s.num_units}, w.b);
}

void CheckRnn(const RnnSpec& s, uint32_t seed, bool asymmetric, float tolerance) {
  const RnnWeights w = RandomRnn(s, seed);
  RecurrentOp op(tflite::BuiltinOperator_RNN);
  op.Input(TensorType::kFloat32, {s.n_batch, s.input_size});
  AddRnnWeights(op, s, w);
  op.Variable(TensorType::kFloat32, {s.n_batch, s.num_units});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_RNNOptions, ER_OPTIONS(tflite::CreateRNNOptions(fbb, s.activation, asymmetric)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  RnnSpec ref_spec = s;
  RnnWeights ref_w = w;
  if (asymmetric) {  // compare with float on the dequantized weights
    ref_spec.hybrid = false;
    float scale = 0;
    testing::QuantizeWeights(w.w, &scale, &ref_w.w);
    testing::QuantizeWeights(w.wh, &scale, &ref_w.wh);
  }
  ReferenceRnn ref(ref_spec, ref_w);
  for (int t = 0; t < 4; ++t) {
    const auto x = testing::RandomFloats(s.n_batch * s.input_size, seed * 7 + t, -1.0f, 1.0f);
    SetInput<float>(*interpreter, 0, x);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{s.n_batch, s.num_units}));
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), ref.Step(x), tolerance)) << "step " << t;
  }
}

TEST(Rnn, FloatReluOverSteps) {
  RnnSpec s;
  s.n_batch = 2, s.input_size = 3, s.num_units = 4;
  CheckRnn(s, 1, false, 1e-5f);
}

TEST(Rnn, FloatTanhAndReluN1To1) {
  RnnSpec s;
  s.n_batch = 1, s.input_size = 5, s.num_units = 3;
  s.activation = tflite::ActivationFunctionType_TANH;
  CheckRnn(s, 2, false, 1e-5f);
  s.activation = tflite::ActivationFunctionType_RELU_N1_TO_1;
  CheckRnn(s, 3, false, 1e-5f);
}

TEST(Rnn, HandComputedOneUnit) {
  // h1 = relu(2 * 1 + 0.5 * 0 + 0.25) = 2.25; h2 = relu(2 * -1 + 0.5 * 2.25 + 0.25) = 0.
  RecurrentOp op(tflite::BuiltinOperator_RNN);
  op.Input(TensorType::kFloat32, {1, 1});
  op.Const<float>(TensorType::kFloat32, {1, 1}, {2.0f});
  op.Const<float>(TensorType::kFloat32, {1, 1}, {0.5f});
  op.Const<float>(TensorType::kFloat32, {1}, {0.25f});
  op.Variable(TensorType::kFloat32, {1, 1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_RNNOptions, ER_OPTIONS(tflite::CreateRNNOptions(fbb, tflite::ActivationFunctionType_RELU)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1.0f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{2.25f}));
  SetInput<float>(*interpreter, 0, {-1.0f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0.0f}));
}

TEST(Rnn, HybridMatchesQuantizedProducts) {
  RnnSpec s;
  s.n_batch = 2, s.input_size = 4, s.num_units = 3;
  s.hybrid = true, s.activation = tflite::ActivationFunctionType_TANH;
  CheckRnn(s, 4, false, 1e-5f);
}

TEST(Rnn, HybridAsymmetricCloseToFloat) {
  RnnSpec s;
  s.n_batch = 2, s.input_size = 4, s.num_units = 3;
  s.hybrid = true, s.activation = tflite::ActivationFunctionType_TANH;
  CheckRnn(s, 5, true, 0.03f);
}

// ---- sequences

void CheckSequenceRnn(const RnnSpec& s, uint32_t seed, int max_time, bool time_major) {
  const RnnWeights w = RandomRnn(s, seed);
  RecurrentOp op(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN);
  const Shape shape = time_major ? Shape{max_time, s.n_batch, s.input_size} : Shape{s.n_batch, max_time, s.input_size};
  op.Input(TensorType::kFloat32, shape);
  AddRnnWeights(op, s, w);
  op.Variable(TensorType::kFloat32, {s.n_batch, s.num_units});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_SequenceRNNOptions,
             ER_OPTIONS(tflite::CreateSequenceRNNOptions(fbb, time_major, s.activation)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const auto x = testing::RandomFloats(max_time * s.n_batch * s.input_size, seed + 50, -1.0f, 1.0f);
  SetInput<float>(*interpreter, 0, x);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const Shape out = time_major ? Shape{max_time, s.n_batch, s.num_units} : Shape{s.n_batch, max_time, s.num_units};
  EXPECT_EQ(interpreter->output(0)->shape, out);
  const auto got = GetOutput<float>(*interpreter, 0);
  ReferenceRnn ref(s, w);
  for (int t = 0; t < max_time; ++t) {
    std::vector<float> xt;
    for (int b = 0; b < s.n_batch; ++b) {
      const int row = time_major ? t * s.n_batch + b : b * max_time + t;
      xt.insert(xt.end(), x.begin() + row * s.input_size, x.begin() + (row + 1) * s.input_size);
    }
    const auto want = ref.Step(xt);
    for (int b = 0; b < s.n_batch; ++b) {
      const int row = time_major ? t * s.n_batch + b : b * max_time + t;
      for (int u = 0; u < s.num_units; ++u) {
        EXPECT_NEAR(got[row * s.num_units + u], want[b * s.num_units + u], 1e-5f) << "t " << t << " b " << b;
      }
    }
  }
}

TEST(UnidirectionalSequenceRnn, FloatBatchMajor) {
  RnnSpec s;
  s.n_batch = 2, s.input_size = 3, s.num_units = 4;
  CheckSequenceRnn(s, 10, 5, false);
}

TEST(UnidirectionalSequenceRnn, FloatTimeMajorTanh) {
  RnnSpec s;
  s.n_batch = 3, s.input_size = 2, s.num_units = 3;
  s.activation = tflite::ActivationFunctionType_TANH;
  CheckSequenceRnn(s, 11, 4, true);
}

TEST(UnidirectionalSequenceRnn, HybridBatchMajor) {
  RnnSpec s;
  s.n_batch = 2, s.input_size = 3, s.num_units = 4;
  s.hybrid = true;
  CheckSequenceRnn(s, 12, 3, false);
}

struct BidiRnnCase {
  bool merge_outputs = false, time_major = false, aux_feeds_backward = false, aux_weights = false;
};

void CheckBidiRnn(const BidiRnnCase& c) {
  const int n_batch = 2, input_size = 3, aux_size = 2, max_time = 4;
  RnnSpec fs;
  fs.n_batch = n_batch, fs.input_size = input_size, fs.num_units = 3;
  fs.activation = tflite::ActivationFunctionType_TANH;
  RnnSpec bs = fs;
  bs.num_units = 2;
  if (c.aux_feeds_backward) bs.input_size = aux_size;
  const RnnWeights fw = RandomRnn(fs, 20), bw = RandomRnn(bs, 30);
  const auto fw_aux = testing::RandomFloats(fs.num_units * aux_size, 40, -0.5f, 0.5f);
  const auto bw_aux = testing::RandomFloats(bs.num_units * aux_size, 41, -0.5f, 0.5f);
  // Aux weights act as extra input columns in the reference.
  RnnSpec fs_ref = fs, bs_ref = bs;
  RnnWeights fw_ref = fw, bw_ref = bw;
  if (c.aux_weights) {
    fs_ref.input_size += aux_size, bs_ref.input_size += aux_size;
    auto widen = [&](const std::vector<float>& w, const std::vector<float>& aux, int rows) {
      std::vector<float> out;
      for (int r = 0; r < rows; ++r) {
        out.insert(out.end(), w.begin() + r * input_size, w.begin() + (r + 1) * input_size);
        out.insert(out.end(), aux.begin() + r * aux_size, aux.begin() + (r + 1) * aux_size);
      }
      return out;
    };
    fw_ref.w = widen(fw.w, fw_aux, fs.num_units);
    bw_ref.w = widen(bw.w, bw_aux, bs.num_units);
  }
  RecurrentOp op(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN);
  auto seq = [&](int n) { return c.time_major ? Shape{max_time, n_batch, n} : Shape{n_batch, max_time, n}; };
  op.Input(TensorType::kFloat32, seq(input_size));
  AddRnnWeights(op, fs, fw);
  op.Variable(TensorType::kFloat32, {n_batch, fs.num_units});
  AddRnnWeights(op, bs, bw);
  op.Variable(TensorType::kFloat32, {n_batch, bs.num_units});
  const bool has_aux = c.aux_feeds_backward || c.aux_weights;
  if (has_aux) {
    op.Input(TensorType::kFloat32, seq(aux_size));
  } else {
    op.Omitted();
  }
  if (c.aux_weights) {
    op.Const<float>(TensorType::kFloat32, {fs.num_units, aux_size}, fw_aux);
    op.Const<float>(TensorType::kFloat32, {bs.num_units, aux_size}, bw_aux);
  } else {
    op.Omitted();
    op.Omitted();
  }
  op.Output(TensorType::kFloat32);
  if (!c.merge_outputs) op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_BidirectionalSequenceRNNOptions,
             ER_OPTIONS(tflite::CreateBidirectionalSequenceRNNOptions(fbb, c.time_major, fs.activation,
                                                                      c.merge_outputs)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const auto x = testing::RandomFloats(max_time * n_batch * input_size, 42, -1.0f, 1.0f);
  const auto aux = testing::RandomFloats(max_time * n_batch * aux_size, 43, -1.0f, 1.0f);
  SetInput<float>(*interpreter, 0, x);
  if (has_aux) SetInput<float>(*interpreter, 1, aux);
  ASSERT_TRUE(interpreter->Invoke().ok());
  auto row_of = [&](int t, int b) { return c.time_major ? t * n_batch + b : b * max_time + t; };
  auto step_input = [&](int t, bool backward) {
    std::vector<float> xt;
    for (int b = 0; b < n_batch; ++b) {
      const int row = row_of(t, b);
      if (backward && c.aux_feeds_backward) {
        xt.insert(xt.end(), aux.begin() + row * aux_size, aux.begin() + (row + 1) * aux_size);
        continue;
      }
      xt.insert(xt.end(), x.begin() + row * input_size, x.begin() + (row + 1) * input_size);
      if (c.aux_weights) xt.insert(xt.end(), aux.begin() + row * aux_size, aux.begin() + (row + 1) * aux_size);
    }
    return xt;
  };
  const int fw_width = c.merge_outputs ? fs.num_units + bs.num_units : fs.num_units;
  const int bw_width = c.merge_outputs ? fw_width : bs.num_units;
  const int bw_offset = c.merge_outputs ? fs.num_units : 0;
  EXPECT_EQ(interpreter->output(0)->shape, seq(fw_width));
  const auto fw_got = GetOutput<float>(*interpreter, 0);
  const auto bw_got = c.merge_outputs ? fw_got : GetOutput<float>(*interpreter, 1);
  ReferenceRnn fref(fs_ref, fw_ref), bref(bs_ref, bw_ref);
  for (int i = 0; i < max_time; ++i) {
    const auto fwant = fref.Step(step_input(i, false));
    const int tb = max_time - 1 - i;
    const auto bwant = bref.Step(step_input(tb, true));
    for (int b = 0; b < n_batch; ++b) {
      for (int u = 0; u < fs.num_units; ++u) {
        EXPECT_NEAR(fw_got[row_of(i, b) * fw_width + u], fwant[b * fs.num_units + u], 1e-5f);
      }
      for (int u = 0; u < bs.num_units; ++u) {
        EXPECT_NEAR(bw_got[row_of(tb, b) * bw_width + bw_offset + u], bwant[b * bs.num_units + u], 1e-5f);
      }
    }
  }
}

TEST(BidirectionalSequenceRnn, SeparateOutputsBatchMajor) { CheckBidiRnn({false, false, false, false}); }
TEST(BidirectionalSequenceRnn, MergedOutputsTimeMajor) { CheckBidiRnn({true, true, false, false}); }
TEST(BidirectionalSequenceRnn, AuxInputFeedsTheBackwardCell) { CheckBidiRnn({false, true, true, false}); }
TEST(BidirectionalSequenceRnn, AuxWeightsMergedBatchMajor) { CheckBidiRnn({true, false, false, true}); }

// ---- bad models

RecurrentOp RnnWith(Shape input, Shape weights, Shape recurrent, Shape bias, Shape hidden, bool variable = true) {
  RecurrentOp op(tflite::BuiltinOperator_RNN);
  op.Input(TensorType::kFloat32, input);
  op.Const<float>(TensorType::kFloat32, weights, std::vector<float>(NumElements(weights), 0.1f));
  op.Const<float>(TensorType::kFloat32, recurrent, std::vector<float>(NumElements(recurrent), 0.1f));
  op.Const<float>(TensorType::kFloat32, bias, std::vector<float>(NumElements(bias), 0.1f));
  if (variable) {
    op.Variable(TensorType::kFloat32, hidden);
  } else {
    op.Plain(TensorType::kFloat32, hidden);
  }
  op.Output(TensorType::kFloat32);
  return op;
}

TEST(RnnErrors, ShapesMustAgree) {
  EXPECT_TRUE(RnnWith({1, 3}, {2, 3}, {2, 2}, {2}, {1, 2}).TryBuild().ok());
  const Status bad_input = RnnWith({1, 4}, {2, 3}, {2, 2}, {2}, {1, 2}).TryBuild();
  EXPECT_FALSE(bad_input.ok());
  EXPECT_NE(bad_input.message().find("weights"), std::string::npos) << bad_input.message();
  EXPECT_FALSE(RnnWith({1, 3}, {2, 3}, {2, 3}, {2}, {1, 2}).TryBuild().ok());
  EXPECT_FALSE(RnnWith({1, 3}, {2, 3}, {2, 2}, {3}, {1, 2}).TryBuild().ok());
  EXPECT_FALSE(RnnWith({1, 3}, {2, 3}, {2, 2}, {2}, {2, 2}).TryBuild().ok());
}

TEST(RnnErrors, HiddenStateMustBeVariable) {
  const Status st = RnnWith({1, 3}, {2, 3}, {2, 2}, {2}, {1, 2}, false).TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("variable"), std::string::npos) << st.message();
}

TEST(RnnErrors, MissingBiasAndSequenceRank) {
  RecurrentOp op(tflite::BuiltinOperator_RNN);
  op.Input(TensorType::kFloat32, {1, 3});
  op.Const<float>(TensorType::kFloat32, {2, 3}, std::vector<float>(6, 0.1f));
  op.Const<float>(TensorType::kFloat32, {2, 2}, std::vector<float>(4, 0.1f));
  op.Omitted();
  op.Variable(TensorType::kFloat32, {1, 2});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());

  RecurrentOp seq(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN);
  seq.Input(TensorType::kFloat32, {1, 3});
  seq.Const<float>(TensorType::kFloat32, {2, 3}, std::vector<float>(6, 0.1f));
  seq.Const<float>(TensorType::kFloat32, {2, 2}, std::vector<float>(4, 0.1f));
  seq.Const<float>(TensorType::kFloat32, {2}, std::vector<float>(2, 0.1f));
  seq.Variable(TensorType::kFloat32, {1, 2});
  seq.Output(TensorType::kFloat32);
  const Status st = seq.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rank 3"), std::string::npos) << st.message();
}

TEST(RnnErrors, Int8InputIsUnsupported) {
  RecurrentOp op(tflite::BuiltinOperator_RNN);
  op.Input(TensorType::kInt8, {1, 3}, testing::Quant(0.1f));
  op.Const<int8_t>(TensorType::kInt8, {2, 3}, std::vector<int8_t>(6, 1), testing::Quant(0.1f));
  op.Const<int8_t>(TensorType::kInt8, {2, 2}, std::vector<int8_t>(4, 1), testing::Quant(0.1f));
  op.Const<float>(TensorType::kFloat32, {2}, std::vector<float>(2, 0.1f));
  op.Variable(TensorType::kFloat32, {1, 2});
  op.Output(TensorType::kFloat32);
  EXPECT_TRUE(op.TryBuild().unsupported());
}

TEST(RnnErrors, BidirectionalAuxWeightsComeInPairs) {
  RecurrentOp op(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN);
  op.Input(TensorType::kFloat32, {1, 2, 3});
  for (int d = 0; d < 2; ++d) {
    op.Const<float>(TensorType::kFloat32, {2, 3}, std::vector<float>(6, 0.1f));
    op.Const<float>(TensorType::kFloat32, {2, 2}, std::vector<float>(4, 0.1f));
    op.Const<float>(TensorType::kFloat32, {2}, std::vector<float>(2, 0.1f));
    op.Variable(TensorType::kFloat32, {1, 2});
  }
  op.Input(TensorType::kFloat32, {1, 2, 3});
  op.Const<float>(TensorType::kFloat32, {2, 3}, std::vector<float>(6, 0.1f));
  op.Omitted();
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
