// TensorFlow Lite's C API on top of edgerun's C++ API (see include/edgerun/c_api.h).
//
// TfLiteTensor is a real struct with TFLite's layout: each edgerun tensor handed out gets a
// "mirror" owned by its interpreter, whose fields are refreshed after every call that can change
// shapes or memory (allocate, resize, invoke, reset). No function lets a C++ exception or a bad
// argument escape: errors are reported and returned.
#include "edgerun/c_api.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "c_api/internal.h"
#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "edgerun/model.h"

namespace edgerun::capi {

constexpr const char* kVersion = "2.18.0+edgerun.0.1.0";

namespace {

void StderrReporter(void*, const char* format, va_list args) {
  std::fputs("ERROR: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
}

void CallReporter(TfLiteErrorReporterFunction fn, void* user_data, const char* format, ...) {
  va_list args;
  va_start(args, format);
  fn(user_data, format, args);
  va_end(args);
}

}  // namespace

void Reporter::Report(const std::string& message) const {
  CallReporter(fn ? fn : StderrReporter, user_data, "%s", message.c_str());
}

// The C enum differs from the schema's numbering (kTfLiteNoType is 0); float8 types have no
// TfLiteType.
TfLiteType ToTfLiteType(TensorType type) {
  using T = edgerun::TensorType;
  switch (type) {
    case T::kFloat32: return kTfLiteFloat32;
    case T::kFloat16: return kTfLiteFloat16;
    case T::kInt32: return kTfLiteInt32;
    case T::kUInt8: return kTfLiteUInt8;
    case T::kInt64: return kTfLiteInt64;
    case T::kString: return kTfLiteString;
    case T::kBool: return kTfLiteBool;
    case T::kInt16: return kTfLiteInt16;
    case T::kComplex64: return kTfLiteComplex64;
    case T::kInt8: return kTfLiteInt8;
    case T::kFloat64: return kTfLiteFloat64;
    case T::kComplex128: return kTfLiteComplex128;
    case T::kUInt64: return kTfLiteUInt64;
    case T::kResource: return kTfLiteResource;
    case T::kVariant: return kTfLiteVariant;
    case T::kUInt32: return kTfLiteUInt32;
    case T::kUInt16: return kTfLiteUInt16;
    case T::kInt4: return kTfLiteInt4;
    case T::kBFloat16: return kTfLiteBFloat16;
    case T::kInt2: return kTfLiteInt2;
    case T::kUInt4: return kTfLiteUInt4;
    default: return kTfLiteNoType;
  }
}

namespace {

TfLiteAllocationType ToAllocationType(Allocation allocation) {
  using A = edgerun::Allocation;
  switch (allocation) {
    case A::kConstant: return kTfLiteMmapRo;
    case A::kArena: return kTfLiteArenaRw;
    case A::kDynamic: return kTfLiteDynamic;
    case A::kPersistent: return kTfLiteArenaRwPersistent;
    default: return kTfLiteMemNone;
  }
}

TfLiteIntArray* NewIntArray(const std::vector<int32_t>& values) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(values.size()));
  if (array == nullptr) return nullptr;
  for (size_t i = 0; i < values.size(); ++i) array->data[i] = values[i];
  return array;
}

}  // namespace

// Runs `body`, turning a C++ exception (out of memory) into a reported error.
template <class Body>
TfLiteStatus Guarded(const Reporter& reporter, Body&& body) {
  try {
    const Status status = body();
    if (status.ok()) return kTfLiteOk;
    reporter.Report(status.message());
  } catch (const std::bad_alloc&) {
    reporter.Report("out of memory");
  } catch (const std::exception& e) {
    reporter.Report(std::string("internal error: ") + e.what());
  }
  return kTfLiteError;
}

MirrorStorage::~MirrorStorage() {
  TfLiteIntArrayFree(dims_);
  TfLiteIntArrayFree(dims_signature_);
  TfLiteFloatArrayFree(affine_.scale);
  TfLiteIntArrayFree(affine_.zero_point);
}

void MirrorStorage::Sync(const Tensor& t, bool memory_valid, TfLiteTensor* out) {
  if (!initialized_) {
    initialized_ = true;
    *out = TfLiteTensor();
    out->buffer_handle = kTfLiteNullBufferHandle;
    const QuantizationParams& q = t.quantization;
    if (!q.scale.empty()) {
      affine_.scale = TfLiteFloatArrayCreate(static_cast<int>(q.scale.size()));
      affine_.zero_point = TfLiteIntArrayCreate(static_cast<int>(q.zero_point.size()));
      if (affine_.scale != nullptr && affine_.zero_point != nullptr) {
        for (size_t i = 0; i < q.scale.size(); ++i) affine_.scale->data[i] = q.scale[i];
        for (size_t i = 0; i < q.zero_point.size(); ++i) affine_.zero_point->data[i] = static_cast<int>(q.zero_point[i]);
        affine_.quantized_dimension = q.quantized_dimension;
      }
    }
    if (!t.shape_signature.empty()) dims_signature_ = NewIntArray(t.shape_signature);
  }
  out->type = ToTfLiteType(t.type);
  const int rank = t.rank();
  if (dims_ == nullptr || dims_->size != rank) {
    TfLiteIntArrayFree(dims_);
    dims_ = TfLiteIntArrayCreate(rank);
  }
  if (dims_ != nullptr) {
    for (int i = 0; i < rank; ++i) dims_->data[i] = t.shape[i];
  }
  out->dims = dims_;
  out->dims_signature = dims_signature_;
  const auto& q = t.quantization;
  out->params = (q.scale.size() == 1 && q.zero_point.size() == 1)
                    ? TfLiteQuantizationParams{q.scale[0], static_cast<int32_t>(q.zero_point[0])}
                    : TfLiteQuantizationParams{0.0f, 0};
  if (affine_.scale != nullptr && affine_.zero_point != nullptr) {
    out->quantization.type = kTfLiteAffineQuantization;
    out->quantization.params = &affine_;
  }
  out->allocation_type = ToAllocationType(t.allocation);
  out->data.data = memory_valid ? t.data : nullptr;
  size_t bytes = 0;
  if (out->data.data != nullptr) {
    bytes = t.bytes;
  } else if (!TensorBytes(t.type, t.num_elements(), &bytes)) {
    bytes = 0;
  }
  out->bytes = bytes;
  out->name = t.name.c_str();
  out->is_variable = t.is_variable;
}

}  // namespace edgerun::capi

using edgerun::Status;
using edgerun::capi::Guarded;
using edgerun::capi::kVersion;
using edgerun::capi::Reporter;

// A TfLiteTensor (first member, so that the pointers convert) and what it mirrors.
struct TensorMirror {
  TfLiteTensor tensor;
  const edgerun::Tensor* source;
  edgerun::Subgraph* subgraph;
  TfLiteInterpreter* owner;
  edgerun::capi::MirrorStorage storage;

  TensorMirror(const edgerun::Tensor* source_tensor, edgerun::Subgraph* owner_subgraph,
               TfLiteInterpreter* owner_interpreter)
      : tensor(), source(source_tensor), subgraph(owner_subgraph), owner(owner_interpreter) {
    Sync();
  }

  // Arena memory is only valid after AllocateTensors: after a resize it may be too small.
  void Sync() {
    const bool memory_valid = source->allocation == edgerun::Allocation::kConstant ||
                              source->allocation == edgerun::Allocation::kPersistent ||
                              !subgraph->needs_allocation();
    storage.Sync(*source, memory_valid, &tensor);
  }
};

struct TfLiteModel {
  std::shared_ptr<const edgerun::Model> model;
};

struct TfLiteInterpreterOptions {
  int32_t num_threads = -1;
  std::vector<TfLiteOpaqueDelegate*> delegates;
  Reporter reporter;
  std::vector<edgerun::capi::CustomKernel> custom_ops;
};

struct TfLiteInterpreter {
  std::unique_ptr<edgerun::Interpreter> impl;
  Reporter reporter;
  std::vector<std::string> signature_keys;
  std::vector<int> variable_tensors;  // indices in subgraph 0
  // Created on first use; pointers stay valid for the interpreter's lifetime.
  mutable std::unordered_map<const edgerun::Tensor*, std::unique_ptr<TensorMirror>> mirrors;

  TfLiteTensor* Mirror(edgerun::Tensor* tensor, edgerun::Subgraph* subgraph) const {
    if (tensor == nullptr) return nullptr;
    auto it = mirrors.find(tensor);
    if (it == mirrors.end()) {
      auto mirror = std::make_unique<TensorMirror>(tensor, subgraph, const_cast<TfLiteInterpreter*>(this));
      it = mirrors.emplace(tensor, std::move(mirror)).first;
    } else {
      it->second->Sync();
    }
    return &it->second->tensor;
  }
  TfLiteTensor* MirrorInSubgraph0(int tensor_index) const {
    edgerun::Subgraph* subgraph = impl->subgraph(0);
    if (tensor_index < 0 || tensor_index >= static_cast<int>(subgraph->num_tensors())) return nullptr;
    return Mirror(subgraph->tensor(tensor_index), subgraph);
  }
  void SyncAll() const {
    for (auto& [tensor, mirror] : mirrors) mirror->Sync();
  }
};

struct TfLiteSignatureRunner {
  TfLiteInterpreter* owner;
  edgerun::SignatureRunner* impl;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

namespace {

TensorMirror* MirrorOf(const TfLiteTensor* tensor) {
  return reinterpret_cast<TensorMirror*>(const_cast<TfLiteTensor*>(tensor));
}

void ReportNull(const char* function, const char* argument) {
  Reporter().Report(std::string(function) + ": " + argument + " is NULL");
}

Status CheckDims(const int* dims, int32_t size, edgerun::Shape* shape) {
  if (size < 0) return Status::Errorf("negative rank ", size);
  if (size > 0 && dims == nullptr) return Status::Error("input_dims is NULL");
  shape->assign(dims, dims + size);
  for (int32_t d : *shape) {
    if (d < 0) return Status::Errorf("negative dimension in ", edgerun::ShapeToString(*shape));
  }
  return Status::Ok();
}

// `load` returns a Result<shared_ptr<const Model>>.
template <class Load>
TfLiteModel* CreateModel(Load&& load, const Reporter& reporter) {
  try {
    auto model = load();
    if (!model.ok()) {
      reporter.Report(model.status().message());
      return nullptr;
    }
    return new TfLiteModel{std::move(model).value()};
  } catch (const std::bad_alloc&) {
    reporter.Report("out of memory loading a model");
    return nullptr;
  }
}

edgerun::Result<std::shared_ptr<const edgerun::Model>> LoadBuffer(const void* data, size_t size) {
  if (data == nullptr) return Status::Error("TfLiteModelCreate: model_data is NULL");
  return edgerun::Model::FromBuffer(data, size);
}

edgerun::Result<std::shared_ptr<const edgerun::Model>> LoadFile(const char* path) {
  if (path == nullptr) return Status::Error("TfLiteModelCreateFromFile: model_path is NULL");
  return edgerun::Model::FromFile(path);
}

}  // namespace

extern "C" {

// ---- versions and common.h helpers

const char* TfLiteVersion(void) { return kVersion; }
const char* TfLiteExtensionApisVersion(void) { return kVersion; }
int TfLiteSchemaVersion(void) { return 3; }

const char* TfLiteTypeGetName(TfLiteType type) {
  static const char* const kNames[] = {
      "NOTYPE", "FLOAT32", "INT32",      "UINT8",  "INT64",    "STRING",  "BOOL",
      "INT16",  "COMPLEX64", "INT8",     "FLOAT16", "FLOAT64", "COMPLEX128", "UINT64",
      "RESOURCE", "VARIANT", "UINT32",   "UINT16", "INT4",     "BFLOAT16", "INT2",
      "UINT4"};
  // C callers may pass any int: read it as one (loading an out-of-range enum is undefined in C++).
  int index = 0;
  static_assert(sizeof(index) == sizeof(type));
  std::memcpy(&index, &type, sizeof(index));
  if (index < 0 || index >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return "Unknown type";
  return kNames[index];
}

size_t TfLiteIntArrayGetSizeInBytes(int size) {
  return sizeof(TfLiteIntArray) + sizeof(int) * static_cast<size_t>(size < 0 ? 0 : size);
}

TfLiteIntArray* TfLiteIntArrayCreate(int size) {
  if (size < 0) return nullptr;
  auto* array = static_cast<TfLiteIntArray*>(std::malloc(TfLiteIntArrayGetSizeInBytes(size)));
  if (array != nullptr) array->size = size;
  return array;
}

TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src) {
  if (src == nullptr) return nullptr;
  TfLiteIntArray* copy = TfLiteIntArrayCreate(src->size);
  if (copy != nullptr) std::memcpy(copy->data, src->data, sizeof(int) * static_cast<size_t>(src->size));
  return copy;
}

int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a, int b_size, const int b_data[]) {
  if (a == nullptr) return b_size == 0;
  if (a->size != b_size) return 0;
  for (int i = 0; i < b_size; ++i) {
    if (a->data[i] != b_data[i]) return 0;
  }
  return 1;
}

int TfLiteIntArrayEqual(const TfLiteIntArray* a, const TfLiteIntArray* b) {
  if (a == b) return 1;
  if (a == nullptr || b == nullptr) return 0;
  return TfLiteIntArrayEqualsArray(a, b->size, b->data);
}

void TfLiteIntArrayFree(TfLiteIntArray* a) { std::free(a); }

int TfLiteFloatArrayGetSizeInBytes(int size) {
  return static_cast<int>(sizeof(TfLiteFloatArray) + sizeof(float) * static_cast<size_t>(size < 0 ? 0 : size));
}

TfLiteFloatArray* TfLiteFloatArrayCreate(int size) {
  if (size < 0) return nullptr;
  auto* array = static_cast<TfLiteFloatArray*>(std::malloc(static_cast<size_t>(TfLiteFloatArrayGetSizeInBytes(size))));
  if (array != nullptr) array->size = size;
  return array;
}

void TfLiteFloatArrayFree(TfLiteFloatArray* a) { std::free(a); }

// ---- models

TfLiteModel* TfLiteModelCreate(const void* model_data, size_t model_size) {
  return CreateModel([&] { return LoadBuffer(model_data, model_size); }, Reporter());
}

TfLiteModel* TfLiteModelCreateWithErrorReporter(const void* model_data, size_t model_size,
                                                void (*reporter)(void*, const char*, va_list),
                                                void* user_data) {
  return CreateModel([&] { return LoadBuffer(model_data, model_size); }, Reporter{reporter, user_data});
}

TfLiteModel* TfLiteModelCreateFromFile(const char* model_path) {
  return CreateModel([&] { return LoadFile(model_path); }, Reporter());
}

TfLiteModel* TfLiteModelCreateFromFileWithErrorReporter(const char* model_path,
                                                        void (*reporter)(void*, const char*, va_list),
                                                        void* user_data) {
  return CreateModel([&] { return LoadFile(model_path); }, Reporter{reporter, user_data});
}

void TfLiteModelDelete(TfLiteModel* model) { delete model; }

// ---- options

TfLiteInterpreterOptions* TfLiteInterpreterOptionsCreate(void) {
  return new (std::nothrow) TfLiteInterpreterOptions();
}

TfLiteInterpreterOptions* TfLiteInterpreterOptionsCopy(const TfLiteInterpreterOptions* from) {
  if (from == nullptr) return nullptr;
  try {
    return new TfLiteInterpreterOptions(*from);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions* options) { delete options; }

void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions* options, int32_t num_threads) {
  if (options != nullptr) options->num_threads = num_threads;
}

void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions* options, TfLiteOpaqueDelegate* delegate) {
  if (options == nullptr) return;
  try {
    options->delegates.push_back(delegate);
  } catch (const std::bad_alloc&) {
  }
}

void TfLiteInterpreterOptionsSetErrorReporter(TfLiteInterpreterOptions* options,
                                              void (*reporter)(void*, const char*, va_list),
                                              void* user_data) {
  if (options == nullptr) return;
  options->reporter = Reporter{reporter, user_data};
}

TfLiteStatus TfLiteInterpreterOptionsEnableCancellation(TfLiteInterpreterOptions* options, bool enable) {
  return options != nullptr ? kTfLiteOk : kTfLiteError;
}

void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions* options, const char* name,
                                         const TfLiteRegistration* registration, int32_t min_version,
                                         int32_t max_version) {
  if (options == nullptr || name == nullptr || registration == nullptr) {
    ReportNull("TfLiteInterpreterOptionsAddCustomOp", options == nullptr ? "options"
                                                      : name == nullptr  ? "name"
                                                                         : "registration");
    return;
  }
  edgerun::capi::CustomKernel kernel;
  kernel.name = name;
  // Only the first four members: they exist in every version of TfLiteRegistration.
  kernel.init = registration->init;
  kernel.free = registration->free;
  kernel.prepare = registration->prepare;
  kernel.invoke = registration->invoke;
  kernel.min_version = min_version;
  kernel.max_version = max_version < min_version ? min_version : max_version;
  try {
    options->custom_ops.push_back(std::move(kernel));
  } catch (const std::bad_alloc&) {
  }
}

TfLiteDelegate TfLiteDelegateCreate(void) {
  TfLiteDelegate delegate{};
  return delegate;
}

void TfLiteInterpreterOptionsSetUseNNAPI(TfLiteInterpreterOptions*, bool) {}
void TfLiteInterpreterOptionsSetEnableDelegateFallback(TfLiteInterpreterOptions*, bool) {}

// ---- interpreter

TfLiteInterpreter* TfLiteInterpreterCreate(const TfLiteModel* model,
                                           const TfLiteInterpreterOptions* optional_options) {
  const Reporter reporter = optional_options ? optional_options->reporter : Reporter();
  if (model == nullptr || !model->model) {
    reporter.Report("TfLiteInterpreterCreate: model is NULL");
    return nullptr;
  }
  std::unique_ptr<TfLiteInterpreter> interpreter;
  const TfLiteStatus status = Guarded(reporter, [&]() -> Status {
    edgerun::InterpreterOptions options;
    if (optional_options != nullptr && optional_options->num_threads > 0) {
      options.num_threads = optional_options->num_threads;
    }
    edgerun::BuiltinOpResolver resolver;
    if (optional_options != nullptr) {
      for (const auto& kernel : optional_options->custom_ops) resolver.AddCustom(edgerun::capi::MakeCustomOp(kernel));
    }
    auto impl = edgerun::Interpreter::Create(model->model, resolver, options);
    if (!impl.ok()) return impl.status();
    interpreter = std::make_unique<TfLiteInterpreter>();
    interpreter->impl = std::move(impl).value();
    interpreter->reporter = reporter;
    interpreter->signature_keys = interpreter->impl->signature_keys();
    edgerun::Subgraph* primary = interpreter->impl->subgraph(0);
    for (size_t i = 0; i < primary->num_tensors(); ++i) {
      if (primary->tensor(static_cast<int>(i))->is_variable) {
        interpreter->variable_tensors.push_back(static_cast<int>(i));
      }
    }
    return Status::Ok();
  });
  return status == kTfLiteOk ? interpreter.release() : nullptr;
}

void TfLiteInterpreterDelete(TfLiteInterpreter* interpreter) { delete interpreter; }

int32_t TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return 0;
  return static_cast<int32_t>(interpreter->impl->num_inputs());
}

const int* TfLiteInterpreterInputTensorIndices(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return nullptr;
  return interpreter->impl->inputs().data();
}

TfLiteTensor* TfLiteInterpreterGetInputTensor(const TfLiteInterpreter* interpreter, int32_t input_index) {
  if (interpreter == nullptr) {
    ReportNull("TfLiteInterpreterGetInputTensor", "interpreter");
    return nullptr;
  }
  const auto& inputs = interpreter->impl->inputs();
  if (input_index < 0 || input_index >= static_cast<int32_t>(inputs.size())) {
    interpreter->reporter.Report(edgerun::StrCat("TfLiteInterpreterGetInputTensor: input ", input_index,
                                                 " does not exist (the model has ", inputs.size(), " inputs)"));
    return nullptr;
  }
  return interpreter->MirrorInSubgraph0(inputs[input_index]);
}

int32_t TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return 0;
  return static_cast<int32_t>(interpreter->impl->num_outputs());
}

const int* TfLiteInterpreterOutputTensorIndices(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return nullptr;
  return interpreter->impl->outputs().data();
}

const TfLiteTensor* TfLiteInterpreterGetOutputTensor(const TfLiteInterpreter* interpreter, int32_t output_index) {
  if (interpreter == nullptr) {
    ReportNull("TfLiteInterpreterGetOutputTensor", "interpreter");
    return nullptr;
  }
  const auto& outputs = interpreter->impl->outputs();
  if (output_index < 0 || output_index >= static_cast<int32_t>(outputs.size())) {
    interpreter->reporter.Report(edgerun::StrCat("TfLiteInterpreterGetOutputTensor: output ", output_index,
                                                 " does not exist (the model has ", outputs.size(), " outputs)"));
    return nullptr;
  }
  return interpreter->MirrorInSubgraph0(outputs[output_index]);
}

TfLiteTensor* TfLiteInterpreterGetTensor(const TfLiteInterpreter* interpreter, int index) {
  if (interpreter == nullptr) {
    ReportNull("TfLiteInterpreterGetTensor", "interpreter");
    return nullptr;
  }
  TfLiteTensor* tensor = interpreter->MirrorInSubgraph0(index);
  if (tensor == nullptr) {
    interpreter->reporter.Report(edgerun::StrCat("TfLiteInterpreterGetTensor: tensor ", index, " does not exist (",
                                                 interpreter->impl->num_tensors(), " tensors)"));
  }
  return tensor;
}

int32_t TfLiteInterpreterGetInputTensorIndex(const TfLiteInterpreter* interpreter, int32_t input_index) {
  if (interpreter == nullptr) return -1;
  const auto& inputs = interpreter->impl->inputs();
  if (input_index < 0 || input_index >= static_cast<int32_t>(inputs.size())) return -1;
  return inputs[input_index];
}

int32_t TfLiteInterpreterGetOutputTensorIndex(const TfLiteInterpreter* interpreter, int32_t output_index) {
  if (interpreter == nullptr) return -1;
  const auto& outputs = interpreter->impl->outputs();
  if (output_index < 0 || output_index >= static_cast<int32_t>(outputs.size())) return -1;
  return outputs[output_index];
}

int32_t TfLiteInterpreterGetVariableTensorCount(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return 0;
  return static_cast<int32_t>(interpreter->variable_tensors.size());
}

TfLiteTensor* TfLiteInterpreterGetVariableTensor(const TfLiteInterpreter* interpreter, int32_t variable_index) {
  if (interpreter == nullptr) return nullptr;
  if (variable_index < 0 || variable_index >= static_cast<int32_t>(interpreter->variable_tensors.size())) {
    interpreter->reporter.Report(edgerun::StrCat("TfLiteInterpreterGetVariableTensor: variable ", variable_index,
                                                 " does not exist"));
    return nullptr;
  }
  return interpreter->MirrorInSubgraph0(interpreter->variable_tensors[variable_index]);
}

static TfLiteStatus ResizeInput(TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
                                int32_t input_dims_size, bool strict, const char* function) {
  if (interpreter == nullptr) {
    ReportNull(function, "interpreter");
    return kTfLiteError;
  }
  const TfLiteStatus status = Guarded(interpreter->reporter, [&]() -> Status {
    edgerun::Shape shape;
    ER_RETURN_IF_ERROR(CheckDims(input_dims, input_dims_size, &shape).WithContext(function));
    edgerun::Subgraph* subgraph = interpreter->impl->subgraph(0);
    if (input_index < 0 || input_index >= static_cast<int32_t>(subgraph->inputs().size())) {
      return Status::Errorf(function, ": input ", input_index, " does not exist (the model has ",
                            subgraph->inputs().size(), " inputs)");
    }
    if (strict) return subgraph->ResizeInputTensor(input_index, shape);
    // TFLite's non-strict resize: any shape; the ops' prepare decides whether it works.
    const edgerun::Tensor* tensor = subgraph->tensor(subgraph->inputs()[input_index]);
    if (tensor->is_constant()) return Status::Errorf(function, ": input '", tensor->name, "' is a constant");
    return subgraph->SetInputShape(input_index, shape);
  });
  interpreter->SyncAll();
  return status;
}

TfLiteStatus TfLiteInterpreterResizeInputTensor(TfLiteInterpreter* interpreter, int32_t input_index,
                                                const int* input_dims, int32_t input_dims_size) {
  return ResizeInput(interpreter, input_index, input_dims, input_dims_size, false,
                     "TfLiteInterpreterResizeInputTensor");
}

TfLiteStatus TfLiteInterpreterResizeInputTensorStrict(TfLiteInterpreter* interpreter, int32_t input_index,
                                                      const int* input_dims, int32_t input_dims_size) {
  return ResizeInput(interpreter, input_index, input_dims, input_dims_size, true,
                     "TfLiteInterpreterResizeInputTensorStrict");
}

TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) {
    ReportNull("TfLiteInterpreterAllocateTensors", "interpreter");
    return kTfLiteError;
  }
  const TfLiteStatus status = Guarded(interpreter->reporter, [&] { return interpreter->impl->AllocateTensors(); });
  interpreter->SyncAll();
  return status;
}

TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) {
    ReportNull("TfLiteInterpreterInvoke", "interpreter");
    return kTfLiteError;
  }
  const TfLiteStatus status = Guarded(interpreter->reporter, [&] { return interpreter->impl->Invoke(); });
  interpreter->SyncAll();
  return status;
}

TfLiteStatus TfLiteInterpreterResetVariableTensors(TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return kTfLiteError;
  const TfLiteStatus status =
      Guarded(interpreter->reporter, [&] { return interpreter->impl->ResetVariableTensors(); });
  interpreter->SyncAll();
  return status;
}

TfLiteStatus TfLiteInterpreterCancel(const TfLiteInterpreter*) { return kTfLiteError; }

// ---- signatures

int32_t TfLiteInterpreterGetSignatureCount(const TfLiteInterpreter* interpreter) {
  if (interpreter == nullptr) return 0;
  return static_cast<int32_t>(interpreter->signature_keys.size());
}

const char* TfLiteInterpreterGetSignatureKey(const TfLiteInterpreter* interpreter, int32_t signature_index) {
  if (interpreter == nullptr) return nullptr;
  if (signature_index < 0 || signature_index >= static_cast<int32_t>(interpreter->signature_keys.size())) {
    return nullptr;
  }
  return interpreter->signature_keys[signature_index].c_str();
}

TfLiteSignatureRunner* TfLiteInterpreterGetSignatureRunner(const TfLiteInterpreter* interpreter,
                                                           const char* signature_key) {
  if (interpreter == nullptr || signature_key == nullptr) return nullptr;
  try {
    edgerun::SignatureRunner* runner = interpreter->impl->GetSignatureRunner(signature_key);
    if (runner == nullptr) return nullptr;
    return new TfLiteSignatureRunner{const_cast<TfLiteInterpreter*>(interpreter), runner, runner->input_names(),
                                     runner->output_names()};
  } catch (const std::bad_alloc&) {
    interpreter->reporter.Report("out of memory");
    return nullptr;
  }
}

size_t TfLiteSignatureRunnerGetInputCount(const TfLiteSignatureRunner* signature_runner) {
  return signature_runner ? signature_runner->input_names.size() : 0;
}

const char* TfLiteSignatureRunnerGetInputName(const TfLiteSignatureRunner* signature_runner, int32_t input_index) {
  if (signature_runner == nullptr || input_index < 0 ||
      input_index >= static_cast<int32_t>(signature_runner->input_names.size())) {
    return nullptr;
  }
  return signature_runner->input_names[input_index].c_str();
}

size_t TfLiteSignatureRunnerGetOutputCount(const TfLiteSignatureRunner* signature_runner) {
  return signature_runner ? signature_runner->output_names.size() : 0;
}

const char* TfLiteSignatureRunnerGetOutputName(const TfLiteSignatureRunner* signature_runner, int32_t output_index) {
  if (signature_runner == nullptr || output_index < 0 ||
      output_index >= static_cast<int32_t>(signature_runner->output_names.size())) {
    return nullptr;
  }
  return signature_runner->output_names[output_index].c_str();
}

TfLiteStatus TfLiteSignatureRunnerResizeInputTensor(TfLiteSignatureRunner* signature_runner, const char* input_name,
                                                    const int* input_dims, int32_t input_dims_size) {
  if (signature_runner == nullptr || input_name == nullptr) {
    ReportNull("TfLiteSignatureRunnerResizeInputTensor", signature_runner ? "input_name" : "signature_runner");
    return kTfLiteError;
  }
  TfLiteInterpreter* owner = signature_runner->owner;
  const TfLiteStatus status = Guarded(owner->reporter, [&]() -> Status {
    edgerun::Shape shape;
    ER_RETURN_IF_ERROR(CheckDims(input_dims, input_dims_size, &shape).WithContext("TfLiteSignatureRunnerResizeInputTensor"));
    return signature_runner->impl->ResizeInputTensor(input_name, shape);
  });
  owner->SyncAll();
  return status;
}

TfLiteStatus TfLiteSignatureRunnerAllocateTensors(TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == nullptr) {
    ReportNull("TfLiteSignatureRunnerAllocateTensors", "signature_runner");
    return kTfLiteError;
  }
  TfLiteInterpreter* owner = signature_runner->owner;
  const TfLiteStatus status = Guarded(owner->reporter, [&] { return signature_runner->impl->AllocateTensors(); });
  owner->SyncAll();
  return status;
}

TfLiteStatus TfLiteSignatureRunnerInvoke(TfLiteSignatureRunner* signature_runner) {
  if (signature_runner == nullptr) {
    ReportNull("TfLiteSignatureRunnerInvoke", "signature_runner");
    return kTfLiteError;
  }
  TfLiteInterpreter* owner = signature_runner->owner;
  const TfLiteStatus status = Guarded(owner->reporter, [&] { return signature_runner->impl->Invoke(); });
  owner->SyncAll();
  return status;
}

TfLiteTensor* TfLiteSignatureRunnerGetInputTensor(TfLiteSignatureRunner* signature_runner, const char* input_name) {
  if (signature_runner == nullptr || input_name == nullptr) return nullptr;
  edgerun::Tensor* tensor = signature_runner->impl->input(input_name);
  if (tensor == nullptr) {
    signature_runner->owner->reporter.Report(edgerun::StrCat("signature '", signature_runner->impl->key(),
                                                             "' has no input named '", input_name, "'"));
    return nullptr;
  }
  return signature_runner->owner->Mirror(tensor,
                                         signature_runner->owner->impl->subgraph(signature_runner->impl->subgraph_index()));
}

const TfLiteTensor* TfLiteSignatureRunnerGetOutputTensor(const TfLiteSignatureRunner* signature_runner,
                                                         const char* output_name) {
  if (signature_runner == nullptr || output_name == nullptr) return nullptr;
  edgerun::Tensor* tensor = signature_runner->impl->output(output_name);
  if (tensor == nullptr) {
    signature_runner->owner->reporter.Report(edgerun::StrCat("signature '", signature_runner->impl->key(),
                                                             "' has no output named '", output_name, "'"));
    return nullptr;
  }
  return signature_runner->owner->Mirror(tensor,
                                         signature_runner->owner->impl->subgraph(signature_runner->impl->subgraph_index()));
}

TfLiteStatus TfLiteSignatureRunnerCancel(TfLiteSignatureRunner*) { return kTfLiteError; }

void TfLiteSignatureRunnerDelete(TfLiteSignatureRunner* signature_runner) { delete signature_runner; }

// ---- tensors

TfLiteType TfLiteTensorType(const TfLiteTensor* tensor) { return tensor ? tensor->type : kTfLiteNoType; }

int32_t TfLiteTensorNumDims(const TfLiteTensor* tensor) {
  if (tensor == nullptr || tensor->dims == nullptr) return -1;
  return tensor->dims->size;
}

int32_t TfLiteTensorDim(const TfLiteTensor* tensor, int32_t dim_index) {
  if (tensor == nullptr || tensor->dims == nullptr || dim_index < 0 || dim_index >= tensor->dims->size) return -1;
  return tensor->dims->data[dim_index];
}

size_t TfLiteTensorByteSize(const TfLiteTensor* tensor) { return tensor ? tensor->bytes : 0; }

void* TfLiteTensorData(const TfLiteTensor* tensor) { return tensor ? tensor->data.data : nullptr; }

const char* TfLiteTensorName(const TfLiteTensor* tensor) { return tensor ? tensor->name : nullptr; }

TfLiteQuantizationParams TfLiteTensorQuantizationParams(const TfLiteTensor* tensor) {
  return tensor ? tensor->params : TfLiteQuantizationParams{0.0f, 0};
}

static TfLiteStatus CheckCopy(const TfLiteTensor* tensor, const void* buffer, size_t size, const char* function) {
  if (tensor == nullptr) {
    ReportNull(function, "tensor");
    return kTfLiteError;
  }
  const Reporter& reporter = MirrorOf(tensor)->owner->reporter;
  const char* name = tensor->name ? tensor->name : "";
  if (size != tensor->bytes) {
    reporter.Report(edgerun::StrCat(function, ": tensor '", name, "' has ", tensor->bytes, " bytes, the buffer ",
                                    size));
    return kTfLiteError;
  }
  if (size == 0) return kTfLiteOk;
  if (tensor->data.data == nullptr) {
    reporter.Report(edgerun::StrCat(function, ": tensor '", name,
                                    "' has no memory yet: call TfLiteInterpreterAllocateTensors first"));
    return kTfLiteError;
  }
  if (buffer == nullptr) {
    ReportNull(function, "buffer");
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor* tensor, const void* input_data, size_t input_data_size) {
  const TfLiteStatus status = CheckCopy(tensor, input_data, input_data_size, "TfLiteTensorCopyFromBuffer");
  if (status != kTfLiteOk || input_data_size == 0) return status;
  if (tensor->allocation_type == kTfLiteMmapRo) {
    MirrorOf(tensor)->owner->reporter.Report(edgerun::StrCat("TfLiteTensorCopyFromBuffer: tensor '", tensor->name,
                                                             "' is a constant of the model (read-only)"));
    return kTfLiteError;
  }
  std::memcpy(tensor->data.data, input_data, input_data_size);
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor* output_tensor, void* output_data, size_t output_data_size) {
  const TfLiteStatus status = CheckCopy(output_tensor, output_data, output_data_size, "TfLiteTensorCopyToBuffer");
  if (status != kTfLiteOk || output_data_size == 0) return status;
  std::memcpy(output_data, output_tensor->data.data, output_data_size);
  return kTfLiteOk;
}

}  // extern "C"
