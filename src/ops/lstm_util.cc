#include "ops/lstm_util.h"

#include <cmath>
#include <limits>

#include "quant/fixed_point.h"
#include "quant/lstm_quant.h"

namespace edgerun::ops {
namespace {

using reference::kCellGate;
using reference::kForgetGate;
using reference::kInputGate;
using reference::kLstmGates;
using reference::kOutputGate;

const char* const kGateNames[kLstmGates] = {"input", "forget", "cell", "output"};

const Tensor* OptionalInput(const OpContext& ctx, int index) { return index >= 0 ? ctx.input(index) : nullptr; }

std::string WeightName(const char* from, int gate) { return StrCat(from, "_to_", kGateNames[gate], "_weights"); }

Status CheckShape(const OpContext& ctx, const Tensor* t, const std::string& role, Shape expected) {
  if (t->shape != expected) {
    return ctx.Error(role, " ", Describe(t), " must have shape ", ShapeToString(expected));
  }
  return Status::Ok();
}

Status CheckTypeIs(const OpContext& ctx, const Tensor* t, const std::string& role, TensorType type) {
  if (t->type != type) return ctx.Error(role, " ", Describe(t), " must be ", TensorTypeName(type));
  return Status::Ok();
}

float ScaleOf(const Tensor* t) { return t == nullptr || t->quantization.scale.empty() ? 1.0f : t->quantization.scale[0]; }

// A real multiplier as TFLite's (multiplier, shift); shifts the kernels cannot apply (a left
// shift of 31 or more, from absurd scales) are refused. `extra_shift` is added by the kernel.
Status Multiplier(const OpContext& ctx, double real, const char* what, int32_t* multiplier, int* shift,
                  int extra_shift = 0) {
  if (!quant::QuantizeMultiplier(real, multiplier, shift)) {
    return ctx.Error("the effective scale of ", what, " (", real, ") is not a positive finite number");
  }
  if (*shift + extra_shift > 30) return ctx.Error("the effective scale of ", what, " (", real, ") is too large");
  return Status::Ok();
}

// bias (or 0) + zero_point x row sums of a [rows, cols] int8 matrix, as TFLite precomputes.
std::vector<int32_t> EffectiveBias(const Tensor* weights, const Tensor* bias, int32_t zero_point) {
  const int rows = weights->dim(0), cols = weights->dim(1);
  std::vector<int32_t> out(static_cast<size_t>(rows), 0);
  if (bias) std::copy_n(bias->data_as<int32_t>(), rows, out.begin());
  const int8_t* w = weights->data_as<int8_t>();
  for (int r = 0; r < rows; ++r) {
    int32_t sum = 0;
    for (int c = 0; c < cols; ++c) sum += w[static_cast<int64_t>(r) * cols + c];
    out[r] = static_cast<int32_t>(static_cast<uint32_t>(out[r]) + static_cast<uint32_t>(sum) * static_cast<uint32_t>(zero_point));
  }
  return out;
}

// The integer kernel's parameters (TFLite's PopulateQuantizedLstmParams8x8_16 and
// PopulatePrecomputedZPTimesWeightsWithBias). Scales are combined in float as TFLite does.
Status PrepareInteger(OpContext& ctx, const LstmCellTensors& t, const Tensor* input, const Tensor* output,
                      bool use_layer_norm, LstmCell* cell) {
  if (ctx.num_intermediates() == 12) {
    return ctx.Unsupported("the integer LSTM with 8-bit gate outputs (12 intermediate tensors) is not implemented");
  }
  if (ctx.num_intermediates() != 5) {
    return ctx.Error("an integer LSTM needs 5 intermediate tensors (gate and hidden scales), has ",
                     ctx.num_intermediates());
  }
  const bool use_cifg = t.input_weights[kInputGate] == nullptr;
  float intermediate_scale[5];
  int32_t intermediate_zp[5];
  for (int i = 0; i < 5; ++i) {
    if (i < 4 && !use_layer_norm) {
      intermediate_scale[i] = static_cast<float>(std::pow(2, -12));  // gates are Q3.12
      intermediate_zp[i] = 0;
      continue;
    }
    const Tensor* intermediate = ctx.intermediate(i);
    if (intermediate == nullptr) return ctx.Error("intermediate tensor ", i, " is missing");
    ER_RETURN_IF_ERROR(GetScale(ctx, intermediate, "intermediate tensor", &intermediate_scale[i]));
    intermediate_zp[i] = intermediate->zero_point();
  }
  float input_scale = 0, output_state_scale = 0, cell_state_scale = 0, output_scale = 0;
  ER_RETURN_IF_ERROR(GetScale(ctx, input, "input", &input_scale));
  ER_RETURN_IF_ERROR(GetScale(ctx, t.output_state, "output state", &output_state_scale));
  ER_RETURN_IF_ERROR(GetScale(ctx, t.cell_state, "cell state", &cell_state_scale));
  ER_RETURN_IF_ERROR(GetScale(ctx, output, "output", &output_scale));
  int cell_scale = 0;
  if (!quant::CheckedLog2(cell_state_scale, &cell_scale)) {
    return ctx.Error("cell state ", Describe(t.cell_state), " must have a power-of-two scale, has ", cell_state_scale);
  }
  // tanh(cell) runs on the cell state as a 16-bit fixed-point number with 15 + cell_scale
  // integer bits; TFLite implements 0 to 6.
  if (15 + cell_scale < 0 || 15 + cell_scale > 6) {
    return ctx.Unsupported("cell state scale 2^", cell_scale, " is outside the supported range 2^-15 .. 2^-9");
  }

  reference::LstmIntegerWeights& q = cell->integer;
  q = reference::LstmIntegerWeights{};
  q.cell_scale_log2 = cell_scale;
  for (int g = 0; g < kLstmGates; ++g) {
    if (g == kInputGate && use_cifg) continue;
    auto& gate = q.gates[g];
    float w_scale = 0, r_scale = 0;
    ER_RETURN_IF_ERROR(GetScale(ctx, t.input_weights[g], "input weights", &w_scale));
    ER_RETURN_IF_ERROR(GetScale(ctx, t.recurrent_weights[g], "recurrent weights", &r_scale));
    const float effective_input = w_scale * input_scale / intermediate_scale[g];
    const float effective_recurrent = r_scale * output_state_scale / intermediate_scale[g];
    ER_RETURN_IF_ERROR(Multiplier(ctx, effective_input, "input x weights", &gate.input_multiplier, &gate.input_shift));
    ER_RETURN_IF_ERROR(
        Multiplier(ctx, effective_recurrent, "state x weights", &gate.recurrent_multiplier, &gate.recurrent_shift));
    if (t.peephole[g]) {
      float c_scale = 0;
      ER_RETURN_IF_ERROR(GetScale(ctx, t.peephole[g], "peephole weights", &c_scale));
      const float effective_cell = static_cast<float>(std::pow(2, cell_scale) * c_scale / intermediate_scale[g]);
      ER_RETURN_IF_ERROR(
          Multiplier(ctx, effective_cell, "peephole", &gate.peephole_multiplier, &gate.peephole_shift));
    }
    if (use_layer_norm) {
      float ln_scale = 0;
      ER_RETURN_IF_ERROR(GetScale(ctx, t.layer_norm[g], "layer norm coefficients", &ln_scale));
      // The kernel applies it with 12 more bits of left shift.
      ER_RETURN_IF_ERROR(
          Multiplier(ctx, ln_scale, "layer norm", &gate.layer_norm_multiplier, &gate.layer_norm_shift, 12));
      gate.variance_guard = std::max(1, static_cast<int32_t>(10000 * ln_scale));
    }
    cell->input_bias[g] = EffectiveBias(t.input_weights[g], use_layer_norm ? nullptr : t.bias[g], -input->zero_point());
    cell->recurrent_bias[g] = EffectiveBias(t.recurrent_weights[g], nullptr, -t.output_state->zero_point());
  }
  const float effective_hidden =
      static_cast<float>(std::pow(2, -15) / intermediate_scale[4] * std::pow(2, -15));
  ER_RETURN_IF_ERROR(Multiplier(ctx, effective_hidden, "hidden", &q.hidden_multiplier, &q.hidden_shift));
  q.hidden_zero_point = intermediate_zp[4];
  q.output_state_zero_point = t.output_state->zero_point();
  if (t.projection_weights) {
    float proj_scale = 0;
    ER_RETURN_IF_ERROR(GetScale(ctx, t.projection_weights, "projection weights", &proj_scale));
    const float effective_proj = proj_scale * intermediate_scale[4] / output_state_scale;
    ER_RETURN_IF_ERROR(Multiplier(ctx, effective_proj, "projection", &q.projection_multiplier, &q.projection_shift));
    cell->projection_bias = EffectiveBias(t.projection_weights, t.projection_bias, q.hidden_zero_point);
  }
  const LstmOptionsValues& o = cell->options;
  q.cell_clip = o.cell_clip > 0
                    ? static_cast<int16_t>(std::min(std::max(o.cell_clip / cell_state_scale, -32768.0f), 32767.0f))
                    : int16_t{0};
  q.proj_clip = o.proj_clip > 0 ? static_cast<int8_t>(std::min(std::max(o.proj_clip / output_scale, -128.0f), 127.0f))
                                : int8_t{0};
  return Status::Ok();
}

}  // namespace

LstmCellTensors GetLstmCellTensors(const OpContext& ctx, const LstmCellLayout& layout) {
  LstmCellTensors t;
  const int w = layout.first_weight;
  for (int g = 0; g < kLstmGates; ++g) {
    t.input_weights[g] = OptionalInput(ctx, w + g);
    t.recurrent_weights[g] = OptionalInput(ctx, w + 4 + g);
    t.bias[g] = OptionalInput(ctx, w + 11 + g);
    if (layout.first_layer_norm >= 0) t.layer_norm[g] = OptionalInput(ctx, layout.first_layer_norm + g);
    if (layout.first_aux_weight >= 0) t.aux_weights[g] = OptionalInput(ctx, layout.first_aux_weight + g);
  }
  t.peephole[kInputGate] = OptionalInput(ctx, w + 8);
  t.peephole[kForgetGate] = OptionalInput(ctx, w + 9);
  t.peephole[kOutputGate] = OptionalInput(ctx, w + 10);
  t.projection_weights = OptionalInput(ctx, w + 15);
  t.projection_bias = OptionalInput(ctx, w + 16);
  t.output_state = ctx.input(layout.output_state);
  t.cell_state = ctx.input(layout.cell_state);
  return t;
}

Status PrepareLstmCell(OpContext& ctx, const LstmCellLayout& layout, const Tensor* input, const Tensor* aux_input,
                       int n_batch, const Tensor* output, const LstmOptionsValues& options, int first_temporary,
                       bool allow_diagonal_recurrent, LstmCell* cell) {
  cell->layout = layout;
  cell->options = options;
  cell->first_temporary = first_temporary;
  const LstmCellTensors t = GetLstmCellTensors(ctx, layout);

  // Required tensors.
  for (int g = kForgetGate; g < kLstmGates; ++g) {
    if (!t.input_weights[g]) return ctx.Error(WeightName("input", g), " is required but missing");
    if (!t.recurrent_weights[g]) return ctx.Error(WeightName("recurrent", g), " is required but missing");
    if (!t.bias[g]) return ctx.Error(kGateNames[g], " gate bias is required but missing");
  }
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32, TensorType::kInt8}));
  const Tensor* i2o = t.input_weights[kOutputGate];
  ER_RETURN_IF_ERROR(CheckType(ctx, i2o, "input_to_output_weights",
                               {TensorType::kFloat32, TensorType::kInt8}));
  LstmKind kind;
  if (input->type == TensorType::kFloat32 && i2o->type == TensorType::kFloat32) {
    kind = LstmKind::kFloat;
  } else if (input->type == TensorType::kFloat32 && i2o->type == TensorType::kInt8) {
    kind = LstmKind::kHybrid;
  } else if (input->type == TensorType::kInt8 && i2o->type == TensorType::kInt8) {
    kind = LstmKind::kInteger;
  } else {
    return ctx.Unsupported("input ", Describe(input), " with weights ", Describe(i2o), " is not supported");
  }
  cell->kind = kind;
  const TensorType weight_type = i2o->type;
  const TensorType bias_type = kind == LstmKind::kInteger ? TensorType::kInt32 : TensorType::kFloat32;
  const TensorType peephole_type = kind == LstmKind::kInteger ? TensorType::kInt16 : weight_type;
  const TensorType layer_norm_type = kind == LstmKind::kInteger ? TensorType::kInt16 : TensorType::kFloat32;

  ER_RETURN_IF_ERROR(CheckRank(ctx, i2o, "input_to_output_weights", 2, 2));
  const int n_input = input->shape.back();
  const int n_cell = i2o->dim(0);
  const Tensor* r2o = t.recurrent_weights[kOutputGate];
  ER_RETURN_IF_ERROR(CheckRank(ctx, r2o, "recurrent_to_output_weights", allow_diagonal_recurrent ? 1 : 2, 2));
  const int n_output = r2o->rank() == 1 ? r2o->dim(0) : r2o->dim(1);
  if (n_cell <= 0 || n_output <= 0) {
    return ctx.Error("the cell count (", n_cell, ") and output size (", n_output, ") must be positive");
  }
  const bool use_cifg = t.input_weights[kInputGate] == nullptr;
  if (use_cifg != (t.recurrent_weights[kInputGate] == nullptr)) {
    return ctx.Error("input_to_input_weights and recurrent_to_input_weights must be both present or both absent");
  }
  if (use_cifg && t.bias[kInputGate]) return ctx.Error("input gate bias must be absent without input gate weights (CIFG)");
  if (!use_cifg && !t.bias[kInputGate]) return ctx.Error("input gate bias is required but missing");

  const int n_aux_input = aux_input ? aux_input->shape.back() : 0;
  const bool use_aux = aux_input != nullptr && t.aux_weights[kForgetGate] != nullptr;
  for (int g = 0; g < kLstmGates; ++g) {
    if (g == kInputGate && use_cifg) continue;
    const std::string in_name = WeightName("input", g), rec_name = WeightName("recurrent", g);
    ER_RETURN_IF_ERROR(CheckShape(ctx, t.input_weights[g], in_name, {n_cell, n_input}));
    ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.input_weights[g], in_name, weight_type));
    const Tensor* r = t.recurrent_weights[g];
    cell->recurrent_diagonal[g] = r->rank() == 1;
    if (cell->recurrent_diagonal[g]) {
      if (!allow_diagonal_recurrent || kind == LstmKind::kInteger) {
        return ctx.Error(rec_name, " ", Describe(r), " must have rank 2");
      }
      // A diagonal recurrent matrix (one weight per cell) multiplies the state element-wise.
      ER_RETURN_IF_ERROR(CheckShape(ctx, r, rec_name, {n_cell}));
      ER_RETURN_IF_ERROR(CheckTypeIs(ctx, r, rec_name, TensorType::kFloat32));
      if (n_output != n_cell) return ctx.Error(rec_name, " is diagonal, so the output size must equal the cell count");
    } else {
      ER_RETURN_IF_ERROR(CheckShape(ctx, r, rec_name, {n_cell, n_output}));
      ER_RETURN_IF_ERROR(CheckTypeIs(ctx, r, rec_name, weight_type));
    }
    const std::string bias_name = StrCat(kGateNames[g], " gate bias");
    ER_RETURN_IF_ERROR(CheckShape(ctx, t.bias[g], bias_name, {n_cell}));
    ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.bias[g], bias_name, bias_type));
    if (use_aux) {
      const std::string aux_name = WeightName("aux_input", g);
      if (!t.aux_weights[g]) return ctx.Error(aux_name, " is required with an auxiliary input");
      ER_RETURN_IF_ERROR(CheckShape(ctx, t.aux_weights[g], aux_name, {n_cell, n_aux_input}));
      ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.aux_weights[g], aux_name, weight_type));
    }
  }
  if (use_aux && use_cifg && t.aux_weights[kInputGate]) {
    return ctx.Error("aux_input_to_input_weights must be absent without input gate weights (CIFG)");
  }
  if (!use_aux) {
    for (int g = 0; g < kLstmGates; ++g) {
      if (t.aux_weights[g]) return ctx.Error("auxiliary weights are given without an auxiliary input");
    }
  }

  // Peepholes: all or none (the input gate's is absent with CIFG).
  const bool use_peephole = t.peephole[kOutputGate] != nullptr;
  const bool peephole_consistent =
      use_peephole ? (t.peephole[kForgetGate] && (use_cifg == (t.peephole[kInputGate] == nullptr)))
                   : (!t.peephole[kForgetGate] && !t.peephole[kInputGate]);
  if (!peephole_consistent) return ctx.Error("peephole (cell_to_*) weights must be all present or all absent");
  for (int g = 0; g < kLstmGates; ++g) {
    if (!t.peephole[g]) continue;
    const std::string name = StrCat("cell_to_", kGateNames[g], "_weights");
    ER_RETURN_IF_ERROR(CheckShape(ctx, t.peephole[g], name, {n_cell}));
    ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.peephole[g], name, peephole_type));
  }
  if (kind == LstmKind::kInteger && use_peephole && n_output > n_cell) {
    // TFLite's integer peephole walks n_output values per batch row of the cell state.
    return ctx.Unsupported("integer peephole LSTM with more outputs (", n_output, ") than cells (", n_cell, ")");
  }

  // Projection.
  if (t.projection_weights) {
    ER_RETURN_IF_ERROR(CheckShape(ctx, t.projection_weights, "projection weights", {n_output, n_cell}));
    ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.projection_weights, "projection weights", weight_type));
  } else if (t.projection_bias) {
    return ctx.Error("projection bias is given without projection weights");
  } else if (n_output != n_cell) {
    return ctx.Error("without projection the output size (", n_output, ") must equal the cell count (", n_cell, ")");
  }
  if (t.projection_bias) {
    ER_RETURN_IF_ERROR(CheckShape(ctx, t.projection_bias, "projection bias", {n_output}));
    ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.projection_bias, "projection bias", bias_type));
  }

  // Layer normalization: decided by the forget gate's coefficients.
  const bool use_layer_norm = t.layer_norm[kForgetGate] != nullptr;
  if (use_layer_norm) {
    if (use_cifg != (t.layer_norm[kInputGate] == nullptr)) {
      return ctx.Error("input layer norm coefficients must be present exactly when there is an input gate");
    }
    for (int g = 0; g < kLstmGates; ++g) {
      if (g == kInputGate && use_cifg) continue;
      const std::string name = StrCat(kGateNames[g], " layer norm coefficients");
      if (!t.layer_norm[g]) return ctx.Error(name, " are required with layer normalization");
      ER_RETURN_IF_ERROR(CheckShape(ctx, t.layer_norm[g], name, {n_cell}));
      ER_RETURN_IF_ERROR(CheckTypeIs(ctx, t.layer_norm[g], name, layer_norm_type));
    }
  }

  // States.
  const TensorType state_type = kind == LstmKind::kInteger ? TensorType::kInt8 : TensorType::kFloat32;
  const TensorType cell_type = kind == LstmKind::kInteger ? TensorType::kInt16 : TensorType::kFloat32;
  ER_RETURN_IF_ERROR(CheckStateTensor(ctx, t.output_state, "output state", state_type));
  ER_RETURN_IF_ERROR(CheckStateTensor(ctx, t.cell_state, "cell state", cell_type));
  if (t.output_state->num_elements() != static_cast<int64_t>(n_batch) * n_output) {
    return ctx.Error("output state ", Describe(t.output_state), " must have ", n_batch, " x ", n_output, " elements");
  }
  if (t.cell_state->num_elements() != static_cast<int64_t>(n_batch) * n_cell) {
    return ctx.Error("cell state ", Describe(t.cell_state), " must have ", n_batch, " x ", n_cell, " elements");
  }
  if (output->type != state_type) return ctx.Error("output ", Describe(output), " must be ", TensorTypeName(state_type));

  cell->dims = reference::LstmDims{n_batch, n_input, use_aux ? n_aux_input : 0, n_cell, n_output};

  // Hybrid weights carry their scale; integer ones are precomputed here, so must be constant.
  if (kind == LstmKind::kHybrid) {
    float scale = 0;
    for (int g = 0; g < kLstmGates; ++g) {
      for (const Tensor* w : {t.input_weights[g], t.recurrent_weights[g], t.peephole[g], t.aux_weights[g]}) {
        if (w && w->type == TensorType::kInt8) ER_RETURN_IF_ERROR(GetScale(ctx, w, "weights", &scale));
      }
    }
    if (t.projection_weights) ER_RETURN_IF_ERROR(GetScale(ctx, t.projection_weights, "projection weights", &scale));
  }
  if (kind == LstmKind::kInteger) {
    for (int g = 0; g < kLstmGates; ++g) {
      ER_RETURN_IF_ERROR(CheckConstant(ctx, t.input_weights[g], "input weights"));
      ER_RETURN_IF_ERROR(CheckConstant(ctx, t.recurrent_weights[g], "recurrent weights"));
      ER_RETURN_IF_ERROR(CheckConstant(ctx, t.bias[g], "gate bias"));
    }
    ER_RETURN_IF_ERROR(CheckConstant(ctx, t.projection_weights, "projection weights"));
    ER_RETURN_IF_ERROR(CheckConstant(ctx, t.projection_bias, "projection bias"));
    ER_RETURN_IF_ERROR(PrepareInteger(ctx, t, input, output, use_layer_norm, cell));
  }

  // Scratch buffers.
  auto request = [&](int slot, TensorType type, int64_t size) -> Status {
    if (size > std::numeric_limits<int32_t>::max()) return ctx.Error("scratch buffer of ", size, " elements is too large");
    auto result = ctx.RequestTemporary(first_temporary + slot, type, {static_cast<int32_t>(std::max<int64_t>(size, 1))});
    return result.ok() ? Status::Ok() : result.status();
  };
  switch (kind) {
    case LstmKind::kFloat:
      return request(0, TensorType::kFloat32, reference::LstmFloatScratchSize(cell->dims));
    case LstmKind::kHybrid: {
      const auto size = reference::LstmHybridScratch(cell->dims);
      ER_RETURN_IF_ERROR(request(0, TensorType::kFloat32, size.floats));
      ER_RETURN_IF_ERROR(request(1, TensorType::kInt8, size.int8s));
      return request(2, TensorType::kInt32, size.int32s);
    }
    case LstmKind::kInteger: {
      const auto size = reference::LstmIntegerScratch(cell->dims);
      ER_RETURN_IF_ERROR(request(0, TensorType::kInt16, size.int16s));
      return request(1, TensorType::kInt8, size.int8s);
    }
  }
  return Status::Ok();
}

namespace {

template <class T>
const T* DataOrNull(const Tensor* t) {
  return t ? t->data_as<T>() : nullptr;
}

// Calls step(rows, input_row, output_row, state_batch) for each step of the sequence: all
// batch rows at once when time-major, one row at a time (state of that row) when batch-major.
template <class Step>
void WalkSequence(const LstmCell& cell, const LstmSequence& s, Step&& step) {
  const int n_batch = cell.dims.n_batch, max_time = s.max_time;
  if (s.time_major) {
    for (int i = 0; i < max_time; ++i) {
      const int t = s.forward ? i : max_time - 1 - i;
      step(n_batch, static_cast<int64_t>(t) * n_batch, 0);
    }
    return;
  }
  for (int b = 0; b < n_batch; ++b) {
    for (int i = 0; i < max_time; ++i) {
      const int t = s.forward ? i : max_time - 1 - i;
      step(1, static_cast<int64_t>(b) * max_time + t, b);
    }
  }
}

reference::LstmFloatWeights FloatWeights(const LstmCell& cell, const LstmCellTensors& t) {
  reference::LstmFloatWeights w;
  for (int g = 0; g < kLstmGates; ++g) {
    auto& gate = w.gates[g];
    gate.input_weights = DataOrNull<float>(t.input_weights[g]);
    gate.aux_weights = cell.dims.n_aux_input > 0 ? DataOrNull<float>(t.aux_weights[g]) : nullptr;
    gate.recurrent_weights = DataOrNull<float>(t.recurrent_weights[g]);
    gate.recurrent_diagonal = cell.recurrent_diagonal[g];
    gate.peephole = DataOrNull<float>(t.peephole[g]);
    gate.layer_norm = DataOrNull<float>(t.layer_norm[g]);
    gate.bias = DataOrNull<float>(t.bias[g]);
  }
  w.projection_weights = DataOrNull<float>(t.projection_weights);
  w.projection_bias = DataOrNull<float>(t.projection_bias);
  w.activation = ToVectorActivation(cell.options.activation);
  w.cell_clip = cell.options.cell_clip;
  w.proj_clip = cell.options.proj_clip;
  return w;
}

reference::LstmHybridWeights HybridWeights(LstmCell& cell, const LstmCellTensors& t) {
  const auto& d = cell.dims;
  const bool asymmetric = cell.options.asymmetric_quantize_inputs;
  // Row sums for the zero-point correction of asymmetric inputs; weights may change between
  // invocations, so they are recomputed each time (cheap next to the sequence).
  cell.row_sums.assign(asymmetric ? static_cast<size_t>(3 * kLstmGates * d.n_cell + d.n_output) : 0, 0);
  int32_t* sums = cell.row_sums.data();
  auto row_sums = [&](const Tensor* weights, int rows, int cols) -> const int32_t* {
    if (!asymmetric || weights == nullptr || weights->type != TensorType::kInt8) return nullptr;
    reference::RowSums(weights->data_as<int8_t>(), rows, cols, sums);
    const int32_t* result = sums;
    sums += rows;
    return result;
  };
  reference::LstmHybridWeights w;
  for (int g = 0; g < kLstmGates; ++g) {
    auto& gate = w.gates[g];
    gate.input_weights = DataOrNull<int8_t>(t.input_weights[g]);
    if (!gate.input_weights) continue;
    gate.input_scale = ScaleOf(t.input_weights[g]);
    gate.input_row_sums = row_sums(t.input_weights[g], d.n_cell, d.n_input);
    if (d.n_aux_input > 0) {
      gate.aux_weights = DataOrNull<int8_t>(t.aux_weights[g]);
      gate.aux_scale = ScaleOf(t.aux_weights[g]);
      gate.aux_row_sums = row_sums(t.aux_weights[g], d.n_cell, d.n_aux_input);
    }
    if (cell.recurrent_diagonal[g]) {
      gate.recurrent_diagonal = t.recurrent_weights[g]->data_as<float>();
    } else {
      gate.recurrent_weights = DataOrNull<int8_t>(t.recurrent_weights[g]);
      gate.recurrent_scale = ScaleOf(t.recurrent_weights[g]);
      gate.recurrent_row_sums = row_sums(t.recurrent_weights[g], d.n_cell, d.n_output);
    }
    gate.peephole = DataOrNull<int8_t>(t.peephole[g]);
    gate.peephole_scale = ScaleOf(t.peephole[g]);
    gate.layer_norm = DataOrNull<float>(t.layer_norm[g]);
    gate.bias = DataOrNull<float>(t.bias[g]);
  }
  w.projection_weights = DataOrNull<int8_t>(t.projection_weights);
  w.projection_scale = ScaleOf(t.projection_weights);
  w.projection_row_sums = row_sums(t.projection_weights, d.n_output, d.n_cell);
  w.projection_bias = DataOrNull<float>(t.projection_bias);
  w.activation = ToVectorActivation(cell.options.activation);
  w.cell_clip = cell.options.cell_clip;
  w.proj_clip = cell.options.proj_clip;
  w.asymmetric_quantize_inputs = asymmetric;
  return w;
}

reference::LstmIntegerWeights IntegerWeights(const LstmCell& cell, const LstmCellTensors& t) {
  reference::LstmIntegerWeights w = cell.integer;
  for (int g = 0; g < kLstmGates; ++g) {
    auto& gate = w.gates[g];
    gate.input_weights = DataOrNull<int8_t>(t.input_weights[g]);
    if (!gate.input_weights) continue;
    gate.input_bias = cell.input_bias[g].data();
    gate.recurrent_weights = DataOrNull<int8_t>(t.recurrent_weights[g]);
    gate.recurrent_bias = cell.recurrent_bias[g].data();
    gate.peephole = DataOrNull<int16_t>(t.peephole[g]);
    gate.layer_norm = DataOrNull<int16_t>(t.layer_norm[g]);
    gate.layer_norm_bias = DataOrNull<int32_t>(t.bias[g]);
  }
  w.projection_weights = DataOrNull<int8_t>(t.projection_weights);
  w.projection_bias = cell.projection_bias.empty() ? nullptr : cell.projection_bias.data();
  return w;
}

}  // namespace

Status EvalLstmCell(OpContext& ctx, LstmCell& cell, const LstmSequence& s) {
  const LstmCellTensors t = GetLstmCellTensors(ctx, cell.layout);
  const auto& d = cell.dims;
  const int first = cell.first_temporary;
  reference::LstmDims step_dims = d;
  switch (cell.kind) {
    case LstmKind::kFloat: {
      const auto w = FloatWeights(cell, t);
      const float* input = s.input->data_as<float>();
      const float* aux = d.n_aux_input > 0 ? s.aux_input->data_as<float>() : nullptr;
      float* output = s.output->data_as<float>() + s.output_offset;
      float* scratch = ctx.temporary(first)->data_as<float>();
      WalkSequence(cell, s, [&](int rows, int64_t row, int b) {
        step_dims.n_batch = rows;
        reference::LstmStepFloat(w, step_dims, input + row * d.n_input, aux ? aux + row * d.n_aux_input : nullptr,
                                 t.output_state->data_as<float>() + static_cast<int64_t>(b) * d.n_output,
                                 t.cell_state->data_as<float>() + static_cast<int64_t>(b) * d.n_cell,
                                 output + row * s.output_stride, s.output_stride, scratch);
      });
      return Status::Ok();
    }
    case LstmKind::kHybrid: {
      const auto w = HybridWeights(cell, t);
      const float* input = s.input->data_as<float>();
      const float* aux = d.n_aux_input > 0 ? s.aux_input->data_as<float>() : nullptr;
      float* output = s.output->data_as<float>() + s.output_offset;
      float* float_scratch = ctx.temporary(first)->data_as<float>();
      int8_t* int8_scratch = ctx.temporary(first + 1)->data_as<int8_t>();
      int32_t* int32_scratch = ctx.temporary(first + 2)->data_as<int32_t>();
      WalkSequence(cell, s, [&](int rows, int64_t row, int b) {
        step_dims.n_batch = rows;
        reference::LstmStepHybrid(w, step_dims, input + row * d.n_input, aux ? aux + row * d.n_aux_input : nullptr,
                                  t.output_state->data_as<float>() + static_cast<int64_t>(b) * d.n_output,
                                  t.cell_state->data_as<float>() + static_cast<int64_t>(b) * d.n_cell,
                                  output + row * s.output_stride, s.output_stride, float_scratch, int8_scratch,
                                  int32_scratch);
      });
      return Status::Ok();
    }
    case LstmKind::kInteger: {
      const auto w = IntegerWeights(cell, t);
      const int8_t* input = s.input->data_as<int8_t>();
      int8_t* output = s.output->data_as<int8_t>() + s.output_offset;
      int16_t* int16_scratch = ctx.temporary(first)->data_as<int16_t>();
      int8_t* int8_scratch = ctx.temporary(first + 1)->data_as<int8_t>();
      WalkSequence(cell, s, [&](int rows, int64_t row, int b) {
        step_dims.n_batch = rows;
        reference::LstmStepInteger(w, step_dims, input + row * d.n_input,
                                   t.output_state->data_as<int8_t>() + static_cast<int64_t>(b) * d.n_output,
                                   t.cell_state->data_as<int16_t>() + static_cast<int64_t>(b) * d.n_cell,
                                   output + row * s.output_stride, int16_scratch, int8_scratch);
      });
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace edgerun::ops
