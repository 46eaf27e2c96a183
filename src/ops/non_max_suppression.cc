// NON_MAX_SUPPRESSION_V4(boxes [n, 4], scores [n], max_output_size, iou_threshold,
// score_threshold) -> selected_indices, valid_outputs; V5 adds soft_nms_sigma and a
// selected_scores output. With a constant max_output_size the outputs have that length and are
// zero-padded past valid_outputs; otherwise they are dynamic and hold exactly the selected boxes.
#include "kernels/reference/nms.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  const bool soft = ctx.num_inputs() == 6;
  ER_RETURN_IF_ERROR(CheckIo(ctx, soft ? 6 : 5, soft ? 6 : 5, soft ? 3 : 2));
  const Tensor* boxes = ctx.input(0);
  const Tensor* scores = ctx.input(1);
  const Tensor* max_output = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, boxes, "boxes", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, scores, "scores", {TensorType::kFloat32}));
  if (boxes->rank() != 2 || boxes->dim(1) != 4 || scores->rank() != 1 || scores->dim(0) != boxes->dim(0)) {
    return ctx.Error("expects boxes [n,4] and scores [n]; got ", Describe(boxes), " and ", Describe(scores));
  }
  ER_RETURN_IF_ERROR(CheckType(ctx, max_output, "max_output_size", {TensorType::kInt32}));
  if (max_output->rank() != 0) return ctx.Error("max_output_size ", Describe(max_output), " must be a scalar");
  for (int i = 3; i < ctx.num_inputs(); ++i) {
    ER_RETURN_IF_ERROR(CheckType(ctx, ctx.input(i), "threshold", {TensorType::kFloat32}));
    if (ctx.input(i)->rank() != 0) return ctx.Error("input ", i, " ", Describe(ctx.input(i)), " must be a scalar");
  }
  const int indices_out = 0, scores_out = soft ? 1 : -1, count_out = soft ? 2 : 1;
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(indices_out), "selected_indices", {TensorType::kInt32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(count_out), "valid_outputs", {TensorType::kInt32}));
  if (soft) ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(scores_out), "selected_scores", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(count_out, {}));
  if (!max_output->is_constant()) {
    ctx.MarkDynamic(ctx.output(indices_out));
    if (soft) ctx.MarkDynamic(ctx.output(scores_out));
    return Status::Ok();
  }
  const int32_t size = *max_output->data_as<int32_t>();
  if (size < 0) return ctx.Error("max_output_size ", size, " is negative");
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(indices_out, {size}));
  if (soft) ER_RETURN_IF_ERROR(ctx.ResizeOutput(scores_out, {size}));
  return Status::Ok();
}

Status Eval(OpContext& ctx) {
  const bool soft = ctx.num_inputs() == 6;
  const Tensor* boxes = ctx.input(0);
  const int32_t max_output = *ctx.input(2)->data_as<int32_t>();
  const float iou_threshold = *ctx.input(3)->data_as<float>();
  const float score_threshold = *ctx.input(4)->data_as<float>();
  const float sigma = soft ? *ctx.input(5)->data_as<float>() : 0.0f;
  if (max_output < 0) return ctx.Error("max_output_size ", max_output, " is negative");
  if (sigma < 0) return ctx.Error("soft_nms_sigma ", sigma, " is negative");
  if (!(iou_threshold >= 0 && iou_threshold <= 1)) return ctx.Error("iou_threshold ", iou_threshold, " is not in [0, 1]");
  Tensor* indices = ctx.output(0);
  Tensor* scores = soft ? ctx.output(1) : nullptr;
  const bool dynamic = indices->is_dynamic();
  if (dynamic) {  // room for the most that can be selected; shrunk to the count afterwards
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {max_output}));
    if (soft) ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, {max_output}));
  }
  int32_t* selected = indices->data_as<int32_t>();
  float* selected_scores = soft ? scores->data_as<float>() : nullptr;
  const int count = reference::NonMaxSuppression(boxes->data_as<float>(), boxes->dim(0), ctx.input(1)->data_as<float>(),
                                                 max_output, iou_threshold, score_threshold, sigma, selected,
                                                 selected_scores);
  if (dynamic) {
    const std::vector<int32_t> kept_indices(selected, selected + count);
    const std::vector<float> kept_scores(selected_scores, selected_scores + (soft ? count : 0));
    ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {count}));
    CopyBytes(indices->data, kept_indices.data(), count * sizeof(int32_t));
    if (soft) {
      ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, {count}));
      CopyBytes(scores->data, kept_scores.data(), count * sizeof(float));
    }
  } else {
    for (int i = count; i < max_output; ++i) {
      selected[i] = 0;
      if (soft) selected_scores[i] = 0.0f;
    }
  }
  *ctx.output(soft ? 2 : 1)->data_as<int32_t>() = count;
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterNonMaxSuppressionV4() {
  return MakeBuiltin(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V4, 1, "float32", Prepare, Eval);
}
OpRegistration RegisterNonMaxSuppressionV5() {
  return MakeBuiltin(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V5, 1, "float32", Prepare, Eval);
}

}  // namespace edgerun::ops
