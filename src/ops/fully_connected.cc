// FULLY_CONNECTED: output = input x weights^T + bias. Weights are [units, depth]; the input is
// read as [batches, depth] with batches = elements / depth. keep_num_dims keeps the input's
// leading dims instead of flattening them.
// Types: float32; uint8 (-> uint8 or int16 output); int8 x int8/int4 weights (per-tensor with
// any weight zero point, or per-channel); int16 x int8/int4 weights (int32 or int64 bias);
// int16 x int16 weights; hybrid float32 x int8/int4 weights, each input row quantized at run
// time (symmetric, or asymmetric with asymmetric_quantize_inputs). Sparse constant weights
// (SparsityParameters) are densified once at prepare and then run as dense weights.
#include "edgerun/interpreter.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/integer.h"
#include "ops/conv_util.h"
#include "ops/fully_connected_util.h"
#include "ops/sparsity_util.h"

namespace edgerun::ops {
namespace {

struct FcState {
  float act_min = 0, act_max = 0;
  Activation activation = Activation::kNone;
  QuantizedOutput q;
  std::vector<float> hybrid_scales;  // weight scale per unit
  bool hybrid_per_channel = false;
  bool asymmetric_inputs = false;
  std::vector<int8_t> unpacked_weights;  // int4 weights as int8
  // Sparse constant weights, densified once at prepare.
  std::vector<uint8_t> dense_storage;
  Tensor dense_weights;
  bool sparse_weights = false;
  // Weights packed for the optimized kernels at the first eval (again each time when they are
  // not constant).
  optimized::PackedF32 packed_f32;
  optimized::PackedI16 packed_i16;
  optimized::PackedI8 packed_i8;                 // 8-bit weights on CPUs with byte dot products
  std::vector<int32_t> hybrid_weight_sums;       // per unit, for asymmetric hybrid inputs
};

const Tensor* Weights(const OpContext& ctx, const FcState& state) {
  return state.sparse_weights ? &state.dense_weights : ctx.input(1);
}

const optimized::PackedF32& PackedFloat(const OpContext& ctx, FcState& s, const Tensor* weights) {
  const float* data = weights->data_as<float>();
  const int units = weights->dim(0), depth = weights->dim(1);
  const optimized::Isa isa = optimized::ActiveIsa();
  if (!weights->is_constant() || s.packed_f32.source != data || s.packed_f32.isa != isa) {
    // The packed copy is read from now on: the file's pages of the weights can leave the process,
    // every row once as it is packed (as for convolution filters).
    const optimized::ConsumedRowsFn release = [&](const float* rows, int64_t count) {
      ctx.subgraph().ReleaseWeightPages(rows, static_cast<size_t>(count) * depth * sizeof(float));
    };
    optimized::PackF32FromNK(data, depth, units, depth, isa, &s.packed_f32,
                             weights->is_constant() ? &release : nullptr);
  }
  return s.packed_f32;
}

template <class Weight>
const optimized::PackedI16& PackedInteger(FcState& s, const Tensor* weights, const Weight* data, int32_t offset) {
  const int units = weights->dim(0), depth = weights->dim(1);
  const optimized::Isa isa = optimized::ActiveIsa();
  if (!weights->is_constant() || s.packed_i16.source != data || s.packed_i16.isa != isa) {
    optimized::PackI16FromNK(data, depth, units, depth, offset, isa, &s.packed_i16);
  }
  return s.packed_i16;
}

// Element types of the weights and output that each input type runs with.
Status CheckTypes(const OpContext& ctx, const Tensor* input, const Tensor* weights, const Tensor* output) {
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16}));
  switch (input->type) {
    case TensorType::kFloat32:
      ER_RETURN_IF_ERROR(
          CheckType(ctx, weights, "weights", {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt4}));
      return CheckType(ctx, output, "output", {TensorType::kFloat32});
    case TensorType::kUInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kUInt8}));
      return CheckType(ctx, output, "output", {TensorType::kUInt8, TensorType::kInt16});
    case TensorType::kInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, weights, "weights", {TensorType::kInt8, TensorType::kInt4}));
      return CheckType(ctx, output, "output", {TensorType::kInt8});
    default:
      ER_RETURN_IF_ERROR(
          CheckType(ctx, weights, "weights", {TensorType::kInt8, TensorType::kInt4, TensorType::kInt16}));
      return CheckType(ctx, output, "output", {TensorType::kInt16});
  }
}

Status Prepare(OpContext& ctx, FcState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* weights = ctx.input(1);
  const Tensor* bias = ctx.input(2);
  const Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckTypes(ctx, input, weights, output));
  ER_RETURN_IF_ERROR(CheckRank(ctx, weights, "weights", 2, 2));
  state.sparse_weights = weights->sparsity != nullptr;
  ER_RETURN_IF_ERROR(DenseView(ctx, weights, &state.dense_storage, &state.dense_weights, &weights));
  const auto* o = Options<tflite::FullyConnectedOptions>(ctx);
  if (o && o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT) {
    return ctx.Unsupported("the shuffled weights format is not supported");
  }
  ER_RETURN_IF_ERROR(ParseActivation(ctx, o ? o->fused_activation_function() : tflite::ActivationFunctionType_NONE,
                                     &state.activation));
  const bool hybrid = input->type == TensorType::kFloat32 && weights->type != TensorType::kFloat32;
  // Only the hybrid kernel applies TANH and SIGN_BIT; the others clamp.
  if (!hybrid && (state.activation == Activation::kTanh || state.activation == Activation::kSignBit)) {
    return ctx.Unsupported("fused activation TANH/SIGN_BIT is not supported by ", ctx.op_name(), " with ",
                           TensorTypeName(input->type), " weights");
  }
  ActivationRange(state.activation, &state.act_min, &state.act_max);
  const int units = weights->dim(0), depth = weights->dim(1);
  if (input->type == TensorType::kFloat32 && bias) {
    ER_RETURN_IF_ERROR(CheckType(ctx, bias, "bias", {TensorType::kFloat32}));
    if (bias->num_elements() != units) return ctx.Error("bias ", Describe(bias), " must have ", units, " elements");
  }
  const int64_t elements = input->num_elements();
  if (depth == 0 ? elements != 0 : elements % depth != 0) {
    return ctx.Error("input ", Describe(input), " does not divide into rows of ", depth, " (weights ",
                     Describe(weights), ")");
  }
  const int64_t batches = depth == 0 ? 0 : elements / depth;
  if (batches > std::numeric_limits<int32_t>::max()) return ctx.Error("input ", Describe(input), " has too many rows");
  if (hybrid) {
    ER_RETURN_IF_ERROR(PrepareHybridScales(ctx, weights, units, &state.hybrid_scales));
    state.hybrid_per_channel = weights->quantization.per_channel();
    state.asymmetric_inputs = o && o->asymmetric_quantize_inputs();
    ER_RETURN_IF_ERROR(RequestHybridRows(ctx, elements, batches));
  } else if (input->type != TensorType::kFloat32) {
    QuantizedRules rules;
    rules.out_channels = units;
    rules.matrix_op = true;
    rules.wide_without_bias = false;
    rules.quantized_bias_type = o ? o->quantized_bias_type() : tflite::TensorType_FLOAT32;
    ER_RETURN_IF_ERROR(PrepareQuantizedOutput(ctx, input, weights, bias, output, state.activation, rules, &state.q));
    // 16-bit weights always sum in int64.
    if (weights->type == TensorType::kInt16) state.q.wide = true;
  }
  if (o && o->keep_num_dims()) {
    if (input->rank() == 0 || input->shape.back() != depth) {
      return ctx.Error("keep_num_dims needs the input's last dimension to be ", depth, ", got ", Describe(input));
    }
    Shape shape = input->shape;
    shape.back() = units;
    return ctx.ResizeOutput(0, shape);
  }
  return ctx.ResizeOutput(0, {static_cast<int32_t>(batches), units});
}

// 8-bit weights packed for GemmI8Tile (optimized::HasGemmI8), for inputs of type In and
// input_offset; once for constant weights.
template <class In, class Weight>
const optimized::PackedI8& PackedBytes(const OpContext& ctx, FcState& s, const Tensor* weights, const Weight* data,
                                       int32_t filter_offset, int32_t input_offset) {
  const int units = weights->dim(0), depth = weights->dim(1);
  const optimized::Isa isa = optimized::ActiveIsa();
  const optimized::PackedI8& b = s.packed_i8;
  constexpr bool kFlip = std::is_same_v<In, uint8_t>;
  if (!weights->is_constant() || b.source != data || b.isa != isa || b.filter_offset != filter_offset ||
      b.input_offset != input_offset || b.flip_input != kFlip) {
    optimized::PackI8FromNK(data, depth, units, depth, filter_offset, input_offset, kFlip, isa, &s.packed_i8);
    if (weights->is_constant() && static_cast<const void*>(data) == weights->data) {
      ctx.interpreter().model().ReleaseResidentPages(weights->data, weights->bytes);
    }
  }
  return s.packed_i8;
}

template <class Acc, class In, class Weight, class Out, class Bias>
void EvalQuantized(OpContext& ctx, FcState& s, const Tensor* input, const Tensor* weights, const Weight* weight_data,
                   const Bias* bias, Tensor* output) {
  const int units = weights->dim(0), depth = weights->dim(1);
  const int64_t batches = depth == 0 ? 0 : input->num_elements() / depth;
  const In* in = input->data_as<In>();
  Out* out = output->data_as<Out>();
  if constexpr (std::is_same_v<Acc, int32_t> && sizeof(In) == 1 && std::is_same_v<In, Weight> &&
                std::is_same_v<In, Out>) {
    if (optimized::HasGemmI8(optimized::ActiveIsa())) {
      const optimized::PackedI8& packed = PackedBytes<In>(ctx, s, weights, weight_data, s.q.filter_offset,
                                                          s.q.input_offset);
      const auto stage = RequantStageFor<Out>(s.q, bias, out, units);
      const int64_t ldd = optimized::PaddedDepth(packed);
      optimized::IntGemmI8(ctx.thread_pool(), batches, packed, [&](int64_t r0, int rows) {
        return optimized::MatrixRowsI8(in, depth, r0, rows, depth, ldd);
      }, stage);
      return;
    }
  }
  if constexpr (sizeof(Weight) == 1) {
    // 8-bit weights (plus offset) and 8/16-bit inputs fit the int16 pair products.
    const optimized::PackedI16& packed = PackedInteger(s, weights, weight_data, s.q.filter_offset);
    if constexpr (std::is_same_v<Acc, int32_t>) {
      const auto stage = RequantStageFor<Out>(s.q, bias, out, units);
      optimized::IntegerMatMul<false>(ctx.thread_pool(), in, depth, batches, s.q.input_offset, packed, stage);
    } else {
      const reference::Requantizer<Acc, Bias, Out> emit{s.q.requantization(), bias};
      const auto stage = optimized::MakeEmitStage<Out, Acc>(emit, out, units);
      optimized::IntegerMatMul<true>(ctx.thread_pool(), in, depth, batches, s.q.input_offset, packed, stage);
    }
    return;
  }
  WithRequantizer<Acc, Bias, Out>(s.q, bias, [&](const auto& emit) {
    for (int64_t b = 0; b < batches; ++b) {
      reference::IntegerMatVec<Acc>(in + b * depth, s.q.input_offset, weight_data, s.q.filter_offset, depth, units,
                                    out + b * units, emit);
    }
  });
}

void EvalHybrid(OpContext& ctx, FcState& s, const Tensor* input, const Tensor* weights, const int8_t* weight_data,
                const Tensor* bias, Tensor* output) {
  const int units = weights->dim(0), depth = weights->dim(1);
  const int64_t batches = depth == 0 ? 0 : input->num_elements() / depth;
  const HybridRows rows = GetHybridRows(ctx);
  QuantizeRows(input->data_as<float>(), batches, depth, s.asymmetric_inputs, rows);
  const bool per_channel = s.hybrid_per_channel;
  const float* bias_data = bias ? bias->data_as<float>() : nullptr;
  float* out = output->data_as<float>();
  auto emit = [&](int64_t b, int c0, int count, const int32_t* sums) {
    // As TFLite: a per-tensor weight scale is folded into the row scale, a per-channel one is
    // multiplied in per unit; the product is added to the bias.
    const float row_scale = rows.scales[b] * (per_channel ? 1.0f : s.hybrid_scales[0]);
    for (int i = 0; i < count; ++i) {
      const int u = c0 + i;
      const float scale = per_channel ? row_scale * s.hybrid_scales[u] : row_scale;
      const float v = (bias_data ? bias_data[u] : 0.0f) + static_cast<float>(sums[i]) * scale;
      out[b * units + u] = ApplyFloatActivation(s.activation, v);
    }
  };
  if (optimized::HasGemmI8(optimized::ActiveIsa())) {
    // Byte dot products of the quantized rows and the weights; a row's zero point comes off as
    // zero_point * (sum of the unit's weights), in int32 that wraps like the products.
    const bool repack = s.packed_i8.source != weight_data || !weights->is_constant();
    const optimized::PackedI8& packed = PackedBytes<int8_t>(ctx, s, weights, weight_data, 0, 0);
    if (repack || s.hybrid_weight_sums.size() != static_cast<size_t>(units)) {
      s.hybrid_weight_sums.assign(static_cast<size_t>(units), 0);
      for (int u = 0; u < units; ++u) {
        uint32_t sum = 0;
        for (int k = 0; k < depth; ++k) sum += static_cast<uint32_t>(weight_data[static_cast<int64_t>(u) * depth + k]);
        s.hybrid_weight_sums[u] = static_cast<int32_t>(sum);
      }
    }
    const int64_t ldd = optimized::PaddedDepth(packed);
    optimized::IntGemmI8Staged(ctx.thread_pool(), batches, packed, [&](int64_t r0, int n) {
      return optimized::MatrixRowsI8(rows.quantized, depth, r0, n, depth, ldd);
    }, [&](int64_t b, int c0, int count, int32_t* sums) {
      const uint32_t zero_point = static_cast<uint32_t>(rows.zero_points[b]);
      for (int i = 0; i < count; ++i) {
        sums[i] = static_cast<int32_t>(static_cast<uint32_t>(sums[i]) -
                                       zero_point * static_cast<uint32_t>(s.hybrid_weight_sums[c0 + i]));
      }
      emit(b, c0, count, sums);
    }, nullptr);
    return;
  }
  const optimized::PackedI16& packed = PackedInteger(s, weights, weight_data, 0);
  // Each row has its own zero point and scale.
  auto fill = [&](int64_t r0, int n, int16_t* dst, int64_t ldd) {
    for (int r = 0; r < n; ++r) {
      optimized::ConvertRows(rows.quantized + (r0 + r) * depth, depth, 1, depth, -rows.zero_points[r0 + r],
                             dst + r * ldd, ldd);
    }
  };
  optimized::IntGemm<false>(ctx.thread_pool(), batches, packed, fill, emit);
}

Status Eval(OpContext& ctx, FcState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* weights = Weights(ctx, state);
  const Tensor* bias = ctx.input(2);
  Tensor* output = ctx.output(0);
  const int units = weights->dim(0), depth = weights->dim(1);
  const int64_t batches = depth == 0 ? 0 : input->num_elements() / depth;
  if (input->type == TensorType::kFloat32 && weights->type == TensorType::kFloat32) {
    if (FloatMatVecInPlace(batches, weights->is_constant(), weights->bytes)) {
      optimized::MatVecF32(ctx.thread_pool(), weights->data_as<float>(), units, depth, input->data_as<float>(),
                           bias ? bias->data_as<float>() : nullptr, state.act_min, state.act_max,
                           output->data_as<float>());
      return Status::Ok();
    }
    optimized::GemmF32(ctx.thread_pool(), input->data_as<float>(), depth, static_cast<int>(batches),
                       PackedFloat(ctx, state, weights), output->data_as<float>(), units,
                       bias ? bias->data_as<float>() : nullptr, state.act_min, state.act_max);
    return Status::Ok();
  }
  if (input->type == TensorType::kUInt8) {
    const int32_t* bias_data = bias ? bias->data_as<int32_t>() : nullptr;
    if (output->type == TensorType::kUInt8) {
      EvalQuantized<int32_t, uint8_t, uint8_t, uint8_t>(ctx, state, input, weights, weights->data_as<uint8_t>(),
                                                        bias_data, output);
    } else {
      EvalQuantized<int32_t, uint8_t, uint8_t, int16_t>(ctx, state, input, weights, weights->data_as<uint8_t>(),
                                                        bias_data, output);
    }
    return Status::Ok();
  }
  if (weights->type == TensorType::kInt16) {
    if (bias && bias->type == TensorType::kInt32) {
      EvalQuantized<int64_t, int16_t, int16_t, int16_t>(ctx, state, input, weights, weights->data_as<int16_t>(),
                                                        bias->data_as<int32_t>(), output);
    } else {
      EvalQuantized<int64_t, int16_t, int16_t, int16_t>(ctx, state, input, weights, weights->data_as<int16_t>(),
                                                        bias ? bias->data_as<int64_t>() : nullptr, output);
    }
    return Status::Ok();
  }
  const int8_t* weight_data = WeightsAsInt8(weights, &state.unpacked_weights);
  if (input->type == TensorType::kFloat32) {
    EvalHybrid(ctx, state, input, weights, weight_data, bias, output);
  } else if (input->type == TensorType::kInt8) {
    EvalQuantized<int32_t, int8_t, int8_t, int8_t>(ctx, state, input, weights, weight_data,
                                                   bias ? bias->data_as<int32_t>() : nullptr, output);
  } else if (state.q.wide) {
    EvalQuantized<int64_t, int16_t, int8_t, int16_t>(ctx, state, input, weights, weight_data,
                                                     bias ? bias->data_as<int64_t>() : nullptr, output);
  } else {
    EvalQuantized<int32_t, int16_t, int8_t, int16_t>(ctx, state, input, weights, weight_data,
                                                     bias ? bias->data_as<int32_t>() : nullptr, output);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterFullyConnected() {
  return MakeBuiltinWithState<FcState>(
      tflite::BuiltinOperator_FULLY_CONNECTED, 14,
      "float32, uint8 (-> uint8/int16), int8, int16 (int8/int4/int16 weights), hybrid float32 x int8/int4", Prepare,
      Eval);
}

}  // namespace edgerun::ops
