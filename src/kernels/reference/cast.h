// Element type conversion with TFLite's CAST rules:
//   float -> integer truncates toward zero and saturates (NaN -> the largest value),
//   anything -> bool is x != 0, complex -> real types keeps the real part,
//   integer -> integer wraps (two's complement), float16 / bfloat16 go through float32.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "edgerun/types.h"
#include "quant/float16.h"

namespace edgerun::reference::math {

// Storage wrappers for the element types that are not C++ arithmetic types.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};
struct BoolByte {  // a bool as read from a tensor: any non-zero byte is true
  uint8_t byte;
};
using Complex64 = std::complex<float>;

inline float BFloat16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

// Round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t FloatToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

template <class To, class From>
To SaturatingFloatToInt(From value) {
  if (std::isnan(value)) return std::numeric_limits<To>::max();
  const From lo = static_cast<From>(std::numeric_limits<To>::lowest());
  From hi = static_cast<From>(std::numeric_limits<To>::max());
  // The largest integer may round up when converted (INT32_MAX -> 2^31 in float).
  if (static_cast<long double>(hi) > static_cast<long double>(std::numeric_limits<To>::max())) {
    hi = std::nextafter(hi, From(0));
  }
  if (value < lo) return std::numeric_limits<To>::lowest();
  if (value > hi) return std::numeric_limits<To>::max();
  return static_cast<To>(value);
}

template <class To, class From>
To CastValue(From v) {
  if constexpr (std::is_same_v<From, Half>) {
    return CastValue<To>(HalfToFloat(v.bits));
  } else if constexpr (std::is_same_v<From, BFloat16>) {
    return CastValue<To>(BFloat16ToFloat(v.bits));
  } else if constexpr (std::is_same_v<From, BoolByte>) {
    return CastValue<To>(v.byte != 0);
  } else if constexpr (std::is_same_v<From, Complex64>) {
    if constexpr (std::is_same_v<To, Complex64>) {
      return v;
    } else {
      return CastValue<To>(v.real());
    }
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{FloatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{FloatToBFloat16(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, Complex64>) {
    return Complex64(static_cast<float>(v), 0.0f);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    return SaturatingFloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Calls fn(T{}) with the storage type of a CAST element type; false for types CAST does not
// convert element by element (strings, sub-byte types, ...).
template <class Fn>
bool VisitCastType(TensorType type, Fn&& fn) {
  switch (type) {
    case TensorType::kFloat32:
      fn(float{});
      return true;
    case TensorType::kFloat64:
      fn(double{});
      return true;
    case TensorType::kFloat16:
      fn(Half{});
      return true;
    case TensorType::kBFloat16:
      fn(BFloat16{});
      return true;
    case TensorType::kInt8:
      fn(int8_t{});
      return true;
    case TensorType::kInt16:
      fn(int16_t{});
      return true;
    case TensorType::kInt32:
      fn(int32_t{});
      return true;
    case TensorType::kInt64:
      fn(int64_t{});
      return true;
    case TensorType::kUInt8:
      fn(uint8_t{});
      return true;
    case TensorType::kUInt16:
      fn(uint16_t{});
      return true;
    case TensorType::kUInt32:
      fn(uint32_t{});
      return true;
    case TensorType::kBool:
      fn(bool{});
      return true;
    case TensorType::kComplex64:
      fn(Complex64{});
      return true;
    default:
      return false;
  }
}

// Packed 4-bit integers (two per byte, the first element in the low nibble) to float.
inline float UnpackInt4(const uint8_t* packed, int64_t i, bool is_signed) {
  const int nibble = (packed[i / 2] >> ((i % 2) * 4)) & 0x0f;
  return static_cast<float>(is_signed && nibble >= 8 ? nibble - 16 : nibble);
}

// Float to a packed 4-bit integer: clamped to the range, then truncated (NaN gives the top).
inline void PackInt4(float value, int64_t i, bool is_signed, uint8_t* packed) {
  const float lo = is_signed ? -8.0f : 0.0f, hi = is_signed ? 7.0f : 15.0f;
  const float clamped = std::max(lo, std::min(hi, value));
  const int nibble = static_cast<int>(clamped) & 0x0f;
  const int shift = static_cast<int>(i % 2) * 4;
  packed[i / 2] = static_cast<uint8_t>((packed[i / 2] & ~(0x0f << shift)) | (nibble << shift));
}

}  // namespace edgerun::reference::math
