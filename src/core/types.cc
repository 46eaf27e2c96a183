#include "edgerun/types.h"

#include <cstring>
#include <limits>

namespace edgerun {
namespace {

struct TypeInfo {
  const char* name;
  size_t size;  // 0: no fixed element size, or packed sub-byte storage
};

constexpr TypeInfo kTypes[] = {
    {"float32", 4}, {"float16", 2},   {"int32", 4},      {"uint8", 1},     {"int64", 8},
    {"string", 0},  {"bool", 1},      {"int16", 2},      {"complex64", 8}, {"int8", 1},
    {"float64", 8}, {"complex128", 16}, {"uint64", 8},   {"resource", 0},  {"variant", 0},
    {"uint32", 4},  {"uint16", 2},    {"int4", 0},       {"bfloat16", 2},  {"int2", 0},
    {"uint4", 0},   {"float8_e4m3fn", 1}, {"float8_e5m2", 1},
};
static_assert(sizeof(kTypes) / sizeof(kTypes[0]) == kLastTensorType + 1);

bool Known(TensorType type) {
  const int value = static_cast<int>(type);
  return value >= 0 && value <= kLastTensorType;
}

}  // namespace

const char* TensorTypeName(TensorType type) {
  return Known(type) ? kTypes[static_cast<int>(type)].name : "unknown";
}

bool ParseTensorType(std::string_view name, TensorType* type) {
  for (int i = 0; i <= kLastTensorType; ++i) {
    if (name == kTypes[i].name) {
      *type = static_cast<TensorType>(i);
      return true;
    }
  }
  return false;
}

size_t TensorTypeSize(TensorType type) { return Known(type) ? kTypes[static_cast<int>(type)].size : 0; }

bool IsFixedSizeType(TensorType type) { return TensorTypeSize(type) != 0; }

bool TensorBytes(TensorType type, int64_t num_elements, size_t* bytes) {
  if (num_elements < 0) return false;
  const auto n = static_cast<uint64_t>(num_elements);
  switch (type) {
    case TensorType::kInt4:
    case TensorType::kUInt4:
      *bytes = static_cast<size_t>((n + 1) / 2);
      return true;
    case TensorType::kInt2:
      *bytes = static_cast<size_t>((n + 3) / 4);
      return true;
    default:
      break;
  }
  const size_t size = TensorTypeSize(type);
  if (size == 0) return false;
  if (n > std::numeric_limits<size_t>::max() / size) return false;
  *bytes = static_cast<size_t>(n) * size;
  return true;
}

}  // namespace edgerun
