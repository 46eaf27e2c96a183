// Tensor element types. The numeric values are TFLite's (schema TensorType), so that a type
// read from a file converts by a cast; this header is the one place that names them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace edgerun {

enum class TensorType : int8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUInt8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
  kComplex128 = 11,
  kUInt64 = 12,
  kResource = 13,
  kVariant = 14,
  kUInt32 = 15,
  kUInt16 = 16,
  kInt4 = 17,
  kBFloat16 = 18,
  kInt2 = 19,
  kUInt4 = 20,
  kFloat8E4M3FN = 21,
  kFloat8E5M2 = 22,
};
inline constexpr int kLastTensorType = 22;

// Lower-case name as numpy and the conformance corpus spell it: "float32", "int8", ...
const char* TensorTypeName(TensorType type);

// Parses a name from TensorTypeName; false when unknown.
bool ParseTensorType(std::string_view name, TensorType* type);

// Bytes of one element; 0 for types without a fixed element size (string, resource, variant)
// and for sub-byte types (int4, int2, uint4), whose storage is packed: see TensorBytes().
size_t TensorTypeSize(TensorType type);

// True for types edgerun can hold as plain arrays of fixed-size elements.
bool IsFixedSizeType(TensorType type);

// Bytes needed to store `num_elements` elements of `type` as TFLite stores them in a file
// (sub-byte types packed, two int4 per byte). Returns false when the type has no fixed size
// or the size overflows.
bool TensorBytes(TensorType type, int64_t num_elements, size_t* bytes);

}  // namespace edgerun
