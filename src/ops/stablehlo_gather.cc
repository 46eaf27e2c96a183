// STABLEHLO_GATHER: slices of `operand` of size slice_sizes, starting where `start_indices`
// says (the index vectors lie along index_vector_dim, mapped to operand dims by
// start_index_map, clamped so the slice fits), stacked along the result's batch dims; the
// slice dims listed in collapsed_slice_dims (size 1) are dropped, the others are the result's
// offset_dims. Types: any fixed-size operand, int32/int64 indices.
#include <cstring>

#include "ops/shape_util.h"
#include "ops/stablehlo_util.h"

namespace edgerun::ops {
namespace {

using stablehlo::Contains;

struct GatherState {
  std::vector<int64_t> offset_dims, collapsed, start_index_map, slice_sizes;
  int64_t index_vector_dim = 0;
};

Status Prepare(OpContext& ctx, GatherState& s) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* operand = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, operand, "operand", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, operand, ctx.output(0), "operand and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, indices, "start_indices", {TensorType::kInt32, TensorType::kInt64}));
  const auto* o = Options2<tflite::StablehloGatherOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing StablehloGatherOptions");
  s.offset_dims = stablehlo::ReadLongs(o->offset_dims());
  s.collapsed = stablehlo::ReadLongs(o->collapsed_slice_dims());
  s.start_index_map = stablehlo::ReadLongs(o->start_index_map());
  s.slice_sizes = stablehlo::ReadLongs(o->slice_sizes());
  s.index_vector_dim = o->index_vector_dim();
  const int rank = operand->rank();
  if (static_cast<int>(s.slice_sizes.size()) != rank) {
    return ctx.Error("slice_sizes has ", s.slice_sizes.size(), " values for operand ", Describe(operand));
  }
  for (int d = 0; d < rank; ++d) {
    if (s.slice_sizes[d] < 0 || s.slice_sizes[d] > operand->dim(d)) {
      return ctx.Error("slice size ", s.slice_sizes[d], " of dim ", d, " does not fit operand ", Describe(operand));
    }
  }
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.collapsed, "collapsed_slice_dims", rank, false));
  for (int64_t d : s.collapsed) {
    // A collapsed dim of slice size 0 would drop an empty dim from the result (and read outside
    // the operand); only a non-empty operand can have it, and its slice must then be 1 wide.
    if (s.slice_sizes[d] != 1 && operand->num_elements() > 0) {
      return ctx.Error("collapsed dim ", d, " has slice size ", s.slice_sizes[d], " (must be 1)");
    }
  }
  if (s.index_vector_dim < 0 || s.index_vector_dim > indices->rank()) {
    return ctx.Error("index_vector_dim ", s.index_vector_dim, " is outside [0, ", indices->rank(), "]");
  }
  const bool explicit_vector = s.index_vector_dim < indices->rank();
  const int64_t vector_size = explicit_vector ? indices->dim(static_cast<int>(s.index_vector_dim)) : 1;
  if (static_cast<int64_t>(s.start_index_map.size()) != vector_size) {
    return ctx.Error("start_index_map has ", s.start_index_map.size(), " dims for index vectors of ", vector_size);
  }
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.start_index_map, "start_index_map", rank, false));
  const int batch_rank = indices->rank() - (explicit_vector ? 1 : 0);
  const int64_t result_rank = static_cast<int64_t>(s.offset_dims.size()) + batch_rank;
  if (static_cast<int64_t>(s.offset_dims.size()) != rank - static_cast<int64_t>(s.collapsed.size())) {
    return ctx.Error("offset_dims has ", s.offset_dims.size(), " dims, the slices keep ", rank - s.collapsed.size());
  }
  ER_RETURN_IF_ERROR(stablehlo::CheckDimensionList(ctx, s.offset_dims, "offset_dims", result_rank, true));
  Shape shape;
  int slice_dim = 0, batch_dim = 0;
  for (int64_t d = 0; d < result_rank; ++d) {
    if (Contains(s.offset_dims, d)) {
      while (Contains(s.collapsed, slice_dim)) ++slice_dim;
      shape.push_back(static_cast<int32_t>(s.slice_sizes[slice_dim++]));
    } else {
      if (batch_dim == s.index_vector_dim) ++batch_dim;
      shape.push_back(indices->dim(batch_dim++));
    }
  }
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx, GatherState& s) {
  const Tensor* operand = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  Tensor* output = ctx.output(0);
  if (output->num_elements() == 0 || operand->num_elements() == 0) return Status::Ok();
  std::vector<int64_t> index_values;
  ER_RETURN_IF_ERROR(ReadInts(ctx, indices, "start_indices", &index_values));
  const size_t element = TensorTypeSize(operand->type);
  const int rank = operand->rank();
  const int result_rank = output->rank();
  const bool explicit_vector = s.index_vector_dim < indices->rank();
  std::vector<int64_t> result_index(result_rank, 0), batch, offset, start(rank), operand_index(rank);
  std::vector<int64_t> indices_index(indices->rank());
  const uint8_t* in = operand->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  int64_t position = 0;
  do {
    batch.clear();
    offset.clear();
    for (int d = 0; d < result_rank; ++d) (Contains(s.offset_dims, d) ? offset : batch).push_back(result_index[d]);
    // The index vector: start_indices at the batch position, along index_vector_dim.
    for (int d = 0, b = 0; d < indices->rank(); ++d) {
      indices_index[d] = d == s.index_vector_dim ? 0 : batch[b++];
    }
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < s.start_index_map.size(); ++k) {
      if (explicit_vector) indices_index[s.index_vector_dim] = static_cast<int64_t>(k);
      start[s.start_index_map[k]] = index_values[stablehlo::FlatIndex(indices->shape, indices_index)];
    }
    for (int d = 0, k = 0; d < rank; ++d) {
      const int64_t clamped = std::max<int64_t>(0, std::min<int64_t>(start[d], operand->dim(d) - s.slice_sizes[d]));
      const int64_t within = Contains(s.collapsed, d) ? 0 : offset[k++];
      operand_index[d] = clamped + within;
    }
    std::memcpy(out + position * element, in + stablehlo::FlatIndex(operand->shape, operand_index) * element, element);
    ++position;
  } while (stablehlo::NextIndex(output->shape, result_index));
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloGather() {
  return MakeBuiltinWithState<GatherState>(tflite::BuiltinOperator_STABLEHLO_GATHER, 1,
                                           "any fixed-size type (int32/int64 indices)", Prepare, Eval);
}

}  // namespace edgerun::ops
