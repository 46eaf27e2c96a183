// Hostile models: broken, patched, truncated and bit-flipped files made from the project's own
// builder, each of which must give a clear error (never a crash, a hang or an allocation without
// bound). The same cases, written to disk, are tests/corpus/invalid (see WriteCorpus below and
// tests/corpus_test.sh, which checks the command line on them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include "flatbuffers/flexbuffers.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

using Bytes = std::vector<uint8_t>;

// Where a case must fail: "load" (reading, verifying, building the interpreter or allocating
// tensors; `edgerun inspect` fails too) or "run" (Invoke; inspect may succeed).
struct HostileCase {
  std::string name;
  std::string phase;
  std::string expected;  // a substring of the error message
  std::function<Bytes()> make;
};

// The command line's default limits (src/tools/cli.cc, docs/robustness.md).
InterpreterOptions CliLimits() {
  InterpreterOptions options;
  options.max_tensor_bytes = size_t{1} << 30;
  options.max_arena_bytes = size_t{4} << 30;
  options.max_while_iterations = 1000000;
  return options;
}

struct Outcome {
  std::string phase;  // "load", "run" or "ok"
  std::string message;
};

// What `edgerun run` does, in-process, with zero inputs.
Outcome RunLikeTheCli(const Bytes& bytes) {
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "hostile.tflite");
  if (!model.ok()) return {"load", model.status().message()};
  auto interpreter = Interpreter::Create(*model, CliLimits());
  if (!interpreter.ok()) return {"load", interpreter.status().message()};
  Interpreter& in = **interpreter;
  if (Status st = in.AllocateTensors(); !st.ok()) return {"load", st.message()};
  for (size_t i = 0; i < in.num_inputs(); ++i) {
    Tensor* t = in.input(static_cast<int>(i));
    if (t->data && IsFixedSizeType(t->type)) std::memset(t->data, 0, t->bytes);
  }
  if (Status st = in.Invoke(); !st.ok()) return {"run", st.message()};
  return {"ok", ""};
}


template <class T>
Bytes Raw(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// x[shape] -> op(x, constants...) -> y; the op's output shape is left for prepare to set.
Bytes OneOp(tflite::BuiltinOperator op, TensorType type, Shape shape,
            const std::function<std::vector<int>(ModelBuilder&)>& constants,
            tflite::BuiltinOptions options_type = tflite::BuiltinOptions_NONE,
            ModelBuilder::OptionsWriter options = nullptr, TensorType output_type = TensorType::kFloat32,
            bool input_first = true) {
  ModelBuilder b;
  const int x = b.AddTensor("x", type, shape);
  std::vector<int> inputs = constants(b);
  if (input_first) inputs.insert(inputs.begin(), x);
  const int y = b.AddTensor("y", output_type, {});
  b.AddOp(op, inputs, {y}, options_type, std::move(options));
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

Bytes SimpleAdd(Shape shape = {1, 4}) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, shape);
  const int one = b.AddConstant("one", TensorType::kFloat32, {1}, std::vector<float>{1});
  const int y = b.AddTensor("y", TensorType::kFloat32, shape);
  b.AddOp(tflite::BuiltinOperator_ADD, {x, one}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

// A small network like `edgerun synth tiny_cnn`, for truncations and bit flips.
Bytes TinyCnn() {
  ModelBuilder b;
  const int image = b.AddTensor("image", TensorType::kFloat32, {1, 8, 8, 3}, {}, {-1, 8, 8, 3});
  const int filter = b.AddConstant("conv/filter", TensorType::kFloat32, {8, 3, 3, 3}, testing::RandomFloats(216, 1));
  const int bias = b.AddConstant("conv/bias", TensorType::kFloat32, {8}, testing::RandomFloats(8, 2));
  const int conv = b.AddTensor("conv", TensorType::kFloat32, {1, 8, 8, 8});
  b.AddOp(
      tflite::BuiltinOperator_CONV_2D, {image, filter, bias}, {conv}, tflite::BuiltinOptions_Conv2DOptions,
      ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1, tflite::ActivationFunctionType_RELU)));
  const int pool = b.AddTensor("pool", TensorType::kFloat32, {1, 4, 4, 8});
  b.AddOp(tflite::BuiltinOperator_MAX_POOL_2D, {conv}, {pool}, tflite::BuiltinOptions_Pool2DOptions,
          ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 2, 2, 2, 2)));
  const int fc_w = b.AddConstant("fc/weights", TensorType::kFloat32, {10, 128}, testing::RandomFloats(1280, 3));
  const int logits = b.AddTensor("logits", TensorType::kFloat32, {1, 10});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {pool, fc_w, -1}, {logits});
  const int probs = b.AddTensor("probabilities", TensorType::kFloat32, {1, 10});
  b.AddOp(tflite::BuiltinOperator_SOFTMAX, {logits}, {probs}, tflite::BuiltinOptions_SoftmaxOptions,
          ER_OPTIONS(tflite::CreateSoftmaxOptions(fbb, 1.0f)));
  b.SetInputs({image});
  b.SetOutputs({probs});
  b.AddSignature("serving_default", 0, {{"image", image}}, {{"probabilities", probs}});
  return b.Finish();
}

// ---- files written with the FlatBuffers API directly, for fields the builder always gets right

using SparsityWriter = std::function<flatbuffers::Offset<tflite::SparsityParameters>(flatbuffers::FlatBufferBuilder&)>;

struct RawTensor {
  Shape shape;
  int8_t type = 0;
  uint32_t buffer = 0;
  bool is_variable = false;
  SparsityWriter sparsity;
};

RawTensor T(Shape shape, int8_t type = 0, uint32_t buffer = 0, SparsityWriter sparsity = nullptr) {
  RawTensor t;
  t.shape = std::move(shape);
  t.type = type;
  t.buffer = buffer;
  t.sparsity = std::move(sparsity);
  return t;
}

struct RawModel {
  std::vector<Bytes> buffers = {{}};
  std::vector<std::pair<uint64_t, uint64_t>> buffer_ranges;  // (offset, size) buffers after the data ones
  std::vector<RawTensor> tensors;
  uint32_t opcode_index = 0;  // of the one ADD op (tensors 0, 1 -> 2) when there are 3 tensors
  uint64_t large_custom_options_offset = 0;
  std::vector<int32_t> inputs = {0}, outputs;
  bool no_subgraphs = false;
  int32_t metadata_buffer = -1;

  Bytes Write() const {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes = {
        tflite::CreateOperatorCode(fbb, tflite::BuiltinOperator_ADD, 0, 1, tflite::BuiltinOperator_ADD)};
    std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
    for (const RawTensor& t : tensors_or_default()) {
      const auto shape = fbb.CreateVector(t.shape);
      const auto name = fbb.CreateString("t" + std::to_string(tensors.size()));
      const auto sparsity = t.sparsity ? t.sparsity(fbb) : 0;
      tensors.push_back(tflite::CreateTensor(fbb, shape, static_cast<tflite::TensorType>(t.type), t.buffer, name, 0,
                                             t.is_variable, sparsity));
    }
    std::vector<flatbuffers::Offset<tflite::Operator>> ops;
    if (tensors.size() >= 3) {
      ops.push_back(tflite::CreateOperator(fbb, opcode_index, fbb.CreateVector(std::vector<int32_t>{0, 1}),
                                           fbb.CreateVector(std::vector<int32_t>{2}), tflite::BuiltinOptions_NONE, 0, 0,
                                           tflite::CustomOptionsFormat_FLEXBUFFERS, 0, 0, large_custom_options_offset,
                                           large_custom_options_offset ? 16 : 0));
    }
    std::vector<int32_t> outs = outputs;
    if (outs.empty()) outs = {static_cast<int32_t>(tensors.size()) - 1};
    std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs;
    if (!no_subgraphs) {
      subgraphs.push_back(tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs),
                                                 fbb.CreateVector(outs), fbb.CreateVector(ops)));
    }
    std::vector<flatbuffers::Offset<tflite::Buffer>> buffer_tables;
    for (const Bytes& b : buffers) {
      buffer_tables.push_back(b.empty() ? tflite::CreateBuffer(fbb) : tflite::CreateBuffer(fbb, fbb.CreateVector(b)));
    }
    for (const auto& [offset, size] : buffer_ranges)
      buffer_tables.push_back(tflite::CreateBuffer(fbb, 0, offset, size));
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<tflite::Metadata>>> metadata = 0;
    if (metadata_buffer >= 0) {
      metadata = fbb.CreateVector(std::vector<flatbuffers::Offset<tflite::Metadata>>{
          tflite::CreateMetadata(fbb, fbb.CreateString("min_runtime_version"), metadata_buffer)});
    }
    const auto model =
        tflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(subgraphs),
                            fbb.CreateString("edgerun hostile test"), fbb.CreateVector(buffer_tables), 0, metadata);
    tflite::FinishModelBuffer(fbb, model);
    return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }

  std::vector<RawTensor> tensors_or_default() const {
    if (!tensors.empty()) return tensors;
    return {T({1, 4}), T({1, 4}), T({1, 4})};
  }
};

// An ADD of x[shape] and a constant with sparsity metadata (`sparsity`), float32 values `values`.
Bytes SparseConstant(Shape shape, std::vector<float> values, SparsityWriter sparsity) {
  RawModel m;
  m.buffers.push_back(Raw(values));
  m.tensors = {T(shape), T(shape, 0, 1, std::move(sparsity)), T(shape)};
  return m.Write();
}

// CSR over a [rows, cols] matrix: level 0 dense (rows), level 1 sparse (segments, indices).
auto Csr(int rows, std::vector<int32_t> segments, std::vector<int32_t> indices, std::vector<int32_t> order = {0, 1}) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    const auto dense = tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_DENSE, rows);
    const auto seg = tflite::CreateInt32Vector(fbb, fbb.CreateVector(segments)).Union();
    const auto idx = tflite::CreateInt32Vector(fbb, fbb.CreateVector(indices)).Union();
    const auto sparse =
        tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_SPARSE_CSR, 0, tflite::SparseIndexVector_Int32Vector,
                                        seg, tflite::SparseIndexVector_Int32Vector, idx);
    return tflite::CreateSparsityParameters(
        fbb, fbb.CreateVector(order), 0,
        fbb.CreateVector(std::vector<flatbuffers::Offset<tflite::DimensionMetadata>>{dense, sparse}));
  };
}

// Subgraph 0 calls subgraph 1 through CALL_ONCE, 1 calls 2, ... `depth` subgraphs deep; the last
// calls `last_calls` (-1: nothing).
Bytes CallChain(int depth, int last_calls = -1) {
  ModelBuilder b;
  for (int s = 0; s < depth; ++s) {
    if (s > 0) b.AddSubgraph("level" + std::to_string(s));
    const int x = b.AddTensor("x", TensorType::kFloat32, {1});
    const int y = b.AddTensor("y", TensorType::kFloat32, {1});
    b.AddOp(tflite::BuiltinOperator_ABS, {x}, {y});
    const int callee = s + 1 < depth ? s + 1 : last_calls;
    if (callee >= 0) {
      b.AddOp(tflite::BuiltinOperator_CALL_ONCE, {}, {}, tflite::BuiltinOptions_CallOnceOptions,
              // By value: the builder writes options at Finish, after `callee` is gone.
              [callee](flatbuffers::FlatBufferBuilder& fbb) {
                return tflite::CreateCallOnceOptions(fbb, callee).Union();
              });
    }
    b.SetInputs({x});
    b.SetOutputs({y});
  }
  b.SetSubgraph(0);
  return b.Finish();
}

// y = WHILE(c, step) with cond c >= c (true for every number) and body c = c + step.
Bytes EndlessWhile() {
  ModelBuilder b;
  const int c = b.AddTensor("c", TensorType::kFloat32, {1});
  const int step = b.AddConstant("step", TensorType::kFloat32, {1}, std::vector<float>{1});
  const int c_out = b.AddTensor("c_out", TensorType::kFloat32, {1});
  const int step_out = b.AddTensor("step_out", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {c, step}, {c_out, step_out}, tflite::BuiltinOptions_WhileOptions,
          ER_OPTIONS(tflite::CreateWhileOptions(fbb, 1, 2)));
  b.SetInputs({c});
  b.SetOutputs({c_out});
  b.AddSubgraph("cond");
  const int cc = b.AddTensor("c", TensorType::kFloat32, {1});
  const int cs = b.AddTensor("s", TensorType::kFloat32, {1});
  const int keep = b.AddTensor("keep", TensorType::kBool, {1});
  b.AddOp(tflite::BuiltinOperator_GREATER_EQUAL, {cc, cc}, {keep});
  b.SetInputs({cc, cs});
  b.SetOutputs({keep});
  b.AddSubgraph("body");
  const int bc = b.AddTensor("c", TensorType::kFloat32, {1});
  const int bs = b.AddTensor("s", TensorType::kFloat32, {1});
  const int next = b.AddTensor("next", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_ADD, {bc, bs}, {next});
  b.SetInputs({bc, bs});
  b.SetOutputs({next, bs});
  return b.Finish();
}

// A WHILE whose cond or body index is given.
Bytes WhileCalling(int cond, int body) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {x}, {y}, tflite::BuiltinOptions_WhileOptions,
          ER_OPTIONS(tflite::CreateWhileOptions(fbb, cond, body)));
  b.SetInputs({x});
  b.SetOutputs({y});
  b.AddSubgraph("other");
  const int ox = b.AddTensor("x", TensorType::kFloat32, {1});
  const int oy = b.AddTensor("y", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {ox}, {oy}, tflite::BuiltinOptions_WhileOptions,
          ER_OPTIONS(tflite::CreateWhileOptions(fbb, 0, 0)));
  b.SetInputs({ox});
  b.SetOutputs({oy});
  b.SetSubgraph(0);
  return b.Finish();
}

template <class T>
std::function<std::vector<int>(ModelBuilder&)> Const(TensorType type, Shape shape, std::vector<T> values) {
  return [=](ModelBuilder& b) { return std::vector<int>{b.AddConstant("c", type, shape, values)}; };
}

std::vector<HostileCase> PatchedCases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<HostileCase> cases = {
      {"empty_file", "load", "empty", [] { return Bytes(); }},
      {"text_file", "load", "not a TFLite model",
       [] {
         const std::string text = "this is not a model at all";
         return Bytes(text.begin(), text.end());
       }},
      {"schema_version_1", "load", "schema version 1 is not supported",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         b.SetInputs({x});
         b.SetOutputs({x});
         b.SetVersion(1);
         return b.Finish();
       }},
      {"no_subgraphs", "load", "no subgraphs",
       [] {
         RawModel m;
         m.no_subgraphs = true;
         return m.Write();
       }},
      {"negative_dimension", "load", "negative dimension",
       [] {
         return SimpleAdd({1, -4});
       }},
      {"shape_overflow", "load", "overflows",
       [] {
         return SimpleAdd({2147483647, 2147483647, 2147483647});
       }},
      {"huge_input", "load", "max_tensor_bytes",
       [] {
         return SimpleAdd({1, 1 << 30});
       }},
      {"huge_arena", "load", "max_arena_bytes",
       [] {
         // Ten outputs of 512 MB each, all alive at the end: 5 GB of activations.
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         std::vector<int> outputs;
         for (int i = 0; i < 10; ++i) {
           const int big = b.AddConstant("shape" + std::to_string(i), TensorType::kInt32, {2},
                                         std::vector<int32_t>{1 << 14, 1 << 13});
           const int y = b.AddTensor("y" + std::to_string(i), TensorType::kFloat32, {1 << 14, 1 << 13});
           b.AddOp(tflite::BuiltinOperator_BROADCAST_TO, {x, big}, {y}, tflite::BuiltinOptions_NONE, nullptr,
                   /*version=*/2);
           outputs.push_back(y);
         }
         b.SetInputs({x});
         b.SetOutputs(outputs);
         return b.Finish();
       }},
      {"unknown_tensor_type", "load", "unknown tensor type",
       [] {
         RawModel m;
         m.tensors = {T({1, 4}, 99), T({1, 4}), T({1, 4})};
         return m.Write();
       }},
      {"buffer_index_out_of_range", "load", "buffer index 7 out of range",
       [] {
         RawModel m;
         m.tensors = {T({1, 4}), T({1, 4}, 0, 7), T({1, 4})};
         return m.Write();
       }},
      {"buffer_beyond_file", "load", "beyond the end of the file",
       [] {
         RawModel m;
         m.buffer_ranges = {{1u << 30, 16}};
         m.tensors = {T({1, 4}), T({1, 4}, 0, 1), T({1, 4})};
         return m.Write();
       }},
      {"opcode_index_out_of_range", "load", "opcode index 5 out of range",
       [] {
         RawModel m;
         m.opcode_index = 5;
         return m.Write();
       }},
      {"custom_options_beyond_file", "load", "custom options point beyond the end of the file",
       [] {
         RawModel m;
         m.large_custom_options_offset = uint64_t{1} << 40;
         return m.Write();
       }},
      {"metadata_buffer_out_of_range", "load", "metadata entry 0 refers to a buffer out of range",
       [] {
         RawModel m;
         m.metadata_buffer = 42;
         return m.Write();
       }},
      {"subgraph_input_out_of_range", "load", "input 0 is tensor 9, out of range",
       [] {
         RawModel m;
         m.inputs = {9};
         return m.Write();
       }},
      {"op_input_out_of_range", "load", "input 1 is tensor 57, out of range",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         const int y = b.AddTensor("y", TensorType::kFloat32, {1});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, 57}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"constant_data_size", "load", "constant data has 12 bytes",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {4});
         const int c = b.AddConstant("c", TensorType::kFloat32, {4}, std::vector<float>{1, 2, 3});
         const int y = b.AddTensor("y", TensorType::kFloat32, {4});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, c}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"string_layout", "load", "constant string data has an invalid layout",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kString, {2});
         const int c = b.AddConstant("c", TensorType::kString, {2}, std::vector<int32_t>{2, 16, 9999, 20});
         const int y = b.AddTensor("y", TensorType::kBool, {2});
         b.AddOp(tflite::BuiltinOperator_EQUAL, {x, c}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"per_channel_scale_count", "load", "2 per-channel scales for dimension 0",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt8, {3, 2}, {{0.5f, 0.5f}, {0, 0}, 0});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"quantized_dimension_out_of_range", "load", "quantized_dimension 5 is outside shape",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt8, {2, 2}, {{0.5f, 0.5f}, {0, 0}, 5});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"scale_zero_point_count", "load", "quantization has 1 scales but 2 zero points",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt8, {2}, {{0.5f}, {0, 0}, 0});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"nan_scale", "load", "must be finite",
       [nan] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt8, {2}, {{nan}, {0}, 0});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"zero_point_out_of_range", "load", "zero point 300 is outside the range of int8",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt8, {2}, {{0.5f}, {300}, 0});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"constant_subgraph_input", "load", "which has constant data",
       [] {
         ModelBuilder b;
         const int c = b.AddConstant("c", TensorType::kFloat32, {2}, std::vector<float>{1, 2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {2});
         b.AddOp(tflite::BuiltinOperator_ABS, {c}, {y});
         b.SetInputs({c});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"op_writes_constant", "load", "which is a constant",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         const int c = b.AddConstant("c", TensorType::kFloat32, {2}, std::vector<float>{1, 2});
         b.AddOp(tflite::BuiltinOperator_ABS, {x}, {c});
         b.SetInputs({x});
         b.SetOutputs({c});
         return b.Finish();
       }},
      {"reads_unwritten_tensor", "load", "which has no value",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         const int ghost = b.AddTensor("ghost", TensorType::kFloat32, {2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {2});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, ghost}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"unknown_builtin_op", "load", "not supported",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {2});
         b.AddOp(static_cast<tflite::BuiltinOperator>(4000), {x}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"unsupported_op_version", "load", "version 99 is not supported",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {2});
         b.AddOp(tflite::BuiltinOperator_ABS, {x}, {y}, tflite::BuiltinOptions_NONE, nullptr, 99);
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"signature_subgraph_out_of_range", "load", "signature 0 refers to subgraph 5",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         b.SetInputs({x});
         b.SetOutputs({x});
         b.AddSignature("serving_default", 5, {{"x", x}}, {{"x", x}});
         return b.Finish();
       }},
      {"signature_tensor_out_of_range", "load", "maps a name to a tensor outside subgraph 0",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {2});
         b.SetInputs({x});
         b.SetOutputs({x});
         b.AddSignature("serving_default", 0, {{"x", 999}}, {{"x", x}});
         return b.Finish();
       }},
      // Subgraph references.
      {"while_calls_itself", "load", "recursion is not allowed", [] { return WhileCalling(1, 0); }},
      {"subgraph_cycle", "load", "recursion is not allowed", [] { return CallChain(3, 1); }},
      {"deep_subgraph_chain", "load", "nested subgraph calls", [] { return CallChain(100); }},
      {"while_missing_subgraph", "load", "calls subgraph 7, which does not exist", [] { return WhileCalling(7, 1); }},
      {"call_once_negative_subgraph", "load", "calls subgraph -3, which does not exist",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         b.AddOp(tflite::BuiltinOperator_CALL_ONCE, {}, {}, tflite::BuiltinOptions_CallOnceOptions,
                 ER_OPTIONS(tflite::CreateCallOnceOptions(fbb, -3)));
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      {"endless_while", "run", "max_while_iterations", EndlessWhile},
      // Sparse constants (TACO format).
      {"sparse_bad_traversal_order", "load", "traversal_order entry 1 is 0",
       [] {
         return SparseConstant({2, 2}, {1, 2}, Csr(2, {0, 1, 2}, {0, 1}, {0, 0}));
       }},
      {"sparse_segment_count", "load", "has 2 segment entries, expected 3",
       [] {
         return SparseConstant({2, 2}, {1, 2}, Csr(2, {0, 2}, {0, 1}));
       }},
      {"sparse_decreasing_segments", "load", "must start at 0 and not decrease",
       [] {
         return SparseConstant({2, 2}, {1, 2}, Csr(2, {0, 2, 1}, {0, 1}));
       }},
      {"sparse_index_out_of_range", "load", "index 9 outside dimension size 2",
       [] {
         return SparseConstant({2, 2}, {1, 2}, Csr(2, {0, 1, 2}, {0, 9}));
       }},
      {"sparse_value_count", "load", "describes 2 stored values, the buffer has 12 bytes",
       [] {
         return SparseConstant({2, 2}, {1, 2, 3}, Csr(2, {0, 1, 2}, {0, 1}));
       }},
      {"sparse_on_non_constant", "load", "sparsity parameters on a tensor without constant data",
       [] {
         RawModel m;
         m.tensors = {T({2, 2}), T({2, 2}, 0, 0, Csr(2, {0, 1, 2}, {0, 1})), T({2, 2})};
         m.inputs = {0, 1};
         return m.Write();
       }},
      // Sizes that come from op options or constant tensors.
      {"tile_huge_multiples", "load", "max_tensor_bytes",
       [] {
         return OneOp(tflite::BuiltinOperator_TILE, TensorType::kFloat32, {2, 2},
                      Const(TensorType::kInt32, {2}, std::vector<int32_t>{1 << 20, 1 << 20}));
       }},
      {"fill_huge_dims", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;
         const int value = b.AddTensor("value", TensorType::kFloat32, {});
         const int dims = b.AddConstant("dims", TensorType::kInt32, {3}, std::vector<int32_t>{1 << 20, 1 << 20, 64});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_FILL, {dims, value}, {y});
         b.SetInputs({value});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"fill_many_strings", "run", "FILL of 268435456 strings of 1 bytes is over the limit",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         const Bytes one = WriteStringTensor({"a"});
         const int value = b.AddConstant("value", TensorType::kString, {}, one.data(), one.size());
         const int dims = b.AddConstant("dims", TensorType::kInt32, {1}, std::vector<int32_t>{1 << 28});
         const int y = b.AddTensor("y", TensorType::kString, {});
         b.AddOp(tflite::BuiltinOperator_FILL, {dims, value}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"range_huge", "load", "RANGE output of 3e+09 values is too large",
       [] {
         ModelBuilder b;
         const int start = b.AddConstant("start", TensorType::kFloat32, {}, std::vector<float>{0});
         const int limit = b.AddConstant("limit", TensorType::kFloat32, {}, std::vector<float>{3e9f});
         const int delta = b.AddConstant("delta", TensorType::kFloat32, {}, std::vector<float>{1});
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_RANGE, {start, limit, delta}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"one_hot_huge_depth", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;
         const int indices = b.AddTensor("indices", TensorType::kInt32, {1024});
         const int depth = b.AddConstant("depth", TensorType::kInt32, {}, std::vector<int32_t>{1 << 30});
         const int on = b.AddConstant("on", TensorType::kFloat32, {}, std::vector<float>{1});
         const int off = b.AddConstant("off", TensorType::kFloat32, {}, std::vector<float>{0});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_ONE_HOT, {indices, depth, on, off}, {y}, tflite::BuiltinOptions_OneHotOptions,
                 ER_OPTIONS(tflite::CreateOneHotOptions(fbb, -1)));
         b.SetInputs({indices});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"resize_huge", "load", "max_tensor_bytes",
       [] {
         return OneOp(tflite::BuiltinOperator_RESIZE_BILINEAR, TensorType::kFloat32, {1, 2, 2, 1},
                      Const(TensorType::kInt32, {2}, std::vector<int32_t>{1 << 16, 1 << 16}),
                      tflite::BuiltinOptions_ResizeBilinearOptions,
                      ER_OPTIONS(tflite::CreateResizeBilinearOptions(fbb)));
       }},
      {"broadcast_to_huge", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;  // BROADCAST_TO starts at version 2
         const int x = b.AddTensor("x", TensorType::kFloat32, {1});
         const int shape = b.AddConstant("shape", TensorType::kInt32, {3},
                                         std::vector<int32_t>{1 << 20, 1 << 20, 1 << 20});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_BROADCAST_TO, {x, shape}, {y}, tflite::BuiltinOptions_NONE, nullptr,
                 /*version=*/2);
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"reshape_to_huge", "load", "RESHAPE",
       [] {
         return OneOp(tflite::BuiltinOperator_RESHAPE, TensorType::kFloat32, {1},
                      Const(TensorType::kInt32, {2}, std::vector<int32_t>{1 << 16, 1 << 16}));
       }},
      {"mirror_pad_huge", "load", "MIRROR_PAD",
       [] {
         return OneOp(tflite::BuiltinOperator_MIRROR_PAD, TensorType::kFloat32, {2, 2},
                      Const(TensorType::kInt32, {2, 2}, std::vector<int32_t>{0, 1 << 30, 0, 1}),
                      tflite::BuiltinOptions_MirrorPadOptions, ER_OPTIONS(tflite::CreateMirrorPadOptions(fbb)));
       }},
      {"pad_huge", "load", "max_tensor_bytes",
       [] {
         return OneOp(tflite::BuiltinOperator_PAD, TensorType::kFloat32, {2, 2},
                      Const(TensorType::kInt32, {2, 2}, std::vector<int32_t>{0, 1 << 20, 0, 1 << 20}));
       }},
      {"pad_negative", "load", "PAD",
       [] {
         return OneOp(tflite::BuiltinOperator_PAD, TensorType::kFloat32, {2, 2},
                      Const(TensorType::kInt32, {2, 2}, std::vector<int32_t>{0, -5, 0, 0}));
       }},
      {"transpose_conv_huge_output", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;
         const int shape =
             b.AddConstant("output_shape", TensorType::kInt32, {4}, std::vector<int32_t>{1, 1 << 16, 1 << 16, 1});
         const int filter = b.AddConstant("filter", TensorType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1});
         const int x = b.AddTensor("x", TensorType::kFloat32, {1, 1 << 15, 1 << 15, 1});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_TRANSPOSE_CONV, {shape, filter, x}, {y},
                 tflite::BuiltinOptions_TransposeConvOptions,
                 ER_OPTIONS(tflite::CreateTransposeConvOptions(fbb, tflite::Padding_SAME, 2, 2)));
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_model: a stride of 2621442 over an input 32768 rows high overflowed an int in the
      // XNNPACK delegate's deconvolution geometry (UBSan).
      {"transpose_conv_huge_stride", "load", "spans more than 2^30 output rows",
       [] {
         ModelBuilder b;
         const int shape = b.AddConstant("output_shape", TensorType::kInt32, {4}, std::vector<int32_t>{1, 4, 4, 1});
         const int filter = b.AddConstant("filter", TensorType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1});
         const int x = b.AddTensor("x", TensorType::kFloat32, {1, 32768, 2, 1});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_TRANSPOSE_CONV, {shape, filter, x}, {y},
                 tflite::BuiltinOptions_TransposeConvOptions,
                 ER_OPTIONS(tflite::CreateTransposeConvOptions(fbb, tflite::Padding_SAME, 1, 2621442)));
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_model: an input with no channels made the group count 0 and prepare divided by it.
      {"conv_zero_input_channels", "load", "input channels (0)",
       [] {
         return OneOp(tflite::BuiltinOperator_CONV_2D, TensorType::kFloat32, {1, 4, 4, 0},
                      Const(TensorType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1}),
                      tflite::BuiltinOptions_Conv2DOptions,
                      ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
       }},
      // fuzz_model: an 8 GB value inside an XNNPACK partition; the delegate's runtime allocated it
      // before the arena planner checked the limit. The limit now holds before any delegate runs.
      {"xnnpack_huge_internal_value", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1, 1, 1, 32768});
         const int c = b.AddConstant("c", TensorType::kFloat32, {1, 32768, 1, 1}, std::vector<float>(32768, 1.0f));
         const int wide = b.AddTensor("wide", TensorType::kFloat32, {});
         const int axes = b.AddConstant("axes", TensorType::kInt32, {2}, std::vector<int32_t>{1, 2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, c}, {wide});
         b.AddOp(tflite::BuiltinOperator_MEAN, {wide, axes}, {y}, tflite::BuiltinOptions_ReducerOptions,
                 ER_OPTIONS(tflite::CreateReducerOptions(fbb, true)));
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_invoke: RESHAPE wrote its own input (also the subgraph's input), which the planner
      // left without memory, and the CLI's random input fill wrote through a null pointer.
      {"op_writes_its_own_input", "load", "which is also its input 0",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kInt32, {1});
         const int shape = b.AddConstant("shape", TensorType::kInt32, {0}, std::vector<int32_t>{});
         b.AddOp(tflite::BuiltinOperator_RESHAPE, {x, shape}, {x});
         b.SetInputs({x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      // fuzz_model: BATCH_MATMUL built its per-batch index (16 bytes a batch, 4.8 GB here) in
      // prepare, before the planner found the output over the tensor limit. Output sizes are now
      // checked when an op sets them.
      {"batch_matmul_huge_batches", "load", "max_tensor_bytes",
       [] {
         ModelBuilder b;
         const int lhs = b.AddTensor("lhs", TensorType::kFloat32, {1, 1, 4, 2});
         const int rhs = b.AddTensor("rhs", TensorType::kFloat32, {1, 300000000, 3, 2});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_BATCH_MATMUL, {lhs, rhs}, {y}, tflite::BuiltinOptions_BatchMatMulOptions,
                 ER_OPTIONS(tflite::CreateBatchMatMulOptions(fbb, false, true)));
         b.SetInputs({lhs, rhs});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_model: a quantized BATCH_MATMUL with an empty output of 1.6 G columns sized its
      // per-column requantization arrays from them (6.4 GB) in prepare.
      {"batch_matmul_billions_of_columns", "load", "output channels: more than",
       [] {
         ModelBuilder b;
         const QuantizationParams q{{0.01f}, {0}, 0};
         const int lhs = b.AddTensor("lhs", TensorType::kInt16, {1, 0, 4}, q);
         const int rhs = b.AddTensor("rhs", TensorType::kInt16, {1, 20000000, 4}, q);
         const int y = b.AddTensor("y", TensorType::kInt16, {1, 0, 20000000}, q);
         b.AddOp(tflite::BuiltinOperator_BATCH_MATMUL, {lhs, rhs}, {y}, tflite::BuiltinOptions_BatchMatMulOptions,
                 ER_OPTIONS(tflite::CreateBatchMatMulOptions(fbb, false, true)));
         b.SetInputs({lhs, rhs});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_invoke (6th 30-minute round): TRANSPOSE_CONV with a run-time output shape wrote a
      // subgraph input, which was left without memory; `edgerun run` filled it through null.
      {"op_writes_subgraph_input", "load", "which is an input of the subgraph",
       [] {
         ModelBuilder b;
         const int a = b.AddTensor("a", TensorType::kFloat32, {4});
         const int x = b.AddTensor("x", TensorType::kFloat32, {4});
         const int one = b.AddConstant("one", TensorType::kFloat32, {1}, std::vector<float>{1});
         b.AddOp(tflite::BuiltinOperator_ADD, {a, one}, {x});
         b.SetInputs({a, x});
         b.SetOutputs({x});
         return b.Finish();
       }},
      // An input over max_tensor_bytes is refused before any op prepares (ops size buffers from
      // their inputs' shapes): here ADD's own broadcast check would otherwise speak first.
      {"input_over_limit_before_prepare", "load", "over the limit of",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {65536, 65536, 256});
         const int y = b.AddTensor("y", TensorType::kFloat32, {3});
         const int z = b.AddTensor("z", TensorType::kFloat32, {3});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, y}, {z});
         b.SetInputs({x, y});
         b.SetOutputs({z});
         return b.Finish();
       }},
      // fuzz_graph (5th 30-minute round): SQUEEZE of a scalar with squeeze_dims [0] read
      // dimension 0 of an empty shape: the axis check let axis 0 through for rank 0.
      {"squeeze_scalar_axis_0", "load", "axis 0 is out of range for rank 0",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_SQUEEZE, {x}, {y}, tflite::BuiltinOptions_SqueezeOptions,
                 ER_OPTIONS(tflite::CreateSqueezeOptions(fbb, fbb.CreateVector(std::vector<int32_t>{0}))));
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_invoke: ADD and LEAKY_RELU wrote a larger shape than their output, a variable tensor
      // whose memory had been made at its declared shape (heap overflow under ASan).
      {"variable_output_of_another_shape", "load", "is a variable of shape [1,2]",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1, 4});
         const int one = b.AddConstant("one", TensorType::kFloat32, {1}, std::vector<float>{1});
         const int y = b.AddVariable("y", TensorType::kFloat32, {1, 2});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, one}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_invoke: SPACE_TO_BATCH_ND with computed paddings wrote its run-time shape into a
      // variable output whose buffer was made at the declared shape (heap overflow).
      {"dynamic_variable_output", "load", "only when the graph runs",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {1, 2, 2, 1});
         const int block = b.AddConstant("block", TensorType::kInt32, {2}, std::vector<int32_t>{1, 1});
         const int paddings = b.AddTensor("paddings", TensorType::kInt32, {2, 2});
         const int y = b.AddVariable("y", TensorType::kFloat32, {1, 2, 2, 1});
         b.AddOp(tflite::BuiltinOperator_SPACE_TO_BATCH_ND, {x, block, paddings}, {y});
         b.SetInputs({x, paddings});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_graph: the new shape's element count overflowed int64 (2^40 x 2^31) before the check.
      {"reshape_overflowing_shape", "load", "new shape is too large",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {4});
         const int shape = b.AddConstant("shape", TensorType::kInt32, {3},
                                         std::vector<int32_t>{1048576, 1048576, 2147483646});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_RESHAPE, {x, shape}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      // fuzz_invoke: a tensor written by two ops (a FLOOR_MOD, then an ADD of another type and
      // shape) had memory planned for one of them; ADD stored through a null pointer.
      {"tensor_written_twice", "load", "which op 0 also writes",
       [] {
         ModelBuilder b;
         const int x = b.AddTensor("x", TensorType::kFloat32, {4});
         const int one = b.AddConstant("one", TensorType::kFloat32, {1}, std::vector<float>{1});
         const int y = b.AddTensor("y", TensorType::kFloat32, {4});
         b.AddOp(tflite::BuiltinOperator_ADD, {x, one}, {y});
         b.AddOp(tflite::BuiltinOperator_MUL, {x, one}, {y});
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"conv_huge_dilation", "load", "spans more than 2^30",
       [] {
         return OneOp(tflite::BuiltinOperator_CONV_2D, TensorType::kFloat32, {1, 4, 4, 1},
                      Const(TensorType::kFloat32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f)),
                      tflite::BuiltinOptions_Conv2DOptions,
                      ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1,
                                                             tflite::ActivationFunctionType_NONE, 2000000000, 1)));
       }},
      {"split_zero", "load", "SPLIT",
       [] {
         ModelBuilder b;
         const int axis = b.AddConstant("axis", TensorType::kInt32, {}, std::vector<int32_t>{0});
         const int x = b.AddTensor("x", TensorType::kFloat32, {4});
         const int y = b.AddTensor("y", TensorType::kFloat32, {});
         b.AddOp(tflite::BuiltinOperator_SPLIT, {axis, x}, {y}, tflite::BuiltinOptions_SplitOptions,
                 ER_OPTIONS(tflite::CreateSplitOptions(fbb, 0)));
         b.SetInputs({x});
         b.SetOutputs({y});
         return b.Finish();
       }},
      {"depth_to_space_block_zero", "load", "DEPTH_TO_SPACE",
       [] {
         return OneOp(
             tflite::BuiltinOperator_DEPTH_TO_SPACE, TensorType::kFloat32, {1, 2, 2, 4},
             [](ModelBuilder&) { return std::vector<int>{}; }, tflite::BuiltinOptions_DepthToSpaceOptions,
             ER_OPTIONS(tflite::CreateDepthToSpaceOptions(fbb, 0)));
       }},
      {"conv_stride_zero", "load", "CONV_2D",
       [] {
         return OneOp(tflite::BuiltinOperator_CONV_2D, TensorType::kFloat32, {1, 4, 4, 1},
                      Const(TensorType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1}),
                      tflite::BuiltinOptions_Conv2DOptions,
                      ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 0, 0)));
       }},
      {"pool_filter_zero", "load", "MAX_POOL_2D",
       [] {
         return OneOp(
             tflite::BuiltinOperator_MAX_POOL_2D, TensorType::kFloat32, {1, 4, 4, 1},
             [](ModelBuilder&) { return std::vector<int>{}; }, tflite::BuiltinOptions_Pool2DOptions,
             ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_VALID, 1, 1, 0, 0)));
       }},
      {"gather_index_out_of_range", "run", "is out of range",
       [] {
         return OneOp(tflite::BuiltinOperator_GATHER, TensorType::kFloat32, {4},
                      Const(TensorType::kInt32, {1}, std::vector<int32_t>{100}), tflite::BuiltinOptions_GatherOptions,
                      ER_OPTIONS(tflite::CreateGatherOptions(fbb, 0)));
       }},
      {"detection_postprocess_huge", "load", "TFLite_Detection_PostProcess",
       [] {
         flexbuffers::Builder fb;
         fb.Map([&] {
           fb.Int("max_detections", 1 << 30);
           fb.Int("max_classes_per_detection", 1 << 30);
           fb.Int("detections_per_class", 100);
           fb.Int("num_classes", 90);
           fb.Float("nms_score_threshold", 0.3f);
           fb.Float("nms_iou_threshold", 0.6f);
           fb.Float("y_scale", 10);
           fb.Float("x_scale", 10);
           fb.Float("h_scale", 5);
           fb.Float("w_scale", 5);
         });
         fb.Finish();
         return testing::DetectionPostProcessModel(fb.GetBuffer(), 4, 91, std::vector<float>(16, 0.5f));
       }},
      // fuzz_graph (round 9): flexbuffers casts a stored float to an integer without a range check.
      {"detection_postprocess_float_option", "load", "custom option 'max_detections'",
       [] {
         flexbuffers::Builder fb;
         fb.Map([&] {
           fb.Double("max_detections", 1e30);
           fb.Int("max_classes_per_detection", 1);
           fb.Double("use_regular_nms", -1.0);
           fb.Int("num_classes", 90);
           fb.Float("nms_iou_threshold", 0.6f);
         });
         fb.Finish();
         return testing::DetectionPostProcessModel(fb.GetBuffer(), 4, 91, std::vector<float>(16, 0.5f));
       }},
  };
  return cases;
}

// Every cut of the tiny network at a few lengths, and bit flips in its tables: each must fail
// at load (bit flips that still give a working model are skipped when writing the corpus).
std::vector<HostileCase> DamagedCases() {
  std::vector<HostileCase> cases;
  const Bytes model = TinyCnn();
  const size_t size = model.size();
  for (size_t cut :
       {size_t{4}, size_t{7}, size_t{8}, size_t{16}, size_t{64}, size / 3, size / 2, size - 200, size - 17}) {
    cases.push_back({"truncated_" + std::to_string(cut), "load", cut < 8 ? "too short" : "verifier rejected",
                     [model, cut] { return Bytes(model.begin(), model.begin() + static_cast<long>(cut)); }});
  }
  return cases;
}

// Seeded bit flips of the tiny network that make it fail at load, with their messages.
std::vector<HostileCase> BitFlipCases(int wanted) {
  std::vector<HostileCase> cases;
  const Bytes model = TinyCnn();
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int attempt = 0; attempt < 2000 && static_cast<int>(cases.size()) < wanted; ++attempt) {
    Bytes flipped = model;
    const int flips = 1 + static_cast<int>(next() % 3);
    std::string what;
    for (int f = 0; f < flips; ++f) {
      const size_t at = next() % flipped.size();
      const int bit = static_cast<int>(next() % 8);
      flipped[at] ^= static_cast<uint8_t>(1 << bit);
      what += "_" + std::to_string(at) + "." + std::to_string(bit);
    }
    const Outcome outcome = RunLikeTheCli(flipped);
    if (outcome.phase != "load") continue;
    // The message after its last location prefix ("...: op 2 (CONV_2D v1): <this>").
    std::string expected = outcome.message.substr(outcome.message.rfind(": ") + 2);
    if (expected.size() > 60) expected.resize(60);
    cases.push_back({"bitflip" + what, "load", expected, [flipped] { return flipped; }});
  }
  return cases;
}

TEST(Hostile, EveryPatchedModelFailsCleanlyWithItsMessage) {
  for (const HostileCase& c : PatchedCases()) {
    SCOPED_TRACE(c.name);
    const Outcome outcome = RunLikeTheCli(c.make());
    EXPECT_EQ(outcome.phase, c.phase) << outcome.message;
    EXPECT_NE(outcome.message.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << outcome.message;
  }
}

TEST(Hostile, TruncatedModelsFailAtLoad) {
  for (const HostileCase& c : DamagedCases()) {
    SCOPED_TRACE(c.name);
    const Outcome outcome = RunLikeTheCli(c.make());
    EXPECT_EQ(outcome.phase, "load") << outcome.message;
    EXPECT_NE(outcome.message.find(c.expected), std::string::npos) << outcome.message;
  }
}

TEST(Hostile, BitFlipsNeverCrash) {
  // Any outcome but a crash is acceptable; most flips land in weights and still run.
  const Bytes model = TinyCnn();
  uint64_t state = 99;
  int failed = 0;
  for (int i = 0; i < 300; ++i) {
    Bytes flipped = model;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const size_t at = (state >> 33) % flipped.size();
    flipped[at] ^= static_cast<uint8_t>(1 << ((state >> 20) % 8));
    const Outcome outcome = RunLikeTheCli(flipped);
    if (outcome.phase != "ok") {
      ++failed;
      EXPECT_FALSE(outcome.message.empty());
    }
  }
  EXPECT_GT(failed, 0);
}

TEST(Hostile, EmptyTensorsWithHugeDimensionsRun) {
  // fuzz_invoke: a convolution whose input has a 0 among dimensions of millions walked the empty
  // rows for seconds. An empty output now returns at once; the model runs and yields nothing.
  for (auto op : {tflite::BuiltinOperator_CONV_2D, tflite::BuiltinOperator_DEPTHWISE_CONV_2D}) {
    SCOPED_TRACE(tflite::EnumNameBuiltinOperator(op));
    const bool conv = op == tflite::BuiltinOperator_CONV_2D;
    ModelBuilder::OptionsWriter options;
    if (conv) {
      options = ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_VALID, 1, 1));
    } else {
      options = ER_OPTIONS(tflite::CreateDepthwiseConv2DOptions(fbb, tflite::Padding_VALID, 1, 1, 1));
    }
    const Bytes model = OneOp(op, TensorType::kFloat32, {181264129, 6373376, 0, 1},
                              Const(TensorType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1}),
                              conv ? tflite::BuiltinOptions_Conv2DOptions : tflite::BuiltinOptions_DepthwiseConv2DOptions,
                              std::move(options));
    const Outcome outcome = RunLikeTheCli(model);
    EXPECT_EQ(outcome.phase, "ok") << outcome.message;
  }
  // Any op whose outputs are all empty is skipped by Invoke (Subgraph::MarkNodesWithNothingToCompute):
  // pooling over the same input would otherwise walk 10^15 empty rows.
  for (auto op : {tflite::BuiltinOperator_AVERAGE_POOL_2D, tflite::BuiltinOperator_MAX_POOL_2D,
                  tflite::BuiltinOperator_L2_POOL_2D}) {
    SCOPED_TRACE(tflite::EnumNameBuiltinOperator(op));
    const Bytes model = OneOp(op, TensorType::kFloat32, {181264129, 6373376, 0, 1}, [](ModelBuilder&) { return std::vector<int>{}; },
                              tflite::BuiltinOptions_Pool2DOptions,
                              ER_OPTIONS(tflite::CreatePool2DOptions(fbb, tflite::Padding_SAME, 1, 1, 2, 2)));
    const Outcome outcome = RunLikeTheCli(model);
    EXPECT_EQ(outcome.phase, "ok") << outcome.message;
  }
  // BATCH_MATMUL of 369098753 empty matrices: prepare made a per-batch index of 5.9 GB for an
  // empty output (fuzz_model). Nothing is computed, so nothing is made.
  const Bytes matmul = OneOp(tflite::BuiltinOperator_BATCH_MATMUL, TensorType::kFloat32, {369098753, 0, 4},
                             Const(TensorType::kFloat32, {1, 4, 3}, std::vector<float>(12, 1.0f)),
                             tflite::BuiltinOptions_BatchMatMulOptions,
                             ER_OPTIONS(tflite::CreateBatchMatMulOptions(fbb, false, false)));
  const Outcome outcome = RunLikeTheCli(matmul);
  EXPECT_EQ(outcome.phase, "ok") << outcome.message;
  // LOCAL_RESPONSE_NORMALIZATION sized its scratch from the depth of an empty input: 8 GB for
  // [0,1,1,2147483647] (fuzz_graph, round 10). REVERSE_V2's index maps, the same way.
  const Bytes lrn = OneOp(tflite::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION, TensorType::kFloat32,
                          {0, 1, 1, 2147483647}, [](ModelBuilder&) { return std::vector<int>{}; },
                          tflite::BuiltinOptions_LocalResponseNormalizationOptions,
                          ER_OPTIONS(tflite::CreateLocalResponseNormalizationOptions(fbb, 2, 1.0f, 1.0f, 0.5f)));
  const Outcome lrn_outcome = RunLikeTheCli(lrn);
  EXPECT_EQ(lrn_outcome.phase, "ok") << lrn_outcome.message;
  const Bytes reverse = OneOp(tflite::BuiltinOperator_REVERSE_V2, TensorType::kFloat32, {0, 2147483647},
                              Const(TensorType::kInt32, {1}, std::vector<int32_t>{1}));
  const Outcome reverse_outcome = RunLikeTheCli(reverse);
  EXPECT_EQ(reverse_outcome.phase, "ok") << reverse_outcome.message;
}

TEST(Hostile, NodesWithOnlyEmptyOutputsDoNotRun) {
  // Subgraph::MarkNodesWithNothingToCompute: a node whose outputs are all empty is skipped, so no
  // kernel can spend time on empty loops; the same model with a real shape runs its node.
  struct CountingProfiler : Profiler {
    int nodes = 0;
    void OnNodeBegin(int, int, const std::string&) override { ++nodes; }
    void OnNodeEnd(int, int, const std::string&) override {}
  };
  for (const Shape& shape : {Shape{0, 4}, Shape{3, 4}}) {
    const Bytes bytes = SimpleAdd(shape);
    auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
    ASSERT_TRUE(model.ok());
    InterpreterOptions options;
    options.use_xnnpack = false;
    auto interpreter = Interpreter::Create(*model, options);
    ASSERT_TRUE(interpreter.ok());
    ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
    CountingProfiler profiler;
    (*interpreter)->SetProfiler(&profiler);
    ASSERT_TRUE((*interpreter)->Invoke().ok());
    EXPECT_EQ(profiler.nodes, shape[0] == 0 ? 0 : 1) << ShapeToString(shape);
  }
}

TEST(Hostile, LimitsAreOptions) {
  // The same file runs with a larger budget: the limits are the caller's choice.
  InterpreterOptions options;
  options.max_tensor_bytes = 1024;
  const Bytes bytes = SimpleAdd({1, 512});
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  auto small = Interpreter::Create(*model, options);
  ASSERT_TRUE(small.ok());
  const Status st = (*small)->AllocateTensors();
  EXPECT_NE(st.message().find("max_tensor_bytes"), std::string::npos) << st.message();
  auto large = Interpreter::Create(*model);
  ASSERT_TRUE(large.ok());
  EXPECT_TRUE((*large)->AllocateTensors().ok());
}

TEST(Hostile, SubgraphNestingIsAnOption) {
  const Bytes bytes = CallChain(10);
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ((*model)->subgraph_nesting(), 10);
  InterpreterOptions options;
  options.max_subgraph_depth = 5;
  auto interpreter = Interpreter::Create(*model, options);
  ASSERT_FALSE(interpreter.ok());
  EXPECT_NE(interpreter.status().message().find("max_subgraph_depth"), std::string::npos)
      << interpreter.status().message();
}

TEST(Hostile, TensorsSizedAtRunTimeShareTheMemoryBudget) {
  // Six FILLs with dims computed at run time (dims + zeros), 0.9 MB each: every one is under
  // max_tensor_bytes, together they are over max_arena_bytes.
  ModelBuilder b;
  const int zeros = b.AddTensor("zeros", TensorType::kInt32, {1});
  const int base = b.AddConstant("base", TensorType::kInt32, {1}, std::vector<int32_t>{225000});
  const int dims = b.AddTensor("dims", TensorType::kInt32, {1});
  b.AddOp(tflite::BuiltinOperator_ADD, {base, zeros}, {dims});
  const int value = b.AddConstant("value", TensorType::kFloat32, {}, std::vector<float>{1});
  std::vector<int> outputs;
  for (int i = 0; i < 6; ++i) {
    outputs.push_back(b.AddTensor("y" + std::to_string(i), TensorType::kFloat32, {}));
    b.AddOp(tflite::BuiltinOperator_FILL, {dims, value}, {outputs.back()});
  }
  b.SetInputs({zeros});
  b.SetOutputs(outputs);
  const Bytes bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  InterpreterOptions options;
  options.max_tensor_bytes = 1 << 20;
  options.max_arena_bytes = 4 << 20;
  auto interpreter = Interpreter::Create(*model, options);
  ASSERT_TRUE(interpreter.ok());
  ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
  std::memset((*interpreter)->input(0)->data, 0, 4);
  const Status st = (*interpreter)->Invoke();
  EXPECT_NE(st.message().find("max_arena_bytes"), std::string::npos) << st.message();
  // With room for all six it runs.
  options.max_arena_bytes = 8 << 20;
  auto roomy = Interpreter::Create(*model, options);
  ASSERT_TRUE(roomy.ok());
  ASSERT_TRUE((*roomy)->AllocateTensors().ok());
  std::memset((*roomy)->input(0)->data, 0, 4);
  EXPECT_TRUE((*roomy)->Invoke().ok());
}

TEST(Hostile, MirrorPadOfAnEmptyTensorWithAHugeDimensionIsQuick) {
  // Fuzz finding (fuzz_invoke timeout): MIRROR_PAD built an index map per output dimension
  // before looking at the output's size; here [0, 2^30] -> [0, 1.5 * 2^30] would need 1.6e9 entries.
  const Bytes bytes = OneOp(tflite::BuiltinOperator_MIRROR_PAD, TensorType::kFloat32, {0, 1 << 30},
                            Const(TensorType::kInt32, {2, 2}, std::vector<int32_t>{0, 0, 1 << 29, 0}),
                            tflite::BuiltinOptions_MirrorPadOptions,
                            ER_OPTIONS(tflite::CreateMirrorPadOptions(fbb, tflite::MirrorPadMode_SYMMETRIC)));
  const Outcome outcome = RunLikeTheCli(bytes);
  EXPECT_EQ(outcome.phase, "ok") << outcome.message;
}

TEST(Hostile, SparseConstantThatIsValidLoads) {
  // [[1, 0], [0, 2]] in CSR: the loader accepts correct metadata.
  const Bytes bytes = SparseConstant({2, 2}, {1, 2}, Csr(2, {0, 1, 2}, {0, 1}));
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().message();
}

TEST(Hostile, CallChainWithinTheLimitLoads) {
  const Bytes bytes = CallChain(10);
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().message();
}

// Writes the cases as tests/corpus/invalid; run by hand when cases change:
//   EDGERUN_CORPUS_OUT=tests/corpus/invalid build/tests/edgerun_tests
//     --gtest_also_run_disabled_tests --gtest_filter='Hostile.DISABLED_WriteCorpus'
// expected.txt lists "FILE PHASE MESSAGE-SUBSTRING" per line.
TEST(Hostile, DISABLED_WriteCorpus) {
  const char* out = std::getenv("EDGERUN_CORPUS_OUT");
  ASSERT_NE(out, nullptr) << "set EDGERUN_CORPUS_OUT to the folder to write";
  std::ofstream list(std::string(out) + "/expected.txt");
  list << "# file phase expected-message-substring (written by Hostile.DISABLED_WriteCorpus in "
          "tests/hostile_test.cc)\n";
  std::vector<HostileCase> all = PatchedCases();
  for (auto& c : DamagedCases()) all.push_back(c);
  for (auto& c : BitFlipCases(12)) all.push_back(c);
  for (const HostileCase& c : all) {
    const Bytes bytes = c.make();
    std::ofstream(std::string(out) + "/" + c.name + ".tflite", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    list << c.name << ".tflite " << c.phase << " " << c.expected << "\n";
  }
}

}  // namespace
}  // namespace edgerun
