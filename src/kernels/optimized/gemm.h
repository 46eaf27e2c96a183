// Matrix products on packed weights, the engine of the optimized convolution, fully connected,
// batch matmul and transpose convolution kernels.
//
//   C[m][n] = clamp(sum_k A[m][k] * B[k][n] + bias[n])        (float)
//   C[m][n] = sum_k A[m][k] * B[k][n]  in int32 (or int64)      (integer, on int16 operands)
//
// B (the weights) is packed once into panels of NR columns for the micro-kernel of one ISA; A is
// read in place (float) or converted tile by tile (integer). Work is split over output tiles;
// the calling thread takes part (see core/thread_pool.h).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "core/block_memory.h"
#include "kernels/optimized/isa_kernels.h"

namespace edgerun {
class ThreadPool;
}

namespace edgerun::optimized {

// A 64-byte aligned array that keeps its memory when resized smaller (contents not kept). Large
// ones are mapped with their pages present (core/block_memory.h).
template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept { *this = std::move(other); }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      FreeBlock(data_, capacity_ * sizeof(T));
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { FreeBlock(data_, capacity_ * sizeof(T)); }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  void Resize(size_t n) {
    if (n > capacity_) {
      if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
      T* grown = static_cast<T*>(AllocateBlock(n * sizeof(T), 64));
      if (grown == nullptr) throw std::bad_alloc();
      FreeBlock(data_, capacity_ * sizeof(T));
      data_ = grown;
      capacity_ = n;
    }
    size_ = n;
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

// Runs fn(task) for tasks [0, n) on the pool (serially without one).
void ParallelFor(ThreadPool* pool, int64_t n, const std::function<void(int64_t)>& fn);
int NumThreads(ThreadPool* pool);

// Thread-local scratch (per thread and slot), valid until the next call with the same slot.
float* ScratchF32(size_t n, int slot = 0);
int16_t* ScratchI16(size_t n, int slot = 0);
int32_t* ScratchI32(size_t n, int slot = 0);
int8_t* ScratchI8(size_t n, int slot = 0);
int64_t* ScratchI64(size_t n, int slot = 0);

// ---- float

struct PackedF32 {
  Isa isa = Isa::kGeneric;
  int n = 0, k = 0, nr = 1;
  const void* source = nullptr;  // what was packed (callers use it to pack once)
  AlignedBuffer<float> data;
  const float* panel(int p) const { return data.data() + static_cast<int64_t>(p) * k * nr; }
  int panels() const { return (n + nr - 1) / nr; }
};

// Whether packing may choose 24-column panels (IsaKernels::f32_nr_mid)
// for the widths they fit better: where this CPU splits its 512-bit FMAs (kAuto), always (kPrefer:
// tests of those kernels on any AVX-512 CPU), or never. Not thread-safe against packing.
enum class MidPanels { kAuto = 0, kPrefer = 1, kNever = 2 };
void SetMidPanels(MidPanels choice);
class ScopedMidPanels {
 public:
  explicit ScopedMidPanels(MidPanels choice);
  ~ScopedMidPanels();
  ScopedMidPanels(const ScopedMidPanels&) = delete;
  ScopedMidPanels& operator=(const ScopedMidPanels&) = delete;

 private:
  int previous_;
};

// B from weights stored [n][k] (rows ldw apart): a filter [O][KH][KW][C] or FC weights. Panels
// of the ISA's GEMM width for n (16, 24 or 32 columns on AVX-512; see MidPanels).
// `consumed`, when given, hears of each run of source rows [first, first + rows) once packed and
// not read again (a caller releases the model file's pages of a large filter as the packing goes,
// instead of holding file and copy at once).
using ConsumedRowsFn = std::function<void(const float* first, int64_t rows)>;
void PackF32FromNK(const float* w, int64_t ldw, int n, int k, Isa isa, PackedF32* out,
                   const ConsumedRowsFn* consumed = nullptr);
// B of n columns and depth k, all zeros, in the panels PackF32FromNK would use, for a packer that
// writes B[kk][col] itself: at data[(col / nr) * k * nr + kk * nr + col % nr].
void ZeroF32Panels(int n, int k, Isa isa, PackedF32* out);
// B stored [k][n] (rows ldb apart).
void PackF32FromKN(const float* b, int64_t ldb, int k, int n, Isa isa, PackedF32* out);

// One thread: rows [0, m) and columns [n0, n1) of C (n0 a multiple of b.nr). bias has n values
// (indexed by column) or is null. With `accumulate` the product is added to C (before the bias
// and the clamp).
void GemmF32Tile(const float* a, int64_t lda, int m, const PackedF32& b, int n0, int n1, float* c, int64_t ldc,
                 const float* bias, float lo, float hi, bool accumulate = false);
// A product whose depth comes in `parts` runs of kc (at most kMaxGemmParts), run j read from
// a[j] (rows lda apart) against depths [depth0[j], depth0[j] + kc) of B: a convolution on its input
// as it is, one run per window row, with no im2col copy. One thread, like GemmF32Tile; no parts
// give the bias, clamped. Only where HasGemmF32Rows.
constexpr int kMaxGemmParts = 16;
bool HasGemmF32Rows(Isa isa);
void GemmF32TileRows(int parts, const float* const* a, int64_t lda, const int* depth0, int kc, int m,
                     const PackedF32& b, int n0, int n1, float* c, int64_t ldc, const float* bias, float lo, float hi);
// The whole product, split over the pool.
void GemmF32(ThreadPool* pool, const float* a, int64_t lda, int m, const PackedF32& b, float* c, int64_t ldc,
             const float* bias, float lo, float hi);

// out[u] = clamp(bias[u] + dot(w[u], x), lo, hi) for u < units (bias nullable): one row of input
// against weights [units][depth] read where they are, with no packed copy. For weights that
// stream from memory on every call anyway (MobileNet's 5 MB classifier), where packing them only
// costs start-up time. The pool splits the units.
void MatVecF32(ThreadPool* pool, const float* w, int units, int depth, const float* x, const float* bias, float lo,
               float hi, float* out);

// Rows per task and the number of column groups for an m x n product on `threads` threads.
struct TileGrid {
  int rows_per_tile = 1;
  int row_tiles = 1;
  int col_groups = 1;
  int panels_per_group = 1;
  int64_t tasks() const { return static_cast<int64_t>(row_tiles) * col_groups; }
};
// Tiles of about 8 micro-tiles of rows (A stays in L2 while the panels pass); with threads, cut
// so that the tasks share out evenly (ScheduledFinish), at most kMaxPlannedTasks of them unless
// the rows alone make more.
constexpr int kMaxPlannedTasks = 64;
TileGrid PlanTiles(int m, int panels, int mr, int threads);

// ---- integer (int16 operands, int32 sums)

struct PackedI16 {
  Isa isa = Isa::kGeneric;
  int n = 0, k = 0, k2 = 0, nr = 1;  // k2: pairs (k rounded up to even, halved)
  const void* source = nullptr;
  AlignedBuffer<int16_t> data;
  const int16_t* panel(int p) const { return data.data() + static_cast<int64_t>(p) * k2 * nr * 2; }
  int panels() const { return (n + nr - 1) / nr; }
};

// B[k][n] = w[n][k] + offset (w stored [n][k], rows ldw apart), as int16.
template <class W>
void PackI16FromNK(const W* w, int64_t ldw, int n, int k, int32_t offset, Isa isa, PackedI16* out);
// B[k][n] = b[k][n] + offset (rows ldb apart).
template <class W>
void PackI16FromKN(const W* b, int64_t ldb, int k, int n, int32_t offset, Isa isa, PackedI16* out);

// Row stride (in int16) of an A tile for b: k rounded up to even.
inline int64_t PaddedDepth(const PackedI16& b) { return 2 * static_cast<int64_t>(b.k2); }

// One thread: int32 sums for rows [0, m) and columns [n0, n1) over pairs [p0, p1) into c, which
// points at column n0 of row 0. A holds int16 rows lda apart (pairs at even offsets, padded with
// 0). With `accumulate` the sums are added to c.
//
// With `fused` (pairs [0, b.k2), no accumulate) the sums are requantized to 8 bits in the
// micro-kernel (Requant8Output) and stored to fused->out[i * ldo + j]; c is then only scratch for
// depths longer than one block. bias and scale are indexed by column, out points at row 0,
// column 0.
void GemmI16Tile(const int16_t* a, int64_t lda, int m, const PackedI16& b, int n0, int n1, int p0, int p1,
                 int32_t* c, int64_t ldc, bool accumulate, const Requant8Output* fused = nullptr);

// ---- 8-bit products on byte dot products (CPUs with AVX-512 VNNI)
//
// vpdpbusd multiplies unsigned bytes (B, the weights, in registers) by signed bytes (A, the
// activations, broadcast). Weights are packed as unsigned bytes u = w + 128 (int8) or u = w
// (uint8); activations are read as signed bytes s = a (int8, in place for a pointwise
// convolution) or s = a - 128 (uint8, copied with the top bit flipped). With the offsets of
// both sides, a + input_offset = s + a_off and w + filter_offset = u - b_off, so
//   sum_k (a + input_offset)(w + filter_offset)
//     = sum_k s * u  -  b_off * sum_k s  +  a_off * sum_k (w + filter_offset),
// a row term (PackedI8::row_scale times RowSumsI8) and a column term (PackedI8::col_init) added
// to the dot products, all int32 arithmetic that wraps like the reference's sums.
bool HasGemmI8(Isa isa);

struct PackedI8 {
  Isa isa = Isa::kGeneric;
  int n = 0, k = 0, k4 = 0, nr = 1;  // k4: groups of 4 depths (k rounded up, quartered)
  const void* source = nullptr;
  int32_t input_offset = 0, filter_offset = 0;  // what row_scale and col_init were made for
  bool flip_input = false;                      // uint8 activations: A holds a - 128
  int32_t row_scale = 0;                        // -b_off
  std::vector<int32_t> col_init;                // a_off * sum_k (w[n][k] + filter_offset)
  AlignedBuffer<uint8_t> data;
  const uint8_t* panel(int p) const { return data.data() + static_cast<int64_t>(p) * k4 * nr * 4; }
  int panels() const { return (n + nr - 1) / nr; }
};

// Packs w (stored [n][k], rows ldw apart; int8_t or uint8_t) for products with activations of
// input_offset: uint8 activations (flip_input) are read as a - 128. Zero past k and n.
template <class W>
void PackI8FromNK(const W* w, int64_t ldw, int n, int k, int32_t filter_offset, int32_t input_offset,
                  bool flip_input, Isa isa, PackedI8* out);

// Row stride (in bytes) of an A tile copied for b: k rounded up to a multiple of 4.
inline int64_t PaddedDepth(const PackedI8& b) { return 4 * static_cast<int64_t>(b.k4); }

// One thread: C[i][j - n0] = sum_k (a[i][k] + input_offset) * (w[j][k] + filter_offset) for
// rows [0, m) and columns [n0, n1), int32 that wraps. A holds the signed bytes s of the
// activations (see PackedI8), rows lda bytes apart, each with PaddedDepth(b) readable bytes (the
// values past b.k are multiplied by zeros).
//
// With `fused`, the sums plus fused->bias[j] (nullable) are requantized in float to 8 bits
// (I8Epilogue) and stored to fused->out[i * ldo + j]; c is then only scratch for depths longer
// than one block. bias and scale are indexed by column, out points at row 0, column 0.
// With flip_a, A holds the uint8 activations themselves (b packed with flip_input), read as the
// signed bytes a - 128: no flipped copy.
void GemmI8Tile(const int8_t* a, int64_t lda, int m, const PackedI8& b, int n0, int n1, int32_t* c, int64_t ldc,
                const Requant8Output* fused = nullptr, bool flip_a = false);

}  // namespace edgerun::optimized
