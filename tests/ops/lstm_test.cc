// LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM: every variant (CIFG,
// peephole, projection with clipping, layer norm, diagonal recurrent weights, aux input) against
// an LSTM written here from its equations; hybrid against the same equations with the hybrid
// products defined in recurrent_test_util.h; the integer kernel against the float equations on
// its dequantized weights (within a few output steps), and its 16-bit fixed-point sigmoid/tanh
// against the real functions. Then bad models.
#include <gtest/gtest.h>

#include <cmath>

#include "quant/lstm_quant.h"
#include "recurrent_test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::RecurrentOp;
using testing::SetInput;
using testing::Sigmoid;

enum Gate { kI = 0, kF = 1, kC = 2, kO = 3 };

struct LstmSpec {
  int n_batch = 1, n_input = 1, n_cell = 1, n_output = 1;
  bool cifg = false, peephole = false, projection = false, projection_bias = true, layer_norm = false;
  bool diagonal = false;  // rank-1 recurrent weights (UNIDIRECTIONAL_SEQUENCE_LSTM)
  float cell_clip = 0, proj_clip = 0;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType_TANH;
  bool hybrid = false;
};

struct LstmWeights {
  std::vector<float> wx[4], wh[4], wc[4], b[4], ln[4], proj, proj_b;
};

LstmWeights RandomWeights(const LstmSpec& s, uint32_t seed) {
  LstmWeights w;
  for (int g = 0; g < 4; ++g) {
    w.wx[g] = testing::RandomFloats(s.n_cell * s.n_input, ++seed, -0.6f, 0.6f);
    w.wh[g] = testing::RandomFloats(s.diagonal ? s.n_cell : s.n_cell * s.n_output, ++seed, -0.6f, 0.6f);
    w.wc[g] = testing::RandomFloats(s.n_cell, ++seed, -0.5f, 0.5f);
    w.b[g] = testing::RandomFloats(s.n_cell, ++seed, -0.3f, 0.3f);
    w.ln[g] = testing::RandomFloats(s.n_cell, ++seed, 0.5f, 1.5f);
  }
  w.proj = testing::RandomFloats(s.n_output * s.n_cell, ++seed, -0.7f, 0.7f);
  w.proj_b = testing::RandomFloats(s.n_output, ++seed, -0.2f, 0.2f);
  return w;
}

float Activate(tflite::ActivationFunctionType act, float x) {
  switch (act) {
    case tflite::ActivationFunctionType_RELU: return std::max(0.0f, x);
    case tflite::ActivationFunctionType_RELU6: return std::min(6.0f, std::max(0.0f, x));
    case tflite::ActivationFunctionType_TANH: return std::tanh(x);
    default: return x;
  }
}

// The weights as the hybrid kernel sees them: int8 with one scale per tensor.
struct QuantizedMatrix {
  std::vector<int8_t> q;
  float scale = 1;
  std::vector<float> dequantized;
};
QuantizedMatrix Quantize(const std::vector<float>& w) {
  QuantizedMatrix m;
  m.q = testing::QuantizeWeights(w, &m.scale, &m.dequantized);
  return m;
}

// One LSTM cell from its equations. Products of weights and vectors are float dot products,
// or hybrid (quantized rows) when the spec says so.
class ReferenceLstm {
 public:
  ReferenceLstm(const LstmSpec& s, const LstmWeights& w) : s_(s), w_(w) {
    h_.assign(s.n_batch * s.n_output, 0.0f);
    c_.assign(s.n_batch * s.n_cell, 0.0f);
    if (s.hybrid) {
      for (int g = 0; g < 4; ++g) {
        qx_[g] = Quantize(w.wx[g]);
        qh_[g] = Quantize(w.wh[g]);
        qc_[g] = Quantize(w.wc[g]);
      }
      qp_ = Quantize(w.proj);
    }
  }

  // x [n_batch, n_input] -> output [n_batch, n_output]; state carried over.
  std::vector<float> Step(const std::vector<float>& x) {
    std::vector<float> out(s_.n_batch * s_.n_output);
    for (int b = 0; b < s_.n_batch; ++b) {
      const std::vector<float> xb(x.begin() + b * s_.n_input, x.begin() + (b + 1) * s_.n_input);
      std::vector<float> hb(h_.begin() + b * s_.n_output, h_.begin() + (b + 1) * s_.n_output);
      float* c = &c_[b * s_.n_cell];
      std::vector<float> gate[4];
      for (int g : {kI, kF, kC}) {
        if (g == kI && s_.cifg) continue;
        gate[g] = GatePre(g, xb, hb, c);
      }
      for (int j = 0; j < s_.n_cell; ++j) {
        const float f = Sigmoid(gate[kF][j]);
        const float i = s_.cifg ? 1.0f - f : static_cast<float>(Sigmoid(gate[kI][j]));
        const float g = Activate(s_.activation, gate[kC][j]);
        float cj = f * c[j] + i * g;
        if (s_.cell_clip > 0) cj = std::max(-s_.cell_clip, std::min(s_.cell_clip, cj));
        c[j] = cj;
      }
      gate[kO] = GatePre(kO, xb, hb, c);  // the output gate's peephole sees the new cell
      std::vector<float> hidden(s_.n_cell);
      for (int j = 0; j < s_.n_cell; ++j) {
        hidden[j] = static_cast<float>(Sigmoid(gate[kO][j])) * Activate(s_.activation, c[j]);
      }
      std::vector<float> hnew(s_.n_output);
      if (s_.projection) {
        const std::vector<float> p = Product(w_.proj, qp_, s_.n_output, s_.n_cell, hidden);
        for (int k = 0; k < s_.n_output; ++k) {
          float v = (s_.projection_bias ? w_.proj_b[k] : 0.0f) + p[k];
          if (s_.proj_clip > 0) v = std::max(-s_.proj_clip, std::min(s_.proj_clip, v));
          hnew[k] = v;
        }
      } else {
        hnew = hidden;
      }
      std::copy(hnew.begin(), hnew.end(), h_.begin() + b * s_.n_output);
      std::copy(hnew.begin(), hnew.end(), out.begin() + b * s_.n_output);
    }
    return out;
  }

 private:
  std::vector<float> Product(const std::vector<float>& w, const QuantizedMatrix& q, int rows, int cols,
                             const std::vector<float>& v) const {
    if (s_.hybrid) return testing::HybridMatVec(q.q, q.scale, rows, cols, v);
    std::vector<float> out(rows, 0.0f);
    for (int r = 0; r < rows; ++r) {
      for (int k = 0; k < cols; ++k) out[r] += w[r * cols + k] * v[k];
    }
    return out;
  }

  std::vector<float> GatePre(int g, const std::vector<float>& x, const std::vector<float>& h, const float* c) const {
    const int n = s_.n_cell;
    std::vector<float> acc(n);
    for (int j = 0; j < n; ++j) acc[j] = s_.layer_norm ? 0.0f : w_.b[g][j];
    const auto px = Product(w_.wx[g], qx_[g], n, s_.n_input, x);
    for (int j = 0; j < n; ++j) acc[j] += px[j];
    if (s_.diagonal) {
      for (int j = 0; j < n; ++j) acc[j] += w_.wh[g][j] * h[j];
    } else {
      const auto ph = Product(w_.wh[g], qh_[g], n, s_.n_output, h);
      for (int j = 0; j < n; ++j) acc[j] += ph[j];
    }
    if (s_.peephole && g != kC) {
      for (int j = 0; j < n; ++j) acc[j] += (s_.hybrid ? qc_[g].dequantized[j] : w_.wc[g][j]) * c[j];
    }
    if (s_.layer_norm) {
      double mean = 0, var = 0;
      for (float v : acc) mean += v;
      mean /= n;
      for (float v : acc) var += (v - mean) * (v - mean);
      var /= n;
      for (int j = 0; j < n; ++j) {
        acc[j] = static_cast<float>((acc[j] - mean) / std::sqrt(var + 1e-8)) * w_.ln[g][j] + w_.b[g][j];
      }
    }
    return acc;
  }

  LstmSpec s_;
  LstmWeights w_;
  QuantizedMatrix qx_[4], qh_[4], qc_[4], qp_;
  std::vector<float> h_, c_;
};

// Adds one cell's 17 weight/bias inputs (TFLite's order) for a float or hybrid spec.
void AddCellWeights(RecurrentOp& op, const LstmSpec& s, const LstmWeights& w) {
  auto matrix = [&](const std::vector<float>& v, Shape shape) {
    if (s.hybrid) {
      const QuantizedMatrix q = Quantize(v);
      op.Const<int8_t>(TensorType::kInt8, shape, q.q, testing::Quant(q.scale));
    } else {
      op.Const<float>(TensorType::kFloat32, shape, v);
    }
  };
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
    } else {
      matrix(w.wx[g], {s.n_cell, s.n_input});
    }
  }
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
    } else if (s.diagonal) {
      op.Const<float>(TensorType::kFloat32, {s.n_cell}, w.wh[g]);
    } else {
      matrix(w.wh[g], {s.n_cell, s.n_output});
    }
  }
  for (int g : {kI, kF, kO}) {
    if (!s.peephole || (g == kI && s.cifg)) {
      op.Omitted();
    } else {
      matrix(w.wc[g], {s.n_cell});
    }
  }
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
    } else {
      op.Const<float>(TensorType::kFloat32, {s.n_cell}, w.b[g]);
    }
  }
  if (s.projection) {
    matrix(w.proj, {s.n_output, s.n_cell});
    if (s.projection_bias) {
      op.Const<float>(TensorType::kFloat32, {s.n_output}, w.proj_b);
    } else {
      op.Omitted();
    }
  } else {
    op.Omitted();
    op.Omitted();
  }
}

void AddLayerNorm(RecurrentOp& op, const LstmSpec& s, const LstmWeights& w) {
  for (int g = 0; g < 4; ++g) {
    if (!s.layer_norm || (g == kI && s.cifg)) {
      op.Omitted();
    } else {
      op.Const<float>(TensorType::kFloat32, {s.n_cell}, w.ln[g]);
    }
  }
}

// LSTM or UNIDIRECTIONAL_SEQUENCE_LSTM with the spec's tensors; input shape given.
RecurrentOp MakeLstm(tflite::BuiltinOperator code, const LstmSpec& s, const LstmWeights& w, Shape input_shape,
                     bool time_major = false) {
  RecurrentOp op(code);
  op.Input(TensorType::kFloat32, input_shape);
  AddCellWeights(op, s, w);
  op.Variable(TensorType::kFloat32, {s.n_batch, s.n_output});
  op.Variable(TensorType::kFloat32, {s.n_batch, s.n_cell});
  if (s.layer_norm) AddLayerNorm(op, s, w);
  op.Output(TensorType::kFloat32);
  // The options are written when the model is built: capture by value.
  const auto act = s.activation;
  const float cell_clip = s.cell_clip, proj_clip = s.proj_clip;
  const bool diagonal = s.diagonal;
  if (code == tflite::BuiltinOperator_LSTM) {
    op.Options(tflite::BuiltinOptions_LSTMOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
      return tflite::CreateLSTMOptions(fbb, act, cell_clip, proj_clip, tflite::LSTMKernelType_FULL, false).Union();
    });
  } else {
    op.Options(tflite::BuiltinOptions_UnidirectionalSequenceLSTMOptions, [=](flatbuffers::FlatBufferBuilder& fbb) {
      return tflite::CreateUnidirectionalSequenceLSTMOptions(fbb, act, cell_clip, proj_clip, time_major, false, diagonal)
          .Union();
    });
  }
  return op;
}

// Runs an LSTM op for `steps` invocations and compares each output with the reference.
void CheckLstmSteps(const LstmSpec& s, uint32_t seed, int steps, float tolerance) {
  const LstmWeights w = RandomWeights(s, seed);
  auto op = MakeLstm(tflite::BuiltinOperator_LSTM, s, w, {s.n_batch, s.n_input});
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ReferenceLstm ref(s, w);
  for (int t = 0; t < steps; ++t) {
    const auto x = testing::RandomFloats(s.n_batch * s.n_input, seed * 31 + t, -1.0f, 1.0f);
    SetInput<float>(*interpreter, 0, x);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{s.n_batch, s.n_output}));
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), ref.Step(x), tolerance)) << "step " << t;
  }
}

TEST(Lstm, FloatPlainMatchesEquationsOverSteps) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  CheckLstmSteps(s, 1, 4, 1e-5f);
}

TEST(Lstm, FloatCifgPeepholeProjectionWithClipping) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 5, s.n_output = 3;
  s.cifg = true, s.peephole = true, s.projection = true;
  s.cell_clip = 0.4f, s.proj_clip = 0.25f;
  CheckLstmSteps(s, 2, 4, 1e-5f);
}

TEST(Lstm, FloatPeepholeProjectionWithoutBiasRelu) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 4, s.n_output = 2;
  s.peephole = true, s.projection = true, s.projection_bias = false;
  s.activation = tflite::ActivationFunctionType_RELU;
  CheckLstmSteps(s, 3, 3, 1e-5f);
}

TEST(Lstm, FloatLayerNormWithPeephole) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  s.layer_norm = true, s.peephole = true;
  CheckLstmSteps(s, 4, 3, 1e-4f);
}

TEST(Lstm, FloatLayerNormCifgProjection) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 3, s.n_cell = 4, s.n_output = 2;
  s.layer_norm = true, s.cifg = true, s.projection = true;
  CheckLstmSteps(s, 5, 3, 1e-4f);
}

TEST(Lstm, HybridMatchesQuantizedProducts) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 3;
  s.hybrid = true, s.peephole = true, s.projection = true;
  CheckLstmSteps(s, 6, 3, 1e-4f);
}

TEST(Lstm, HybridCifgLayerNorm) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 4, s.n_cell = 4, s.n_output = 4;
  s.hybrid = true, s.cifg = true, s.layer_norm = true;
  CheckLstmSteps(s, 7, 3, 1e-4f);
}

TEST(Lstm, HybridAsymmetricInputsStayCloseToFloat) {
  // Asymmetric per-row quantization (scale and zero point from min/max): within a few
  // quantization steps of the float LSTM on the dequantized weights.
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  s.hybrid = true;
  const LstmWeights w = RandomWeights(s, 8);
  LstmWeights dequantized = w;
  for (int g = 0; g < 4; ++g) {
    dequantized.wx[g] = Quantize(w.wx[g]).dequantized;
    dequantized.wh[g] = Quantize(w.wh[g]).dequantized;
  }
  RecurrentOp op = MakeLstm(tflite::BuiltinOperator_LSTM, s, w, {s.n_batch, s.n_input});
  op.Options(tflite::BuiltinOptions_LSTMOptions,
             ER_OPTIONS(tflite::CreateLSTMOptions(fbb, s.activation, 0, 0, tflite::LSTMKernelType_FULL, true)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  LstmSpec float_spec = s;
  float_spec.hybrid = false;
  ReferenceLstm ref(float_spec, dequantized);
  for (int t = 0; t < 3; ++t) {
    const auto x = testing::RandomFloats(s.n_batch * s.n_input, 80 + t, -1.0f, 0.5f);
    SetInput<float>(*interpreter, 0, x);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), ref.Step(x), 0.02f)) << "step " << t;
  }
}

TEST(Lstm, ZeroInputAndStateGiveTheBiasOnlyAnswer) {
  // Hand-computed: one cell, zero input and state: i = f = o = sigmoid(0) = 0.5 (biases 0),
  // g = tanh(0.5) (cell bias 0.5): c = 0.5 * tanh(0.5), h = 0.5 * tanh(c).
  RecurrentOp op(tflite::BuiltinOperator_LSTM);
  op.Input(TensorType::kFloat32, {1, 1});
  for (int i = 0; i < 8; ++i) op.Const<float>(TensorType::kFloat32, {1, 1}, {0.7f});
  for (int i = 0; i < 3; ++i) op.Omitted();
  op.Const<float>(TensorType::kFloat32, {1}, {0.0f});
  op.Const<float>(TensorType::kFloat32, {1}, {0.0f});
  op.Const<float>(TensorType::kFloat32, {1}, {0.5f});
  op.Const<float>(TensorType::kFloat32, {1}, {0.0f});
  op.Omitted();
  op.Omitted();
  op.Variable(TensorType::kFloat32, {1, 1});
  op.Variable(TensorType::kFloat32, {1, 1});
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_LSTMOptions,
             ER_OPTIONS(tflite::CreateLSTMOptions(fbb, tflite::ActivationFunctionType_TANH)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0.0f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  const float c = 0.5f * std::tanh(0.5f);
  EXPECT_NEAR(GetOutput<float>(*interpreter, 0)[0], 0.5f * std::tanh(c), 1e-6f);
  // ResetVariableTensors brings the state back: the same input gives the same answer.
  ASSERT_TRUE(interpreter->Invoke().ok());
  const float second = GetOutput<float>(*interpreter, 0)[0];
  EXPECT_GT(std::fabs(second - 0.5f * std::tanh(c)), 1e-3f);
  ASSERT_TRUE(interpreter->ResetVariableTensors().ok());
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_NEAR(GetOutput<float>(*interpreter, 0)[0], 0.5f * std::tanh(c), 1e-6f);
}

// ---- UNIDIRECTIONAL_SEQUENCE_LSTM

void CheckSequence(const LstmSpec& s, uint32_t seed, int max_time, bool time_major, float tolerance) {
  const LstmWeights w = RandomWeights(s, seed);
  const Shape shape = time_major ? Shape{max_time, s.n_batch, s.n_input} : Shape{s.n_batch, max_time, s.n_input};
  auto op = MakeLstm(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, s, w, shape, time_major);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const auto x = testing::RandomFloats(max_time * s.n_batch * s.n_input, seed + 100, -1.0f, 1.0f);
  SetInput<float>(*interpreter, 0, x);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const Shape out_shape = time_major ? Shape{max_time, s.n_batch, s.n_output} : Shape{s.n_batch, max_time, s.n_output};
  EXPECT_EQ(interpreter->output(0)->shape, out_shape);
  const auto got = GetOutput<float>(*interpreter, 0);
  // The reference steps all batch rows together; gather row b of step t from either layout.
  ReferenceLstm ref(s, w);
  for (int t = 0; t < max_time; ++t) {
    std::vector<float> xt;
    for (int b = 0; b < s.n_batch; ++b) {
      const int row = time_major ? t * s.n_batch + b : b * max_time + t;
      xt.insert(xt.end(), x.begin() + row * s.n_input, x.begin() + (row + 1) * s.n_input);
    }
    const auto want = ref.Step(xt);
    for (int b = 0; b < s.n_batch; ++b) {
      const int row = time_major ? t * s.n_batch + b : b * max_time + t;
      const std::vector<float> got_row(got.begin() + row * s.n_output, got.begin() + (row + 1) * s.n_output);
      const std::vector<float> want_row(want.begin() + b * s.n_output, want.begin() + (b + 1) * s.n_output);
      EXPECT_TRUE(testing::AllNear(got_row, want_row, tolerance)) << "t " << t << " b " << b;
    }
  }
}

TEST(UnidirectionalSequenceLstm, FloatBatchMajor) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  CheckSequence(s, 10, 5, false, 1e-5f);
}

TEST(UnidirectionalSequenceLstm, FloatTimeMajorCifgPeepholeProjection) {
  LstmSpec s;
  s.n_batch = 3, s.n_input = 2, s.n_cell = 4, s.n_output = 3;
  s.cifg = true, s.peephole = true, s.projection = true, s.proj_clip = 0.3f;
  CheckSequence(s, 11, 4, true, 1e-5f);
}

TEST(UnidirectionalSequenceLstm, FloatLayerNormBatchMajor) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  s.layer_norm = true;
  CheckSequence(s, 12, 3, false, 1e-4f);
}

TEST(UnidirectionalSequenceLstm, FloatDiagonalRecurrentWeights) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 4;
  s.diagonal = true;
  CheckSequence(s, 13, 4, true, 1e-5f);
}

TEST(UnidirectionalSequenceLstm, HybridTimeMajorProjection) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = 2;
  s.hybrid = true, s.projection = true;
  CheckSequence(s, 14, 3, true, 1e-4f);
}

TEST(UnidirectionalSequenceLstm, EmptySequenceLeavesStateAlone) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 2, s.n_output = 2;
  const LstmWeights w = RandomWeights(s, 15);
  auto op = MakeLstm(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, s, w, {1, 0, 2});
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 0, 2}));
}

// ---- BIDIRECTIONAL_SEQUENCE_LSTM

struct BidiCase {
  bool merge_outputs = false;
  bool time_major = true;
  bool aux_feeds_backward = false;  // aux input without aux weights
  bool aux_weights = false;         // aux input with its own weights (cross links)
};

void CheckBidirectional(const BidiCase& c) {
  const int n_batch = 2, n_input = 3, n_aux = 2, max_time = 3;
  LstmSpec fs;
  fs.n_batch = n_batch, fs.n_input = n_input, fs.n_cell = 4, fs.n_output = 4;
  LstmSpec bs = fs;
  bs.n_cell = 3, bs.n_output = 2, bs.projection = true, bs.peephole = true;
  if (c.aux_feeds_backward) bs.n_input = n_aux;
  const LstmWeights fw = RandomWeights(fs, 20), bw = RandomWeights(bs, 40);
  // Aux weights act like extra input columns: the reference appends aux to the input.
  LstmSpec fs_ref = fs, bs_ref = bs;
  LstmWeights fw_ref = fw, bw_ref = bw;
  std::vector<float> fw_aux[4], bw_aux[4];
  if (c.aux_weights) {
    fs_ref.n_input += n_aux, bs_ref.n_input += n_aux;
    for (int g = 0; g < 4; ++g) {
      fw_aux[g] = testing::RandomFloats(fs.n_cell * n_aux, 60 + g, -0.5f, 0.5f);
      bw_aux[g] = testing::RandomFloats(bs.n_cell * n_aux, 70 + g, -0.5f, 0.5f);
      auto widen = [&](const std::vector<float>& w, const std::vector<float>& aux, int rows, int cols) {
        std::vector<float> out;
        for (int r = 0; r < rows; ++r) {
          out.insert(out.end(), w.begin() + r * cols, w.begin() + (r + 1) * cols);
          out.insert(out.end(), aux.begin() + r * n_aux, aux.begin() + (r + 1) * n_aux);
        }
        return out;
      };
      fw_ref.wx[g] = widen(fw.wx[g], fw_aux[g], fs.n_cell, n_input);
      bw_ref.wx[g] = widen(bw.wx[g], bw_aux[g], bs.n_cell, n_input);
    }
  }

  RecurrentOp op(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM);
  const Shape in_shape = c.time_major ? Shape{max_time, n_batch, n_input} : Shape{n_batch, max_time, n_input};
  op.Input(TensorType::kFloat32, in_shape);
  AddCellWeights(op, fs, fw);
  AddCellWeights(op, bs, bw);
  op.Variable(TensorType::kFloat32, {n_batch, fs.n_output});
  op.Variable(TensorType::kFloat32, {n_batch, fs.n_cell});
  op.Variable(TensorType::kFloat32, {n_batch, bs.n_output});
  op.Variable(TensorType::kFloat32, {n_batch, bs.n_cell});
  const bool has_aux = c.aux_feeds_backward || c.aux_weights;
  if (has_aux) {
    op.Input(TensorType::kFloat32, c.time_major ? Shape{max_time, n_batch, n_aux} : Shape{n_batch, max_time, n_aux});
  } else {
    op.Omitted();
  }
  for (int g = 0; g < 4; ++g) {
    if (c.aux_weights) {
      op.Const<float>(TensorType::kFloat32, {fs.n_cell, n_aux}, fw_aux[g]);
    } else {
      op.Omitted();
    }
  }
  for (int g = 0; g < 4; ++g) {
    if (c.aux_weights) {
      op.Const<float>(TensorType::kFloat32, {bs.n_cell, n_aux}, bw_aux[g]);
    } else {
      op.Omitted();
    }
  }
  ASSERT_EQ(op.num_inputs(), 48);
  op.Output(TensorType::kFloat32);
  if (!c.merge_outputs) op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_BidirectionalSequenceLSTMOptions,
             ER_OPTIONS(tflite::CreateBidirectionalSequenceLSTMOptions(fbb, tflite::ActivationFunctionType_TANH, 0, 0,
                                                                       c.merge_outputs, c.time_major)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const auto x = testing::RandomFloats(max_time * n_batch * n_input, 90, -1.0f, 1.0f);
  const auto aux = testing::RandomFloats(max_time * n_batch * n_aux, 91, -1.0f, 1.0f);
  SetInput<float>(*interpreter, 0, x);
  if (has_aux) SetInput<float>(*interpreter, 1, aux);
  ASSERT_TRUE(interpreter->Invoke().ok());

  auto row_of = [&](int t, int b) { return c.time_major ? t * n_batch + b : b * max_time + t; };
  auto step_input = [&](int t, bool backward) {
    std::vector<float> xt;
    for (int b = 0; b < n_batch; ++b) {
      const int row = row_of(t, b);
      if (backward && c.aux_feeds_backward) {
        xt.insert(xt.end(), aux.begin() + row * n_aux, aux.begin() + (row + 1) * n_aux);
        continue;
      }
      xt.insert(xt.end(), x.begin() + row * n_input, x.begin() + (row + 1) * n_input);
      if (c.aux_weights) xt.insert(xt.end(), aux.begin() + row * n_aux, aux.begin() + (row + 1) * n_aux);
    }
    return xt;
  };
  const int fw_width = c.merge_outputs ? fs.n_output + bs.n_output : fs.n_output;
  const int bw_width = c.merge_outputs ? fw_width : bs.n_output;
  const int bw_offset = c.merge_outputs ? fs.n_output : 0;
  const auto fw_got = GetOutput<float>(*interpreter, 0);
  const auto bw_got = c.merge_outputs ? fw_got : GetOutput<float>(*interpreter, 1);
  const Shape out_prefix = c.time_major ? Shape{max_time, n_batch} : Shape{n_batch, max_time};
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{out_prefix[0], out_prefix[1], fw_width}));
  ReferenceLstm fref(fs_ref, fw_ref), bref(bs_ref, bw_ref);
  for (int i = 0; i < max_time; ++i) {
    const auto fwant = fref.Step(step_input(i, false));
    const int tb = max_time - 1 - i;
    const auto bwant = bref.Step(step_input(tb, true));
    for (int b = 0; b < n_batch; ++b) {
      for (int k = 0; k < fs.n_output; ++k) {
        EXPECT_NEAR(fw_got[row_of(i, b) * fw_width + k], fwant[b * fs.n_output + k], 1e-5f) << "fw t" << i;
      }
      for (int k = 0; k < bs.n_output; ++k) {
        EXPECT_NEAR(bw_got[row_of(tb, b) * bw_width + bw_offset + k], bwant[b * bs.n_output + k], 1e-5f)
            << "bw t" << tb;
      }
    }
  }
}

TEST(BidirectionalSequenceLstm, SeparateOutputsTimeMajor) { CheckBidirectional({false, true, false, false}); }
TEST(BidirectionalSequenceLstm, MergedOutputsBatchMajor) { CheckBidirectional({true, false, false, false}); }
TEST(BidirectionalSequenceLstm, AuxInputFeedsTheBackwardCell) { CheckBidirectional({false, true, true, false}); }
TEST(BidirectionalSequenceLstm, AuxInputWithWeightsMerged) { CheckBidirectional({true, true, false, true}); }

// ---- basic kernel (kernel_type BASIC)

TEST(Lstm, BasicKernelHandComputed) {
  // depth 1, input 1: weights rows are (input gate, new input, forget, output) over [x, h].
  RecurrentOp op(tflite::BuiltinOperator_LSTM);
  op.Input(TensorType::kFloat32, {1, 1});
  op.Input(TensorType::kFloat32, {1, 1});
  op.Const<float>(TensorType::kFloat32, {4, 2}, {1, 0, 0, 1, 2, 0, 0, 0});
  op.Const<float>(TensorType::kFloat32, {4}, {0, 0, 0, 1});
  op.Input(TensorType::kFloat32, {1, 1});
  for (int i = 0; i < 4; ++i) op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_LSTMOptions,
             ER_OPTIONS(tflite::CreateLSTMOptions(fbb, tflite::ActivationFunctionType_TANH, 0, 0,
                                                  tflite::LSTMKernelType_BASIC)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0.5f});   // x
  SetInput<float>(*interpreter, 1, {-0.25f});  // previous activation h
  SetInput<float>(*interpreter, 2, {0.75f});  // previous state c
  ASSERT_TRUE(interpreter->Invoke().ok());
  const double i = testing::Sigmoid(0.5), g = std::tanh(-0.25), f = testing::Sigmoid(1.0), o = testing::Sigmoid(1.0);
  const double c = i * g + f * 0.75;
  EXPECT_NEAR(GetOutput<float>(*interpreter, 1)[0], c, 1e-6);
  EXPECT_NEAR(GetOutput<float>(*interpreter, 0)[0], o * std::tanh(c), 1e-6);
  EXPECT_EQ(GetOutput<float>(*interpreter, 2), (std::vector<float>{0.5f, -0.25f}));
  EXPECT_EQ(interpreter->output(3)->shape, (Shape{1, 4}));
}

// ---- integer 8x8_16

TEST(LstmFixedPoint, SigmoidAndTanhFollowTheRealFunctions) {
  // Q3.12 inputs, Q0.15 outputs: within a few output steps everywhere, exact at 0.
  EXPECT_EQ(quant::fp16::Logistic(0, 3), 16384);
  EXPECT_EQ(quant::fp16::Tanh(0, 3), 0);
  for (int raw = -32768; raw <= 32767; raw += 97) {
    const double x = raw / 4096.0;
    EXPECT_NEAR(quant::fp16::Logistic(static_cast<int16_t>(raw), 3) / 32768.0, 1.0 / (1.0 + std::exp(-x)), 3e-4)
        << x;
    EXPECT_NEAR(quant::fp16::Tanh(static_cast<int16_t>(raw), 3) / 32768.0, std::tanh(x), 6e-4) << x;
  }
  // Other integer bit counts (the cell state's tanh uses 15 + log2(cell scale)).
  for (int bits : {0, 1, 4, 6}) {
    for (int raw = -32768; raw <= 32767; raw += 331) {
      const double x = raw / static_cast<double>(1 << (15 - bits));
      EXPECT_NEAR(quant::fp16::Tanh(static_cast<int16_t>(raw), bits) / 32768.0, std::tanh(x), 1e-3)
          << "bits " << bits << " x " << x;
    }
  }
}

TEST(LstmFixedPoint, InverseSquareRootMultiplier) {
  for (int32_t v : {2, 3, 100, 4096, 123457, 1 << 20, 1 << 29, 2000000000}) {
    int32_t multiplier = 0;
    int shift = 0;
    quant::InvSqrtQuantizedMultiplier(v, -1, &multiplier, &shift);
    const double real = multiplier / 2147483648.0 * std::pow(2.0, shift);
    EXPECT_NEAR(real * std::sqrt(static_cast<double>(v)), 1.0, 1e-4) << v;
  }
  int32_t multiplier = 0;
  int shift = 0;
  quant::InvSqrtQuantizedMultiplier(1, -1, &multiplier, &shift);
  EXPECT_EQ(multiplier, 2147483647);
  EXPECT_EQ(shift, 0);
}

// An integer UNIDIRECTIONAL_SEQUENCE_LSTM built from float weights; the reference is the float
// LSTM on the dequantized weights and biases. Quantization: input and output state 1/128,
// weights max/127, cell state 2^-11, hidden intermediate 1/128.
struct IntegerCase {
  bool layer_norm = false, cifg = false, projection = false, peephole = false;
  int64_t output_zero_point = 0;
  bool time_major = false;
};

void CheckInteger(const IntegerCase& c) {
  LstmSpec s;
  s.n_batch = 2, s.n_input = 3, s.n_cell = 4, s.n_output = c.projection ? 2 : 4;
  s.cifg = c.cifg, s.projection = c.projection, s.layer_norm = c.layer_norm, s.peephole = c.peephole;
  s.projection_bias = true;
  const int max_time = 4;
  LstmWeights w = RandomWeights(s, 50);
  const float in_scale = 1.0f / 128, state_scale = 1.0f / 128, cell_scale = 1.0f / 2048, hidden_scale = 1.0f / 128;
  const int64_t state_zp = c.output_zero_point;
  const float ln_scale = 1.0f / 16384;         // layer norm coefficients (int16)
  const float gate_intermediate = 1.0f / 4096;  // pre-layer-norm gate scale

  RecurrentOp op(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM);
  const bool time_major = c.time_major;
  auto row_of = [&](int t, int b) { return time_major ? t * s.n_batch + b : b * max_time + t; };
  op.Input(TensorType::kInt8, time_major ? Shape{max_time, s.n_batch, s.n_input} : Shape{s.n_batch, max_time, s.n_input},
           testing::Quant(in_scale, 0));
  LstmWeights deq = w;
  float wx_scale[4] = {}, wh_scale[4] = {};
  auto int8_matrix = [&](std::vector<float>& v, Shape shape, float* scale) {
    std::vector<float> d;
    const auto q = testing::QuantizeWeights(v, scale, &d);
    v = d;
    op.Const<int8_t>(TensorType::kInt8, shape, q, testing::Quant(*scale));
  };
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
    } else {
      int8_matrix(deq.wx[g], {s.n_cell, s.n_input}, &wx_scale[g]);
    }
  }
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
    } else {
      int8_matrix(deq.wh[g], {s.n_cell, s.n_output}, &wh_scale[g]);
    }
  }
  for (int g : {kI, kF, kO}) {
    if (!s.peephole || (g == kI && s.cifg)) {
      op.Omitted();
      continue;
    }
    const float scale = 1.0f / 8192;
    std::vector<int16_t> q(s.n_cell);
    for (int j = 0; j < s.n_cell; ++j) {
      q[j] = static_cast<int16_t>(std::lround(w.wc[g][j] / scale));
      deq.wc[g][j] = q[j] * scale;
    }
    op.Const<int16_t>(TensorType::kInt16, {s.n_cell}, q, testing::Quant(scale));
  }
  for (int g = 0; g < 4; ++g) {
    if (g == kI && s.cifg) {
      op.Omitted();
      continue;
    }
    // Without layer norm the bias adds to the input product (scale input x weights); with it,
    // the bias is added after normalization at 2^-10 x the coefficients' scale.
    const float bias_scale = s.layer_norm ? ln_scale / 1024 : in_scale * wx_scale[g];
    std::vector<int32_t> q(s.n_cell);
    for (int j = 0; j < s.n_cell; ++j) {
      q[j] = static_cast<int32_t>(std::lround(w.b[g][j] / bias_scale));
      deq.b[g][j] = q[j] * bias_scale;
    }
    op.Const<int32_t>(TensorType::kInt32, {s.n_cell}, q, testing::Quant(bias_scale));
  }
  if (s.projection) {
    float p_scale = 0;
    int8_matrix(deq.proj, {s.n_output, s.n_cell}, &p_scale);
    const float pb_scale = hidden_scale * p_scale;
    std::vector<int32_t> q(s.n_output);
    for (int k = 0; k < s.n_output; ++k) {
      q[k] = static_cast<int32_t>(std::lround(w.proj_b[k] / pb_scale));
      deq.proj_b[k] = q[k] * pb_scale;
    }
    op.Const<int32_t>(TensorType::kInt32, {s.n_output}, q, testing::Quant(pb_scale));
  } else {
    op.Omitted();
    op.Omitted();
  }
  op.Variable(TensorType::kInt8, {s.n_batch, s.n_output}, testing::Quant(state_scale, state_zp));
  op.Variable(TensorType::kInt16, {s.n_batch, s.n_cell}, testing::Quant(cell_scale));
  for (int g = 0; g < 4; ++g) {
    if (!s.layer_norm || (g == kI && s.cifg)) {
      op.Omitted();
      continue;
    }
    std::vector<int16_t> q(s.n_cell);
    for (int j = 0; j < s.n_cell; ++j) {
      q[j] = static_cast<int16_t>(std::lround(w.ln[g][j] / ln_scale));
      deq.ln[g][j] = q[j] * ln_scale;
    }
    op.Const<int16_t>(TensorType::kInt16, {s.n_cell}, q, testing::Quant(ln_scale));
  }
  op.Output(TensorType::kInt8, testing::Quant(state_scale, state_zp));
  for (int i = 0; i < 4; ++i) op.Intermediate(TensorType::kInt16, testing::Quant(gate_intermediate));
  // Without projection the hidden vector is the output state: the converter gives the hidden
  // intermediate the output's scale and zero point (TFLite uses the intermediate's).
  op.Intermediate(TensorType::kInt8, testing::Quant(hidden_scale, s.projection ? 0 : state_zp));
  op.Options(tflite::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
             ER_OPTIONS(tflite::CreateUnidirectionalSequenceLSTMOptions(fbb, tflite::ActivationFunctionType_TANH, 0, 0,
                                                                        time_major)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);

  const auto xf = testing::RandomFloats(s.n_batch * max_time * s.n_input, 51, -0.9f, 0.9f);
  std::vector<int8_t> xq(xf.size());
  std::vector<float> xd(xf.size());
  for (size_t i = 0; i < xf.size(); ++i) {
    xq[i] = static_cast<int8_t>(std::lround(xf[i] / in_scale));
    xd[i] = xq[i] * in_scale;
  }
  SetInput<int8_t>(*interpreter, 0, xq);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const auto got = GetOutput<int8_t>(*interpreter, 0);
  ReferenceLstm ref(s, deq);
  for (int t = 0; t < max_time; ++t) {
    std::vector<float> xt;
    for (int b = 0; b < s.n_batch; ++b) {
      const int row = row_of(t, b);
      xt.insert(xt.end(), xd.begin() + row * s.n_input, xd.begin() + (row + 1) * s.n_input);
    }
    const auto want = ref.Step(xt);
    for (int b = 0; b < s.n_batch; ++b) {
      for (int k = 0; k < s.n_output; ++k) {
        const float got_real = (got[row_of(t, b) * s.n_output + k] - state_zp) * state_scale;
        EXPECT_NEAR(got_real, want[b * s.n_output + k], 4 * state_scale) << "t " << t << " b " << b << " k " << k;
      }
    }
  }
}

TEST(UnidirectionalSequenceLstm, IntegerPlain) { CheckInteger({}); }
TEST(UnidirectionalSequenceLstm, IntegerLayerNormProjection) { CheckInteger({true, false, true, false, 3}); }
TEST(UnidirectionalSequenceLstm, IntegerCifgPeephole) { CheckInteger({false, true, false, true, -5}); }
TEST(UnidirectionalSequenceLstm, IntegerLayerNormCifg) { CheckInteger({true, true, false, false, 0}); }
TEST(UnidirectionalSequenceLstm, IntegerTimeMajorProjection) { CheckInteger({false, false, true, false, 2, true}); }

// ---- bad models

TEST(LstmErrors, WrongInputCount) {
  RecurrentOp op(tflite::BuiltinOperator_LSTM);
  op.Input(TensorType::kFloat32, {1, 2});
  for (int i = 0; i < 18; ++i) op.Omitted();
  op.Output(TensorType::kFloat32);
  const Status st = op.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("20 or 24 inputs"), std::string::npos) << st.message();
}

TEST(LstmErrors, BadWeightShapesAndMissingTensors) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 3;
  // Input width disagrees with the weights.
  LstmWeights w = RandomWeights(s, 98);
  {
    auto op = MakeLstm(tflite::BuiltinOperator_LSTM, s, w, {1, 5});
    const Status st = op.TryBuild();
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("must have shape [3,5]"), std::string::npos) << st.message();
  }
  // CIFG half done: input-to-input weights without recurrent-to-input weights.
  {
    RecurrentOp op(tflite::BuiltinOperator_LSTM);
    op.Input(TensorType::kFloat32, {1, 2});
    op.Const<float>(TensorType::kFloat32, {3, 2}, w.wx[kI]);
    for (int g = 1; g < 4; ++g) op.Const<float>(TensorType::kFloat32, {3, 2}, w.wx[g]);
    op.Omitted();
    for (int g = 1; g < 4; ++g) op.Const<float>(TensorType::kFloat32, {3, 3}, w.wh[g]);
    for (int i = 0; i < 3; ++i) op.Omitted();
    for (int g = 0; g < 4; ++g) op.Const<float>(TensorType::kFloat32, {3}, w.b[g]);
    op.Omitted();
    op.Omitted();
    op.Variable(TensorType::kFloat32, {1, 3});
    op.Variable(TensorType::kFloat32, {1, 3});
    op.Output(TensorType::kFloat32);
    const Status st = op.TryBuild();
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("both present or both absent"), std::string::npos) << st.message();
  }
}

TEST(LstmErrors, StateMustBeAVariableOfTheRightSize) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 3;
  LstmWeights w = RandomWeights(s, 97);
  {
    RecurrentOp op(tflite::BuiltinOperator_LSTM);
    op.Input(TensorType::kFloat32, {1, 2});
    AddCellWeights(op, s, w);
    op.Plain(TensorType::kFloat32, {1, 3});  // output state as a plain graph input
    op.Variable(TensorType::kFloat32, {1, 3});
    op.Output(TensorType::kFloat32);
    const Status st = op.TryBuild();
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("variable"), std::string::npos) << st.message();
  }
  {
    RecurrentOp op(tflite::BuiltinOperator_LSTM);
    op.Input(TensorType::kFloat32, {1, 2});
    AddCellWeights(op, s, w);
    op.Variable(TensorType::kFloat32, {1, 3});
    op.Variable(TensorType::kFloat32, {1, 4});  // cell state too large
    op.Output(TensorType::kFloat32);
    const Status st = op.TryBuild();
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("cell state"), std::string::npos) << st.message();
  }
}

TEST(LstmErrors, ProjectionBiasWithoutWeightsAndOutputSizeWithoutProjection) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 2;  // needs a projection
  LstmWeights w = RandomWeights(s, 96);
  auto op = MakeLstm(tflite::BuiltinOperator_LSTM, s, w, {1, 2});
  const Status st = op.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("without projection"), std::string::npos) << st.message();
}

TEST(LstmErrors, LayerNormNeedsAllCoefficients) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 3;
  LstmWeights w = RandomWeights(s, 95);
  RecurrentOp op(tflite::BuiltinOperator_LSTM);
  op.Input(TensorType::kFloat32, {1, 2});
  AddCellWeights(op, s, w);
  op.Variable(TensorType::kFloat32, {1, 3});
  op.Variable(TensorType::kFloat32, {1, 3});
  op.Const<float>(TensorType::kFloat32, {3}, w.ln[kI]);
  op.Const<float>(TensorType::kFloat32, {3}, w.ln[kF]);
  op.Omitted();  // cell coefficients missing
  op.Const<float>(TensorType::kFloat32, {3}, w.ln[kO]);
  op.Output(TensorType::kFloat32);
  const Status st = op.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cell layer norm"), std::string::npos) << st.message();
}

TEST(LstmErrors, IntegerNeedsFiveIntermediatesAndUint8WeightsAreUnsupported) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 2, s.n_output = 2;
  LstmWeights w = RandomWeights(s, 94);
  {
    RecurrentOp op(tflite::BuiltinOperator_LSTM);
    op.Input(TensorType::kInt8, {1, 2}, testing::Quant(0.01f));
    for (int i = 0; i < 8; ++i) op.Const<int8_t>(TensorType::kInt8, {2, 2}, {1, 2, 3, 4}, testing::Quant(0.01f));
    for (int i = 0; i < 3; ++i) op.Omitted();
    for (int i = 0; i < 4; ++i) op.Const<int32_t>(TensorType::kInt32, {2}, {0, 0}, testing::Quant(1e-4f));
    op.Omitted();
    op.Omitted();
    op.Variable(TensorType::kInt8, {1, 2}, testing::Quant(0.01f));
    op.Variable(TensorType::kInt16, {1, 2}, testing::Quant(1.0f / 2048));
    op.Output(TensorType::kInt8, testing::Quant(0.01f));
    op.Intermediate(TensorType::kInt8, testing::Quant(0.01f));
    const Status st = op.TryBuild();
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("5 intermediate"), std::string::npos) << st.message();
  }
  {
    RecurrentOp op(tflite::BuiltinOperator_LSTM);
    op.Input(TensorType::kFloat32, {1, 2});
    for (int i = 0; i < 8; ++i) op.Const<uint8_t>(TensorType::kUInt8, {2, 2}, {1, 2, 3, 4}, testing::Quant(0.01f));
    for (int i = 0; i < 3; ++i) op.Omitted();
    for (int i = 0; i < 4; ++i) op.Const<float>(TensorType::kFloat32, {2}, {0, 0});
    op.Omitted();
    op.Omitted();
    op.Variable(TensorType::kFloat32, {1, 2});
    op.Variable(TensorType::kFloat32, {1, 2});
    op.Output(TensorType::kFloat32);
    const Status st = op.TryBuild();
    EXPECT_TRUE(st.unsupported()) << st.message();
  }
}

TEST(LstmErrors, NegativeClip) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 3;
  s.cell_clip = -1.0f;
  LstmWeights w = RandomWeights(s, 93);
  auto op = MakeLstm(tflite::BuiltinOperator_LSTM, s, w, {1, 2});
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(SequenceLstmErrors, InputMustHaveRankThree) {
  LstmSpec s;
  s.n_batch = 1, s.n_input = 2, s.n_cell = 3, s.n_output = 3;
  LstmWeights w = RandomWeights(s, 92);
  auto op = MakeLstm(tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, s, w, {1, 2});
  const Status st = op.TryBuild();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rank 3"), std::string::npos) << st.message();
}

TEST(SequenceLstmErrors, BidirectionalNeeds48Inputs) {
  RecurrentOp op(tflite::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM);
  op.Input(TensorType::kFloat32, {1, 1, 2});
  for (int i = 0; i < 20; ++i) op.Omitted();
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
