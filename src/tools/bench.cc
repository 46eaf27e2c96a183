// edgerun bench MODEL: latency, memory and an op profile, like TFLite's benchmark_model.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/subgraph.h"
#include "core/thread_pool.h"
#include "edgerun/interpreter.h"
#include "tools/cli.h"
#include "tools/model_inputs.h"
#include "tools/profile.h"
#include "tools/tensor_io.h"

namespace edgerun::tools {
namespace {

constexpr long long kMaxTimedRunsForMinSecs = 100000;

const char kBenchUsage[] =
    "usage: edgerun bench MODEL [options]\n"
    "  Times model load, init (create + allocate), the first inference, warm-up runs and the\n"
    "  steady state (min/median/mean/p90/p99/std), and reports peak RSS, arena and weight bytes.\n"
    "  --threads N         threads for the kernels (default 1)\n"
    "  --runs N            timed runs, at least (default 50)\n"
    "  --min-secs S        keep running until the timed runs last S seconds (default 1), but\n"
    "                      past --runs for at most 100000 runs\n"
    "  --max-secs S        stop the timed runs after S seconds, when --runs are done (default 150)\n"
    "  --warmup N          untimed runs after the first inference (default 5)\n"
    "  --delegate NAME     none | xnnpack | xnnpack-all (default: xnnpack when this build has it;\n"
    "                      xnnpack-all also hands XNNPACK the large float32 convolutions\n"
    "                      that edgerun's own GEMM runs faster on AVX2 / AVX-512, and the 8-bit ones\n"
    "                      its VNNI GEMM runs faster)\n"
    "  --builtin-gemm-min-macs N  the size from which float32 convolutions and fully connected\n"
    "                      layers stay on edgerun's GEMM (default 4000000; 0: XNNPACK takes\n"
    "                      them all)\n"
    "  --builtin-int8-gemm-min-macs N  the same for 8-bit convolutions (default 1: all)\n"
    "  --no-xnnpack        same as --delegate none\n"
    "  --no-winograd       float32 3x3 convolutions by the direct sum, not Winograd F(2x2, 3x3)\n"
    "                      (InterpreterOptions::float_winograd off)\n"
    "  --no-fuse           run every convolution as its own node (InterpreterOptions::fuse_row_chains\n"
    "                      off), to compare with the fused chains\n"
    "  --fuse-all          fuse every chain that can run by bands, also where the cost rules say\n"
    "                      unfused is faster (InterpreterOptions::fuse_all_row_chains)\n"
    "  --no-regions        hand each parallel node to the pool on its own, not in parallel regions\n"
    "                      (InterpreterOptions::parallel_regions off), to compare\n"
    "  --input FILE        input K, as in 'edgerun run' (.bin/.npy/text); others are seeded random\n"
    "  --resize NAME:SHAPE resize an input (name or position), e.g. input:1,3,224,224\n"
    "  --signature KEY     run this signature instead of subgraph 0\n"
    "  --seed N            seed of the random inputs (default 1)\n"
    "  --profile           time per op type and per node (self time, sorted)\n"
    "  --profile-top N     nodes in the --profile table (default 30, 0 for all)\n"
    "  --trace FILE.json   Chrome trace-event file (Perfetto UI, chrome://tracing): a slice per\n"
    "                      node per timed run\n"
    "  --csv FILE          per-node profile as CSV\n"
    "  --no-progress       never print the progress line (stderr)\n"
    "  --json              print one JSON object\n";

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, Shape>> resizes;
  std::string signature;
  std::string delegate = "default";
  std::string trace, csv;
  long long threads = 1, runs = 50, warmup = 5, seed = 1, profile_top = 30;
  long long builtin_gemm_min_macs = -1;  // -1: the interpreter's default
  long long builtin_int8_gemm_min_macs = -1;
  bool fuse = true;
  bool regions = true;
  bool winograd = true;
  bool fuse_all = false;
  double min_secs = 1.0, max_secs = 150.0;
  bool profile = false, json = false, progress = true;
};

bool ParseSeconds(const std::string& text, double* value) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= 0) || v > 1e6) return false;
  *value = v;
  return true;
}

// Returns kExitOk, -1 after --help, or the exit code of a usage error.
int ParseOptions(const std::vector<std::string>& args, Options* o) {
  auto usage = [](const std::string& message) { return UsageError("bench", message, kBenchUsage); };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    auto value = [&] {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    auto count = [&](long long* out, long long lo, long long hi) {
      return value() && ParseInt(v, out) && *out >= lo && *out <= hi;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kBenchUsage;
      return -1;
    } else if (a == "--threads") {
      if (!count(&o->threads, 1, 256)) return usage("--threads needs a number from 1 to 256");
    } else if (a == "--runs") {
      if (!count(&o->runs, 1, 100000000)) return usage("--runs needs a number of at least 1");
    } else if (a == "--warmup") {
      if (!count(&o->warmup, 0, 100000000)) return usage("--warmup needs a number");
    } else if (a == "--seed") {
      if (!count(&o->seed, 0, 1LL << 60)) return usage("--seed needs a number");
    } else if (a == "--profile-top") {
      if (!count(&o->profile_top, 0, 1000000)) return usage("--profile-top needs a number");
      o->profile = true;
    } else if (a == "--min-secs") {
      if (!value() || !ParseSeconds(v, &o->min_secs)) return usage("--min-secs needs a number of seconds");
    } else if (a == "--max-secs") {
      if (!value() || !ParseSeconds(v, &o->max_secs)) return usage("--max-secs needs a number of seconds");
    } else if (a == "--builtin-int8-gemm-min-macs") {
      if (!count(&o->builtin_int8_gemm_min_macs, 0, 1LL << 60)) {
        return usage("--builtin-int8-gemm-min-macs needs a number");
      }
    } else if (a == "--builtin-gemm-min-macs") {
      if (!count(&o->builtin_gemm_min_macs, 0, 1LL << 60)) return usage("--builtin-gemm-min-macs needs a number");
    } else if (a == "--no-xnnpack") {
      o->delegate = "none";
    } else if (a == "--no-fuse") {
      o->fuse = false;
    } else if (a == "--no-regions") {
      o->regions = false;
    } else if (a == "--no-winograd") {
      o->winograd = false;
    } else if (a == "--fuse-all") {
      o->fuse_all = true;
    } else if (a == "--delegate") {
      if (!value() || (v != "none" && v != "xnnpack" && v != "xnnpack-all" && v != "default")) {
        return usage("--delegate needs 'none', 'xnnpack' or 'xnnpack-all'");
      }
      o->delegate = v;
    } else if (a == "--input" || a == "-i") {
      if (!value()) return usage("--input needs a file");
      o->inputs.push_back(v);
    } else if (a == "--resize") {
      const size_t colon = value() ? v.rfind(':') : std::string::npos;
      Shape shape;
      if (colon == std::string::npos || !ParseShape(v.substr(colon + 1), &shape)) {
        return usage("bad --resize '" + v + "' (expected NAME:D0,D1,...)");
      }
      o->resizes.emplace_back(v.substr(0, colon), shape);
    } else if (a == "--signature") {
      if (!value()) return usage("--signature needs a key");
      o->signature = v;
    } else if (a == "--trace") {
      if (!value()) return usage("--trace needs a file");
      o->trace = v;
    } else if (a == "--csv") {
      if (!value()) return usage("--csv needs a file");
      o->csv = v;
    } else if (a == "--profile") {
      o->profile = true;
    } else if (a == "--no-progress") {
      o->progress = false;
    } else if (a == "--json") {
      o->json = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option " + a);
    } else if (o->model.empty()) {
      o->model = a;
    } else {
      return usage("unexpected argument '" + a + "'");
    }
  }
  if (o->model.empty()) return usage("no model given");
  return kExitOk;
}

// The interpreter option behind --delegate: "default" is the interpreter's default (XNNPACK when
// this build has it), "xnnpack" insists on it, "xnnpack-all" also gives XNNPACK the convolutions
// that edgerun's GEMM runs faster (InterpreterOptions::builtin_float_gemm_min_macs and
// builtin_int8_gemm_min_macs),
// "none" runs the builtin kernels only.
// The default does not call XnnpackAvailable (which initializes XNNPACK): the interpreter then
// initializes it only if it delegates something, and init_ms counts that as in any program.
Status ApplyDelegate(const std::string& name, InterpreterOptions* options, std::string* effective) {
  if ((name == "xnnpack" || name == "xnnpack-all") && !XnnpackAvailable()) {
    return Status::Unsupported("--delegate " + name + ": this edgerun was built without XNNPACK (libxnnpack-dev)");
  }
  options->use_xnnpack = name != "none";
  if (name == "xnnpack-all") {
    options->builtin_float_gemm_min_macs = 0;
    options->builtin_int8_gemm_min_macs = 0;
  }
  *effective = !options->use_xnnpack ? "none" : name == "xnnpack-all" ? "xnnpack-all" : "xnnpack";
  return Status::Ok();
}

// Bytes of the largest resident set so far: VmHWM from /proc, else getrusage.
size_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return static_cast<size_t>(std::strtoull(line.c_str() + 6, nullptr, 10)) * 1024;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<size_t>(usage.ru_maxrss) * 1024;
}

struct Latency {
  double min = 0, max = 0, median = 0, mean = 0, p90 = 0, p99 = 0, std = 0;
};

// Percentiles interpolate linearly between the sorted samples (numpy's default).
Latency Summarize(std::vector<double> ms) {
  Latency l;
  if (ms.empty()) return l;
  std::sort(ms.begin(), ms.end());
  auto percentile = [&](double p) {
    const double pos = p / 100.0 * static_cast<double>(ms.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, ms.size() - 1);
    return ms[lo] + (ms[hi] - ms[lo]) * (pos - static_cast<double>(lo));
  };
  l.min = ms.front();
  l.max = ms.back();
  l.median = percentile(50);
  l.p90 = percentile(90);
  l.p99 = percentile(99);
  double sum = 0;
  for (double v : ms) sum += v;
  l.mean = sum / static_cast<double>(ms.size());
  double sq = 0;
  for (double v : ms) sq += (v - l.mean) * (v - l.mean);
  l.std = std::sqrt(sq / static_cast<double>(ms.size()));
  return l;
}

// A one-line progress report on stderr: rewritten in place on a terminal (after half a
// second), a plain line every 5 s otherwise (only once the benchmark has run for 2 s).
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  ~Progress() { Clear(); }
  void Update(const char* phase, long long done, long long planned, double last_ms) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const double elapsed = Ms(start_, now) / 1000.0;
    if (elapsed < (tty_ ? 0.5 : 2.0) || Ms(last_, now) < (tty_ ? 200.0 : 5000.0)) return;
    last_ = now;
    char line[160];
    std::snprintf(line, sizeof(line), "bench: %s %lld/%lld runs, last %.3f ms, %.1f s elapsed", phase, done, planned,
                  last_ms, elapsed);
    if (tty_) {
      std::fprintf(stderr, "\r%-78s", line);
      shown_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line);
    }
    std::fflush(stderr);
  }
  void Clear() {
    if (shown_) std::fprintf(stderr, "\r%78s\r", "");
    shown_ = false;
  }

 private:
  bool enabled_, tty_, shown_ = false;
  Clock::time_point start_, last_{};
};

std::string Bytes(size_t n) {
  char buf[32];
  if (n >= (1u << 20)) std::snprintf(buf, sizeof(buf), "%.2f MiB", n / 1048576.0);
  else if (n >= 1024) std::snprintf(buf, sizeof(buf), "%.1f KiB", n / 1024.0);
  else std::snprintf(buf, sizeof(buf), "%zu B", n);
  return buf;
}

json ProfileJson(const OpProfiler& p) {
  json types = json::array(), nodes = json::array();
  const double run_ms = p.run_ms() > 0 ? p.run_ms() : 1e-9;
  for (const auto& t : p.Types()) {
    types.push_back({{"type", t.type}, {"nodes", t.nodes}, {"count", t.count}, {"total_ms", t.self_ms},
                     {"percent", 100.0 * t.self_ms / run_ms}, {"mean_us", t.count ? 1000.0 * t.self_ms / t.count : 0.0},
                     {"ops", t.ops}});
  }
  for (const auto& n : p.Nodes()) {
    nodes.push_back({{"subgraph", n.subgraph}, {"node", n.node}, {"name", n.name}, {"type", OpProfiler::TypeOf(n.name)},
                     {"count", n.count}, {"total_ms", n.self_ms}, {"inclusive_ms", n.total_ms},
                     {"percent", 100.0 * n.self_ms / run_ms}, {"mean_us", n.count ? 1000.0 * n.self_ms / n.count : 0.0},
                     {"ops_per_run", n.ops}, {"threads", n.threads}});
  }
  return {{"runs", p.runs()}, {"op_types", types}, {"nodes", nodes}};
}

}  // namespace

int RunBench(const std::vector<std::string>& args) {
  Options o;
  if (int rc = ParseOptions(args, &o); rc != kExitOk) return rc < 0 ? kExitOk : rc;

  InterpreterOptions options;
  options.num_threads = static_cast<int>(o.threads);
  std::string delegate;
  if (o.builtin_gemm_min_macs >= 0) options.builtin_float_gemm_min_macs = o.builtin_gemm_min_macs;
  if (o.builtin_int8_gemm_min_macs >= 0) options.builtin_int8_gemm_min_macs = o.builtin_int8_gemm_min_macs;
  options.fuse_row_chains = o.fuse;
  options.parallel_regions = o.regions;
  options.float_winograd = o.winograd;
  options.fuse_all_row_chains = o.fuse_all;
  if (Status st = ApplyDelegate(o.delegate, &options, &delegate); !st.ok()) return Fail(st.message());

  // The input files are the run's data, not the model's: read before the clock starts.
  std::vector<TensorFile> files;
  if (Status st = ReadInputFiles(o.inputs, &files); !st.ok()) return Fail(st.message());
  const auto t_load = Clock::now();
  auto model = Model::FromFile(o.model);
  if (!model.ok()) return Fail(model.status().message());
  const auto t_create = Clock::now();
  auto created = Interpreter::Create(*model, options);
  if (!created.ok()) return Fail(created.status().message());
  Interpreter& interpreter = **created;
  if (interpreter.delegates().empty()) delegate = "none";  // the default, in a build without XNNPACK
  int subgraph_index = 0;
  if (!o.signature.empty()) {
    SignatureRunner* runner = interpreter.GetSignatureRunner(o.signature);
    if (runner == nullptr) return Fail(StrCat(o.model, ": no signature '", o.signature, "'"));
    subgraph_index = runner->subgraph_index();
  }
  Subgraph& sg = *interpreter.subgraph(subgraph_index);
  if (Status st = ResizeInputs(o.model, o.resizes, o.inputs, files, sg); !st.ok()) return Fail(st.message());
  if (Status st = sg.AllocateTensors(); !st.ok()) return Fail(st.message());
  const auto t_ready = Clock::now();
  // After init, as TFLite's benchmark_model fills its inputs after "Initialized session".
  if (Status st = FillInputs(o.model, o.inputs, files, static_cast<uint64_t>(o.seed), sg); !st.ok()) {
    return Fail(st.message());
  }

  Progress progress(o.progress);
  if (Status st = sg.Invoke(); !st.ok()) return Fail(st.message());
  const auto t_first = Clock::now();

  std::vector<double> warmup_ms;
  for (long long i = 0; i < o.warmup; ++i) {
    const auto a = Clock::now();
    if (Status st = sg.Invoke(); !st.ok()) return Fail(st.message());
    warmup_ms.push_back(Ms(a, Clock::now()));
    progress.Update("warm-up", i + 1, o.warmup, warmup_ms.back());
  }

  const bool profiling = o.profile || !o.trace.empty() || !o.csv.empty();
  std::unique_ptr<OpProfiler> profiler;
  if (profiling) {
    profiler = std::make_unique<OpProfiler>(&interpreter, !o.trace.empty());
    interpreter.SetProfiler(profiler.get());
  }
  std::vector<double> run_ms;
  // --min-secs on a model of microseconds would make millions of runs, and their samples (and
  // profile events) would become the largest thing in memory, showing up in peak RSS; 100000
  // runs give the percentiles plenty of samples.
  const long long max_runs = std::max<long long>(o.runs, kMaxTimedRunsForMinSecs);
  const auto t_steady = Clock::now();
  for (long long i = 0;; ++i) {
    const double elapsed = Ms(t_steady, Clock::now()) / 1000.0;
    if (i >= o.runs && (elapsed >= std::min(o.min_secs, o.max_secs) || i >= max_runs)) break;
    if (profiler) profiler->BeginRun(static_cast<int>(i));
    const auto a = Clock::now();
    const Status st = sg.Invoke();
    const auto b = Clock::now();
    if (profiler) profiler->EndRun();
    if (!st.ok()) return Fail(st.message());
    run_ms.push_back(Ms(a, b));
    progress.Update("timed", i + 1, o.runs, run_ms.back());
  }
  const double steady_secs = Ms(t_steady, Clock::now()) / 1000.0;
  interpreter.SetProfiler(nullptr);
  progress.Clear();

  const Latency lat = Summarize(run_ms);
  double warmup_mean = 0;
  for (double v : warmup_ms) warmup_mean += v / static_cast<double>(warmup_ms.size());
  const int64_t ops = ModelOps(interpreter, subgraph_index);
  const double gops = lat.median > 0 ? static_cast<double>(ops) / (lat.median * 1e6) : 0;
  const size_t peak_rss = PeakRssBytes();
  const int started_threads = interpreter.thread_pool() ? interpreter.thread_pool()->num_threads() : 1;

  if (profiler && !o.trace.empty()) {
    if (Status st = profiler->WriteTrace(o.trace, "edgerun bench " + o.model); !st.ok()) return Fail(st.message());
  }
  if (profiler && !o.csv.empty()) {
    if (Status st = profiler->WriteCsv(o.csv); !st.ok()) return Fail(st.message());
  }

  if (o.json) {
    json report = {
        {"model", o.model},
        {"model_bytes", (*model)->size()},
        {"threads", started_threads},  // those started: at most the CPUs (ThreadsToStart)
        {"threads_requested", o.threads},
        {"delegate", delegate},
        {"load_ms", Ms(t_load, t_create)},
        {"init_ms", Ms(t_create, t_ready)},
        {"first_inference_ms", Ms(t_ready, t_first)},
        {"warmup", {{"runs", warmup_ms.size()}, {"mean_ms", warmup_mean}}},
        {"runs", run_ms.size()},
        {"steady_secs", steady_secs},
        {"latency_ms",
         {{"min", lat.min}, {"median", lat.median}, {"mean", lat.mean}, {"p90", lat.p90}, {"p99", lat.p99},
          {"std", lat.std}, {"max", lat.max}}},
        {"ops_per_run", ops},
        {"gops_per_s", gops},
        {"peak_rss_bytes", peak_rss},
        {"arena_bytes", interpreter.arena_bytes()},
        {"persistent_bytes", interpreter.persistent_bytes()},
        {"weight_bytes", (*model)->weight_bytes()},
    };
    if (!o.signature.empty()) report["signature"] = o.signature;
    if (o.profile) report["profile"] = ProfileJson(*profiler);
    if (!o.trace.empty()) report["trace"] = o.trace;
    if (!o.csv.empty()) report["csv"] = o.csv;
    std::cout << report.dump(1) << "\n";
    return kExitOk;
  }

  std::cout << std::fixed << std::setprecision(3);
  std::cout << "model:    " << o.model << " (" << Bytes((*model)->size()) << ", weights "
            << Bytes((*model)->weight_bytes()) << ")";
  if (!o.signature.empty()) std::cout << " signature '" << o.signature << "'";
  std::cout << "\nthreads:  " << started_threads;
  if (started_threads != o.threads) std::cout << " (" << o.threads << " asked; the process may run on " << UsableCpus() << " CPUs)";
  std::cout << ", delegate: " << delegate << "\n";
  std::cout << "load:     " << Ms(t_load, t_create) << " ms\n";
  std::cout << "init:     " << Ms(t_create, t_ready) << " ms (create + allocate)\n";
  std::cout << "first:    " << Ms(t_ready, t_first) << " ms\n";
  std::cout << "warm-up:  " << warmup_ms.size() << " runs, mean " << warmup_mean << " ms\n";
  std::cout << "steady:   " << run_ms.size() << " runs in " << std::setprecision(2) << steady_secs << " s"
            << std::setprecision(3) << ": min " << lat.min << ", median " << lat.median << ", mean " << lat.mean
            << ", p90 " << lat.p90 << ", p99 " << lat.p99 << ", std " << lat.std << " ms\n";
  if (ops > 0) {
    const bool small = ops < 10000000;
    std::cout << "compute:  " << std::setprecision(3) << (small ? ops / 1e6 : ops / 1e9) << (small ? " MOP" : " GOP")
              << " per run (2 x MACs), " << std::setprecision(2) << gops << " GOP/s at the median\n";
  }
  std::cout << "memory:   peak RSS " << Bytes(peak_rss) << ", arena " << Bytes(interpreter.arena_bytes())
            << ", persistent " << Bytes(interpreter.persistent_bytes()) << ", weights "
            << Bytes((*model)->weight_bytes()) << "\n";
  if (o.profile) profiler->PrintSummary(std::cout, static_cast<size_t>(o.profile_top));
  if (!o.trace.empty()) std::cout << "trace:    " << o.trace << " (open in ui.perfetto.dev or chrome://tracing)\n";
  if (!o.csv.empty()) std::cout << "csv:      " << o.csv << "\n";
  return kExitOk;
}

}  // namespace edgerun::tools
