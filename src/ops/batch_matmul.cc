// BATCH_MATMUL: out[..., m, n] = sum_k lhs[..., m, k] * rhs[..., k, n], with adj_x / adj_y
// transposing the last two dimensions of lhs / rhs first. Ranks 2 to 5; the batch dimensions
// broadcast (numpy rules). No fused activation. Types: float32; int8 (-> int8, or int32 raw
// sums); int16 x int16 and int16 x int8 (-> int16, 64-bit sums); hybrid float32 x int8 rhs, each
// lhs row quantized at run time (symmetric, or asymmetric with asymmetric_quantize_inputs).
#include "kernels/reference/batch_matmul.h"

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/integer.h"
#include "ops/conv_util.h"

namespace edgerun::ops {
namespace {

constexpr int kLhsTransposedSlot = 3;  // slots 0..2 hold the hybrid scratch
constexpr int kRhsTransposedSlot = 4;  // a float [k][n] rhs given at run time, as [n][k] rows
// A float rhs given at run time is transposed for products of at least this many rows.
constexpr int kTransposeRhsRows = 4;

struct BatchMatMulState {
  bool adj_x = false, adj_y = false;
  int m = 0, n = 0, k = 0;
  int64_t lhs_batches = 0, rhs_batches = 0;
  std::vector<int64_t> lhs_index, rhs_index;  // per output batch, the lhs / rhs batch it reads
  QuantizedOutput q;
  std::vector<float> hybrid_scales;  // rhs scale per output column
  bool hybrid_per_channel = false;
  bool asymmetric_inputs = false;
  // Each rhs batch packed for the optimized kernels (kept while a constant rhs is unchanged).
  std::vector<optimized::PackedI16> packed_i16;
  std::vector<optimized::PackedI16> packed_low;  // int16 rhs: its low bytes (packed_i16: high bytes)
  std::vector<float> rhs_transposed;  // a constant float [k][n] rhs as [n][k] rows
  const void* packed_source = nullptr;
};

Status CheckTypes(const OpContext& ctx, const Tensor* lhs, const Tensor* rhs, const Tensor* output) {
  ER_RETURN_IF_ERROR(CheckType(ctx, lhs, "lhs", {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}));
  switch (lhs->type) {
    case TensorType::kFloat32:
      ER_RETURN_IF_ERROR(CheckType(ctx, rhs, "rhs", {TensorType::kFloat32, TensorType::kInt8}));
      return CheckType(ctx, output, "output", {TensorType::kFloat32});
    case TensorType::kInt8:
      ER_RETURN_IF_ERROR(CheckType(ctx, rhs, "rhs", {TensorType::kInt8}));
      return CheckType(ctx, output, "output", {TensorType::kInt8, TensorType::kInt32});
    default:
      ER_RETURN_IF_ERROR(CheckType(ctx, rhs, "rhs", {TensorType::kInt16, TensorType::kInt8}));
      return CheckType(ctx, output, "output", {TensorType::kInt16});
  }
}

Status RequestTransposed(OpContext& ctx, int slot, const Tensor* t) {
  const int64_t n = t->num_elements();
  if (n > std::numeric_limits<int32_t>::max()) return ctx.Error(Describe(t), " has too many elements");
  return ctx.RequestTemporary(slot, t->type, {static_cast<int32_t>(n)}).status();
}

Status PrepareQuantization(const OpContext& ctx, const Tensor* lhs, const Tensor* rhs, Tensor* output,
                           BatchMatMulState& state) {
  const int rank = rhs->rank();
  if (lhs->type == TensorType::kFloat32) {
    if (rhs->type == TensorType::kFloat32) return Status::Ok();
    // Hybrid: the rhs scales run along the output columns.
    const QuantizationParams& rq = rhs->quantization;
    state.hybrid_per_channel = rq.per_channel();
    if (state.hybrid_per_channel && rq.quantized_dimension != (state.adj_y ? rank - 2 : rank - 1)) {
      return ctx.Unsupported("rhs ", Describe(rhs), " is quantized per channel along dimension ",
                             rq.quantized_dimension, ", not along the output columns");
    }
    return PrepareHybridScales(ctx, rhs, state.n, &state.hybrid_scales);
  }
  if (output->type == TensorType::kInt32) return Status::Ok();  // raw int8 sums
  if (rhs->quantization.per_channel()) {
    return ctx.Unsupported("rhs ", Describe(rhs), " is quantized per channel; only per-tensor is supported");
  }
  if (lhs->type == TensorType::kInt16 && rhs->zero_point() != 0) {
    return ctx.Error("rhs ", Describe(rhs), " must have zero point 0 with int16 lhs");
  }
  QuantizedRules rules;
  rules.out_channels = state.n;  // one (repeated) multiplier per output column
  rules.matrix_op = true;
  rules.xnnpack_for_8bit = false;  // TFLite runs its own kernel for quantized BATCH_MATMUL
  ER_RETURN_IF_ERROR(PrepareQuantizedOutput(ctx, lhs, rhs, nullptr, output, Activation::kNone, rules, &state.q));
  state.q.wide = lhs->type == TensorType::kInt16;
  return Status::Ok();
}

Status Prepare(OpContext& ctx, BatchMatMulState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* lhs = ctx.input(0);
  const Tensor* rhs = ctx.input(1);
  Tensor* output = ctx.output(0);
  ER_RETURN_IF_ERROR(CheckTypes(ctx, lhs, rhs, output));
  ER_RETURN_IF_ERROR(CheckRank(ctx, lhs, "lhs", 2, 5));
  ER_RETURN_IF_ERROR(CheckRank(ctx, rhs, "rhs", 2, 5));
  ER_RETURN_IF_ERROR(CheckDenseWeights(ctx, rhs));
  const auto* o = Options<tflite::BatchMatMulOptions>(ctx);
  state.adj_x = o && o->adj_x();
  state.adj_y = o && o->adj_y();
  state.asymmetric_inputs = o && o->asymmetric_quantize_inputs();
  const int lr = lhs->rank(), rr = rhs->rank();
  state.m = state.adj_x ? lhs->dim(lr - 1) : lhs->dim(lr - 2);
  state.k = state.adj_x ? lhs->dim(lr - 2) : lhs->dim(lr - 1);
  const int rhs_k = state.adj_y ? rhs->dim(rr - 1) : rhs->dim(rr - 2);
  state.n = state.adj_y ? rhs->dim(rr - 2) : rhs->dim(rr - 1);
  if (state.k != rhs_k) {
    return ctx.Error("lhs ", Describe(lhs), " (adj_x ", state.adj_x, ") and rhs ", Describe(rhs), " (adj_y ",
                     state.adj_y, ") have different inner dimensions ", state.k, " and ", rhs_k);
  }
  // Batch dimensions, padded with leading 1s to the same rank, then broadcast.
  const int batch_rank = std::max(lr, rr) - 2;
  Shape lhs_batch(batch_rank, 1), rhs_batch(batch_rank, 1), out_batch(batch_rank, 1);
  std::copy(lhs->shape.begin(), lhs->shape.end() - 2, lhs_batch.end() - (lr - 2));
  std::copy(rhs->shape.begin(), rhs->shape.end() - 2, rhs_batch.end() - (rr - 2));
  if (!BroadcastShape(lhs_batch, rhs_batch, &out_batch)) {
    return ctx.Error("batch dimensions of lhs ", Describe(lhs), " and rhs ", Describe(rhs), " do not broadcast");
  }
  Shape out_shape = out_batch;
  out_shape.push_back(state.m);
  out_shape.push_back(state.n);
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
  ER_RETURN_IF_ERROR(PrepareQuantization(ctx, lhs, rhs, output, state));
  if (output->num_elements() == 0) {
    // Nothing to compute (Eval returns at once). The batch counts can still be in the billions
    // around an empty matrix, so no per-batch index or scratch is made for them.
    state.lhs_batches = state.rhs_batches = 0;
    state.lhs_index.clear();
    state.rhs_index.clear();
    return Status::Ok();
  }
  // Every batch count is at most the output's, which fits the tensor size limit.
  state.lhs_batches = NumElements(lhs_batch);
  state.rhs_batches = NumElements(rhs_batch);
  reference::BroadcastBatches(lhs_batch, rhs_batch, out_batch, &state.lhs_index, &state.rhs_index);

  if (lhs->type == TensorType::kFloat32 && rhs->type == TensorType::kInt8) {
    ER_RETURN_IF_ERROR(RequestHybridRows(ctx, lhs->num_elements(), state.lhs_batches * state.m));
  }
  if (state.adj_x) ER_RETURN_IF_ERROR(RequestTransposed(ctx, kLhsTransposedSlot, lhs));
  if (lhs->type == TensorType::kFloat32 && rhs->type == TensorType::kFloat32 && !state.adj_y &&
      !rhs->is_constant() && state.m >= kTransposeRhsRows) {
    ER_RETURN_IF_ERROR(RequestTransposed(ctx, kRhsTransposedSlot, rhs));
  }
  return Status::Ok();
}

// lhs as [batches, M, K] rows and rhs as [batches, N, K] rows, transposed into scratch if needed.
template <class T>
const T* LhsRows(const OpContext& ctx, const BatchMatMulState& s) {
  const T* data = ctx.input(0)->data_as<T>();
  if (!s.adj_x) return data;
  T* out = ctx.temporary(kLhsTransposedSlot)->data_as<T>();
  reference::TransposeLastTwo(data, s.lhs_batches, s.k, s.m, out);
  return out;
}

// Packs every rhs batch with pack(data of batch j, packed j); once for a constant rhs.
template <class Packed, class T, class Pack>
const std::vector<Packed>& PackRhs(const OpContext& ctx, BatchMatMulState& s, std::vector<Packed>* packed,
                                   const Pack& pack) {
  const Tensor* rhs = ctx.input(1);
  const T* data = rhs->data_as<T>();
  const optimized::Isa isa = optimized::ActiveIsa();
  if (rhs->is_constant() && s.packed_source == data && packed->size() == static_cast<size_t>(s.rhs_batches) &&
      (packed->empty() || (*packed)[0].isa == isa)) {
    return *packed;
  }
  packed->resize(static_cast<size_t>(s.rhs_batches));
  const int64_t size = static_cast<int64_t>(s.k) * s.n;
  optimized::ParallelFor(ctx.thread_pool(), s.rhs_batches, [&](int64_t j) { pack(data + j * size, isa, &(*packed)[j]); });
  s.packed_source = rhs->is_constant() ? data : nullptr;
  return *packed;
}

// out batch i = lhs batch x packed rhs batch, through gemm(a, packed, out) on one thread per batch
// when there are enough batches, else each product split over the pool.
template <class L, class Packed, class Out, class Gemm>
void ForEachBatchOptimized(const OpContext& ctx, const BatchMatMulState& s, const L* lhs,
                           const std::vector<Packed>& packed, Out* out, const Gemm& gemm) {
  const int64_t lhs_size = static_cast<int64_t>(s.m) * s.k, out_size = static_cast<int64_t>(s.m) * s.n;
  const int64_t batches = static_cast<int64_t>(s.lhs_index.size());
  ThreadPool* pool = ctx.thread_pool();
  const bool per_batch = batches >= 2 * optimized::NumThreads(pool);
  optimized::ParallelFor(per_batch ? pool : nullptr, batches, [&](int64_t i) {
    gemm(per_batch ? nullptr : pool, lhs + s.lhs_index[i] * lhs_size, packed[s.rhs_index[i]], out + i * out_size,
         s.lhs_index[i]);
  });
}

template <class R>
void PackInteger(const BatchMatMulState& s, const R* data, int32_t offset, optimized::Isa isa,
                 optimized::PackedI16* out) {
  if (s.adj_y) {
    optimized::PackI16FromNK(data, s.k, s.n, s.k, offset, isa, out);
  } else {
    optimized::PackI16FromKN(data, s.n, s.k, s.n, offset, isa, out);
  }
}

template <class Acc, class L, class R, class Out>
void EvalQuantized(const OpContext& ctx, BatchMatMulState& s) {
  if constexpr (sizeof(R) == 1) {
    // 8-bit rhs (plus offset) and 8/16-bit lhs fit the int16 pair products.
    const auto& packed = PackRhs<optimized::PackedI16, R>(ctx, s, &s.packed_i16, [&](const R* d, optimized::Isa isa,
                                                                                    optimized::PackedI16* p) {
      PackInteger(s, d, s.q.filter_offset, isa, p);
    });
    const reference::Requantizer<Acc, Acc, Out> emit{s.q.requantization(), nullptr};
    ForEachBatchOptimized(ctx, s, LhsRows<L>(ctx, s), packed, ctx.output(0)->data_as<Out>(),
                          [&](ThreadPool* pool, const L* a, const optimized::PackedI16& b, Out* out, int64_t) {
                            if constexpr (std::is_same_v<Acc, int32_t>) {
                              const auto stage = optimized::MakeRequantStage<Out>(
                                  false, s.q.multiplier.data(), s.q.shift.data(), nullptr, s.q.output_offset,
                                  s.q.act_min, s.q.act_max, nullptr, out, s.n);
                              optimized::IntegerMatMul<false>(pool, a, s.k, s.m, s.q.input_offset, b, stage);
                            } else {
                              optimized::IntegerMatMul<true>(pool, a, s.k, s.m, s.q.input_offset, b,
                                                             optimized::MakeEmitStage<Out, Acc>(emit, out, s.n));
                            }
                          });
    return;
  } else {
    static_assert(std::is_same_v<R, int16_t>);
    // int16 x int16: the rhs split into high bytes (signed) and low bytes (0..255), each an int16 x
    // 8-bit product on the int16 pair kernel, 256 * high + low summed in int64 (IntGemm): the
    // reference's exact sums at GEMM speed (litert_matmul_quant: 2.5 GOP/s in the dot loop).
    s.packed_low.resize(static_cast<size_t>(s.rhs_batches));
    const size_t size = static_cast<size_t>(s.k) * s.n;
    const auto& high = PackRhs<optimized::PackedI16, R>(ctx, s, &s.packed_i16, [&](const R* d, optimized::Isa isa,
                                                                                  optimized::PackedI16* p) {
      std::vector<int8_t> high_bytes(size);
      std::vector<uint8_t> low_bytes(size);
      for (size_t i = 0; i < size; ++i) {
        high_bytes[i] = static_cast<int8_t>(d[i] >> 8);  // arithmetic shift: d = 256 * high + low
        low_bytes[i] = static_cast<uint8_t>(d[i] & 0xff);
      }
      PackInteger(s, high_bytes.data(), 0, isa, p);
      PackInteger(s, low_bytes.data(), 0, isa, &s.packed_low[static_cast<size_t>(p - s.packed_i16.data())]);
    });
    const reference::Requantizer<Acc, Acc, Out> emit{s.q.requantization(), nullptr};
    ForEachBatchOptimized(ctx, s, LhsRows<L>(ctx, s), high, ctx.output(0)->data_as<Out>(),
                          [&](ThreadPool* pool, const L* a, const optimized::PackedI16& b, Out* out, int64_t) {
                            const optimized::PackedI16& low = s.packed_low[static_cast<size_t>(&b - high.data())];
                            optimized::IntegerMatMul<true>(pool, a, s.k, s.m, s.q.input_offset, b,
                                                           optimized::MakeEmitStage<Out, Acc>(emit, out, s.n), &low);
                          });
  }
}

void EvalInt8ToInt32(const OpContext& ctx, BatchMatMulState& s) {
  const auto emit = [](int, uint32_t sum) { return static_cast<int32_t>(sum); };
  const auto& packed = PackRhs<optimized::PackedI16, int8_t>(
      ctx, s, &s.packed_i16,
      [&](const int8_t* d, optimized::Isa isa, optimized::PackedI16* p) { PackInteger(s, d, 0, isa, p); });
  ForEachBatchOptimized(ctx, s, LhsRows<int8_t>(ctx, s), packed, ctx.output(0)->data_as<int32_t>(),
                        [&](ThreadPool* pool, const int8_t* a, const optimized::PackedI16& b, int32_t* out, int64_t) {
                          optimized::IntegerMatMul<false>(pool, a, s.k, s.m, 0, b,
                                                          optimized::MakeEmitStage<int32_t, int32_t>(emit, out, s.n));
                        });
}

void EvalHybrid(const OpContext& ctx, BatchMatMulState& s) {
  const HybridRows rows = GetHybridRows(ctx);
  QuantizeRows(LhsRows<float>(ctx, s), s.lhs_batches * s.m, s.k, s.asymmetric_inputs, rows);
  const auto& packed = PackRhs<optimized::PackedI16, int8_t>(
      ctx, s, &s.packed_i16,
      [&](const int8_t* d, optimized::Isa isa, optimized::PackedI16* p) { PackInteger(s, d, 0, isa, p); });
  ForEachBatchOptimized(
      ctx, s, rows.quantized, packed, ctx.output(0)->data_as<float>(),
      [&](ThreadPool* pool, const int8_t* a, const optimized::PackedI16& b, float* out, int64_t lhs_batch) {
        // Each lhs row has its own zero point and scale.
        const int64_t first = lhs_batch * s.m;
        auto fill = [&](int64_t r0, int n, int16_t* dst, int64_t ldd) {
          for (int r = 0; r < n; ++r) {
            optimized::ConvertRows(a + (r0 + r) * s.k, s.k, 1, s.k, -rows.zero_points[first + r0 + r], dst + r * ldd,
                                   ldd);
          }
        };
        auto stage = [&](int64_t i, int c0, int count, const int32_t* sums) {
          // As TFLite: a per-tensor rhs scale is folded into the row scale first.
          const float row_scale = rows.scales[first + i] * (s.hybrid_per_channel ? 1.0f : s.hybrid_scales[0]);
          for (int j = 0; j < count; ++j) {
            const int c = c0 + j;
            const float scale = s.hybrid_per_channel ? row_scale * s.hybrid_scales[c] : row_scale;
            out[i * s.n + c] = scale * static_cast<float>(sums[j]);
          }
        };
        optimized::IntGemm<false>(pool, s.m, b, fill, stage);
      });
}

// Float products keep the reference kernel's summation order (16 lanes over blocks of 256, see
// reference::DotBlocked), on AVX-512 / AVX2 lanes with the same bits (MatMulBlocked*F32Fn). The
// packed FMA GEMM is faster but rounds differently, and that difference alone fails
// tflite_dynamic_shapes (softmax after a 1024-long product amplifies it past the tolerance).
// The tiles read rhs rows [n][k]: in place with adj_y, else transposed (once for a constant rhs,
// each run into scratch for one times enough rows to pay for it); a run-time [k][n] rhs times a
// few rows is read in place. Tiles of rows x columns are spread over the pool.
void EvalFloat(const OpContext& ctx, BatchMatMulState& s) {
  const float* lhs = LhsRows<float>(ctx, s);
  const Tensor* rhs_tensor = ctx.input(1);
  const float* rhs = rhs_tensor->data_as<float>();  // [n][k] with adj_y, else [k][n]
  float* out = ctx.output(0)->data_as<float>();
  const int64_t lhs_size = static_cast<int64_t>(s.m) * s.k, rhs_size = static_cast<int64_t>(s.n) * s.k;
  const int64_t out_size = static_cast<int64_t>(s.m) * s.n;
  const int64_t batches = static_cast<int64_t>(s.lhs_index.size());
  const optimized::IsaKernels& kernels = optimized::ActiveKernels();
  ThreadPool* pool = ctx.thread_pool();
  const int64_t threads = optimized::NumThreads(pool);
  const float* rhs_rows = s.adj_y ? rhs : nullptr;  // [batches][n][k]
  if (rhs_rows == nullptr && rhs_tensor->is_constant()) {
    if (s.packed_source != rhs || s.rhs_transposed.size() != static_cast<size_t>(s.rhs_batches * rhs_size)) {
      s.rhs_transposed.resize(static_cast<size_t>(s.rhs_batches * rhs_size));
      reference::TransposeLastTwo(rhs, s.rhs_batches, s.k, s.n, s.rhs_transposed.data());
      s.packed_source = rhs;
    }
    rhs_rows = s.rhs_transposed.data();
  } else if (rhs_rows == nullptr && s.m >= kTransposeRhsRows) {
    float* scratch = ctx.temporary(kRhsTransposedSlot)->data_as<float>();
    optimized::ParallelFor(pool, s.rhs_batches, [&](int64_t j) {
      reference::TransposeLastTwo(rhs + j * rhs_size, 1, s.k, s.n, scratch + j * rhs_size);
    });
    rhs_rows = scratch;
  }
  if (rhs_rows != nullptr) {
    // Tasks of up to 256 KB of lhs rows (re-read from L2 for each group of columns) and, unless the
    // row tiles are too few to share out, all the columns: about four a thread. Columns in whole
    // groups of the kernel's tile (rows in multiples of 4, a multiple of every kernel's tile rows).
    const int64_t group = kernels.matmul_blocked_cols;
    const int64_t rows_per_tile = std::min<int64_t>(s.m, std::max<int64_t>(4, 65536 / std::max(1, s.k)) / 4 * 4);
    const int64_t row_tiles = (s.m + rows_per_tile - 1) / rows_per_tile;
    const int64_t column_groups = (s.n + group - 1) / group;
    const int64_t wanted_splits = (4 * threads + batches * row_tiles - 1) / (batches * row_tiles);
    const int64_t groups_per_tile = (column_groups + wanted_splits - 1) / wanted_splits;
    const int64_t column_tiles = (column_groups + groups_per_tile - 1) / groups_per_tile;
    optimized::ParallelFor(pool, batches * row_tiles * column_tiles, [&](int64_t task) {
      const int64_t batch = task / (row_tiles * column_tiles), tile = task % (row_tiles * column_tiles);
      const int64_t i = tile / column_tiles * rows_per_tile, j = tile % column_tiles * groups_per_tile * group;
      const int rows = static_cast<int>(std::min<int64_t>(rows_per_tile, s.m - i));
      const int cols = static_cast<int>(std::min<int64_t>(groups_per_tile * group, s.n - j));
      kernels.matmul_blocked_f32(lhs + s.lhs_index[batch] * lhs_size + i * s.k,
                                 rhs_rows + s.rhs_index[batch] * rhs_size + j * s.k, rows, cols, s.k,
                                 out + batch * out_size + i * s.n + j, s.n);
    });
    return;
  }
  // Tasks of up to 32 rows of one batch (the kernel reuses the rhs columns across them), about
  // four per thread.
  const int64_t rows_per_task =
      std::clamp<int64_t>((batches * s.m + 4 * threads - 1) / (4 * threads), 1, std::min<int64_t>(32, s.m));
  const int64_t tasks_per_batch = (s.m + rows_per_task - 1) / rows_per_task;
  optimized::ParallelFor(pool, batches * tasks_per_batch, [&](int64_t task) {
    const int64_t batch = task / tasks_per_batch, i = task % tasks_per_batch * rows_per_task;
    const int rows = static_cast<int>(std::min<int64_t>(rows_per_task, s.m - i));
    kernels.matmul_blocked_kn_f32(lhs + s.lhs_index[batch] * lhs_size + i * s.k, rhs + s.rhs_index[batch] * rhs_size,
                                  rows, s.n, s.k, out + batch * out_size + i * s.n);
  });
}

Status Eval(OpContext& ctx, BatchMatMulState& state) {
  const Tensor* lhs = ctx.input(0);
  const Tensor* rhs = ctx.input(1);
  const Tensor* output = ctx.output(0);
  if (output->num_elements() == 0) return Status::Ok();
  if (lhs->type == TensorType::kFloat32) {
    if (rhs->type == TensorType::kInt8) {
      EvalHybrid(ctx, state);
    } else {
      EvalFloat(ctx, state);
    }
  } else if (lhs->type == TensorType::kInt8) {
    if (output->type == TensorType::kInt32) {
      EvalInt8ToInt32(ctx, state);
    } else {
      EvalQuantized<int32_t, int8_t, int8_t, int8_t>(ctx, state);
    }
  } else if (rhs->type == TensorType::kInt16) {
    EvalQuantized<int64_t, int16_t, int16_t, int16_t>(ctx, state);
  } else {
    EvalQuantized<int64_t, int16_t, int8_t, int16_t>(ctx, state);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterBatchMatMul() {
  return MakeBuiltinWithState<BatchMatMulState>(tflite::BuiltinOperator_BATCH_MATMUL, 4,
                                                "float32, int8 (-> int8/int32), int16 (int16/int8 rhs), hybrid "
                                                "float32 x int8",
                                                Prepare, Eval);
}

}  // namespace edgerun::ops
