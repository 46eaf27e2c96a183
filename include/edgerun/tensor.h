// Tensor: type, shape, quantization and where its bytes live.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <initializer_list>
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
//
// The values either live in the tensor (set them like a std::vector) or, for tensors read from a
// model, are a view of the model's own bytes: a model's per-channel scales and zero points are
// then not copied (MobileNet v2 int8 has 26k of them; copying them into fresh heap pages was a
// third of building the interpreter). A view is valid as long as the model, like the weights.
// Anything that changes the values first makes the tensor its own copy.
template <class T>
class QuantValues {
 public:
  using value_type = T;
  using const_iterator = const T*;
  using iterator = const T*;

  QuantValues() = default;
  QuantValues(std::vector<T> values) : owned_(std::move(values)) { Own(); }  // NOLINT: as a vector
  QuantValues(std::initializer_list<T> values) : owned_(values) { Own(); }
  QuantValues(const QuantValues& other) { *this = other; }
  QuantValues(QuantValues&& other) noexcept { *this = std::move(other); }
  QuantValues& operator=(const QuantValues& other) {
    if (this == &other) return *this;
    if (other.is_view()) {
      owned_.clear();
      data_ = other.data_;
      size_ = other.size_;
    } else {
      owned_ = other.owned_;
      Own();
    }
    return *this;
  }
  QuantValues& operator=(QuantValues&& other) noexcept {
    if (this == &other) return *this;
    const bool view = other.is_view();
    owned_ = std::move(other.owned_);
    if (view) {
      data_ = other.data_;
      size_ = other.size_;
    } else {
      Own();
    }
    other.owned_.clear();
    other.Own();
    return *this;
  }

  // Values that stay where they are (`count` of them at `values`, which must outlive this).
  static QuantValues View(const T* values, size_t count) {
    QuantValues v;
    v.data_ = count > 0 ? values : nullptr;
    v.size_ = count;
    return v;
  }
  bool is_view() const { return size_ > 0 && data_ != owned_.data(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return data_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> ToVector() const { return std::vector<T>(begin(), end()); }

  void clear() { Edit().clear(), Own(); }
  void assign(size_t count, const T& value) { Edit().assign(count, value), Own(); }
  template <class It>
  void assign(It first, It last) {
    std::vector<T> values(first, last);  // may read this tensor's own values
    owned_ = std::move(values);
    Own();
  }
  void push_back(const T& value) { Edit().push_back(value), Own(); }
  void resize(size_t count, const T& value = T()) { Edit().resize(count, value), Own(); }
  // The one way to change a value in place.
  void set(size_t i, const T& value) { Edit()[i] = value, Own(); }

  friend bool operator==(const QuantValues& a, const QuantValues& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const QuantValues& a, const QuantValues& b) { return !(a == b); }

 private:
  std::vector<T>& Edit() {
    if (is_view()) owned_.assign(begin(), end());
    return owned_;
  }
  void Own() {
    data_ = owned_.data();
    size_ = owned_.size();
  }

  std::vector<T> owned_;
  const T* data_ = nullptr;
  size_t size_ = 0;
};

struct QuantizationParams {
  QuantValues<float> scale;
  QuantValues<int64_t> zero_point;
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
