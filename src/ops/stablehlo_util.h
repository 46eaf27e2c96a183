// Shared code of the STABLEHLO_* ops and REDUCE_WINDOW: element-type dispatch with TFLite's
// arithmetic (integers wrap, float16 computes in float and rounds back, bool + bool is OR),
// option arrays, multi-dimensional index walking, and the "computation" subgraphs that
// reduce_window and scatter apply: recognized when they are one ADD/MUL/MAX/MIN/AND/OR op (as
// TFLite does), otherwise run element by element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/reference/reduce_window.h"
#include "model/flatbuffer_read.h"
#include "ops/control_flow_util.h"
#include "quant/float16.h"

namespace edgerun::ops::stablehlo {

// float16 as a value type: arithmetic and comparisons in float, stored rounded to half.
struct Half {
  uint16_t bits = 0;
  static Half From(float f) { return Half{FloatToHalf(f)}; }
  float value() const { return HalfToFloat(bits); }
  friend Half operator+(Half a, Half b) { return From(a.value() + b.value()); }
  friend Half operator-(Half a, Half b) { return From(a.value() - b.value()); }
  friend Half operator*(Half a, Half b) { return From(a.value() * b.value()); }
  friend bool operator<(Half a, Half b) { return a.value() < b.value(); }
  friend bool operator<=(Half a, Half b) { return a.value() <= b.value(); }
  friend bool operator>=(Half a, Half b) { return a.value() >= b.value(); }
  explicit operator bool() const { return value() != 0.0f; }
};

// A truth value as a T (Half has no conversion from bool).
template <class T>
T FromBool(bool v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half::From(v ? 1.0f : 0.0f);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
inline constexpr bool kIsWrappingInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// a + b and a * b as TFLite computes them, with two's-complement wrapping for integers.
template <class T>
T Add(T a, T b) {
  if constexpr (kIsWrappingInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return a + b;
  }
}
template <class T>
T Mul(T a, T b) {
  if constexpr (kIsWrappingInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) * static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

// Calls fn(T{}) with the C++ type of a tensor type; false when the type has no case.
// `with_bool`: bool as bool (true) or as its int8 storage (false, TFLite's reduce_window).
template <class Fn>
bool DispatchType(TensorType type, Fn&& fn, bool with_float16 = true, bool with_bool = true) {
  switch (type) {
    case TensorType::kFloat16:
      if (!with_float16) return false;
      fn(Half{});
      return true;
    case TensorType::kFloat32: fn(float{}); return true;
    case TensorType::kFloat64: fn(double{}); return true;
    case TensorType::kInt8: fn(int8_t{}); return true;
    case TensorType::kInt16: fn(int16_t{}); return true;
    case TensorType::kInt32: fn(int32_t{}); return true;
    case TensorType::kInt64: fn(int64_t{}); return true;
    case TensorType::kUInt8: fn(uint8_t{}); return true;
    case TensorType::kUInt16: fn(uint16_t{}); return true;
    case TensorType::kUInt32: fn(uint32_t{}); return true;
    case TensorType::kUInt64: fn(uint64_t{}); return true;
    case TensorType::kBool:
      if (with_bool) fn(bool{});
      else fn(int8_t{});
      return true;
    default:
      return false;
  }
}

// An int64 array option (absent = empty).
inline std::vector<int64_t> ReadLongs(const flatbuffers::Vector<int64_t>* v) { return ReadInt64Vector(v); }

inline bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Advances a row-major multi-index over `shape`; false after the last one.
inline bool NextIndex(const Shape& shape, std::vector<int64_t>& index) {
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

// Row-major flat position of `index` in `shape`.
inline int64_t FlatIndex(const Shape& shape, const std::vector<int64_t>& index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

// A list of dimension numbers from an op's options (offset_dims, collapsed_slice_dims, ...): each
// in [0, bound), none repeated, ascending when `sorted`. The error names the list.
Status CheckDimensionList(const OpContext& ctx, const std::vector<int64_t>& dims, const char* name, int64_t bound,
                          bool sorted);

// Two same-typed, same-shaped inputs, one output of that shape (TFLite's ElementwisePrepare).
Status PrepareSameShapeBinary(OpContext& ctx);
// PrepareSameShapeBinary, for an op whose eval runs every type EvalSameShapeBinary does
// (float16 included): ADD, MULTIPLY, MAXIMUM, MINIMUM.
Status PrepareElementwiseBinary(OpContext& ctx);

// output[i] = fn(a[i], b[i]) for an op prepared with PrepareSameShapeBinary; fn is generic over
// the element types DispatchType gives (with_float16: whether float16 is one of them).
template <class Fn>
Status EvalSameShapeBinary(OpContext& ctx, Fn fn, bool with_float16 = true) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  const int64_t n = out->num_elements();
  const bool known = DispatchType(
      a->type,
      [&](auto tag) {
        using T = decltype(tag);
        const T* x = static_cast<const T*>(a->data);
        const T* y = static_cast<const T*>(b->data);
        T* z = static_cast<T*>(out->data);
        for (int64_t i = 0; i < n; ++i) z[i] = fn(x[i], y[i]);
      },
      with_float16);
  if (!known) return ctx.Error("type ", TensorTypeName(a->type), " is not supported");
  return Status::Ok();
}

// True when EvalSameShapeBinary runs `type`.
inline bool IsElementwiseType(TensorType type, bool with_float16 = true) {
  return DispatchType(type, [](auto) {}, with_float16);
}

// The reduction a computation subgraph performs.
enum class Body { kUpdate, kAdd, kMul, kMax, kMin, kAnd, kOr, kOther };

// kUpdate for a subgraph without ops, the op's kind for a single ADD/MUL/MAXIMUM/MINIMUM/
// LOGICAL_AND/LOGICAL_OR (or their STABLEHLO_ forms), else kOther.
Body ClassifyBody(const Subgraph& body);

// Runs a scalar computation subgraph (two rank-0 inputs of `type`, one rank-0 output of `type`)
// on raw element bytes.
class BodyCaller {
 public:
  Status Prepare(OpContext& ctx, Subgraph* body, TensorType type);
  Status Call(OpContext& ctx, const void* a, const void* b, void* result);

 private:
  Subgraph* body_ = nullptr;
  size_t element_ = 0;
  Tensor lhs_, rhs_;
  uint64_t lhs_storage_[2] = {}, rhs_storage_[2] = {};
};

// True when the reduce_window fast path (TFLite's kernel) runs `body` on `type`: bool (as its
// int8 storage), int8/16/32/64, uint8, float32, float64 with ADD/MUL/MAX/MIN/AND/OR.
bool ReduceWindowFastPath(Body body, TensorType type);

// Folds the windows of `input` into `output` (sized from g.output): with TFLite's arithmetic for
// a recognized body, else by calling the computation subgraph through `caller`.
Status RunReduceWindow(OpContext& ctx, const reference::WindowGeometry& g, Body body, BodyCaller* caller,
                       const Tensor* input, const Tensor* init, Tensor* output);

}  // namespace edgerun::ops::stablehlo
