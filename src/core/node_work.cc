#include "core/node_work.h"

#include <algorithm>

#include "core/subgraph.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

int64_t Elements(Subgraph& sg, const std::vector<int>& indices, size_t position) {
  if (position >= indices.size() || indices[position] < 0 ||
      static_cast<size_t>(indices[position]) >= sg.num_tensors()) {
    return -1;
  }
  return sg.tensor(indices[position])->num_elements();
}

int32_t Dim(Subgraph& sg, const std::vector<int>& indices, size_t position, int axis) {
  if (position >= indices.size() || indices[position] < 0 ||
      static_cast<size_t>(indices[position]) >= sg.num_tensors()) {
    return 0;
  }
  const Shape& shape = sg.tensor(indices[position])->shape;
  const int rank = static_cast<int>(shape.size());
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank ? shape[axis] : 0;
}

bool IsEightBit(TensorType type) { return type == TensorType::kInt8 || type == TensorType::kUInt8; }

}  // namespace

// 2 x multiply-accumulates of one operator; 0 when unknown or not a MAC-heavy op.
int64_t OperatorOps(Subgraph& sg, int32_t code, const std::vector<int>& in, const std::vector<int>& out,
                    const tflite::Operator* op) {
  const int64_t out_elems = Elements(sg, out, 0);
  if (out_elems <= 0) return 0;
  switch (code) {
    case tflite::BuiltinOperator_CONV_2D:
    case tflite::BuiltinOperator_FULLY_CONNECTED: {  // filter [out, ..., in]
      const int64_t filter = Elements(sg, in, 1);
      const int32_t outs = Dim(sg, in, 1, 0);
      return filter > 0 && outs > 0 ? 2 * out_elems * (filter / outs) : 0;
    }
    case tflite::BuiltinOperator_DEPTHWISE_CONV_2D:  // filter [1, kh, kw, out]
    case tflite::BuiltinOperator_CONV_3D: {          // filter [kd, kh, kw, in, out]
      const int64_t filter = Elements(sg, in, 1);
      const int32_t outs = Dim(sg, in, 1, -1);
      return filter > 0 && outs > 0 ? 2 * out_elems * (filter / outs) : 0;
    }
    case tflite::BuiltinOperator_TRANSPOSE_CONV: {  // (output_shape, filter [out, kh, kw, in], input)
      const int64_t filter = Elements(sg, in, 1);
      const int32_t ins = Dim(sg, in, 1, -1);
      const int64_t input = Elements(sg, in, 2);
      return filter > 0 && ins > 0 && input > 0 ? 2 * input * (filter / ins) : 0;
    }
    case tflite::BuiltinOperator_BATCH_MATMUL: {
      bool adj_x = false;
      if (op && op->builtin_options_as_BatchMatMulOptions())
        adj_x = op->builtin_options_as_BatchMatMulOptions()->adj_x();
      const int32_t k = Dim(sg, in, 0, adj_x ? -2 : -1);
      return 2 * out_elems * k;
    }
    case tflite::BuiltinOperator_LSTM:
    case tflite::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM: {
      // Gate weights (inputs 1..8) and the projection (16), once per step and batch row.
      const int32_t n_output = Dim(sg, out, 0, -1);
      if (n_output <= 0) return 0;
      int64_t weights = 0;
      for (size_t i : {1, 2, 3, 4, 5, 6, 7, 8, 16}) weights += std::max<int64_t>(0, Elements(sg, in, i));
      return 2 * (out_elems / n_output) * weights;
    }
    default:
      return 0;
  }
}

int64_t NodeOps(Subgraph& sg, int node_index) {
  const Node& node = sg.nodes()[node_index];
  if (!node.delegated_nodes.empty()) {  // a delegate's node: the work of the nodes it runs
    int64_t total = 0;
    for (int model_node : node.delegated_nodes) total += NodeOps(sg, model_node);
    return total;
  }
  if (node.op == nullptr) return 0;
  return OperatorOps(sg, node.builtin_code, node.inputs, node.outputs, node.op);
}

double EstimateSerialNs(Subgraph& sg, int node_index) {
  const Node& node = sg.nodes()[node_index];
  if (!node.delegated_nodes.empty()) {
    double total = 0;
    for (int model_node : node.delegated_nodes) {
      const double ns = EstimateSerialNs(sg, model_node);
      if (ns < 0) return -1;
      total += ns;
    }
    return total;
  }
  // Rates on one core (AVX-512 with VNNI), fitted to `edgerun bench --profile` of small models,
  // whose layers run below the rates of large ones. Multiply-accumulates per ns: 8-bit GEMMs
  // about 400, float32 ones 80; depthwise layers 35 and 20. Elements per ns of the non-constant
  // inputs and outputs: 8 for those layers (im2col, requantization), 16 for element-wise ops;
// their weights at 32 bytes a ns.
  // Estimates err on the large side: a node judged too small to split loses more (the first
  // 3-channel convolution of VWW: 30 us) than a small one split (about 1 us).
  double elements = 0, constant_bytes = 0;
  bool eight_bit = true;
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t < 0 || static_cast<size_t>(t) >= sg.num_tensors()) continue;
      const Tensor& tensor = *sg.tensor(t);
      if (tensor.is_constant()) {
        constant_bytes += static_cast<double>(tensor.bytes);
        continue;
      }
      const int64_t count = tensor.num_elements();
      if (count < 0) return -1;
      elements += static_cast<double>(count);
      eight_bit = eight_bit && IsEightBit(tensor.type);
    }
  }
  double macs_per_ns = 0, elements_per_ns = 16;  // element-wise ops and data movement
  switch (node.builtin_code) {
    case tflite::BuiltinOperator_DEPTHWISE_CONV_2D:
      macs_per_ns = eight_bit ? 35 : 20;
      elements_per_ns = 8;
      break;
    case tflite::BuiltinOperator_CONV_2D:
    case tflite::BuiltinOperator_CONV_3D:
    case tflite::BuiltinOperator_FULLY_CONNECTED:
    case tflite::BuiltinOperator_TRANSPOSE_CONV:
    case tflite::BuiltinOperator_BATCH_MATMUL:
      macs_per_ns = eight_bit ? 400 : 80;
      elements_per_ns = 8;
      break;
    case tflite::BuiltinOperator_ADD:
    case tflite::BuiltinOperator_SUB:
    case tflite::BuiltinOperator_MUL:
    case tflite::BuiltinOperator_MAXIMUM:
    case tflite::BuiltinOperator_MINIMUM:
    case tflite::BuiltinOperator_SQUARED_DIFFERENCE:
    case tflite::BuiltinOperator_RELU:
    case tflite::BuiltinOperator_RELU6:
    case tflite::BuiltinOperator_RELU_N1_TO_1:
    case tflite::BuiltinOperator_LEAKY_RELU:
    case tflite::BuiltinOperator_HARD_SWISH:
    case tflite::BuiltinOperator_PRELU:
    case tflite::BuiltinOperator_QUANTIZE:
    case tflite::BuiltinOperator_DEQUANTIZE:
    case tflite::BuiltinOperator_CAST:
    case tflite::BuiltinOperator_RESHAPE:
    case tflite::BuiltinOperator_SQUEEZE:
    case tflite::BuiltinOperator_EXPAND_DIMS:
    case tflite::BuiltinOperator_CONCATENATION:
    case tflite::BuiltinOperator_PAD:
    case tflite::BuiltinOperator_PADV2:
    case tflite::BuiltinOperator_AVERAGE_POOL_2D:
    case tflite::BuiltinOperator_MAX_POOL_2D:
    case tflite::BuiltinOperator_MEAN:
    case tflite::BuiltinOperator_SOFTMAX:
    case tflite::BuiltinOperator_FLOOR:
    case tflite::BuiltinOperator_ABS:
    case tflite::BuiltinOperator_NEG:
      break;
    default:
      // Not modelled (RFFT2D, STRIDED_SLICE, GATHER, RESIZE_*, transcendentals, LSTMs, control
      // flow, custom ops...): work per element varies too much to judge; the pool stays.
      return -1;
  }
  // Fewer output channels than a SIMD register's lanes leave lanes idle: micro speech's
  // depthwise layer of 8 channels runs at 7 MACs a ns on XNNPACK.
  if (!node.outputs.empty() && node.outputs[0] >= 0 && static_cast<size_t>(node.outputs[0]) < sg.num_tensors()) {
    const Shape& out_shape = sg.tensor(node.outputs[0])->shape;
    if (!out_shape.empty() && out_shape.back() > 0 && out_shape.back() < 32) macs_per_ns *= out_shape.back() / 32.0;
    // A global average pool reads values a multi-threaded producer has just written: on one
    // thread most of them come from the other cores' caches, at about 4 a ns (coral MobileNet
    // v2's 7x7x1280 pool: 18 us at 2 threads, 10 us on one core alone).
    if (node.builtin_code == tflite::BuiltinOperator_AVERAGE_POOL_2D && out_shape.size() == 4 && out_shape[1] == 1 &&
        out_shape[2] == 1) {
      elements_per_ns = 4;
    }
  }
  double ns = elements / elements_per_ns;
  if (macs_per_ns > 0) {
    // The weights stream in from L2/L3 at about 32 bytes a ns on every call: for a layer of one
    // pixel (MobileNet v2's 1280 -> 1001 classifier, 1.3 MB: 29 us) they are all of the time.
    ns += constant_bytes / 32.0;
  }
  if (macs_per_ns > 0 && node.op != nullptr) {
    ns +=
        0.5 * static_cast<double>(OperatorOps(sg, node.builtin_code, node.inputs, node.outputs, node.op)) / macs_per_ns;
  }
  return ns;
}

}  // namespace edgerun
