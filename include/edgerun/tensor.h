// Tensor: type, shape, quantization and where its bytes live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgerun/types.h"

namespace edgerun {

using Shape = std::vector<int32_t>;

// Number of elements of a shape; 1 for a scalar (rank 0). Returns -1 on a negative dimension or
// when the product does not fit in int64.
int64_t NumElements(const Shape& shape);

// "[1,224,224,3]"
std::string ShapeToString(const Shape& shape);

// Affine quantization: real = scale * (q - zero_point). One scale/zero point per tensor, or one
// per slice along `quantized_dimension` (per-channel weights).
struct QuantizationParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;

  bool empty() const { return scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
};

// Memory owned by one tensor, aligned for SIMD loads.
class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 64;
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept { *this = std::move(other); }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  ~AlignedBuffer();

  // Makes room for at least `bytes` bytes; keeps the memory when it is already large enough.
  // Contents are not preserved. Returns false when the allocation fails.
  bool Reserve(size_t bytes);
  void Release();
  uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

enum class Allocation : uint8_t {
  kNone,        // no memory yet (or a tensor nobody reads or writes)
  kConstant,    // read-only, points into the model (weights)
  kArena,       // activation, placed in the subgraph's arena by the planner
  kDynamic,     // size known only at Invoke; owns its memory
  kPersistent,  // variable tensors and op state that outlive one Invoke; owns its memory
};

struct Tensor {
  std::string name;
  TensorType type = TensorType::kFloat32;
  Shape shape;
  Shape shape_signature;  // from the file; -1 marks a dynamic dimension; empty when absent
  QuantizationParams quantization;
  Allocation allocation = Allocation::kNone;
  bool is_variable = false;
  const void* sparsity = nullptr;  // tflite::SparsityParameters of a sparse constant, or null

  void* data = nullptr;
  size_t bytes = 0;  // size of the data for the current shape
  AlignedBuffer owned;  // storage of kDynamic and kPersistent tensors

  template <class T>
  T* data_as() {
    return static_cast<T*>(data);
  }
  template <class T>
  const T* data_as() const {
    return static_cast<const T*>(data);
  }
  int rank() const { return static_cast<int>(shape.size()); }
  int32_t dim(int i) const { return shape[i]; }
  int64_t num_elements() const { return NumElements(shape); }
  bool is_constant() const { return allocation == Allocation::kConstant; }
  bool is_dynamic() const { return allocation == Allocation::kDynamic; }
  // Per-tensor scale and zero point (the first ones of a per-channel tensor).
  float scale() const { return quantization.scale.empty() ? 0.0f : quantization.scale[0]; }
  int32_t zero_point() const {
    return quantization.zero_point.empty() ? 0 : static_cast<int32_t>(quantization.zero_point[0]);
  }
};

// TFLite's string tensor layout: int32 count N, int32 offsets[N + 1] from the start of the
// buffer, then the bytes of all strings.
std::vector<std::string> ReadStringTensor(const void* data, size_t bytes, bool* ok);
std::vector<uint8_t> WriteStringTensor(const std::vector<std::string>& strings);

}  // namespace edgerun
