// The native part of the Python package `edgerun` (module edgerun._edgerun): one class,
// InterpreterWrapper, with the low-level calls that python/edgerun/__init__.py turns into
// tflite_runtime's Interpreter API. Tensor indices are indices into a subgraph's tensor list, as
// in TFLite. Bad arguments raise ValueError, failing calls RuntimeError; nothing aborts.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "edgerun/model.h"
#include "tflite_generated.h"

namespace py = pybind11;

namespace {

using edgerun::Status;
using edgerun::Tensor;
using edgerun::TensorType;

[[noreturn]] void ThrowValueError(const std::string& message) { throw py::value_error(message); }

void CheckOk(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.message());
}

// numpy's dtype for an edgerun type, as tflite_runtime reports it. Sub-byte types are shown
// unpacked (one element per byte); types numpy has no name for are shown as their storage.
py::dtype NumpyDtype(TensorType type) {
  switch (type) {
    case TensorType::kFloat32: return py::dtype("float32");
    case TensorType::kFloat16: return py::dtype("float16");
    case TensorType::kFloat64: return py::dtype("float64");
    case TensorType::kInt32: return py::dtype("int32");
    case TensorType::kUInt32: return py::dtype("uint32");
    case TensorType::kInt64: return py::dtype("int64");
    case TensorType::kUInt64: return py::dtype("uint64");
    case TensorType::kInt16: return py::dtype("int16");
    case TensorType::kUInt16: return py::dtype("uint16");
    case TensorType::kInt8: return py::dtype("int8");
    case TensorType::kUInt8: return py::dtype("uint8");
    case TensorType::kBool: return py::dtype("bool");
    case TensorType::kComplex64: return py::dtype("complex64");
    case TensorType::kComplex128: return py::dtype("complex128");
    case TensorType::kString: return py::dtype("S");
    case TensorType::kInt4: return py::dtype("int8");
    case TensorType::kInt2: return py::dtype("int8");
    case TensorType::kUInt4: return py::dtype("uint8");
    case TensorType::kBFloat16: return py::dtype("uint16");
    case TensorType::kFloat8E4M3FN:
    case TensorType::kFloat8E5M2: return py::dtype("uint8");
    default: return py::dtype("O");  // resource, variant
  }
}

bool IsPacked(TensorType type) {
  return type == TensorType::kInt4 || type == TensorType::kUInt4 || type == TensorType::kInt2;
}

// The type a numpy array's elements have, by kind and size; false when edgerun has none.
bool TypeOfArray(const py::array& array, TensorType* type) {
  const char kind = array.dtype().kind();
  const auto size = array.itemsize();
  switch (kind) {
    case 'f':
      if (size == 4) *type = TensorType::kFloat32;
      else if (size == 2) *type = TensorType::kFloat16;
      else if (size == 8) *type = TensorType::kFloat64;
      else return false;
      return true;
    case 'i':
      if (size == 1) *type = TensorType::kInt8;
      else if (size == 2) *type = TensorType::kInt16;
      else if (size == 4) *type = TensorType::kInt32;
      else if (size == 8) *type = TensorType::kInt64;
      else return false;
      return true;
    case 'u':
      if (size == 1) *type = TensorType::kUInt8;
      else if (size == 2) *type = TensorType::kUInt16;
      else if (size == 4) *type = TensorType::kUInt32;
      else if (size == 8) *type = TensorType::kUInt64;
      else return false;
      return true;
    case 'b': *type = TensorType::kBool; return true;
    case 'c':
      if (size == 8) *type = TensorType::kComplex64;
      else if (size == 16) *type = TensorType::kComplex128;
      else return false;
      return true;
    case 'S': case 'U': case 'O': *type = TensorType::kString; return true;
    default: return false;
  }
}

std::string TypeNameOfArray(const py::array& array) { return py::str(array.dtype()).cast<std::string>(); }

py::array_t<int32_t> IntArray(const std::vector<int32_t>& values) {
  py::array_t<int32_t> array(static_cast<py::ssize_t>(values.size()));
  if (!values.empty()) std::memcpy(array.mutable_data(), values.data(), values.size() * sizeof(int32_t));
  return array;
}

class InterpreterWrapper {
 public:
  InterpreterWrapper(std::shared_ptr<const edgerun::Model> model, int num_threads, bool reference_kernels,
                     bool preserve_all_tensors) {
    edgerun::InterpreterOptions options;
    options.num_threads = num_threads < 1 ? 1 : num_threads;
    if (reference_kernels) options.int8_arithmetic = edgerun::Int8Arithmetic::kTfliteReference;
    options.preserve_all_tensors = preserve_all_tensors;
    auto interpreter = edgerun::Interpreter::Create(std::move(model), options);
    if (!interpreter.ok()) ThrowValueError(interpreter.status().message());
    interpreter_ = std::move(interpreter).value();
    // Only the tensors of the file are visible from Python (not op scratch tensors added later).
    const auto* subgraphs = interpreter_->model().fb()->subgraphs();
    for (int s = 0; s < interpreter_->num_subgraphs(); ++s) {
      const auto* tensors = subgraphs->Get(s)->tensors();
      file_tensors_.push_back(tensors ? static_cast<int>(tensors->size()) : 0);
    }
  }

  static std::unique_ptr<InterpreterWrapper> FromFile(const std::string& path, int num_threads, bool reference,
                                                       bool preserve) {
    auto model = edgerun::Model::FromFile(path);
    if (!model.ok()) ThrowValueError(model.status().message());
    return std::make_unique<InterpreterWrapper>(std::move(model).value(), num_threads, reference, preserve);
  }

  static std::unique_ptr<InterpreterWrapper> FromBuffer(const py::buffer& content, int num_threads, bool reference,
                                                         bool preserve) {
    const py::buffer_info info = content.request();
    // A copy: the Python object may change or go away.
    auto model = edgerun::Model::FromBufferCopy(info.ptr, static_cast<size_t>(info.size * info.itemsize), "<model_content>");
    if (!model.ok()) ThrowValueError(model.status().message());
    return std::make_unique<InterpreterWrapper>(std::move(model).value(), num_threads, reference, preserve);
  }

  int NumSubgraphs() const { return interpreter_->num_subgraphs(); }

  int NumTensors(int subgraph) const {
    Sub(subgraph);
    return file_tensors_[subgraph];
  }

  std::vector<int> InputIndices(int subgraph) const { return Sub(subgraph)->inputs(); }
  std::vector<int> OutputIndices(int subgraph) const { return Sub(subgraph)->outputs(); }

  void AllocateTensors(int subgraph) {
    if (subgraph < 0) subgraph = 0;
    edgerun::Subgraph* s = Sub(subgraph);
    CheckOk(s->AllocateTensors());
  }

  void Invoke(int subgraph) {
    edgerun::Subgraph* s = Sub(subgraph);
    Status status;
    {
      py::gil_scoped_release release;
      status = s->Invoke();
    }
    CheckOk(status);
  }

  void ResetVariableTensors() { CheckOk(interpreter_->ResetVariableTensors()); }

  // `tensor_index` must be an input of the subgraph (the Python API passes details["index"]).
  void ResizeInputTensor(int tensor_index, const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& shape,
                         bool strict, int subgraph) {
    edgerun::Subgraph* s = Sub(subgraph);
    CheckTensorIndex(tensor_index, subgraph);
    if (shape.ndim() != 1) ThrowValueError("resize_tensor_input: the shape must be a 1-D list of dimensions");
    const edgerun::Shape dims(shape.data(), shape.data() + shape.size());
    for (int32_t d : dims) {
      if (d < 0) ThrowValueError("resize_tensor_input: negative dimension in " + edgerun::ShapeToString(dims));
    }
    const auto& inputs = s->inputs();
    int position = -1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == tensor_index) position = static_cast<int>(i);
    }
    if (position < 0) {
      ThrowValueError(edgerun::StrCat("resize_tensor_input: tensor ", tensor_index, " is not an input of subgraph ",
                                      subgraph));
    }
    if (strict) {
      CheckOk(s->ResizeInputTensor(position, dims));
    } else {
      // TFLite's default (non-strict) resize accepts any shape; the ops' prepare decides.
      if (s->tensor(tensor_index)->is_constant()) ThrowValueError("resize_tensor_input: the input is a constant");
      CheckOk(s->SetInputShape(position, dims));
    }
  }

  py::dict TensorDetails(int tensor_index, int subgraph) const {
    CheckTensorIndex(tensor_index, subgraph);
    const Tensor& t = *Sub(subgraph)->tensor(tensor_index);
    py::dict details;
    details["name"] = py::str(t.name);
    details["index"] = tensor_index;
    details["shape"] = IntArray(t.shape);
    details["shape_signature"] = IntArray(t.shape_signature.empty() ? t.shape : t.shape_signature);
    details["dtype"] = NumpyDtype(t.type).attr("type");
    const auto& q = t.quantization;
    const bool per_tensor = q.scale.size() == 1 && q.zero_point.size() == 1;
    details["quantization"] =
        py::make_tuple(per_tensor ? q.scale[0] : 0.0f, per_tensor ? static_cast<int64_t>(q.zero_point[0]) : 0);
    py::array_t<float> scales(static_cast<py::ssize_t>(q.scale.size()));
    for (size_t i = 0; i < q.scale.size(); ++i) scales.mutable_at(i) = q.scale[i];
    py::array_t<int32_t> zero_points(static_cast<py::ssize_t>(q.zero_point.size()));
    for (size_t i = 0; i < q.zero_point.size(); ++i) zero_points.mutable_at(i) = static_cast<int32_t>(q.zero_point[i]);
    py::dict quantization;
    quantization["scales"] = scales;
    quantization["zero_points"] = zero_points;
    quantization["quantized_dimension"] = q.quantized_dimension;
    details["quantization_parameters"] = quantization;
    details["sparsity_parameters"] = SparsityDetails(t);
    return details;
  }

  void SetTensor(int tensor_index, const py::object& value, int subgraph) {
    edgerun::Subgraph* s = Sub(subgraph);
    CheckTensorIndex(tensor_index, subgraph);
    Tensor& t = *s->tensor(tensor_index);
    py::array array = py::array::ensure(value, py::array::c_style);
    if (!array) ThrowValueError("Cannot set tensor: the value is not convertible to a numpy array");
    if (array.dtype().attr("byteorder").cast<std::string>() == ">") {
      // Big-endian data: copy into native byte order rather than reinterpret its bytes.
      array = py::array::ensure(array.attr("astype")(array.dtype().attr("newbyteorder")("=")), py::array::c_style);
    }
    TensorType type;
    if (!TypeOfArray(array, &type) || type != t.type) {
      ThrowValueError(edgerun::StrCat("Cannot set tensor: Got value of type ", TypeNameOfArray(array),
                                      " but expected type ", edgerun::TensorTypeName(t.type), " for input ",
                                      tensor_index, ", name: ", t.name));
    }
    if (array.ndim() != t.rank()) {
      ThrowValueError(edgerun::StrCat("Cannot set tensor: Dimension mismatch. Got ", array.ndim(), " but expected ",
                                      t.rank(), " for input ", tensor_index, "."));
    }
    for (int d = 0; d < t.rank(); ++d) {
      if (array.shape(d) != t.shape[d]) {
        ThrowValueError(edgerun::StrCat("Cannot set tensor: Dimension mismatch. Got ", array.shape(d), " but expected ",
                                        t.shape[d], " for dimension ", d, " of input ", tensor_index, "."));
      }
    }
    if (t.is_constant()) ThrowValueError(edgerun::StrCat("Cannot set tensor: tensor ", tensor_index, " '", t.name,
                                                         "' is a constant of the model"));
    const bool allocated = t.type == TensorType::kString ? !s->needs_allocation() : HasMemory(t, *s);
    if (!allocated) {
      ThrowValueError(edgerun::StrCat("Cannot set tensor: tensor ", tensor_index, " '", t.name,
                                      "' is unallocated. Try calling allocate_tensors() first"));
    }
    if (t.type == TensorType::kString) {
      SetStrings(t, array);
      return;
    }
    const size_t bytes = static_cast<size_t>(array.nbytes());
    if (bytes != t.bytes) {
      ThrowValueError(edgerun::StrCat("Cannot set tensor: ", bytes, " bytes given, tensor '", t.name, "' holds ",
                                      t.bytes));
    }
    if (bytes > 0) std::memcpy(t.data, array.data(), bytes);
  }

  py::object GetTensor(int tensor_index, int subgraph) const {
    edgerun::Subgraph* s = Sub(subgraph);
    CheckTensorIndex(tensor_index, subgraph);
    const Tensor& t = *s->tensor(tensor_index);
    CheckReadable(t, *s, tensor_index);
    const std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    if (t.type == TensorType::kString) {
      bool ok = false;
      const std::vector<std::string> strings = edgerun::ReadStringTensor(t.data, t.bytes, &ok);
      if (!ok) throw std::runtime_error("tensor '" + t.name + "' holds a malformed string buffer");
      const int64_t count = t.num_elements();
      if (static_cast<int64_t>(strings.size()) != count) {
        throw std::runtime_error(edgerun::StrCat("tensor '", t.name, "' holds ", strings.size(), " strings for ",
                                                 count, " elements"));
      }
      py::list flat;
      for (const std::string& str : strings) flat.append(py::bytes(str));
      py::object numpy = py::module_::import("numpy");
      py::object result = numpy.attr("array")(flat, py::arg("dtype") = py::dtype("O"));
      return result.attr("reshape")(py::tuple(py::cast(shape)));
    }
    if (IsPacked(t.type)) return Unpacked(t, shape);
    if (!edgerun::IsFixedSizeType(t.type)) {
      ThrowValueError(edgerun::StrCat("tensor ", tensor_index, " '", t.name, "' of type ",
                                      edgerun::TensorTypeName(t.type), " has no value readable from Python"));
    }
    py::array result(NumpyDtype(t.type), shape);
    if (t.bytes > 0) std::memcpy(result.mutable_data(), t.data, std::min<size_t>(t.bytes, result.nbytes()));
    return result;
  }

  // A numpy array over the tensor's memory (no copy). `base` (this wrapper's Python object) is kept
  // alive by the array, which is how the Python side knows views are still around.
  py::array TensorView(const py::object& base, int tensor_index, int subgraph) {
    edgerun::Subgraph* s = Sub(subgraph);
    CheckTensorIndex(tensor_index, subgraph);
    Tensor& t = *s->tensor(tensor_index);
    CheckReadable(t, *s, tensor_index);
    if (!edgerun::IsFixedSizeType(t.type)) {
      ThrowValueError(edgerun::StrCat("tensor ", tensor_index, " '", t.name, "' of type ",
                                      edgerun::TensorTypeName(t.type), " cannot be viewed without a copy"));
    }
    const py::dtype dtype = NumpyDtype(t.type);
    const std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    std::vector<py::ssize_t> strides(shape.size());
    py::ssize_t stride = dtype.itemsize();
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    py::array view(dtype, shape, strides, t.data, base);
    if (t.is_constant()) {
      // Weights live in the read-only mapping of the file.
      view.attr("flags").attr("writeable") = false;
    }
    return view;
  }

  // {key: {"inputs": {name: tensor index}, "outputs": {...}}}, keys and names in file order.
  py::dict SignatureDefs() const {
    py::dict defs;
    for (const std::string& key : interpreter_->signature_keys()) {
      edgerun::SignatureRunner* runner = interpreter_->GetSignatureRunner(key);
      py::dict inputs, outputs;
      edgerun::Subgraph* s = interpreter_->subgraph(runner->subgraph_index());
      for (const std::string& name : runner->input_names()) inputs[py::str(name)] = IndexOf(s, runner->input(name));
      for (const std::string& name : runner->output_names()) outputs[py::str(name)] = IndexOf(s, runner->output(name));
      py::dict def;
      def["inputs"] = inputs;
      def["outputs"] = outputs;
      defs[py::str(key)] = def;
    }
    return defs;
  }

  int NumNodes() const { return static_cast<int>(Sub(0)->nodes().size()); }

  // (op name, input tensor indices, output tensor indices) of node `index` of subgraph 0.
  py::tuple NodeInfo(int index) const {
    const auto& nodes = Sub(0)->nodes();
    if (index < 0 || index >= static_cast<int>(nodes.size())) {
      ThrowValueError(edgerun::StrCat("Invalid node index ", index, ": subgraph 0 has ", nodes.size(), " nodes"));
    }
    const edgerun::Node& node = nodes[index];
    return py::make_tuple(node.name, IntArray(node.inputs), IntArray(node.outputs));
  }

  int SubgraphIndexFromSignature(const std::string& key) const {
    edgerun::SignatureRunner* runner = interpreter_->GetSignatureRunner(key);
    if (runner == nullptr) ThrowValueError("Invalid signature key '" + key + "'");
    return runner->subgraph_index();
  }

 private:
  edgerun::Subgraph* Sub(int index) const {
    edgerun::Subgraph* s = interpreter_->subgraph(index);
    if (s == nullptr) {
      ThrowValueError(edgerun::StrCat("subgraph_index is out of range: ", index, " for the model, which has ",
                                      interpreter_->num_subgraphs(), " subgraphs."));
    }
    return s;
  }

  void CheckTensorIndex(int tensor_index, int subgraph) const {
    const int count = file_tensors_[Sub(subgraph) == nullptr ? 0 : subgraph];
    if (tensor_index < 0 || tensor_index >= count) {
      ThrowValueError(edgerun::StrCat("Invalid tensor index ", tensor_index, ": subgraph ", subgraph, " has ", count,
                                      " tensors"));
    }
  }

  static int IndexOf(edgerun::Subgraph* s, const Tensor* tensor) {
    for (size_t i = 0; i < s->num_tensors(); ++i) {
      if (s->tensor(static_cast<int>(i)) == tensor) return static_cast<int>(i);
    }
    return -1;
  }

  // Arena memory is valid only once the subgraph is allocated (and after a resize, again).
  static bool HasMemory(const Tensor& t, const edgerun::Subgraph& s) {
    if (t.data == nullptr && t.bytes != 0) return false;
    if (t.allocation == edgerun::Allocation::kConstant || t.allocation == edgerun::Allocation::kPersistent) return true;
    if (t.allocation == edgerun::Allocation::kNone && t.num_elements() == 0) return true;
    return !s.needs_allocation() && (t.data != nullptr || t.num_elements() == 0);
  }

  static void CheckReadable(const Tensor& t, const edgerun::Subgraph& s, int tensor_index) {
    if (!HasMemory(t, s)) {
      if (!s.needs_allocation() && t.allocation == edgerun::Allocation::kNone) {
        ThrowValueError(edgerun::StrCat("Tensor data is null for tensor ", tensor_index, " '", t.name,
                                        "': an intermediate value inside a fused or delegated node has no memory of its "
                                        "own. Create the Interpreter with experimental_preserve_all_tensors=True to "
                                        "keep every tensor"));
      }
      ThrowValueError(edgerun::StrCat("Tensor data is null for tensor ", tensor_index, " '", t.name,
                                      "'. Run allocate_tensors() first (and invoke() for outputs sized at run time)"));
    }
  }

  // Strings own their memory (the subgraph marks string inputs dynamic when it allocates).
  static void SetStrings(Tensor& t, const py::array& array) {
    std::vector<std::string> strings;
    const py::object flat = array.attr("ravel")();
    for (const py::handle item : flat) {
      if (py::isinstance<py::bytes>(item)) {
        strings.push_back(item.cast<std::string>());
      } else if (py::isinstance<py::str>(item)) {
        strings.push_back(item.cast<std::string>());  // UTF-8
      } else if (py::hasattr(item, "tobytes")) {
        strings.push_back(item.attr("tobytes")().cast<std::string>());
      } else {
        ThrowValueError("Cannot set tensor: a string tensor takes bytes or str elements");
      }
    }
    const std::vector<uint8_t> buffer = edgerun::WriteStringTensor(strings);
    if (!t.owned.Reserve(buffer.size())) throw std::runtime_error("out of memory setting a string tensor");
    std::memcpy(t.owned.data(), buffer.data(), buffer.size());
    t.data = t.owned.data();
    t.bytes = buffer.size();
  }

  static py::array Unpacked(const Tensor& t, const std::vector<py::ssize_t>& shape) {
    py::array result(NumpyDtype(t.type), shape);
    const int64_t count = t.num_elements();
    const auto* packed = t.data_as<uint8_t>();
    auto* out = static_cast<uint8_t*>(result.mutable_data());
    const int bits = t.type == TensorType::kInt2 ? 2 : 4;
    const int per_byte = 8 / bits;
    for (int64_t i = 0; i < count; ++i) {
      const size_t byte = static_cast<size_t>(i / per_byte);
      if (byte >= t.bytes) break;
      int value = (packed[byte] >> ((i % per_byte) * bits)) & ((1 << bits) - 1);
      if (t.type != TensorType::kUInt4 && value >= (1 << (bits - 1))) value -= 1 << bits;  // sign-extend
      out[i] = static_cast<uint8_t>(static_cast<int8_t>(value));
    }
    return result;
  }

  // tflite_runtime gives {} for dense tensors, and the format of each dimension for sparse ones.
  static py::dict SparsityDetails(const Tensor& t) {
    py::dict sparsity;
    const auto* fb = static_cast<const tflite::SparsityParameters*>(t.sparsity);
    if (fb == nullptr) return sparsity;
    auto ints = [](const flatbuffers::Vector<int32_t>* v) {
      return v ? IntArray(std::vector<int32_t>(v->begin(), v->end())) : IntArray({});
    };
    sparsity["traversal_order"] = ints(fb->traversal_order());
    sparsity["block_map"] = ints(fb->block_map());
    py::list dims;
    if (fb->dim_metadata()) {
      for (const auto* dim : *fb->dim_metadata()) {
        py::dict d;
        d["format"] = static_cast<int>(dim->format());
        if (dim->format() == tflite::DimensionType_DENSE) {
          d["dense_size"] = dim->dense_size();
        } else {
          auto index_vector = [&](tflite::SparseIndexVector type, const void* vec) -> py::array {
            std::vector<int32_t> values;
            if (type == tflite::SparseIndexVector_Int32Vector) {
              const auto* v = static_cast<const tflite::Int32Vector*>(vec)->values();
              if (v) values.assign(v->begin(), v->end());
            } else if (type == tflite::SparseIndexVector_Uint16Vector) {
              const auto* v = static_cast<const tflite::Uint16Vector*>(vec)->values();
              if (v) values.assign(v->begin(), v->end());
            } else if (type == tflite::SparseIndexVector_Uint8Vector) {
              const auto* v = static_cast<const tflite::Uint8Vector*>(vec)->values();
              if (v) values.assign(v->begin(), v->end());
            }
            return IntArray(values);
          };
          d["array_segments"] = index_vector(dim->array_segments_type(), dim->array_segments());
          d["array_indices"] = index_vector(dim->array_indices_type(), dim->array_indices());
        }
        dims.append(d);
      }
    }
    sparsity["dim_metadata"] = dims;
    return sparsity;
  }

  std::unique_ptr<edgerun::Interpreter> interpreter_;
  std::vector<int> file_tensors_;
};

}  // namespace

PYBIND11_MODULE(_edgerun, m) {
  m.doc() = "edgerun's native interpreter wrapper; use edgerun.Interpreter";
  py::class_<InterpreterWrapper>(m, "InterpreterWrapper")
      .def_static("from_file", &InterpreterWrapper::FromFile, py::arg("path"), py::arg("num_threads"),
                  py::arg("reference_kernels"), py::arg("preserve_all_tensors") = false)
      .def_static("from_buffer", &InterpreterWrapper::FromBuffer, py::arg("content"), py::arg("num_threads"),
                  py::arg("reference_kernels"), py::arg("preserve_all_tensors") = false)
      .def("num_subgraphs", &InterpreterWrapper::NumSubgraphs)
      .def("num_tensors", &InterpreterWrapper::NumTensors, py::arg("subgraph"))
      .def("input_indices", &InterpreterWrapper::InputIndices, py::arg("subgraph") = 0)
      .def("output_indices", &InterpreterWrapper::OutputIndices, py::arg("subgraph") = 0)
      .def("allocate_tensors", &InterpreterWrapper::AllocateTensors, py::arg("subgraph") = 0)
      .def("invoke", &InterpreterWrapper::Invoke, py::arg("subgraph") = 0)
      .def("reset_variable_tensors", &InterpreterWrapper::ResetVariableTensors)
      .def("resize_input_tensor", &InterpreterWrapper::ResizeInputTensor, py::arg("tensor_index"), py::arg("shape"),
           py::arg("strict"), py::arg("subgraph") = 0)
      .def("tensor_details", &InterpreterWrapper::TensorDetails, py::arg("tensor_index"), py::arg("subgraph") = 0)
      .def("set_tensor", &InterpreterWrapper::SetTensor, py::arg("tensor_index"), py::arg("value"),
           py::arg("subgraph") = 0)
      .def("get_tensor", &InterpreterWrapper::GetTensor, py::arg("tensor_index"), py::arg("subgraph") = 0)
      .def("tensor", &InterpreterWrapper::TensorView, py::arg("base"), py::arg("tensor_index"),
           py::arg("subgraph") = 0)
      .def("num_nodes", &InterpreterWrapper::NumNodes)
      .def("node_info", &InterpreterWrapper::NodeInfo, py::arg("node_index"))
      .def("signature_defs", &InterpreterWrapper::SignatureDefs)
      .def("subgraph_index_from_signature", &InterpreterWrapper::SubgraphIndexFromSignature, py::arg("key"));
  m.attr("TFLITE_VERSION") = "2.18.0";
}
