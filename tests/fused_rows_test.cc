// Fused chains of convolutions (ops/fused_rows.h) against the same model with every node on its
// own: random chains (expansion, depthwise, projection; a strided first convolution; float32,
// int8, uint8), images tall enough for several strips and thread ranges, 1 to 3 threads. The
// outputs must be the same bits: the members run the same kernels on bands of rows.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/subgraph.h"
#include "kernels/optimized/cpu.h"
#include "kernels/optimized/gemm.h"
#include "ops/fused_rows.h"
#include "test_util.h"

namespace edgerun {
namespace {

using Op = tflite::BuiltinOperator;
using Act = tflite::ActivationFunctionType;
constexpr TensorType kF32 = TensorType::kFloat32;
constexpr TensorType kI8 = TensorType::kInt8;
constexpr TensorType kU8 = TensorType::kUInt8;

QuantizationParams Q(float scale, int64_t zero_point) { return {{scale}, {zero_point}, 0}; }

struct Chain {
  TensorType type = kF32;
  int h = 16, w = 16, in_c = 8, mid_c = 24, out_c = 8;
  bool expand = true;         // a first convolution before the depthwise one
  int expand_window = 1;      // its window (3: a strided 3x3 convolution, as MobileNet's first)
  int expand_stride = 1;
  int dw_window = 3, dw_stride = 1;
  bool dw_same = true;        // SAME padding, else VALID
  bool project = true;        // a 1x1 convolution after it
  bool output_mid = false;    // the depthwise output is also a subgraph output (no fusion there)
  int residual = 0;           // 1: ADD(projected, x) after the projection; 2: ADD(x, projected)
  int tail_c = 0;             // > 0: a 1x1 convolution to this many channels after all that
  // 8-bit chains: the model's input quantized to x first by a QUANTIZE from 1: uint8 of the same
  // scale (a shift, as TF2's post-training quantization writes), 2: uint8 of another scale (a
  // table), 3: float (XNNPACK's arithmetic). 0: none.
  int quantize_input = 0;
};

int OutSize(int in, int k, int stride, bool same) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; }

std::vector<uint8_t> ChainModel(const Chain& c, uint32_t seed) {
  ModelBuilder b;
  std::mt19937 rng(seed);
  const bool q8 = c.type != kF32;
  const bool s8 = c.type == kI8;
  auto zp = [&]() -> int64_t { return s8 ? static_cast<int>(rng() % 21) - 10 : 100 + static_cast<int>(rng() % 50); };
  auto act = [&](float scale) { return q8 ? Q(scale, zp()) : QuantizationParams{}; };
  auto weights = [&](const std::string& name, Shape shape, bool per_channel) {
    size_t n = 1;
    for (int d : shape) n *= static_cast<size_t>(d);
    if (!q8) return b.AddConstant<float>(name, kF32, shape, testing::RandomFloats(n, rng(), -0.5f, 0.5f));
    if (s8) {
      std::vector<int8_t> v(n);
      for (auto& x : v) x = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      QuantizationParams q;
      const int channels = per_channel ? shape[shape[0] == 1 ? 3 : 0] : 1;
      for (int i = 0; i < channels; ++i) {
        q.scale.push_back(0.002f + 0.004f * static_cast<float>(rng() % 100) / 100.0f);
        q.zero_point.push_back(0);
      }
      q.quantized_dimension = shape[0] == 1 ? 3 : 0;
      return b.AddConstant<int8_t>(name, kI8, shape, v, q);
    }
    std::vector<uint8_t> v(n);
    for (auto& x : v) x = static_cast<uint8_t>(rng() % 256);
    return b.AddConstant<uint8_t>(name, kU8, shape, v, Q(0.004f, 110 + static_cast<int>(rng() % 30)));
  };
  auto bias = [&](const std::string& name, int n) {
    if (!q8) return b.AddConstant<float>(name, kF32, {n}, testing::RandomFloats(n, rng(), -0.3f, 0.3f));
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (auto& x : v) x = static_cast<int32_t>(rng() % 2001) - 1000;
    return b.AddConstant<int32_t>(name, TensorType::kInt32, {n}, v, Q(0.0002f, 0));
  };
  const QuantizationParams x_params = act(0.05f);
  const int x = b.AddTensor("x", c.type, {1, c.h, c.w, c.in_c}, x_params);
  if (q8 && c.quantize_input > 0) {
    const int64_t x_zero = x_params.zero_point[0];
    const QuantizationParams raw = c.quantize_input == 1 ? Q(0.05f, s8 ? x_zero + 128 : x_zero + 3)
                                   : c.quantize_input == 2 ? Q(0.08f, 120)
                                                           : QuantizationParams{};
    const int input = b.AddTensor("raw", c.quantize_input == 3 ? kF32 : kU8, {1, c.h, c.w, c.in_c}, raw);
    b.AddOp(Op::BuiltinOperator_QUANTIZE, {input}, {x});
    b.SetInputs({input});
  } else {
    b.SetInputs({x});
  }
  int value = x, h = c.h, w = c.w, channels = c.in_c;
  if (c.expand) {
    const int k = c.expand_window;
    const int oh = OutSize(h, k, c.expand_stride, true), ow = OutSize(w, k, c.expand_stride, true);
    const int out = b.AddTensor("expanded", c.type, {1, oh, ow, c.mid_c}, act(0.04f));
    auto o = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, c.expand_stride, c.expand_stride,
                                                    Act::ActivationFunctionType_RELU6));
    b.AddOp(Op::BuiltinOperator_CONV_2D, {value, weights("w_expand", {c.mid_c, k, k, channels}, true), bias("b1", c.mid_c)},
            {out}, tflite::BuiltinOptions_Conv2DOptions, o);
    value = out;
    h = oh;
    w = ow;
    channels = c.mid_c;
  }
  {
    const int k = c.dw_window;
    const int oh = OutSize(h, k, c.dw_stride, c.dw_same), ow = OutSize(w, k, c.dw_stride, c.dw_same);
    const int out = b.AddTensor("depthwise", c.type, {1, oh, ow, channels}, act(0.03f));
    auto o = ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, c.dw_same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                             c.dw_stride, c.dw_stride, 1, Act::ActivationFunctionType_RELU6));
    b.AddOp(Op::BuiltinOperator_DEPTHWISE_CONV_2D, {value, weights("w_dw", {1, k, k, channels}, true), bias("b2", channels)},
            {out}, tflite::BuiltinOptions_DepthwiseConv2DOptions, o);
    value = out;
    h = oh;
    w = ow;
  }
  std::vector<int> outputs;
  if (c.output_mid) outputs.push_back(value);
  if (c.project) {
    const int out = b.AddTensor("projected", c.type, {1, h, w, c.out_c}, act(0.06f));
    auto o = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1));
    b.AddOp(Op::BuiltinOperator_CONV_2D, {value, weights("w_project", {c.out_c, 1, 1, channels}, false), bias("b3", c.out_c)},
            {out}, tflite::BuiltinOptions_Conv2DOptions, o);
    value = out;
  }
  if (c.residual != 0 && c.project) {
    const int sum = b.AddTensor("sum", c.type, {1, h, w, c.out_c}, act(0.07f));
    const auto activation = rng() % 2 ? Act::ActivationFunctionType_NONE : Act::ActivationFunctionType_RELU;
    auto o = ER_OPTIONS(tflite::CreateAddOptions(fbb, activation));
    const std::vector<int> operands = c.residual == 1 ? std::vector<int>{value, x} : std::vector<int>{x, value};
    b.AddOp(Op::BuiltinOperator_ADD, operands, {sum}, tflite::BuiltinOptions_AddOptions, o);
    value = sum;
  }
  if (c.tail_c > 0) {
    const int out = b.AddTensor("tail", c.type, {1, h, w, c.tail_c}, act(0.05f));
    auto o = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, Act::ActivationFunctionType_RELU6));
    const int depth = c.project ? c.out_c : channels;
    b.AddOp(Op::BuiltinOperator_CONV_2D, {value, weights("w_tail", {c.tail_c, 1, 1, depth}, true), bias("b4", c.tail_c)},
            {out}, tflite::BuiltinOptions_Conv2DOptions, o);
    value = out;
  }
  outputs.push_back(value);
  b.SetOutputs(outputs);
  return b.Finish();
}

struct Result {
  std::vector<std::vector<uint8_t>> outputs;
  int fused_nodes = 0;  // model nodes in FUSED partitions
  size_t arena = 0;
};

// With `fuse`, every chain is fused (fuse_all_row_chains), whatever the cost rules say, unless
// `cost_rules`.
Result RunChain(const std::vector<uint8_t>& bytes, bool fuse, int threads, uint32_t seed, bool xnnpack = false,
                bool cost_rules = false, bool winograd = true) {
  InterpreterOptions options;
  options.float_winograd = winograd;
  options.fuse_row_chains = fuse;
  options.fuse_all_row_chains = !cost_rules;
  options.num_threads = threads;
  options.use_xnnpack = xnnpack;
  Result r;
  auto interpreter = testing::Build(bytes, options);
  if (!interpreter) return r;
  Tensor* in = interpreter->input(0);
  std::mt19937 rng(seed);
  std::vector<uint8_t> values(in->bytes);
  if (in->type == kF32) {
    const auto f = testing::RandomFloats(static_cast<size_t>(in->num_elements()), seed, -1.0f, 1.0f);
    std::memcpy(values.data(), f.data(), in->bytes);
  } else {
    for (auto& v : values) v = static_cast<uint8_t>(rng());
  }
  std::memcpy(in->data, values.data(), in->bytes);
  EXPECT_TRUE(interpreter->Invoke().ok());
  for (size_t k = 0; k < interpreter->num_outputs(); ++k) {
    const Tensor* out = interpreter->output(static_cast<int>(k));
    const auto* p = static_cast<const uint8_t*>(out->data);
    r.outputs.emplace_back(p, p + out->bytes);
  }
  for (const auto& p : interpreter->delegation()->partitions) {
    if (p.delegate == "FUSED") r.fused_nodes += static_cast<int>(p.partition.nodes.size());
  }
  r.arena = interpreter->subgraph(0)->arena_bytes();
  return r;
}

Chain RandomChain(std::mt19937& rng) {
  Chain c;
  const TensorType types[] = {kF32, kI8, kU8};
  c.type = types[rng() % 3];
  c.h = 8 + static_cast<int>(rng() % 40);
  c.w = 3 + static_cast<int>(rng() % 40);
  c.in_c = 1 + static_cast<int>(rng() % 24);
  c.mid_c = 1 + static_cast<int>(rng() % 70);
  c.out_c = 1 + static_cast<int>(rng() % 24);
  c.expand = rng() % 4 != 0;
  if (c.expand && rng() % 4 == 0) {
    c.expand_window = 3;
    c.expand_stride = 1 + static_cast<int>(rng() % 2);
  }
  c.dw_window = rng() % 3 == 0 ? 5 : 3;
  c.dw_stride = 1 + static_cast<int>(rng() % 2);
  c.dw_same = rng() % 4 != 0;
  c.project = !c.expand || rng() % 4 != 0;
  // A residual ADD where the block keeps its shape (MobileNet v2's stride-1 blocks).
  if (c.project && c.expand && c.expand_window == 1 && c.dw_stride == 1 && c.dw_same && rng() % 2 == 0) {
    c.out_c = c.in_c;
    c.residual = 1 + static_cast<int>(rng() % 2);
  }
  // VALID padding needs a window's worth of rows and columns after the first convolution.
  const int h = c.expand ? OutSize(c.h, c.expand_window, c.expand_stride, true) : c.h;
  const int w = c.expand ? OutSize(c.w, c.expand_window, c.expand_stride, true) : c.w;
  if (h < c.dw_window || w < c.dw_window) c.dw_same = true;
  return c;
}

// An inverted-residual block of MobileNet v2's kind on a size x size image.
Chain Block(TensorType type, int size, int in_c, int mid_c, int out_c) {
  Chain c;
  c.type = type;
  c.h = c.w = size;
  c.in_c = in_c;
  c.mid_c = mid_c;
  c.out_c = out_c;
  return c;
}

std::string Describe(const Chain& c) {
  return StrCat(TensorTypeName(c.type), " ", c.h, "x", c.w, "x", c.in_c, c.expand ? StrCat(" expand k", c.expand_window, " s", c.expand_stride, " -> ", c.mid_c) : std::string(),
                " dw ", c.dw_window, "x", c.dw_window, " s", c.dw_stride, c.dw_same ? " same" : " valid",
                c.project ? StrCat(" project -> ", c.out_c) : std::string(), c.residual ? " + residual" : "",
                c.tail_c ? StrCat(" 1x1 -> ", c.tail_c) : std::string(),
                c.quantize_input ? StrCat(" after QUANTIZE ", c.quantize_input) : std::string());
}

TEST(FusedRows, RandomChainsGiveTheSameBitsAsUnfused) {
  std::mt19937 rng(7);
  int fused_cases = 0;
  int float_cases = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const Chain c = RandomChain(rng);
    SCOPED_TRACE(Describe(c));
    const auto bytes = ChainModel(c, static_cast<uint32_t>(iter));
    const Result want = RunChain(bytes, false, 1, static_cast<uint32_t>(iter));
    ASSERT_FALSE(want.outputs.empty());
    EXPECT_EQ(want.fused_nodes, 0);
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(StrCat(threads, " threads"));
      const Result got = RunChain(bytes, true, threads, static_cast<uint32_t>(iter));
      ASSERT_EQ(got.outputs, want.outputs);
      if (threads == 1) {
        // At one thread every chain is fused (the float32 and byte-dot kernels run by bands on
        // every CPU the tests run on: 8-bit needs VNNI, so count the float chains only).
        if (c.type == kF32) {
          EXPECT_EQ(got.fused_nodes, (c.expand ? 1 : 0) + 1 + (c.project ? 1 : 0) + (c.residual ? 1 : 0));
          ++float_cases;
        }
        fused_cases += got.fused_nodes > 0;
      }
    }
  }
  // Enough chains fused for the comparison to mean something: every float chain, and on a CPU
  // with VNNI the 8-bit ones too.
  EXPECT_GE(float_cases, 12);
  EXPECT_GE(fused_cases, float_cases);
  if (optimized::HasAvx512Vnni()) {
    EXPECT_GT(fused_cases, 20);
  }
}

// A convolution followed by the max pool that alone reads its output (ResNet's stem): random
// windows, strides, paddings and activations, float32 / int8 / uint8, 1 to 3 threads; the same
// bits as unfused.
std::vector<uint8_t> ConvMaxPoolModel(TensorType type, int h, int w, int in_c, int out_c, int conv_k, int conv_s,
                                      int pool_k, int pool_s, bool pool_same, Act pool_act, uint32_t seed) {
  ModelBuilder b;
  std::mt19937 rng(seed);
  const bool q8 = type != kF32;
  auto act = [&](float scale, int64_t zero) { return q8 ? Q(scale, type == kI8 ? zero : zero + 128) : QuantizationParams{}; };
  const size_t filter_n = static_cast<size_t>(out_c) * conv_k * conv_k * in_c;
  int filter, bias;
  if (!q8) {
    filter = b.AddConstant<float>("w", kF32, {out_c, conv_k, conv_k, in_c}, testing::RandomFloats(filter_n, rng(), -0.5f, 0.5f));
    bias = b.AddConstant<float>("b", kF32, {out_c}, testing::RandomFloats(static_cast<size_t>(out_c), rng(), -0.3f, 0.3f));
  } else {
    std::vector<uint8_t> v(filter_n);
    for (auto& x : v) x = static_cast<uint8_t>(type == kI8 ? static_cast<int>(rng() % 255) - 127 : rng() % 256);
    filter = b.AddConstant(type == kI8 ? "w" : "w", type, {out_c, conv_k, conv_k, in_c}, v.data(), v.size(),
                           Q(0.004f, type == kI8 ? 0 : 120));
    std::vector<int32_t> bv(static_cast<size_t>(out_c));
    for (auto& x : bv) x = static_cast<int32_t>(rng() % 2001) - 1000;
    bias = b.AddConstant<int32_t>("b", TensorType::kInt32, {out_c}, bv, Q(0.0002f, 0));
  }
  const int x = b.AddTensor("x", type, {1, h, w, in_c}, act(0.05f, -3));
  const int ch = OutSize(h, conv_k, conv_s, true), cw = OutSize(w, conv_k, conv_s, true);
  const int conv = b.AddTensor("conv", type, {1, ch, cw, out_c}, act(0.04f, 5));
  b.AddOp(Op::BuiltinOperator_CONV_2D, {x, filter, bias}, {conv}, tflite::BuiltinOptions_Conv2DOptions,
          ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, conv_s, conv_s, Act::ActivationFunctionType_RELU)));
  const int ph = OutSize(ch, pool_k, pool_s, pool_same), pw = OutSize(cw, pool_k, pool_s, pool_same);
  const int pooled = b.AddTensor("pooled", type, {1, ph, pw, out_c}, act(0.04f, 5));
  b.AddOp(Op::BuiltinOperator_MAX_POOL_2D, {conv}, {pooled}, tflite::BuiltinOptions_Pool2DOptions,
          ER_OPTIONS(tflite::CreatePool2DOptions(fbb, pool_same ? tflite::Padding_SAME : tflite::Padding_VALID, pool_s,
                                                 pool_s, pool_k, pool_k, pool_act)));
  b.SetInputs({x});
  b.SetOutputs({pooled});
  return b.Finish();
}

TEST(FusedRows, ConvolutionThenMaxPoolGivesTheSameBitsAsUnfused) {
  std::mt19937 rng(11);
  int float_fused = 0;
  for (int iter = 0; iter < 30; ++iter) {
    const TensorType types[] = {kF32, kI8, kU8};
    const TensorType type = types[rng() % 3];
    const int h = 6 + static_cast<int>(rng() % 60), w = 4 + static_cast<int>(rng() % 40);
    const int in_c = 1 + static_cast<int>(rng() % 8), out_c = 1 + static_cast<int>(rng() % 70);
    const int windows[] = {1, 3, 7};
    const int conv_k = windows[rng() % 3], conv_s = 1 + static_cast<int>(rng() % 2);
    const int pool_k = 2 + static_cast<int>(rng() % 2), pool_s = 1 + static_cast<int>(rng() % 2);
    const bool pool_same = rng() % 3 != 0;
    const Act pool_act = rng() % 2 ? Act::ActivationFunctionType_NONE : Act::ActivationFunctionType_RELU6;
    const std::string what = StrCat(TensorTypeName(type), " ", h, "x", w, "x", in_c, " conv ", conv_k, "/", conv_s, " -> ",
                                    out_c, ", max pool ", pool_k, "/", pool_s, pool_same ? " same" : " valid");
    SCOPED_TRACE(what);
    const auto bytes = ConvMaxPoolModel(type, h, w, in_c, out_c, conv_k, conv_s, pool_k, pool_s, pool_same, pool_act,
                                        static_cast<uint32_t>(iter));
    const Result want = RunChain(bytes, false, 1, static_cast<uint32_t>(iter), false, false, /*winograd=*/false);
    ASSERT_FALSE(want.outputs.empty());
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(StrCat(threads, " threads"));
      const Result got = RunChain(bytes, true, threads, static_cast<uint32_t>(iter), false, false, /*winograd=*/false);
      ASSERT_EQ(got.outputs, want.outputs);
      if (threads == 1 && type == kF32) {
        EXPECT_EQ(got.fused_nodes, 2);
        float_fused += got.fused_nodes == 2;
      }
    }
  }
  EXPECT_GE(float_fused, 5);
}

TEST(FusedRows, AWinogradConvolutionStaysOutOfTheChain) {
  // A float 3x3 stride-1 convolution of 16+ channels runs by Winograd tiles from the image's
  // first row; by bands they would start at each band's: other rounding. It stays unfused, the
  // depthwise and projection after it fuse, and the results are the unfused ones bit for bit.
  Chain c;
  c.h = c.w = 20;
  c.in_c = 16;
  c.mid_c = 32;
  c.expand_window = 3;
  const auto bytes = ChainModel(c, 3);
  const Result want = RunChain(bytes, false, 1, 3);
  for (int threads : {1, 2}) {
    const Result got = RunChain(bytes, true, threads, 3);
    EXPECT_EQ(got.outputs, want.outputs);
    if (threads == 1) {
      EXPECT_EQ(got.fused_nodes, 2);
    }
  }
  // InterpreterOptions::float_winograd off: the direct sum, which fuses, other bits, near.
  const Result direct = RunChain(bytes, true, 1, 3, false, false, /*winograd=*/false);
  EXPECT_EQ(direct.fused_nodes, 3);
  ASSERT_EQ(direct.outputs.size(), want.outputs.size());
  ASSERT_EQ(direct.outputs[0].size(), want.outputs[0].size());
  EXPECT_NE(direct.outputs[0], want.outputs[0]);
  std::vector<float> a(want.outputs[0].size() / 4), b(a.size());
  std::memcpy(a.data(), want.outputs[0].data(), want.outputs[0].size());
  std::memcpy(b.data(), direct.outputs[0].data(), direct.outputs[0].size());
  EXPECT_TRUE(testing::AllNear(a, b, 1e-4f));
}

// The residual ADD joins its block, with either operand order, in LiteRT's 8-bit arithmetic
// (XNNPACK's) and in TFLite's reference one.
TEST(FusedRows, ResidualAddJoinsTheBlock) {
  for (TensorType type : {kF32, kI8, kU8}) {
    for (int order : {1, 2}) {
      for (bool reference_arithmetic : {false, true}) {
        Chain c;
        c.type = type;
        c.h = c.w = 28;
        c.in_c = c.out_c = 16;
        c.mid_c = 64;
        c.residual = order;
        SCOPED_TRACE(StrCat(Describe(c), order == 1 ? " (band first)" : " (band second)",
                            reference_arithmetic ? " TFLite arithmetic" : ""));
        const auto bytes = ChainModel(c, 23);
        InterpreterOptions options = reference_arithmetic ? testing::TfliteReferenceArithmetic() : InterpreterOptions{};
        options.use_xnnpack = false;
        options.fuse_row_chains = false;
        auto want = testing::Build(bytes, options);
        options.fuse_row_chains = true;
        options.num_threads = 2;
        auto got = testing::Build(bytes, options);
        ASSERT_TRUE(want && got);
        for (Interpreter* it : {want.get(), got.get()}) {
          Tensor* in = it->input(0);
          for (int64_t i = 0; i < static_cast<int64_t>(in->bytes); ++i) static_cast<uint8_t*>(in->data)[i] = static_cast<uint8_t>(i * 37 + 11);
          if (type == kF32) {
            for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
          }
          ASSERT_TRUE(it->Invoke().ok());
        }
        const Tensor* a = want->output(0);
        const Tensor* b = got->output(0);
        ASSERT_EQ(a->bytes, b->bytes);
        EXPECT_EQ(std::memcmp(a->data, b->data, a->bytes), 0);
        int fused = 0;
        for (const auto& p : got->delegation()->partitions) fused += static_cast<int>(p.partition.nodes.size());
        // 8-bit convolutions run by bands on the byte-dot GEMM (VNNI).
        if (type == kF32 || optimized::HasGemmI8(optimized::ActiveIsa())) {
          EXPECT_EQ(fused, 4);
        }
      }
    }
  }
}

// MobileNet v2's block shapes, tall enough for many strips: at 2 and 3 threads each range
// recomputes the rows its neighbour also needs.
TEST(FusedRows, InvertedResidualBlocksAtMobileNetSizes) {
  for (TensorType type : {kF32, kI8, kU8}) {
    for (int stride : {1, 2}) {
      Chain c;
      c.type = type;
      c.h = c.w = 56;
      c.in_c = 24;
      c.mid_c = 144;
      c.out_c = stride == 1 ? 24 : 32;
      c.dw_stride = stride;
      SCOPED_TRACE(Describe(c));
      const auto bytes = ChainModel(c, 3);
      const Result want = RunChain(bytes, false, 1, 5);
      for (int threads : {1, 2, 3}) {
        const Result got = RunChain(bytes, true, threads, 5);
        ASSERT_EQ(got.outputs, want.outputs) << threads << " threads";
        if (type == kF32) {
          EXPECT_EQ(got.fused_nodes, 3) << threads << " threads";
          // The two intermediate values (56x56x144 floats) get no arena memory.
          EXPECT_LT(got.arena, want.arena);
        }
      }
    }
  }
}

// The threads' row ranges follow their speeds (RowSplit): ranges of any size, the tallest strips
// starting at any row, give the unfused bits. Fixed speeds stand in for threads that run at
// different speeds; every chain is invoked a few times with each (buffers reused).
TEST(FusedRows, UnequalThreadRangesGiveTheSameBits) {
  struct Speeds {
    int threads;
    std::vector<double> speeds;
  };
  const Speeds cases[] = {{2, {1, 3}}, {2, {4, 1}}, {2, {1, 1.3}}, {3, {1, 1, 4}}, {3, {5, 1, 2}}};
  std::mt19937 rng(41);
  std::vector<Chain> chains;
  for (int i = 0; i < 16; ++i) chains.push_back(RandomChain(rng));
  for (int stride : {1, 2}) {  // MobileNet v2's 56x56 blocks: strips of several rows
    Chain c;
    c.type = stride == 1 ? kF32 : kU8;
    c.h = c.w = 56;
    c.in_c = 24;
    c.mid_c = 144;
    c.out_c = stride == 1 ? 24 : 32;
    c.dw_stride = stride;
    c.residual = stride == 1 ? 1 : 0;
    chains.push_back(c);
  }
  for (size_t k = 0; k < chains.size(); ++k) {
    const Chain& c = chains[k];
    SCOPED_TRACE(Describe(c));
    const auto bytes = ChainModel(c, static_cast<uint32_t>(k));
    const Result want = RunChain(bytes, false, 1, static_cast<uint32_t>(k));
    ASSERT_FALSE(want.outputs.empty());
    for (const Speeds& s : cases) {
      SCOPED_TRACE(StrCat(s.threads, " threads, speeds ", s.speeds[0], " ", s.speeds[1]));
      ops::SetRowSplitSpeedsForTesting(s.speeds);
      for (int run = 0; run < 2; ++run) {
        const Result got = RunChain(bytes, true, s.threads, static_cast<uint32_t>(k));
        EXPECT_EQ(got.outputs, want.outputs);
      }
      ops::SetRowSplitSpeedsForTesting({});
    }
  }
}

TEST(RowSplit, EqualUntilTimedThenInProportionToSpeed) {
  ops::RowSplit split;
  split.Reset(2);
  EXPECT_EQ(split.Split(56), (std::vector<int>{0, 28, 56}));
  // Thread 0 ran its 28 rows in 3 ms, thread 1 in 2 ms: 1.5x as fast. The first times set the
  // speeds (9333 and 14000 rows a second).
  std::vector<double> seconds{0.003, 0.002};
  split.Learn(seconds);
  EXPECT_EQ(seconds, (std::vector<double>{0, 0}));
  EXPECT_EQ(split.Split(56), (std::vector<int>{0, 22, 56}));  // 56 * 2 / 5 = 22.4
  // The same rows a second again: the ranges stay.
  seconds = {22 / 9333.3, 34 / 14000.0};
  split.Learn(seconds);
  EXPECT_EQ(split.Split(56), (std::vector<int>{0, 22, 56}));
}

TEST(RowSplit, OneSlowRunMovesTheRangesALittle) {
  ops::RowSplit split;
  split.Reset(2);
  split.Split(100);
  std::vector<double> seconds{0.001, 0.001};
  split.Learn(seconds);
  EXPECT_EQ(split.Split(100), (std::vector<int>{0, 50, 100}));
  // Thread 1 preempted for 100x its time: its speed falls by a 1.5x step weighted a quarter.
  seconds = {0.001, 0.1};
  split.Learn(seconds);
  const std::vector<int> after = split.Split(100);
  EXPECT_GE(after[1], 52);
  EXPECT_LE(after[1], 56);
  // Always slower: down to a quarter of the fastest, never to no rows.
  for (int i = 0; i < 100; ++i) {
    const std::vector<int> ranges = split.Split(100);
    seconds = {(ranges[1] - ranges[0]) / 1e5, 1.0};
    split.Learn(seconds);
  }
  EXPECT_EQ(split.Split(100), (std::vector<int>{0, 80, 100}));
}

TEST(RowSplit, EveryTaskGetsARow) {
  ops::RowSplit split;
  split.Reset(3);
  ops::SetRowSplitSpeedsForTesting({100, 1, 1});
  EXPECT_EQ(split.Split(3), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(split.Split(10), (std::vector<int>{0, 8, 9, 10}));
  ops::SetRowSplitSpeedsForTesting({1, 1, 100});
  EXPECT_EQ(split.Split(10), (std::vector<int>{0, 1, 2, 10}));
  ops::SetRowSplitSpeedsForTesting({});
  split.Reset(1);
  EXPECT_EQ(split.Split(7), (std::vector<int>{0, 7}));
}

// A value read outside the chain (here a subgraph output) is not fused away.
TEST(FusedRows, AValueReadOutsideTheChainEndsIt) {
  Chain c;
  c.output_mid = true;
  const auto bytes = ChainModel(c, 9);
  const Result want = RunChain(bytes, false, 1, 2);
  const Result got = RunChain(bytes, true, 1, 2);
  EXPECT_EQ(got.outputs, want.outputs);
  // The expansion and the depthwise convolution still fuse; the projection reads the output.
  EXPECT_EQ(got.fused_nodes, 2);
}

// Small images at several threads split their pixels between the threads: a 7x7 block's 49
// pixels as 25 / 24 (or by the threads' speeds) instead of 4 / 3 rows. The whole block fuses: each
// thread expands the pixels its depthwise rows read, nothing of another thread's. The same bits as
// unfused, with equal and unequal speeds, at MobileNet v2's 7x7 sizes (the stride-2 block reads a
// 14x14 expansion).
TEST(FusedRows, SmallImagesSplitTheirPixelsBetweenThreads) {
  struct BlockShape {
    int h, in_c, mid_c, out_c, dw_stride, residual;
  };
  const BlockShape blocks[] = {{7, 160, 960, 160, 1, 1}, {7, 160, 960, 320, 1, 0}, {14, 96, 576, 160, 2, 0},
                          {5, 12, 40, 12, 1, 2}};
  // Equal, unequal, and ranges that end one pixel into a row (22 of 49, 11 of 25).
  const std::vector<std::vector<double>> speeds = {{}, {1, 3}, {4, 1}, {22, 27}, {1, 1, 4}, {100, 1}};
  for (TensorType type : {kF32, kI8, kU8}) {
    for (const BlockShape& k : blocks) {
      Chain c = Block(type, k.h, k.in_c, k.mid_c, k.out_c);
      c.dw_stride = k.dw_stride;
      c.residual = k.residual;
      SCOPED_TRACE(Describe(c));
      const auto bytes = ChainModel(c, 13);
      // Each run another input: a pixel a thread failed to compute would hold the last run's value.
      uint32_t seed = 0;
      for (const auto& s : speeds) {
        for (int threads : {2, 3}) {
          SCOPED_TRACE(StrCat(threads, " threads, ", s.size(), " fixed speeds"));
          for (int run = 0; run < 2; ++run) {
            const Result want = RunChain(bytes, false, 1, ++seed);
            ops::SetRowSplitSpeedsForTesting(s);
            const Result got = RunChain(bytes, true, threads, seed, false, /*cost_rules=*/true);
            ops::SetRowSplitSpeedsForTesting({});
            EXPECT_EQ(got.outputs, want.outputs);
            if (type == kF32) {
              EXPECT_EQ(got.fused_nodes, 3 + (k.residual ? 1 : 0));
            }
          }
        }
      }
    }
  }
}

// Every boundary between two threads' pixels, whole rows or not, in a block with a residual ADD
// (large enough to run on two threads: a smaller node runs on one, NodeThreads).
TEST(FusedRows, EveryPixelSplitGivesTheSameBits) {
  for (TensorType type : {kF32, kI8}) {
    Chain c = Block(type, 7, 64, 384, 64);
    c.residual = 1;
    SCOPED_TRACE(Describe(c));
    const auto bytes = ChainModel(c, 17);
    for (int first = 1; first < c.h * c.w; ++first) {
      SCOPED_TRACE(StrCat("thread 0 takes ", first, " pixels"));
      const Result want = RunChain(bytes, false, 1, static_cast<uint32_t>(first));
      ops::SetRowSplitSpeedsForTesting({static_cast<double>(first), static_cast<double>(c.h * c.w - first)});
      const Result got = RunChain(bytes, true, 2, static_cast<uint32_t>(first), false, /*cost_rules=*/true);
      ops::SetRowSplitSpeedsForTesting({});
      EXPECT_EQ(got.outputs, want.outputs);
    }
  }
}

// The pixel split keeps every intermediate whole in each thread's buffer: past 1 MiB of them the
// chain leaves its head out, as before the pixel split (and here its weights, read by every strip,
// keep the rest unfused too).
TEST(FusedRows, LargeIntermediatesKeepTheRowSplit) {
  Chain c = Block(kF32, 7, 32, 3000, 32);  // two intermediates of 7x7x3000 floats: 1.1 MiB
  const auto bytes = ChainModel(c, 29);
  const Result got = RunChain(bytes, true, 2, 8, false, /*cost_rules=*/true);
  EXPECT_LT(got.fused_nodes, 3);
  EXPECT_EQ(got.outputs, RunChain(bytes, false, 1, 8).outputs);
  c.mid_c = 2000;  // 0.75 MiB: split by pixels, the head kept
  const auto smaller = ChainModel(c, 29);
  const Result pixels = RunChain(smaller, true, 2, 8, false, /*cost_rules=*/true);
  EXPECT_EQ(pixels.fused_nodes, 3);
  EXPECT_EQ(pixels.outputs, RunChain(smaller, false, 1, 8).outputs);
}

// Split by pixels, the 1x1 convolution that alone reads a chain's output joins it (MobileNet v2's
// 320 -> 1280 after its last block); at one thread, rows, it stays a node of its own.
TEST(FusedRows, APointwiseTailJoinsAPixelSplitChain) {
  for (TensorType type : {kF32, kI8, kU8}) {
    Chain c = Block(type, 7, 160, 960, 320);
    c.tail_c = 1280;
    SCOPED_TRACE(Describe(c));
    const auto bytes = ChainModel(c, 19);
    const Result want = RunChain(bytes, false, 1, 4);
    const Result one = RunChain(bytes, true, 1, 4);  // every chain fused, not the tail
    EXPECT_EQ(one.outputs, want.outputs);
    const Result two = RunChain(bytes, true, 2, 4, false, /*cost_rules=*/true);
    EXPECT_EQ(two.outputs, want.outputs);
    if (type == kF32) {
      EXPECT_EQ(one.fused_nodes, 3);
      EXPECT_EQ(two.fused_nodes, 4);
    }
  }
}

// The QUANTIZE that alone feeds a chain (an 8-bit model's uint8 or float input) joins it: each
// thread converts the rows or pixels it reads (at 1 thread it stays a node of its own). The same
// bits as unfused, MobileNet v2's first block (a strided 3x3 head on 3 channels) and a 7x7 block
// split by pixels, 1 to 3 threads.
TEST(FusedRows, TheInputQuantizeJoinsTheFirstChain) {
  for (TensorType type : {kI8, kU8}) {
    for (int from : {1, 2, 3}) {
      for (int h : {48, 7}) {
        // MobileNet v2's first block (a strided 3x3 head on 3 channels), or the default 7x7 one.
        Chain c = h == 48 ? Block(type, 48, 3, 32, 16) : Block(type, 7, 8, 24, 8);
        c.quantize_input = from;
        if (h == 48) {
          c.expand_window = 3;
          c.expand_stride = 2;
        }
        SCOPED_TRACE(Describe(c));
        const auto bytes = ChainModel(c, 23);
        const Result want = RunChain(bytes, false, 1, 6);
        for (int threads : {1, 2, 3}) {
          const Result got = RunChain(bytes, true, threads, 6, false, /*cost_rules=*/true);
          EXPECT_EQ(got.outputs, want.outputs) << threads << " threads";
          // 8-bit chains fuse where the CPU has VNNI (the byte-dot kernels); the QUANTIZE joins
          // with several threads.
          if (optimized::HasAvx512Vnni()) {
            EXPECT_EQ(got.fused_nodes, threads > 1 ? 4 : 3) << threads << " threads";
          }
        }
      }
    }
  }
}

// A head that reads a window (a 3x3 convolution) cannot run by pixels: small images at several
// threads leave it out, its window rows would be recomputed at each thread boundary. The
// depthwise convolution and the projection still fuse and split their pixels.
TEST(FusedRows, SmallImagesLeaveAWindowHeadOut) {
  Chain c;
  c.h = c.w = 7;
  c.expand_window = 3;
  const auto bytes = ChainModel(c, 11);
  EXPECT_EQ(RunChain(bytes, true, 1, 1, false, true).fused_nodes, 3);
  for (int threads : {2, 3}) {
    const Result got = RunChain(bytes, true, threads, 1, false, true);
    EXPECT_EQ(got.fused_nodes, 2) << threads << " threads";
    EXPECT_EQ(got.outputs, RunChain(bytes, false, 1, 1).outputs) << threads << " threads";
  }
}

// Weights that every strip reads again, against values that fit a few strips: unfused. The
// default rules keep MobileNet v2's 56x56 blocks fused (27 KB of weights, 3.6 MB of values).
TEST(FusedRows, LargeWeightsForSmallValuesStayUnfused) {
  Chain heavy;  // 16x16x256 -> 512 -> 256: 1 MB of weights for 1 MB of values
  heavy.h = heavy.w = 16;
  heavy.in_c = 256;
  heavy.mid_c = 512;
  heavy.out_c = 256;
  EXPECT_EQ(RunChain(ChainModel(heavy, 21), true, 1, 1, false, true).fused_nodes, 0);
  Chain light;
  light.h = light.w = 56;
  light.in_c = 24;
  light.mid_c = 144;
  light.out_c = 24;
  EXPECT_EQ(RunChain(ChainModel(light, 21), true, 1, 1, false, true).fused_nodes, 3);
}

// At several threads a 1x1 convolution of few rows splits its columns between the threads and
// the next node its rows, so unfused values cross between the cores: those chains count their
// values twice. MobileNet v2 float's 14x14 blocks (463 KB of weights, 978 KB of values) stay
// unfused at 1 thread and fuse at 2; the same block at 33x33 (DeepLab v3), whose convolutions
// split by rows, stays unfused at 2 threads too.
TEST(FusedRows, ChainsWhoseValuesCrossCoresFuseAtTwoThreads) {
  Chain small;
  small.h = small.w = 14;
  small.in_c = 96;
  small.mid_c = 576;
  small.out_c = 96;
  small.residual = 1;
  const auto bytes = ChainModel(small, 23);
  EXPECT_EQ(RunChain(bytes, true, 1, 1, false, true).fused_nodes, 0);
  const Result fused = RunChain(bytes, true, 2, 1, false, true);
  EXPECT_EQ(fused.fused_nodes, 4);
  EXPECT_EQ(fused.outputs, RunChain(bytes, false, 2, 1).outputs);
  Chain tall = small;
  tall.h = tall.w = 33;
  EXPECT_EQ(RunChain(ChainModel(tall, 23), true, 2, 1, false, true).fused_nodes, 0);
}

// With XNNPACK on, the chains are made of what the builtin kernels still run, and the results
// do not depend on the fusion.
TEST(FusedRows, WithXnnpackTheResultsDoNotDependOnFusion) {
  for (TensorType type : {kF32, kI8}) {
    Chain c;
    c.type = type;
    c.h = c.w = 40;
    c.in_c = 32;
    c.mid_c = 128;
    c.out_c = 32;
    const auto bytes = ChainModel(c, 13);
    EXPECT_EQ(RunChain(bytes, true, 2, 4, true).outputs, RunChain(bytes, false, 2, 4, true).outputs) << TensorTypeName(type);
  }
}

// InterpreterOptions::preserve_all_tensors: nothing fused or delegated, every tensor keeps its value
// after Invoke in memory of its own: the depthwise output read from its tensor equals the same
// value made a subgraph output.
TEST(FusedRows, PreserveAllTensorsKeepsTheValuesInside) {
  for (TensorType type : {kF32, kU8}) {
    Chain c;
    c.type = type;
    c.h = c.w = 24;
    const auto bytes = ChainModel(c, 29);
    Chain exposed = c;
    exposed.output_mid = true;  // the depthwise output is subgraph output 0
    InterpreterOptions options;
    options.preserve_all_tensors = true;
    auto preserved = testing::Build(bytes, options);
    InterpreterOptions builtin;  // the same kernels as preserved (float XNNPACK rounds differently)
    builtin.use_xnnpack = false;
    auto reference = testing::Build(ChainModel(exposed, 29), builtin);
    ASSERT_TRUE(preserved && reference);
    EXPECT_TRUE(preserved->delegation()->partitions.empty());
    for (Interpreter* it : {preserved.get(), reference.get()}) {
      Tensor* in = it->input(0);
      for (size_t i = 0; i < in->bytes; ++i) static_cast<uint8_t*>(in->data)[i] = static_cast<uint8_t>(i * 13 + 5);
      if (type == kF32) {
        for (int64_t i = 0; i < in->num_elements(); ++i) in->data_as<float>()[i] = static_cast<float>(i % 23) / 11.0f - 1.0f;
      }
      ASSERT_TRUE(it->Invoke().ok());
    }
    Subgraph& sg = *preserved->subgraph(0);
    const Tensor* inside = nullptr;
    for (size_t t = 0; t < sg.num_tensors(); ++t) {
      if (sg.tensor(static_cast<int>(t))->name == "depthwise") inside = sg.tensor(static_cast<int>(t));
    }
    ASSERT_NE(inside, nullptr);
    ASSERT_NE(inside->data, nullptr);
    const Tensor* want = reference->output(0);
    ASSERT_EQ(inside->bytes, want->bytes);
    EXPECT_EQ(std::memcmp(inside->data, want->data, want->bytes), 0) << TensorTypeName(type);
    // No two values share memory: the arena holds them all.
    size_t activations = 0;
    for (size_t t = 0; t < sg.num_tensors(); ++t) {
      const Tensor* x = sg.tensor(static_cast<int>(t));
      if (x->allocation == Allocation::kArena) activations += x->bytes;
    }
    EXPECT_GE(sg.arena_bytes(), activations);
  }
}

// On AVX2 / AVX-512, where edgerun's GEMM keeps the large float convolutions and their depthwise
// convolutions, a small 1x1 projection after them stays builtin too when chains are fused, so
// that the whole block is one FUSED node instead of a FUSED node and a one-node XNNPACK partition.
TEST(FusedRows, ASmallProjectionStaysWithItsFusedBlock) {
  if (!XnnpackAvailable() || optimized::ActiveIsa() < optimized::Isa::kAvx2) GTEST_SKIP() << "needs XNNPACK and AVX2";
  Chain c;  // 56x56x24 -> 144 (10.8M multiply-adds), depthwise stride 2, 28x28x144 -> 32 (3.6M)
  c.h = c.w = 56;
  c.in_c = 24;
  c.mid_c = 144;
  c.out_c = 32;
  c.dw_stride = 2;
  const auto bytes = ChainModel(c, 17);
  InterpreterOptions options;
  options.xnnpack_min_partition_nodes = 1;
  auto interpreter = testing::Build(bytes, options);
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  ASSERT_EQ(report.partitions.size(), 1u);
  EXPECT_EQ(report.partitions[0].delegate, "FUSED");
  EXPECT_EQ(report.partitions[0].partition.nodes.size(), 3u);
  ASSERT_FALSE(report.nodes[2].refusals.empty());
  EXPECT_NE(report.nodes[2].refusals[0].second.find("runs fused with it"), std::string::npos)
      << report.nodes[2].refusals[0].second;
  // Unfused, XNNPACK takes the projection.
  options.fuse_row_chains = false;
  auto unfused = testing::Build(bytes, options);
  ASSERT_TRUE(unfused);
  ASSERT_EQ(unfused->delegation()->partitions.size(), 1u);
  EXPECT_EQ(unfused->delegation()->partitions[0].delegate, "XNNPACK");
  EXPECT_EQ(unfused->delegation()->partitions[0].partition.nodes, std::vector<int>{2});
}

// A CONV_2D kernel registered in place of edgerun's (BuiltinOpResolver::AddBuiltin) has state of
// its own: the chain is not fused, and that kernel runs.
TEST(FusedRows, AReplacedConvolutionKernelIsNotFused) {
  const Chain c;
  const auto bytes = ChainModel(c, 19);
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "chain.tflite");
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  int evals = 0;
  OpRegistration conv;
  conv.name = "CONV_2D";
  conv.builtin_code = tflite::BuiltinOperator_CONV_2D;
  conv.max_version = 8;
  conv.init = [](OpContext&) -> void* { return new int(7); };
  conv.free = [](void* p) { delete static_cast<int*>(p); };
  conv.prepare = [](OpContext& ctx) {
    const Tensor* in = ctx.input(0);
    const Tensor* filter = ctx.input(1);
    return ctx.ResizeOutput(0, {1, in->dim(1), in->dim(2), filter->dim(0)});
  };
  conv.eval = [&evals](OpContext& ctx) {
    ++evals;
    std::memset(ctx.output(0)->data, 0, ctx.output(0)->bytes);
    return Status::Ok();
  };
  resolver.AddBuiltin(conv);
  InterpreterOptions options;
  options.use_xnnpack = false;
  auto interpreter = Interpreter::Create(*model, resolver, options);
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
  EXPECT_TRUE((*interpreter)->delegation()->partitions.empty());
  ASSERT_TRUE((*interpreter)->Invoke().ok());
  EXPECT_EQ(evals, 2);  // the expansion and the projection, on the replacement kernel
}

}  // namespace
}  // namespace edgerun
