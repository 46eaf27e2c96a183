#include "ops/string_util.h"

#include <cstring>
#include <limits>

namespace edgerun::ops {

Status ReadStringViews(const OpContext& ctx, const Tensor* t, const char* role, std::vector<std::string_view>* out) {
  out->clear();
  if (t->type != TensorType::kString) return ctx.Error(role, " ", Describe(t), " is not a string tensor");
  const auto* p = static_cast<const uint8_t*>(t->data);
  const size_t bytes = t->bytes;
  auto read = [&](size_t at) {
    int32_t v;
    std::memcpy(&v, p + at, 4);
    return v;
  };
  if (p == nullptr || bytes < 8) return ctx.Error(role, " ", Describe(t), " holds no string data");
  const int32_t count = read(0);
  if (count < 0 || static_cast<uint64_t>(count) + 2 > bytes / 4) {
    return ctx.Error(role, " ", Describe(t), ": invalid string count ", count, " for ", bytes, " bytes");
  }
  if (count != t->num_elements()) {
    return ctx.Error(role, " ", Describe(t), " holds ", count, " strings, its shape needs ", t->num_elements());
  }
  const size_t header = 4 * (static_cast<size_t>(count) + 2);
  out->reserve(static_cast<size_t>(count));
  int32_t begin = read(4);
  if (begin < 0 || static_cast<size_t>(begin) < header || static_cast<size_t>(begin) > bytes) {
    return ctx.Error(role, " ", Describe(t), ": invalid string offset ", begin);
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t end = read(4 * (static_cast<size_t>(i) + 2));
    if (end < begin || static_cast<size_t>(end) > bytes) {
      out->clear();
      return ctx.Error(role, " ", Describe(t), ": invalid offset ", end, " of string ", i);
    }
    out->emplace_back(reinterpret_cast<const char*>(p + begin), static_cast<size_t>(end - begin));
    begin = end;
  }
  return Status::Ok();
}

void StringTensorWriter::AddJoined(const std::vector<std::string_view>& parts, char separator) {
  offsets_.push_back(static_cast<int64_t>(bytes_.size()));
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) bytes_.push_back(separator);
    bytes_.append(parts[i].data(), parts[i].size());
  }
}

Status StringTensorWriter::WriteTo(OpContext& ctx, Tensor* t, Shape shape) const {
  if (t->type != TensorType::kString) return ctx.Error("output ", Describe(t), " is not a string tensor");
  const int64_t elements = NumElements(shape);
  if (elements < 0 || static_cast<size_t>(elements) != offsets_.size()) {
    return ctx.Error("internal error: ", offsets_.size(), " strings for shape ", ShapeToString(shape));
  }
  const uint64_t header = 4 * (static_cast<uint64_t>(offsets_.size()) + 2);
  const uint64_t total = header + bytes_.size();
  const size_t limit = ctx.interpreter().options().max_tensor_bytes;
  if (total > std::numeric_limits<int32_t>::max() || total > limit) {
    return ctx.Error("string output ", Describe(t), " would need ", total, " bytes (limit ",
                     std::min<uint64_t>(limit, std::numeric_limits<int32_t>::max()), ")");
  }
  if (!t->owned.Reserve(total)) return ctx.Error("out of memory for string output ", Describe(t));
  uint8_t* p = t->owned.data();
  auto put = [&](size_t at, int64_t v) {
    const int32_t v32 = static_cast<int32_t>(v);
    std::memcpy(p + at, &v32, 4);
  };
  put(0, static_cast<int64_t>(offsets_.size()));
  for (size_t i = 0; i < offsets_.size(); ++i) put(4 * (i + 1), static_cast<int64_t>(header) + offsets_[i]);
  put(4 * (offsets_.size() + 1), static_cast<int64_t>(total));
  if (!bytes_.empty()) std::memcpy(p + header, bytes_.data(), bytes_.size());
  t->shape = std::move(shape);
  t->data = p;
  t->bytes = total;
  return Status::Ok();
}

Status CopyStrings(OpContext& ctx, const Tensor* in, Tensor* out, Shape shape) {
  std::vector<std::string_view> strings;
  ER_RETURN_IF_ERROR(ReadStringViews(ctx, in, "input", &strings));
  return WriteStrings(ctx, out, std::move(shape), strings);
}

}  // namespace edgerun::ops
