// LOG_SOFTMAX over the last dimension: (x - max) - log(sum(exp(x - max))).
// uint8/int8: TFLite's table kernel (exp table in float, output scale 16/256 with zero point 255
// for uint8, 127 for int8).
#include <cmath>

#include "kernels/reference/activation.h"
#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

struct LogSoftmaxState {
  float exp_table[256] = {};
};

Status Prepare(OpContext& ctx, LogSoftmaxState& state) {
  ER_RETURN_IF_ERROR(PrepareUnary(ctx, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8}));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank 1 or more");
  if (IsQuantized8(input->type)) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    if (output->scale() != 16.0f / 256) {
      return ctx.Error("output ", Describe(output), " must have scale 16/256, has ", output->scale());
    }
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "output", input->type == TensorType::kUInt8 ? 255 : 127));
    reference::PopulateSoftmaxExpTable(input->scale(), 1.0f, state.exp_table);
  }
  return Status::Ok();
}

template <class T>
void EvalQuantized(OpContext& ctx, const LogSoftmaxState& state, int64_t rows, int64_t depth) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  reference::LogSoftmaxQuantized8<T>(state.exp_table, input->scale(), output->scale(), output->zero_point(),
                                     input->data_as<T>(), ctx.output(0)->data_as<T>(), rows, depth);
}

Status Eval(OpContext& ctx, LogSoftmaxState& state) {
  const Tensor* input = ctx.input(0);
  const int64_t depth = input->shape.back();
  if (depth == 0 || input->num_elements() == 0) return Status::Ok();
  const int64_t rows = input->num_elements() / depth;
  switch (input->type) {
    case TensorType::kUInt8: EvalQuantized<uint8_t>(ctx, state, rows, depth); break;
    case TensorType::kInt8: EvalQuantized<int8_t>(ctx, state, rows, depth); break;
    default:
      reference::LogSoftmaxFloat(input->data_as<float>(), ctx.output(0)->data_as<float>(), rows, depth);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLogSoftmax() {
  return MakeBuiltinWithState<LogSoftmaxState>(tflite::BuiltinOperator_LOG_SOFTMAX, 2, "float32, uint8, int8",
                                               Prepare, Eval);
}

}  // namespace edgerun::ops
