// Test helpers for the recurrent ops (LSTM, RNN, SVDF): a one-op model builder that also makes
// variable (state) tensors and intermediates, quantization shorthands, and int8 weights.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace edgerun::testing {

inline QuantizationParams Quant(float scale, int64_t zero_point = 0) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

// A model with one op; op inputs are added in order (graph inputs, constants, variables or
// omitted), graph inputs are the non-constant, non-variable ones.
class RecurrentOp {
 public:
  explicit RecurrentOp(tflite::BuiltinOperator op, int version = 1) : op_(op), version_(version) {}
  int Input(TensorType type, Shape shape, QuantizationParams q = {}) {
    const int t = builder_.AddTensor(Name("in"), type, std::move(shape), std::move(q));
    inputs_.push_back(t);
    graph_inputs_.push_back(t);
    return t;
  }
  template <class T>
  int Const(TensorType type, Shape shape, const std::vector<T>& values, QuantizationParams q = {}) {
    const int t = builder_.AddConstant(Name("const"), type, std::move(shape), values, std::move(q));
    inputs_.push_back(t);
    return t;
  }
  int Variable(TensorType type, Shape shape, QuantizationParams q = {}) {
    const int t = builder_.AddVariable(Name("state"), type, std::move(shape), std::move(q));
    inputs_.push_back(t);
    return t;
  }
  // A plain (non-variable) tensor that nothing writes: for error tests.
  int Plain(TensorType type, Shape shape) { return Input(type, std::move(shape)); }
  void Omitted() { inputs_.push_back(-1); }
  int Output(TensorType type, QuantizationParams q = {}) {
    const int t = builder_.AddTensor("out" + std::to_string(outputs_.size()), type, {}, std::move(q));
    outputs_.push_back(t);
    return t;
  }
  void Intermediate(TensorType type, QuantizationParams q = {}) {
    intermediates_.push_back(builder_.AddTensor("intermediate" + std::to_string(intermediates_.size()), type, {0},
                                                std::move(q)));
  }
  void Options(tflite::BuiltinOptions type, ModelBuilder::OptionsWriter writer) {
    options_type_ = type;
    writer_ = std::move(writer);
  }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  std::vector<uint8_t> Bytes() {
    ModelBuilder b = builder_;
    b.AddOp(op_, inputs_, outputs_, options_type_, writer_, version_, intermediates_);
    b.SetInputs(graph_inputs_);
    b.SetOutputs(outputs_);
    return b.Finish();
  }
  std::unique_ptr<Interpreter> Build() { return testing::Build(Bytes()); }
  Status TryBuild() { return testing::TryBuild(Bytes()); }

 private:
  std::string Name(const char* prefix) { return prefix + std::to_string(inputs_.size()); }
  tflite::BuiltinOperator op_;
  int version_;
  ModelBuilder builder_;
  std::vector<int> inputs_, graph_inputs_, outputs_, intermediates_;
  tflite::BuiltinOptions options_type_ = tflite::BuiltinOptions_NONE;
  ModelBuilder::OptionsWriter writer_;
};

// Symmetric int8 weights: q = round(w / scale) with scale = max|w| / 127; `dequantized`
// receives q * scale (what the kernel effectively multiplies by).
inline std::vector<int8_t> QuantizeWeights(const std::vector<float>& w, float* scale, std::vector<float>* dequantized) {
  float max_abs = 0;
  for (float v : w) max_abs = std::max(max_abs, std::fabs(v));
  *scale = max_abs > 0 ? max_abs / 127.0f : 1.0f;
  std::vector<int8_t> q(w.size());
  dequantized->resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    q[i] = static_cast<int8_t>(std::lround(w[i] / *scale));
    (*dequantized)[i] = q[i] * *scale;
  }
  return q;
}

// Hybrid arithmetic by its definition: the row x is quantized symmetrically to int8 (scale
// max|x| / 127, round half away from zero), then dot(q_w, q_x) * scale_x * scale_w.
inline std::vector<float> HybridMatVec(const std::vector<int8_t>& w, float w_scale, int rows, int cols,
                                       const std::vector<float>& x) {
  float max_abs = 0;
  for (float v : x) max_abs = std::max(max_abs, std::fabs(v));
  std::vector<float> out(rows, 0.0f);
  if (max_abs == 0) return out;
  const float x_scale = max_abs / 127.0f;
  std::vector<int> qx(cols);
  for (int c = 0; c < cols; ++c) qx[c] = static_cast<int>(std::round(x[c] * (127.0f / max_abs)));
  for (int r = 0; r < rows; ++r) {
    int dot = 0;
    for (int c = 0; c < cols; ++c) dot += w[r * cols + c] * qx[c];
    out[r] = static_cast<float>(dot) * (x_scale * w_scale);
  }
  return out;
}

inline double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace edgerun::testing
