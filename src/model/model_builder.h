// ModelBuilder: writes valid .tflite files from C++. Tests use it to make single-op models;
// tools use it for synthetic networks. Several subgraphs, signatures and metadata are supported.
//
//   ModelBuilder b;
//   int x = b.AddTensor("x", TensorType::kFloat32, {1, 4});
//   int y = b.AddTensor("y", TensorType::kFloat32, {1, 4});
//   b.AddOp(tflite::BuiltinOperator_RELU, {x}, {y});
//   b.SetInputs({x});
//   b.SetOutputs({y});
//   std::vector<uint8_t> file = b.Finish();
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "edgerun/tensor.h"
#include "edgerun/types.h"
#include "tflite_generated.h"

namespace edgerun {

class ModelBuilder {
 public:
  // Writes an op's builtin options into the FlatBuffer being built.
  using OptionsWriter = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

  ModelBuilder();

  // Subgraph 0 exists from the start; AddSubgraph adds another and makes it current.
  int AddSubgraph(std::string name = "");
  void SetSubgraph(int index) { current_ = index; }
  int subgraph() const { return current_; }

  int AddTensor(std::string name, TensorType type, Shape shape, QuantizationParams quantization = {},
                Shape shape_signature = {});
  int AddConstant(std::string name, TensorType type, Shape shape, const void* data, size_t bytes,
                  QuantizationParams quantization = {});
  template <class T>
  int AddConstant(std::string name, TensorType type, Shape shape, const std::vector<T>& values,
                  QuantizationParams quantization = {}) {
    return AddConstant(std::move(name), type, std::move(shape), values.data(), values.size() * sizeof(T),
                       std::move(quantization));
  }
  int AddVariable(std::string name, TensorType type, Shape shape, QuantizationParams quantization = {});
  // Makes a constant sparse: `writer` builds its SparsityParameters (the buffer then holds only
  // the stored values).
  using SparsityWriter =
      std::function<flatbuffers::Offset<tflite::SparsityParameters>(flatbuffers::FlatBufferBuilder&)>;
  void SetSparsity(int tensor, SparsityWriter writer);

  // A builtin op. `options_type` names the union member written by `options`.
  void AddOp(tflite::BuiltinOperator op, std::vector<int> inputs, std::vector<int> outputs,
             tflite::BuiltinOptions options_type = tflite::BuiltinOptions_NONE, OptionsWriter options = nullptr,
             int version = 1, std::vector<int> intermediates = {});
  // An op whose options live in the second options union (STABLEHLO_*, DILATE, ...).
  void AddOp2(tflite::BuiltinOperator op, std::vector<int> inputs, std::vector<int> outputs,
              tflite::BuiltinOptions2 options_type, OptionsWriter options, int version = 1);
  void AddCustomOp(std::string custom_code, std::vector<int> inputs, std::vector<int> outputs,
                   std::vector<uint8_t> custom_options = {}, int version = 1);

  void SetInputs(std::vector<int> inputs);
  void SetOutputs(std::vector<int> outputs);

  void AddSignature(std::string key, int subgraph, std::vector<std::pair<std::string, int>> inputs,
                    std::vector<std::pair<std::string, int>> outputs);
  void AddMetadata(std::string name, std::vector<uint8_t> bytes);
  void SetDescription(std::string description) { description_ = std::move(description); }
  void SetVersion(uint32_t version) { version_ = version; }

  std::vector<uint8_t> Finish();

 private:
  struct TensorDef {
    std::string name;
    TensorType type;
    Shape shape, shape_signature;
    QuantizationParams quantization;
    uint32_t buffer = 0;
    bool is_variable = false;
    SparsityWriter sparsity = nullptr;
  };
  struct OpDef {
    int32_t builtin_code;
    std::string custom_code;
    int version;
    std::vector<int> inputs, outputs, intermediates;
    tflite::BuiltinOptions options_type = tflite::BuiltinOptions_NONE;
    tflite::BuiltinOptions2 options2_type = tflite::BuiltinOptions2_NONE;
    OptionsWriter options;
    std::vector<uint8_t> custom_options;
  };
  struct SubgraphDef {
    std::string name;
    std::vector<TensorDef> tensors;
    std::vector<OpDef> ops;
    std::vector<int> inputs, outputs;
  };
  struct SignatureDef {
    std::string key;
    int subgraph;
    std::vector<std::pair<std::string, int>> inputs, outputs;
  };

  std::vector<SubgraphDef> subgraphs_;
  std::vector<std::vector<uint8_t>> buffers_;  // buffers_[0] is the empty sentinel
  std::vector<SignatureDef> signatures_;
  std::vector<std::pair<std::string, uint32_t>> metadata_;
  std::string description_ = "edgerun ModelBuilder";
  uint32_t version_ = 3;
  int current_ = 0;
};

}  // namespace edgerun
