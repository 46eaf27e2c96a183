#include "tools/profile.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "core/subgraph.h"
#include "tflite_generated.h"

namespace edgerun::tools {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

int64_t ModelOps(Interpreter& interpreter, int subgraph_index) {
  // From the file's operator list, so delegated partitions are counted too (tensor indices of
  // the file stay valid in the interpreter; shapes come from the interpreter after resizing).
  const tflite::Model& fb = *interpreter.model().fb();
  if (!fb.subgraphs() || subgraph_index < 0 || static_cast<size_t>(subgraph_index) >= fb.subgraphs()->size() ||
      !fb.subgraphs()->Get(subgraph_index)->operators()) {
    return 0;
  }
  Subgraph& sg = *interpreter.subgraph(subgraph_index);
  int64_t total = 0;
  for (const tflite::Operator* op : *fb.subgraphs()->Get(subgraph_index)->operators()) {
    if (!fb.operator_codes() || op->opcode_index() >= fb.operator_codes()->size()) continue;
    const auto* code = fb.operator_codes()->Get(op->opcode_index());
    const int32_t builtin = std::max<int32_t>(code->builtin_code(), code->deprecated_builtin_code());
    std::vector<int> in, out;
    if (op->inputs()) in.assign(op->inputs()->begin(), op->inputs()->end());
    if (op->outputs()) out.assign(op->outputs()->begin(), op->outputs()->end());
    total += OperatorOps(sg, builtin, in, out, op);
  }
  return total;
}

OpProfiler::OpProfiler(Interpreter* interpreter, bool keep_events)
    : interpreter_(interpreter), keep_events_(keep_events), origin_(Clock::now()) {}

uint32_t OpProfiler::ThreadIndex() {
  thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i] == tid) return static_cast<uint32_t>(i);
  }
  threads_.push_back(tid);
  return static_cast<uint32_t>(threads_.size() - 1);
}

void OpProfiler::BeginRun(int run) {
  run_ = run;
  stack_.clear();
  run_begin_ = Clock::now();
}

void OpProfiler::EndRun() {
  const auto end = Clock::now();
  run_ms_ += std::chrono::duration<double, std::milli>(end - run_begin_).count();
  ++runs_;
  if (keep_events_) {
    run_spans_.emplace_back(std::chrono::duration_cast<std::chrono::nanoseconds>(run_begin_ - origin_).count(),
                            std::chrono::duration_cast<std::chrono::nanoseconds>(end - origin_).count());
  }
}

void OpProfiler::OnNodeBegin(int subgraph, int node, const std::string& op_name) {
  stack_.push_back({subgraph, node, Clock::now(), 0.0});
}

void OpProfiler::OnNodeEnd(int subgraph, int node, const std::string& op_name) {
  const auto end = Clock::now();
  if (stack_.empty() || stack_.back().subgraph != subgraph || stack_.back().node != node) {
    stack_.clear();  // unbalanced callbacks: drop this slice rather than misattribute it
    return;
  }
  const Open open = stack_.back();
  stack_.pop_back();
  const double ms = std::chrono::duration<double, std::milli>(end - open.begin).count();
  NodeStats& s = nodes_[{subgraph, node}];
  if (s.count == 0) {
    s.subgraph = subgraph;
    s.node = node;
    s.name = op_name;
  }
  ++s.count;
  s.total_ms += ms;
  s.self_ms += ms - open.child_ms;
  if (!stack_.empty()) stack_.back().child_ms += ms;
  if (keep_events_) {
    events_.push_back({subgraph, node, run_, static_cast<int>(stack_.size()), ThreadIndex(),
                       std::chrono::duration_cast<std::chrono::nanoseconds>(open.begin - origin_).count(),
                       std::chrono::duration_cast<std::chrono::nanoseconds>(end - origin_).count()});
  }
}

std::string OpProfiler::TypeOf(const std::string& name) {
  const size_t paren = name.find('(');
  return paren == std::string::npos || paren == 0 ? name : name.substr(0, paren);
}

std::vector<OpProfiler::NodeStats> OpProfiler::Nodes() const {
  std::vector<NodeStats> out;
  for (const auto& [key, s] : nodes_) {
    NodeStats n = s;
    if (Subgraph* sg = interpreter_->subgraph(s.subgraph); sg && s.node < static_cast<int>(sg->nodes().size())) {
      n.ops = NodeOps(*sg, s.node);
      n.threads = sg->NodeThreads(s.node);
    }
    out.push_back(std::move(n));
  }
  std::stable_sort(out.begin(), out.end(), [](const NodeStats& a, const NodeStats& b) { return a.self_ms > b.self_ms; });
  return out;
}

std::vector<OpProfiler::TypeStats> OpProfiler::Types() const {
  std::map<std::string, TypeStats> by_type;
  for (const NodeStats& n : Nodes()) {
    TypeStats& t = by_type[TypeOf(n.name)];
    t.type = TypeOf(n.name);
    ++t.nodes;
    t.count += n.count;
    t.self_ms += n.self_ms;
    t.ops += n.ops * n.count;
  }
  std::vector<TypeStats> out;
  for (auto& [name, t] : by_type) out.push_back(std::move(t));
  std::stable_sort(out.begin(), out.end(), [](const TypeStats& a, const TypeStats& b) { return a.self_ms > b.self_ms; });
  return out;
}

void OpProfiler::PrintSummary(std::ostream& out, size_t top) const {
  const std::vector<NodeStats> nodes = Nodes();
  const std::vector<TypeStats> types = Types();
  double node_ms = 0;
  for (const NodeStats& n : nodes) node_ms += n.self_ms;
  const double run_ms = run_ms_ > 0 ? run_ms_ : 1e-9;
  auto percent = [&](double ms) { return Fixed(100.0 * ms / run_ms, 1); };
  auto rate = [](int64_t ops, double ms) { return ops > 0 && ms > 0 ? Fixed(ops / (ms * 1e6), 2) : std::string("-"); };

  out << "profile: " << runs_ << " runs, " << Fixed(run_ms_ / std::max(1, runs_), 3) << " ms per run; nodes account for "
      << percent(node_ms) << "% (the rest is the interpreter between nodes)\n";
  out << "by op type (self time, sorted):\n";
  out << "  " << std::left << std::setw(28) << "op type" << std::right << std::setw(6) << "nodes" << std::setw(9)
      << "count" << std::setw(12) << "total ms" << std::setw(8) << "% run" << std::setw(11) << "mean us"
      << std::setw(9) << "GOP/s" << "\n";
  for (const TypeStats& t : types) {
    out << "  " << std::left << std::setw(28) << t.type << std::right << std::setw(6) << t.nodes << std::setw(9)
        << t.count << std::setw(12) << Fixed(t.self_ms, 3) << std::setw(8) << percent(t.self_ms) << std::setw(11)
        << Fixed(t.count ? 1000.0 * t.self_ms / t.count : 0, 1) << std::setw(9) << rate(t.ops, t.self_ms) << "\n";
  }
  const size_t shown = top == 0 ? nodes.size() : std::min(top, nodes.size());
  out << "by node (self time, sorted" << (shown < nodes.size() ? StrCat(", top ", shown, " of ", nodes.size()) : "")
      << "):\n";
  out << "  " << std::left << std::setw(10) << "sg:node" << std::right << std::setw(9) << "count" << std::setw(12)
      << "total ms" << std::setw(8) << "% run" << std::setw(11) << "mean us" << std::setw(9) << "GOP/s"
      << std::setw(9) << "threads" << "  op\n";
  for (size_t i = 0; i < shown; ++i) {
    const NodeStats& n = nodes[i];
    out << "  " << std::left << std::setw(10) << StrCat(n.subgraph, ":", n.node) << std::right << std::setw(9)
        << n.count << std::setw(12) << Fixed(n.self_ms, 3) << std::setw(8) << percent(n.self_ms) << std::setw(11)
        << Fixed(n.count ? 1000.0 * n.self_ms / n.count : 0, 1) << std::setw(9) << rate(n.ops * n.count, n.self_ms)
        << std::setw(9) << n.threads << "  " << n.name << "\n";
  }
}

Status OpProfiler::WriteCsv(const std::string& path) const {
  std::ofstream f(path);
  if (!f) return Status::Errorf(path, ": cannot write");
  f << "subgraph,node,op_type,name,count,total_ms,self_ms,mean_us,percent_of_run,ops_per_run,threads\n";
  const double run_ms = run_ms_ > 0 ? run_ms_ : 1e-9;
  for (const NodeStats& n : Nodes()) {
    std::string name;  // CSV quoting: double the quotes, quote the field
    for (char c : n.name) name += c == '"' ? std::string("\"\"") : std::string(1, c);
    f << n.subgraph << "," << n.node << "," << TypeOf(n.name) << ",\"" << name << "\"," << n.count << ","
      << Fixed(n.total_ms, 6) << "," << Fixed(n.self_ms, 6) << "," << Fixed(n.count ? 1000.0 * n.self_ms / n.count : 0, 3)
      << "," << Fixed(100.0 * n.self_ms / run_ms, 3) << "," << n.ops << "," << n.threads << "\n";
  }
  f.close();
  if (!f) return Status::Errorf(path, ": write failed");
  return Status::Ok();
}

Status OpProfiler::WriteTrace(const std::string& path, const std::string& process_name) const {
  std::ofstream f(path);
  if (!f) return Status::Errorf(path, ": cannot write");
  // Chrome trace-event format: complete ("X") slices in microseconds, one per node execution
  // and one per Invoke; metadata ("M") names the process and threads.
  auto us = [](int64_t ns) { return Fixed(ns / 1000.0, 3); };
  f << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  f << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":" << Quoted(process_name) << "}}";
  const size_t num_threads = std::max<size_t>(1, threads_.size());
  for (size_t t = 0; t < num_threads; ++t) {
    const std::string name = t == 0 ? "main" : StrCat("worker ", t);
    const uint64_t os_tid = t < threads_.size() ? threads_[t] : 0;
    f << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" << t + 1 << ",\"args\":{\"name\":"
      << Quoted(StrCat(name, " (tid ", os_tid, ")")) << "}}";
  }
  for (size_t r = 0; r < run_spans_.size(); ++r) {
    f << ",\n{\"name\":\"Invoke\",\"cat\":\"run\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" << us(run_spans_[r].first)
      << ",\"dur\":" << us(run_spans_[r].second - run_spans_[r].first) << ",\"args\":{\"run\":" << r << "}}";
  }
  for (const Event& e : events_) {
    const auto it = nodes_.find({e.subgraph, e.node});
    const std::string name = it == nodes_.end() ? std::string("?") : it->second.name;
    f << ",\n{\"name\":" << Quoted(name) << ",\"cat\":\"node\",\"ph\":\"X\",\"pid\":1,\"tid\":" << e.thread + 1
      << ",\"ts\":" << us(e.begin_ns) << ",\"dur\":" << us(e.end_ns - e.begin_ns) << ",\"args\":{\"subgraph\":"
      << e.subgraph << ",\"node\":" << e.node << ",\"run\":" << e.run << ",\"depth\":" << e.depth << "}}";
  }
  f << "\n]}\n";
  f.close();
  if (!f) return Status::Errorf(path, ": write failed");
  return Status::Ok();
}

}  // namespace edgerun::tools
