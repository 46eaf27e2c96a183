// One Model shared read-only by many interpreters, each on its own thread and invoking in a
// loop, must give exactly what a single interpreter gives. Run under ThreadSanitizer by
// `make test-tsan`; docs/robustness.md says what is and is not thread-safe.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

// float and int8 branches, a WHILE loop and a dynamic RESHAPE: ops with lookup tables, state
// kept per node, called subgraphs and tensors sized at Invoke.
//   float: x[1,6,6,2] -> CONV_2D 3x3 (relu) -> TANH -> FULLY_CONNECTED -> SOFTMAX -> probs[1,4]
//   int8:  q[1,8] -> FULLY_CONNECTED (int8) -> LOGISTIC (int8) -> q_out[1,3]
//   loop:  WHILE(c < 10: c = c + step) over a float counter -> counter
//   dynamic: RESHAPE(x, shape from SHAPE(x) reversed) -> reshaped
std::vector<uint8_t> MixedModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 6, 6, 2});
  const auto filter_values = testing::RandomFloats(4 * 3 * 3 * 2, 11);
  const int filter = b.AddConstant("filter", TensorType::kFloat32, {4, 3, 3, 2}, filter_values);
  const int bias = b.AddConstant("bias", TensorType::kFloat32, {4}, testing::RandomFloats(4, 12));
  const int conv = b.AddTensor("conv", TensorType::kFloat32, {1, 4, 4, 4});
  b.AddOp(
      tflite::BuiltinOperator_CONV_2D, {x, filter, bias}, {conv}, tflite::BuiltinOptions_Conv2DOptions,
      ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1, tflite::ActivationFunctionType_RELU)));
  const int tanh = b.AddTensor("tanh", TensorType::kFloat32, {1, 4, 4, 4});
  b.AddOp(tflite::BuiltinOperator_TANH, {conv}, {tanh});
  const int fc_w = b.AddConstant("fc_w", TensorType::kFloat32, {4, 64}, testing::RandomFloats(256, 13));
  const int logits = b.AddTensor("logits", TensorType::kFloat32, {1, 4});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {tanh, fc_w, -1}, {logits});
  const int probs = b.AddTensor("probs", TensorType::kFloat32, {1, 4});
  b.AddOp(tflite::BuiltinOperator_SOFTMAX, {logits}, {probs}, tflite::BuiltinOptions_SoftmaxOptions,
          ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 1.0f)));

  const QuantizationParams q_in{{0.05f}, {-3}}, q_w{{0.02f}, {0}}, q_fc{{0.1f}, {2}}, q_sig{{1.0f / 256}, {-128}};
  const int q = b.AddTensor("q", TensorType::kInt8, {1, 8}, q_in);
  std::vector<int8_t> weights(24);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  const int q_weights = b.AddConstant("q_w", TensorType::kInt8, {3, 8}, weights, q_w);
  const int q_fc_out = b.AddTensor("q_fc", TensorType::kInt8, {1, 3}, q_fc);
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {q, q_weights, -1}, {q_fc_out});
  const int q_out = b.AddTensor("q_out", TensorType::kInt8, {1, 3}, q_sig);
  b.AddOp(tflite::BuiltinOperator_LOGISTIC, {q_fc_out}, {q_out});

  const int counter = b.AddTensor("counter", TensorType::kFloat32, {1});
  const int step = b.AddTensor("step", TensorType::kFloat32, {1});
  const int counter_out = b.AddTensor("counter_out", TensorType::kFloat32, {1});
  const int step_out = b.AddTensor("step_out", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {counter, step}, {counter_out, step_out}, tflite::BuiltinOptions_WhileOptions,
          ER_OPTIONS(tflite::CreateWhileOptions(fbb, 1, 2)));

  const int shape = b.AddTensor("shape", TensorType::kInt32, {4});
  b.AddOp(tflite::BuiltinOperator_SHAPE, {x}, {shape}, tflite::BuiltinOptions_ShapeOptions,
          ER_OPTIONS(tflite::CreateShapeOptions(fbb, tflite::TensorType_INT32)));
  const int reversed = b.AddTensor("reversed", TensorType::kInt32, {4});
  const int axis = b.AddConstant("axis", TensorType::kInt32, {1}, std::vector<int32_t>{0});
  b.AddOp(tflite::BuiltinOperator_REVERSE_V2, {shape, axis}, {reversed});
  const int reshaped = b.AddTensor("reshaped", TensorType::kFloat32, {});
  b.AddOp(tflite::BuiltinOperator_RESHAPE, {x, reversed}, {reshaped});

  b.SetInputs({x, q, counter, step});
  b.SetOutputs({probs, q_out, counter_out, reshaped});

  b.AddSubgraph("cond");
  const int cc = b.AddTensor("c", TensorType::kFloat32, {1});
  const int cs = b.AddTensor("s", TensorType::kFloat32, {1});
  const int ten = b.AddConstant("ten", TensorType::kFloat32, {1}, std::vector<float>{10});
  const int keep = b.AddTensor("keep", TensorType::kBool, {1});
  b.AddOp(tflite::BuiltinOperator_LESS, {cc, ten}, {keep});
  b.SetInputs({cc, cs});
  b.SetOutputs({keep});

  b.AddSubgraph("body");
  const int bc = b.AddTensor("c", TensorType::kFloat32, {1});
  const int bs = b.AddTensor("s", TensorType::kFloat32, {1});
  const int next = b.AddTensor("next", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_ADD, {bc, bs}, {next}, tflite::BuiltinOptions_AddOptions,
          ER_OPTIONS(tflite::CreateAddOptions(fbb)));
  b.SetInputs({bc, bs});
  b.SetOutputs({next, bs});
  return b.Finish();
}

// Deterministic inputs for round `round`: every thread computes the same ones.
void FillInputs(Interpreter& interpreter, int round) {
  for (size_t i = 0; i < interpreter.num_inputs(); ++i) {
    Tensor* t = interpreter.input(static_cast<int>(i));
    uint32_t state = 2654435761u * static_cast<uint32_t>(round + 1) + static_cast<uint32_t>(i);
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    const int64_t n = t->num_elements();
    for (int64_t k = 0; k < n; ++k) {
      switch (t->type) {
        case TensorType::kFloat32:
          t->data_as<float>()[k] = static_cast<float>(next() >> 8) / 16777216.0f + 0.25f;
          break;
        case TensorType::kInt8:
          t->data_as<int8_t>()[k] = static_cast<int8_t>(next() >> 24);
          break;
        case TensorType::kUInt8:
          t->data_as<uint8_t>()[k] = static_cast<uint8_t>(next() >> 24);
          break;
        case TensorType::kInt16:
          t->data_as<int16_t>()[k] = static_cast<int16_t>(next() >> 16);
          break;
        case TensorType::kInt32:
          t->data_as<int32_t>()[k] = static_cast<int32_t>(next() % 8);
          break;
        case TensorType::kInt64:
          t->data_as<int64_t>()[k] = static_cast<int64_t>(next() % 8);
          break;
        case TensorType::kBool:
          t->data_as<uint8_t>()[k] = next() >> 31;
          break;
        default:
          if (t->data) std::memset(t->data, 0, t->bytes);
          k = n;
          break;
      }
    }
  }
}

std::vector<std::vector<uint8_t>> Outputs(Interpreter& interpreter) {
  std::vector<std::vector<uint8_t>> out;
  for (size_t i = 0; i < interpreter.num_outputs(); ++i) {
    const Tensor* t = interpreter.output(static_cast<int>(i));
    const auto* p = static_cast<const uint8_t*>(t->data);
    out.emplace_back(p, p + (p ? t->bytes : 0));
  }
  return out;
}

constexpr int kRounds = 4;

// Expected outputs of `loops` invocations (inputs cycling through the rounds) from one
// interpreter on this thread. Every thread runs the same sequence, so models with state
// (variables, LSTM) must give the same outputs too.
Result<std::vector<std::vector<std::vector<uint8_t>>>> SingleThreaded(std::shared_ptr<const Model> model, int loops) {
  auto interpreter = Interpreter::Create(model);
  if (!interpreter.ok()) return interpreter.status();
  ER_RETURN_IF_ERROR((*interpreter)->AllocateTensors());
  std::vector<std::vector<std::vector<uint8_t>>> expected;
  for (int i = 0; i < loops; ++i) {
    FillInputs(**interpreter, i % kRounds);
    ER_RETURN_IF_ERROR((*interpreter)->Invoke());
    expected.push_back(Outputs(**interpreter));
  }
  return expected;
}

// `threads` threads, each with its own interpreter (every other one with a 2-thread pool),
// invoke `loops` times and compare with the single-threaded outputs.
void ExpectSameOutputsInThreads(std::shared_ptr<const Model> model, int threads, int loops) {
  auto expected = SingleThreaded(model, loops);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::string> first_error(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      InterpreterOptions options;
      options.num_threads = t % 2 == 0 ? 1 : 2;
      auto interpreter = Interpreter::Create(model, options);
      Status st = interpreter.ok() ? (*interpreter)->AllocateTensors() : interpreter.status();
      for (int i = 0; st.ok() && i < loops; ++i) {
        FillInputs(**interpreter, i % kRounds);
        st = (*interpreter)->Invoke();
        if (st.ok() && Outputs(**interpreter) != (*expected)[i]) ++mismatches;
      }
      if (!st.ok()) {
        ++errors;
        first_error[t] = st.message();
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(errors.load(), 0) << first_error[0] << first_error[threads - 1];
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Concurrency, SharedModelGivesTheSameOutputsInEveryThread) {
  const std::vector<uint8_t> bytes = MixedModel();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "mixed.tflite");
  ASSERT_TRUE(model.ok()) << model.status().message();
  ExpectSameOutputsInThreads(*model, 8, 24);
}

TEST(Concurrency, InterpretersCreatedAndDestroyedConcurrently) {
  const std::vector<uint8_t> bytes = MixedModel();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "mixed.tflite");
  ASSERT_TRUE(model.ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 6; ++t) {
    pool.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto interpreter = Interpreter::Create(*model);
        if (!interpreter.ok() || !(*interpreter)->AllocateTensors().ok()) ++failures;
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Concurrency, ModelsLoadedConcurrently) {
  const std::vector<uint8_t> bytes = MixedModel();
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 6; ++t) {
    pool.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        if (!Model::FromBufferCopy(bytes.data(), bytes.size(), "mixed.tflite").ok()) ++failures;
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Real models of the conformance corpus, when it is there: quantized application models,
// control flow, variables, LSTM.
TEST(Concurrency, ConformanceModelsInThreads) {
  const std::filesystem::path root = EDGERUN_TEST_SHARED_DIR "/conformance";
  const char* cases[] = {"tflm_hello_world_int8",       "tflm_micro_speech_quantized",
                         "tflite_nested_while",         "quant_resource_vars_calibrated",
                         "quant_lstm_quantized",        "tflm_keyword_scrambled_8bit",
                         "litert_simple_group_norm_op", "litert_rope"};
  int ran = 0;
  for (const char* name : cases) {
    const auto path = root / name / "model.tflite";
    if (!std::filesystem::exists(path)) continue;
    auto model = Model::FromFile(path.string());
    ASSERT_TRUE(model.ok()) << model.status().message();
    SCOPED_TRACE(name);
    ExpectSameOutputsInThreads(*model, 4, 6);
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "no conformance models under " << root;
}

}  // namespace
}  // namespace edgerun
