#include "edgerun/tensor.h"

#include "core/block_memory.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace edgerun {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int32_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = other.data_;
    capacity_ = other.capacity_;
    other.data_ = nullptr;
    other.capacity_ = 0;
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { Release(); }

bool AlignedBuffer::Reserve(size_t bytes) {
  if (bytes <= capacity_ && data_ != nullptr) return true;
  Release();
  // Round up so that vector loads past the last element stay inside the allocation.
  const size_t rounded = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < bytes) return false;
  void* p = AllocateBlock(rounded, kAlignment);
  if (p == nullptr) return false;
  data_ = static_cast<uint8_t*>(p);
  capacity_ = rounded;
  return true;
}

void AlignedBuffer::Release() {
  FreeBlock(data_, capacity_);
  data_ = nullptr;
  capacity_ = 0;
}

std::vector<std::string> ReadStringTensor(const void* data, size_t bytes, bool* ok) {
  *ok = false;
  std::vector<std::string> out;
  const auto* p = static_cast<const uint8_t*>(data);
  if (bytes < 4 || p == nullptr) return out;
  int32_t count;
  std::memcpy(&count, p, 4);
  if (count < 0 || static_cast<uint64_t>(count) + 2 > bytes / 4) return out;
  const size_t header = 4 * (static_cast<size_t>(count) + 2);
  int32_t prev;
  std::memcpy(&prev, p + 4, 4);
  if (prev < 0 || static_cast<size_t>(prev) < header || static_cast<size_t>(prev) > bytes) return out;
  out.reserve(count);
  for (int32_t i = 0; i < count; ++i) {
    int32_t next;
    std::memcpy(&next, p + 4 * (i + 2), 4);
    if (next < prev || static_cast<size_t>(next) > bytes) {
      out.clear();
      return out;
    }
    out.emplace_back(reinterpret_cast<const char*>(p + prev), next - prev);
    prev = next;
  }
  *ok = true;
  return out;
}

std::vector<uint8_t> WriteStringTensor(const std::vector<std::string>& strings) {
  const size_t header = 4 * (strings.size() + 2);
  size_t total = header;
  for (const auto& s : strings) total += s.size();
  std::vector<uint8_t> out(total);
  auto put = [&](size_t at, int32_t v) { std::memcpy(out.data() + at, &v, 4); };
  put(0, static_cast<int32_t>(strings.size()));
  size_t offset = header;
  for (size_t i = 0; i < strings.size(); ++i) {
    put(4 * (i + 1), static_cast<int32_t>(offset));
    std::memcpy(out.data() + offset, strings[i].data(), strings[i].size());
    offset += strings[i].size();
  }
  put(4 * (strings.size() + 1), static_cast<int32_t>(offset));
  return out;
}

}  // namespace edgerun
