// edgerun synth NAME -o FILE [--int8]: writes a synthetic network with seeded random weights,
// built with ModelBuilder (for demos and benchmarks when no real model is at hand): a tiny CNN,
// and the standard MobileNet v1, MobileNet v2 and ResNet-18 architectures.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "model/model_builder.h"
#include "tools/cli.h"
#include "tools/tensor_io.h"

namespace edgerun::tools {
namespace {

const char kSynthUsage[] =
    "usage: edgerun synth NAME -o FILE [--int8] [--size N] [--seed N]\n"
    "  NAME: tiny_cnn      8x8x3 image -> 10 classes: conv, relu, max pool, fully connected, softmax\n"
    "        mobilenet_v1  MobileNet v1 1.0 (ReLU6, 1000 classes)\n"
    "        mobilenet_v2  MobileNet v2 1.0 (inverted residuals, ReLU6, 1000 classes)\n"
    "        resnet18      ResNet-18 (basic blocks, ReLU, 1000 classes)\n"
    "  --int8   full-integer model: int8 activations (ranges calibrated by running the float twin\n"
    "           on a random input), per-channel int8 conv weights, int32 biases, int8 input/output\n"
    "  --size N input height and width, a multiple of 32 (default 224; not for tiny_cnn)\n"
    "  --seed N seed of the random weights (default 1); the float and int8 twins share weights\n";

class WeightSource {
 public:
  explicit WeightSource(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ull + 7) {}
  // He-style scale so activations neither vanish nor explode.
  std::vector<float> Next(size_t n, int fan_in) {
    std::vector<float> v(n);
    const float scale = std::sqrt(2.0f / static_cast<float>(std::max(1, fan_in)));
    for (auto& x : v) {
      state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
      x = (static_cast<float>(state_ >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f) * scale;
    }
    return v;
  }

 private:
  uint64_t state_;
};

std::vector<uint8_t> TinyCnn(uint64_t seed) {
  WeightSource w(seed);
  ModelBuilder b;
  b.SetDescription("edgerun synth tiny_cnn");
  const int image = b.AddTensor("image", TensorType::kFloat32, {1, 8, 8, 3}, {}, {-1, 8, 8, 3});
  const int filter = b.AddConstant("conv/filter", TensorType::kFloat32, {8, 3, 3, 3}, w.Next(8 * 27, 27));
  const int bias = b.AddConstant("conv/bias", TensorType::kFloat32, {8}, w.Next(8, 8));
  const int conv = b.AddTensor("conv", TensorType::kFloat32, {1, 8, 8, 8});
  b.AddOp(tflite::BuiltinOperator_CONV_2D, {image, filter, bias}, {conv}, tflite::BuiltinOptions_Conv2DOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, tflite::ActivationFunctionType_RELU)
                .Union();
          });
  const int pool = b.AddTensor("pool", TensorType::kFloat32, {1, 4, 4, 8});
  b.AddOp(tflite::BuiltinOperator_MAX_POOL_2D, {conv}, {pool}, tflite::BuiltinOptions_Pool2DOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 2, 2, 2, 2).Union();
          });
  const int fc_w = b.AddConstant("fc/weights", TensorType::kFloat32, {10, 128}, w.Next(1280, 128));
  const int fc_b = b.AddConstant("fc/bias", TensorType::kFloat32, {10}, w.Next(10, 10));
  const int logits = b.AddTensor("logits", TensorType::kFloat32, {1, 10});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {pool, fc_w, fc_b}, {logits});
  const int probs = b.AddTensor("probabilities", TensorType::kFloat32, {1, 10});
  b.AddOp(tflite::BuiltinOperator_SOFTMAX, {logits}, {probs}, tflite::BuiltinOptions_SoftmaxOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSoftmaxOptions(fbb, 1.0f).Union(); });
  b.SetInputs({image});
  b.SetOutputs({probs});
  b.AddSignature("serving_default", 0, {{"image", image}}, {{"probabilities", probs}});
  return b.Finish();
}


// ---- standard architectures -------------------------------------------------------------

enum class Act { kNone, kRelu, kRelu6 };

struct Range {
  float min = 0, max = 0;
};
using Ranges = std::map<std::string, Range>;  // tensor name -> observed float range

// Uniform weights with the variance that keeps activations of order one through a deep stack
// (He for layers followed by a ReLU, half of it for linear layers).
class Uniform {
 public:
  explicit Uniform(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}
  std::vector<float> Next(size_t n, float limit) {
    std::vector<float> v(n);
    for (auto& x : v) {
      state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
      x = (static_cast<float>(state_ >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f) * limit;
    }
    return v;
  }

 private:
  uint64_t state_;
};

// Builds a network layer by layer as float32, or as its int8 twin: the same random float weights
// quantized per channel, activations quantized with the ranges the float twin produced.
class NetBuilder {
 public:
  NetBuilder(uint64_t seed, const Ranges* ranges) : weights_(seed), ranges_(ranges) {}
  bool int8() const { return ranges_ != nullptr; }

  int Input(const std::string& name, Shape shape) {
    // int8 input covers [-1, 1), like the random float inputs.
    return Add(name, std::move(shape), int8() ? Quant(1.0f / 128, 0) : QuantizationParams{});
  }

  int Conv(int x, int out_c, int k, int stride, Act act, const std::string& name) {
    const Shape& in = shape(x);
    const int in_c = in[3];
    const int fan_in = k * k * in_c;
    const std::vector<float> w = weights_.Next(static_cast<size_t>(out_c) * fan_in, Limit(fan_in, act));
    const std::vector<float> bias = weights_.Next(out_c, 0.1f);
    const int y = Activation(name, {in[0], Same(in[1], stride), Same(in[2], stride), out_c});
    const int filter = Weights(name + "/filter", {out_c, k, k, in_c}, w, 0);
    const int b = Bias(name + "/bias", bias, x, filter);
    builder_.AddOp(tflite::BuiltinOperator_CONV_2D, {x, filter, b}, {y}, tflite::BuiltinOptions_Conv2DOptions,
                   [stride, act](flatbuffers::FlatBufferBuilder& fbb) {
                     return tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, stride, stride, Fused(act)).Union();
                   },
                   int8() ? 3 : 1);
    return y;
  }

  int Depthwise(int x, int k, int stride, Act act, const std::string& name) {
    const Shape& in = shape(x);
    const int c = in[3];
    // Filter [1, k, k, c]: channel fastest.
    const std::vector<float> w = weights_.Next(static_cast<size_t>(k) * k * c, Limit(k * k, act));
    const std::vector<float> bias = weights_.Next(c, 0.1f);
    const int y = Activation(name, {in[0], Same(in[1], stride), Same(in[2], stride), c});
    const int filter = Weights(name + "/filter", {1, k, k, c}, w, 3);
    const int b = Bias(name + "/bias", bias, x, filter);
    builder_.AddOp(tflite::BuiltinOperator_DEPTHWISE_CONV_2D, {x, filter, b}, {y},
                   tflite::BuiltinOptions_DepthwiseConv2DOptions,
                   [stride, act](flatbuffers::FlatBufferBuilder& fbb) {
                     return tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_SAME, stride, stride, 1, Fused(act))
                         .Union();
                   },
                   int8() ? 3 : 1);
    return y;
  }

  int AddTensors(int a, int b, Act act, const std::string& name) {
    const int y = Activation(name, shape(a));
    builder_.AddOp(tflite::BuiltinOperator_ADD, {a, b}, {y}, tflite::BuiltinOptions_AddOptions,
                   [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateAddOptions(fbb, Fused(act)).Union(); },
                   int8() ? 2 : 1);
    return y;
  }

  int MaxPool(int x, int k, int stride, const std::string& name) {
    const Shape& in = shape(x);
    // Pooling keeps the input's quantization (TFLite requires it).
    const int y = Add(name, {in[0], Same(in[1], stride), Same(in[2], stride), in[3]}, quant(x));
    Pool(tflite::BuiltinOperator_MAX_POOL_2D, x, y, k, stride, tflite::Padding_SAME);
    return y;
  }

  // Global average pool to [N, C] (AVERAGE_POOL_2D over the whole image, then RESHAPE).
  int GlobalAveragePool(int x, const std::string& name) {
    const Shape in = shape(x);
    const int pooled = Add(name, {in[0], 1, 1, in[3]}, quant(x));
    Pool(tflite::BuiltinOperator_AVERAGE_POOL_2D, x, pooled, in[1], in[1], tflite::Padding_VALID);
    const int flat = Add(name + "/flatten", {in[0], in[3]}, quant(x));
    const int new_shape = builder_.AddConstant(name + "/flatten/shape", TensorType::kInt32, {2},
                                               std::vector<int32_t>{in[0], in[3]});
    builder_.AddOp(tflite::BuiltinOperator_RESHAPE, {pooled, new_shape}, {flat}, tflite::BuiltinOptions_ReshapeOptions,
                   [n = in[0], c = in[3]](flatbuffers::FlatBufferBuilder& fbb) {
                     return tflite::CreateReshapeOptions(fbb, fbb.CreateVector(std::vector<int32_t>{n, c})).Union();
                   });
    return flat;
  }

  int FullyConnected(int x, int units, const std::string& name) {
    const Shape& in = shape(x);
    const int fan_in = in[1];
    const std::vector<float> w = weights_.Next(static_cast<size_t>(units) * fan_in, Limit(fan_in, Act::kNone));
    const std::vector<float> bias = weights_.Next(units, 0.1f);
    const int y = Activation(name, {in[0], units});
    // Per-tensor weights, as TFLite's converter writes them for FULLY_CONNECTED.
    const int filter = Weights(name + "/weights", {units, fan_in}, w, -1);
    const int b = Bias(name + "/bias", bias, x, filter);
    builder_.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {x, filter, b}, {y},
                   tflite::BuiltinOptions_FullyConnectedOptions,
                   [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateFullyConnectedOptions(fbb).Union(); },
                   int8() ? 4 : 1);
    return y;
  }

  int Softmax(int x, const std::string& name) {
    // int8 softmax output: scale 1/256, zero point -128 (what TFLite requires).
    const int y = Add(name, shape(x), int8() ? Quant(1.0f / 256, -128) : QuantizationParams{});
    builder_.AddOp(tflite::BuiltinOperator_SOFTMAX, {x}, {y}, tflite::BuiltinOptions_SoftmaxOptions,
                   [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSoftmaxOptions(fbb, 1.0f).Union(); },
                   int8() ? 2 : 1);
    return y;
  }

  std::vector<uint8_t> Finish(const std::string& description, int input, int output) {
    builder_.SetDescription(description);
    builder_.SetInputs({input});
    builder_.SetOutputs({output});
    builder_.AddSignature("serving_default", 0, {{names_[input], input}}, {{names_[output], output}});
    return builder_.Finish();
  }

 private:
  static tflite::ActivationFunctionType Fused(Act act) {
    return act == Act::kRelu6  ? tflite::ActivationFunctionType_RELU6
           : act == Act::kRelu ? tflite::ActivationFunctionType_RELU
                               : tflite::ActivationFunctionType_NONE;
  }
  static float Limit(int fan_in, Act act) {
    return std::sqrt((act == Act::kNone ? 3.0f : 6.0f) / static_cast<float>(std::max(1, fan_in)));
  }
  static int Same(int size, int stride) { return (size + stride - 1) / stride; }
  static QuantizationParams Quant(float scale, int64_t zero_point) { return {{scale}, {zero_point}, 0}; }

  const Shape& shape(int t) const { return shapes_.at(t); }
  const QuantizationParams& quant(int t) const { return quants_.at(t); }

  int Add(const std::string& name, Shape s, QuantizationParams q) {
    const int t = builder_.AddTensor(name, int8() ? TensorType::kInt8 : TensorType::kFloat32, s, q);
    shapes_[t] = std::move(s);
    quants_[t] = std::move(q);
    names_[t] = name;
    return t;
  }

  // An activation tensor; int8: asymmetric over the calibrated range (which always holds 0).
  int Activation(const std::string& name, Shape s) {
    QuantizationParams q;
    if (int8()) {
      const auto it = ranges_->find(name);
      const Range r = it == ranges_->end() ? Range{-1, 1} : it->second;
      const float lo = std::min(0.0f, r.min), hi = std::max(std::max(0.0f, r.max), lo + 1e-3f);
      const float scale = (hi - lo) / 255.0f;
      const int64_t zero_point = std::clamp<int64_t>(std::llround(-128.0 - lo / scale), -128, 127);
      q = Quant(scale, zero_point);
    }
    return Add(name, std::move(s), std::move(q));
  }

  // Symmetric int8 weights, per channel along `axis` (or per tensor when axis < 0).
  int Weights(const std::string& name, const Shape& s, const std::vector<float>& w, int axis) {
    if (!int8()) return builder_.AddConstant(name, TensorType::kFloat32, s, w);
    const size_t channels = axis < 0 ? 1 : static_cast<size_t>(s[axis]);
    size_t inner = 1;  // elements between two consecutive entries of the channel axis
    if (axis >= 0) {
      for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= static_cast<size_t>(s[d]);
    }
    auto channel_of = [&](size_t i) { return axis < 0 ? size_t{0} : (i / inner) % channels; };
    std::vector<float> max_abs(channels, 0.0f);
    for (size_t i = 0; i < w.size(); ++i) max_abs[channel_of(i)] = std::max(max_abs[channel_of(i)], std::fabs(w[i]));
    QuantizationParams q;
    for (float m : max_abs) {
      q.scale.push_back(m > 0 ? m / 127.0f : 1.0f);
      q.zero_point.push_back(0);
    }
    q.quantized_dimension = std::max(axis, 0);
    std::vector<int8_t> values(w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      values[i] = static_cast<int8_t>(std::clamp<long>(std::lround(w[i] / q.scale[channel_of(i)]), -127, 127));
    }
    const int t = builder_.AddConstant(name, TensorType::kInt8, s, values, q);
    weight_quants_[t] = q;
    return t;
  }

  // int8: int32 bias with scale input_scale x weight_scale per channel.
  int Bias(const std::string& name, const std::vector<float>& bias, int input, int filter) {
    if (!int8()) return builder_.AddConstant(name, TensorType::kFloat32, {static_cast<int32_t>(bias.size())}, bias);
    const float in_scale = quant(input).scale[0];
    const QuantizationParams& wq = weight_quants_.at(filter);
    // Per-channel weights get per-channel bias scales; per-tensor weights one bias scale.
    QuantizationParams q;
    for (float w_scale : wq.scale) {
      q.scale.push_back(in_scale * w_scale);
      q.zero_point.push_back(0);
    }
    std::vector<int32_t> values(bias.size());
    for (size_t c = 0; c < bias.size(); ++c) {
      values[c] = static_cast<int32_t>(std::lround(bias[c] / q.scale[q.scale.size() == 1 ? 0 : c]));
    }
    return builder_.AddConstant(name, TensorType::kInt32, {static_cast<int32_t>(bias.size())}, values, q);
  }

  void Pool(tflite::BuiltinOperator op, int x, int y, int k, int stride, tflite::Padding padding) {
    builder_.AddOp(op, {x}, {y}, tflite::BuiltinOptions_Pool2DOptions,
                   [=](flatbuffers::FlatBufferBuilder& fbb) {
                     return tflite::CreatePool2DOptions(fbb, padding, stride, stride, k, k).Union();
                   },
                   int8() ? 2 : 1);
  }

  ModelBuilder builder_;
  Uniform weights_;
  const Ranges* ranges_;
  std::map<int, Shape> shapes_;
  std::map<int, QuantizationParams> quants_;
  std::map<int, std::string> names_;
  std::map<int, QuantizationParams> weight_quants_;  // int8 weights by tensor index
};

// MobileNet v1 1.0 (Howard et al. 2017): 13 depthwise-separable blocks.
std::vector<uint8_t> MobileNetV1(uint64_t seed, int size, const Ranges* ranges) {
  NetBuilder n(seed, ranges);
  const int image = n.Input("image", {1, size, size, 3});
  int x = n.Conv(image, 32, 3, 2, Act::kRelu6, "conv0");
  const int blocks[][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},  {512, 1},
                           {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  int i = 1;
  for (const auto& [channels, stride] : blocks) {
    x = n.Depthwise(x, 3, stride, Act::kRelu6, StrCat("block", i, "/depthwise"));
    x = n.Conv(x, channels, 1, 1, Act::kRelu6, StrCat("block", i, "/pointwise"));
    ++i;
  }
  x = n.GlobalAveragePool(x, "avg_pool");
  x = n.FullyConnected(x, 1000, "logits");
  const int probs = n.Softmax(x, "probabilities");
  return n.Finish(StrCat("edgerun synth mobilenet_v1 1.0 ", size, ranges ? " int8" : " float32"), image, probs);
}

// MobileNet v2 1.0 (Sandler et al. 2018): inverted residual blocks with linear bottlenecks.
std::vector<uint8_t> MobileNetV2(uint64_t seed, int size, const Ranges* ranges) {
  NetBuilder n(seed, ranges);
  const int image = n.Input("image", {1, size, size, 3});
  int x = n.Conv(image, 32, 3, 2, Act::kRelu6, "conv0");
  // expansion t, output channels c, repeats r, first stride s
  const int stages[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                           {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int in_c = 32, block = 1;
  for (const auto& [t, c, r, s] : stages) {
    for (int j = 0; j < r; ++j, ++block) {
      const int stride = j == 0 ? s : 1;
      const std::string prefix = StrCat("block", block, "/");
      int y = x;
      if (t != 1) y = n.Conv(y, in_c * t, 1, 1, Act::kRelu6, prefix + "expand");
      y = n.Depthwise(y, 3, stride, Act::kRelu6, prefix + "depthwise");
      y = n.Conv(y, c, 1, 1, Act::kNone, prefix + "project");
      if (stride == 1 && in_c == c) y = n.AddTensors(x, y, Act::kNone, prefix + "add");
      x = y;
      in_c = c;
    }
  }
  x = n.Conv(x, 1280, 1, 1, Act::kRelu6, "conv_last");
  x = n.GlobalAveragePool(x, "avg_pool");
  x = n.FullyConnected(x, 1000, "logits");
  const int probs = n.Softmax(x, "probabilities");
  return n.Finish(StrCat("edgerun synth mobilenet_v2 1.0 ", size, ranges ? " int8" : " float32"), image, probs);
}

// ResNet-18 (He et al. 2015), batch norm folded into the conv biases; the stride sits in the
// first 3x3 conv of a stage, the shortcut is a 1x1 conv where the shape changes.
std::vector<uint8_t> ResNet18(uint64_t seed, int size, const Ranges* ranges) {
  NetBuilder n(seed, ranges);
  const int image = n.Input("image", {1, size, size, 3});
  int x = n.Conv(image, 64, 7, 2, Act::kRelu, "conv0");
  x = n.MaxPool(x, 3, 2, "max_pool");
  int in_c = 64;
  const int widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int j = 0; j < 2; ++j) {
      const int c = widths[stage];
      const int stride = j == 0 && stage > 0 ? 2 : 1;
      const std::string prefix = StrCat("stage", stage + 1, "/block", j + 1, "/");
      int shortcut = x;
      if (stride != 1 || in_c != c) shortcut = n.Conv(x, c, 1, stride, Act::kNone, prefix + "shortcut");
      int y = n.Conv(x, c, 3, stride, Act::kRelu, prefix + "conv1");
      y = n.Conv(y, c, 3, 1, Act::kNone, prefix + "conv2");
      x = n.AddTensors(y, shortcut, Act::kRelu, prefix + "add");
      in_c = c;
    }
  }
  x = n.GlobalAveragePool(x, "avg_pool");
  x = n.FullyConnected(x, 1000, "logits");
  const int probs = n.Softmax(x, "probabilities");
  return n.Finish(StrCat("edgerun synth resnet18 ", size, ranges ? " int8" : " float32"), image, probs);
}

// Records the float range of every tensor a node writes, right after the node ran (the arena
// reuses the memory later).
class RangeRecorder : public Profiler {
 public:
  RangeRecorder(Interpreter* interpreter, Ranges* ranges) : interpreter_(interpreter), ranges_(ranges) {}
  void OnNodeBegin(int, int, const std::string&) override {}
  void OnNodeEnd(int subgraph, int node, const std::string&) override {
    Subgraph& sg = *interpreter_->subgraph(subgraph);
    for (int index : sg.nodes()[node].outputs) {
      const Tensor& t = *sg.tensor(index);
      if (t.type != TensorType::kFloat32 || t.data == nullptr) continue;
      const float* v = static_cast<const float*>(t.data);
      auto [it, fresh] = ranges_->try_emplace(t.name, Range{v[0], v[0]});
      for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
        it->second.min = std::min(it->second.min, v[i]);
        it->second.max = std::max(it->second.max, v[i]);
      }
    }
  }

 private:
  Interpreter* interpreter_;
  Ranges* ranges_;
};

using NetFunction = std::vector<uint8_t> (*)(uint64_t seed, int size, const Ranges* ranges);

// Runs the float twin on seeded random inputs in [-1, 1] and collects every tensor's range.
Status Calibrate(const std::vector<uint8_t>& float_model, Ranges* ranges) {
  auto model = Model::FromBuffer(float_model.data(), float_model.size(), "calibration model");
  if (!model.ok()) return model.status();
  // The recorder reads every node's output after it runs: no delegate, whose partitions keep
  // their intermediate tensors to themselves.
  InterpreterOptions options;
  options.use_xnnpack = false;
  auto interpreter = Interpreter::Create(*model, options);
  if (!interpreter.ok()) return interpreter.status();
  Interpreter& in = **interpreter;
  ER_RETURN_IF_ERROR(in.AllocateTensors());
  RangeRecorder recorder(&in, ranges);
  in.SetProfiler(&recorder);
  for (uint64_t sample = 0; sample < 2; ++sample) {
    FillRandom(in.input(0), 7919 + sample);
    ER_RETURN_IF_ERROR(in.Invoke());
  }
  in.SetProfiler(nullptr);
  return Status::Ok();
}
}  // namespace

int RunSynth(const std::vector<std::string>& args) {
  std::string name, out;
  long long seed = 1, size = 224;
  bool int8 = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
    else if (args[i] == "--seed" && i + 1 < args.size() && ParseInt(args[i + 1], &seed)) ++i;
    else if (args[i] == "--size" && i + 1 < args.size() && ParseInt(args[i + 1], &size)) ++i;
    else if (args[i] == "--int8") int8 = true;
    else if (args[i] == "--help" || args[i] == "-h") { std::cout << kSynthUsage; return kExitOk; }
    else if (name.empty() && !args[i].empty() && args[i][0] != '-') name = args[i];
    else return UsageError("synth", "unexpected argument '" + args[i] + "'", kSynthUsage);
  }
  if (name.empty() || out.empty()) return UsageError("synth", "need NAME and -o FILE", kSynthUsage);
  if (size < 32 || size > 4096 || size % 32 != 0) {
    return UsageError("synth", "--size must be a multiple of 32 from 32 to 4096", kSynthUsage);
  }
  std::vector<uint8_t> bytes;
  const uint64_t s = static_cast<uint64_t>(seed);
  if (name == "tiny_cnn") {
    if (int8) return UsageError("synth", "tiny_cnn has no --int8 twin", kSynthUsage);
    bytes = TinyCnn(s);
  } else {
    NetFunction net = name == "mobilenet_v1"   ? MobileNetV1
                      : name == "mobilenet_v2" ? MobileNetV2
                      : name == "resnet18"     ? ResNet18
                                               : nullptr;
    if (net == nullptr) return UsageError("synth", "unknown network '" + name + "'", kSynthUsage);
    bytes = net(s, static_cast<int>(size), nullptr);
    if (int8) {
      Ranges ranges;
      if (Status st = Calibrate(bytes, &ranges); !st.ok()) return Fail("calibration failed: " + st.message());
      bytes = net(s, static_cast<int>(size), &ranges);
    }
  }
  if (Status st = WriteFileBytes(out, bytes.data(), bytes.size()); !st.ok()) return Fail(st.message());
  std::cout << "wrote " << out << " (" << name << (int8 ? " int8" : "") << ", " << bytes.size() << " bytes)\n";
  return kExitOk;
}

}  // namespace edgerun::tools
