// Fuzz target 3: the builder writes a random graph -- random builtin ops and versions, random
// tensor types, shapes, quantization and constant data, random op options (every field of the
// options table, through the schema's reflection data), sometimes extra subgraphs for control
// flow and a signature. The file is valid FlatBuffers by construction; the interpreter must run
// it or reject it with an error. Set EDGERUN_FUZZ_DUMP=FILE to write the graph of one input.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "flatbuffers/flexbuffers.h"
#include "flatbuffers/reflection_generated.h"
#include "fuzz/fuzz_util.h"
#include "model/model_builder.h"
#include "ops/registry.h"
#include "tflite_bfbs_generated.h"
#include "tools/tensor_io.h"

namespace edgerun::fuzz {
namespace {

// The fuzz input read as a stream of choices; zeros once it runs out.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t Below(uint32_t n) {  // [0, n)
    if (n <= 1) return 0;
    uint32_t v = Byte();
    if (n > 256) v = (v << 8) | Byte();
    if (n > 65536) v = (v << 16) | Byte() << 8 | Byte();
    return v % n;
  }
  bool OneIn(uint32_t n) { return Below(n) == 0; }
  uint32_t Raw32() {
    return uint32_t{Byte()} | uint32_t{Byte()} << 8 | uint32_t{Byte()} << 16 | uint32_t{Byte()} << 24;
  }
  // Mostly small integers (sizes, axes, indices), sometimes the edges of the type.
  int64_t Int() {
    switch (Below(16)) {
      case 10:
        return -1;
      case 11:
        return -2 - static_cast<int64_t>(Below(4));
      case 12:
        return Below(64);
      case 13:
        return std::numeric_limits<int32_t>::max() - static_cast<int64_t>(Below(2));
      case 14:
        return std::numeric_limits<int32_t>::min();
      case 15:
        return static_cast<int32_t>(Raw32());
      default:
        return Below(5);
    }
  }
  float Float() {
    switch (Below(12)) {
      case 0:
        return 0.0f;
      case 1:
        return 1.0f;
      case 2:
        return -1.0f;
      case 3:
        return 0.5f;
      case 5:
        return 1e-3f;
      case 6:
        return 128.0f;
      case 7:
        return std::numeric_limits<float>::quiet_NaN();
      case 8:
        return std::numeric_limits<float>::infinity();
      case 9:
        return 1e30f;
      case 10:
        return -0.0f;
      case 11: {
        const uint32_t bits = Raw32();
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
      }
      default:
        return static_cast<float>(static_cast<int>(Below(65)) - 32) / 8.0f;
    }
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

constexpr TensorType kTypes[] = {
    TensorType::kFloat32, TensorType::kFloat32,  TensorType::kFloat32,   TensorType::kFloat32, TensorType::kFloat32,
    TensorType::kInt32,   TensorType::kInt32,    TensorType::kInt32,     TensorType::kInt8,    TensorType::kInt8,
    TensorType::kInt8,    TensorType::kUInt8,    TensorType::kUInt8,     TensorType::kInt16,   TensorType::kInt16,
    TensorType::kInt64,   TensorType::kInt64,    TensorType::kBool,      TensorType::kBool,    TensorType::kFloat16,
    TensorType::kFloat64, TensorType::kString,   TensorType::kComplex64, TensorType::kUInt16,  TensorType::kUInt32,
    TensorType::kInt4,    TensorType::kBFloat16, TensorType::kResource,  TensorType::kVariant, TensorType::kUInt64,
};

std::string Normalize(std::string name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Which options table each builtin op reads: by name ("CONV_2D" -> Conv2DOptions) with TFLite's
// exceptions. Unknown ones get random options.
struct OptionsChoice {
  tflite::BuiltinOptions type1 = tflite::BuiltinOptions_NONE;
  tflite::BuiltinOptions2 type2 = tflite::BuiltinOptions2_NONE;
};

class Schema {
 public:
  Schema() : schema_(reflection::GetSchema(tflite::ModelBinarySchema::data())) {
    std::map<std::string, int> by_name1, by_name2;
    for (int v = 1; v <= tflite::BuiltinOptions_MAX; ++v) {
      std::string n = tflite::EnumNameBuiltinOptions(static_cast<tflite::BuiltinOptions>(v));
      if (n.size() > 7 && n.ends_with("Options")) n.resize(n.size() - 7);
      by_name1[Normalize(n)] = v;
    }
    for (int v = 1; v <= tflite::BuiltinOptions2_MAX; ++v) {
      std::string n = tflite::EnumNameBuiltinOptions2(static_cast<tflite::BuiltinOptions2>(v));
      if (n.size() > 7 && n.ends_with("Options")) n.resize(n.size() - 7);
      by_name2[Normalize(n)] = v;
    }
    const std::map<std::string, std::string> exceptions = {
        {"maxpool2d", "pool2d"},
        {"averagepool2d", "pool2d"},
        {"l2pool2d", "pool2d"},
        {"mean", "reducer"},
        {"sum", "reducer"},
        {"reducemax", "reducer"},
        {"reducemin", "reducer"},
        {"reduceprod", "reducer"},
        {"reduceany", "reducer"},
        {"reduceall", "reducer"},
        {"maximum", "maximumminimum"},
        {"minimum", "maximumminimum"},
        {"randomuniform", "random"},
        {"randomstandardnormal", "random"},
        {"multinomial", "random"},
        {"l2normalization", "l2norm"},
        {"unidirectionalsequencernn", "sequencernn"},
        {"conv3dtranspose", "conv3d"},
        {"unidirectionalsequencelstm", "unidirectionalsequencelstm"},
    };
    for (const OpRegistration& r : ops::BuiltinRegistrations()) {
      ops_.push_back(&r);
      std::string n = Normalize(r.name);
      if (auto e = exceptions.find(n); e != exceptions.end()) n = e->second;
      OptionsChoice c;
      if (auto it = by_name1.find(n); it != by_name1.end()) c.type1 = static_cast<tflite::BuiltinOptions>(it->second);
      if (auto it = by_name2.find(n); it != by_name2.end()) c.type2 = static_cast<tflite::BuiltinOptions2>(it->second);
      options_[r.builtin_code] = c;
    }
  }
  const std::vector<const OpRegistration*>& ops() const { return ops_; }
  OptionsChoice options(int32_t code) const {
    auto it = options_.find(code);
    return it == options_.end() ? OptionsChoice{} : it->second;
  }
  // The table of a union member ("tflite.Conv2DOptions").
  const reflection::Object* Table(const char* union_name, int value) const {
    const reflection::Enum* e = schema_->enums()->LookupByKey(union_name);
    if (e == nullptr) return nullptr;
    const reflection::EnumVal* v = e->values()->LookupByKey(value);
    if (v == nullptr || v->union_type() == nullptr) return nullptr;
    const int index = v->union_type()->index();
    return index >= 0 ? schema_->objects()->Get(index) : nullptr;
  }
  const reflection::Enum* Enum(int index) const { return schema_->enums()->Get(index); }

 private:
  const reflection::Schema* schema_;
  std::vector<const OpRegistration*> ops_;
  std::map<int32_t, OptionsChoice> options_;
};

const Schema& GetSchema() {
  static const Schema schema;
  return schema;
}

// Writes a table of type `object` with random values in every scalar, string and scalar-vector
// field (enums mostly get one of their named values).
flatbuffers::Offset<void> RandomTable(flatbuffers::FlatBufferBuilder& fbb, const reflection::Object* object,
                                      Choices& in) {
  using reflection::BaseType;
  std::vector<std::pair<uint16_t, flatbuffers::uoffset_t>> offsets;
  for (const reflection::Field* field : *object->fields()) {
    const BaseType base = field->type()->base_type();
    if (field->deprecated() || in.OneIn(4)) continue;
    if (base == BaseType::String) {
      offsets.push_back({field->offset(), fbb.CreateString(std::string(in.Below(6), 'x')).o});
    } else if (base == BaseType::Vector) {
      const BaseType element = field->type()->element();
      const size_t n = in.OneIn(16) ? in.Below(40) : in.Below(6);
      flatbuffers::uoffset_t o = 0;
      switch (element) {
        case BaseType::Bool:
        case BaseType::UByte:
        case BaseType::Byte: {
          std::vector<uint8_t> v(n);
          for (auto& x : v) x = static_cast<uint8_t>(in.Int());
          o = fbb.CreateVector(v).o;
          break;
        }
        case BaseType::Int:
        case BaseType::UInt: {
          std::vector<int32_t> v(n);
          for (auto& x : v) x = static_cast<int32_t>(in.Int());
          o = fbb.CreateVector(v).o;
          break;
        }
        case BaseType::Long:
        case BaseType::ULong: {
          std::vector<int64_t> v(n);
          for (auto& x : v) x = in.Int();
          o = fbb.CreateVector(v).o;
          break;
        }
        case BaseType::Float: {
          std::vector<float> v(n);
          for (auto& x : v) x = in.Float();
          o = fbb.CreateVector(v).o;
          break;
        }
        default:
          continue;
      }
      offsets.push_back({field->offset(), o});
    }
  }
  const flatbuffers::uoffset_t start = fbb.StartTable();
  for (const reflection::Field* field : *object->fields()) {
    if (field->deprecated() || in.OneIn(4)) continue;
    const BaseType base = field->type()->base_type();
    int64_t i = in.Int();
    if (field->type()->index() >= 0 && base <= BaseType::ULong && !in.OneIn(8)) {
      const auto* values = GetSchema().Enum(field->type()->index())->values();
      i = values->Get(in.Below(values->size()))->value();
    }
    const uint16_t at = field->offset();
    switch (base) {
      case BaseType::Bool:
        fbb.AddElement<uint8_t>(at, static_cast<uint8_t>(i & 1), 0);
        break;
      case BaseType::Byte:
        fbb.AddElement<int8_t>(at, static_cast<int8_t>(i), 0);
        break;
      case BaseType::UByte:
        fbb.AddElement<uint8_t>(at, static_cast<uint8_t>(i), 0);
        break;
      case BaseType::Short:
        fbb.AddElement<int16_t>(at, static_cast<int16_t>(i), 0);
        break;
      case BaseType::UShort:
        fbb.AddElement<uint16_t>(at, static_cast<uint16_t>(i), 0);
        break;
      case BaseType::Int:
        fbb.AddElement<int32_t>(at, static_cast<int32_t>(i), 0);
        break;
      case BaseType::UInt:
        fbb.AddElement<uint32_t>(at, static_cast<uint32_t>(i), 0);
        break;
      case BaseType::Long:
        fbb.AddElement<int64_t>(at, i, 0);
        break;
      case BaseType::ULong:
        fbb.AddElement<uint64_t>(at, static_cast<uint64_t>(i), 0);
        break;
      case BaseType::Float:
        fbb.AddElement<float>(at, in.Float(), 0.0f);
        break;
      case BaseType::Double:
        fbb.AddElement<double>(at, in.Float(), 0.0);
        break;
      default:
        break;
    }
  }
  for (const auto& [at, offset] : offsets) fbb.AddOffset(at, flatbuffers::Offset<void>(offset));
  return flatbuffers::Offset<void>(fbb.EndTable(start));
}

class GraphWriter {
 public:
  explicit GraphWriter(Choices& in) : in_(in) {}

  std::vector<uint8_t> Write() {
    const int num_subgraphs = 1 + (in_.OneIn(3) ? 1 + static_cast<int>(in_.Below(3)) : 0);
    for (int s = 0; s < num_subgraphs; ++s) {
      if (s > 0) b_.AddSubgraph("sub" + std::to_string(s));
      WriteSubgraph(num_subgraphs);
    }
    b_.SetSubgraph(0);
    if (in_.OneIn(8)) {
      b_.AddSignature("serving_default", static_cast<int>(in_.Below(num_subgraphs)), {{"x", 0}}, {{"y", 0}});
    }
    return b_.Finish();
  }

 private:
  TensorType Type() { return kTypes[in_.Below(sizeof(kTypes) / sizeof(kTypes[0]))]; }

  Shape RandomShape() {
    const int rank = in_.OneIn(32) ? 5 + static_cast<int>(in_.Below(3)) : static_cast<int>(in_.Below(5));
    Shape shape(rank);
    for (auto& d : shape) {
      if (in_.OneIn(16))
        d = 0;
      else if (in_.OneIn(64))
        d = in_.OneIn(2) ? 1000 : std::numeric_limits<int32_t>::max();
      else
        d = 1 + static_cast<int32_t>(in_.Below(4));
    }
    return shape;
  }

  QuantizationParams Quantization(TensorType type, const Shape& shape) {
    QuantizationParams q;
    const bool integer = type == TensorType::kInt8 || type == TensorType::kUInt8 || type == TensorType::kInt16 ||
                         type == TensorType::kInt32 || type == TensorType::kInt4 || type == TensorType::kInt64;
    if (!integer || in_.OneIn(4)) return q;
    static constexpr float kScales[] = {1.0f / 256, 1.0f / 128, 0.05f, 0.5f, 1.0f, 2.0f, 1e-6f, 1e6f};
    size_t n = 1;
    if (!shape.empty() && in_.OneIn(6)) {
      q.quantized_dimension = static_cast<int32_t>(in_.Below(static_cast<uint32_t>(shape.size())));
      n = static_cast<size_t>(std::max(1, std::min(shape[q.quantized_dimension], 64)));
    }
    for (size_t i = 0; i < n; ++i) {
      q.scale.push_back(in_.OneIn(16) ? in_.Float() : kScales[in_.Below(8)]);
      int64_t zp = 0;
      if (type == TensorType::kUInt8)
        zp = 128 + static_cast<int64_t>(in_.Below(9)) - 4;
      else if (type == TensorType::kInt8)
        zp = static_cast<int64_t>(in_.Below(9)) - 4;
      if (in_.OneIn(32)) zp = in_.Int();
      q.zero_point.push_back(zp);
    }
    return q;
  }

  int NewInput() {
    const TensorType type = Type();
    Shape shape = RandomShape();
    Shape signature;
    if (!shape.empty() && in_.OneIn(8)) {
      signature = shape;
      signature[in_.Below(static_cast<uint32_t>(shape.size()))] = -1;
    }
    const int t = b_.AddTensor(Name("in"), type, shape, Quantization(type, shape), signature);
    inputs_.push_back(t);
    return Track(t, type, shape);
  }

  int NewConstant() {
    const TensorType type = Type();
    const Shape shape = RandomShape();
    const QuantizationParams q = Quantization(type, shape);
    if (in_.OneIn(16)) return Track(b_.AddVariable(Name("var"), type, shape, q), type, shape);
    const int64_t n = NumElements(shape);
    if (n < 0 || n > 4096) return NewInput();
    std::vector<uint8_t> bytes;
    if (type == TensorType::kString) {
      std::vector<std::string> strings(static_cast<size_t>(n));
      for (auto& s : strings) s.assign(in_.Below(5), 'a');
      bytes = WriteStringTensor(strings);
    } else {
      size_t size = 0;
      if (!TensorBytes(type, n, &size)) return NewInput();
      bytes.resize(size);
      const size_t element = std::max<size_t>(1, TensorTypeSize(type));
      for (size_t at = 0; at + element <= size; at += element) {
        if (type == TensorType::kFloat32) {
          const float f = in_.Float();
          std::memcpy(&bytes[at], &f, 4);
        } else if (type == TensorType::kBool) {
          bytes[at] = in_.Below(2);
        } else {
          const int64_t v = in_.Int();
          std::memcpy(&bytes[at], &v, std::min<size_t>(element, 8));
        }
      }
      if (element == 1 && TensorTypeSize(type) == 0) {
        for (auto& x : bytes) x = in_.Byte();  // packed sub-byte types
      }
    }
    return Track(b_.AddConstant(Name("const"), type, shape, bytes.data(), bytes.size(), q), type, shape);
  }

  // TFLite_Detection_PostProcess, the custom op converted detectors carry, with random options.
  void AddDetectionPostProcess() {
    flexbuffers::Builder fb;
    fb.Map([&] {
      for (const char* key : {"max_detections", "max_classes_per_detection", "detections_per_class", "num_classes"}) {
        if (!in_.OneIn(8)) fb.Int(key, in_.Int());
      }
      for (const char* key : {"nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale", "h_scale", "w_scale"}) {
        if (!in_.OneIn(8)) fb.Float(key, in_.Float());
      }
      if (in_.OneIn(2)) fb.Bool("use_regular_nms", in_.OneIn(2));
    });
    fb.Finish();
    std::vector<uint8_t> options = fb.GetBuffer();
    if (in_.OneIn(16) && !options.empty()) options[in_.Below(static_cast<uint32_t>(options.size()))] ^= in_.Byte();
    const int anchors = static_cast<int>(1 + in_.Below(6));
    const int classes = static_cast<int>(1 + in_.Below(4));
    const int boxes = NewTypedInput(TensorType::kFloat32, {1, anchors, 4});
    const int scores = NewTypedInput(TensorType::kFloat32, {1, anchors, classes});
    std::vector<float> anchor_values(static_cast<size_t>(anchors) * 4);
    for (auto& v : anchor_values) v = in_.Float();
    const int anchor_tensor = Track(b_.AddConstant(Name("anchors"), TensorType::kFloat32, {anchors, 4}, anchor_values),
                                    TensorType::kFloat32, {anchors, 4});
    std::vector<int> outputs;
    for (int i = 0; i < 4; ++i)
      outputs.push_back(Track(b_.AddTensor(Name("det"), TensorType::kFloat32, {}), TensorType::kFloat32, {}));
    b_.AddCustomOp("TFLite_Detection_PostProcess", {boxes, scores, anchor_tensor}, outputs, options);
    for (int o : outputs) values_.push_back(o);
  }

  int NewTypedInput(TensorType type, Shape shape) {
    const int t = b_.AddTensor(Name("in"), type, shape);
    inputs_.push_back(t);
    return Track(t, type, shape);
  }

  void AddRandomOp(int num_subgraphs) {
    if (in_.OneIn(32)) return AddDetectionPostProcess();
    const Schema& schema = GetSchema();
    const OpRegistration& op = *schema.ops()[in_.Below(static_cast<uint32_t>(schema.ops().size()))];
    const int version = op.min_version + static_cast<int>(in_.Below(op.max_version - op.min_version + 1));
    int num_inputs = static_cast<int>(in_.Below(5));
    if (in_.OneIn(8)) num_inputs = static_cast<int>(in_.Below(25));
    std::vector<int> inputs;
    for (int i = 0; i < num_inputs; ++i) {
      const uint32_t kind = in_.Below(10);
      if (kind < 6 && !values_.empty())
        inputs.push_back(values_[in_.Below(static_cast<uint32_t>(values_.size()))]);
      else if (kind < 8)
        inputs.push_back(NewConstant());
      else if (kind == 8)
        inputs.push_back(-1);
      else
        inputs.push_back(NewInput());
    }
    const int num_outputs = 1 + (in_.OneIn(4) ? static_cast<int>(in_.Below(4)) : 0);
    std::vector<int> outputs;
    const int first = inputs.empty() ? -1 : inputs[0];
    for (int i = 0; i < num_outputs; ++i) {
      TensorType type = Type();
      Shape shape = RandomShape();
      if (first >= 0 && !in_.OneIn(3)) {
        type = types_[first];
        shape = shapes_[first];
      }
      outputs.push_back(Track(b_.AddTensor(Name("out"), type, shape, Quantization(type, shape)), type, shape));
    }
    OptionsChoice choice = schema.options(op.builtin_code);
    if (in_.OneIn(16)) {
      choice.type1 = static_cast<tflite::BuiltinOptions>(in_.Below(tflite::BuiltinOptions_MAX + 1));
      choice.type2 = tflite::BuiltinOptions2_NONE;
    }
    Choices& in = in_;
    const auto table1 =
        choice.type1 != tflite::BuiltinOptions_NONE ? schema.Table("tflite.BuiltinOptions", choice.type1) : nullptr;
    const auto table2 =
        choice.type2 != tflite::BuiltinOptions2_NONE ? schema.Table("tflite.BuiltinOptions2", choice.type2) : nullptr;
    (void)num_subgraphs;
    const auto code = static_cast<tflite::BuiltinOperator>(op.builtin_code);
    if (table2 != nullptr) {
      b_.AddOp2(
          code, inputs, outputs, choice.type2,
          [table2, &in](flatbuffers::FlatBufferBuilder& fbb) { return RandomTable(fbb, table2, in); }, version);
    } else if (table1 != nullptr) {
      b_.AddOp(
          code, inputs, outputs, choice.type1,
          [table1, &in](flatbuffers::FlatBufferBuilder& fbb) { return RandomTable(fbb, table1, in); }, version);
    } else {
      b_.AddOp(code, inputs, outputs, tflite::BuiltinOptions_NONE, nullptr, version);
    }
    for (int o : outputs) values_.push_back(o);
  }

  void WriteSubgraph(int num_subgraphs) {
    inputs_.clear();
    values_.clear();
    types_.clear();
    shapes_.clear();
    const int num_inputs = 1 + static_cast<int>(in_.Below(3));
    for (int i = 0; i < num_inputs; ++i) values_.push_back(NewInput());
    const int num_ops = 1 + static_cast<int>(in_.Below(4));
    for (int i = 0; i < num_ops; ++i) AddRandomOp(num_subgraphs);
    b_.SetInputs(inputs_);
    std::vector<int> outputs = {values_.back()};
    if (in_.OneIn(4)) outputs.push_back(values_[in_.Below(static_cast<uint32_t>(values_.size()))]);
    b_.SetOutputs(outputs);
  }

  std::string Name(const char* prefix) { return prefix + std::to_string(counter_++); }

  int Track(int t, TensorType type, Shape shape) {
    types_[t] = type;
    shapes_[t] = std::move(shape);
    return t;
  }

  Choices& in_;
  ModelBuilder b_;
  std::vector<int> inputs_, values_;
  std::map<int, TensorType> types_;
  std::map<int, Shape> shapes_;
  int counter_ = 0;
};

}  // namespace
}  // namespace edgerun::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgerun;
  fuzz::Choices choices(data, size);
  fuzz::GraphWriter writer(choices);
  const std::vector<uint8_t> bytes = writer.Write();
  if (const char* dump = std::getenv("EDGERUN_FUZZ_DUMP")) {
    if (FILE* f = std::fopen(dump, "wb")) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
  }
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "fuzz-graph");
  if (!model.ok()) return 0;
  auto interpreter = Interpreter::Create(*model, fuzz::FuzzOptions());
  if (!interpreter.ok()) return 0;
  fuzz::AllocateAndInvoke(*(*interpreter)->subgraph(0), fuzz::Hash(data, size));
  return 0;
}
