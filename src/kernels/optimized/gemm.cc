#include "kernels/optimized/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "core/thread_pool.h"
#include "kernels/optimized/conv.h"  // ParallelRows
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/movement.h"

namespace edgerun::optimized {

void ParallelFor(ThreadPool* pool, int64_t n, const std::function<void(int64_t)>& fn) {
  if (pool == nullptr || pool->num_threads() <= 1 || n <= 1) {
    for (int64_t t = 0; t < n; ++t) fn(t);
    return;
  }
  pool->ParallelFor(n, fn);
}

int NumThreads(ThreadPool* pool) { return pool ? pool->num_threads() : 1; }

namespace {

constexpr int kScratchSlots = 4;

template <class T>
T* Scratch(size_t n, int slot) {
  thread_local AlignedBuffer<T> buffers[kScratchSlots];
  AlignedBuffer<T>& b = buffers[slot];
  b.Resize(std::max<size_t>(n, 1));
  return b.data();
}

// Packed B above this many bytes is streamed (GemmF32Tile): more than L1 holds. A network reads
// each layer's weights once an inference, and one of several MB (float MobileNet v2: 13 MB)
// evicts them from L2 and L3 before their next turn, so even a layer whose B would fit in L2
// waits on memory for it unless it is prefetched. At 1 MB (half of L2, as it was): float
// MobileNet v2's 14x14 1x1 layers (98-221 KB of weights) took 130 us, its 7x7 expansions
// (614 KB) 104 us; at 64 KB 118 and 90 us, the whole model 0.975x at 1 thread (pinned, 6
// alternating rounds), 0.92x at 2 threads, MobileNet v1 float 0.95x / 0.96x. Thresholds from 0
// to 128 KB measured the same.
constexpr int64_t kStreamedPanelBytes = 64 << 10;
// How far ahead of the B it reads a streaming micro-kernel prefetches: ~600 cycles of a 12-row
// tile at this distance, more than a miss to memory takes.
constexpr int64_t kPrefetchAhead = 8192;
// Rows of A above this many bytes do not stay in L2 while B streams past panel by panel.
constexpr int64_t kStreamedARowsBytes = 256 << 10;

// Depth of one pass over a B panel: about 32 KB of it, so that it stays in L1 while the rows of
// a tile stream past; the depth is split evenly.
int DepthBlock(int k, int nr, int bytes_per_row_value) {
  const int target = std::max(32, 32768 / (nr * bytes_per_row_value));
  const int blocks = std::max(1, (k + target - 1) / target);
  return (k + blocks - 1) / blocks;
}

// Rows of the next micro-tile when `left` rows remain for `tiles` tiles of at most MR rows:
// even shares, so that 49 rows run as 10 + 10 + 10 + 10 + 9 rather than 12 + 12 + 12 + 12 + 1
// (a one-row tile does two FMAs per pair of loads).
int MicroTileRows(int left, int tiles) { return (left + tiles - 1) / tiles; }

}  // namespace

float* ScratchF32(size_t n, int slot) { return Scratch<float>(n, slot); }
int16_t* ScratchI16(size_t n, int slot) { return Scratch<int16_t>(n, slot); }
int32_t* ScratchI32(size_t n, int slot) { return Scratch<int32_t>(n, slot); }
int64_t* ScratchI64(size_t n, int slot) { return Scratch<int64_t>(n, slot); }
int8_t* ScratchI8(size_t n, int slot) { return Scratch<int8_t>(n, slot); }

namespace {

// The plan for cache reuse: row tiles of about 8 micro-tiles, and columns split when there are
// few of those for the threads.
TileGrid CacheTiles(int m, int panels, int mr, int threads) {
  TileGrid g;
  // About 8 micro-tiles of rows per task keeps the A rows of a tile in L2 while every panel
  // passes over them.
  const int rows = std::max(mr, 8 * mr);
  g.row_tiles = std::max(1, (m + rows - 1) / rows);
  // Rows shared evenly: 196 rows as 66 + 66 + 64, not 96 + 96 + 4 (a thin last tile runs at the
  // speed of its few rows).
  g.rows_per_tile = std::max(1, (m + g.row_tiles - 1) / g.row_tiles);
  g.row_tiles = std::max(1, (m + g.rows_per_tile - 1) / g.rows_per_tile);
  g.col_groups = 1;
  g.panels_per_group = std::max(1, panels);
  if (threads > 1 && g.row_tiles < 4 * threads && panels > 1) {
    // Few rows (small images, a fully connected layer): split the columns too; and with fewer
    // row tiles than threads and too few panels to go round, use smaller row tiles. With enough
    // panels the columns alone are split, so that each thread reads only its share of B (B is
    // the larger operand when there are few rows).
    if (g.row_tiles < threads && m > mr && panels < 2 * threads) {
      g.rows_per_tile = std::max(mr, ((m + threads - 1) / threads + mr - 1) / mr * mr);
      g.row_tiles = (m + g.rows_per_tile - 1) / g.rows_per_tile;
    }
    const int want = std::min(panels, (4 * threads + g.row_tiles - 1) / g.row_tiles);
    g.panels_per_group = (panels + want - 1) / want;
    g.col_groups = (panels + g.panels_per_group - 1) / g.panels_per_group;
  }
  return g;
}

TileGrid MakeGrid(int m, int panels, int row_tiles, int col_groups) {
  TileGrid g;
  g.rows_per_tile = (m + row_tiles - 1) / row_tiles;
  g.row_tiles = (m + g.rows_per_tile - 1) / g.rows_per_tile;
  g.panels_per_group = (panels + col_groups - 1) / col_groups;
  g.col_groups = (panels + g.panels_per_group - 1) / g.panels_per_group;
  return g;
}

// When the tasks of g are done on `threads` threads (ScheduledFinish), in units of one row
// against one panel; a micro-tile costs a row more (its epilogue), and each task's pass over a
// panel two (its B streamed from L2 again: cutting rows finer costs that).
double GridFinish(const TileGrid& g, int m, int panels, int mr, int threads) {
  std::vector<double> costs(static_cast<size_t>(g.tasks()));
  for (int rt = 0; rt < g.row_tiles; ++rt) {
    const int rows = std::min(g.rows_per_tile, m - rt * g.rows_per_tile);
    const double row_cost = rows + (rows + mr - 1) / mr + 2;
    for (int cg = 0; cg < g.col_groups; ++cg) {
      costs[rt * g.col_groups + cg] = row_cost * std::min(g.panels_per_group, panels - cg * g.panels_per_group);
    }
  }
  return ScheduledFinish(costs.data(), g.tasks(), threads);
}

TileGrid BalancedTiles(int m, int panels, int mr, int threads) {
  const TileGrid cache = CacheTiles(m, panels, mr, threads);
  // Tasks of equal work in a multiple of the threads: 9 tasks on 2 threads finish at 5 / 4.5 of
  // the time 8 or 10 would (14x14 layers of MobileNet v2, 3 row tiles x 3 column groups). Other
  // cuts are weighed when the cache plan has few tasks a thread; their row tiles stay within 10
  // micro-tiles, at most kMaxPlannedTasks tasks unless the rows alone make more.
  if (threads <= 1 || cache.tasks() >= 24 * threads || m <= 0 || panels <= 0) return cache;
  const int max_rows = 10 * mr;
  const int min_row_tiles = std::max(1, (m + max_rows - 1) / max_rows);
  const int max_tasks = std::min(kMaxPlannedTasks, 8 * threads);
  // Row tiles up to a few more than the cache plan's (33 tiles of 96 rows: 34 of 93).
  const int max_row_tiles = std::min(m, cache.row_tiles + 2 * threads);
  struct Candidate {
    TileGrid grid;
    double finish;
  };
  std::vector<Candidate> candidates{{cache, GridFinish(cache, m, panels, mr, threads)}};
  double best = candidates[0].finish;
  for (int c = 1; c <= std::min(panels, max_tasks); ++c) {
    // Past max_tasks, only the rows alone: the candidates (and their tasks) stay few.
    const int last_row_tiles = c == 1 ? std::max(std::min(m, max_tasks), max_row_tiles) : std::min(m, max_tasks / c);
    for (int r = min_row_tiles; r <= last_row_tiles; ++r) {
      if ((r * c) % threads != 0) continue;  // a multiple of the threads, or the cache plan
      const TileGrid g = MakeGrid(m, panels, r, c);
      if (g.row_tiles != r || g.col_groups != c) continue;  // the same as a smaller cut
      candidates.push_back({g, GridFinish(g, m, panels, mr, threads)});
      best = std::min(best, candidates.back().finish);
    }
  }
  // Within 1% of the soonest finish: the cache plan if it is one, else the cut whose task count
  // is nearest 4 a thread (room for a late thread to be helped), then the fewest row tiles (B
  // read fewer times).
  const Candidate* pick = nullptr;
  for (const Candidate& c : candidates) {
    if (c.finish > best * 1.01) continue;
    if (pick == nullptr) {
      pick = &c;
      if (&c == &candidates[0]) break;
      continue;
    }
    const int64_t distance = std::abs(c.grid.tasks() - 4 * threads), pick_distance = std::abs(pick->grid.tasks() - 4 * threads);
    if (distance < pick_distance || (distance == pick_distance && c.grid.row_tiles < pick->grid.row_tiles)) pick = &c;
  }
  return pick->grid;
}

}  // namespace

TileGrid PlanTiles(int m, int panels, int mr, int threads) {
  // The same products are planned on every inference: the last plans are kept per thread.
  struct Entry {
    int m = -1, panels = 0, mr = 0, threads = 0;
    TileGrid grid;
  };
  constexpr int kEntries = 64;
  thread_local Entry cache[kEntries];
  const uint32_t key = static_cast<uint32_t>(m) * 2654435761u ^ static_cast<uint32_t>(panels) * 40503u ^
                       static_cast<uint32_t>(mr) * 97u ^ static_cast<uint32_t>(threads);
  Entry& e = cache[key % kEntries];
  if (e.m != m || e.panels != panels || e.mr != mr || e.threads != threads) {
    e = {m, panels, mr, threads, BalancedTiles(m, panels, mr, threads)};
  }
  return e.grid;
}

// ---- float

namespace {

std::atomic<int> g_mid_panels{static_cast<int>(MidPanels::kAuto)};

// Panel width for n columns: the narrow kernels' when all columns fit in one of their panels;
// 24-column panels for 17 to 24 columns where they are cheap (SplitsWideFma, or
// MidPanels::kPrefer): 1.5 FMA slots a row and depth step instead of 2 (MobileNet v2's projections
// to 24 channels: 0.80-0.86x the time on Zen 4). Not for wider products: 144 columns as 6 panels
// of 24 ran 3% slower than 5 of 32 in MobileNet v2's expansions of depth 24, where the stores
// weigh (a 24-column row of C is 96 bytes, and every other one straddles a cache line).
int PanelWidthF32(const IsaKernels& kern, int n) {
  if (kern.f32_nr_narrow > 0 && n <= kern.f32_nr_narrow) return kern.f32_nr_narrow;
  const MidPanels mid = static_cast<MidPanels>(g_mid_panels.load(std::memory_order_relaxed));
  const bool mid_cheap = mid == MidPanels::kPrefer || (mid == MidPanels::kAuto && SplitsWideFma());
  if (kern.f32_nr_mid > 0 && mid_cheap && n <= kern.f32_nr_mid) return kern.f32_nr_mid;
  return kern.f32_nr;
}

// Gives `out` the shape of B (n columns, depth k) in panels of the ISA's width from `source`, its
// memory sized but not written; returns the panels.
int ShapePanels(const float* source, int n, int k, Isa isa, PackedF32* out) {
  const int nr = PanelWidthF32(KernelsFor(isa), n);
  out->isa = isa;
  out->n = n;
  out->k = k;
  out->nr = nr;
  out->source = source;
  const int panels = (n + nr - 1) / nr;
  out->data.Resize(static_cast<size_t>(panels) * k * nr);
  return panels;
}

}  // namespace

void SetMidPanels(MidPanels choice) { g_mid_panels.store(static_cast<int>(choice), std::memory_order_relaxed); }

ScopedMidPanels::ScopedMidPanels(MidPanels choice) : previous_(g_mid_panels.load()) { SetMidPanels(choice); }
ScopedMidPanels::~ScopedMidPanels() { g_mid_panels.store(previous_); }

void ZeroF32Panels(int n, int k, Isa isa, PackedF32* out) {
  ShapePanels(nullptr, n, k, isa, out);
  std::fill(out->data.data(), out->data.data() + out->data.size(), 0.0f);
}

void PackF32FromNK(const float* w, int64_t ldw, int n, int k, Isa isa, PackedF32* out,
                   const ConsumedRowsFn* consumed) {
  const int panels = ShapePanels(w, n, k, isa, out);
  const int nr = out->nr;
  if (k == 0) return;  // nothing to pack (and the source may be null)
  float* dst = out->data.data();
  // A transpose, in blocks of kBlock depths: the block's part of the panel (kBlock x nr floats)
  // stays in L1 while each column's run of kBlock weights is read, instead of every column
  // writing across the whole panel (that took 30 ms for MobileNet v2's 13 MB).
  // The block's transpose runs in 4 x 4 tiles of vector shuffles where the ISA has them, else in
  // the TRANSPOSE op's portable tiles (an element at a time took 19% of synthetic MobileNet v2
  // float's first inference).
  constexpr int kBlock = 64;
  const TransposeBlock32Fn transpose = KernelsFor(isa).transpose_block_32 != nullptr
                                           ? KernelsFor(isa).transpose_block_32
                                           : &reference::TransposeBlock<4>;
  for (int p = 0; p < panels; ++p) {
    float* panel = dst + static_cast<int64_t>(p) * k * nr;
    const int cols = std::min(nr, n - p * nr);
    for (int k0 = 0; k0 < k; k0 += kBlock) {
      const int kb = std::min(kBlock, k - k0);
      float* block = panel + static_cast<int64_t>(k0) * nr;
      const float* columns = w + static_cast<int64_t>(p) * nr * ldw + k0;
      // Element (kk, j): from columns + kk + j * ldw to block + kk * nr + j.
      transpose(reinterpret_cast<const uint8_t*>(columns), ldw, reinterpret_cast<uint8_t*>(block), nr, kb, cols);
      if (cols < nr) {
        for (int kk = 0; kk < kb; ++kk) std::fill(block + kk * nr + cols, block + (kk + 1) * nr, 0.0f);
      }
    }
    if (consumed != nullptr) (*consumed)(w + static_cast<int64_t>(p) * nr * ldw, cols);
  }
}

void PackF32FromKN(const float* b, int64_t ldb, int k, int n, Isa isa, PackedF32* out) {
  const int panels = ShapePanels(b, n, k, isa, out);
  const int nr = out->nr;
  if (k == 0) return;  // nothing to pack (and the source may be null)
  float* dst = out->data.data();
  for (int p = 0; p < panels; ++p) {
    const int cols = std::min(nr, n - p * nr);
    for (int kk = 0; kk < k; ++kk) {
      float* d = dst + (static_cast<int64_t>(p) * k + kk) * nr;
      std::memcpy(d, b + kk * ldb + p * nr, sizeof(float) * cols);
      std::fill(d + cols, d + nr, 0.0f);
    }
  }
}

void GemmF32Tile(const float* a, int64_t lda, int m, const PackedF32& b, int n0, int n1, float* c, int64_t ldc,
                 const float* bias, float lo, float hi, bool accumulate) {
  const IsaKernels& kern = KernelsFor(b.isa);
  const int mr = kern.f32_mr, nr = b.nr, k = b.k;
  if (k == 0) {
    // No depth: the output is the bias (plus C when accumulating), clamped.
    for (int i = 0; i < m; ++i) {
      for (int j = n0; j < n1; ++j) {
        const float v = (accumulate ? c[i * ldc + j] : 0.0f) + (bias ? bias[j] : 0.0f);
        c[i * ldc + j] = std::min(std::max(v, lo), hi);
      }
    }
    return;
  }
  const GemmF32Fn* kernels = nr == kern.f32_nr       ? kern.gemm_f32
                             : nr == kern.f32_nr_mid ? kern.gemm_f32_mid
                                                     : kern.gemm_f32_narrow;
  const int kc = DepthBlock(k, nr, sizeof(float));
  // The block of depths [k0, k0 + kc) of panel p, for every row of A; `prefetch` as GemmF32Fn.
  auto block = [&](int p, int k0, const float* prefetch) {
    const int kcur = std::min(kc, k - k0);
    const bool last = k0 + kcur == k;
    const int col = p * nr;
    const int nc = std::min(nr, n1 - col);
    const float* bp = b.panel(p) + static_cast<int64_t>(k0) * nr;
    const F32Epilogue ep{bias ? bias + col : nullptr, lo, hi};
    for (int m0 = 0, tiles = (m + mr - 1) / mr; m0 < m; --tiles) {
      const int rows = MicroTileRows(m - m0, tiles);
      kernels[rows](kcur, a + m0 * lda + k0, lda, bp, c + m0 * ldc + col, ldc, nc, accumulate || k0 > 0,
                    last ? &ep : nullptr,
                    m0 == 0 ? prefetch : nullptr);
      m0 += rows;
    }
  };
  const float* panels_end = b.panel(b.panels());
  const int64_t panels_bytes = static_cast<int64_t>((n1 - n0 + nr - 1) / nr) * k * nr * sizeof(float);
  if (panels_bytes > kStreamedPanelBytes) {
    // B too large to stay in cache between inferences (a deep layer's weights): read once.
    if (static_cast<int64_t>(m) * k * sizeof(float) > kStreamedARowsBytes) {
      // A too large to come back from L2 for every panel (ResNet-18's 7x7x512 layers: 49 rows
      // of 4608 values, 0.9 MB, read 16 times): a block of depths at a time across all panels,
      // so that A's block stays in L1 / L2 while each panel's block of B passes once, the next
      // one prefetched during the current one; C takes the partial sums in between.
      const int first = n0 / nr, end = (n1 + nr - 1) / nr;
      for (int k0 = 0; k0 < k; k0 += kc) {
        for (int p = first; p < end; ++p) {
          const bool next_in_row = p + 1 < end;
          const float* next = next_in_row ? b.panel(p + 1) + static_cast<int64_t>(k0) * nr
                                          : b.panel(first) + static_cast<int64_t>(k0 + kc) * nr;
          block(p, k0, next_in_row || k0 + kc < k ? next : nullptr);
        }
      }
      return;
    }
    // Otherwise panel by panel, so that B is read from start to end, with the first micro-tile
    // of each block prefetching kPrefetchAhead bytes ahead (the rows of A come from L2 for each
    // panel).
    constexpr int64_t kAhead = kPrefetchAhead / sizeof(float);
    for (int p = n0 / nr; p * nr < n1; ++p) {
      for (int k0 = 0; k0 < k; k0 += kc) {
        const float* ahead = b.panel(p) + static_cast<int64_t>(k0) * nr + kAhead;
        block(p, k0, ahead + static_cast<int64_t>(kc) * nr <= panels_end ? ahead : nullptr);
      }
    }
    return;
  }
  for (int k0 = 0; k0 < k; k0 += kc) {
    for (int p = n0 / nr; p * nr < n1; ++p) block(p, k0, nullptr);
  }
}

bool HasGemmF32Rows(Isa isa) { return KernelsFor(isa).gemm_f32_rows[1] != nullptr; }

void GemmF32TileRows(int parts, const float* const* a, int64_t lda, const int* depth0, int kc, int m,
                     const PackedF32& b, int n0, int n1, float* c, int64_t ldc, const float* bias, float lo, float hi) {
  const IsaKernels& kern = KernelsFor(b.isa);
  const int mr = kern.f32_mr, nr = b.nr;
  const GemmF32RowsFn* kernels = nr == kern.f32_nr       ? kern.gemm_f32_rows
                                 : nr == kern.f32_nr_mid ? kern.gemm_f32_rows_mid
                                                         : kern.gemm_f32_rows_narrow;
  const float* ap[kMaxGemmParts];
  const float* bp[kMaxGemmParts];
  for (int p = n0 / nr; p * nr < n1; ++p) {
    const int col = p * nr;
    const int nc = std::min(nr, n1 - col);
    for (int j = 0; j < parts; ++j) bp[j] = b.panel(p) + static_cast<int64_t>(depth0[j]) * nr;
    const F32Epilogue ep{bias ? bias + col : nullptr, lo, hi};
    for (int m0 = 0, tiles = (m + mr - 1) / mr; m0 < m; --tiles) {
      const int rows = MicroTileRows(m - m0, tiles);
      for (int j = 0; j < parts; ++j) ap[j] = a[j] + m0 * lda;
      kernels[rows](parts, ap, lda, bp, kc, c + m0 * ldc + col, ldc, nc, &ep);
      m0 += rows;
    }
  }
}

void GemmF32(ThreadPool* pool, const float* a, int64_t lda, int m, const PackedF32& b, float* c, int64_t ldc,
             const float* bias, float lo, float hi) {
  if (m <= 0 || b.n <= 0) return;
  const TileGrid g = PlanTiles(m, b.panels(), KernelsFor(b.isa).f32_mr, NumThreads(pool));
  ParallelFor(pool, g.tasks(), [&](int64_t task) {
    const int rt = static_cast<int>(task / g.col_groups), cg = static_cast<int>(task % g.col_groups);
    const int r0 = rt * g.rows_per_tile, rows = std::min(g.rows_per_tile, m - r0);
    const int n0 = cg * g.panels_per_group * b.nr, n1 = std::min(b.n, n0 + g.panels_per_group * b.nr);
    if (rows <= 0 || n0 >= n1) return;
    GemmF32Tile(a + r0 * lda, lda, rows, b, n0, n1, c + r0 * ldc, ldc, bias, lo, hi);
  });
}

void MatVecF32(ThreadPool* pool, const float* w, int units, int depth, const float* x, const float* bias, float lo,
               float hi, float* out) {
  if (units <= 0) return;
  const DotRowsF32Fn dot_rows = ActiveKernels().dot_rows_f32;
  // Tasks of at least 64 KB of weights.
  const int64_t row_bytes = std::max<int64_t>(1, static_cast<int64_t>(depth) * static_cast<int64_t>(sizeof(float)));
  ParallelRows(pool, units, std::max<int64_t>(1, 64 * 1024 / row_bytes), [&](int64_t first, int64_t end) {
    const int u0 = static_cast<int>(first), rows = static_cast<int>(end - first);
    float* o = out + u0;
    for (int r = 0; r < rows; ++r) o[r] = bias != nullptr ? bias[u0 + r] : 0.0f;
    dot_rows(w + static_cast<int64_t>(u0) * depth, depth, rows, depth, x, o);
    for (int r = 0; r < rows; ++r) o[r] = std::min(std::max(o[r], lo), hi);
  });
}

// ---- integer

namespace {

template <class Get>
void PackI16(int n, int k, Isa isa, const void* source, PackedI16* out, const Get& get) {
  const int nr = KernelsFor(isa).i16_nr;
  out->isa = isa;
  out->n = n;
  out->k = k;
  out->k2 = (k + 1) / 2;
  out->nr = nr;
  out->source = source;
  const int panels = (n + nr - 1) / nr;
  out->data.Resize(static_cast<size_t>(panels) * out->k2 * nr * 2);
  int16_t* dst = out->data.data();
  for (int p = 0; p < panels; ++p) {
    for (int pair = 0; pair < out->k2; ++pair) {
      int16_t* d = dst + (static_cast<int64_t>(p) * out->k2 + pair) * nr * 2;
      for (int j = 0; j < nr; ++j) {
        const int col = p * nr + j;
        for (int h = 0; h < 2; ++h) {
          const int kk = 2 * pair + h;
          d[2 * j + h] = (col < n && kk < k) ? static_cast<int16_t>(get(col, kk)) : int16_t{0};
        }
      }
    }
  }
}

}  // namespace

template <class W>
void PackI16FromNK(const W* w, int64_t ldw, int n, int k, int32_t offset, Isa isa, PackedI16* out) {
  PackI16(n, k, isa, w, out, [&](int col, int kk) { return static_cast<int32_t>(w[col * ldw + kk]) + offset; });
}

template <class W>
void PackI16FromKN(const W* b, int64_t ldb, int k, int n, int32_t offset, Isa isa, PackedI16* out) {
  PackI16(n, k, isa, b, out, [&](int col, int kk) { return static_cast<int32_t>(b[kk * ldb + col]) + offset; });
}

template void PackI16FromNK<int8_t>(const int8_t*, int64_t, int, int, int32_t, Isa, PackedI16*);
template void PackI16FromNK<uint8_t>(const uint8_t*, int64_t, int, int, int32_t, Isa, PackedI16*);
template void PackI16FromKN<int8_t>(const int8_t*, int64_t, int, int, int32_t, Isa, PackedI16*);
template void PackI16FromKN<uint8_t>(const uint8_t*, int64_t, int, int, int32_t, Isa, PackedI16*);

void GemmI16Tile(const int16_t* a, int64_t lda, int m, const PackedI16& b, int n0, int n1, int p0, int p1,
                 int32_t* c, int64_t ldc, bool accumulate, const Requant8Output* fused) {
  const IsaKernels& kern = KernelsFor(b.isa);
  const int mr = kern.i16_mr, nr = b.nr;
  if (p1 <= p0) {
    if (!accumulate) {
      for (int i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + (n1 - n0), 0);
    }
    return;
  }
  const int kc2 = DepthBlock(p1 - p0, nr, 4);
  for (int q0 = p0; q0 < p1; q0 += kc2) {
    const int qcur = std::min(kc2, p1 - q0);
    const bool last = q0 + kc2 >= p1;
    for (int p = n0 / nr; p * nr < n1; ++p) {
      const int col = p * nr;
      const int nc = std::min(nr, n1 - col);
      const int16_t* bp = b.panel(p) + static_cast<int64_t>(q0) * nr * 2;
      for (int m0 = 0, tiles = (m + mr - 1) / mr; m0 < m; --tiles) {
        const int rows = MicroTileRows(m - m0, tiles);
        Requant8Output ep{};
        if (fused && last) {
          ep = *fused;
          ep.bias = fused->bias ? fused->bias + col : nullptr;
          ep.scale = fused->scale + col;
          ep.out = fused->out + m0 * fused->ldo + col;
        }
        kern.gemm_i16[rows](qcur, a + m0 * lda + 2 * q0, lda, bp, c + m0 * ldc + (col - n0), ldc, nc,
                            accumulate || q0 > p0, fused && last ? &ep : nullptr);
        m0 += rows;
      }
    }
  }
}

// ---- int8 on byte dot products

bool HasGemmI8(Isa isa) { return KernelsFor(isa).i8_mr > 0; }

template <class W>
void PackI8FromNK(const W* w, int64_t ldw, int n, int k, int32_t filter_offset, int32_t input_offset,
                  bool flip_input, Isa isa, PackedI8* out) {
  const IsaKernels& kern = KernelsFor(isa);
  const int nr = kern.i8_nr_narrow > 0 && n <= kern.i8_nr_narrow ? kern.i8_nr_narrow : std::max(1, kern.i8_nr);
  constexpr int32_t kToUnsigned = std::is_same_v<W, int8_t> ? 128 : 0;
  out->isa = isa;
  out->n = n;
  out->k = k;
  out->k4 = (k + 3) / 4;
  out->nr = nr;
  out->source = w;
  out->input_offset = input_offset;
  out->filter_offset = filter_offset;
  out->flip_input = flip_input;
  // u - b_off = w + filter_offset; s + a_off = a + input_offset.
  const int32_t b_off = kToUnsigned - filter_offset;
  const int32_t a_off = input_offset + (flip_input ? 128 : 0);
  out->row_scale = -b_off;
  const int panels = (n + nr - 1) / nr;
  const size_t bytes = static_cast<size_t>(panels) * out->k4 * nr * 4;
  out->data.Resize(bytes);
  out->col_init.assign(static_cast<size_t>(n), 0);
  if (bytes == 0) return;  // k = 0: no buffer (data() is null), and every sum is 0
  // Written once, in order, panel by panel: the buffer is fresh memory, and on a virtual machine
  // the first touch of each page is what the first inference waits for, so no pass to clear it
  // first. Each step reads 4 bytes from each of the panel's nr rows (nr streams the caches follow).
  constexpr uint32_t kFlipBytes = kToUnsigned != 0 ? 0x80808080u : 0;  // + 128 in each byte
  const int full_groups = k / 4, tail = k % 4;
  // Each panel's groups of 4 depths are a transpose of 4-byte words: by the TRANSPOSE op's vector
  // kernel where the rows are whole words apart (5x faster than a word at a time).
  const TransposeBlock32Fn transpose = ldw % 4 == 0 ? kern.transpose_block_32 : nullptr;
  uint32_t* dst = reinterpret_cast<uint32_t*>(out->data.data());
  for (int col0 = 0; col0 < n; col0 += nr) {
    const int cols = std::min(nr, n - col0);
    const W* rows = w + static_cast<int64_t>(col0) * ldw;
    if (transpose != nullptr && full_groups > 0) {
      // Word (g, c): from rows + 4 * (g + c * ldw / 4) to dst + 4 * (g * nr + c).
      transpose(reinterpret_cast<const uint8_t*>(rows), ldw / 4, reinterpret_cast<uint8_t*>(dst), nr, full_groups, cols);
      for (int g = 0; g < full_groups; ++g, dst += nr) {
        if (kFlipBytes != 0) {
          for (int c = 0; c < cols; ++c) dst[c] ^= kFlipBytes;
        }
        for (int c = cols; c < nr; ++c) dst[c] = 0;
      }
    } else {
      for (int g = 0; g < full_groups; ++g) {
        for (int c = 0; c < cols; ++c) {
          uint32_t word;
          std::memcpy(&word, rows + c * ldw + 4 * g, 4);
          *dst++ = word ^ kFlipBytes;
        }
        for (int c = cols; c < nr; ++c) *dst++ = 0;
      }
    }
    if (tail != 0) {
      for (int c = 0; c < cols; ++c) {
        uint8_t bytes4[4] = {0, 0, 0, 0};  // depths past k are zero
        for (int t = 0; t < tail; ++t) bytes4[t] = static_cast<uint8_t>(rows[c * ldw + 4 * full_groups + t] + kToUnsigned);
        std::memcpy(dst++, bytes4, 4);
      }
      for (int c = cols; c < nr; ++c) *dst++ = 0;
    }
  }
  for (int col = 0; col < n; ++col) {
    const W* src = w + col * ldw;
    uint32_t sum = 0;  // wraps like the sums it joins
    for (int kk = 0; kk < k; ++kk) sum += static_cast<uint32_t>(static_cast<int32_t>(src[kk]));
    sum += static_cast<uint32_t>(k) * static_cast<uint32_t>(filter_offset);
    out->col_init[col] = static_cast<int32_t>(sum * static_cast<uint32_t>(a_off));
  }
}

template void PackI8FromNK<int8_t>(const int8_t*, int64_t, int, int, int32_t, int32_t, bool, Isa, PackedI8*);
template void PackI8FromNK<uint8_t>(const uint8_t*, int64_t, int, int, int32_t, int32_t, bool, Isa, PackedI8*);

void GemmI8Tile(const int8_t* a, int64_t lda, int m, const PackedI8& b, int n0, int n1, int32_t* c, int64_t ldc,
                const Requant8Output* fused, bool flip_a) {
  const IsaKernels& kern = KernelsFor(b.isa);
  const int mr = kern.i8_mr, nr = b.nr;
  const GemmI8Fn* kernels = nr == kern.i8_nr ? (flip_a ? kern.gemm_i8_flip : kern.gemm_i8)
                                             : (flip_a ? kern.gemm_i8_flip_narrow : kern.gemm_i8_narrow);
  int32_t* row_init = ScratchI32(static_cast<size_t>(m), 3);
  (flip_a ? kern.row_sums_u8 : kern.row_sums_i8)(a, lda, m, b.k, b.row_scale, row_init);
  // As GemmF32Tile: a block of a B panel stays in L1 while the micro-tiles of rows pass over it.
  const int kc4 = b.k4 == 0 ? 1 : DepthBlock(b.k4, nr, 4);
  for (int q0 = 0; q0 < std::max(b.k4, 1); q0 += kc4) {
    const int qcur = std::min(kc4, b.k4 - q0);
    const bool last = q0 + kc4 >= b.k4;
    for (int p = n0 / nr; p * nr < n1; ++p) {
      const int col = p * nr;
      const int nc = std::min(nr, n1 - col);
      const uint8_t* bp = b.panel(p) + static_cast<int64_t>(q0) * nr * 4;
      for (int m0 = 0, tiles = (m + mr - 1) / mr; m0 < m; --tiles) {
        const int rows = MicroTileRows(m - m0, tiles);
        I8Epilogue ep{row_init + m0, b.col_init.data() + col, nullptr, nullptr, 0, 0, 0, nullptr, 0};
        if (fused) {
          ep.bias = fused->bias ? fused->bias + col : nullptr;
          ep.scale = fused->scale + col;
          ep.lo = fused->lo;
          ep.hi = fused->hi;
          ep.zero_point = fused->zero_point;
          ep.out = fused->out + m0 * fused->ldo + col;
          ep.ldo = fused->ldo;
        }
        kernels[rows](qcur, a + m0 * lda + 4 * q0, lda, bp, c + m0 * ldc + (col - n0), ldc, nc, q0 > 0,
                      last ? &ep : nullptr);
        m0 += rows;
      }
    }
  }
}

}  // namespace edgerun::optimized
