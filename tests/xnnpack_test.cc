// The XNNPACK delegate against the builtin kernels: every op it claims, on random shapes and
// values, in float and 8-bit; partitions around refused ops; dynamic resizing; threads.
// Skipped when edgerun is built without XNNPACK.
#include <gtest/gtest.h>

#include <dirent.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>

#include "core/subgraph.h"
#include "delegates/xnnpack/xnnpack_allocator.h"
#include "kernels/optimized/cpu.h"
#include "kernels/optimized/gemm.h"
#include "quant/float16.h"
#include "core/thread_pool.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::SingleOp;
using Op = tflite::BuiltinOperator;
using Act = tflite::ActivationFunctionType;
constexpr TensorType kF32 = TensorType::kFloat32;
constexpr TensorType kI8 = TensorType::kInt8;
constexpr TensorType kU8 = TensorType::kUInt8;

QuantizationParams Q(float scale, int64_t zero_point) { return {{scale}, {zero_point}, 0}; }
QuantizationParams PerChannel(std::vector<float> scales, int dim) {
  QuantizationParams q;
  q.zero_point.assign(scales.size(), 0);
  q.scale = std::move(scales);
  q.quantized_dimension = dim;
  return q;
}

uint32_t Next(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}
template <class T>
std::vector<T> RandomInts(size_t n, uint32_t seed, int lo, int hi) {
  std::vector<T> v(n);
  uint32_t state = seed * 2654435761u + 7u;
  for (auto& x : v) x = static_cast<T>(lo + static_cast<int>(Next(state) % static_cast<uint32_t>(hi - lo + 1)));
  return v;
}
std::vector<float> Scales(size_t n, uint32_t seed) { return testing::RandomFloats(n, seed, 0.004f, 0.02f); }

struct Outcome {
  std::vector<std::vector<uint8_t>> outputs;
  struct Meta {
    TensorType type;
    Shape shape;
  };
  std::vector<Meta> meta;  // of each output
  size_t partitions = 0;
  size_t delegated = 0;
  size_t nodes = 0;
};

// Builds the model with or without XNNPACK, fills the inputs from `seed` (floats in
// [lo, hi], 8-bit values over their full range), optionally resizes input 0, runs it.
Outcome Run(const std::vector<uint8_t>& bytes, bool xnnpack, uint32_t seed, float lo, float hi, int threads = 1,
            const Shape& resize = {}, bool all_float = false) {
  Outcome o;
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "xnnpack_test.tflite");
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return o;
  InterpreterOptions options;
  options.use_xnnpack = xnnpack;
  options.xnnpack_min_partition_nodes = 1;
  // These tests compare XNNPACK's kernels with the builtin ones: XNNPACK takes every node.
  options.builtin_int8_gemm_min_macs = 0;
  // all_float: also the float nodes that edgerun's own kernels run faster (InterpreterOptions).
  if (all_float) options.builtin_float_gemm_min_macs = 0;
  options.num_threads = threads;
  auto created = Interpreter::Create(*model, options);
  EXPECT_TRUE(created.ok()) << created.status().message();
  if (!created.ok()) return o;
  Interpreter& interpreter = **created;
  if (!resize.empty()) {
    EXPECT_TRUE(interpreter.ResizeInputTensor(0, resize).ok());
  }
  Status st = interpreter.AllocateTensors();
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return o;
  for (size_t k = 0; k < interpreter.num_inputs(); ++k) {
    Tensor* t = interpreter.input(static_cast<int>(k));
    const size_t n = static_cast<size_t>(t->num_elements());
    if (t->type == kF32) {
      const auto v = testing::RandomFloats(n, seed + 101 * static_cast<uint32_t>(k), lo, hi);
      std::memcpy(t->data, v.data(), t->bytes);
    } else {
      const auto v = RandomInts<uint8_t>(t->bytes, seed + 101 * static_cast<uint32_t>(k), 0, 255);
      std::memcpy(t->data, v.data(), t->bytes);
    }
  }
  st = interpreter.Invoke();
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return o;
  for (size_t k = 0; k < interpreter.num_outputs(); ++k) {
    const Tensor* t = interpreter.output(static_cast<int>(k));
    const auto* p = static_cast<const uint8_t*>(t->data);
    o.outputs.emplace_back(p, p + t->bytes);
    o.meta.push_back({t->type, t->shape});
  }
  const DelegationReport* report = interpreter.delegation();
  // XNNPACK's partitions (not the builtin chains fused into FUSED nodes).
  for (const auto& p : report->partitions) {
    if (p.delegate != "XNNPACK") continue;
    ++o.partitions;
    o.delegated += p.partition.nodes.size();
  }
  o.nodes = report->nodes.size();
  return o;
}

struct Tolerance {
  float float_abs = 1e-5f;  // plus the same relative
  int int_abs = 1;          // 8-bit outputs: at most this many steps apart
};

// Runs both ways and compares. `delegated`: how many nodes XNNPACK must have taken (-1: all).
void ExpectMatchesBuiltin(const std::vector<uint8_t>& bytes, const std::string& what, Tolerance tol = {},
                          int delegated = -1, float lo = -2.0f, float hi = 2.0f, uint32_t seed = 1,
                          const Shape& resize = {}, int threads = 1, bool all_float = false) {
  SCOPED_TRACE(what);
  const Outcome builtin = Run(bytes, false, seed, lo, hi, 1, resize);
  const Outcome xnn = Run(bytes, true, seed, lo, hi, threads, resize, all_float);
  ASSERT_EQ(builtin.outputs.size(), xnn.outputs.size());
  ASSERT_FALSE(xnn.outputs.empty());
  EXPECT_EQ(xnn.delegated, delegated < 0 ? xnn.nodes : static_cast<size_t>(delegated)) << "nodes XNNPACK took";
  for (size_t k = 0; k < xnn.outputs.size(); ++k) {
    ASSERT_EQ(builtin.meta[k].shape, xnn.meta[k].shape);
    ASSERT_EQ(builtin.outputs[k].size(), xnn.outputs[k].size());
    const TensorType type = xnn.meta[k].type;
    const size_t n = static_cast<size_t>(NumElements(xnn.meta[k].shape));
    for (size_t i = 0; i < n; ++i) {
      double want, got;
      if (type == kF32) {
        float a, b;
        std::memcpy(&a, builtin.outputs[k].data() + 4 * i, 4);
        std::memcpy(&b, xnn.outputs[k].data() + 4 * i, 4);
        want = a;
        got = b;
        ASSERT_LE(std::fabs(got - want), tol.float_abs * (1 + std::fabs(want))) << "output " << k << " element " << i;
      } else {
        want = type == kI8 ? static_cast<int8_t>(builtin.outputs[k][i]) : builtin.outputs[k][i];
        got = type == kI8 ? static_cast<int8_t>(xnn.outputs[k][i]) : xnn.outputs[k][i];
        ASSERT_LE(std::fabs(got - want), tol.int_abs) << "output " << k << " element " << i;
      }
    }
  }
}

#define SKIP_WITHOUT_XNNPACK()                        \
  if (!XnnpackAvailable()) {                          \
    GTEST_SKIP() << "edgerun built without XNNPACK"; \
  }

// ---- convolutions

struct ConvShape {
  int batch, h, w, in_c, out_c, kh, kw, stride, dilation, groups;
  bool same;
  Act act;
};

const ConvShape kConvShapes[] = {
    {1, 7, 7, 3, 8, 3, 3, 1, 1, 1, true, Act::ActivationFunctionType_NONE},
    {2, 9, 8, 4, 6, 3, 3, 2, 1, 1, false, Act::ActivationFunctionType_RELU},
    {1, 10, 10, 8, 8, 3, 3, 1, 2, 1, true, Act::ActivationFunctionType_RELU6},
    {1, 6, 6, 8, 4, 1, 1, 1, 1, 2, false, Act::ActivationFunctionType_RELU_N1_TO_1},
    {1, 5, 11, 2, 5, 5, 2, 2, 1, 1, true, Act::ActivationFunctionType_NONE},
};

std::vector<uint8_t> ConvModel(const ConvShape& c, TensorType type, bool per_channel, uint32_t seed) {
  SingleOp op(Op::BuiltinOperator_CONV_2D);
  const int f_c = c.in_c / c.groups;
  const Shape filter_shape = {c.out_c, c.kh, c.kw, f_c};
  const size_t filter_n = static_cast<size_t>(c.out_c * c.kh * c.kw * f_c);
  if (type == kF32) {
    op.Input(kF32, {c.batch, c.h, c.w, c.in_c});
    op.Const<float>(kF32, filter_shape, testing::RandomFloats(filter_n, seed));
    op.Const<float>(kF32, {c.out_c}, testing::RandomFloats(c.out_c, seed + 1));
    op.Output(kF32);
  } else {
    const float in_scale = 0.03f;
    const auto filter_scales = per_channel ? Scales(c.out_c, seed) : std::vector<float>{0.01f};
    std::vector<float> bias_scales;
    for (float s : filter_scales) bias_scales.push_back(in_scale * s);
    op.Input(type, {c.batch, c.h, c.w, c.in_c}, Q(in_scale, type == kI8 ? 3 : 130));
    if (type == kI8) {
      op.Const<int8_t>(kI8, filter_shape, RandomInts<int8_t>(filter_n, seed, -127, 127),
                       per_channel ? PerChannel(filter_scales, 0) : Q(0.01f, 0));
    } else {
      op.Const<uint8_t>(kU8, filter_shape, RandomInts<uint8_t>(filter_n, seed, 0, 255), Q(0.01f, 120));
    }
    QuantizationParams bias_q = per_channel ? PerChannel(bias_scales, 0) : Q(bias_scales[0], 0);
    op.Const<int32_t>(TensorType::kInt32, {c.out_c}, RandomInts<int32_t>(c.out_c, seed + 1, -2000, 2000), bias_q);
    op.Output(type, {}, Q(0.12f, type == kI8 ? -4 : 125));
  }
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, c.same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                    c.stride, c.stride, c.act, c.dilation, c.dilation)));
  return op.Bytes();
}

TEST(Xnnpack, Conv2D) {
  SKIP_WITHOUT_XNNPACK();
  uint32_t seed = 10;
  for (const ConvShape& c : kConvShapes) {
    ++seed;
    ExpectMatchesBuiltin(ConvModel(c, kF32, false, seed), "float conv " + std::to_string(seed), {1e-4f, 0});
    ExpectMatchesBuiltin(ConvModel(c, kI8, true, seed), "int8 per-channel conv " + std::to_string(seed));
    ExpectMatchesBuiltin(ConvModel(c, kI8, false, seed), "int8 per-tensor conv " + std::to_string(seed));
    ExpectMatchesBuiltin(ConvModel(c, kU8, false, seed), "uint8 conv " + std::to_string(seed));
  }
}

// On CPUs with AVX-512 VNNI the 8-bit convolutions (int8 and uint8) stay on edgerun's byte-dot
// GEMM, which rounds as XNNPACK does: the outputs are the same bytes either way.
TEST(Xnnpack, EightBitConvolutionsStayOnTheVnniGemm) {
  SKIP_WITHOUT_XNNPACK();
  const bool vnni = optimized::ActiveIsa() == optimized::Isa::kAvx512 && optimized::HasGemmI8(optimized::ActiveIsa());
  uint32_t seed = 60;
  for (const ConvShape& c : kConvShapes) {
    ++seed;
    for (int variant = 0; variant < 3; ++variant) {
      const auto bytes = ConvModel(c, variant == 2 ? kU8 : kI8, variant == 0, seed);
      InterpreterOptions options;
      options.xnnpack_min_partition_nodes = 1;
      auto interpreter = testing::Build(bytes, options);
      ASSERT_TRUE(interpreter);
      const DelegationReport& report = *interpreter->delegation();
      if (vnni) {
        EXPECT_TRUE(report.partitions.empty());
        ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
        EXPECT_NE(report.nodes[0].refusals[0].second.find("edgerun's VNNI GEMM"), std::string::npos)
            << report.nodes[0].refusals[0].second;
      } else {
        EXPECT_EQ(report.partitions.size(), 1u);
      }
      // Builtin (byte dots where the CPU has them) against XNNPACK: the same bytes.
      ExpectMatchesBuiltin(bytes, "8-bit conv " + std::to_string(seed) + " variant " + std::to_string(variant),
                           {1e-5f, 0});
    }
  }
}

TEST(Xnnpack, RequantizationScalesOutsideItsRangeStayOnTheBuiltinKernels) {
  // Debian's XNNPACK asserts (aborts) on an 8-bit convolution whose input x filter / output scale
  // is under 2^-32 (fuzz_invoke); such a node runs on the builtin kernels instead.
  SKIP_WITHOUT_XNNPACK();
  SingleOp op(Op::BuiltinOperator_CONV_2D);
  op.Input(kI8, {1, 4, 4, 2}, Q(1e-6f, 0));
  op.Const<int8_t>(kI8, {3, 1, 1, 2}, RandomInts<int8_t>(6, 5, -127, 127), Q(1e-6f, 0));
  op.Const<int32_t>(TensorType::kInt32, {3}, RandomInts<int32_t>(3, 6, -2000, 2000), Q(1e-12f, 0));
  op.Output(kI8, {}, Q(1.0f, 0));
  op.Options(tflite::BuiltinOptions_Conv2DOptions,
             ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1)));
  InterpreterOptions options;
  options.xnnpack_min_partition_nodes = 1;
  options.builtin_int8_gemm_min_macs = 0;  // XNNPACK's own check is the one under test
  auto interpreter = testing::Build(op.Bytes(), options);
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  EXPECT_TRUE(report.partitions.empty());
  ASSERT_EQ(report.nodes.size(), 1u);
  ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
  EXPECT_NE(report.nodes[0].refusals[0].second.find("[2^-32, 256)"), std::string::npos)
      << report.nodes[0].refusals[0].second;
  EXPECT_TRUE(interpreter->Invoke().ok());
}

TEST(Xnnpack, LargePackedWeightsComeFromMappingsThatAreReturned) {
  // 128 x 3 x 3 x 64 weights pack into blocks of more than 64 KiB, which XNNPACK gets from
  // pre-faulted mappings (xnnpack_allocator.cc); each must be unmapped with its runtime.
  SKIP_WITHOUT_XNNPACK();
  const ConvShape big = {1, 6, 6, 64, 128, 3, 3, 1, 1, 1, true, Act::ActivationFunctionType_RELU};
  uint32_t seed = 40;
  for (TensorType type : {kF32, kU8}) {
    ++seed;
    const auto bytes = ConvModel(big, type, false, seed);
    const size_t before = xnnpack::MappedBlockCount();
    {
      InterpreterOptions options;
      options.builtin_int8_gemm_min_macs = 0;  // XNNPACK takes the uint8 convolution too
      auto interpreter = testing::Build(bytes, options);
      ASSERT_TRUE(interpreter);
      ASSERT_EQ(interpreter->delegation()->partitions.size(), 1u);
      if (xnnpack::PrefaultingEnabled()) {
        EXPECT_GT(xnnpack::MappedBlockCount(), before);
      } else {
        EXPECT_EQ(xnnpack::MappedBlockCount(), before);
      }
    }
    EXPECT_EQ(xnnpack::MappedBlockCount(), before);
    ExpectMatchesBuiltin(bytes, "large conv " + std::to_string(seed), {1e-3f, 1});
  }
}

// The interpreter's metadata (tensors, nodes, op states, per-channel scales) and XNNPACK's small
// blocks (its operators) come from the small-block pool and all go back with the interpreter.
TEST(Xnnpack, MetadataBlocksGoBackWithTheInterpreter) {
  SKIP_WITHOUT_XNNPACK();
  if (!MappedBlocksEnabled()) GTEST_SKIP() << "the sanitizers' builds use the C allocator";
  const auto int8 = ConvModel(kConvShapes[2], kI8, true, 60);
  const auto uint8 = ConvModel(kConvShapes[1], kU8, false, 61);
  const auto float32 = ConvModel(kConvShapes[0], kF32, false, 62);
  size_t baseline = 0;
  for (int round = 0; round < 8; ++round) {
    const size_t before = SmallBlocksInUseForTesting();
    for (const auto* bytes : {&int8, &uint8, &float32}) {
      for (bool xnnpack : {true, false}) {
        InterpreterOptions options;
        options.use_xnnpack = xnnpack;
        options.builtin_int8_gemm_min_macs = 0;
        options.xnnpack_min_partition_nodes = 1;
        auto interpreter = testing::Build(*bytes, options);
        ASSERT_TRUE(interpreter);
        EXPECT_GT(SmallBlocksInUseForTesting(), before) << "its tensors and nodes are small blocks";
        ASSERT_TRUE(interpreter->Invoke().ok());
      }
    }
    // The first round may leave what XNNPACK keeps for the process (its initialization).
    if (round == 0) baseline = SmallBlocksInUseForTesting();
    EXPECT_EQ(SmallBlocksInUseForTesting(), round == 0 ? baseline : before) << "round " << round;
    EXPECT_EQ(SmallBlocksInUseForTesting(), baseline) << "round " << round;
  }
}

std::vector<uint8_t> DepthwiseModel(const ConvShape& c, int multiplier, TensorType type, uint32_t seed) {
  SingleOp op(Op::BuiltinOperator_DEPTHWISE_CONV_2D);
  const int out_c = c.in_c * multiplier;
  const Shape filter_shape = {1, c.kh, c.kw, out_c};
  const size_t filter_n = static_cast<size_t>(c.kh * c.kw * out_c);
  if (type == kF32) {
    op.Input(kF32, {c.batch, c.h, c.w, c.in_c});
    op.Const<float>(kF32, filter_shape, testing::RandomFloats(filter_n, seed));
    op.Const<float>(kF32, {out_c}, testing::RandomFloats(out_c, seed + 1));
    op.Output(kF32);
  } else {
    const float in_scale = 0.05f;
    const auto filter_scales = type == kI8 ? Scales(out_c, seed) : std::vector<float>{0.01f};
    std::vector<float> bias_scales;
    for (float s : filter_scales) bias_scales.push_back(in_scale * s);
    op.Input(type, {c.batch, c.h, c.w, c.in_c}, Q(in_scale, type == kI8 ? -1 : 128));
    if (type == kI8) {
      op.Const<int8_t>(kI8, filter_shape, RandomInts<int8_t>(filter_n, seed, -127, 127), PerChannel(filter_scales, 3));
      op.Const<int32_t>(TensorType::kInt32, {out_c}, RandomInts<int32_t>(out_c, seed, -500, 500),
                        PerChannel(bias_scales, 0));
    } else {
      op.Const<uint8_t>(kU8, filter_shape, RandomInts<uint8_t>(filter_n, seed, 0, 255), Q(0.01f, 127));
      op.Const<int32_t>(TensorType::kInt32, {out_c}, RandomInts<int32_t>(out_c, seed, -500, 500), Q(bias_scales[0], 0));
    }
    op.Output(type, {}, Q(0.08f, type == kI8 ? 2 : 120));
  }
  op.Options(tflite::BuiltinOptions_DepthwiseConv2DOptions,
             ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(
                 fbb, c.same ? tflite::Padding_SAME : tflite::Padding_VALID, c.stride, c.stride, multiplier, c.act,
                 c.dilation, c.dilation)));
  return op.Bytes();
}

TEST(Xnnpack, DepthwiseConv2D) {
  SKIP_WITHOUT_XNNPACK();
  uint32_t seed = 40;
  for (const ConvShape& c : kConvShapes) {
    for (int multiplier : {1, 2}) {
      ++seed;
      const std::string name = std::to_string(seed);
      ExpectMatchesBuiltin(DepthwiseModel(c, multiplier, kF32, seed), "float dw " + name, {1e-4f, 0});
      ExpectMatchesBuiltin(DepthwiseModel(c, multiplier, kI8, seed), "int8 dw " + name);
      ExpectMatchesBuiltin(DepthwiseModel(c, multiplier, kU8, seed), "uint8 dw " + name);
    }
  }
}

std::vector<uint8_t> FullyConnectedModel(const Shape& in_shape, int units, bool keep_dims, bool bias, TensorType type,
                                         uint32_t seed) {
  SingleOp op(Op::BuiltinOperator_FULLY_CONNECTED);
  const int depth = in_shape.back();
  const size_t filter_n = static_cast<size_t>(units * depth);
  if (type == kF32) {
    op.Input(kF32, in_shape);
    op.Const<float>(kF32, {units, depth}, testing::RandomFloats(filter_n, seed));
    if (bias) op.Const<float>(kF32, {units}, testing::RandomFloats(units, seed + 1));
    op.Output(kF32);
  } else {
    op.Input(type, in_shape, Q(0.04f, type == kI8 ? 5 : 100));
    if (type == kI8) {
      op.Const<int8_t>(kI8, {units, depth}, RandomInts<int8_t>(filter_n, seed, -127, 127), Q(0.01f, 0));
    } else {
      op.Const<uint8_t>(kU8, {units, depth}, RandomInts<uint8_t>(filter_n, seed, 0, 255), Q(0.01f, 131));
    }
    if (bias) op.Const<int32_t>(TensorType::kInt32, {units}, RandomInts<int32_t>(units, seed, -900, 900), Q(0.0004f, 0));
    op.Output(type, {}, Q(0.15f, type == kI8 ? -10 : 128));
  }
  if (!bias) op.Omitted();
  op.Options(tflite::BuiltinOptions_FullyConnectedOptions,
             ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb, Act::ActivationFunctionType_RELU,
                                                            tflite::FullyConnectedOptionsWeightsFormat_DEFAULT,
                                                            keep_dims)));
  return op.Bytes();
}

TEST(Xnnpack, FullyConnected) {
  SKIP_WITHOUT_XNNPACK();
  uint32_t seed = 70;
  for (TensorType type : {kF32, kI8, kU8}) {
    const Tolerance tol = {1e-4f, 1};
    ExpectMatchesBuiltin(FullyConnectedModel({3, 20}, 7, false, true, type, ++seed), "2-D", tol);
    ExpectMatchesBuiltin(FullyConnectedModel({2, 3, 16}, 5, true, true, type, ++seed), "keep_num_dims", tol);
    ExpectMatchesBuiltin(FullyConnectedModel({2, 3, 16}, 5, false, false, type, ++seed), "flattened, no bias", tol);
  }
}

std::vector<uint8_t> TransposeConvModel(int h, int w, int in_c, int out_c, int k, int stride, bool same, Shape out,
                                        TensorType type, uint32_t seed) {
  SingleOp op(Op::BuiltinOperator_TRANSPOSE_CONV, 3);
  op.Const<int32_t>(TensorType::kInt32, {4}, std::vector<int32_t>(out.begin(), out.end()));
  const size_t filter_n = static_cast<size_t>(out_c * k * k * in_c);
  if (type == kF32) {
    op.Const<float>(kF32, {out_c, k, k, in_c}, testing::RandomFloats(filter_n, seed));
    op.Input(kF32, {1, h, w, in_c});
    op.Const<float>(kF32, {out_c}, testing::RandomFloats(out_c, seed + 1));
    op.Output(kF32);
  } else {
    if (type == kI8) {
      op.Const<int8_t>(kI8, {out_c, k, k, in_c}, RandomInts<int8_t>(filter_n, seed, -127, 127), Q(0.01f, 0));
    } else {
      op.Const<uint8_t>(kU8, {out_c, k, k, in_c}, RandomInts<uint8_t>(filter_n, seed, 0, 255), Q(0.01f, 128));
    }
    op.Input(type, {1, h, w, in_c}, Q(0.05f, type == kI8 ? 0 : 127));
    op.Const<int32_t>(TensorType::kInt32, {out_c}, RandomInts<int32_t>(out_c, seed, -300, 300), Q(0.0005f, 0));
    op.Output(type, {}, Q(0.1f, type == kI8 ? 1 : 126));
  }
  op.Options(tflite::BuiltinOptions_TransposeConvOptions,
             ER_OPTIONS(tflite::CreateTransposeConvOptions(fbb, same ? tflite::Padding_SAME : tflite::Padding_VALID,
                                                           stride, stride)));
  return op.Bytes();
}

TEST(Xnnpack, TransposeConv) {
  SKIP_WITHOUT_XNNPACK();
  uint32_t seed = 90;
  for (TensorType type : {kF32, kI8, kU8}) {
    const Tolerance tol = {1e-4f, 1};
    ExpectMatchesBuiltin(TransposeConvModel(4, 5, 3, 2, 3, 2, true, {1, 8, 10, 2}, type, ++seed), "same s2", tol);
    ExpectMatchesBuiltin(TransposeConvModel(4, 4, 2, 3, 3, 2, false, {1, 9, 9, 3}, type, ++seed), "valid s2", tol);
    ExpectMatchesBuiltin(TransposeConvModel(3, 3, 4, 4, 2, 1, true, {1, 3, 3, 4}, type, ++seed), "same s1", tol);
  }
}

// ---- pooling, mean

std::vector<uint8_t> PoolModel(Op code, TensorType type, int k, int stride, bool same, Act act) {
  SingleOp op(code);
  const QuantizationParams q = type == kF32 ? QuantizationParams{} : Q(0.05f, type == kI8 ? -3 : 129);
  op.Input(type, {2, 9, 7, 3}, q);
  op.Output(type, {}, q);
  op.Options(tflite::BuiltinOptions_Pool2DOptions,
             ER_OPTIONS(tflite::CreatePool2DOptions(fbb, same ? tflite::Padding_SAME : tflite::Padding_VALID, stride,
                                                    stride, k, k, act)));
  return op.Bytes();
}

TEST(Xnnpack, Pooling) {
  SKIP_WITHOUT_XNNPACK();
  for (bool same : {true, false}) {
    for (int k : {2, 3}) {
      ExpectMatchesBuiltin(PoolModel(Op::BuiltinOperator_AVERAGE_POOL_2D, kF32, k, 2, same, Act::ActivationFunctionType_NONE),
                           "float avg pool");
      for (TensorType type : {kF32, kI8, kU8}) {
        ExpectMatchesBuiltin(PoolModel(Op::BuiltinOperator_MAX_POOL_2D, type, k, k == 2 ? 2 : 1, same,
                                       Act::ActivationFunctionType_RELU6),
                             "max pool", {1e-6f, 0});
      }
    }
  }
  // Quantized average pooling stays on the builtin kernels, as in TFLite.
  ExpectMatchesBuiltin(PoolModel(Op::BuiltinOperator_AVERAGE_POOL_2D, kU8, 2, 2, true, Act::ActivationFunctionType_NONE),
                       "uint8 avg pool", {0, 0}, 0);
}

std::vector<uint8_t> MeanModel(TensorType type, bool keep_dims, std::vector<int32_t> axes) {
  SingleOp op(Op::BuiltinOperator_MEAN);
  op.Input(type, {2, 5, 6, 4}, type == kF32 ? QuantizationParams{} : Q(0.05f, type == kI8 ? 1 : 120));
  op.Const<int32_t>(TensorType::kInt32, {static_cast<int>(axes.size())}, axes);
  op.Output(type, {}, type == kF32 ? QuantizationParams{} : Q(0.03f, type == kI8 ? -2 : 125));
  op.Options(tflite::BuiltinOptions_ReducerOptions, ER_OPTIONS(tflite::CreateReducerOptions(fbb, keep_dims)));
  return op.Bytes();
}

TEST(Xnnpack, Mean) {
  SKIP_WITHOUT_XNNPACK();
  for (TensorType type : {kF32, kI8, kU8}) {
    ExpectMatchesBuiltin(MeanModel(type, true, {1, 2}), "keep dims");
    ExpectMatchesBuiltin(MeanModel(type, false, {2, -3}), "reduced");
  }
  ExpectMatchesBuiltin(MeanModel(kF32, false, {3}), "over channels: refused", {}, 0);
}

// ---- element-wise

std::vector<uint8_t> BinaryModel(Op code, TensorType type, Shape a, Shape b, Act act, bool const_b = false) {
  SingleOp op(code);
  const bool q = type != kF32;
  op.Input(type, a, q ? Q(0.04f, type == kI8 ? 7 : 120) : QuantizationParams{});
  if (const_b) {
    op.Const<float>(kF32, b, testing::RandomFloats(static_cast<size_t>(NumElements(b)), 5, 0.5f, 1.5f));
  } else {
    op.Input(type, b, q ? Q(0.03f, type == kI8 ? -5 : 133) : QuantizationParams{});
  }
  op.Output(type, {}, q ? Q(code == Op::BuiltinOperator_MUL ? 0.02f : 0.07f, type == kI8 ? 2 : 127) : QuantizationParams{});
  switch (code) {
    case Op::BuiltinOperator_ADD:
      op.Options(tflite::BuiltinOptions_AddOptions, ER_OPTIONS(tflite::CreateAddOptions(fbb, act)));
      break;
    case Op::BuiltinOperator_SUB:
      op.Options(tflite::BuiltinOptions_SubOptions, ER_OPTIONS(tflite::CreateSubOptions(fbb, act)));
      break;
    case Op::BuiltinOperator_MUL:
      op.Options(tflite::BuiltinOptions_MulOptions, ER_OPTIONS(tflite::CreateMulOptions(fbb, act)));
      break;
    case Op::BuiltinOperator_DIV:
      op.Options(tflite::BuiltinOptions_DivOptions, ER_OPTIONS(tflite::CreateDivOptions(fbb, act)));
      break;
    default:
      break;
  }
  return op.Bytes();
}

TEST(Xnnpack, Binary) {
  SKIP_WITHOUT_XNNPACK();
  const Act acts[] = {Act::ActivationFunctionType_NONE, Act::ActivationFunctionType_RELU,
                      Act::ActivationFunctionType_RELU6, Act::ActivationFunctionType_RELU_N1_TO_1};
  const std::pair<Shape, Shape> shapes[] = {{{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}}, {{1, 5, 1, 3}, {2, 1, 4, 1}},
                                            {{3, 4}, {}}};
  for (Op code : {Op::BuiltinOperator_ADD, Op::BuiltinOperator_SUB, Op::BuiltinOperator_MUL}) {
    for (TensorType type : {kF32, kI8, kU8}) {
      int i = 0;
      for (const auto& [a, b] : shapes) {
        ExpectMatchesBuiltin(BinaryModel(code, type, a, b, acts[i++ % 4]),
                             StrCat(tflite::EnumNameBuiltinOperator(code), " ", TensorTypeName(type), " ",
                                    ShapeToString(a), ShapeToString(b)));
      }
    }
  }
  for (Act act : acts) {
    // Refused: this XNNPACK clamps 0/0 to a number.
    ExpectMatchesBuiltin(BinaryModel(Op::BuiltinOperator_DIV, kF32, {2, 3, 4}, {3, 1}, act, true), "DIV", {}, 0);
  }
  for (Op code : {Op::BuiltinOperator_MAXIMUM, Op::BuiltinOperator_MINIMUM, Op::BuiltinOperator_SQUARED_DIFFERENCE}) {
    ExpectMatchesBuiltin(BinaryModel(code, kF32, {2, 3, 4}, {2, 1, 4}, Act::ActivationFunctionType_NONE),
                         tflite::EnumNameBuiltinOperator(code));
  }
  // An int8 ADD whose scales XNNPACK cannot handle (ratio over 256) is refused, not miscomputed.
  SingleOp op(Op::BuiltinOperator_ADD);
  op.Input(kI8, {4}, Q(100.0f, 0));
  op.Input(kI8, {4}, Q(0.1f, 0));
  op.Output(kI8, {}, Q(0.1f, 0));
  ExpectMatchesBuiltin(op.Bytes(), "ADD with an extreme scale ratio", {}, 0);
}

std::vector<uint8_t> UnaryModel(Op code, TensorType type, Shape shape, QuantizationParams in_q = {},
                                QuantizationParams out_q = {}, tflite::BuiltinOptions options_type = tflite::BuiltinOptions_NONE,
                                ModelBuilder::OptionsWriter options = nullptr) {
  SingleOp op(code);
  op.Input(type, shape, in_q);
  op.Output(type, {}, out_q);
  if (options) op.Options(options_type, options);
  return op.Bytes();
}

TEST(Xnnpack, Activations) {
  SKIP_WITHOUT_XNNPACK();
  const Shape shape = {2, 3, 5, 4};
  for (Op code : {Op::BuiltinOperator_RELU, Op::BuiltinOperator_RELU6, Op::BuiltinOperator_RELU_N1_TO_1,
                  Op::BuiltinOperator_RELU_0_TO_1, Op::BuiltinOperator_HARD_SWISH, Op::BuiltinOperator_ELU,
                  Op::BuiltinOperator_LOGISTIC, Op::BuiltinOperator_ABS, Op::BuiltinOperator_NEG,
                  Op::BuiltinOperator_FLOOR, Op::BuiltinOperator_CEIL, Op::BuiltinOperator_ROUND,
                  Op::BuiltinOperator_SQUARE}) {
    ExpectMatchesBuiltin(UnaryModel(code, kF32, shape), tflite::EnumNameBuiltinOperator(code), {1e-5f, 0}, -1, -4.0f,
                         4.0f);
  }
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_SQRT, kF32, shape), "SQRT", {1e-6f, 0}, -1, 0.0f, 9.0f);
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_LEAKY_RELU, kF32, shape, {}, {}, tflite::BuiltinOptions_LeakyReluOptions,
                                  ER_OPTIONS(tflite::CreateLeakyReluOptions(fbb, 0.2f))),
                       "LEAKY_RELU");
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_SOFTMAX, kF32, {3, 7}, {}, {}, tflite::BuiltinOptions_SoftmaxOptions,
                                  ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 1.0f))),
                       "SOFTMAX", {1e-5f, 0}, -1, -5.0f, 5.0f);
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_SOFTMAX, kF32, {3, 7}, {}, {}, tflite::BuiltinOptions_SoftmaxOptions,
                                  ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 0.5f))),
                       "SOFTMAX beta 0.5: refused", {}, 0);
  // 8-bit: clamps keep the quantization; sigmoid has TFLite's fixed output quantization.
  for (TensorType type : {kI8, kU8}) {
    const QuantizationParams q = Q(0.05f, type == kI8 ? -20 : 100);
    for (Op code : {Op::BuiltinOperator_RELU, Op::BuiltinOperator_RELU6, Op::BuiltinOperator_RELU_N1_TO_1}) {
      ExpectMatchesBuiltin(UnaryModel(code, type, shape, q, q), StrCat(tflite::EnumNameBuiltinOperator(code), " 8-bit"));
    }
    ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_LOGISTIC, type, shape, q, Q(1.0f / 256, type == kI8 ? -128 : 0)),
                         "LOGISTIC 8-bit");
    ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_RELU, type, shape, q, Q(0.1f, 0)),
                         "RELU requantizing: refused", {}, 0);
  }
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_ELU, kI8, shape, Q(0.05f, 3), Q(0.04f, 10)), "ELU int8");
  ExpectMatchesBuiltin(UnaryModel(Op::BuiltinOperator_TANH, kF32, shape), "TANH: refused", {}, 0);
  // 0-D: this XNNPACK's unary operators abort on them (an assertion found by fuzz_graph), so they
  // stay on the builtin kernels.
  for (Op code : {Op::BuiltinOperator_ROUND, Op::BuiltinOperator_ABS, Op::BuiltinOperator_RELU,
                  Op::BuiltinOperator_LOGISTIC}) {
    ExpectMatchesBuiltin(UnaryModel(code, kF32, {}), StrCat(tflite::EnumNameBuiltinOperator(code), " 0-D: refused"), {},
                         0, -4.0f, 4.0f);
  }
}

TEST(Xnnpack, Prelu) {
  SKIP_WITHOUT_XNNPACK();
  SingleOp op(Op::BuiltinOperator_PRELU);
  op.Input(kF32, {2, 4, 3, 5});
  op.Const<float>(kF32, {1, 1, 5}, testing::RandomFloats(5, 3));
  op.Output(kF32);
  ExpectMatchesBuiltin(op.Bytes(), "PRELU");
}

// ---- data movement

// Where the delegate leaves large float32 convolutions and fully connected layers to edgerun's
// GEMM: a CPU with vector kernels (AVX2 + FMA or AVX-512).
bool BuiltinFloatGemmOnThisCpu() { return optimized::ActiveIsa() >= optimized::Isa::kAvx2; }

TEST(Xnnpack, PadReshapeResize) {
  SKIP_WITHOUT_XNNPACK();
  for (TensorType type : {kF32, kI8, kU8}) {
    const QuantizationParams q = type == kF32 ? QuantizationParams{} : Q(0.05f, type == kI8 ? -7 : 131);
    {
      SingleOp op(Op::BuiltinOperator_PAD);
      op.Input(type, {2, 3, 4, 2}, q);
      op.Const<int32_t>(TensorType::kInt32, {4, 2}, {0, 1, 2, 0, 1, 1, 0, 3});
      op.Output(type, {}, q);
      ExpectMatchesBuiltin(op.Bytes(), "PAD");
    }
    {
      SingleOp op(Op::BuiltinOperator_PADV2);
      op.Input(type, {3, 4}, q);
      op.Const<int32_t>(TensorType::kInt32, {2, 2}, {1, 2, 0, 1});
      if (type == kF32) op.Const<float>(kF32, {}, {0.75f});
      if (type == kI8) op.Const<int8_t>(kI8, {}, {-100}, q);
      if (type == kU8) op.Const<uint8_t>(kU8, {}, {200}, q);
      op.Output(type, {}, q);
      ExpectMatchesBuiltin(op.Bytes(), "PADV2", {0, 0});
    }
    {
      SingleOp op(Op::BuiltinOperator_RESHAPE);
      op.Input(type, {2, 3, 4}, q);
      op.Const<int32_t>(TensorType::kInt32, {2}, {4, -1});
      op.Output(type, {}, q);
      ExpectMatchesBuiltin(op.Bytes(), "RESHAPE", {0, 0});
    }
    {
      SingleOp op(Op::BuiltinOperator_SQUEEZE);
      op.Input(type, {1, 3, 1, 4}, q);
      op.Output(type, {}, q);
      ExpectMatchesBuiltin(op.Bytes(), "SQUEEZE", {0, 0});
    }
    {
      SingleOp op(Op::BuiltinOperator_EXPAND_DIMS);
      op.Input(type, {3, 4}, q);
      op.Const<int32_t>(TensorType::kInt32, {}, {1});
      op.Output(type, {}, q);
      ExpectMatchesBuiltin(op.Bytes(), "EXPAND_DIMS", {0, 0});
    }
    for (int mode = 0; mode < 3; ++mode) {
      SingleOp op(Op::BuiltinOperator_RESIZE_BILINEAR, 3);
      op.Input(type, {1, 4, 5, 3}, q);
      op.Const<int32_t>(TensorType::kInt32, {2}, {7, 9});
      op.Output(type, {}, q);
      op.Options(tflite::BuiltinOptions_ResizeBilinearOptions,
                 ER_OPTIONS(tflite::CreateResizeBilinearOptions(fbb, mode == 1, mode == 2)));
      // 8-bit stays on the builtin kernels (this XNNPACK rounds differently). Float stays builtin
      // too where its rows have vector kernels (BuiltinResizeIsFaster), unless asked for.
      const std::string what = StrCat("RESIZE_BILINEAR mode ", mode);
      const bool float_builtin = type == kF32 && BuiltinFloatGemmOnThisCpu();
      ExpectMatchesBuiltin(op.Bytes(), what, {1e-5f, 0}, type == kF32 && !float_builtin ? -1 : 0);
      if (type == kF32) ExpectMatchesBuiltin(op.Bytes(), what + ", all float to XNNPACK", {1e-5f, 0}, -1, -2, 2, 1, {}, 1, true);
      if (float_builtin) {
        auto interpreter = testing::Build(op.Bytes());
        ASSERT_TRUE(interpreter);
        const DelegationReport& report = *interpreter->delegation();
        ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
        EXPECT_NE(report.nodes[0].refusals[0].second.find("float32 bilinear resize to 7x9x3"), std::string::npos)
            << report.nodes[0].refusals[0].second;
      }
    }
  }
  SingleOp op(Op::BuiltinOperator_DEPTH_TO_SPACE);
  op.Input(kF32, {2, 3, 4, 8});
  op.Output(kF32);
  op.Options(tflite::BuiltinOptions_DepthToSpaceOptions, ER_OPTIONS(tflite::CreateDepthToSpaceOptions(fbb, 2)));
  ExpectMatchesBuiltin(op.Bytes(), "DEPTH_TO_SPACE", {0, 0});
}

TEST(Xnnpack, QuantizeAndDequantize) {
  SKIP_WITHOUT_XNNPACK();
  for (TensorType type : {kI8, kU8}) {
    const QuantizationParams q = Q(0.02f, type == kI8 ? 5 : 128);
    SingleOp quantize(Op::BuiltinOperator_QUANTIZE);
    quantize.Input(kF32, {3, 17});
    quantize.Output(type, {}, q);
    // Refused: this XNNPACK rounds ties to even.
    ExpectMatchesBuiltin(quantize.Bytes(), "QUANTIZE", {}, 0);
    SingleOp dequantize(Op::BuiltinOperator_DEQUANTIZE, 2);
    dequantize.Input(type, {3, 17}, q);
    dequantize.Output(kF32);
    ExpectMatchesBuiltin(dequantize.Bytes(), "DEQUANTIZE", {1e-6f, 0});
  }
}

// A float16-weight model: DEQUANTIZE of fp16 constants feeding a convolution, folded by XNNPACK.
TEST(Xnnpack, Float16WeightsAreFolded) {
  SKIP_WITHOUT_XNNPACK();
  ModelBuilder b;
  const int x = b.AddTensor("x", kF32, {1, 6, 6, 3});
  std::vector<uint16_t> half_filter, half_bias;
  for (float v : testing::RandomFloats(4 * 3 * 3 * 3, 9)) half_filter.push_back(FloatToHalf(v));
  for (float v : testing::RandomFloats(4, 10)) half_bias.push_back(FloatToHalf(v));
  const int f16 = b.AddConstant<uint16_t>("w16", TensorType::kFloat16, {4, 3, 3, 3}, half_filter);
  const int b16 = b.AddConstant<uint16_t>("b16", TensorType::kFloat16, {4}, half_bias);
  const int w = b.AddTensor("w", kF32, {4, 3, 3, 3});
  const int bias = b.AddTensor("b", kF32, {4});
  const int y = b.AddTensor("y", kF32, {1, 6, 6, 4});
  b.AddOp(Op::BuiltinOperator_DEQUANTIZE, {f16}, {w}, tflite::BuiltinOptions_NONE, nullptr, 3);
  b.AddOp(Op::BuiltinOperator_DEQUANTIZE, {b16}, {bias}, tflite::BuiltinOptions_NONE, nullptr, 3);
  b.AddOp(Op::BuiltinOperator_CONV_2D, {x, w, bias}, {y}, tflite::BuiltinOptions_Conv2DOptions,
          ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();
  ExpectMatchesBuiltin(bytes, "fp16 weights", {1e-4f, 0});
  // The folded weights need no memory in the arena.
  InterpreterOptions options;
  auto with = testing::Build(bytes, options);
  options.use_xnnpack = false;
  auto without = testing::Build(bytes, options);
  ASSERT_TRUE(with && without);
  EXPECT_LT(with->arena_bytes(), without->arena_bytes());
}

// ---- partitions on real graphs

// conv -> TANH (refused) -> conv, with the default threshold (2) and heavy convolutions.
std::vector<uint8_t> ConvTanhConv() {
  ModelBuilder b;
  const int x = b.AddTensor("x", kF32, {1, 5, 5, 2}, {}, {-1, 5, 5, 2});
  const int w1 = b.AddConstant<float>("w1", kF32, {3, 3, 3, 2}, testing::RandomFloats(54, 1));
  const int w2 = b.AddConstant<float>("w2", kF32, {2, 1, 1, 3}, testing::RandomFloats(6, 2));
  const int h1 = b.AddTensor("h1", kF32, {1, 5, 5, 3}, {}, {-1, 5, 5, 3});
  const int h2 = b.AddTensor("h2", kF32, {1, 5, 5, 3}, {}, {-1, 5, 5, 3});
  const int h3 = b.AddTensor("h3", kF32, {1, 5, 5, 3}, {}, {-1, 5, 5, 3});
  const int y = b.AddTensor("y", kF32, {1, 5, 5, 2}, {}, {-1, 5, 5, 2});
  const int z = b.AddTensor("z", kF32, {1, 5, 5, 2}, {}, {-1, 5, 5, 2});
  auto conv = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1));
  b.AddOp(Op::BuiltinOperator_CONV_2D, {x, w1, -1}, {h1}, tflite::BuiltinOptions_Conv2DOptions, conv);
  b.AddOp(Op::BuiltinOperator_TANH, {h1}, {h2});
  b.AddOp(Op::BuiltinOperator_RELU, {h2}, {h3});
  b.AddOp(Op::BuiltinOperator_CONV_2D, {h3, w2, -1}, {y}, tflite::BuiltinOptions_Conv2DOptions, conv);
  b.AddOp(Op::BuiltinOperator_HARD_SWISH, {y}, {z});
  b.SetInputs({x});
  b.SetOutputs({z});
  return b.Finish();
}

TEST(Xnnpack, PartitionsAroundARefusedOp) {
  SKIP_WITHOUT_XNNPACK();
  const auto bytes = ConvTanhConv();
  auto interpreter = testing::Build(bytes);  // the defaults: XNNPACK on, threshold 2
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  ASSERT_EQ(report.partitions.size(), 2u);
  EXPECT_EQ(report.partitions[0].partition.nodes, (std::vector<int>{0}));  // a lone conv is heavy enough
  EXPECT_EQ(report.partitions[1].partition.nodes, (std::vector<int>{2, 3, 4}));
  ASSERT_EQ(report.nodes[1].refusals.size(), 1u);
  EXPECT_NE(report.nodes[1].refusals[0].second.find("not in this XNNPACK"), std::string::npos);
  // Numerics, and again after resizing the batch (the partitions are prepared again).
  ExpectMatchesBuiltin(bytes, "conv tanh conv", {1e-4f, 0}, 4);
  ExpectMatchesBuiltin(bytes, "conv tanh conv, batch 3", {1e-4f, 0}, 4, -2, 2, 7, {3, 5, 5, 2});
  ExpectMatchesBuiltin(bytes, "conv tanh conv, 2 threads", {1e-4f, 0}, 4, -2, 2, 8, {2, 5, 5, 2}, 2);
}

// conv 1x1 (in_c -> out_c) then ADD of a constant, on [1, side, side, in_c]; with `depthwise`, a
// 3x3 depthwise convolution between them (an inverted-residual block's expand and depthwise).
std::vector<uint8_t> PointwiseConvAdd(int side, int in_c, int out_c, bool depthwise = false, int window = 1) {
  ModelBuilder b;
  const int x = b.AddTensor("x", kF32, {1, side, side, in_c});
  const int w = b.AddConstant<float>("w", kF32, {out_c, window, window, in_c},
                                     testing::RandomFloats(out_c * window * window * in_c, 3));
  const int bias = b.AddConstant<float>("bias", kF32, {out_c}, testing::RandomFloats(out_c, 4));
  const int c = b.AddConstant<float>("c", kF32, {out_c}, testing::RandomFloats(out_c, 5));
  const int h = b.AddTensor("h", kF32, {1, side, side, out_c});
  const int y = b.AddTensor("y", kF32, {1, side, side, out_c});
  auto conv = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, Act::ActivationFunctionType_RELU6));
  b.AddOp(Op::BuiltinOperator_CONV_2D, {x, w, bias}, {h}, tflite::BuiltinOptions_Conv2DOptions, conv);
  int added = h;
  if (depthwise) {
    const int dw_w = b.AddConstant<float>("dw_w", kF32, {1, 3, 3, out_c}, testing::RandomFloats(9 * out_c, 6));
    added = b.AddTensor("d", kF32, {1, side, side, out_c});
    auto dw = ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, 1));
    b.AddOp(Op::BuiltinOperator_DEPTHWISE_CONV_2D, {h, dw_w, -1}, {added}, tflite::BuiltinOptions_DepthwiseConv2DOptions, dw);
  }
  b.AddOp(Op::BuiltinOperator_ADD, {added, c}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

// Nothing delegated, and node 1 (a depthwise convolution reading op 0, a convolution on
// edgerun's GEMM) refused by XNNPACK for that reason.
void ExpectDepthwiseKeptWithItsProducer(const DelegationReport& report) {
  EXPECT_TRUE(report.partitions.empty());
  ASSERT_EQ(report.nodes[1].refusals.size(), 1u);
  EXPECT_NE(report.nodes[1].refusals[0].second.find("depthwise convolution of the output of op 0"), std::string::npos)
      << report.nodes[1].refusals[0].second;
}


// `large` (node 0 then an ADD) keeps node 0 on edgerun's GEMM on AVX2 / AVX-512, with a refusal that
// contains `reason`; with builtin_float_gemm_min_macs 0 XNNPACK takes both nodes, and `small` is
// XNNPACK's with the default.
void ExpectLargeStaysOnBuiltinGemm(const std::vector<uint8_t>& large, const std::vector<uint8_t>& small,
                                   const std::string& reason) {
  const bool vector_gemm = BuiltinFloatGemmOnThisCpu();
  {
    auto interpreter = testing::Build(large);
    ASSERT_TRUE(interpreter);
    const DelegationReport& report = *interpreter->delegation();
    if (vector_gemm) {
      EXPECT_TRUE(report.partitions.empty());  // the ADD alone is under the partition threshold
      ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
      EXPECT_NE(report.nodes[0].refusals[0].second.find(reason), std::string::npos) << report.nodes[0].refusals[0].second;
    } else {
      ASSERT_EQ(report.partitions.size(), 1u);
    }
  }
  {
    InterpreterOptions options;
    options.builtin_float_gemm_min_macs = 0;
    auto interpreter = testing::Build(large, options);
    ASSERT_TRUE(interpreter);
    ASSERT_EQ(interpreter->delegation()->partitions.size(), 1u);
    EXPECT_EQ(interpreter->delegation()->partitions[0].partition.nodes, (std::vector<int>{0, 1}));
  }
  auto interpreter = testing::Build(small);
  ASSERT_TRUE(interpreter);
  ASSERT_EQ(interpreter->delegation()->partitions.size(), 1u);
}

// On AVX2 / AVX-512 the large float 1x1 convolutions stay on edgerun's GEMM (faster there than this
// XNNPACK), the small ones and everything else go to XNNPACK; builtin_float_gemm_min_macs 0 gives
// XNNPACK all of them. The results agree either way.
TEST(Xnnpack, LargeFloatPointwiseConvolutionsStayOnTheBuiltinGemm) {
  SKIP_WITHOUT_XNNPACK();
  const auto large = PointwiseConvAdd(32, 64, 128);  // 8.4M multiply-adds
  const auto small = PointwiseConvAdd(8, 16, 32);    // 33k
  const bool vector_gemm = BuiltinFloatGemmOnThisCpu();
  ExpectLargeStaysOnBuiltinGemm(large, small, "edgerun's GEMM runs it faster");
  {
    // A 3x3 window that the GEMM reads in place counts too.
    auto interpreter = testing::Build(PointwiseConvAdd(32, 16, 64, false, 3));  // 9.4M multiply-adds
    ASSERT_TRUE(interpreter);
    const DelegationReport& report = *interpreter->delegation();
    if (vector_gemm) {
      ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
      EXPECT_NE(report.nodes[0].refusals[0].second.find("3x3 convolution"), std::string::npos)
          << report.nodes[0].refusals[0].second;
    }
  }
  {
    // So does one too deep to read in place (3x3 x 256 values: im2col), ResNet-18's kind.
    auto interpreter = testing::Build(PointwiseConvAdd(8, 256, 64, false, 3));  // 9.4M multiply-adds
    ASSERT_TRUE(interpreter);
    const DelegationReport& report = *interpreter->delegation();
    if (vector_gemm) {
      ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
      EXPECT_NE(report.nodes[0].refusals[0].second.find("3x3 convolution of 9437184"), std::string::npos)
          << report.nodes[0].refusals[0].second;
    }
  }
  ExpectMatchesBuiltin(PointwiseConvAdd(32, 16, 64, false, 3), "3x3 conv + add", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2,
                       14);
  ExpectMatchesBuiltin(PointwiseConvAdd(8, 256, 64, false, 3), "deep 3x3 conv + add", {1e-4f, 0}, vector_gemm ? 1 : 2, -2,
                       2, 17);
  {
    // The depthwise convolution that reads the builtin GEMM's output stays with it (seen with the
    // chains unfused: fused, the two are one FUSED node).
    InterpreterOptions unfused;
    unfused.fuse_row_chains = false;
    auto interpreter = testing::Build(PointwiseConvAdd(32, 64, 128, true), unfused);
    ASSERT_TRUE(interpreter);
    const DelegationReport& report = *interpreter->delegation();
    ASSERT_EQ(report.nodes.size(), 3u);
    if (vector_gemm) {
      ExpectDepthwiseKeptWithItsProducer(report);
    } else {
      ASSERT_EQ(report.partitions.size(), 1u);
    }
  }
  // Numerics against the builtin kernels (the XNNPACK run with its threshold of 1 node: the ADD
  // alone goes to XNNPACK, reading the builtin conv's output).
  ExpectMatchesBuiltin(PointwiseConvAdd(32, 64, 128, true), "pointwise conv + depthwise + add", {1e-4f, 0},
                       vector_gemm ? 1 : 3, -2, 2, 13);
  ExpectMatchesBuiltin(large, "pointwise conv + add, large", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2, 9);
  ExpectMatchesBuiltin(small, "pointwise conv + add, small", {1e-4f, 0}, 2, -2, 2, 10);
  ExpectMatchesBuiltin(large, "pointwise conv + add, large, 2 threads", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2, 11, {}, 2);
  // A 1x1 convolution of one pixel (TF-slim MobileNets' logits) over 1 MB of weights is a
  // matrix-vector product read in place; a smaller one goes to XNNPACK.
  ExpectLargeStaysOnBuiltinGemm(PointwiseConvAdd(1, 1100, 256), PointwiseConvAdd(1, 64, 32),
                                "float32 1x1 convolution of one pixel, a matrix-vector product over 1126400 bytes");
}

// FULLY_CONNECTED [rows, in] x [out, in] (constant float weights) then ADD of a constant.
std::vector<uint8_t> FullyConnectedAdd(int rows, int in, int out) {
  ModelBuilder b;
  const int x = b.AddTensor("x", kF32, {rows, in});
  const int w = b.AddConstant<float>("w", kF32, {out, in}, testing::RandomFloats(out * in, 31));
  const int c = b.AddConstant<float>("c", kF32, {out}, testing::RandomFloats(out, 32));
  const int h = b.AddTensor("h", kF32, {rows, out});
  const int y = b.AddTensor("y", kF32, {rows, out});
  b.AddOp(Op::BuiltinOperator_FULLY_CONNECTED, {x, w, -1}, {h});
  b.AddOp(Op::BuiltinOperator_ADD, {h, c}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

// The same rule for float FULLY_CONNECTED: from builtin_float_gemm_min_macs on (AVX2 / AVX-512), the
// product stays on edgerun's GEMM; smaller ones, and all with the threshold 0, go to XNNPACK.
// Matrix-vector products (under 8 rows) stay on it from 1024 multiply-adds to 1 MB of weights, and
// one row from 1 MB up.
TEST(Xnnpack, LargeFloatFullyConnectedStaysOnTheBuiltinGemm) {
  SKIP_WITHOUT_XNNPACK();
  const auto large = FullyConnectedAdd(64, 512, 128);  // 4.2M multiply-adds
  const auto small = FullyConnectedAdd(8, 16, 32);     // 4096, 8 rows
  const bool vector_gemm = BuiltinFloatGemmOnThisCpu();
  ExpectLargeStaysOnBuiltinGemm(large, small, "fully connected of 4194304 multiply-adds");
  ExpectMatchesBuiltin(large, "fully connected + add, large", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2, 15);
  ExpectMatchesBuiltin(large, "fully connected + add, large, 2 threads", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2, 16, {}, 2);
  // ToyCar's layer 640 -> 128 on one row (320 KB of weights) against one of 2 MB and one of 512
  // multiply-adds, which XNNPACK keeps.
  const auto vector = FullyConnectedAdd(1, 640, 128);
  ExpectLargeStaysOnBuiltinGemm(vector, FullyConnectedAdd(1, 16, 32), "matrix-vector product of 81920 multiply-adds");
  ExpectLargeStaysOnBuiltinGemm(vector, FullyConnectedAdd(2, 1024, 512), "matrix-vector product of 81920 multiply-adds");
  ExpectMatchesBuiltin(vector, "matrix-vector product + add", {1e-4f, 0}, vector_gemm ? 1 : 2, -2, 2, 17);
  // One row over 1 MB of weights (1.1 MB here; MobileNet's 5 MB classifier) is read in place, not
  // packed by XNNPACK at start-up; two rows of it go to XNNPACK.
  ExpectLargeStaysOnBuiltinGemm(FullyConnectedAdd(1, 1100, 256), FullyConnectedAdd(2, 1100, 256),
                                "matrix-vector product over 1126400 bytes of weights: edgerun reads them in place");
}

// An 8-bit inverted-residual pattern: 1x1 convolution, 3x3 depthwise, 1x1 convolution.
std::vector<uint8_t> EightBitExpandDepthwiseProject(TensorType type, int side, int channels) {
  ModelBuilder b;
  const bool s8 = type == kI8;
  const int64_t zp = s8 ? -3 : 128;
  auto weights = [&](const std::string& name, Shape shape, uint32_t seed, QuantizationParams q) {
    size_t n = 1;
    for (int d : shape) n *= static_cast<size_t>(d);
    return s8 ? b.AddConstant<int8_t>(name, kI8, shape, RandomInts<int8_t>(n, seed, -127, 127), q)
              : b.AddConstant<uint8_t>(name, kU8, shape, RandomInts<uint8_t>(n, seed, 0, 255), q);
  };
  const QuantizationParams act = Q(0.05f, zp);
  const int x = b.AddTensor("x", type, {1, side, side, channels}, act);
  const int w1 = weights("w1", {channels, 1, 1, channels}, 21, s8 ? PerChannel(Scales(channels, 22), 0) : Q(0.01f, 120));
  const int h1 = b.AddTensor("h1", type, {1, side, side, channels}, act);
  const int dw = weights("dw", {1, 3, 3, channels}, 23, s8 ? PerChannel(Scales(channels, 24), 3) : Q(0.02f, 127));
  const int h2 = b.AddTensor("h2", type, {1, side, side, channels}, act);
  const int w2 = weights("w2", {channels, 1, 1, channels}, 25, s8 ? Q(0.01f, 0) : Q(0.01f, 131));
  const int y = b.AddTensor("y", type, {1, side, side, channels}, Q(0.08f, zp));
  auto conv = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, Act::ActivationFunctionType_RELU6));
  b.AddOp(Op::BuiltinOperator_CONV_2D, {x, w1, -1}, {h1}, tflite::BuiltinOptions_Conv2DOptions, conv);
  auto depthwise = ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, 1,
                                                                     Act::ActivationFunctionType_RELU6));
  b.AddOp(Op::BuiltinOperator_DEPTHWISE_CONV_2D, {h1, dw, -1}, {h2}, tflite::BuiltinOptions_DepthwiseConv2DOptions,
          depthwise);
  auto project = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1));
  b.AddOp(Op::BuiltinOperator_CONV_2D, {h2, w2, -1}, {y}, tflite::BuiltinOptions_Conv2DOptions, project);
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

// With the 8-bit convolutions on the VNNI GEMM, the depthwise convolution between them stays on
// the builtin kernel too: a one-node XNNPACK partition would cost a runtime at start-up and a
// handoff per run. The bytes are the same either way.
TEST(Xnnpack, EightBitDepthwiseBetweenBuiltinConvolutionsStaysBuiltin) {
  SKIP_WITHOUT_XNNPACK();
  const bool vnni = optimized::ActiveIsa() == optimized::Isa::kAvx512 && optimized::HasGemmI8(optimized::ActiveIsa());
  for (TensorType type : {kI8, kU8}) {
    const auto bytes = EightBitExpandDepthwiseProject(type, 9, 48);
    InterpreterOptions options;
    options.xnnpack_min_partition_nodes = 1;
    options.fuse_row_chains = false;  // what XNNPACK is given (fused, the chain is one FUSED node)
    auto interpreter = testing::Build(bytes, options);
    ASSERT_TRUE(interpreter);
    const DelegationReport& report = *interpreter->delegation();
    ASSERT_EQ(report.nodes.size(), 3u);
    if (vnni) {
      ExpectDepthwiseKeptWithItsProducer(report);
    } else {
      EXPECT_EQ(report.partitions.size(), 1u);
    }
    // Against XNNPACK running all three nodes: the same bytes.
    ExpectMatchesBuiltin(bytes, std::string("8-bit expand, depthwise, project: ") + TensorTypeName(type), {1e-5f, 0},
                         3);
  }
}

// Without VNNI (AVX2, or AVX-512 without it) the 8-bit 1x1 convolutions of at least 2M
// multiply-adds stay on edgerun's int16-pair GEMM, and the depthwise convolution and projection
// between them with it; smaller ones stay with XNNPACK. The bytes are the same either way (both
// round as XNNPACK's float requantization).
TEST(Xnnpack, EightBitOneByOneConvolutionsStayOnTheInt16GemmWithoutVnni) {
  SKIP_WITHOUT_XNNPACK();
  if (optimized::DetectedIsa() < optimized::Isa::kAvx2) GTEST_SKIP() << "no AVX2 on this CPU";
  optimized::ScopedIsa avx2(optimized::Isa::kAvx2);
  ASSERT_FALSE(optimized::HasGemmI8(optimized::ActiveIsa()));
  for (TensorType type : {kI8, kU8}) {
    for (const int side : {32, 9}) {  // 32x32x64 -> 64: 4.2M multiply-adds; 9x9: 0.2M
      const auto bytes = EightBitExpandDepthwiseProject(type, side, 64);
      InterpreterOptions options;
      options.xnnpack_min_partition_nodes = 1;
      auto interpreter = testing::Build(bytes, options);
      ASSERT_TRUE(interpreter);
      const DelegationReport& report = *interpreter->delegation();
      ASSERT_EQ(report.nodes.size(), 3u);
      if (side == 32) {
        ExpectDepthwiseKeptWithItsProducer(report);
        for (const int n : {0, 2}) {
          ASSERT_EQ(report.nodes[n].refusals.size(), 1u);
          EXPECT_NE(report.nodes[n].refusals[0].second.find("int16-pair GEMM"), std::string::npos)
              << report.nodes[n].refusals[0].second;
        }
      } else {
        EXPECT_EQ(report.partitions.size(), 1u);
      }
      ExpectMatchesBuiltin(bytes, std::string("8-bit 1x1 on int16 pairs: ") + TensorTypeName(type) + " side " +
                                      std::to_string(side),
                           {1e-5f, 0}, 3);
    }
  }
}

// A value nobody reads (a dead branch) is still written: XNNPACK gives memory only to values
// that are read or leave the partition, so the partition lists it as an output.
TEST(Xnnpack, DeadValueInsideAPartition) {
  SKIP_WITHOUT_XNNPACK();
  ModelBuilder b;
  const int x = b.AddTensor("x", kF32, {4});
  const int c = b.AddConstant<float>("c", kF32, {4}, {1, 2, 3, 4});
  const int dead = b.AddTensor("dead", kF32, {4});
  const int y = b.AddTensor("y", kF32, {4});
  const int z = b.AddTensor("z", kF32, {4});
  b.AddOp(Op::BuiltinOperator_ADD, {x, c}, {dead});
  b.AddOp(Op::BuiltinOperator_MUL, {x, c}, {y});
  b.AddOp(Op::BuiltinOperator_SUB, {y, c}, {z});
  b.SetInputs({x});
  b.SetOutputs({z});
  const auto bytes = b.Finish();
  auto interpreter = testing::Build(bytes);
  ASSERT_TRUE(interpreter);
  ASSERT_EQ(interpreter->delegation()->partitions.size(), 1u);
  testing::SetInput(*interpreter, 0, std::vector<float>{1, -1, 0.5f, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), {0, -4, -1.5f, 4}, 1e-6f));
}

TEST(Xnnpack, ResizeBetweenInvocations) {
  SKIP_WITHOUT_XNNPACK();
  const auto bytes = ConvTanhConv();
  InterpreterOptions options;
  options.use_xnnpack = false;
  auto builtin = testing::Build(bytes, options);
  auto xnn = testing::Build(bytes);
  ASSERT_TRUE(builtin && xnn);
  for (int batch : {2, 1, 4}) {
    for (Interpreter* i : {builtin.get(), xnn.get()}) {
      ASSERT_TRUE(i->ResizeInputTensor(0, {batch, 5, 5, 2}).ok());
      ASSERT_TRUE(i->AllocateTensors().ok());
      testing::SetInput(*i, 0, testing::RandomFloats(batch * 50, batch));
      ASSERT_TRUE(i->Invoke().ok());
    }
    EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*xnn, 0), testing::GetOutput<float>(*builtin, 0), 1e-4f));
  }
}

// Threads of this process, from /proc (Linux).
int CountProcessThreads() {
  int n = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
    closedir(dir);
  }
  return n;
}

// The count once it holds still: a thread that an earlier test joined can stay listed in /proc for
// a moment after pthread_join returns (the kernel finishes its exit after waking the joiner), which
// once made the difference below 1 instead of 2 under ctest.
int ProcessThreads() {
  int last = CountProcessThreads();
  for (int stable = 0, tries = 0; stable < 5 && tries < 1000; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int now = CountProcessThreads();
    stable = now == last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

TEST(Xnnpack, SharesTheInterpretersThreadPool) {
  // num_threads = 3 means three threads busy in all: the caller and two workers that the builtin
  // kernels and XNNPACK both use, not two more of XNNPACK's own (fewer where the process has fewer
  // CPUs: ThreadsToStart).
  SKIP_WITHOUT_XNNPACK();
  const int workers = ThreadsToStart(3) - 1;
  const int before = ProcessThreads();
  ASSERT_GT(before, 0);
  InterpreterOptions options;
  options.num_threads = 3;
  options.xnnpack_min_partition_nodes = 1;
  auto interpreter = testing::Build(ConvTanhConv(), options);
  ASSERT_TRUE(interpreter);
  ASSERT_FALSE(interpreter->delegation()->partitions.empty());
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(ProcessThreads() - before, workers);
  // A delegate made with a thread count keeps a pool of its own, as TFLite's options do.
  options.use_xnnpack = false;
  options.delegates = {CreateXnnpackDelegate(2, 1)};
  auto own = testing::Build(ConvTanhConv(), options);
  ASSERT_TRUE(own);
  EXPECT_EQ(ProcessThreads() - before, workers + workers + (ThreadsToStart(2) - 1));
}

TEST(Xnnpack, ASmallPartitionRunsWithoutThePool) {
  // ToyCar's ten small FULLY_CONNECTED layers took 3.4 us on one thread and 23 us on two, when
  // XNNPACK split each of them over the pool.
  SKIP_WITHOUT_XNNPACK();
  InterpreterOptions options;
  options.num_threads = 2;
  options.xnnpack_min_partition_nodes = 1;
  const ConvShape large = {1, 112, 112, 32, 32, 3, 3, 1, 1, 1, true, Act::ActivationFunctionType_RELU6};
  for (const auto& [bytes, threads] :
       {std::pair{FullyConnectedModel({1, 16}, 32, false, true, kF32, 5), 1},
        std::pair{DepthwiseModel(large, 1, kF32, 6), 2}}) {
    auto interpreter = testing::Build(bytes, options);
    ASSERT_TRUE(interpreter);
    const auto& partitions = interpreter->delegation()->partitions;
    ASSERT_EQ(partitions.size(), 1u);
    EXPECT_EQ(interpreter->subgraph(0)->NodeThreads(partitions[0].node), threads);
    // Both run and match the builtin kernels on either thread count (the tests above).
    ASSERT_TRUE(interpreter->Invoke().ok());
  }
}

TEST(Xnnpack, SetNumThreadsRemakesThePoolAndTheDelegateKernels) {
  SKIP_WITHOUT_XNNPACK();
  InterpreterOptions options;
  options.xnnpack_min_partition_nodes = 1;
  auto interpreter = testing::Build(ConvTanhConv(), options);
  ASSERT_TRUE(interpreter);
  Tensor* input = interpreter->input(0);
  const auto values = testing::RandomFloats(static_cast<size_t>(input->num_elements()), 5);
  std::memcpy(input->data, values.data(), input->bytes);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const std::vector<float> one_thread = testing::GetOutput<float>(*interpreter, 0);
  const int before = ProcessThreads();

  EXPECT_FALSE(interpreter->SetNumThreads(0).ok());
  ASSERT_TRUE(interpreter->SetNumThreads(3).ok());
  EXPECT_EQ(interpreter->options().num_threads, 3);
  EXPECT_FALSE(interpreter->Invoke().ok());  // AllocateTensors must come first
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  EXPECT_FALSE(interpreter->delegation()->partitions.empty());
  EXPECT_EQ(ProcessThreads() - before, ThreadsToStart(3) - 1);
  input = interpreter->input(0);
  std::memcpy(input->data, values.data(), input->bytes);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), one_thread, 1e-5f));

  ASSERT_TRUE(interpreter->SetNumThreads(-1).ok());  // the default: 1
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  EXPECT_EQ(ProcessThreads() - before, 0);
}

TEST(Xnnpack, OffByOption) {
  SKIP_WITHOUT_XNNPACK();
  InterpreterOptions options;
  options.use_xnnpack = false;
  auto interpreter = testing::Build(ConvTanhConv(), options);
  ASSERT_TRUE(interpreter);
  EXPECT_TRUE(interpreter->delegates().empty());
  EXPECT_TRUE(interpreter->delegation()->partitions.empty());
}

}  // namespace
}  // namespace edgerun
