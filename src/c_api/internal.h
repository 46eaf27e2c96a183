// Shared by the C API's files: error reporting, the TfLiteTensor mirror of an edgerun tensor, and
// TFLite kernels (TfLiteRegistration) run as edgerun ops.
#pragma once

#include <string>

#include "edgerun/c_api.h"
#include "edgerun/op.h"
#include "edgerun/tensor.h"

namespace edgerun::capi {

struct Reporter {
  TfLiteErrorReporterFunction fn = nullptr;  // null: stderr
  void* user_data = nullptr;
  void Report(const std::string& message) const;
};

TfLiteType ToTfLiteType(TensorType type);

// The arrays a TfLiteTensor points to (dims, dims_signature, affine quantization).
class MirrorStorage {
 public:
  MirrorStorage() = default;
  ~MirrorStorage();
  MirrorStorage(const MirrorStorage&) = delete;
  MirrorStorage& operator=(const MirrorStorage&) = delete;

  // Fills every field of `out` from `source`. The quantization and the shape signature, which do
  // not change, are converted once; `memory_valid` false hands out no data pointer (arena memory
  // before allocation, or after a resize).
  void Sync(const Tensor& source, bool memory_valid, TfLiteTensor* out);

 private:
  bool initialized_ = false;
  TfLiteIntArray* dims_ = nullptr;
  TfLiteIntArray* dims_signature_ = nullptr;
  TfLiteAffineQuantization affine_{};
};

// A kernel given to TfLiteInterpreterOptionsAddCustomOp.
struct CustomKernel {
  std::string name;
  void* (*init)(TfLiteContext*, const char*, size_t) = nullptr;
  void (*free)(TfLiteContext*, void*) = nullptr;
  TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*) = nullptr;
  TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*) = nullptr;
  int min_version = 1;
  int max_version = 1;
};

// An edgerun op that runs `kernel` with a TfLiteContext over its subgraph's tensors.
OpRegistration MakeCustomOp(const CustomKernel& kernel);

}  // namespace edgerun::capi
