// STABLEHLO_SCATTER: output = operand with the `updates` combined in at the positions that
// `scatter_indices` give (index vectors along index_vector_dim, mapped to operand dims by
// scatter_dims_to_operand_dims; update_window_dims are the updates' window dims,
// inserted_window_dims the operand dims the window does not span). Updates landing outside the
// operand are skipped (as the reference interpreter and TFLite do). The combination is the
// update_computation subgraph: replace (no ops), or one ADD/MUL/MAXIMUM/MINIMUM as TFLite
// recognizes them; any other computation is run element by element.
// Types: float16/32/64, int8/16/32/64, uint8/16/32/64, bool (any fixed-size type with a general
// computation); int32/int64 indices.
#include <cstring>

#include "ops/shape_util.h"
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

using stablehlo::Body;
using stablehlo::Contains;

struct ScatterState {
  std::vector<int64_t> window_dims, inserted, to_operand;
  int64_t index_vector_dim = 0;
  Body body = Body::kOther;
  Subgraph* computation = nullptr;
  stablehlo::BodyCaller caller;
};

Status Prepare(OpContext& ctx, ScatterState& s) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* operand = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* updates = ctx.input(2);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, operand, "operand", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, updates, "operand and updates"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, ctx.output(0), "operand and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "scatter_indices", {TensorType::kInt32, TensorType::kInt64}));
  const auto* o = Options2<tflite::StablehloScatterOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing StablehloScatterOptions");
  s.window_dims = stablehlo::ReadLongs(o->update_window_dims());
  s.inserted = stablehlo::ReadLongs(o->inserted_window_dims());
  s.to_operand = stablehlo::ReadLongs(o->scatter_dims_to_operand_dims());
  s.index_vector_dim = o->index_vector_dim();
  const int rank = operand->rank();
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.window_dims, "update_window_dims", updates->rank(), true));
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.inserted, "inserted_window_dims", rank, false));
  if (static_cast<int64_t>(s.window_dims.size() + s.inserted.size()) != rank) {
    return ctx.Error(s.window_dims.size(), " update_window_dims and ", s.inserted.size(),
                     " inserted_window_dims for operand ", Describe(operand));
  }
  if (s.index_vector_dim < 0 || s.index_vector_dim > indices->rank()) {
    return ctx.Error("index_vector_dim ", s.index_vector_dim, " is outside [0, ", indices->rank(), "]");
  }
  const bool explicit_vector = s.index_vector_dim < indices->rank();
  const int64_t vector_size = explicit_vector ? indices->dim(static_cast<int>(s.index_vector_dim)) : 1;
  if (static_cast<int64_t>(s.to_operand.size()) != vector_size) {
    return ctx.Error("scatter_dims_to_operand_dims has ", s.to_operand.size(), " dims for index vectors of ",
                     vector_size);
  }
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.to_operand, "scatter_dims_to_operand_dims", rank, false));
  // The updates' other dims walk the index vectors: they must match scatter_indices' batch dims.
  Shape batch_shape;
  for (int d = 0; d < indices->rank(); ++d) {
    if (d != s.index_vector_dim) batch_shape.push_back(indices->dim(d));
  }
  Shape update_scatter_shape;
  for (int d = 0; d < updates->rank(); ++d) {
    if (!Contains(s.window_dims, d)) update_scatter_shape.push_back(updates->dim(d));
  }
  if (update_scatter_shape != batch_shape) {
    return ctx.Error("updates ", Describe(updates), " scatter dims ", ShapeToString(update_scatter_shape),
                     " do not match scatter_indices ", Describe(indices), " batch dims ", ShapeToString(batch_shape));
  }
  ER_RETURN_IF_ERROR(
      CalledSubgraph(ctx, o->update_computation_subgraph_index(), "update_computation", &s.computation));
  s.body = stablehlo::ClassifyBody(*s.computation);
  const bool fast = s.body == Body::kUpdate || s.body == Body::kAdd || s.body == Body::kMul || s.body == Body::kMax ||
                    s.body == Body::kMin;
  if (!fast || !stablehlo::IsElementwiseType(operand->type)) {
    s.body = Body::kOther;
    ER_RETURN_IF_ERROR(s.caller.Prepare(ctx, s.computation, operand->type));
  }
  return ctx.ResizeOutput(0, operand->shape);
}

template <class T>
T Combine(Body body, T current, T update) {
  switch (body) {
    case Body::kAdd: return stablehlo::Add(current, update);
    case Body::kMul: return stablehlo::Mul(current, update);
    case Body::kMax: return current < update ? update : current;
    case Body::kMin: return update < current ? update : current;
    default: return update;
  }
}

Status Eval(OpContext& ctx, ScatterState& s) {
  const Tensor* operand = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* updates = ctx.input(2);
  Tensor* output = ctx.output(0);
  if (operand->bytes > 0) std::memcpy(output->data, operand->data, operand->bytes);
  if (updates->num_elements() == 0 || output->num_elements() == 0) return Status::Ok();
  std::vector<int64_t> index_values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, indices, "scatter_indices", &index_values));
  const int rank = operand->rank();
  const size_t element = TensorTypeSize(operand->type);
  const bool explicit_vector = s.index_vector_dim < indices->rank();
  std::vector<int64_t> update_index(updates->rank(), 0), scatter, window, target(rank), indices_index(indices->rank());
  uint8_t* out = output->data_as<uint8_t>();
  const uint8_t* upd = updates->data_as<uint8_t>();
  int64_t position = 0;
  do {
    scatter.clear();
    window.clear();
    for (int d = 0; d < updates->rank(); ++d) (Contains(s.window_dims, d) ? window : scatter).push_back(update_index[d]);
    for (int d = 0, b = 0; d < indices->rank(); ++d) indices_index[d] = d == s.index_vector_dim ? 0 : scatter[b++];
    std::fill(target.begin(), target.end(), 0);
    for (size_t k = 0; k < s.to_operand.size(); ++k) {
      if (explicit_vector) indices_index[s.index_vector_dim] = static_cast<int64_t>(k);
      // Far-out values stay far out (and cannot overflow when the window offset is added).
      const int64_t value = index_values[stablehlo::FlatIndex(indices->shape, indices_index)];
      target[s.to_operand[k]] = std::clamp<int64_t>(value, -(int64_t{1} << 62), int64_t{1} << 62);
    }
    bool inside = true;
    for (int d = 0, k = 0; d < rank; ++d) {
      if (!Contains(s.inserted, d)) target[d] += window[k++];
      inside = inside && target[d] >= 0 && target[d] < operand->dim(d);
    }
    if (inside) {
      uint8_t* dst = out + stablehlo::FlatIndex(operand->shape, target) * element;
      const uint8_t* src = upd + position * element;
      if (s.body == Body::kOther) {
        uint8_t result[16];
        ER_RETURN_IF_ERROR(s.caller.Call(ctx, dst, src, result));
        std::memcpy(dst, result, element);
      } else {
        stablehlo::DispatchType(operand->type, [&](auto tag) {
          using T = decltype(tag);
          T current, update;
          std::memcpy(&current, dst, sizeof(T));
          std::memcpy(&update, src, sizeof(T));
          const T result = Combine(s.body, current, update);
          std::memcpy(dst, &result, sizeof(T));
        });
      }
    }
    ++position;
  } while (stablehlo::NextIndex(updates->shape, update_index));
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloScatter() {
  return MakeBuiltinWithState<ScatterState>(tflite::BuiltinOperator_STABLEHLO_SCATTER, 1,
                                            "float16/32/64, int8/16/32/64, uint8/16/32/64, bool (int32/int64 indices)",
                                            Prepare, Eval);
}

}  // namespace edgerun::ops
