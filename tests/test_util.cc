#include "test_util.h"

#include <cmath>

namespace edgerun::testing {

Status TryBuild(const std::vector<uint8_t>& bytes, std::unique_ptr<Interpreter>* out, InterpreterOptions options) {
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "test.tflite");
  if (!model.ok()) return model.status();
  auto interpreter = Interpreter::Create(*model, options);
  if (!interpreter.ok()) return interpreter.status();
  Status st = (*interpreter)->AllocateTensors();
  if (out) *out = std::move(*interpreter);
  return st;
}

InterpreterOptions TfliteReferenceArithmetic() {
  InterpreterOptions options;
  options.int8_arithmetic = Int8Arithmetic::kTfliteReference;
  return options;
}

std::unique_ptr<Interpreter> Build(const std::vector<uint8_t>& bytes, InterpreterOptions options) {
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "test.tflite");
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return nullptr;
  auto interpreter = Interpreter::Create(*model, options);
  EXPECT_TRUE(interpreter.ok()) << interpreter.status().message();
  if (!interpreter.ok()) return nullptr;
  Status st = (*interpreter)->AllocateTensors();
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return nullptr;
  return std::move(*interpreter);
}

::testing::AssertionResult AllNear(const std::vector<float>& got, const std::vector<float>& want, float tolerance) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(want[i]);
    if (!both_nan && !(std::fabs(got[i] - want[i]) <= tolerance * std::max(1.0f, std::fabs(want[i])))) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint32_t state = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    state = state * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

std::vector<uint8_t> DetectionPostProcessModel(const std::vector<uint8_t>& options, int num_anchors, int classes,
                                               const std::vector<float>& anchors) {
  ModelBuilder b;
  const int encodings = b.AddTensor("encodings", TensorType::kFloat32, {1, num_anchors, 4});
  const int scores = b.AddTensor("scores", TensorType::kFloat32, {1, num_anchors, classes});
  const int anchor_tensor = anchors.empty() ? b.AddTensor("anchors", TensorType::kFloat32, {num_anchors, 4})
                                            : b.AddConstant("anchors", TensorType::kFloat32, {num_anchors, 4}, anchors);
  std::vector<int> outs;
  for (const char* name : {"boxes", "classes", "scores_out", "count"}) {
    outs.push_back(b.AddTensor(name, TensorType::kFloat32, {}));
  }
  b.AddCustomOp("TFLite_Detection_PostProcess", {encodings, scores, anchor_tensor}, outs, options);
  if (anchors.empty()) {
    b.SetInputs({encodings, scores, anchor_tensor});
  } else {
    b.SetInputs({encodings, scores});
  }
  b.SetOutputs(outs);
  return b.Finish();
}

}  // namespace edgerun::testing
