// SOFTMAX over the last dimension: exp((x - max) * beta) / sum.
// uint8/int8 inputs: TFLite's table kernel (exp of every possible 8-bit distance to the row
// maximum, computed in float at prepare); outputs of the same type or int16. int16: TFLite's
// fixed-point kernel with exp and 1/(1+x) tables (output scale 2^-15, zero points 0).
#include <cmath>
#include <memory>

#include "kernels/reference/activation.h"
#include "ops/activation_util.h"

namespace edgerun::ops {
namespace {

struct SoftmaxState {
  float beta = 1.0f;
  float exp_table[256] = {};
  std::unique_ptr<reference::SoftmaxInt16Params> int16;
};

Status CheckOutputQuantization(const OpContext& ctx, const Tensor* output, float scale, int32_t zero_point) {
  ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, output, "output", zero_point));
  if (std::fabs(output->scale() - scale) > 0.001f * scale) {
    return ctx.Error("output ", Describe(output), " must have scale ", scale, ", has ", output->scale());
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, SoftmaxState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  if (input->rank() < 1) return ctx.Error("input ", Describe(input), " must have rank 1 or more");
  const bool int16_output_of_8bit = IsQuantized8(input->type) && output->type == TensorType::kInt16;
  if (output->type != input->type && !int16_output_of_8bit) {
    return ctx.Unsupported("output ", Describe(output), " must have the input's type (or int16 for 8-bit input)");
  }
  const auto* o = Options<tflite::SoftmaxOptions>(ctx);
  state.beta = o ? o->beta() : 1.0f;
  if (IsQuantized8(input->type)) {
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireScale(ctx, output, "output"));
    if (input->type == TensorType::kInt8 && output->type == TensorType::kInt8) {
      ER_RETURN_IF_ERROR(CheckOutputQuantization(ctx, output, 1.0f / 256, -128));
    }
    reference::PopulateSoftmaxExpTable(input->scale(), state.beta, state.exp_table);
  } else if (input->type == TensorType::kInt16) {
    if (input->rank() > 4) return ctx.Unsupported("int16 input ", Describe(input), " must have rank 1 to 4");
    ER_RETURN_IF_ERROR(RequireScale(ctx, input, "input"));
    ER_RETURN_IF_ERROR(RequireZeroPoint(ctx, input, "int16 input", 0));
    ER_RETURN_IF_ERROR(CheckOutputQuantization(ctx, output, 1.0f / 32768, 0));
    if (!state.int16) state.int16 = std::make_unique<reference::SoftmaxInt16Params>();
    reference::PrepareSoftmaxInt16(input->scale() * state.beta, state.int16.get());
  }
  return ctx.ResizeOutput(0, input->shape);
}

template <class In, class Out>
void EvalQuantized8(OpContext& ctx, const SoftmaxState& state, int64_t rows, int64_t depth) {
  const Tensor* output = ctx.output(0);
  reference::SoftmaxQuantized8<In, Out>(state.exp_table, output->scale(), output->zero_point(),
                                        ctx.input(0)->data_as<In>(), ctx.output(0)->data_as<Out>(), rows, depth);
}

Status Eval(OpContext& ctx, SoftmaxState& state) {
  const Tensor* input = ctx.input(0);
  const int64_t depth = input->shape.back();
  if (depth == 0 || input->num_elements() == 0) return Status::Ok();
  const int64_t rows = input->num_elements() / depth;
  const bool int16_out = ctx.output(0)->type == TensorType::kInt16;
  switch (input->type) {
    case TensorType::kUInt8:
      int16_out ? EvalQuantized8<uint8_t, int16_t>(ctx, state, rows, depth)
                : EvalQuantized8<uint8_t, uint8_t>(ctx, state, rows, depth);
      break;
    case TensorType::kInt8:
      int16_out ? EvalQuantized8<int8_t, int16_t>(ctx, state, rows, depth)
                : EvalQuantized8<int8_t, int8_t>(ctx, state, rows, depth);
      break;
    case TensorType::kInt16:
      reference::SoftmaxInt16(*state.int16, input->data_as<int16_t>(), ctx.output(0)->data_as<int16_t>(), rows, depth);
      break;
    default:
      reference::SoftmaxFloat(input->data_as<float>(), ctx.output(0)->data_as<float>(), rows, depth, state.beta);
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSoftmax() {
  return MakeBuiltinWithState<SoftmaxState>(tflite::BuiltinOperator_SOFTMAX, 3,
                                            "float32, uint8, int8, int16 (8-bit to int16 too)", Prepare, Eval);
}

}  // namespace edgerun::ops
