#include "delegates/xnnpack/xnnpack_graph.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "quant/float16.h"
#include "tflite_generated.h"

namespace edgerun::xnnpack {

void* StaticStorage::Allocate(size_t bytes) {
  blocks_.push_back(std::make_unique<uint8_t[]>(bytes + XNN_EXTRA_BYTES));
  std::memset(blocks_.back().get(), 0, bytes + XNN_EXTRA_BYTES);
  return blocks_.back().get();
}

Kind KindOf(const Tensor& t, std::string* why) {
  auto refuse = [&](const std::string& reason) {
    *why = StrCat("tensor '", t.name, "': ", reason);
    return Kind::kNone;
  };
  if (t.type == TensorType::kFloat32) return Kind::kF32;
  if (t.type != TensorType::kInt8 && t.type != TensorType::kUInt8) {
    return refuse(StrCat(TensorTypeName(t.type), " is not a type XNNPACK runs"));
  }
  const QuantizationParams& q = t.quantization;
  if (q.scale.size() != 1) {
    return refuse(q.scale.empty() ? "8-bit without quantization parameters"
                                  : "per-channel quantized activations are not supported");
  }
  if (!std::isnormal(q.scale[0]) || q.scale[0] <= 0) return refuse(StrCat("scale ", q.scale[0], " is not positive"));
  const int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  if (t.type == TensorType::kInt8) {
    if (zp < -128 || zp > 127) return refuse(StrCat("zero point ", zp, " is out of range"));
    return Kind::kQS8;
  }
  if (zp < 0 || zp > 255) return refuse(StrCat("zero point ", zp, " is out of range"));
  return Kind::kQU8;
}

int FoldableDequantize(const Subgraph& graph, int tensor) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= graph.num_tensors()) return -1;
  // Only a float tensor can be one (the test the match below would make): in a quantized graph
  // nearly every tensor is answered without the scan over the nodes, which the delegate's claims
  // and graph building ask for about every tensor (a third of Traffic SSD's start-up otherwise).
  if (const_cast<Subgraph&>(graph).tensor(tensor)->type != TensorType::kFloat32) return -1;
  const auto& nodes = graph.nodes();
  for (int n = 0; n < graph.num_model_nodes(); ++n) {
    const Node& node = nodes[n];
    if (node.builtin_code != tflite::BuiltinOperator_DEQUANTIZE) continue;
    if (node.outputs.size() != 1 || node.outputs[0] != tensor || node.inputs.size() != 1 || node.inputs[0] < 0) {
      continue;
    }
    Subgraph& g = const_cast<Subgraph&>(graph);
    const Tensor* in = g.tensor(node.inputs[0]);
    const Tensor* out = g.tensor(tensor);
    if (!in->is_constant() || in->data == nullptr || in->sparsity != nullptr || out->type != TensorType::kFloat32) {
      return -1;
    }
    if (in->num_elements() != out->num_elements()) return -1;
    if (in->type == TensorType::kFloat16) return n;
    if (in->type == TensorType::kInt8 || in->type == TensorType::kUInt8) {
      const QuantizationParams& q = in->quantization;
      if (q.scale.empty()) return -1;
      if (q.scale.size() > 1) {
        const int axis = q.quantized_dimension;
        if (axis < 0 || axis >= in->rank() || in->dim(axis) != static_cast<int>(q.scale.size())) return -1;
      }
      return n;
    }
    return -1;
  }
  return -1;
}

GraphBuilder::GraphBuilder(Subgraph& graph, xnn_subgraph_t subgraph, std::function<uint32_t(int)> external,
                           StaticStorage& storage)
    : graph_(graph), subgraph_(subgraph), external_(std::move(external)), storage_(storage) {}

bool GraphBuilder::IsStatic(int tensor) const {
  const Tensor* t = graph_.tensor(tensor);
  return (t->is_constant() && t->data != nullptr) || FoldableDequantize(graph_, tensor) >= 0;
}

const float* GraphBuilder::FoldedData(int tensor) {
  auto it = folded_.find(tensor);
  if (it != folded_.end()) return it->second;
  const int node = FoldableDequantize(graph_, tensor);
  if (node < 0) return nullptr;
  const Tensor* in = graph_.tensor(graph_.nodes()[node].inputs[0]);
  const int64_t n = in->num_elements();
  float* out = storage_.AllocateFloats(static_cast<size_t>(n));
  if (in->type == TensorType::kFloat16) {
    const auto* h = in->data_as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(h[i]);
  } else {
    // scale * (q - zero_point), per channel along quantized_dimension when there are several.
    const QuantizationParams& q = in->quantization;
    int64_t inner = 1;
    int channels = 1;
    if (q.scale.size() > 1) {
      channels = in->dim(q.quantized_dimension);
      for (int d = q.quantized_dimension + 1; d < in->rank(); ++d) inner *= in->dim(d);
    }
    for (int64_t i = 0; i < n; ++i) {
      const size_t c = channels > 1 ? static_cast<size_t>((i / inner) % channels) : 0;
      const int64_t zp = c < q.zero_point.size() ? q.zero_point[c] : 0;
      const int32_t v = in->type == TensorType::kInt8 ? in->data_as<int8_t>()[i] : in->data_as<uint8_t>()[i];
      out[i] = q.scale[c] * static_cast<float>(v - zp);
    }
  }
  folded_[tensor] = out;
  return out;
}

Status GraphBuilder::Check(xnn_status status, const char* what) const {
  if (status == xnn_status_success) return Status::Ok();
  return Status::Unsupported(StrCat("XNNPACK rejected ", what, " (status ", static_cast<int>(status), ")"));
}

Result<uint32_t> GraphBuilder::Define(int tensor, xnn_datatype type, const void* data,
                                      const QuantValues<float>* channel_scales, int channel_dim, float scale,
                                      int32_t zero_point, const Shape& dims) {
  if (dims.size() > XNN_MAX_TENSOR_DIMS) {
    return Status::Unsupported(StrCat("rank ", dims.size(), " is over XNNPACK's ", XNN_MAX_TENSOR_DIMS));
  }
  for (int32_t d : dims) {
    if (d <= 0) return Status::Unsupported(StrCat("empty tensor shape ", ShapeToString(dims)));
  }
  if (!defining()) return 0u;
  std::vector<size_t> sizes(dims.begin(), dims.end());
  uint32_t external_id = XNN_INVALID_VALUE_ID;
  uint32_t flags = 0;
  if (data == nullptr && tensor >= 0) {
    // Boundary values get an external id; the flags matter (XNNPACK does not fuse away a value
    // that goes out).
    flags = external_(tensor);
    if (flags != 0) {
      external_id = static_cast<uint32_t>(externals_.size());
      externals_.push_back(tensor);
    }
  }
  uint32_t id = XNN_INVALID_VALUE_ID;
  xnn_status s;
  if (type == xnn_datatype_fp32) {
    s = xnn_define_tensor_value(subgraph_, type, sizes.size(), sizes.data(), data, external_id, flags, &id);
  } else if (channel_scales != nullptr) {
    float* scales = storage_.AllocateFloats(channel_scales->size());
    std::copy(channel_scales->begin(), channel_scales->end(), scales);
    s = xnn_define_channelwise_quantized_tensor_value(subgraph_, type, scales, sizes.size(), channel_dim, sizes.data(),
                                                      data, external_id, flags, &id);
  } else {
    s = xnn_define_quantized_tensor_value(subgraph_, type, zero_point, scale, sizes.size(), sizes.data(), data,
                                          external_id, flags, &id);
  }
  ER_RETURN_IF_ERROR(Check(s, "a tensor value"));
  if (tensor >= 0) ids_[tensor] = id;
  return id;
}

Result<uint32_t> GraphBuilder::Value(int tensor) {
  if (tensor < 0) return Status::Unsupported("an optional input is missing");
  auto it = ids_.find(tensor);
  if (it != ids_.end()) return it->second;
  const Tensor* t = graph_.tensor(tensor);
  if (FoldableDequantize(graph_, tensor) >= 0) {
    const float* data = defining() ? FoldedData(tensor) : nullptr;
    return Define(tensor, xnn_datatype_fp32, data, nullptr, 0, 0, 0, t->shape);
  }
  std::string why;
  const Kind kind = KindOf(*t, &why);
  if (kind == Kind::kNone) return Status::Unsupported(why);
  const void* data = nullptr;
  if (t->is_constant()) {
    if (t->data == nullptr || t->sparsity != nullptr) return Status::Unsupported(StrCat("tensor '", t->name, "' has no dense data"));
    // A private copy with slack: XNNPACK reads static operands of element-wise ops directly.
    if (defining()) {
      void* copy = storage_.Allocate(t->bytes);
      std::memcpy(copy, t->data, t->bytes);
      data = copy;
    }
  }
  switch (kind) {
    case Kind::kF32:
      return Define(tensor, xnn_datatype_fp32, data, nullptr, 0, 0, 0, t->shape);
    case Kind::kQS8:
      return Define(tensor, xnn_datatype_qint8, data, nullptr, 0, t->scale(), t->zero_point(), t->shape);
    default:
      return Define(tensor, xnn_datatype_quint8, data, nullptr, 0, t->scale(), t->zero_point(), t->shape);
  }
}

Result<uint32_t> GraphBuilder::InternalValue(int like, const Shape& dims) {
  const Tensor* t = graph_.tensor(like);
  std::string why;
  switch (KindOf(*t, &why)) {
    case Kind::kF32:
      return Define(-1, xnn_datatype_fp32, nullptr, nullptr, 0, 0, 0, dims);
    case Kind::kQS8:
      return Define(-1, xnn_datatype_qint8, nullptr, nullptr, 0, t->scale(), t->zero_point(), dims);
    case Kind::kQU8:
      return Define(-1, xnn_datatype_quint8, nullptr, nullptr, 0, t->scale(), t->zero_point(), dims);
    default:
      return Status::Unsupported(why);
  }
}

Result<uint32_t> GraphBuilder::Filter(int tensor, int channel_dim) {
  if (tensor < 0) return Status::Unsupported("the weights are missing");
  auto it = ids_.find(tensor);
  if (it != ids_.end()) return it->second;
  const Tensor* t = graph_.tensor(tensor);
  if (!IsStatic(tensor)) return Status::Unsupported(StrCat("weights '", t->name, "' are not constant"));
  if (t->type == TensorType::kFloat32) {
    const void* data = t->is_constant() ? t->data : (defining() ? FoldedData(tensor) : nullptr);
    return Define(tensor, xnn_datatype_fp32, data, nullptr, 0, 0, 0, t->shape);
  }
  if (t->sparsity != nullptr) return Status::Unsupported(StrCat("weights '", t->name, "' are sparse"));
  const QuantizationParams& q = t->quantization;
  if (q.scale.empty()) return Status::Unsupported(StrCat("weights '", t->name, "' have no quantization"));
  for (float s : q.scale) {
    if (!std::isnormal(s) || s <= 0) return Status::Unsupported(StrCat("weights '", t->name, "' have scale ", s));
  }
  if (t->type == TensorType::kUInt8) {
    if (q.per_channel()) return Status::Unsupported("per-channel uint8 weights");
    return Define(tensor, xnn_datatype_quint8, t->data, nullptr, 0, q.scale[0], t->zero_point(), t->shape);
  }
  if (t->type != TensorType::kInt8) {
    return Status::Unsupported(StrCat(TensorTypeName(t->type), " weights are not supported by this XNNPACK"));
  }
  for (int64_t zp : q.zero_point) {
    if (zp != 0) return Status::Unsupported(StrCat("int8 weights '", t->name, "' have a non-zero zero point"));
  }
  if (!q.per_channel()) return Define(tensor, xnn_datatype_qint8, t->data, nullptr, 0, q.scale[0], 0, t->shape);
  if (q.quantized_dimension != channel_dim || t->dim(channel_dim) != static_cast<int>(q.scale.size())) {
    return Status::Unsupported(StrCat("weights '", t->name, "' are quantized along dimension ", q.quantized_dimension,
                                      ", not the output channels"));
  }
  return Define(tensor, xnn_datatype_qcint8, t->data, &q.scale, channel_dim, 0, 0, t->shape);
}

Result<uint32_t> GraphBuilder::Bias(int tensor, int input, int filter) {
  if (tensor < 0) return XNN_INVALID_VALUE_ID;
  auto it = ids_.find(tensor);
  if (it != ids_.end()) return it->second;
  const Tensor* t = graph_.tensor(tensor);
  if (!IsStatic(tensor)) return Status::Unsupported(StrCat("bias '", t->name, "' is not constant"));
  if (t->type == TensorType::kFloat32) {
    const void* data = t->is_constant() ? t->data : (defining() ? FoldedData(tensor) : nullptr);
    return Define(tensor, xnn_datatype_fp32, data, nullptr, 0, 0, 0, t->shape);
  }
  if (t->type != TensorType::kInt32) {
    return Status::Unsupported(StrCat(TensorTypeName(t->type), " bias is not supported by this XNNPACK"));
  }
  const Tensor* in = graph_.tensor(input);
  const Tensor* f = graph_.tensor(filter);
  const QuantValues<float>& filter_scales = f->quantization.scale;
  if (filter_scales.size() > 1) {
    if (t->num_elements() != static_cast<int64_t>(filter_scales.size())) {
      return Status::Unsupported(StrCat("bias '", t->name, "' does not have one value per channel"));
    }
    std::vector<float> scales(filter_scales.size());
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = in->scale() * filter_scales[c];
    const QuantValues<float> bias_scales(std::move(scales));
    return Define(tensor, xnn_datatype_qcint32, t->data, &bias_scales, 0, 0, 0, t->shape);
  }
  return Define(tensor, xnn_datatype_qint32, t->data, nullptr, 0, in->scale() * f->scale(), 0, t->shape);
}

Result<uint32_t> GraphBuilder::StaticFloats(const std::vector<float>& values, const Shape& dims) {
  const void* data = nullptr;
  if (defining()) {
    float* copy = storage_.AllocateFloats(values.size());
    std::copy(values.begin(), values.end(), copy);
    data = copy;
  }
  return Define(-1, xnn_datatype_fp32, data, nullptr, 0, 0, 0, dims);
}

}  // namespace edgerun::xnnpack
