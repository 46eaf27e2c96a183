// gen_cases: writes single-op 8-bit models (built with edgerun's ModelBuilder) with inputs that
// cover the op's arithmetic, runs edgerun on each in both Int8Arithmetic modes and writes
//   DIR/<case>/model.tflite, input_K.bin, edgerun_default_K.bin, edgerun_reference_K.bin
// check.mjs then runs Google's runtime on the same files and compares (see README.md).
//
// usage: gen_cases DIR [--filter SUBSTRING] [--seed N] [--configs N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "edgerun/interpreter.h"
#include "model/model_builder.h"
#include "tflite_generated.h"

namespace fs = std::filesystem;
using namespace edgerun;

namespace {

using Bytes = std::vector<uint8_t>;

struct Case {
  std::string name;
  Bytes model;
  std::vector<Bytes> inputs;
  std::string params;  // JSON with the exact quantization (for checking formulas by hand)
};

// "s": scale as written (9 significant digits round-trip a float), "z": zero point.
std::string QJson(float scale, int zero_point) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "{\"s\": %.9g, \"z\": %d}", scale, zero_point);
  return buf;
}

std::mt19937 rng;

float Uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }
int UniformInt(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
// A realistic activation scale: log-uniform in [lo, hi].
float LogUniform(float lo, float hi) { return std::exp(Uniform(std::log(lo), std::log(hi))); }

bool IsInt8(TensorType t) { return t == TensorType::kInt8; }
const char* TypeName(TensorType t) { return IsInt8(t) ? "i8" : "u8"; }
int QMin(TensorType t) { return IsInt8(t) ? -128 : 0; }
int QMax(TensorType t) { return IsInt8(t) ? 127 : 255; }

QuantizationParams Q(float scale, int zero_point) { return {{scale}, {zero_point}, 0}; }
// A random zero point, near the middle of the range more often than not.
int RandomZeroPoint(TensorType t) { return UniformInt(QMin(t) + 16, QMax(t) - 16); }

// Raw bytes of values.
template <class T>
Bytes Raw(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Every 8-bit value once, in storage order.
Bytes AllBytes() {
  Bytes b(256);
  for (int i = 0; i < 256; ++i) b[i] = static_cast<uint8_t>(i);
  return b;
}
Bytes RandomBytes(size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(UniformInt(0, 255));
  return b;
}

using Writer = ModelBuilder::OptionsWriter;
#define OPTIONS(expr) [=](flatbuffers::FlatBufferBuilder& fbb) { return (expr).Union(); }

// One op; inputs are graph inputs (nullptr data) or constants.
struct OpModel {
  ModelBuilder b;
  std::vector<int> op_inputs, graph_inputs, outputs;
  int Input(TensorType t, Shape s, QuantizationParams q = {}) {
    int id = b.AddTensor("in" + std::to_string(op_inputs.size()), t, s, q);
    op_inputs.push_back(id);
    graph_inputs.push_back(id);
    return id;
  }
  template <class T>
  int Const(TensorType t, Shape s, const std::vector<T>& v, QuantizationParams q = {}) {
    int id = b.AddConstant("c" + std::to_string(op_inputs.size()), t, s, v, q);
    op_inputs.push_back(id);
    return id;
  }
  int Output(TensorType t, Shape s, QuantizationParams q = {}) {
    int id = b.AddTensor("out" + std::to_string(outputs.size()), t, s, q);
    outputs.push_back(id);
    return id;
  }
  Bytes Finish(tflite::BuiltinOperator op, tflite::BuiltinOptions type = tflite::BuiltinOptions_NONE,
               Writer w = nullptr, int version = 1) {
    b.AddOp(op, op_inputs, outputs, type, w, version);
    b.SetInputs(graph_inputs);
    b.SetOutputs(outputs);
    return b.Finish();
  }
};

std::vector<Case> cases;

std::string Fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

// ---- unary ops on every input value

void Unary(const std::string& tag, tflite::BuiltinOperator op, TensorType t, float in_scale, int in_zp,
           float out_scale, int out_zp, tflite::BuiltinOptions type = tflite::BuiltinOptions_NONE, Writer w = nullptr,
           int version = 1) {
  OpModel m;
  m.Input(t, {256}, Q(in_scale, in_zp));
  m.Output(t, {256}, Q(out_scale, out_zp));
  cases.push_back({tag + "_" + TypeName(t) + "_s" + Fmt("%.5g", in_scale) + "z" + std::to_string(in_zp) + "_s" +
                       Fmt("%.5g", out_scale) + "z" + std::to_string(out_zp),
                   m.Finish(op, type, w, version), {AllBytes()},
                   "{\"in\": " + QJson(in_scale, in_zp) + ", \"out\": " + QJson(out_scale, out_zp) + "}"});
}

void GenUnary(int configs) {
  for (TensorType t : {TensorType::kInt8, TensorType::kUInt8}) {
    for (int i = 0; i < configs; ++i) {
      const float s = LogUniform(0.005f, 0.2f);
      const int zp = RandomZeroPoint(t);
      // LEAKY_RELU: alpha in (0, 1) mostly, sometimes > 1 or negative.
      const float alphas[] = {0.2f, 0.1f, 0.01f, 0.3f, 1.7f, -0.5f, 0.05f, 0.25f};
      const float alpha = alphas[i % 8];
      Unary("leaky_relu_a" + Fmt("%g", alpha), tflite::BuiltinOperator_LEAKY_RELU, t, s, zp,
            s * LogUniform(0.5f, 2.0f), RandomZeroPoint(t), tflite::BuiltinOptions_LeakyReluOptions,
            OPTIONS(tflite::CreateLeakyReluOptions(fbb, alpha)), 2);
      Unary("elu", tflite::BuiltinOperator_ELU, t, s * 4, zp, LogUniform(0.01f, 0.1f), RandomZeroPoint(t));
      Unary("hard_swish", tflite::BuiltinOperator_HARD_SWISH, t, s * 2, zp, LogUniform(0.01f, 0.1f), RandomZeroPoint(t));
      // LOGISTIC / TANH: the converter's fixed output scales, and arbitrary ones.
      const int sig_zp = IsInt8(t) ? -128 : 0, tanh_zp = IsInt8(t) ? 0 : 128;
      Unary("logistic", tflite::BuiltinOperator_LOGISTIC, t, s * 3, zp, 1.0f / 256, sig_zp);
      Unary("logistic", tflite::BuiltinOperator_LOGISTIC, t, s * 3, zp, LogUniform(0.002f, 0.01f), RandomZeroPoint(t));
      Unary("tanh", tflite::BuiltinOperator_TANH, t, s * 3, zp, 1.0f / 128, tanh_zp);
      Unary("tanh", tflite::BuiltinOperator_TANH, t, s * 3, zp, LogUniform(0.004f, 0.02f), RandomZeroPoint(t));
      Unary("quantize", tflite::BuiltinOperator_QUANTIZE, t, s, zp, s * LogUniform(0.3f, 3.0f), RandomZeroPoint(t));
      Unary("relu", tflite::BuiltinOperator_RELU, t, s, zp, s * LogUniform(0.5f, 2.0f), RandomZeroPoint(t));
      Unary("relu6", tflite::BuiltinOperator_RELU6, t, s * 0.2f, zp, LogUniform(0.01f, 0.05f), RandomZeroPoint(t));
    }
  }
}

// DEQUANTIZE (8-bit -> float) and QUANTIZE (float -> 8-bit) on values that hit rounding ties.
void GenConvert(int configs) {
  for (TensorType t : {TensorType::kInt8, TensorType::kUInt8}) {
    for (int i = 0; i < configs; ++i) {
      const float s = LogUniform(0.002f, 0.5f);
      const int zp = RandomZeroPoint(t);
      {
        OpModel m;
        m.Input(t, {256}, Q(s, zp));
        m.Output(TensorType::kFloat32, {256});
        cases.push_back({std::string("dequantize_") + TypeName(t) + "_s" + Fmt("%.5g", s) + "z" + std::to_string(zp),
                         m.Finish(tflite::BuiltinOperator_DEQUANTIZE), {AllBytes()}});
      }
      {
        // Exact half steps (ties), values a hair off them, random values and out-of-range ones.
        std::vector<float> v;
        for (int k = -140; k <= 140; ++k) v.push_back((static_cast<float>(k) + 0.5f) * s);
        for (int k = -140; k <= 140; ++k) v.push_back(static_cast<float>(k) * s);
        for (int k = 0; k < 512; ++k) v.push_back(Uniform(-200.0f, 200.0f) * s);
        for (int k = -140; k <= 140; ++k) v.push_back(std::nextafter((k + 0.5f) * s, 1e9f));
        OpModel m;
        m.Input(TensorType::kFloat32, {static_cast<int>(v.size())});
        m.Output(t, {static_cast<int>(v.size())}, Q(s, zp));
        cases.push_back({std::string("quantize_f32_") + TypeName(t) + "_s" + Fmt("%.5g", s) + "z" + std::to_string(zp),
                         m.Finish(tflite::BuiltinOperator_QUANTIZE), {Raw(v)}, "{\"out\": " + QJson(s, zp) + "}"});
      }
    }
  }
}

// ---- binary ops on every pair of input values: a [256,1] x b [1,256] (broadcast) and the same
// pairs without broadcasting.

void Binary(const std::string& tag, tflite::BuiltinOperator op, TensorType t, float sa, int za, float sb, int zb,
            float so, int zo, tflite::ActivationFunctionType act, bool broadcast) {
  OpModel m;
  Bytes a, b;
  if (broadcast) {
    m.Input(t, {256, 1}, Q(sa, za));
    m.Input(t, {1, 256}, Q(sb, zb));
    a = AllBytes();
    b = AllBytes();
  } else {
    m.Input(t, {256, 256}, Q(sa, za));
    m.Input(t, {256, 256}, Q(sb, zb));
    for (int i = 0; i < 256; ++i) {
      for (int j = 0; j < 256; ++j) {
        a.push_back(static_cast<uint8_t>(i));
        b.push_back(static_cast<uint8_t>(j));
      }
    }
  }
  m.Output(t, {256, 256}, Q(so, zo));
  Bytes model;
  if (op == tflite::BuiltinOperator_ADD) {
    model = m.Finish(op, tflite::BuiltinOptions_AddOptions, OPTIONS(tflite::CreateAddOptions(fbb, act)), 2);
  } else if (op == tflite::BuiltinOperator_SUB) {
    model = m.Finish(op, tflite::BuiltinOptions_SubOptions, OPTIONS(tflite::CreateSubOptions(fbb, act)), 2);
  } else {
    model = m.Finish(op, tflite::BuiltinOptions_MulOptions, OPTIONS(tflite::CreateMulOptions(fbb, act)), 2);
  }
  const char* acts[] = {"", "_relu", "_relu_n1_1", "_relu6"};
  cases.push_back({tag + "_" + TypeName(t) + acts[act] + (broadcast ? "_bcast" : "_flat") + "_s" + Fmt("%.4g", sa) +
                       "z" + std::to_string(za) + "_s" + Fmt("%.4g", sb) + "z" + std::to_string(zb) + "_s" +
                       Fmt("%.4g", so) + "z" + std::to_string(zo),
                   model, {a, b},
                   "{\"a\": " + QJson(sa, za) + ", \"b\": " + QJson(sb, zb) + ", \"out\": " + QJson(so, zo) + "}"});
}

void GenBinary(int configs) {
  const tflite::ActivationFunctionType acts[] = {tflite::ActivationFunctionType_NONE,
                                                 tflite::ActivationFunctionType_RELU,
                                                 tflite::ActivationFunctionType_RELU6};
  for (TensorType t : {TensorType::kInt8, TensorType::kUInt8}) {
    for (int i = 0; i < configs; ++i) {
      const auto act = acts[i % 3];
      const bool bcast = i % 2 == 0;
      const float sa = LogUniform(0.005f, 0.1f), sb = sa * LogUniform(0.3f, 3.0f);
      Binary("add", tflite::BuiltinOperator_ADD, t, sa, RandomZeroPoint(t), sb, RandomZeroPoint(t),
             std::max(sa, sb) * LogUniform(1.0f, 2.5f), RandomZeroPoint(t), act, bcast);
      Binary("sub", tflite::BuiltinOperator_SUB, t, sa, RandomZeroPoint(t), sb, RandomZeroPoint(t),
             std::max(sa, sb) * LogUniform(1.0f, 2.5f), RandomZeroPoint(t), act, bcast);
      Binary("mul", tflite::BuiltinOperator_MUL, t, sa * 10, RandomZeroPoint(t), sb * 10, RandomZeroPoint(t),
             sa * sb * 100 * LogUniform(20.0f, 150.0f), RandomZeroPoint(t), act, bcast);
    }
  }
}

// ---- ops on random images

void GenImage(int configs) {
  for (TensorType t : {TensorType::kInt8, TensorType::kUInt8}) {
    for (int i = 0; i < configs; ++i) {
      const float s = LogUniform(0.005f, 0.1f);
      const int zp = RandomZeroPoint(t);
      // RESIZE_BILINEAR: up- and down-sampling with each coordinate convention.
      {
        const int h = UniformInt(3, 9), w = UniformInt(3, 9), c = UniformInt(1, 5);
        const int oh = UniformInt(2, 20), ow = UniformInt(2, 20);
        const bool align = i % 3 == 1, half = i % 3 == 2;
        OpModel m;
        m.Input(t, {1, h, w, c}, Q(s, zp));
        m.Const(TensorType::kInt32, {2}, std::vector<int32_t>{oh, ow});
        m.Output(t, {1, oh, ow, c}, Q(s, zp));
        cases.push_back({std::string("resize_bilinear_") + TypeName(t) + (align ? "_align" : half ? "_half" : "") + "_" +
                             std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c) + "_to_" +
                             std::to_string(oh) + "x" + std::to_string(ow),
                         m.Finish(tflite::BuiltinOperator_RESIZE_BILINEAR, tflite::BuiltinOptions_ResizeBilinearOptions,
                                  OPTIONS(tflite::CreateResizeBilinearOptions(fbb, align, half)), 3),
                         {RandomBytes(static_cast<size_t>(h) * w * c)}});
      }
      // MEAN over the spatial axes (global pooling), the last axis, the rows and everything.
      for (int variant = 0; variant < 4; ++variant) {
        const int h = UniformInt(1, 12), w = UniformInt(1, 12), c = i % 2 ? UniformInt(1, 8) : UniformInt(9, 70);
        const float os = s * LogUniform(0.5f, 2.0f);
        const int ozp = RandomZeroPoint(t);
        const bool keep = i % 2 == 0;
        const std::vector<int32_t> axes_by_variant[] = {{1, 2}, {3}, {1}, {1, 2, 3}};
        const char* names[] = {"_hw", "_c", "_h", "_hwc"};
        const std::vector<int32_t>& axes = axes_by_variant[variant];
        Shape in_shape{1, h, w, c}, out_shape;
        std::string axes_json;
        for (int d = 0; d < 4; ++d) {
          const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
          if (!reduced) out_shape.push_back(in_shape[d]);
          else if (keep) out_shape.push_back(1);
        }
        for (int32_t a : axes) axes_json += (axes_json.empty() ? "" : ", ") + std::to_string(a);
        // SUM and REDUCE_MAX take turns with MEAN (they share XNNPACK's reduce operator).
        const tflite::BuiltinOperator reducers[] = {tflite::BuiltinOperator_MEAN, tflite::BuiltinOperator_SUM,
                                                    tflite::BuiltinOperator_REDUCE_MAX};
        const char* reducer_names[] = {"mean_", "sum_", "reduce_max_"};
        const int r = (i / 2) % 3;
        const float sum_os = r == 1 ? os * static_cast<float>(h * w) : os;
        OpModel m;
        m.Input(t, in_shape, Q(s, zp));
        m.Const(TensorType::kInt32, {static_cast<int>(axes.size())}, axes);
        m.Output(t, out_shape, Q(sum_os, ozp));
        cases.push_back({std::string(reducer_names[r]) + TypeName(t) + names[variant] + (keep ? "_keep" : "") + "_" +
                             std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c) + "_s" +
                             Fmt("%.4g", s) + "z" + std::to_string(zp) + "_s" + Fmt("%.4g", sum_os) + "z" +
                             std::to_string(ozp),
                         m.Finish(reducers[r], tflite::BuiltinOptions_ReducerOptions,
                                  OPTIONS(tflite::CreateReducerOptions(fbb, keep)), 2),
                         {RandomBytes(static_cast<size_t>(h) * w * c)},
                         "{\"in\": " + QJson(s, zp) + ", \"out\": " + QJson(sum_os, ozp) + ", \"shape\": [1, " +
                             std::to_string(h) + ", " + std::to_string(w) + ", " + std::to_string(c) +
                             "], \"axes\": [" + axes_json + "]}"});
      }
      // AVERAGE_POOL_2D / MAX_POOL_2D.
      for (auto op : {tflite::BuiltinOperator_AVERAGE_POOL_2D, tflite::BuiltinOperator_MAX_POOL_2D}) {
        const int h = UniformInt(4, 12), w = UniformInt(4, 12), c = UniformInt(1, 6);
        const int k = UniformInt(2, 3), stride = UniformInt(1, 2);
        const bool same = i % 2 == 0;
        const int oh = same ? (h + stride - 1) / stride : (h - k) / stride + 1;
        const int ow = same ? (w + stride - 1) / stride : (w - k) / stride + 1;
        OpModel m;
        m.Input(t, {1, h, w, c}, Q(s, zp));
        m.Output(t, {1, oh, ow, c}, Q(s, zp));
        cases.push_back(
            {std::string(op == tflite::BuiltinOperator_MAX_POOL_2D ? "max_pool_" : "average_pool_") + TypeName(t) +
                 (same ? "_same_" : "_valid_") + std::to_string(h) + "x" + std::to_string(w) + "x" +
                 std::to_string(c) + "_k" + std::to_string(k) + "s" + std::to_string(stride),
             m.Finish(op, tflite::BuiltinOptions_Pool2DOptions,
                      OPTIONS(tflite::CreatePool2DOptions(fbb, same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                          stride, stride, k, k)),
                      2),
             {RandomBytes(static_cast<size_t>(h) * w * c)}});
      }
      // SOFTMAX with the converter's output quantization.
      {
        const int n = UniformInt(2, 40);
        const float beta = i % 2 ? 1.0f : Uniform(0.5f, 2.0f);
        OpModel m;
        m.Input(t, {4, n}, Q(s * 4, zp));
        m.Output(t, {4, n}, Q(1.0f / 256, IsInt8(t) ? -128 : 0));
        cases.push_back({std::string("softmax_") + TypeName(t) + "_n" + std::to_string(n) + "_b" + Fmt("%.3g", beta),
                         m.Finish(tflite::BuiltinOperator_SOFTMAX, tflite::BuiltinOptions_SoftmaxOptions,
                                  OPTIONS(tflite::CreateSoftmaxOptions(fbb, beta)), 2),
                         {RandomBytes(4 * static_cast<size_t>(n))}});
      }
      // CONCATENATION of inputs with different quantization (requantized) and with the same.
      for (int same = 0; same < 2; ++same) {
        const int c1 = UniformInt(1, 6), c2 = UniformInt(1, 6);
        const float os = s * LogUniform(0.7f, 1.5f);
        const int ozp = RandomZeroPoint(t);
        OpModel m;
        m.Input(t, {1, 3, c1}, same ? Q(os, ozp) : Q(s, zp));
        m.Input(t, {1, 3, c2}, same ? Q(os, ozp) : Q(s * LogUniform(0.5f, 2.0f), RandomZeroPoint(t)));
        m.Output(t, {1, 3, c1 + c2}, Q(os, ozp));
        cases.push_back({std::string("concatenation_") + TypeName(t) + (same ? "_same" : "_requant") + "_" +
                             std::to_string(i),
                         m.Finish(tflite::BuiltinOperator_CONCATENATION, tflite::BuiltinOptions_ConcatenationOptions,
                                  OPTIONS(tflite::CreateConcatenationOptions(fbb, 2)), 2),
                         {RandomBytes(3 * static_cast<size_t>(c1)), RandomBytes(3 * static_cast<size_t>(c2))}});
      }
    }
  }
}

// ---- running edgerun

bool RunEdgerun(const Case& c, Int8Arithmetic mode, const fs::path& dir, const char* suffix) {
  auto model = Model::FromBufferCopy(c.model.data(), c.model.size(), c.name);
  if (!model.ok()) {
    std::cerr << c.name << ": " << model.status().message() << "\n";
    return false;
  }
  InterpreterOptions options;
  options.int8_arithmetic = mode;
  auto interpreter = Interpreter::Create(*model, options);
  if (!interpreter.ok()) {
    std::cerr << c.name << ": " << interpreter.status().message() << "\n";
    return false;
  }
  Interpreter& in = **interpreter;
  Status st = in.AllocateTensors();
  for (size_t k = 0; st.ok() && k < c.inputs.size(); ++k) {
    Tensor* t = in.input(static_cast<int>(k));
    if (t->bytes != c.inputs[k].size()) {
      std::cerr << c.name << ": input " << k << " has " << t->bytes << " bytes, data " << c.inputs[k].size() << "\n";
      return false;
    }
    std::memcpy(t->data, c.inputs[k].data(), t->bytes);
  }
  if (st.ok()) st = in.Invoke();
  if (!st.ok()) {
    std::cerr << c.name << " (" << suffix << "): " << st.message() << "\n";
    return false;
  }
  for (size_t k = 0; k < in.num_outputs(); ++k) {
    const Tensor* t = in.output(static_cast<int>(k));
    std::ofstream(dir / ("edgerun_" + std::string(suffix) + "_" + std::to_string(k) + ".bin"), std::ios::binary)
        .write(static_cast<const char*>(t->data), static_cast<std::streamsize>(t->bytes));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gen_cases DIR [--filter SUBSTRING] [--seed N] [--configs N]\n";
    return 2;
  }
  fs::path root = argv[1];
  std::string filter;
  unsigned seed = 1;
  int configs = 4;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--filter") filter = argv[i + 1];
    else if (k == "--seed") seed = static_cast<unsigned>(std::stoul(argv[i + 1]));
    else if (k == "--configs") configs = std::stoi(argv[i + 1]);
  }
  rng.seed(seed);
  GenUnary(configs);
  GenConvert(configs);
  GenBinary(configs);
  GenImage(configs);
  int written = 0, failed = 0;
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const fs::path dir = root / c.name;
    fs::create_directories(dir);
    std::ofstream(dir / "model.tflite", std::ios::binary)
        .write(reinterpret_cast<const char*>(c.model.data()), static_cast<std::streamsize>(c.model.size()));
    if (!c.params.empty()) std::ofstream(dir / "params.json") << c.params << "\n";
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      std::ofstream(dir / ("input_" + std::to_string(k) + ".bin"), std::ios::binary)
          .write(reinterpret_cast<const char*>(c.inputs[k].data()), static_cast<std::streamsize>(c.inputs[k].size()));
    }
    const bool ok = RunEdgerun(c, Int8Arithmetic::kLiteRtDefault, dir, "default") &&
                    RunEdgerun(c, Int8Arithmetic::kTfliteReference, dir, "reference");
    ++written;
    if (!ok) ++failed;
  }
  std::cout << written << " cases written to " << root.string() << " (" << failed << " failed in edgerun)\n";
  return 0;
}
