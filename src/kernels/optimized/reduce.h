// Optimized folds over axes (MEAN, SUM, REDUCE_MAX / MIN / PROD / ANY / ALL): the shape is
// collapsed into runs of kept and reduced dimensions, the innermost run is handled as a whole
// (rows folded into rows when it is kept, contiguous elements folded when it is reduced), and
// independent outputs are split over the pool. Every output still folds its inputs in input
// order, so the results equal the reference (reference::ForEachReduce / ReduceFold) bit for bit,
// floats included.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "edgerun/tensor.h"
#include "kernels/optimized/conv.h"
#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {

// acc + x, wrapping for integers.
template <class Acc>
inline Acc SumAdd(Acc acc, Acc x) {
  if constexpr (std::is_integral_v<Acc>) {
    using U = std::make_unsigned_t<Acc>;
    return static_cast<Acc>(static_cast<U>(acc) + static_cast<U>(x));
  } else {
    return acc + x;
  }
}

// Row folds that optimized::FoldRowsF32Fn can run many rows at a time name their kind, and the
// row length from which their own one-row path is faster (kFoldRowsBelow).
template <class Row>
concept FoldsByKind = requires {
  Row::kFoldKind;
  Row::kFoldRowsBelow;
};

// Reductions over the innermost axes of at least this many rows run L rows at a time
// (FoldRowsF32Fn): fewer leave most lanes of each transposed block empty.
constexpr int64_t kMinFoldRows = 4;

// The in-order fold of n contiguous inputs after acc: acc = next(acc, x) one at a time.
template <class T, class Acc, class Next>
struct SerialRow {
  const Next& next;
  Acc operator()(Acc acc, const T* src, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) acc = next(acc, static_cast<Acc>(src[i]));
    return acc;
  }
};

// The same as ReduceFoldOrdered, with row(acc, src, n) folding each run of n contiguous reduced
// inputs after acc: a faster fold with the same results (ExtremumRow).
template <class T, class Acc, class Next, class Row>
void ReduceFoldOrderedRows(ThreadPool* pool, const Shape& in_shape, const std::vector<bool>& reduced, const T* in,
                           Acc* out, int64_t out_count, bool from_first, Acc empty, const Next& next, const Row& row) {
  std::fill(out, out + out_count, empty);
  if (NumElements(in_shape) <= 0) return;
  // Runs of dimensions with the same role (size-1 dimensions dropped).
  std::vector<int64_t> size;
  std::vector<bool> red;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (in_shape[d] == 1) continue;
    if (!red.empty() && red.back() == reduced[d]) {
      size.back() *= in_shape[d];
    } else {
      size.push_back(in_shape[d]);
      red.push_back(reduced[d]);
    }
  }
  if (size.empty()) {  // a single element
    out[0] = from_first ? static_cast<Acc>(in[0]) : next(empty, static_cast<Acc>(in[0]));
    return;
  }
  const int runs = static_cast<int>(size.size());
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Acc, float> && FoldsByKind<Row>) {
    // Rows of contiguous reduced values (a reduction over the innermost axes): many rows at a
    // time, each still folded in order. [1,32,64,128] over its last axis (1 thread): SUM 70-90
    // -> 15-21 us, MEAN 82 -> 16, REDUCE_PROD 196 -> 25, REDUCE_MAX / MIN 25-28 -> 15;
    // [1,64,64,32]: REDUCE_MAX 236 -> 12 us.
    const FoldRowsF32Fn fold_rows = ActiveKernels().fold_rows_f32[static_cast<int>(Row::kFoldKind)];
    if (fold_rows != nullptr && runs == 2 && !red[0] && red[1] && size[0] >= kMinFoldRows &&
        size[1] < Row::kFoldRowsBelow) {
      const int64_t n = size[1];
      ParallelRows(pool, size[0], 64, [&](int64_t r0, int64_t r1) {
        if (from_first) {
          for (int64_t r = r0; r < r1; ++r) out[r] = in[r * n];
          fold_rows(in + r0 * n + 1, r1 - r0, n - 1, n, out + r0, out + r0);
        } else {
          fold_rows(in + r0 * n, r1 - r0, n, n, out + r0, out + r0);  // out holds `empty`
        }
      });
      return;
    }
  }
  const int64_t inner = size.back();
  const bool inner_kept = !red.back();
  // Output stride of each outer run (0 for reduced ones), and the outer positions.
  std::vector<int64_t> out_stride(static_cast<size_t>(runs), 0);
  int64_t stride = inner_kept ? inner : 1;
  int64_t outer = 1;
  for (int r = runs - 2; r >= 0; --r) {
    if (!red[r]) {
      out_stride[r] = stride;
      stride *= size[r];
    }
    outer *= size[r];
  }
  // Outer positions [first_outer, end_outer), inner columns [c0, c1) (all of them when reduced).
  auto run_block = [&](int64_t first_outer, int64_t end_outer, int64_t c0, int64_t c1) {
    std::vector<int64_t> index(static_cast<size_t>(std::max(runs - 1, 0)), 0);
    int64_t o = 0;
    // The odometer position of first_outer.
    int64_t rem = first_outer;
    for (int r = runs - 2; r >= 0; --r) {
      index[r] = rem % size[r];
      rem /= size[r];
      o += index[r] * out_stride[r];
    }
    // An output's first input comes at the outer position where every reduced run is at 0.
    auto at_first = [&]() {
      for (int r = 0; r < runs - 1; ++r) {
        if (red[r] && index[r] != 0) return false;
      }
      return true;
    };
    for (int64_t pos = first_outer; pos < end_outer; ++pos) {
      const T* src = in + pos * inner;
      if (inner_kept) {
        Acc* dst = out + o;
        if (from_first && at_first()) {
          for (int64_t i = c0; i < c1; ++i) dst[i] = static_cast<Acc>(src[i]);
        } else {
          for (int64_t i = c0; i < c1; ++i) dst[i] = next(dst[i], static_cast<Acc>(src[i]));
        }
      } else {
        // A fold that starts from `empty` takes the whole row: rows of 128 bytes, not 127 from an
        // odd address, have no scalar tail after the compiler's vector loop.
        out[o] = (from_first && at_first()) ? row(static_cast<Acc>(src[0]), src + 1, inner - 1) : row(out[o], src, inner);
      }
      for (int r = runs - 2; r >= 0; --r) {
        o += out_stride[r];
        if (++index[r] < size[r]) break;
        o -= out_stride[r] * size[r];
        index[r] = 0;
      }
    }
  };
  // Independent slices: the first run when it is kept, else columns of a kept innermost run.
  if (runs >= 2 && !red[0] && size[0] > 1) {
    const int64_t per_slice = outer / size[0];
    ParallelRows(pool, size[0], 1, [&](int64_t s0, int64_t s1) {
      run_block(s0 * per_slice, s1 * per_slice, 0, inner);
    });
  } else if (inner_kept && runs >= 2) {
    ParallelRows(pool, inner, 64, [&](int64_t c0, int64_t c1) { run_block(0, outer, c0, c1); });
  } else {
    run_block(0, outer, 0, inner);
  }
}

// out[o] = the inputs of output o folded in input order: acc = next(acc, x), each input converted
// to Acc. from_first: the fold starts from the first input (as reference::ReduceFold), otherwise
// from `empty` (as a loop that starts at zero). Outputs with no input get `empty`. Summing, the
// two starts differ only for a float sum whose first input is -0; for REDUCE_MAX / MIN `next`
// is (acc > x) ? acc : x (or <), whose order matters for NaN, and which the rows added to rows
// keep per element.
template <class T, class Acc, class Next>
void ReduceFoldOrdered(ThreadPool* pool, const Shape& in_shape, const std::vector<bool>& reduced, const T* in, Acc* out,
                       int64_t out_count, bool from_first, Acc empty, const Next& next) {
  ReduceFoldOrderedRows(pool, in_shape, reduced, in, out, out_count, from_first, empty, next,
                        SerialRow<T, Acc, Next>{next});
}

// The fold acc = (acc > x) ? acc : x (kMax) or (acc < x) ? acc : x of n contiguous values after
// acc, equal to the in-order loop, without its chain of dependent compares (~1.7 cycles a
// value): integers in 16 independent lanes (the order cannot matter), floats on the ISA's
// vectors (IsaKernels::max_f32 / min_f32). Without NaN the in-order result is the extreme
// value, whose bits are unique unless it is zero (the fold keeps the later of +0 and -0); a
// float row with a NaN or an infinity (x - x != 0), or whose extreme is zero, runs the in-order
// loop.
template <bool kMax, class T>
struct ExtremumRow {
  // Float rows shorter than 512 go many at a time (FoldRowsF32Fn); longer ones run faster here,
  // on whole vectors (rows of 1024: 10 us against 17 for [1,8,32,1024]).
  static constexpr FoldKind kFoldKind = kMax ? FoldKind::kMax : FoldKind::kMin;
  static constexpr int64_t kFoldRowsBelow = 512;
  // The float kernel of the active ISA (null without one: the in-order loop).
  ExtremumF32Fn extreme = kMax ? ActiveKernels().max_f32 : ActiveKernels().min_f32;

  static T Next(T a, T x) {
    if constexpr (kMax) {
      return (a > x) ? a : x;
    } else {
      return (a < x) ? a : x;
    }
  }
  static T Serial(T acc, const T* src, int64_t n) { return SerialRow<T, T, T(T, T)>{Next}(acc, src, n); }
  T operator()(T acc, const T* src, int64_t n) const {
    constexpr int kLanes = 16;
    if (n < 2 * kLanes) return Serial(acc, src, n);
    if constexpr (std::is_same_v<T, float>) {
      if (extreme == nullptr) return Serial(acc, src, n);
      bool finite = false;
      const float result = Next(acc, extreme(src, n, &finite));
      return finite && acc - acc == 0.0f && result != 0.0f ? result : Serial(acc, src, n);
    } else {
      T lanes[kLanes];
      for (int l = 0; l < kLanes; ++l) lanes[l] = src[l];
      int64_t i = kLanes;
      for (; i + kLanes <= n; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) lanes[l] = Next(lanes[l], src[i + l]);
      }
      T result = acc;
      for (int l = 0; l < kLanes; ++l) result = Next(result, lanes[l]);
      for (; i < n; ++i) result = Next(result, src[i]);
      return result;
    }
  }
};

// Row folds of stored bools for REDUCE_ANY / REDUCE_ALL (any nonzero byte is true; results are
// 0 / 1). OR and AND do not depend on the order, so a row is one pass that the compiler
// vectorizes instead of a chain of dependent byte operations (128-byte rows: 17 -> ~3 us for
// [1,32,64,128] on Zen 5).
struct AnyTrueRow {
  uint8_t operator()(uint8_t acc, const uint8_t* src, int64_t n) const {
    uint8_t bits = 0;
    for (int64_t i = 0; i < n; ++i) bits |= src[i];
    return static_cast<uint8_t>((acc | bits) != 0);
  }
};
struct AllTrueRow {
  uint8_t operator()(uint8_t acc, const uint8_t* src, int64_t n) const {
    uint8_t zero = 0;
    for (int64_t i = 0; i < n; ++i) zero |= static_cast<uint8_t>(src[i] == 0);
    return static_cast<uint8_t>(acc != 0 && zero == 0);
  }
};

// A float row folded in order by acc + x or acc * x, and the kind FoldRowsF32Fn runs it by.
template <FoldKind kKind>
struct InOrderRowF32 {
  static constexpr FoldKind kFoldKind = kKind;
  static constexpr int64_t kFoldRowsBelow = INT64_MAX;  // one row's fold is a chain of dependent steps
  static float Next(float acc, float x) { return kKind == FoldKind::kMul ? acc * x : acc + x; }
  float operator()(float acc, const float* src, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) acc = Next(acc, src[i]);
    return acc;
  }
};

// 8-bit sums (int32, wrapping) over axes that all come before the kept ones (a global MEAN over
// H and W of [1, H, W, C]): every input row of the kept values added at once by the ISA's
// add_rows_i8 (TF2 MobileNet v2's 7x7x1280 MEAN at 1 thread: 9.8-14 -> 3.9 us; the baseline
// build's walk widened each byte with SSE2 unpacks). False (nothing done) for other axes, or
// without the kernel.
template <class T>
bool SumLeadingAxes8(ThreadPool* pool, const Shape& in_shape, const std::vector<bool>& reduced, const T* in,
                     int32_t* out, int64_t out_count) {
  const AddRowsI8Fn add_rows = ActiveKernels().add_rows_i8;
  if (add_rows == nullptr) return false;
  int64_t rows = 1, kept = 1;
  bool seen_kept = false;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (in_shape[d] == 1) continue;
    if (reduced[d]) {
      if (seen_kept) return false;  // a reduced axis after a kept one
      rows *= in_shape[d];
    } else {
      seen_kept = true;
      kept *= in_shape[d];
    }
  }
  // Fewer kept values than a vector: one partial load a row (the generic walk sums rows instead).
  if (kept != out_count || kept < 16 || rows <= 0) return false;
  std::fill(out, out + out_count, 0);
  // With threads (from 32 K values), ranges of at least 64 kept values: the producer's threads
  // wrote them by columns, and each thread reads back mostly what its core wrote (as the global
  // pool, ForEachPixelBlock).
  ParallelRows(rows * kept < 32768 ? nullptr : pool, kept, 64, [&](int64_t c0, int64_t c1) {
    add_rows(in + c0, rows, kept, c1 - c0, std::is_unsigned_v<T>, out + c0);
  });
  return true;
}

// out[o] = sum of the inputs of output o, converted to Acc (wrapping for integers); from_first as
// in ReduceFoldOrdered.
template <class T, class Acc>
void ReduceSum(ThreadPool* pool, const Shape& in_shape, const std::vector<bool>& reduced, const T* in, Acc* out,
               int64_t out_count, bool from_first) {
  if constexpr (sizeof(T) == 1 && std::is_integral_v<T> && std::is_same_v<Acc, int32_t>) {
    if (!from_first && SumLeadingAxes8(pool, in_shape, reduced, in, out, out_count)) return;
  }
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Acc, float>) {
    using Row = InOrderRowF32<FoldKind::kAdd>;
    // A lambda, not Row::Next's address: the walk's per-element loops inline it.
    ReduceFoldOrderedRows(pool, in_shape, reduced, in, out, out_count, from_first, 0.0f,
                          [](float acc, float x) { return acc + x; }, Row{});
  } else {
    ReduceFoldOrdered(pool, in_shape, reduced, in, out, out_count, from_first, Acc{0},
                      [](Acc acc, Acc x) { return SumAdd(acc, x); });
  }
}

// MEAN of float32 as the reference: the sums from zero in input order, divided by the count.
inline void MeanFloat(ThreadPool* pool, const Shape& in_shape, const std::vector<bool>& reduced, int64_t count,
                      const float* in, float* out, int64_t out_count) {
  ReduceSum(pool, in_shape, reduced, in, out, out_count, /*from_first=*/false);
  const float divisor = static_cast<float>(count);
  for (int64_t i = 0; i < out_count; ++i) out[i] = out[i] / divisor;
}

}  // namespace edgerun::optimized
