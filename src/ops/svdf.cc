// SVDF: a rank-factored fully connected layer over time (inputs: input [batch, input_size],
// weights_feature [num_filters, input_size], weights_time [num_filters, memory_size], optional
// bias [num_units], state [batch, num_filters * memory_size] (variable, updated in place)).
// Float; hybrid (int8 weights, float input and state); integer (int8 input, int32 bias, int8
// output, with int16 state and time weights as TFLite or int8 ones as TFLite Micro's 8-bit SVDF).
#include <limits>
#include <vector>

#include "kernels/reference/svdf.h"
#include "ops/recurrent_util.h"

namespace edgerun::ops {
namespace {

enum class SvdfKind { kFloat, kHybrid, kInteger };

struct SvdfState {
  SvdfKind kind = SvdfKind::kFloat;
  reference::SvdfDims dims;
  Activation activation = Activation::kNone;
  bool asymmetric_quantize_inputs = false;
  int32_t multiplier_1 = 0, multiplier_2 = 0;
  int shift_1 = 0, shift_2 = 0;
  std::vector<float> float_weights_time;  // hybrid: dequantized time weights
  std::vector<int32_t> row_sums;          // hybrid with asymmetric inputs
};

Status Request(OpContext& ctx, int slot, TensorType type, int64_t size) {
  if (size > std::numeric_limits<int32_t>::max()) return ctx.Error("scratch buffer of ", size, " elements is too large");
  auto result = ctx.RequestTemporary(slot, type, {static_cast<int32_t>(std::max<int64_t>(size, 1))});
  return result.ok() ? Status::Ok() : result.status();
}

Status Prepare(OpContext& ctx, SvdfState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 5, 1));  // bias (input 3) is optional
  if (ctx.num_inputs() != 5) return ctx.Error("expects 5 inputs, has ", ctx.num_inputs());
  ER_RETURN_IF_ERROR(CheckInput(ctx, 4));
  const Tensor* input = ctx.input(0);
  const Tensor* weights_feature = ctx.input(1);
  const Tensor* weights_time = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  const Tensor* svdf_state = ctx.input(4);
  Tensor* output = ctx.output(0);
  const auto* o = Options<tflite::SVDFOptions>(ctx);
  if (o == nullptr) return ctx.Error("missing SVDFOptions");
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o->fused_activation_function(), &state.activation));
  state.asymmetric_quantize_inputs = o->asymmetric_quantize_inputs();
  const int rank = o->rank();
  if (rank <= 0) return ctx.Error("rank must be positive, is ", rank);

  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32, TensorType::kInt8}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, input, "input", 2, 2));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights_feature, "weights_feature", 2, 2));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights_time, "weights_time", 2, 2));
  const int batch = input->dim(0), input_size = input->dim(1);
  const int num_filters = weights_feature->dim(0), memory_size = weights_time->dim(1);
  if (num_filters % rank != 0) return ctx.Error("num_filters (", num_filters, ") must be a multiple of rank ", rank);
  const int num_units = num_filters / rank;
  if (weights_feature->dim(1) != input_size) {
    return ctx.Error("weights_feature ", Describe(weights_feature), " must have ", input_size, " columns (input ",
                     Describe(input), ")");
  }
  if (weights_time->dim(0) != num_filters) {
    return ctx.Error("weights_time ", Describe(weights_time), " must have ", num_filters, " rows");
  }
  if (memory_size <= 0) return ctx.Error("weights_time ", Describe(weights_time), " must have a positive memory size");
  if (bias && bias->shape != Shape{num_units}) {
    return ctx.Error("bias ", Describe(bias), " must have shape [", num_units, "]");
  }
  const int64_t state_width = static_cast<int64_t>(memory_size) * num_filters;
  if (svdf_state->rank() != 2 || svdf_state->dim(0) != batch || svdf_state->dim(1) != state_width) {
    return ctx.Error("state ", Describe(svdf_state), " must have shape [", batch, ",", state_width, "]");
  }
  state.dims = reference::SvdfDims{batch, input_size, num_filters, rank, memory_size};

  if (input->type == TensorType::kFloat32 && weights_feature->type == TensorType::kFloat32) {
    state.kind = SvdfKind::kFloat;
  } else if (input->type == TensorType::kFloat32 && weights_feature->type == TensorType::kInt8) {
    state.kind = SvdfKind::kHybrid;
  } else if (input->type == TensorType::kInt8 && weights_feature->type == TensorType::kInt8) {
    state.kind = SvdfKind::kInteger;
  } else {
    return ctx.Unsupported("input ", Describe(input), " with weights_feature ", Describe(weights_feature));
  }

  const int64_t activations = static_cast<int64_t>(batch) * num_filters;
  switch (state.kind) {
    case SvdfKind::kFloat:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights_time, "weights_time", {TensorType::kFloat32}));
      if (bias) ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
      ER_RETURN_IF_ERROR(CheckStateTensor(ctx, svdf_state, "state", TensorType::kFloat32));
      ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kFloat32}));
      ER_RETURN_IF_ERROR(Request(ctx, 0, TensorType::kFloat32, activations));
      break;
    case SvdfKind::kHybrid: {
      ER_RETURN_IF_ERROR(CheckType(ctx, weights_time, "weights_time", {TensorType::kInt8}));
      if (bias) ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
      ER_RETURN_IF_ERROR(CheckStateTensor(ctx, svdf_state, "state", TensorType::kFloat32));
      ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kFloat32}));
      float scale = 0;
      ER_RETURN_IF_ERROR(GetScale(ctx, weights_feature, "weights_feature", &scale));
      ER_RETURN_IF_ERROR(GetScale(ctx, weights_time, "weights_time", &scale));
      ER_RETURN_IF_ERROR(Request(ctx, 0, TensorType::kFloat32, activations));
      ER_RETURN_IF_ERROR(Request(ctx, 1, TensorType::kInt8, static_cast<int64_t>(batch) * input_size));
      ER_RETURN_IF_ERROR(Request(ctx, 2, TensorType::kFloat32, batch));
      ER_RETURN_IF_ERROR(Request(ctx, 3, TensorType::kInt32, batch));
      break;
    }
    case SvdfKind::kInteger: {
      ER_RETURN_IF_ERROR(CheckType(ctx, weights_time, "weights_time", {TensorType::kInt16, TensorType::kInt8}));
      if (bias) ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kInt32}));
      ER_RETURN_IF_ERROR(CheckStateTensor(ctx, svdf_state, "state", weights_time->type));
      ER_RETURN_IF_ERROR(CheckType(ctx, output, "output", {TensorType::kInt8}));
      // TFLite's integer SVDF accepts only RELU (and then applies just the int8 clamp).
      if (state.activation != Activation::kRelu) return ctx.Error("the integer SVDF requires a RELU activation");
      float input_scale = 0, feature_scale = 0, state_scale = 0, time_scale = 0, output_scale = 0;
      ER_RETURN_IF_ERROR(GetScale(ctx, input, "input", &input_scale));
      ER_RETURN_IF_ERROR(GetScale(ctx, weights_feature, "weights_feature", &feature_scale));
      ER_RETURN_IF_ERROR(GetScale(ctx, svdf_state, "state", &state_scale));
      ER_RETURN_IF_ERROR(GetScale(ctx, weights_time, "weights_time", &time_scale));
      ER_RETURN_IF_ERROR(GetScale(ctx, output, "output", &output_scale));
      const double scale_1 = static_cast<double>(input_scale) * feature_scale / state_scale;
      const double scale_2 = static_cast<double>(state_scale) * time_scale / output_scale;
      if (!quant::QuantizeMultiplier(scale_1, &state.multiplier_1, &state.shift_1) ||
          !quant::QuantizeMultiplier(scale_2, &state.multiplier_2, &state.shift_2) || state.shift_1 > 30 ||
          state.shift_2 > 30) {
        return ctx.Error("invalid effective scales ", scale_1, ", ", scale_2);
      }
      ER_RETURN_IF_ERROR(Request(ctx, 0, TensorType::kInt32, activations));
      ER_RETURN_IF_ERROR(Request(ctx, 1, TensorType::kInt32, static_cast<int64_t>(batch) * num_units));
      break;
    }
  }
  return ctx.ResizeOutput(0, {batch, num_units});
}

Status Eval(OpContext& ctx, SvdfState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* weights_feature = ctx.input(1);
  const Tensor* weights_time = ctx.input(2);
  const Tensor* bias = ctx.input(3);
  Tensor* svdf_state = ctx.input(4);
  Tensor* output = ctx.output(0);
  const auto& d = state.dims;
  const auto act = ToVectorActivation(state.activation);
  switch (state.kind) {
    case SvdfKind::kFloat:
      reference::SvdfFloat(d, input->data_as<float>(), weights_feature->data_as<float>(),
                           weights_time->data_as<float>(), bias ? bias->data_as<float>() : nullptr, act,
                           svdf_state->data_as<float>(), ctx.temporary(0)->data_as<float>(), output->data_as<float>());
      break;
    case SvdfKind::kHybrid: {
      // Weights may change between invocations: dequantize and sum rows each time (cheap).
      const int64_t n = weights_time->num_elements();
      state.float_weights_time.resize(static_cast<size_t>(n));
      const float time_scale = weights_time->scale();
      for (int64_t i = 0; i < n; ++i) state.float_weights_time[i] = weights_time->data_as<int8_t>()[i] * time_scale;
      const int32_t* row_sums = nullptr;
      if (state.asymmetric_quantize_inputs) {
        state.row_sums.resize(static_cast<size_t>(d.num_filters));
        reference::RowSums(weights_feature->data_as<int8_t>(), d.num_filters, d.input_size, state.row_sums.data());
        row_sums = state.row_sums.data();
      }
      reference::SvdfHybrid(d, input->data_as<float>(), weights_feature->data_as<int8_t>(), weights_feature->scale(),
                            row_sums, state.float_weights_time.data(), bias ? bias->data_as<float>() : nullptr, act,
                            state.asymmetric_quantize_inputs, svdf_state->data_as<float>(),
                            ctx.temporary(0)->data_as<float>(), ctx.temporary(2)->data_as<float>(),
                            ctx.temporary(3)->data_as<int32_t>(), ctx.temporary(1)->data_as<int8_t>(),
                            output->data_as<float>());
      break;
    }
    case SvdfKind::kInteger:
      if (weights_time->type == TensorType::kInt16) {
        // TFLite's int16 state is symmetric: its zero point is not used.
        reference::SvdfInteger<int16_t>(d, input->data_as<int8_t>(), input->zero_point(),
                                        weights_feature->data_as<int8_t>(), weights_time->data_as<int16_t>(),
                                        bias ? bias->data_as<int32_t>() : nullptr, state.multiplier_1, state.shift_1,
                                        state.multiplier_2, state.shift_2, 0, output->zero_point(),
                                        svdf_state->data_as<int16_t>(), ctx.temporary(0)->data_as<int32_t>(),
                                        ctx.temporary(1)->data_as<int32_t>(), output->data_as<int8_t>());
      } else {
        reference::SvdfInteger<int8_t>(d, input->data_as<int8_t>(), input->zero_point(),
                                       weights_feature->data_as<int8_t>(), weights_time->data_as<int8_t>(),
                                       bias ? bias->data_as<int32_t>() : nullptr, state.multiplier_1, state.shift_1,
                                       state.multiplier_2, state.shift_2, svdf_state->zero_point(),
                                       output->zero_point(), svdf_state->data_as<int8_t>(),
                                       ctx.temporary(0)->data_as<int32_t>(), ctx.temporary(1)->data_as<int32_t>(),
                                       output->data_as<int8_t>());
      }
      break;
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterSvdf() {
  return MakeBuiltinWithState<SvdfState>(tflite::BuiltinOperator_SVDF, 4,
                                         "float32, hybrid (int8 weights), int8 (int16 state)", Prepare, Eval);
}

}  // namespace edgerun::ops
