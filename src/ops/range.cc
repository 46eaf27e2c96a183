// RANGE: [start, start + delta, ...) up to (excluding) limit; int32, int64, float32 scalars.
// Values are accumulated by repeated addition, as TFLite does. The output is dynamic unless
// all three inputs are constants.
#include <cmath>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

template <class T>
Status RangeSize(OpContext& ctx, T start, T limit, T delta, int32_t* size) {
  if (delta == 0) return ctx.Error("RANGE delta must not be 0");
  if (!((start >= limit && delta < 0) || (start <= limit && delta > 0))) {
    return ctx.Error("RANGE from ", start, " to ", limit, " never ends with delta ", delta);
  }
  double count;
  if constexpr (std::is_integral_v<T>) {
    // In unsigned 64-bit arithmetic the distance cannot overflow.
    const uint64_t distance = start <= limit ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                             : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : 0 - static_cast<uint64_t>(delta);
    count = static_cast<double>(distance / step + (distance % step != 0 ? 1 : 0));
  } else {
    count = std::ceil(std::fabs((limit - start) / delta));
  }
  if (!(count <= std::numeric_limits<int32_t>::max()))
    return ctx.Error("RANGE output of ", count, " values is too large");
  *size = static_cast<int32_t>(count);
  return Status::Ok();
}

Status ComputeSize(OpContext& ctx, int32_t* size) {
  for (int i = 0; i < 3; ++i) ER_RETURN_IF_ERROR(elementwise::CheckScalarInput(ctx, i, "RANGE input"));
  Status status = ctx.Error("unsupported type");
  elementwise::VisitType(ctx.input(0)->type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
      status = RangeSize<T>(ctx, *ctx.input(0)->data_as<T>(), *ctx.input(1)->data_as<T>(), *ctx.input(2)->data_as<T>(),
                            size);
    }
  });
  return status;
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const Tensor* start = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, start, "start", {TensorType::kInt32, TensorType::kInt64, TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, start, ctx.input(1), "start and limit"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, start, ctx.input(2), "start and delta"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, start, ctx.output(0), "start and output"));
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i)->rank() != 0) return ctx.Error("RANGE input ", Describe(ctx.input(i)), " must be a scalar");
  }
  if (!(start->is_constant() && ctx.input(1)->is_constant() && ctx.input(2)->is_constant())) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  int32_t size = 0;
  ER_RETURN_IF_ERROR(ComputeSize(ctx, &size));
  return ctx.ResizeOutput(0, {size});
}

Status Eval(OpContext& ctx) {
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) {
    int32_t size = 0;
    ER_RETURN_IF_ERROR(ComputeSize(ctx, &size));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {size}));
  }
  elementwise::VisitType(output->type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
      T value = *ctx.input(0)->data_as<T>();
      const T delta = *ctx.input(2)->data_as<T>();
      T* out = output->data_as<T>();
      for (int64_t i = 0, n = output->num_elements(); i < n; ++i) {
        out[i] = value;
        if constexpr (std::is_integral_v<T>) {
          value = WrapAdd(value, delta);
        } else {
          value += delta;
        }
      }
    }
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRange() {
  return MakeBuiltin(tflite::BuiltinOperator_RANGE, 2, "int32, int64, float32", Prepare, Eval);
}

}  // namespace edgerun::ops
