#include "ops/binary_op.h"

#include <climits>

#include "kernels/optimized/conv.h"

#include "ops/xnnpack_util.h"
#include "quant/arith_helpers.h"

namespace edgerun::ops {

Status PrepareBinary(OpContext& ctx, std::initializer_list<TensorType> types, bool same_output_type) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckType(ctx, a, "input 0", types));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, a, b, "inputs"));
  if (same_output_type) ER_RETURN_IF_ERROR(CheckSameType(ctx, a, out, "input and output"));
  Shape shape;
  if (!BroadcastShape(a->shape, b->shape, &shape)) {
    return ctx.Error("shapes ", ShapeToString(a->shape), " and ", ShapeToString(b->shape),
                     " cannot be broadcast together");
  }
  return ctx.ResizeOutput(0, shape);
}

void AdoptInputType(OpContext& ctx) {
  if (ctx.num_inputs() != 2 || ctx.num_outputs() != 1) return;
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  if (b == nullptr || out == nullptr || out->is_constant() || out->is_variable) return;
  out->type = b->type;
}

bool UsesQuantizedKernel(const OpContext& ctx) {
  const Tensor* a = ctx.input(0);
  if (a->type == TensorType::kUInt8 || a->type == TensorType::kInt8) return true;
  return a->type == TensorType::kInt16 && !(a->quantization.empty() && ctx.output(0)->quantization.empty());
}

namespace {

Status CheckAllQuantized(const OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, ctx.input(0), "input 0"));
  ER_RETURN_IF_ERROR(CheckQuantized(ctx, ctx.input(1), "input 1"));
  return CheckQuantized(ctx, ctx.output(0), "output");
}

// TFLite's power-of-two path applies when every scale is 2^k, zero points are 0, and only one
// input needs a (right) shift to reach the output scale.
bool PreparePotInt16(const OpContext& ctx, reference::QuantizedBinaryParams* q) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  int log2_a, log2_b, log2_out;
  if (!quant::CheckedLog2(a->scale(), &log2_a) || !quant::CheckedLog2(b->scale(), &log2_b) ||
      !quant::CheckedLog2(out->scale(), &log2_out)) {
    return false;
  }
  if (a->zero_point() != 0 || b->zero_point() != 0 || out->zero_point() != 0) return false;
  const int shift_a = log2_a - log2_out, shift_b = log2_b - log2_out;
  if ((shift_a != 0 && shift_b != 0) || shift_a > 0 || shift_b > 0) return false;
  q->input1_shift = shift_a;
  q->input2_shift = shift_b;
  return true;
}

}  // namespace

void InBlocks(OpContext& ctx, int64_t n, int64_t block, const std::function<void(int64_t, int64_t)>& fn) {
  optimized::ParallelRows(ctx.thread_pool(), (n + block - 1) / block, 2,
                          [&](int64_t b0, int64_t b1) { fn(b0 * block, std::min(n, b1 * block)); });
}

bool EvalXnnpackAddSubSameShape(OpContext& ctx, const quant::xnn::AddParams& p) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  const optimized::AddI8Fn fn = optimized::ActiveKernels().add_i8;
  if (!fn || a->shape != out->shape || b->shape != out->shape) return false;
  if (p.bias < INT32_MIN || p.bias > INT32_MAX) return false;
  const optimized::AddI8Args args{p.a_multiplier, p.b_multiplier, static_cast<int32_t>(p.bias), p.shift,
                                  p.output_zero_point, p.min, p.max, out->type == TensorType::kUInt8};
  const auto* pa = static_cast<const uint8_t*>(a->data);
  const auto* pb = static_cast<const uint8_t*>(b->data);
  auto* po = static_cast<uint8_t*>(out->data);
  // Blocks of 16 KB.
  InBlocks(ctx, out->num_elements(), 16384,
           [&](int64_t i0, int64_t i1) { fn(pa + i0, pb + i0, i1 - i0, args, po + i0); });
  return true;
}

bool EvalInt16SameShapeOrRow(OpContext& ctx, const reference::QuantizedBinaryParams& q, int op) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  Tensor* out = ctx.output(0);
  const optimized::BinaryI16Fn fn = optimized::ActiveKernels().binary_i16;
  if (!fn || a->type != TensorType::kInt16 || out->type != TensorType::kInt16) return false;
  // Each operand is the output's shape or, for one of them, a row of its trailing dims repeated
  // (a per-channel bias: [1,2,162,8] - [8]).
  // (A full shape is itself such a row.)
  const bool a_full = a->shape == out->shape, b_full = b->shape == out->shape;
  if (!(a_full && RepeatsAsABlock(b->shape, out->shape)) && !(b_full && RepeatsAsABlock(a->shape, out->shape))) {
    return false;
  }
  // The kernel's domain: zero points 0 (int16's), shifts the vector shifts take as the scalar
  // code does, no saturating MUL.
  auto shift_ok = optimized::VectorRequantShiftOk;
  const bool multiply = op == 2;
  if (q.input1_offset != 0 || q.input2_offset != 0 || q.output_offset != 0 || q.saturate_nonzero ||
      !shift_ok(q.output_shift) ||
      (!multiply && (!shift_ok(q.input1_shift) || !shift_ok(q.input2_shift) || q.left_shift < 0 || q.left_shift > 15))) {
    return false;
  }
  const optimized::BinaryI16Args args{op,           q.left_shift,      q.input1_multiplier, q.input1_shift,
                                      q.input2_multiplier, q.input2_shift, q.output_multiplier, q.output_shift,
                                      q.act_min,     q.act_max};
  const int16_t* pa = a->data_as<int16_t>();
  const int16_t* pb = b->data_as<int16_t>();
  int16_t* po = out->data_as<int16_t>();
  const int64_t n = out->num_elements();
  if (a_full && b_full) {
    // Blocks of 8 K elements (16 KB).
    InBlocks(ctx, n, 8192, [&](int64_t i0, int64_t i1) { fn(pa + i0, pb + i0, i1 - i0, args, po + i0); });
    return true;
  }
  // The row repeated into one block of whole rows (about 8 K elements), which every block of the
  // full operand pairs with.
  const Tensor* row = a_full ? b : a;
  const int64_t row_size = row->num_elements();
  if (row_size == 0) return true;
  const int64_t block = std::max<int64_t>(1, 8192 / row_size) * row_size;
  std::vector<int16_t> repeated(static_cast<size_t>(std::min(block, n)));
  for (size_t i = 0; i < repeated.size(); ++i) repeated[i] = row->data_as<int16_t>()[i % row_size];
  InBlocks(ctx, n, block, [&](int64_t i0, int64_t i1) {  // [i0, i1) may hold several blocks
    for (int64_t j = i0; j < i1; j += block) {
      const int64_t count = std::min(block, i1 - j);
      fn(a_full ? pa + j : repeated.data(), b_full ? pb + j : repeated.data(), count, args, po + j);
    }
  });
  return true;
}

namespace {

template <class T>
void AddSubByInputTables(OpContext& ctx, const reference::QuantizedBinaryParams& q, bool subtract) {
  int32_t scaled_a[256], scaled_b[256];
  for (int byte = 0; byte < 256; ++byte) {
    const int32_t value = static_cast<T>(static_cast<uint8_t>(byte));
    scaled_a[byte] = reference::AddSubScaledInput(value, 1, q);
    scaled_b[byte] = reference::AddSubScaledInput(value, 2, q);
  }
  // SUB as the sum with the negated second input (|scaled| < 2^29: no overflow), which keeps the
  // loop free of the choice.
  const int32_t sign = subtract ? -1 : 1;
  EvalQuantizedBinaryAs<T, T>(ctx, [&](int32_t a, int32_t b) {
    return reference::AddSubOutput(scaled_a[static_cast<uint8_t>(a)] + sign * scaled_b[static_cast<uint8_t>(b)], q);
  });
}

}  // namespace

bool EvalQuantized8BitAddSubByInputTables(OpContext& ctx, const reference::QuantizedBinaryParams& q, bool subtract) {
  const TensorType type = ctx.output(0)->type;
  if (ctx.input(0)->type != type || ctx.input(1)->type != type || ctx.output(0)->num_elements() < 256) return false;
  if (type == TensorType::kUInt8) {
    AddSubByInputTables<uint8_t>(ctx, q, subtract);
  } else if (type == TensorType::kInt8) {
    AddSubByInputTables<int8_t>(ctx, q, subtract);
  } else {
    return false;
  }
  return true;
}

Status PrepareQuantizedAddSub(OpContext& ctx, BinaryOpState& state, bool pot_scale_int16, bool subtract) {
  state.kind = BinaryKind::kPlain;
  if (!UsesQuantizedKernel(ctx)) return Status::Ok();
  ER_RETURN_IF_ERROR(CheckAllQuantized(ctx));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  // LiteRT's XNNPACK delegate runs the 8-bit nodes it takes; TFLite's kernel (and its checks)
  // the others.
  if (XnnpackTakes8Bit(ctx, 2)) {
    int32_t min = 0, max = 0;
    XnnpackActivationBounds(state.activation, out, &min, &max);
    if (quant::xnn::PrepareAdd(a->scale(), a->zero_point(), b->scale(), b->zero_point(), out->scale(),
                               out->zero_point(), subtract, min, max, &state.xnn_add)) {
      state.kind = BinaryKind::kXnnpackAddSub;
      return Status::Ok();
    }
  }
  reference::QuantizedBinaryParams& q = state.q;
  QuantizedActivationRange(state.activation, out, &q.act_min, &q.act_max);
  if (out->type == TensorType::kInt16 && pot_scale_int16 && PreparePotInt16(ctx, &q)) {
    state.kind = BinaryKind::kPotInt16;
    return Status::Ok();
  }
  // General scales (TFLite's 8-bit path, also used for int16 since ADD v3 / SUB v5): inputs are
  // scaled to twice the larger input scale with `left_shift` bits of headroom.
  state.kind = BinaryKind::kQuantized;
  q.input1_offset = -a->zero_point();
  q.input2_offset = -b->zero_point();
  q.output_offset = out->zero_point();
  q.left_shift = out->type == TensorType::kInt16 ? 15 : 20;
  const double twice_max_input_scale = 2 * static_cast<double>(std::max(a->scale(), b->scale()));
  ER_RETURN_IF_ERROR(QuantizeScale(ctx, a->scale() / twice_max_input_scale, &q.input1_multiplier, &q.input1_shift));
  ER_RETURN_IF_ERROR(QuantizeScale(ctx, b->scale() / twice_max_input_scale, &q.input2_multiplier, &q.input2_shift));
  const double real_output_multiplier =
      twice_max_input_scale / (static_cast<double>(1 << q.left_shift) * static_cast<double>(out->scale()));
  return QuantizeScale(ctx, real_output_multiplier, &q.output_multiplier, &q.output_shift);
}

Status PrepareQuantizedMulDiv(OpContext& ctx, BinaryOpState& state, bool divide) {
  ER_RETURN_IF_ERROR(CheckAllQuantized(ctx));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  reference::QuantizedBinaryParams& q = state.q;
  q.input1_offset = -a->zero_point();
  q.input2_offset = -b->zero_point();
  q.output_offset = out->zero_point();
  QuantizedActivationRange(state.activation, out, &q.act_min, &q.act_max);
  // TFLite computes these in float, then widens: the same rounding keeps results bit-exact.
  const float real_multiplier =
      divide ? a->scale() / (b->scale() * out->scale()) : a->scale() * b->scale() / out->scale();
  if (!divide && real_multiplier >= 2147483648.0f) {
    q.saturate_nonzero = true;
    return Status::Ok();
  }
  return QuantizeScale(ctx, real_multiplier, &q.output_multiplier, &q.output_shift);
}

bool PrepareXnnpackMul(OpContext& ctx, BinaryOpState& state) {
  if (!XnnpackTakes8Bit(ctx, 2)) return false;
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  const Tensor* out = ctx.output(0);
  int32_t min = 0, max = 0;
  XnnpackActivationBounds(state.activation, out, &min, &max);
  if (!quant::xnn::PrepareMul(a->scale(), a->zero_point(), b->scale(), b->zero_point(), out->scale(),
                              out->zero_point(), min, max, &state.xnn_mul)) {
    return false;
  }
  state.kind = BinaryKind::kXnnpackMul;
  return true;
}

}  // namespace edgerun::ops
