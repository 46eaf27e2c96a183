#include "model/model_builder.h"

#include <tuple>

namespace edgerun {

ModelBuilder::ModelBuilder() {
  subgraphs_.emplace_back();
  buffers_.emplace_back();
}

int ModelBuilder::AddSubgraph(std::string name) {
  subgraphs_.emplace_back();
  subgraphs_.back().name = std::move(name);
  current_ = static_cast<int>(subgraphs_.size()) - 1;
  return current_;
}

int ModelBuilder::AddTensor(std::string name, TensorType type, Shape shape, QuantizationParams quantization,
                            Shape shape_signature) {
  auto& tensors = subgraphs_[current_].tensors;
  tensors.push_back({std::move(name), type, std::move(shape), std::move(shape_signature), std::move(quantization)});
  return static_cast<int>(tensors.size()) - 1;
}

int ModelBuilder::AddConstant(std::string name, TensorType type, Shape shape, const void* data, size_t bytes,
                              QuantizationParams quantization) {
  const int index = AddTensor(std::move(name), type, std::move(shape), std::move(quantization));
  const auto* p = static_cast<const uint8_t*>(data);
  buffers_.emplace_back(p, p + bytes);
  subgraphs_[current_].tensors[index].buffer = static_cast<uint32_t>(buffers_.size()) - 1;
  return index;
}

int ModelBuilder::AddVariable(std::string name, TensorType type, Shape shape, QuantizationParams quantization) {
  const int index = AddTensor(std::move(name), type, std::move(shape), std::move(quantization));
  subgraphs_[current_].tensors[index].is_variable = true;
  return index;
}

void ModelBuilder::SetSparsity(int tensor, SparsityWriter writer) {
  subgraphs_[current_].tensors[tensor].sparsity = std::move(writer);
}

void ModelBuilder::AddOp(tflite::BuiltinOperator op, std::vector<int> inputs, std::vector<int> outputs,
                         tflite::BuiltinOptions options_type, OptionsWriter options, int version,
                         std::vector<int> intermediates) {
  OpDef def;
  def.builtin_code = op;
  def.version = version;
  def.inputs = std::move(inputs);
  def.outputs = std::move(outputs);
  def.intermediates = std::move(intermediates);
  def.options_type = options_type;
  def.options = std::move(options);
  subgraphs_[current_].ops.push_back(std::move(def));
}

void ModelBuilder::AddOp2(tflite::BuiltinOperator op, std::vector<int> inputs, std::vector<int> outputs,
                          tflite::BuiltinOptions2 options_type, OptionsWriter options, int version) {
  OpDef def;
  def.builtin_code = op;
  def.version = version;
  def.inputs = std::move(inputs);
  def.outputs = std::move(outputs);
  def.options2_type = options_type;
  def.options = std::move(options);
  subgraphs_[current_].ops.push_back(std::move(def));
}

void ModelBuilder::AddCustomOp(std::string custom_code, std::vector<int> inputs, std::vector<int> outputs,
                               std::vector<uint8_t> custom_options, int version) {
  OpDef def;
  def.builtin_code = tflite::BuiltinOperator_CUSTOM;
  def.custom_code = std::move(custom_code);
  def.version = version;
  def.inputs = std::move(inputs);
  def.outputs = std::move(outputs);
  def.custom_options = std::move(custom_options);
  subgraphs_[current_].ops.push_back(std::move(def));
}

void ModelBuilder::SetInputs(std::vector<int> inputs) { subgraphs_[current_].inputs = std::move(inputs); }
void ModelBuilder::SetOutputs(std::vector<int> outputs) { subgraphs_[current_].outputs = std::move(outputs); }

void ModelBuilder::AddSignature(std::string key, int subgraph, std::vector<std::pair<std::string, int>> inputs,
                                std::vector<std::pair<std::string, int>> outputs) {
  signatures_.push_back({std::move(key), subgraph, std::move(inputs), std::move(outputs)});
}

void ModelBuilder::AddMetadata(std::string name, std::vector<uint8_t> bytes) {
  buffers_.push_back(std::move(bytes));
  metadata_.emplace_back(std::move(name), static_cast<uint32_t>(buffers_.size()) - 1);
}

std::vector<uint8_t> ModelBuilder::Finish() {
  flatbuffers::FlatBufferBuilder fbb;
  // Operator codes: one per (code, custom name, version).
  std::map<std::tuple<int32_t, std::string, int>, uint32_t> code_index;
  std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
  for (auto& sg : subgraphs_) {
    for (auto& op : sg.ops) {
      const auto key = std::make_tuple(op.builtin_code, op.custom_code, op.version);
      if (code_index.count(key)) continue;
      code_index[key] = static_cast<uint32_t>(codes.size());
      const int8_t deprecated = static_cast<int8_t>(
          std::min<int32_t>(op.builtin_code, tflite::BuiltinOperator_PLACEHOLDER_FOR_GREATER_OP_CODES));
      codes.push_back(tflite::CreateOperatorCode(fbb, deprecated,
                                                 op.custom_code.empty() ? 0 : fbb.CreateString(op.custom_code),
                                                 op.version, static_cast<tflite::BuiltinOperator>(op.builtin_code)));
    }
  }

  std::vector<flatbuffers::Offset<tflite::SubGraph>> subgraphs;
  for (auto& sg : subgraphs_) {
    std::vector<flatbuffers::Offset<tflite::Tensor>> tensors;
    for (auto& t : sg.tensors) {
      flatbuffers::Offset<tflite::QuantizationParameters> q = 0;
      if (!t.quantization.empty()) {
        q = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(t.quantization.scale.data(), t.quantization.scale.size()),
                                                 fbb.CreateVector(t.quantization.zero_point.data(), t.quantization.zero_point.size()),
                                                 tflite::QuantizationDetails_NONE, 0,
                                                 t.quantization.quantized_dimension);
      }
      const auto shape = fbb.CreateVector(t.shape);
      const auto signature = t.shape_signature.empty() ? 0 : fbb.CreateVector(t.shape_signature);
      const auto sparsity = t.sparsity ? t.sparsity(fbb) : 0;
      tensors.push_back(tflite::CreateTensor(fbb, shape, static_cast<tflite::TensorType>(t.type), t.buffer,
                                             fbb.CreateString(t.name), q, t.is_variable, sparsity, signature));
    }
    std::vector<flatbuffers::Offset<tflite::Operator>> ops;
    for (auto& op : sg.ops) {
      const uint32_t opcode = code_index[std::make_tuple(op.builtin_code, op.custom_code, op.version)];
      flatbuffers::Offset<void> options = 0, options2 = 0;
      if (op.options && op.options2_type != tflite::BuiltinOptions2_NONE) options2 = op.options(fbb);
      else if (op.options) options = op.options(fbb);
      const auto inputs = fbb.CreateVector(op.inputs);
      const auto outputs = fbb.CreateVector(op.outputs);
      const auto custom = op.custom_options.empty() ? 0 : fbb.CreateVector(op.custom_options);
      const auto intermediates = op.intermediates.empty() ? 0 : fbb.CreateVector(op.intermediates);
      tflite::OperatorBuilder ob(fbb);
      ob.add_opcode_index(opcode);
      ob.add_inputs(inputs);
      ob.add_outputs(outputs);
      if (op.options_type != tflite::BuiltinOptions_NONE) {
        ob.add_builtin_options_type(op.options_type);
        ob.add_builtin_options(options);
      }
      if (op.options2_type != tflite::BuiltinOptions2_NONE) {
        ob.add_builtin_options_2_type(op.options2_type);
        ob.add_builtin_options_2(options2);
      }
      if (!op.custom_options.empty()) ob.add_custom_options(custom);
      if (!op.intermediates.empty()) ob.add_intermediates(intermediates);
      ops.push_back(ob.Finish());
    }
    subgraphs.push_back(tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(sg.inputs),
                                               fbb.CreateVector(sg.outputs), fbb.CreateVector(ops),
                                               sg.name.empty() ? 0 : fbb.CreateString(sg.name)));
  }

  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers;
  for (auto& b : buffers_) {
    if (b.empty()) {
      buffers.push_back(tflite::CreateBuffer(fbb));
    } else {
      fbb.ForceVectorAlignment(b.size(), 1, 16);
      buffers.push_back(tflite::CreateBuffer(fbb, fbb.CreateVector(b)));
    }
  }
  std::vector<flatbuffers::Offset<tflite::SignatureDef>> signatures;
  for (auto& s : signatures_) {
    auto maps = [&](const std::vector<std::pair<std::string, int>>& list) {
      std::vector<flatbuffers::Offset<tflite::TensorMap>> out;
      for (const auto& [name, index] : list) {
        out.push_back(tflite::CreateTensorMap(fbb, fbb.CreateString(name), static_cast<uint32_t>(index)));
      }
      return fbb.CreateVector(out);
    };
    const auto ins = maps(s.inputs);
    const auto outs = maps(s.outputs);
    signatures.push_back(tflite::CreateSignatureDef(fbb, ins, outs, fbb.CreateString(s.key),
                                                    static_cast<uint32_t>(s.subgraph)));
  }
  std::vector<flatbuffers::Offset<tflite::Metadata>> metadata;
  for (auto& [name, buffer] : metadata_) metadata.push_back(tflite::CreateMetadata(fbb, fbb.CreateString(name), buffer));

  const auto model = tflite::CreateModel(
      fbb, version_, fbb.CreateVector(codes), fbb.CreateVector(subgraphs), fbb.CreateString(description_),
      fbb.CreateVector(buffers), 0, metadata.empty() ? 0 : fbb.CreateVector(metadata),
      signatures.empty() ? 0 : fbb.CreateVector(signatures));
  tflite::FinishModelBuffer(fbb, model);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace edgerun
