// Delegates: another engine runs part of a graph.
//
// After every node of a subgraph is prepared (shapes known), each delegate in turn looks at the
// nodes the builtin kernels would still run and claims those it supports, saying why it refuses
// the others. The interpreter cuts the claimed nodes into partitions: groups of claimed nodes
// that can run as one step without breaking any dependency (a partition never needs a value that
// an unclaimed node computes from one of its own outputs). Each partition is replaced by one node
// whose kernel the delegate creates; unclaimed nodes keep their builtin kernels. Partitions
// smaller than the delegate's threshold go back to the builtin kernels unless they hold the whole
// subgraph or a node the delegate marks heavy.
//
// A delegate node reads and writes the subgraph's own tensors (no copies at the boundary); values
// that only live inside a partition get no memory in the subgraph's arena. Delegation is redone
// at every AllocateTensors that follows a change (ResizeInputTensor), so delegates see static
// shapes; a kernel whose partition did not change is kept and prepared again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "edgerun/op.h"
#include "edgerun/status.h"

namespace edgerun {

// A delegate's answer for one node.
struct NodeClaim {
  bool claimed = false;
  // Worth a partition of its own, whatever the threshold (a convolution is much faster there).
  bool heavy = false;
  std::string reason;  // why it was refused (empty when claimed)

  static NodeClaim Yes(bool heavy = false) { return {true, heavy, ""}; }
  static NodeClaim No(std::string why) { return {false, false, std::move(why)}; }
};

// Connected group of claimed nodes that runs as one step.
struct Partition {
  std::vector<int> nodes;    // node indices of the subgraph, in execution order
  std::vector<int> inputs;   // tensors read from outside the partition (constants included)
  std::vector<int> outputs;  // tensors written for later nodes or the subgraph's outputs
};

// Runs one partition. The OpContext passed in is the delegate node's: its inputs and outputs are
// the partition's; OpContext(&ctx.subgraph(), n) looks at a member node n.
class DelegateKernel {
 public:
  virtual ~DelegateKernel() = default;
  // Called after the partition is formed and again after every later allocation (shapes may have
  // changed; tensor memory is assigned after this call, so do not keep data pointers here).
  // kUnsupported sends the partition back to the builtin kernels, with the message as reason.
  virtual Status Prepare(OpContext& ctx, const Partition& partition) = 0;
  virtual Status Eval(OpContext& ctx, const Partition& partition) = 0;
};

class Delegate {
 public:
  virtual ~Delegate() = default;
  // Short name used in node names and reports: "XNNPACK".
  virtual std::string name() const = 0;
  // Smallest partition (in nodes) worth a boundary.
  virtual int min_partition_nodes() const { return 1; }
  // Whether its kernels may run inside a parallel region, where the interpreter keeps its other
  // threads spinning for the kernels' OpContext::thread_pool()->ParallelFor calls between nodes:
  // true only when they use threads through that call alone (not the pool's pthreadpool, which
  // those threads would never answer) and invoke no subgraph.
  virtual bool runs_in_parallel_regions() const { return false; }
  // Decides for one prepared node (its tensors have their shapes; constants their data).
  virtual NodeClaim Claim(const OpContext& node) = 0;
  // A costlier second check (e.g. building the node in the delegate's engine), asked only of
  // claimed nodes that landed in a partition the interpreter is about to create, once per node.
  // kUnsupported refuses the node, with the message as reason, and the partitioning runs again
  // without it; any other error fails AllocateTensors.
  virtual Status Confirm(const OpContext& node) { (void)node; return Status::Ok(); }
  virtual Result<std::unique_ptr<DelegateKernel>> CreateKernel(OpContext& ctx, const Partition& partition) = 0;
};

// Who runs what in one subgraph after AllocateTensors.
struct DelegationReport {
  struct PartitionInfo {
    std::string delegate;  // its name
    int node = -1;         // the delegate node that replaced it (index in the subgraph's nodes)
    Partition partition;
  };
  struct NodeInfo {
    std::string op;        // "CONV_2D"
    int partition = -1;    // index into `partitions`, -1 when a builtin kernel runs it
    // For builtin nodes: (delegate, why it did not take the node), one per delegate asked.
    std::vector<std::pair<std::string, std::string>> refusals;
  };
  std::vector<PartitionInfo> partitions;
  std::vector<NodeInfo> nodes;  // one per node of the model's subgraph
};

}  // namespace edgerun
