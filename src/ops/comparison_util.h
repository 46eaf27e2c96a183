// Shared code of EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL: a bool output over
// the broadcast of two inputs of the same type. int8 / uint8 (and quantized int16 for the
// equality ops) compare the real values they stand for, as TFLite does.
#pragma once

#include <string>
#include <vector>

#include "kernels/reference/comparison.h"
#include "ops/elementwise_util.h"

namespace edgerun::ops::elementwise {

struct ComparisonState {
  bool scaled = false;
  reference::math::ComparisonScaling a, b;
};

enum class ComparisonKind { kEquality, kOrdering };

inline Status PrepareComparison(OpContext& ctx, ComparisonState& state, ComparisonKind kind) {
  std::initializer_list<TensorType> equality_types = {TensorType::kFloat32, TensorType::kInt8,  TensorType::kUInt8,
                                                      TensorType::kInt16,   TensorType::kInt32, TensorType::kInt64,
                                                      TensorType::kBool,    TensorType::kString};
  std::initializer_list<TensorType> ordering_types = {TensorType::kFloat32, TensorType::kInt8,  TensorType::kUInt8,
                                                      TensorType::kInt16,   TensorType::kInt32, TensorType::kInt64};
  ER_RETURN_IF_ERROR(
      PrepareBinaryTo(ctx, kind == ComparisonKind::kEquality ? equality_types : ordering_types, TensorType::kBool));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  state = ComparisonState();
  // int16 ordering comparisons use the stored values in TFLite; int8/uint8 are always rescaled
  // there. Inputs without quantization parameters compare as plain integers.
  const bool rescaled_type = a->type == TensorType::kInt8 || a->type == TensorType::kUInt8 ||
                             (a->type == TensorType::kInt16 && kind == ComparisonKind::kEquality);
  if (!rescaled_type || (a->quantization.empty() && b->quantization.empty())) return Status::Ok();
  for (const Tensor* t : {a, b}) {
    if (t->quantization.empty() || !(t->scale() > 0) || !std::isfinite(t->scale())) {
      return ctx.Error("input ", Describe(t), " needs a positive quantization scale (the other input has one)");
    }
  }
  if (!reference::math::MakeComparisonScaling(a->scale(), a->zero_point(), &state.a) ||
      !reference::math::MakeComparisonScaling(b->scale(), b->zero_point(), &state.b)) {
    return ctx.Unsupported("quantization scales ", a->scale(), " and ", b->scale(), " are out of range");
  }
  state.scaled = true;
  return Status::Ok();
}

// `cmp` is a generic callable: cmp(x, y) -> bool for any arithmetic x, y (and std::string).
template <class Cmp>
Status EvalComparison(OpContext& ctx, const ComparisonState& state, Cmp cmp) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  if (a->type == TensorType::kString) {
    bool ok_a = true, ok_b = true;
    const std::vector<std::string> sa = ReadStringTensor(a->data, a->bytes, &ok_a);
    const std::vector<std::string> sb = ReadStringTensor(b->data, b->bytes, &ok_b);
    if (!ok_a || !ok_b || static_cast<int64_t>(sa.size()) != a->num_elements() ||
        static_cast<int64_t>(sb.size()) != b->num_elements()) {
      return ctx.Error("malformed string tensor ", Describe(ok_a ? b : a));
    }
    bool* o = out->data_as<bool>();
    reference::ForEachBroadcast(a->shape, b->shape, out->shape,
                                [&](int64_t ia, int64_t ib, int64_t io) { o[io] = cmp(sa[ia], sb[ib]); });
    return Status::Ok();
  }
  if (state.scaled) {
    VisitType(a->type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) {
        BroadcastInputs<T, bool>(ctx, [&](T x, T y) {
          return cmp(reference::math::RescaleForComparison(x, state.a),
                     reference::math::RescaleForComparison(y, state.b));
        });
      }
    });
    return Status::Ok();
  }
  if (a->type == TensorType::kBool) {  // read as bytes: any non-zero byte is true
    BroadcastInputs<uint8_t, bool>(ctx, [&](uint8_t x, uint8_t y) -> bool { return cmp(x != 0, y != 0); });
    return Status::Ok();
  }
  VisitType(a->type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      BroadcastInputs<T, bool>(ctx, [&](T x, T y) -> bool { return cmp(x, y); });
    }
  });
  return Status::Ok();
}

}  // namespace edgerun::ops::elementwise
