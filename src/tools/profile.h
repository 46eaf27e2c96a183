// Op profiler for `edgerun bench --profile/--trace/--csv`: times every node through the
// interpreter's Profiler hook, aggregates per node and per op type, and writes a Chrome
// trace-event file (Perfetto UI, chrome://tracing).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/node_work.h"
#include "edgerun/interpreter.h"
#include "edgerun/status.h"

namespace edgerun::tools {

// NodeOps (core/node_work.h) counts the work of one node.
// Sum over the operators of one subgraph as the file lists them (so delegated partitions count
// too); control flow bodies are not followed.
int64_t ModelOps(Interpreter& interpreter, int subgraph_index);

class OpProfiler : public Profiler {
 public:
  using Clock = std::chrono::steady_clock;

  // keep_events: store every slice for WriteTrace (memory grows with runs x nodes).
  explicit OpProfiler(Interpreter* interpreter, bool keep_events);

  // Brackets one Invoke; `run` numbers it in the trace.
  void BeginRun(int run);
  void EndRun();

  void OnNodeBegin(int subgraph, int node, const std::string& op_name) override;
  void OnNodeEnd(int subgraph, int node, const std::string& op_name) override;

  struct NodeStats {
    int subgraph = 0, node = 0;
    std::string name;        // op name, or the delegate's "XNNPACK(...)" node name
    int64_t count = 0;       // times it ran
    double total_ms = 0;     // inclusive
    double self_ms = 0;      // minus the nodes it ran inside it (WHILE/IF bodies)
    int64_t ops = 0;         // per run, see NodeOps
    int threads = 1;         // threads its kernels use (1 for work too small to split)
  };
  struct TypeStats {
    std::string type;
    int64_t nodes = 0;       // distinct nodes of this type
    int64_t count = 0;       // node executions
    double self_ms = 0;
    int64_t ops = 0;         // per run, summed over its nodes
  };

  int runs() const { return runs_; }
  double run_ms() const { return run_ms_; }   // sum over the profiled runs
  // Sorted by self time, largest first.
  std::vector<NodeStats> Nodes() const;
  std::vector<TypeStats> Types() const;

  // Tables for the terminal; `top` limits the node table (0: all).
  void PrintSummary(std::ostream& out, size_t top) const;
  Status WriteCsv(const std::string& path) const;
  Status WriteTrace(const std::string& path, const std::string& process_name) const;

  // The op type of a node name: "XNNPACK(CONV_2D x3, ...)" -> "XNNPACK".
  static std::string TypeOf(const std::string& name);

 private:
  struct Open {
    int subgraph, node;
    Clock::time_point begin;
    double child_ms;
  };
  struct Event {
    int subgraph, node, run, depth;
    uint32_t thread;
    int64_t begin_ns, end_ns;
  };
  uint32_t ThreadIndex();

  Interpreter* interpreter_;
  bool keep_events_;
  Clock::time_point origin_;
  Clock::time_point run_begin_;
  int run_ = -1;
  int runs_ = 0;
  double run_ms_ = 0;
  std::vector<Open> stack_;
  std::map<std::pair<int, int>, NodeStats> nodes_;
  std::vector<Event> events_;
  std::vector<std::pair<int64_t, int64_t>> run_spans_;  // ns since origin
  std::vector<uint64_t> threads_;                       // OS thread ids, in order of appearance
};

}  // namespace edgerun::tools
