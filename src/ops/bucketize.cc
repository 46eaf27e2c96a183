// BUCKETIZE: for each value, the number of boundaries <= it (the index of its bucket); the
// boundaries come from the options and must be sorted. float32, float64, int32, int64 -> int32.
#include <algorithm>

#include "ops/elementwise_util.h"

namespace edgerun::ops {
namespace {

const flatbuffers::Vector<float>* Boundaries(const OpContext& ctx) {
  const auto* options = Options<tflite::BucketizeOptions>(ctx);
  return options ? options->boundaries() : nullptr;
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kFloat64, TensorType::kInt32, TensorType::kInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt32}));
  const auto* boundaries = Boundaries(ctx);
  if (boundaries && !std::is_sorted(boundaries->begin(), boundaries->end())) {
    return ctx.Error("BUCKETIZE boundaries must be sorted");
  }
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx) {
  const auto* boundaries = Boundaries(ctx);
  const std::vector<float> bounds =
      boundaries ? std::vector<float>(boundaries->begin(), boundaries->end()) : std::vector<float>();
  const Tensor* input = ctx.input(0);
  int32_t* out = ctx.output(0)->data_as<int32_t>();
  elementwise::VisitType(input->type, [&](auto tag) {
    using T = decltype(tag);
    const T* in = input->data_as<T>();
    for (int64_t i = 0, n = input->num_elements(); i < n; ++i) {
      // Compared as TFLite does: the value against each float boundary, usual conversions.
      out[i] = static_cast<int32_t>(
          std::upper_bound(bounds.begin(), bounds.end(), in[i], [](T v, float b) { return v < b; }) - bounds.begin());
    }
  });
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBucketize() {
  return MakeBuiltin(tflite::BuiltinOperator_BUCKETIZE, 1, "float32, float64, int32, int64 -> int32", Prepare, Eval);
}

}  // namespace edgerun::ops
