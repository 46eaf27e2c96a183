// A float32 MobileNet v2 1.0 224 (the standard architecture: 3x3 stem, 17 inverted residual
// blocks with ReLU6, 1x1 to 1280, average pool, 1000-class fully connected head, softmax) with
// seeded random weights, written with ModelBuilder. For benchmarks of the builtin kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "model/model_builder.h"

namespace edgerun::bench {

inline std::vector<uint8_t> MobileNetV2Float(uint64_t seed = 1) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 7;
  auto weights = [&](size_t n, int fan_in) {
    std::vector<float> v(n);
    const float scale = std::sqrt(2.0f / static_cast<float>(fan_in));
    for (auto& x : v) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = (static_cast<float>(state >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f) * scale;
    }
    return v;
  };
  ModelBuilder b;
  b.SetDescription("edgerun kernel bench: MobileNet v2 1.0 224 float32, random weights");
  int layer = 0;
  auto name = [&](const char* what) { return std::string(what) + std::to_string(layer); };
  auto conv = [&](int x, int h, int w, int in_c, int out_c, int k, int stride, bool relu6) {
    ++layer;
    const int f = b.AddConstant(name("conv_w"), TensorType::kFloat32, {out_c, k, k, in_c},
                                weights(static_cast<size_t>(out_c) * k * k * in_c, k * k * in_c));
    const int bias = b.AddConstant(name("conv_b"), TensorType::kFloat32, {out_c}, weights(out_c, 100));
    const int oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
    const int y = b.AddTensor(name("conv"), TensorType::kFloat32, {1, oh, ow, out_c});
    const auto act = relu6 ? tflite::ActivationFunctionType_RELU6 : tflite::ActivationFunctionType_NONE;
    b.AddOp(tflite::BuiltinOperator_CONV_2D, {x, f, bias}, {y}, tflite::BuiltinOptions_Conv2DOptions,
            [=](flatbuffers::FlatBufferBuilder& fbb) {
              return tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, stride, stride, act).Union();
            });
    return y;
  };
  auto depthwise = [&](int x, int h, int w, int c, int stride) {
    ++layer;
    const int f = b.AddConstant(name("dw_w"), TensorType::kFloat32, {1, 3, 3, c}, weights(9 * static_cast<size_t>(c), 9));
    const int bias = b.AddConstant(name("dw_b"), TensorType::kFloat32, {c}, weights(c, 100));
    const int oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
    const int y = b.AddTensor(name("dw"), TensorType::kFloat32, {1, oh, ow, c});
    b.AddOp(tflite::BuiltinOperator_DEPTHWISE_CONV_2D, {x, f, bias}, {y}, tflite::BuiltinOptions_DepthwiseConv2DOptions,
            [=](flatbuffers::FlatBufferBuilder& fbb) {
              return tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_SAME, stride, stride, 1,
                                                          tflite::ActivationFunctionType_RELU6)
                  .Union();
            });
    return y;
  };
  const int image = b.AddTensor("image", TensorType::kFloat32, {1, 224, 224, 3});
  int x = conv(image, 224, 224, 3, 32, 3, 2, true);
  int h = 112, c = 32;
  const int blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& blk : blocks) {
    for (int i = 0; i < blk[2]; ++i) {
      const int stride = i == 0 ? blk[3] : 1;
      const int expanded = c * blk[0];
      int y = blk[0] == 1 ? x : conv(x, h, h, c, expanded, 1, 1, true);
      y = depthwise(y, h, h, expanded, stride);
      const int oh = (h + stride - 1) / stride;
      y = conv(y, oh, oh, expanded, blk[1], 1, 1, false);
      if (stride == 1 && c == blk[1]) {
        ++layer;
        const int sum = b.AddTensor(name("add"), TensorType::kFloat32, {1, oh, oh, c});
        b.AddOp(tflite::BuiltinOperator_ADD, {x, y}, {sum});
        y = sum;
      }
      x = y;
      h = oh;
      c = blk[1];
    }
  }
  x = conv(x, h, h, c, 1280, 1, 1, true);
  const int pooled = b.AddTensor("pool", TensorType::kFloat32, {1, 1, 1, 1280});
  b.AddOp(tflite::BuiltinOperator_AVERAGE_POOL_2D, {x}, {pooled}, tflite::BuiltinOptions_Pool2DOptions,
          [=](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 1, 1, h, h).Union();
          });
  const int fc_w = b.AddConstant("fc_w", TensorType::kFloat32, {1000, 1280}, weights(1280000, 1280));
  const int fc_b = b.AddConstant("fc_b", TensorType::kFloat32, {1000}, weights(1000, 100));
  const int logits = b.AddTensor("logits", TensorType::kFloat32, {1, 1000});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {pooled, fc_w, fc_b}, {logits});
  const int probs = b.AddTensor("probabilities", TensorType::kFloat32, {1, 1000});
  b.AddOp(tflite::BuiltinOperator_SOFTMAX, {logits}, {probs}, tflite::BuiltinOptions_SoftmaxOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSoftmaxOptions(fbb, 1.0f).Union(); });
  b.SetInputs({image});
  b.SetOutputs({probs});
  return b.Finish();
}

}  // namespace edgerun::bench
