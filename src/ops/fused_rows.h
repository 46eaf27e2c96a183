// Chains of convolutions run strip by strip (the inverted-residual block of MobileNet v2: a 1x1
// expansion, a depthwise convolution, a 1x1 projection).
//
// Unfused, each op writes its whole output before the next reads it: MobileNet v2's expanded
// tensors (up to 112x112x96 floats, 4.8 MB) leave the cache between the ops, the depthwise
// convolution between them is bound by memory, and at 2 threads every op is a hand-off whose
// output the other core then reads from the first core's cache. A fused chain computes a strip of
// its output rows at a time: the rows of each intermediate value that the strip needs (its window
// rows, kept from the previous strip where they overlap), into buffers that stay in the core's
// cache. Each thread takes one range of output rows, so a chain is one hand-off; the rows that two
// ranges share at their boundary are computed by both. The ranges follow the threads' speeds on
// the chain (RowSplit), so that the threads finish together.
//
// Images of few rows a thread (MobileNet v2's 7x7 blocks at 2 threads: 4 / 3 rows cap a block at
// 1.75x) split their output pixels between the threads instead, whole rows or not (25 / 24): each
// member computes exactly the pixels the next one reads (the depthwise convolution part of its
// first and last rows).
//
// The members run their own kernels on bands of rows (ops/row_bands.h), with the same arithmetic
// as unfused, so the outputs are the same bits. The values inside a chain get no arena memory.
#pragma once

#include <vector>

#include "edgerun/delegate.h"

namespace edgerun {
class Subgraph;
}

namespace edgerun::ops {

// Chains of the execution plan worth fusing, as lists of plan positions (consecutive, in order):
// a depthwise convolution with the convolution that feeds it and the 1x1 convolution it feeds,
// and the residual ADD after those three; and a convolution with the MAX_POOL_2D after it whose
// input (the convolution's output) is larger than a strip. Each value between them is read by the
// next member alone and all members run by bands.
// With several threads, a QUANTIZE whose output the chain's first member alone reads (an 8-bit
// model's input) joins it.
// With several threads, a chain whose output has fewer than kMinRowsPerThread rows per thread
// splits its pixels when its members are 1x1 convolutions of stride 1 and ADDs around the
// depthwise convolution; then a 1x1 convolution that alone reads its output joins it too.
// Unless `all`, two cost rules apply: a chain of few rows a thread that cannot split its pixels
// leaves out its head convolution (whose window rows would be recomputed at each thread
// boundary) and keeps the depthwise convolution onward, where nothing is computed twice; and a
// chain whose weights, read again by every strip, outweigh the values that fusing keeps out of
// memory stays unfused (with several threads, one strip reads them once).
constexpr int kMinRowsPerThread = 4;
std::vector<std::vector<int>> FindRowChains(Subgraph& subgraph, const std::vector<int>& plan, int threads,
                                            bool all = false);

// Splits a node's output rows between its tasks in proportion to the speeds their threads showed
// on it before (rows a second). One task per thread: a thread that runs slower (this VM's two
// vCPUs differ by up to a third, and which one is slower changes by the minute) or starts later
// gets fewer rows, where equal ranges kept the other waiting at the end of every chain.
class RowSplit {
 public:
  // `tasks` tasks, speeds unknown (equal ranges until each task has been timed).
  void Reset(int tasks);
  // Task t's rows are [split[t], split[t + 1]): at least one each when rows >= tasks.
  const std::vector<int>& Split(int rows);
  // Learns from the last Split's tasks, each `seconds[t]` from the call to its end (a thread that
  // starts late finishes late as surely as a slow one): a moving average, each step at most 1.5x
  // from the last, so that one preempted run moves a range by a row or two, and no speed below a
  // quarter of the fastest's. Zeroes `seconds`.
  void Learn(std::vector<double>& seconds);

 private:
  std::vector<double> speed_;  // 0: not timed yet
  std::vector<int> split_;
};

// For tests: every RowSplit splits by these speeds (task t: speeds[t % size]) and learns nothing;
// empty: back to learning.
void SetRowSplitSpeedsForTesting(std::vector<double> speeds);

// The internal "delegate" whose partitions are the chains FindRowChains finds ("FUSED").
Delegate& RowChainDelegate();

}  // namespace edgerun::ops
