// QUANTIZE: float32 -> int8 / uint8 / int16 with q = round(x / scale) + zero_point (ties away
// from zero, as TFLite's reference kernel), clamped to the type; per-tensor or per-channel.
// Between integer types (uint8, int8, int16, int32) it requantizes as TFLite's Requantize:
// (q - z_in) * (s_in / s_out) in fixed point, + z_out, saturated to the output type.
// In kLiteRtDefault mode the nodes LiteRT hands to XNNPACK (float -> uint8 / int8 per tensor, and
// uint8 -> uint8 / int8 -> int8) use XNNPACK's arithmetic: x * (1 / scale) rounded half to even,
// and an 8-bit multiplier rounded half up.
#include <cmath>

#include "kernels/reference/integer_arithmetic.h"
#include "ops/binary_op.h"
#include "ops/quant_arith_util.h"
#include "ops/row_bands.h"
#include "ops/xnnpack_util.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::ops {
namespace {

struct QuantizeState {
  int32_t multiplier = 0;  // requantization only
  int shift = 0;
  // XNNPACK's arithmetic (kLiteRtDefault mode, 8-bit nodes the delegate takes).
  bool xnnpack_from_float = false;
  bool xnnpack_requantize = false;
  quant::xnn::RequantizeParams xnn;
  // 8-bit to 8-bit: the output byte for each input byte (indexed by the stored byte), one lookup
  // per element instead of the fixed-point arithmetic (a 224x224x3 input: 450 -> ~40 us).
  bool use_table = false;
  uint8_t table[256] = {};
  // The table adds a constant to every byte (mod 256): the same scale on both sides, zero points
  // apart (TF2 PTQ's uint8 input to int8 is b + 128), so a vector add instead of a lookup per byte.
  bool table_is_shift = false;
  uint8_t shift_bytes = 0;
};

// The delegate converts float32 to a per-tensor 8-bit output (any rank up to 6).
bool XnnpackQuantizesFloat(const OpContext& ctx) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  if (!LiteRtDefaultArithmetic(ctx) || input->rank() > 6) return false;
  for (int d = 0; d < input->rank(); ++d) {
    if (input->dim(d) <= 0) return false;
  }
  return (output->type == TensorType::kInt8 || output->type == TensorType::kUInt8) &&
         XnnpackQuantized8(output, output->type);
}

bool IsEightBit(TensorType type) { return type == TensorType::kInt8 || type == TensorType::kUInt8; }

// The output byte for each input byte, from the requantization Eval would run per element.
template <class Fn>
void FillTable(const Tensor* input, const Tensor* output, QuantizeState& state, const Fn& requantize) {
  const bool in_signed = input->type == TensorType::kInt8;
  const int32_t lo = TypeMin(output->type), hi = TypeMax(output->type);
  for (int byte = 0; byte < 256; ++byte) {
    state.table[byte] = static_cast<uint8_t>(requantize(in_signed ? static_cast<int8_t>(byte) : byte, lo, hi));
  }
  state.use_table = true;
  state.shift_bytes = state.table[0];
  state.table_is_shift = true;
  for (int byte = 0; byte < 256; ++byte) {
    state.table_is_shift = state.table_is_shift && state.table[byte] == static_cast<uint8_t>(byte + state.shift_bytes);
  }
}

Status PrepareRequantize(OpContext& ctx, QuantizeState& state) {
  const Tensor* input = ctx.input(0);
  const Tensor* output = ctx.output(0);
  state.use_table = false;
  state.table_is_shift = false;
  state.xnnpack_requantize =
      XnnpackTakes8Bit(ctx, 1) && quant::xnn::PrepareRequantize(input->scale(), input->zero_point(), output->scale(),
                                                                output->zero_point(), &state.xnn);
  if (state.xnnpack_requantize) {
    FillTable(input, output, state,
              [&](int32_t x, int32_t lo, int32_t hi) { return quant::xnn::Requantize(state.xnn, x, lo, hi); });
    return Status::Ok();
  }
  if (input->quantization.per_channel() || output->quantization.per_channel()) {
    return ctx.Unsupported("per-channel requantization (", Describe(input), " -> ", Describe(output), ")");
  }
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, input, "input"));
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, output, "output"));
  ER_RETURN_IF_ERROR(QuantizeScale(ctx, static_cast<double>(input->scale()) / static_cast<double>(output->scale()),
                                   &state.multiplier, &state.shift));
  if (IsEightBit(input->type) && IsEightBit(output->type)) {
    const int32_t input_zero_point = input->zero_point(), output_zero_point = output->zero_point();
    FillTable(input, output, state, [&](int32_t x, int32_t lo, int32_t hi) {
      return reference::Requantize(x, input_zero_point, state.multiplier, state.shift, output_zero_point, lo, hi);
    });
  }
  return Status::Ok();
}

Status Prepare(OpContext& ctx, QuantizeState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input",
                               {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16,
                                TensorType::kInt32}));
  if (input->type == TensorType::kFloat32) {
    ER_RETURN_IF_ERROR(
        CheckType(ctx, output, "output", {TensorType::kInt8, TensorType::kUInt8, TensorType::kInt16}));
    if (output->quantization.empty()) return ctx.Error("output ", Describe(output), " has no quantization parameters");
    for (float s : output->quantization.scale) {
      if (!(s > 0) || !std::isfinite(s)) return ctx.Error("output scale ", s, " must be positive and finite");
    }
    if (output->quantization.per_channel()) {
      const int axis = output->quantization.quantized_dimension;
      if (axis < 0 || axis >= input->rank() ||
          static_cast<size_t>(input->dim(axis)) != output->quantization.scale.size()) {
        return ctx.Error("per-channel quantization of ", Describe(output), " does not match the input shape");
      }
    }
  } else {
    ER_RETURN_IF_ERROR(CheckType(ctx, output, "output",
                                 {TensorType::kInt8, TensorType::kUInt8, TensorType::kInt16, TensorType::kInt32}));
  }
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, input->shape));
  if (input->type == TensorType::kFloat32) {
    state.xnnpack_from_float = XnnpackQuantizesFloat(ctx);
    return Status::Ok();
  }
  return PrepareRequantize(ctx, state);
}

template <class T>
void QuantizeFloat(const Tensor* input, Tensor* output) {
  const float* in = input->data_as<float>();
  T* out = output->data_as<T>();
  const auto& q = output->quantization;
  const int64_t n = input->num_elements();
  // Channel of element i: (i / inner) % channels along the quantized dimension.
  int64_t inner = 1, channels = 1;
  if (q.per_channel()) {
    channels = input->dim(q.quantized_dimension);
    for (int d = q.quantized_dimension + 1; d < input->rank(); ++d) inner *= input->dim(d);
  }
  constexpr float lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = q.per_channel() ? (i / inner) % channels : 0;
    // A per-channel tensor may list one zero point for all channels (TFLite reuses the first).
    const size_t zp_index = c < static_cast<int64_t>(q.zero_point.size()) ? static_cast<size_t>(c) : 0;
    const float zero_point = q.zero_point.empty() ? 0.0f : static_cast<float>(q.zero_point[zp_index]);
    const float scaled = std::round(in[i] / q.scale[c]) + zero_point;
    // Clamping in float first keeps the conversion defined for huge values and NaN (-> lo).
    const float clamped = std::isnan(scaled) ? lo : std::min(std::max(scaled, lo), hi);
    out[i] = static_cast<T>(clamped);
  }
}

// XNNPACK's f32 -> qs8 / qu8 conversion of n values (quant::xnn::QuantizeFloat), written without
// branches or library calls so that the compiler vectorizes it (a model's float input of
// 224x224x3 took 0.56 ms through std::nearbyint): NaN goes to qmin, the clamp keeps |v| < 2^22,
// and adding and subtracting 1.5 x 2^23 rounds to the nearest integer, ties to even, as nearbyint
// does in the default rounding mode.
template <class T>
void QuantizeFloatXnnpack(const float* src, float inverse_scale, int32_t zero_point, T* dst, int64_t n) {
  constexpr int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const float low = static_cast<float>(lo - zero_point), high = static_cast<float>(hi - zero_point);
  constexpr float kRound = 12582912.0f;  // 1.5 x 2^23
  for (int64_t i = 0; i < n; ++i) {
    float v = src[i] * inverse_scale;
    v = v != v ? low : v;
    v = std::min(std::max(v, low), high);
    v = (v + kRound) - kRound;
    dst[i] = static_cast<T>(static_cast<int32_t>(v) + zero_point);
  }
}

// n bytes by the table, or the shift it reduces to (vectorized by the compiler: 16 or more bytes
// an instruction). The shift is copied first: a byte store may alias the state as far as the
// compiler knows, which would keep the loop scalar.
void RequantizeBytes(const QuantizeState& state, const uint8_t* src, uint8_t* dst, int64_t n) {
  if (state.table_is_shift) {
    const uint8_t d = state.shift_bytes;
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i] + d);
    return;
  }
  const uint8_t* table = state.table;
  for (int64_t i = 0; i < n; ++i) dst[i] = table[src[i]];
}

// The two fast paths on n values (the row kernel's bands, Eval's blocks): float -> 8-bit with
// XNNPACK's arithmetic, and 8-bit -> 8-bit by the table.
bool HasFastPath(const QuantizeState& state) { return state.xnnpack_from_float || state.use_table; }

void FastPath(const QuantizeState& state, const Tensor* output, const void* in, void* out, int64_t n) {
  if (state.use_table) {
    RequantizeBytes(state, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), n);
  } else if (output->type == TensorType::kInt8) {
    QuantizeFloatXnnpack(static_cast<const float*>(in), 1.0f / output->scale(), output->zero_point(),
                         static_cast<int8_t*>(out), n);
  } else {
    QuantizeFloatXnnpack(static_cast<const float*>(in), 1.0f / output->scale(), output->zero_point(),
                         static_cast<uint8_t*>(out), n);
  }
}

// The fast paths over the pool in blocks: 4096 floats or 16 KB of bytes. The model's first node at
// 2 threads, a 224x224x3 image, took 14-17 us on one thread (it writes memory the other core wrote
// last) and 6-8 us split.
void EvalFastPath(OpContext& ctx, const QuantizeState& state, const Tensor* input, Tensor* output) {
  const size_t in_size = TensorTypeSize(input->type), out_size = TensorTypeSize(output->type);
  const auto* in = static_cast<const uint8_t*>(input->data);
  auto* out = static_cast<uint8_t*>(output->data);
  InBlocks(ctx, input->num_elements(), state.use_table ? 16384 : 4096, [&](int64_t i0, int64_t i1) {
    FastPath(state, output, in + i0 * static_cast<int64_t>(in_size), out + i0 * static_cast<int64_t>(out_size), i1 - i0);
  });
}

template <class In, class Out>
void RequantizeAs(const QuantizeState& state, const Tensor* input, Tensor* output) {
  const In* in = input->data_as<In>();
  Out* out = output->data_as<Out>();
  const int32_t lo = TypeMin(output->type), hi = TypeMax(output->type);
  const int32_t input_zero_point = input->zero_point(), output_zero_point = output->zero_point();
  const int64_t n = input->num_elements();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<Out>(
        reference::Requantize(in[i], input_zero_point, state.multiplier, state.shift, output_zero_point, lo, hi));
  }
}

template <class In>
void RequantizeFrom(const QuantizeState& state, const Tensor* input, Tensor* output) {
  switch (output->type) {
    case TensorType::kUInt8: RequantizeAs<In, uint8_t>(state, input, output); break;
    case TensorType::kInt8: RequantizeAs<In, int8_t>(state, input, output); break;
    case TensorType::kInt16: RequantizeAs<In, int16_t>(state, input, output); break;
    default: RequantizeAs<In, int32_t>(state, input, output); break;
  }
}

Status Eval(OpContext& ctx, QuantizeState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  if (HasFastPath(state)) {
    EvalFastPath(ctx, state, input, output);
    return Status::Ok();
  }
  switch (input->type) {
    case TensorType::kFloat32:
      switch (output->type) {
        case TensorType::kInt8: QuantizeFloat<int8_t>(input, output); break;
        case TensorType::kUInt8: QuantizeFloat<uint8_t>(input, output); break;
        case TensorType::kInt16: QuantizeFloat<int16_t>(input, output); break;
        default: return ctx.Unsupported("unsupported output type");
      }
      break;
    case TensorType::kUInt8: RequantizeFrom<uint8_t>(state, input, output); break;
    case TensorType::kInt8: RequantizeFrom<int8_t>(state, input, output); break;
    case TensorType::kInt16: RequantizeFrom<int16_t>(state, input, output); break;
    default: RequantizeFrom<int32_t>(state, input, output); break;
  }
  return Status::Ok();
}

// QUANTIZE by bands of rows or ranges of pixels (ops/row_bands.h): the model's input quantized
// inside the first fused chain, each thread the rows its strips read, into its strip buffer
// instead of a whole tensor in the arena that the other core then reads. The fast paths only.
class QuantizeRows final : public PointwiseRowKernel {
 public:
  explicit QuantizeRows(const QuantizeState* state) : s_(*state) {}

  void EvalPixels(const OpContext& ctx, const void* in, void* out, int64_t, int64_t count) const override {
    const Tensor* output = ctx.output(0);
    FastPath(s_, output, in, out, count * output->dim(3));
  }

 private:
  const QuantizeState& s_;
};

}  // namespace

std::unique_ptr<RowKernel> MakeQuantizeRowKernel(const OpContext& ctx) {
  const QuantizeState* state = OwnState<QuantizeState>(ctx);
  if (state == nullptr || !HasFastPath(*state) || ctx.input(0)->dim(0) != 1) return nullptr;
  return std::make_unique<QuantizeRows>(state);
}

OpRegistration RegisterQuantize() {
  return MakeBuiltinWithState<QuantizeState>(tflite::BuiltinOperator_QUANTIZE, 5,
                                             "float32 -> int8, uint8, int16; requantize between uint8, int8, int16, "
                                             "int32",
                                             Prepare, Eval);
}

}  // namespace edgerun::ops
