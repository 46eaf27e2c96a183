#include "ops/rnn_util.h"

#include <limits>

namespace edgerun::ops {
namespace {

Status CheckShape(const OpContext& ctx, const Tensor* t, const char* role, Shape expected) {
  if (t->shape != expected) return ctx.Error(role, " ", Describe(t), " must have shape ", ShapeToString(expected));
  return Status::Ok();
}

}  // namespace

Status PrepareRnnCell(OpContext& ctx, const RnnCellLayout& layout, const Tensor* input, const Tensor* aux_input,
                      int n_batch, Activation activation, bool asymmetric_quantize_inputs, int first_temporary,
                      RnnCell* cell) {
  cell->layout = layout;
  cell->activation = activation;
  cell->asymmetric_quantize_inputs = asymmetric_quantize_inputs;
  cell->first_temporary = first_temporary;
  for (int index : {layout.weights, layout.recurrent_weights, layout.bias}) ER_RETURN_IF_ERROR(CheckInput(ctx, index));
  const Tensor* weights = ctx.input(layout.weights);
  const Tensor* recurrent = ctx.input(layout.recurrent_weights);
  const Tensor* bias = ctx.input(layout.bias);
  const Tensor* aux_weights = layout.aux_weights >= 0 ? ctx.input(layout.aux_weights) : nullptr;
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kFloat32, TensorType::kInt8}));
  cell->hybrid = weights->type == TensorType::kInt8;
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights, "weights", 2, 2));
  const int num_units = weights->dim(0), input_size = input->shape.back();
  ER_RETURN_IF_ERROR(CheckShape(ctx, weights, "weights", {num_units, input_size}));
  ER_RETURN_IF_ERROR(CheckShape(ctx, recurrent, "recurrent weights", {num_units, num_units}));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, weights, recurrent, "weights and recurrent weights"));
  ER_RETURN_IF_ERROR(CheckShape(ctx, bias, "bias", {num_units}));
  ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
  int aux_input_size = 0;
  if (aux_weights) {
    if (aux_input == nullptr) return ctx.Error("aux weights ", Describe(aux_weights), " are given without an aux input");
    aux_input_size = aux_input->shape.back();
    ER_RETURN_IF_ERROR(CheckShape(ctx, aux_weights, "aux weights", {num_units, aux_input_size}));
    ER_RETURN_IF_ERROR(CheckSameType(ctx, weights, aux_weights, "weights and aux weights"));
  }
  if (cell->hybrid) {
    float scale = 0;
    for (const Tensor* w : {weights, recurrent, aux_weights}) {
      if (w) ER_RETURN_IF_ERROR(GetScale(ctx, w, "weights", &scale));
    }
  }
  const Tensor* hidden = ctx.input(layout.hidden_state);
  ER_RETURN_IF_ERROR(CheckStateTensor(ctx, hidden, "hidden state", TensorType::kFloat32));
  ER_RETURN_IF_ERROR(CheckShape(ctx, hidden, "hidden state", {n_batch, num_units}));
  cell->dims = reference::RnnDims{n_batch, input_size, aux_input_size, num_units};
  if (!cell->hybrid) return Status::Ok();
  auto request = [&](int slot, TensorType type, int64_t size) -> Status {
    if (size > std::numeric_limits<int32_t>::max()) return ctx.Error("scratch buffer of ", size, " elements is too large");
    auto result = ctx.RequestTemporary(first_temporary + slot, type, {static_cast<int32_t>(std::max<int64_t>(size, 1))});
    return result.ok() ? Status::Ok() : result.status();
  };
  ER_RETURN_IF_ERROR(request(0, TensorType::kInt8, static_cast<int64_t>(n_batch) * (input_size + aux_input_size + num_units)));
  ER_RETURN_IF_ERROR(request(1, TensorType::kFloat32, n_batch));
  return request(2, TensorType::kInt32, n_batch);
}

void EvalRnnCell(OpContext& ctx, RnnCell& cell, const RnnSequence& s) {
  const auto& d = cell.dims;
  const Tensor* weights = ctx.input(cell.layout.weights);
  const Tensor* recurrent = ctx.input(cell.layout.recurrent_weights);
  const Tensor* aux_weights = d.aux_input_size > 0 ? ctx.input(cell.layout.aux_weights) : nullptr;
  const float* bias = ctx.input(cell.layout.bias)->data_as<float>();
  float* hidden = ctx.input(cell.layout.hidden_state)->data_as<float>();
  const float* input = s.input->data_as<float>();
  const float* aux = aux_weights ? s.aux_input->data_as<float>() : nullptr;
  float* output = s.output->data_as<float>() + s.output_offset;
  const auto act = ToVectorActivation(cell.activation);

  reference::RnnFloatWeights fw;
  reference::RnnHybridWeights hw;
  int8_t* int8_scratch = nullptr;
  float* scales = nullptr;
  int32_t* zero_points = nullptr;
  if (cell.hybrid) {
    hw.input_weights = weights->data_as<int8_t>();
    hw.input_scale = weights->scale();
    hw.recurrent_weights = recurrent->data_as<int8_t>();
    hw.recurrent_scale = recurrent->scale();
    if (aux_weights) {
      hw.aux_weights = aux_weights->data_as<int8_t>();
      hw.aux_scale = aux_weights->scale();
    }
    hw.bias = bias;
    hw.asymmetric_quantize_inputs = cell.asymmetric_quantize_inputs;
    if (cell.asymmetric_quantize_inputs) {
      cell.row_sums.assign(static_cast<size_t>(3 * d.num_units), 0);
      reference::RowSums(hw.input_weights, d.num_units, d.input_size, cell.row_sums.data());
      reference::RowSums(hw.recurrent_weights, d.num_units, d.num_units, cell.row_sums.data() + d.num_units);
      hw.input_row_sums = cell.row_sums.data();
      hw.recurrent_row_sums = cell.row_sums.data() + d.num_units;
      if (aux_weights) {
        reference::RowSums(hw.aux_weights, d.num_units, d.aux_input_size, cell.row_sums.data() + 2 * d.num_units);
        hw.aux_row_sums = cell.row_sums.data() + 2 * d.num_units;
      }
    }
    int8_scratch = ctx.temporary(cell.first_temporary)->data_as<int8_t>();
    scales = ctx.temporary(cell.first_temporary + 1)->data_as<float>();
    zero_points = ctx.temporary(cell.first_temporary + 2)->data_as<int32_t>();
  } else {
    fw.input_weights = weights->data_as<float>();
    fw.recurrent_weights = recurrent->data_as<float>();
    fw.aux_weights = aux_weights ? aux_weights->data_as<float>() : nullptr;
    fw.bias = bias;
  }
  auto step = [&](int rows, int64_t row, int b) {
    reference::RnnDims step_dims = d;
    step_dims.n_batch = rows;
    const float* x = input + row * d.input_size;
    const float* a = aux ? aux + row * d.aux_input_size : nullptr;
    float* h = hidden + static_cast<int64_t>(b) * d.num_units;
    float* out = output + row * s.output_stride;
    if (cell.hybrid) {
      reference::RnnStepHybrid(hw, step_dims, x, a, act, h, out, s.output_stride, int8_scratch, scales, zero_points);
    } else {
      reference::RnnStepFloat(fw, step_dims, x, a, act, h, out, s.output_stride);
    }
  };
  const int n_batch = d.n_batch, max_time = s.max_time;
  if (s.time_major) {
    for (int i = 0; i < max_time; ++i) {
      const int t = s.forward ? i : max_time - 1 - i;
      step(n_batch, static_cast<int64_t>(t) * n_batch, 0);
    }
  } else {
    for (int b = 0; b < n_batch; ++b) {
      for (int i = 0; i < max_time; ++i) {
        const int t = s.forward ? i : max_time - 1 - i;
        step(1, static_cast<int64_t>(b) * max_time + t, b);
      }
    }
  }
}

}  // namespace edgerun::ops
