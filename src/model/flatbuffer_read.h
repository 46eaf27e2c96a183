// Reading the [long] vectors of a .tflite file (quantization zero points, STABLEHLO options).
// The FlatBuffers verifier checks that a vector's length field is 4-byte aligned, not that its
// 8-byte elements are 8-byte aligned: a crafted file can misalign them, and
// flatbuffers::Vector<int64_t>::Get would then load a misaligned int64_t (undefined behaviour,
// found by fuzz_model under UBSan). ReadInt64Vector copies the bytes instead.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include "edgerun/tensor.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace edgerun {

static_assert(FLATBUFFERS_LITTLEENDIAN, "a .tflite file is little-endian; this copies its bytes as they are");

inline std::vector<int64_t> ReadInt64Vector(const flatbuffers::Vector<int64_t>* v) {
  std::vector<int64_t> out;
  if (v == nullptr || v->size() == 0) return out;
  out.resize(v->size());
  std::memcpy(out.data(), v->Data(), out.size() * sizeof(int64_t));
  return out;
}

// The values of a verified vector as QuantValues: a view of the file's bytes when they are
// aligned for T (what the converter writes), a copy otherwise (see above).
template <class T>
QuantValues<T> ViewOrCopy(const flatbuffers::Vector<T>* v) {
  if (v == nullptr || v->size() == 0) return {};
  const auto* bytes = reinterpret_cast<const uint8_t*>(v->Data());
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(T) == 0) {
    return QuantValues<T>::View(reinterpret_cast<const T*>(bytes), v->size());
  }
  std::vector<T> copy(v->size());
  std::memcpy(copy.data(), bytes, copy.size() * sizeof(T));
  return copy;
}

}  // namespace edgerun
