// edgerun synth NAME -o FILE: writes a synthetic network with seeded random weights, built
// with ModelBuilder (for demos and benchmarks when no real model is at hand).
#include <cmath>
#include <iostream>

#include "model/model_builder.h"
#include "tools/cli.h"
#include "tools/tensor_io.h"

namespace edgerun::tools {
namespace {

const char kSynthUsage[] =
    "usage: edgerun synth NAME -o FILE [--seed N]\n"
    "  NAME: tiny_cnn (8x8x3 image -> 10 classes: conv, relu, max pool, fully connected, softmax)\n";

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

}  // namespace

int RunSynth(const std::vector<std::string>& args) {
  std::string name, out;
  long long seed = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
    else if (args[i] == "--seed" && i + 1 < args.size() && ParseInt(args[i + 1], &seed)) ++i;
    else if (args[i] == "--help" || args[i] == "-h") { std::cout << kSynthUsage; return kExitOk; }
    else if (name.empty() && !args[i].empty() && args[i][0] != '-') name = args[i];
    else return UsageError("synth", "unexpected argument '" + args[i] + "'", kSynthUsage);
  }
  if (name.empty() || out.empty()) return UsageError("synth", "need NAME and -o FILE", kSynthUsage);
  std::vector<uint8_t> bytes;
  if (name == "tiny_cnn") bytes = TinyCnn(static_cast<uint64_t>(seed));
  else return UsageError("synth", "unknown network '" + name + "'", kSynthUsage);
  if (Status st = WriteFileBytes(out, bytes.data(), bytes.size()); !st.ok()) return Fail(st.message());
  std::cout << "wrote " << out << " (" << name << ", " << bytes.size() << " bytes)\n";
  return kExitOk;
}

}  // namespace edgerun::tools
