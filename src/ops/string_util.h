// Reading and writing string tensors in ops. TFLite's layout (int32 count, int32 offsets[count+1]
// from the start of the buffer, then the bytes) is checked once on read, so that ops index the
// strings without further bounds checks; outputs are written whole (strings own their memory).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ops/op_util.h"

namespace edgerun::ops {

// Views of the strings of `t` (valid while `t` keeps its data). Fails when the buffer is not a
// valid string tensor or holds a different number of strings than the shape says.
Status ReadStringViews(const OpContext& ctx, const Tensor* t, const char* role, std::vector<std::string_view>* out);

// Gives `t` the shape and the strings (their number must match the shape's element count).
template <class Strings>
Status WriteStrings(OpContext& ctx, Tensor* t, Shape shape, const Strings& strings);

// Builds the bytes of a string tensor piece by piece, then hands them to a tensor.
class StringTensorWriter {
 public:
  void Add(std::string_view s) {
    offsets_.push_back(static_cast<int64_t>(bytes_.size()));
    bytes_.append(s.data(), s.size());
  }
  // The strings joined with `separator` as one string.
  void AddJoined(const std::vector<std::string_view>& parts, char separator);
  size_t count() const { return offsets_.size(); }
  size_t bytes() const { return bytes_.size() + 4 * (offsets_.size() + 2); }
  Status WriteTo(OpContext& ctx, Tensor* t, Shape shape) const;

 private:
  std::vector<int64_t> offsets_;
  std::string bytes_;
};

// `out` gets the strings of `in` unchanged, with `shape` (same number of elements): RESHAPE,
// SQUEEZE, EXPAND_DIMS on strings.
Status CopyStrings(OpContext& ctx, const Tensor* in, Tensor* out, Shape shape);

// Data movement on strings with a kernel written for fixed-size elements: `move(src, dst,
// element_size)` is run on the strings' positions (int32), then `out` (of `shape`) gets the
// strings the positions name. For TILE, SLICE, STRIDED_SLICE, GATHER, GATHER_ND.
template <class Move>
Status MoveStrings(OpContext& ctx, const Tensor* in, Tensor* out, Shape shape, Move move) {
  std::vector<std::string_view> strings;
  ER_RETURN_IF_ERROR(ReadStringViews(ctx, in, "input", &strings));
  const int64_t count = NumElements(shape);
  if (count < 0) return ctx.Error("invalid output shape ", ShapeToString(shape));
  std::vector<int32_t> positions(strings.size()), moved(static_cast<size_t>(count), -1);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(i);
  move(reinterpret_cast<const uint8_t*>(positions.data()), reinterpret_cast<uint8_t*>(moved.data()), sizeof(int32_t));
  StringTensorWriter writer;
  for (int32_t p : moved) {
    if (p < 0 || static_cast<size_t>(p) >= strings.size()) return ctx.Error("internal error: string position ", p);
    writer.Add(strings[p]);
  }
  return writer.WriteTo(ctx, out, std::move(shape));
}

template <class Strings>
Status WriteStrings(OpContext& ctx, Tensor* t, Shape shape, const Strings& strings) {
  StringTensorWriter writer;
  for (const auto& s : strings) writer.Add(std::string_view(s));
  return writer.WriteTo(ctx, t, std::move(shape));
}

}  // namespace edgerun::ops
