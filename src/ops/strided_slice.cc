// STRIDED_SLICE with TensorFlow's full semantics: begin/end/strides per sliced dimension,
// begin_mask / end_mask (use the full range), ellipsis_mask (expands to all remaining dims),
// new_axis_mask (inserts a dim of 1), shrink_axis_mask (takes one element, drops the dim), and
// `offset` (end is relative to begin).
#include "kernels/reference/movement.h"
#include "ops/op_util.h"
#include "ops/string_util.h"

namespace edgerun::ops {
namespace {

struct DenseSlice {
  std::vector<int64_t> start, stride;
  Shape sizes;         // per input dim
  Shape output_shape;  // after new axes and shrinks
};

Status ComputeSlice(OpContext& ctx, DenseSlice* slice) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> begin, end, strides;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "begin", &begin));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(2), "end", &end));
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(3), "strides", &strides));
  const size_t sparse_dims = begin.size();
  if (end.size() != sparse_dims || strides.size() != sparse_dims) {
    return ctx.Error("begin, end and strides must have the same length (", begin.size(), ", ", end.size(), ", ",
                     strides.size(), ")");
  }
  if (sparse_dims > 32) return ctx.Error("too many slice dimensions (", sparse_dims, ")");
  const auto* o = Options<tflite::StridedSliceOptions>(ctx);
  const uint32_t begin_mask = o ? o->begin_mask() : 0, end_mask = o ? o->end_mask() : 0;
  uint32_t ellipsis_mask = o ? o->ellipsis_mask() : 0;
  const uint32_t new_axis_mask = o ? o->new_axis_mask() : 0, shrink_mask = o ? o->shrink_axis_mask() : 0;
  const bool offset = o && o->offset();

  // Sparse spec -> dense spec over the input's dims (TensorFlow's BuildDenseSpec).
  const int rank = input->rank();
  int num_new_axis_after_ellipsis = 0;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < sparse_dims; ++i) {
    if (ellipsis_mask & (1u << i)) seen_ellipsis = true;
    else if (seen_ellipsis && (new_axis_mask & (1u << i))) ++num_new_axis_after_ellipsis;
  }
  size_t dims = sparse_dims;
  if (!seen_ellipsis) {  // an implicit ellipsis at the end covers the remaining dims
    ellipsis_mask |= 1u << dims;
    ++dims;
  }
  constexpr int kNewAxis = -1, kShrink = -2;
  std::vector<int> gather;  // output dims: a dense dim index, kNewAxis or kShrink
  std::vector<int64_t> d_begin(rank, 0), d_end(rank, 0), d_stride(rank, 1);
  std::vector<bool> d_begin_full(rank, false), d_end_full(rank, false), d_shrink(rank, false);
  int full = 0;
  for (size_t i = 0; i < dims; ++i) {
    const uint32_t bit = 1u << i;
    if (ellipsis_mask & bit) {
      const int next = std::min(rank - (static_cast<int>(dims) - static_cast<int>(i)) + 1 +
                                    num_new_axis_after_ellipsis, rank);
      for (; full < next; ++full) {
        d_begin_full[full] = d_end_full[full] = true;
        gather.push_back(full);
      }
    } else if (new_axis_mask & bit) {
      gather.push_back(kNewAxis);
    } else {
      if (full >= rank) return ctx.Error("slice has more dimensions than input ", Describe(input));
      d_begin[full] = begin[i];
      d_end[full] = offset ? begin[i] + end[i] : end[i];
      d_stride[full] = strides[i];
      d_begin_full[full] = begin_mask & bit;
      d_end_full[full] = end_mask & bit;
      d_shrink[full] = shrink_mask & bit;
      gather.push_back(d_shrink[full] ? kShrink : full);
      ++full;
    }
  }

  slice->start.assign(rank, 0);
  slice->stride.assign(rank, 1);
  slice->sizes.assign(rank, 0);
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input->dim(d);
    const int64_t stride = d_stride[d];
    if (stride == 0) return ctx.Error("stride 0 in dimension ", d);
    int64_t b = d_begin[d], e = d_end[d];
    if (d_shrink[d]) {
      if (b < 0) b += dim;
      if (b < 0 || b >= dim) return ctx.Error("shrink index ", d_begin[d], " out of range for dimension ", d,
                                              " of ", Describe(input));
      slice->start[d] = b;
      slice->stride[d] = 1;
      slice->sizes[d] = 1;
      continue;
    }
    auto clamp = [&](int64_t v) {
      if (v < 0) v += dim;
      return stride > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    b = d_begin_full[d] ? (stride > 0 ? 0 : dim - 1) : clamp(b);
    e = d_end_full[d] ? (stride > 0 ? dim : -1) : clamp(e);
    int64_t size = stride > 0 ? (e - b + stride - 1) / stride : (b - e + (-stride) - 1) / (-stride);
    if (size < 0) size = 0;
    slice->start[d] = b;
    slice->stride[d] = stride;
    slice->sizes[d] = static_cast<int32_t>(size);
  }
  slice->output_shape.clear();
  for (int g : gather) {
    if (g == kNewAxis) slice->output_shape.push_back(1);
    else if (g >= 0) slice->output_shape.push_back(slice->sizes[g]);
  }
  return Status::Ok();
}

bool AllConstant(const OpContext& ctx) {
  return ctx.input(1)->is_constant() && ctx.input(2)->is_constant() && ctx.input(3)->is_constant();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 4, 4, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  if (!IsFixedSizeType(input->type) && input->type != TensorType::kString) return ctx.Unsupported("unsupported type ", TensorTypeName(input->type));
  for (int i = 1; i < 4; ++i) {
    if (ctx.input(i)->rank() != 1) return ctx.Error("input ", i, " ", Describe(ctx.input(i)), " must be 1-D");
  }
  if (!AllConstant(ctx)) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  DenseSlice slice;
  ER_RETURN_IF_ERROR(ComputeSlice(ctx, &slice));
  return ctx.ResizeOutput(0, slice.output_shape);
}

Status Eval(OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  DenseSlice slice;
  ER_RETURN_IF_ERROR(ComputeSlice(ctx, &slice));
  if (ctx.output(0)->is_dynamic()) ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, slice.output_shape));
  if (input->type == TensorType::kString) {
    return MoveStrings(ctx, input, ctx.output(0), slice.output_shape,
                       [&](const uint8_t* src, uint8_t* dst, size_t element) {
                         reference::StridedSlice(input->shape, slice.start, slice.stride, slice.sizes, element, src,
                                                 dst);
                       });
  }
  reference::StridedSlice(input->shape, slice.start, slice.stride, slice.sizes, TensorTypeSize(input->type),
                          input->data_as<uint8_t>(), ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStridedSlice() {
  return MakeBuiltin(tflite::BuiltinOperator_STRIDED_SLICE, 8, "any fixed-size type, string", Prepare, Eval);
}

}  // namespace edgerun::ops
