// How much work a node is: multiply-accumulates for the reports of `edgerun bench`, and a rough
// one-thread time that decides whether the node's kernels get the thread pool.
#pragma once

#include <cstdint>
#include <vector>

namespace tflite {
struct Operator;
}

namespace edgerun {

class Subgraph;

// Multiply-accumulate work of one operator, counted as 2 operations per MAC (CONV_2D,
// DEPTHWISE_CONV_2D, CONV_3D, TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL, LSTMs); other ops
// count 0. Shapes must be known (after prepare). Used for GFLOP/s (GOP/s for integer models).
int64_t OperatorOps(Subgraph& sg, int32_t code, const std::vector<int>& in, const std::vector<int>& out,
                    const tflite::Operator* op);
// The same for a node; a delegate's node counts the nodes it runs.
int64_t NodeOps(Subgraph& sg, int node_index);

// Splitting an op over the pool costs about this much: pthreadpool hands out the tasks and
// collects them (1.5-3 us measured alone), and the other core first fetches the op's input from
// the cache of the core that wrote it. On VWW's layers, ops of 1.6-2.9 us on one thread took
// 2.7-3.3 us on two. On this VM the two vCPUs sit on different core complexes (a cache line
// takes 214-240 ns from one to the other, fma_peak's core_to_core_ns), so the fetch weighs more:
// at 2500 ns, XNNPACK partitions of small ops ran slower on two threads than on one (VWW float32
// 0.21 ms against 0.16, BlazeFace's 73-node partition 419 us against 327, YAMNet's 4-node
// partition 32 us against 13, VWW int8 0.104 against 0.087 ms); at 5000 they run on the caller
// and MobileNet v2 (float, uint8, int8), DeepLab v3 and ResNet keep every node they split. At
// 10000 the ResNet (mlperf) float32 partition lost its pool and ran 0.20 ms against 0.15.
constexpr double kThreadHandoffNs = 5000;

// A rough time of one node on one thread from its shapes: multiply-accumulates at the rate of
// this kind of kernel plus the values of its non-constant inputs and outputs. Only used to tell
// ops of a few microseconds from larger ones; -1 when a shape is unknown or the op is not one
// of the modelled kinds (convolutions, fully connected and matrix products, element-wise
// arithmetic, activations, pooling, data movement).
double EstimateSerialNs(Subgraph& sg, int node_index);

// Whether work of `serial_ns` done in `dispatches` parallel ops gains from `threads` threads:
// the time saved by sharing it must exceed the hand-offs.
inline bool WorthSplitting(double serial_ns, int dispatches, int threads) {
  return threads > 1 && serial_ns * (1.0 - 1.0 / threads) > dispatches * kThreadHandoffNs;
}

}  // namespace edgerun
