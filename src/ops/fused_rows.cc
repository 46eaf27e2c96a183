#include "ops/fused_rows.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <new>
#include <cstring>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>

#include "core/subgraph.h"
#include "tflite_generated.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/isa_kernels.h"
#include "ops/row_bands.h"

namespace edgerun::ops {
namespace {

// What the buffers between the members of one thread's strips may hold: they stay in that core's
// L2 together with the members' weights.
constexpr size_t kStripBudgetBytes = 256 * 1024;
// Members of a chain: head, depthwise, projection, ADD, and with the pixel split a 1x1 after them.
constexpr size_t kMaxChainMembers = 5;
// The pixel split keeps each intermediate whole in every thread's buffer: for small images only.
constexpr size_t kPixelSplitMaxBytes = 1024 * 1024;
// How RowSplit learns the threads' speeds: a moving average of this weight, each step at most
// this factor from the last.
constexpr double kSpeedWeight = 0.25;
constexpr double kSpeedStep = 1.5;

std::mutex testing_speeds_mutex;
std::vector<double> testing_speeds;  // SetRowSplitSpeedsForTesting
std::atomic<bool> testing_speeds_set{false};

bool IsPointwise(Subgraph& sg, const Node& node) {
  if (node.builtin_code != tflite::BuiltinOperator_CONV_2D || node.inputs.size() < 2) return false;
  const Tensor& in = *sg.tensor(node.inputs[0]);
  const Tensor& filter = *sg.tensor(node.inputs[1]);
  const Tensor& out = *sg.tensor(node.outputs[0]);
  // A 1x1 window whose output has the input's size: stride 1.
  return filter.shape.size() == 4 && filter.shape[1] == 1 && filter.shape[2] == 1 && in.shape.size() == 4 &&
         out.shape.size() == 4 && in.shape[1] == out.shape[1] && in.shape[2] == out.shape[2];
}

size_t TensorBytes(const Tensor& t) { return static_cast<size_t>(NumElements(t.shape)) * TensorTypeSize(t.type); }

// Each strip reads all the members' weights again, where the unfused nodes write each value
// between them once and read it once. Fused, a chain saves about the bytes of those values and
// costs its weight bytes once a strip (about the values' bytes over kStripBudgetBytes strips).
// DeepLab v3's 65x65 blocks of 960 channels (1.2 MB of float weights, 16 MB values) were 25%
// slower fused; MobileNet v2's 56x56 ones (27 KB of weights) are faster. A chain of one strip
// reads its weights once, as unfused: at several threads it fuses whatever its weights, since the
// fused chain is one hand-off instead of one per member (MobileNet v2's 7x7 depthwise + projection
// + ADD: 162 KB of weights for 55 KB of values).
//
// With several threads, a 1x1 convolution of few rows splits its output columns between the
// threads (PlanTiles), and the node after it splits its rows: unfused, each of those rows then
// comes half from the other core's cache, which the fused strips (each thread on its own rows)
// avoid. Such a chain's values count twice: MobileNet v2 float's 14x14 blocks (463 KB of weights,
// 978 KB of values, 4 strips) run 15% faster fused at 2 threads (2-5% slower at 1 thread, where
// they stay unfused); DeepLab v3's 33x33 ones split by rows and stay as they were.
bool SplitsColumns(const Tensor& out, int threads) {
  if (threads <= 1 || out.shape.size() != 4) return false;
  // The tile of the GEMM the convolution runs on: float, byte dots (VNNI) or int16 pairs.
  const optimized::IsaKernels& k = optimized::ActiveKernels();
  const bool eight_bit = out.type == TensorType::kInt8 || out.type == TensorType::kUInt8;
  const bool byte_dots = eight_bit && optimized::HasGemmI8(optimized::ActiveIsa());
  const int mr = byte_dots ? k.i8_mr : eight_bit ? k.i16_mr : k.f32_mr;
  const int nr = byte_dots ? k.i8_nr : eight_bit ? k.i16_nr : k.f32_nr;
  const int64_t rows = static_cast<int64_t>(out.dim(0)) * out.dim(1) * out.dim(2);
  if (mr <= 0 || nr <= 0 || rows <= 0 || rows > INT32_MAX || out.dim(3) <= 0) return false;
  const int panels = (out.dim(3) + nr - 1) / nr;
  return optimized::PlanTiles(static_cast<int>(rows), panels, mr, threads).col_groups > 1;
}

// Whether a chain splits its output pixels between the threads (FusedRowsKernel's pixel split):
// with several threads, an image of fewer than kMinRowsPerThread rows a thread (MobileNet v2's 7x7
// blocks: 7 rows split 4 / 3 cap a block at 1.75x), a chain of 1x1 convolutions of stride 1 and
// ADDs around one depthwise convolution that is not its last member. The kernel decides again
// from the members' kernels (RowKernel::pixels).
bool SplitsPixels(Subgraph& sg, const NodeList& nodes, const std::vector<int>& plan, const std::vector<int>& chain,
                  int threads) {
  const Tensor& out = *sg.tensor(nodes[plan[static_cast<size_t>(chain.back())]].outputs[0]);
  if (threads <= 1 || out.shape.size() != 4 || out.dim(1) >= kMinRowsPerThread * threads) return false;
  int windows = 0;
  size_t buffers = 0;  // the intermediates, whole, in each thread's buffer (PlanPixels)
  for (size_t i = 0; i < chain.size(); ++i) {
    const Node& node = nodes[plan[static_cast<size_t>(chain[i])]];
    if (i + 1 < chain.size()) buffers += (TensorBytes(*sg.tensor(node.outputs[0])) + 63) / 64 * 64;
    if (node.builtin_code == tflite::BuiltinOperator_ADD || node.builtin_code == tflite::BuiltinOperator_QUANTIZE ||
        IsPointwise(sg, node)) {
      continue;
    }
    if (node.builtin_code != tflite::BuiltinOperator_DEPTHWISE_CONV_2D || i + 1 == chain.size()) return false;
    ++windows;
  }
  return windows == 1 && buffers <= kPixelSplitMaxBytes;
}

bool WorthFusing(Subgraph& sg, const NodeList& nodes, const std::vector<int>& plan,
                 const std::vector<int>& chain, int threads) {
  size_t weights = 0, values = 0;
  bool crosses_cores = false;  // some member's output is written by columns, read by rows
  for (size_t i = 0; i < chain.size(); ++i) {
    const Node& node = nodes[plan[static_cast<size_t>(chain[i])]];
    // The filters (an ADD's operands are values, read once).
    const bool has_filter = node.builtin_code != tflite::BuiltinOperator_ADD && node.inputs.size() > 1 && node.inputs[1] >= 0;
    if (has_filter) weights += TensorBytes(*sg.tensor(node.inputs[1]));
    if (i + 1 < chain.size()) values += TensorBytes(*sg.tensor(node.outputs[0]));
    crosses_cores = crosses_cores || (i + 1 < chain.size() && node.builtin_code == tflite::BuiltinOperator_CONV_2D &&
                                      SplitsColumns(*sg.tensor(node.outputs[0]), threads));
  }
  const size_t strips = values / kStripBudgetBytes + 1;
  if (threads > 1 && strips == 1) return true;
  return strips * weights <= (crosses_cores ? 2 : 1) * values;
}

// Runs a chain over strips of its output rows.
class FusedRowsKernel final : public DelegateKernel {
 public:
  Status Prepare(OpContext& ctx, const Partition& partition) override {
    Subgraph& sg = ctx.subgraph();
    members_.clear();
    chain_.clear();
    for (int n : partition.nodes) {
      OpContext member(&sg, n);
      if (chain_.empty()) chain_.push_back(member.input_tensor_index(0));
      // The input that reads the previous member's output (an ADD may have it second).
      int band_input = -1;
      for (int i = 0; i < member.num_inputs() && band_input < 0; ++i) {
        if (member.input_tensor_index(i) == chain_.back()) band_input = i;
      }
      if (band_input < 0) {
        return Status::Unsupported(StrCat(member.Location(), ": does not read the previous member's output"));
      }
      std::unique_ptr<RowKernel> kernel = MakeRowKernel(member, band_input);
      if (!kernel) return Status::Unsupported(StrCat(member.Location(), ": cannot run by bands of rows"));
      chain_.push_back(member.output_tensor_index(0));
      members_.push_back({n, std::move(kernel)});
    }
    rows_.clear();
    widths_.clear();
    row_bytes_.clear();
    for (int t : chain_) {
      const Tensor* x = sg.tensor(t);
      if (x->shape.size() != 4 || x->dim(0) != 1 || x->dim(1) <= 0) {
        return Status::Unsupported(StrCat("tensor '", x->name, "' is not one image"));
      }
      rows_.push_back(x->dim(1));
      widths_.push_back(x->dim(2));
      row_bytes_.push_back(static_cast<size_t>(x->dim(2)) * x->dim(3) * TensorTypeSize(x->type));
    }
    if (members_.size() > kMaxMembers) return Status::Unsupported(StrCat("a chain of more than ", kMaxMembers, " members"));
    // One range of output rows (or pixels) per thread (the node's thread decision is made before
    // Prepare).
    const int threads = optimized::NumThreads(ctx.thread_pool());
    if (PlanPixels(sg, threads)) return Status::Ok();
    Plan(std::max(1, std::min(threads, rows_.back())));
    return Status::Ok();
  }

  Status Eval(OpContext& ctx, const Partition&) override {
    Subgraph& sg = ctx.subgraph();
    for (Member& m : members_) {
      OpContext member(&sg, m.node);
      m.kernel->Begin(member);
    }
    ThreadPool* pool = ctx.thread_pool();
    const int out_rows = rows_.back();
    const int tasks = planned_tasks_;
    if (optimized::NumThreads(pool) < tasks) pool = nullptr;  // planned for more threads: run them here
    const Tensor* input = sg.tensor(chain_.front());
    Tensor* output = sg.tensor(chain_.back());
    const std::vector<int>& split = split_.Split(by_pixels_ ? out_rows * widths_.back() : out_rows);
    const auto start = std::chrono::steady_clock::now();
    std::atomic<bool> out_of_memory{false};
    optimized::ParallelFor(pool, tasks, [&](int64_t t) {
      const int first = split[static_cast<size_t>(t)], end = split[static_cast<size_t>(t) + 1];
      if (first >= end) return;
      uint8_t* buffers = StripMemory(strip_bytes_);
      if (buffers == nullptr) {
        out_of_memory = true;
        return;
      }
      const auto* in = static_cast<const uint8_t*>(input->data);
      auto* out = static_cast<uint8_t*>(output->data);
      if (by_pixels_) {
        RunPixels(sg, first, end, in, out, buffers);
      } else {
        RunRows(sg, first, end, in, out, buffers);
      }
      // From the call on: a thread that starts late finishes late as surely as a slow one.
      seconds_[static_cast<size_t>(t)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
    // Tasks run one after the other on this thread say nothing about the threads' speeds.
    if (pool != nullptr) {
      split_.Learn(seconds_);
    } else {
      std::fill(seconds_.begin(), seconds_.end(), 0.0);
    }
    if (out_of_memory) return Status::Error(StrCat(ctx.Location(), ": out of memory for ", strip_bytes_, " bytes of strip buffers"));
    return Status::Ok();
  }

 private:
  struct Member {
    int node;
    std::unique_ptr<RowKernel> kernel;
  };
  static constexpr size_t kMaxMembers = kMaxChainMembers;
  // Rows [first, end) of one chain tensor.
  struct Span {
    int first = 0, end = 0;
  };
  using Spans = std::array<Span, kMaxMembers + 1>;  // one per chain tensor

  // The rows of every chain tensor that output rows [first, end) need.
  void Needs(int first, int end, Spans* need) const {
    const int n = static_cast<int>(members_.size());
    (*need)[n] = {first, end};
    for (int i = n - 1; i >= 0; --i) {
      members_[i].kernel->InputRows((*need)[i + 1].first, (*need)[i + 1].end, &(*need)[i].first, &(*need)[i].end);
    }
  }

  // The strip height and, per intermediate tensor, the most rows a strip holds. A thread's range
  // of rows moves with the threads' speeds (RowSplit), so a strip may start at any row.
  void Plan(int tasks) {
    const int n = static_cast<int>(members_.size());
    const int out_rows = rows_.back();
    Spans need;
    std::vector<int> most(n + 1, 0);
    auto measure = [&](int height) {
      std::fill(most.begin(), most.end(), 0);
      for (int a = 0; a < out_rows; ++a) {
        Needs(a, std::min(out_rows, a + height), &need);
        for (int i = 1; i < n; ++i) most[i] = std::max(most[i], need[i].end - need[i].first);
      }
      size_t bytes = 0;
      for (int i = 1; i < n; ++i) bytes += static_cast<size_t>(most[i]) * row_bytes_[i];
      return bytes;
    };
    // No taller than a thread's equal share, as before the speeds are known (a share that grows
    // takes more strips).
    // The tallest strip within the budget (at least one row), by bisection: the bytes only grow
    // with the height, and each measure walks every output row (a linear search made
    // AllocateTensors of a model with large fused layers 5% slower).
    const int share = (out_rows + tasks - 1) / tasks;
    int fits = 1, too_tall = share + 1;
    while (too_tall - fits > 1) {
      const int height = fits + (too_tall - fits) / 2;
      (measure(height) <= kStripBudgetBytes ? fits : too_tall) = height;
    }
    strip_rows_ = fits;
    measure(strip_rows_);
    // One block per thread: each intermediate's rows from a 64-byte aligned offset.
    strip_bytes_ = 0;
    for (int i = 1; i < n; ++i) {
      offset_[i] = strip_bytes_;
      strip_bytes_ += (static_cast<size_t>(most[i]) * row_bytes_[i] + 63) / 64 * 64;
    }
    SetTasks(tasks);
  }

  void SetTasks(int tasks) {
    planned_tasks_ = tasks;
    split_.Reset(tasks);
    seconds_.assign(static_cast<size_t>(tasks), 0.0);
  }

  // The pixel split: each thread takes a range of output pixels (whole rows or not), which the
  // pointwise members compute pixel by pixel and the window member (the depthwise convolution) as
  // up to three pieces of rows: the part of its first row, whole rows, the part of its last.
  // For a few rows per thread: 7x7 split 25 / 24 pixels instead of 4 / 3 rows. Each intermediate
  // gets a buffer of the whole tensor per thread, of which a thread writes and reads only its
  // part. False (the row split) unless the chain qualifies.
  bool PlanPixels(Subgraph& sg, int threads) {
    by_pixels_ = false;
    const int n = static_cast<int>(members_.size());
    if (threads <= 1 || rows_.back() >= kMinRowsPerThread * threads) return false;
    window_ = -1;
    for (int i = 0; i < n; ++i) {
      if (members_[i].kernel->pixels() != nullptr) continue;
      // One window, not the last member, that can compute part of a row.
      if (window_ >= 0 || i + 1 == n || members_[i].kernel->columns() == nullptr) return false;
      window_ = i;
    }
    if (window_ < 0) return false;
    strip_bytes_ = 0;
    for (int i = 1; i < n; ++i) {
      offset_[i] = strip_bytes_;
      strip_bytes_ += (TensorBytes(*sg.tensor(chain_[i])) + 63) / 64 * 64;
    }
    if (strip_bytes_ > kPixelSplitMaxBytes) return false;
    by_pixels_ = true;
    SetTasks(std::min(threads, rows_.back() * widths_.back()));
    return true;
  }

  // Output pixels [first, end) on the calling thread, the intermediates in `memory` (PlanPixels).
  void RunPixels(Subgraph& sg, int first, int end, const uint8_t* input, uint8_t* output, uint8_t* memory) const {
    const int n = static_cast<int>(members_.size());
    // Pixel i of tensor t: in the tensor itself (the chain's input and output) or the buffer.
    auto at = [&](int t, int64_t pixel) -> uint8_t* {
      const size_t bytes = static_cast<size_t>(pixel) * (row_bytes_[t] / static_cast<size_t>(widths_[t]));
      if (t == 0) return const_cast<uint8_t*>(input) + bytes;
      if (t == n) return output + bytes;
      return memory + offset_[t] + bytes;
    };
    // The pixels [lo[t], hi[t]) of each tensor to compute, from the output back: a pointwise member
    // reads the pixels it writes; the window member writes its range as pieces of rows and reads
    // the window rows and columns of each, whose hull (first to last pixel) the member before it
    // computes.
    struct Piece {
      int row_first, row_end, x0, x1;  // output rows and columns of the window member
      int in_first, in_end;            // the input rows they read
    };
    std::array<Piece, 3> pieces{};
    int num_pieces = 0;
    std::array<int64_t, kMaxMembers + 1> lo{}, hi{};
    lo[n] = first;
    hi[n] = end;
    for (int i = n - 1; i >= 0; --i) {
      if (i != window_) {
        lo[i] = lo[i + 1];
        hi[i] = hi[i + 1];
        continue;
      }
      const int w_out = widths_[i + 1], w_in = widths_[i];
      const int r0 = static_cast<int>(lo[i + 1] / w_out), c0 = static_cast<int>(lo[i + 1] % w_out);
      const int r_last = static_cast<int>((hi[i + 1] - 1) / w_out);
      const int c_end = static_cast<int>((hi[i + 1] - 1) % w_out) + 1;
      if (r0 == r_last) {
        pieces[num_pieces++] = {r0, r0 + 1, c0, c_end, 0, 0};
      } else {
        const int whole_first = c0 > 0 ? r0 + 1 : r0, whole_end = c_end < w_out ? r_last : r_last + 1;
        if (c0 > 0) pieces[num_pieces++] = {r0, r0 + 1, c0, w_out, 0, 0};
        if (whole_first < whole_end) pieces[num_pieces++] = {whole_first, whole_end, 0, w_out, 0, 0};
        if (c_end < w_out) pieces[num_pieces++] = {r_last, r_last + 1, 0, c_end, 0, 0};
      }
      const RowKernel& kernel = *members_[i].kernel;
      lo[i] = INT64_MAX;
      hi[i] = 0;
      for (int k = 0; k < num_pieces; ++k) {
        Piece& p = pieces[k];
        int col_first = 0, col_end = 0;
        kernel.InputRows(p.row_first, p.row_end, &p.in_first, &p.in_end);
        kernel.columns()->InputColumns(p.x0, p.x1, &col_first, &col_end);
        if (p.in_first >= p.in_end || col_first >= col_end) continue;  // a window all padding
        lo[i] = std::min(lo[i], static_cast<int64_t>(p.in_first) * w_in + col_first);
        hi[i] = std::max(hi[i], static_cast<int64_t>(p.in_end - 1) * w_in + col_end);
      }
      if (lo[i] >= hi[i]) lo[i] = hi[i] = 0;
    }
    for (int i = 0; i < n; ++i) {
      const OpContext ctx(&sg, members_[i].node);
      if (i != window_) {
        members_[i].kernel->pixels()->EvalPixels(ctx, at(i, lo[i + 1]), at(i + 1, lo[i + 1]), lo[i + 1],
                                                 hi[i + 1] - lo[i + 1]);
        continue;
      }
      for (int k = 0; k < num_pieces; ++k) {
        const Piece& p = pieces[k];
        const RowBand in{at(i, static_cast<int64_t>(p.in_first) * widths_[i]), p.in_first, p.in_end - p.in_first};
        const OutputRowBand out{at(i + 1, static_cast<int64_t>(p.row_first) * widths_[i + 1]), p.row_first,
                                p.row_end - p.row_first};
        members_[i].kernel->columns()->EvalColumns(ctx, in, out, p.x0, p.x1);
      }
    }
  }

  // The calling thread's strip memory, shared by every fused node (nodes run one at a time on a
  // thread): a few hundred KB a thread, allocated once. Null when it cannot grow to `bytes`.
  static uint8_t* StripMemory(size_t bytes) {
    thread_local optimized::AlignedBuffer<uint8_t> memory;
    if (memory.size() < bytes) {
      try {
        memory.Resize(bytes);
      } catch (const std::bad_alloc&) {
        return nullptr;
      }
    }
    return memory.data();
  }

  // Output rows [first, end) strip by strip, on the calling thread, with the intermediate rows in
  // `memory` (strip_bytes_).
  void RunRows(Subgraph& sg, int first, int end, const uint8_t* input, uint8_t* output, uint8_t* memory) const {
    const int n = static_cast<int>(members_.size());
    Spans need, held;
    // The rows of tensor i from row `row` on: in the buffer (intermediates) or the tensor itself.
    auto rows_at = [&](int i, int row) -> uint8_t* {
      if (i == 0) return const_cast<uint8_t*>(input) + static_cast<size_t>(row) * row_bytes_[0];
      if (i == n) return output + static_cast<size_t>(row) * row_bytes_[n];
      return memory + offset_[i] + static_cast<size_t>(row - held[i].first) * row_bytes_[i];
    };
    // Member i - 1 computes rows [lo, hi) of tensor i.
    auto compute = [&](int i, int lo, int hi) {
      if (lo >= hi) return;
      const RowKernel& kernel = *members_[i - 1].kernel;
      int in_first = 0, in_end = 0;
      kernel.InputRows(lo, hi, &in_first, &in_end);
      const RowBand in{rows_at(i - 1, in_first), in_first, in_end - in_first};
      const OutputRowBand out{rows_at(i, lo), lo, hi - lo};
      kernel.EvalRows(OpContext(&sg, members_[i - 1].node), in, out);
    };
    for (int a = first; a < end; a += strip_rows_) {
      const int b = std::min(end, a + strip_rows_);
      Needs(a, b, &need);
      for (int i = 1; i < n; ++i) {
        // Rows the previous strip left that this one needs again move to the front.
        int kept_end = need[i].first;
        if (held[i].end > need[i].first && held[i].first <= need[i].first) {
          kept_end = std::min(held[i].end, need[i].end);
          if (held[i].first < need[i].first && kept_end > need[i].first) {
            std::memmove(memory + offset_[i], rows_at(i, need[i].first),
                         static_cast<size_t>(kept_end - need[i].first) * row_bytes_[i]);
          }
        }
        held[i] = {need[i].first, kept_end};
        compute(i, kept_end, need[i].end);
        held[i].end = need[i].end;
      }
      held[n] = {a, b};
      compute(n, a, b);
    }
  }

  std::vector<Member> members_;
  std::vector<int> chain_;          // the members' input 0, then each member's output
  std::vector<int> rows_;           // rows of each chain tensor
  std::vector<int> widths_;         // and its columns
  std::vector<size_t> row_bytes_;   // bytes of one row
  int planned_tasks_ = 0;
  RowSplit split_;               // the tasks' row ranges
  std::vector<double> seconds_;  // each task's time in the last Eval
  int strip_rows_ = 1;
  std::array<size_t, kMaxMembers + 1> offset_{};  // of each intermediate's rows in the strip memory
  size_t strip_bytes_ = 0;
  bool by_pixels_ = false;  // the pixel split (PlanPixels)
  int window_ = -1;         // with it, the member that reads a window
};

class RowChainDelegateImpl final : public Delegate {
 public:
  std::string name() const override { return "FUSED"; }
  bool runs_in_parallel_regions() const override { return true; }  // builtin kernels on ParallelFor
  NodeClaim Claim(const OpContext&) override { return NodeClaim::No("chains are chosen by FindRowChains"); }
  Result<std::unique_ptr<DelegateKernel>> CreateKernel(OpContext&, const Partition&) override {
    return std::unique_ptr<DelegateKernel>(std::make_unique<FusedRowsKernel>());
  }
};

}  // namespace

void RowSplit::Reset(int tasks) {
  speed_.assign(static_cast<size_t>(std::max(1, tasks)), 0.0);
  split_.assign(speed_.size() + 1, 0);
}

const std::vector<int>& RowSplit::Split(int rows) {
  const int tasks = static_cast<int>(speed_.size());
  std::unique_lock<std::mutex> lock(testing_speeds_mutex, std::defer_lock);
  const bool testing = testing_speeds_set.load(std::memory_order_acquire);
  if (testing) lock.lock();
  // Until every task has been timed, all count the same.
  const bool known = std::all_of(speed_.begin(), speed_.end(), [](double v) { return v > 0; });
  auto speed = [&](int t) {
    if (testing && !testing_speeds.empty()) return testing_speeds[static_cast<size_t>(t) % testing_speeds.size()];
    return known ? speed_[static_cast<size_t>(t)] : 1.0;
  };
  double total = 0;
  for (int t = 0; t < tasks; ++t) total += speed(t);
  double sum = 0;
  split_[0] = 0;
  for (int t = 0; t < tasks; ++t) {
    sum += speed(t);
    const int first = split_[static_cast<size_t>(t)];
    int end = static_cast<int>(std::lround(rows * sum / total));
    end = std::min(end, rows - (tasks - 1 - t));  // a row for each task after this one
    end = std::max(end, std::min(rows, first + 1));
    split_[static_cast<size_t>(t) + 1] = std::max(first, std::min(end, rows));
  }
  split_.back() = std::max(rows, 0);
  return split_;
}

void RowSplit::Learn(std::vector<double>& seconds) {
  if (testing_speeds_set.load(std::memory_order_acquire)) return;
  double fastest = 0;
  for (size_t t = 0; t < speed_.size() && t < seconds.size(); ++t) {
    const int rows = split_[t + 1] - split_[t];
    if (rows > 0 && seconds[t] > 0) {
      const double seen = rows / seconds[t];
      if (speed_[t] <= 0) {
        speed_[t] = seen;
      } else {
        speed_[t] += kSpeedWeight * (std::clamp(seen, speed_[t] / kSpeedStep, speed_[t] * kSpeedStep) - speed_[t]);
      }
    }
    seconds[t] = 0;
    fastest = std::max(fastest, speed_[t]);
  }
  for (double& v : speed_) {
    if (v > 0) v = std::max(v, fastest / 4);
  }
}

void SetRowSplitSpeedsForTesting(std::vector<double> speeds) {
  std::lock_guard<std::mutex> lock(testing_speeds_mutex);
  testing_speeds = std::move(speeds);
  testing_speeds_set.store(!testing_speeds.empty(), std::memory_order_release);
}

Delegate& RowChainDelegate() {
  static RowChainDelegateImpl delegate;
  return delegate;
}

std::vector<std::vector<int>> FindRowChains(Subgraph& sg, const std::vector<int>& plan, int threads, bool all) {
  const NodeList& nodes = sg.nodes();
  // Readers of each tensor along the plan; a subgraph output escapes.
  std::vector<int> readers(sg.num_tensors(), 0);
  for (int n : plan) {
    for (int t : nodes[n].inputs) {
      if (t >= 0) ++readers[t];
    }
  }
  for (int t : sg.outputs()) {
    if (t >= 0) readers[t] += 2;
  }
  std::vector<bool> band(plan.size(), false), used(plan.size(), false);
  for (size_t k = 0; k < plan.size(); ++k) {
    const int n = plan[k];
    if (n >= sg.num_model_nodes()) continue;
    const Node& node = nodes[n];
    if (node.builtin_code != tflite::BuiltinOperator_CONV_2D &&
        node.builtin_code != tflite::BuiltinOperator_DEPTHWISE_CONV_2D &&
        node.builtin_code != tflite::BuiltinOperator_MAX_POOL_2D && node.builtin_code != tflite::BuiltinOperator_QUANTIZE) {
      continue;
    }
    if (node.prepare_at_eval || node.outputs.size() != 1) continue;
    band[k] = MakeRowKernel(OpContext(&sg, n)) != nullptr;
  }
  // Whether plan position k's only output is read by position k + 1 alone, as its input 0.
  auto feeds_next = [&](size_t k) {
    if (k + 1 >= plan.size() || !band[k] || !band[k + 1]) return false;
    const int t = nodes[plan[k]].outputs[0];
    const Tensor& value = *sg.tensor(t);
    return readers[t] == 1 && nodes[plan[k + 1]].inputs[0] == t && !value.is_variable &&
           value.allocation != Allocation::kPersistent && value.allocation != Allocation::kDynamic;
  };
  std::vector<std::vector<int>> chains;
  for (size_t k = 0; k < plan.size(); ++k) {
    if (!band[k] || used[k] || nodes[plan[k]].builtin_code != tflite::BuiltinOperator_DEPTHWISE_CONV_2D) continue;
    std::vector<int> chain;
    if (k > 0 && !used[k - 1] && nodes[plan[k - 1]].builtin_code == tflite::BuiltinOperator_CONV_2D &&
        feeds_next(k - 1)) {
      chain.push_back(static_cast<int>(k - 1));
    }
    chain.push_back(static_cast<int>(k));
    if (feeds_next(k) && IsPointwise(sg, nodes[plan[k + 1]])) chain.push_back(static_cast<int>(k + 1));
    // The residual ADD that follows a projection joins it: its other operand is read at the same
    // rows from its tensor (the block's input, written by the same thread's rows before).
    const size_t last = static_cast<size_t>(chain.back());
    if (chain.size() == 3 && last + 1 < plan.size() && plan[last + 1] < sg.num_model_nodes()) {
      const Node& add = nodes[plan[last + 1]];
      const int t = nodes[plan[last]].outputs[0];
      if (add.builtin_code == tflite::BuiltinOperator_ADD && add.inputs.size() == 2 && add.outputs.size() == 1 &&
          readers[t] == 1 && !add.prepare_at_eval && (add.inputs[0] == t) != (add.inputs[1] == t) &&
          MakeRowKernel(OpContext(&sg, plan[last + 1]), add.inputs[0] == t ? 0 : 1) != nullptr) {
        chain.push_back(static_cast<int>(last + 1));
      }
    }
    if (chain.size() < 2) continue;
    const Tensor& out = *sg.tensor(nodes[plan[chain.back()]].outputs[0]);
    const bool by_pixels = SplitsPixels(sg, nodes, plan, chain, threads);
    // Split by pixels, a 1x1 convolution that alone reads the chain's output joins it (MobileNet
    // v2's 320 -> 1280 after its last 7x7 block): each thread reads the pixels it has just made,
    // where alone it would split its columns and read every pixel, half from the other core.
    while (by_pixels && chain.size() < kMaxChainMembers && feeds_next(static_cast<size_t>(chain.back())) &&
           IsPointwise(sg, nodes[plan[static_cast<size_t>(chain.back()) + 1]])) {
      chain.push_back(chain.back() + 1);
    }
    if (!all && threads > 1 && out.dim(1) < kMinRowsPerThread * threads && !by_pixels) {
      // Too few rows a thread to compute the head's window rows twice at each boundary. From the
      // depthwise convolution on, nothing is computed twice: each thread's rows of the projection
      // (and ADD) read the depthwise rows that thread has just made, in one hand-off.
      const bool has_head = chain.front() != static_cast<int>(k);
      if (!has_head || chain.size() < 3) continue;
      chain.erase(chain.begin());
    }
    // With several threads, the QUANTIZE that alone feeds the chain (an 8-bit model's input,
    // float or uint8 to int8) joins it: each thread converts the rows it reads into its strip
    // buffer, where alone it would write a whole tensor that the other core then reads (TF2
    // MobileNet v2 at 2 threads: 6.8 + 173.5 -> 172.8 us; at 1 thread 3.5 + 315.9 -> 321.9, so
    // there it stays a node of its own).
    const size_t front = static_cast<size_t>(chain.front());
    if (threads > 1 && front > 0 && !used[front - 1] && chain.size() < kMaxChainMembers &&
        nodes[plan[front - 1]].builtin_code == tflite::BuiltinOperator_QUANTIZE && feeds_next(front - 1)) {
      chain.insert(chain.begin(), static_cast<int>(front - 1));
    }
    // Split by pixels, each thread reads the weights once, as in a chain of one strip.
    if (!all && !by_pixels && !WorthFusing(sg, nodes, plan, chain, threads)) continue;
    for (int c : chain) used[static_cast<size_t>(c)] = true;
    chains.push_back(std::move(chain));
  }
  // A convolution and the max pool that alone reads its output (ResNet's stem): the pool reads
  // each strip of the convolution's rows from cache instead of the whole output from memory, which
  // only matters when that output is larger than a strip (ResNet-18's 3.2 MB: 1.48-1.75 ms for the
  // two nodes -> 1.35-1.53 ms fused; tiny_cnn's 4 KB stay as they were).
  for (size_t k = 0; k + 1 < plan.size(); ++k) {
    if (used[k] || used[k + 1] || nodes[plan[k]].builtin_code != tflite::BuiltinOperator_CONV_2D ||
        nodes[plan[k + 1]].builtin_code != tflite::BuiltinOperator_MAX_POOL_2D || !feeds_next(k)) {
      continue;
    }
    std::vector<int> chain{static_cast<int>(k), static_cast<int>(k + 1)};
    const Tensor& out = *sg.tensor(nodes[plan[k + 1]].outputs[0]);
    if (!all && TensorBytes(*sg.tensor(nodes[plan[k]].outputs[0])) <= kStripBudgetBytes) continue;
    if (!all && threads > 1 && out.dim(1) < kMinRowsPerThread * threads) continue;
    if (!all && !WorthFusing(sg, nodes, plan, chain, threads)) continue;
    used[k] = used[k + 1] = true;
    chains.push_back(std::move(chain));
  }
  std::sort(chains.begin(), chains.end());
  return chains;
}

std::unique_ptr<RowKernel> MakeRowKernel(const OpContext& ctx, int band_input) {
  const Tensor* input = band_input >= 0 && band_input < ctx.num_inputs() ? ctx.input(band_input) : nullptr;
  const Tensor* output = ctx.num_outputs() == 1 ? ctx.output(0) : nullptr;
  if (input == nullptr || output == nullptr || input->shape.size() != 4 || output->shape.size() != 4) return nullptr;
  switch (ctx.builtin_code()) {
    case tflite::BuiltinOperator_CONV_2D:
      return band_input == 0 ? MakeConv2DRowKernel(ctx) : nullptr;
    case tflite::BuiltinOperator_DEPTHWISE_CONV_2D:
      return band_input == 0 ? MakeDepthwiseConv2DRowKernel(ctx) : nullptr;
    case tflite::BuiltinOperator_ADD:
      return MakeAddRowKernel(ctx, band_input);
    case tflite::BuiltinOperator_MAX_POOL_2D:
      return band_input == 0 ? MakeMaxPool2DRowKernel(ctx) : nullptr;
    case tflite::BuiltinOperator_QUANTIZE:
      return band_input == 0 ? MakeQuantizeRowKernel(ctx) : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace edgerun::ops
