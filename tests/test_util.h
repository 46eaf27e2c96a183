// Helpers for tests: build an interpreter from builder bytes, set inputs, read outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "edgerun/interpreter.h"
#include "model/model_builder.h"
#include "tflite_generated.h"

namespace edgerun::testing {

// Builds and allocates; fails the test (and returns null) on any error.
std::unique_ptr<Interpreter> Build(const std::vector<uint8_t>& bytes, InterpreterOptions options = {});
// Options that run 8-bit ops with TFLite's reference kernels' arithmetic instead of LiteRT's
// default (XNNPACK) arithmetic.
InterpreterOptions TfliteReferenceArithmetic();
// Builds without allocating; returns the error of Create or AllocateTensors (OK when both work).
Status TryBuild(const std::vector<uint8_t>& bytes, std::unique_ptr<Interpreter>* out = nullptr,
                InterpreterOptions options = {});

template <class T>
void SetInput(Interpreter& interpreter, int position, const std::vector<T>& values) {
  Tensor* t = interpreter.input(position);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->bytes, values.size() * sizeof(T)) << "input " << position << " " << t->name;
  if (!values.empty()) std::memcpy(t->data, values.data(), t->bytes);
}

template <class T>
std::vector<T> GetOutput(Interpreter& interpreter, int position) {
  const Tensor* t = interpreter.output(position);
  EXPECT_NE(t, nullptr);
  if (t == nullptr || t->num_elements() <= 0) return {};
  const T* p = t->data_as<T>();
  return std::vector<T>(p, p + t->num_elements());
}

// A model with one builtin op: graph inputs, constants and outputs in the order they are added.
class SingleOp {
 public:
  explicit SingleOp(tflite::BuiltinOperator op, int version = 1) : op_(op), version_(version) {}
  int Input(TensorType type, Shape shape, QuantizationParams q = {}, Shape signature = {}) {
    const int t = builder_.AddTensor("in" + std::to_string(op_inputs_.size()), type, shape, q, signature);
    op_inputs_.push_back(t);
    graph_inputs_.push_back(t);
    return t;
  }
  template <class T>
  int Const(TensorType type, Shape shape, const std::vector<T>& values, QuantizationParams q = {}) {
    const int t = builder_.AddConstant("const" + std::to_string(op_inputs_.size()), type, shape, values, q);
    op_inputs_.push_back(t);
    return t;
  }
  void Omitted() { op_inputs_.push_back(-1); }
  int Output(TensorType type, Shape shape = {}, QuantizationParams q = {}) {
    const int t = builder_.AddTensor("out" + std::to_string(outputs_.size()), type, shape, q);
    outputs_.push_back(t);
    return t;
  }
  void Options(tflite::BuiltinOptions type, ModelBuilder::OptionsWriter writer) {
    options_type_ = type;
    writer_ = std::move(writer);
  }
  std::vector<uint8_t> Bytes() {
    ModelBuilder b = builder_;
    b.AddOp(op_, op_inputs_, outputs_, options_type_, writer_, version_);
    b.SetInputs(graph_inputs_);
    b.SetOutputs(outputs_);
    return b.Finish();
  }
  std::unique_ptr<Interpreter> Build(InterpreterOptions options = {}) { return testing::Build(Bytes(), options); }
  Status TryBuild(InterpreterOptions options = {}) { return testing::TryBuild(Bytes(), nullptr, options); }

 private:
  tflite::BuiltinOperator op_;
  int version_;
  ModelBuilder builder_;
  std::vector<int> op_inputs_, graph_inputs_, outputs_;
  tflite::BuiltinOptions options_type_ = tflite::BuiltinOptions_NONE;
  ModelBuilder::OptionsWriter writer_;
};

// Elementwise closeness with a message naming the first differing index.
::testing::AssertionResult AllNear(const std::vector<float>& got, const std::vector<float>& want, float tolerance);

// Deterministic pseudo-random floats in [lo, hi] (the same for a given seed on every machine).
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// One TFLite_Detection_PostProcess (custom options `options`, a FlexBuffer map): inputs
// encodings [1, A, 4] and scores [1, A, classes]; anchors [A, 4] a constant holding `anchors`
// (A = anchors.size() / 4), or a third graph input of `num_anchors` rows when `anchors` is empty;
// four float outputs of unknown shape.
std::vector<uint8_t> DetectionPostProcessModel(const std::vector<uint8_t>& options, int num_anchors, int classes,
                                               const std::vector<float>& anchors);

// Options writer for ModelBuilder::AddOp from a Create*Options call. It captures by value: the
// builder may call it after the scope that made it has ended.
#define ER_OPTIONS(expr) [=](flatbuffers::FlatBufferBuilder& fbb) { return (expr).Union(); }

}  // namespace edgerun::testing
