// edgerun run MODEL [--input FILE]... [--output-dir DIR] [--signature KEY] [--top-k K] [--json]
//   [--max-tensor-bytes N] [--max-memory N] [--max-while-iterations N] [--timeout S]
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "tools/cli.h"
#include "tools/model_inputs.h"
#include "tools/tensor_io.h"

namespace edgerun::tools {
namespace {

const char kRunUsage[] =
    "usage: edgerun run MODEL [options]\n"
    "  --input FILE        input K (in the order of the subgraph's inputs); raw little-endian .bin of\n"
    "                      the exact byte size, .npy, or a text file (one string per line) for string\n"
    "                      inputs. Repeat for each input. Inputs not given are seeded random.\n"
    "  --resize NAME:SHAPE resize input NAME (or its position) to SHAPE, e.g. input:1,3,224,224\n"
    "  --signature KEY     run this signature instead of subgraph 0\n"
    "  --output-dir DIR    write output_K.bin for every output K (raw bytes)\n"
    "  --npy               write output_K.npy instead of .bin\n"
    "  --top-k K           show the K largest values of each output (default 5)\n"
    "  --seed N            seed of the random inputs (default 1)\n"
    "  --threads N         threads for the kernels (default 1)\n"
    "  --delegate NAME     xnnpack (default: XNNPACK runs the ops it supports) or none\n"
    "  --no-xnnpack        same as --delegate none: builtin kernels only\n"
    "  --no-winograd       float32 3x3 convolutions by the direct sum, not Winograd F(2x2, 3x3)\n"
    "                      (InterpreterOptions::float_winograd off)\n"
    "  --no-fuse           run every convolution as its own node (no fused chains)\n"
    "  --json              print the summary as JSON\n"
    "resource limits (exceeding one is an error):\n";

// The usage with the resource-limit flags that run and inspect share.
const char* RunUsage() {
  static const std::string usage = std::string(kRunUsage) + kLimitUsage;
  return usage.c_str();
}

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

Status MakeDirs(const std::string& dir) {
  std::string partial;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!partial.empty() && mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
        return Status::Errorf(partial, ": cannot create directory: ", std::strerror(errno));
      }
    }
    if (i < dir.size()) partial += dir[i];
  }
  return Status::Ok();
}

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, Shape>> resizes;
  std::string signature;
  std::string output_dir;
  bool npy = false;
  bool json = false;
  long long top_k = 5;
  long long seed = 1;
  long long threads = 1;
  bool use_xnnpack = true;
  bool fuse = true;
  bool winograd = true;
  bool delegate_given = false;
  InterpreterOptions interpreter = DefaultCliOptions();
  double timeout_seconds = 0;
};

// Returns kExitOk, or the exit code of a usage error.
int ParseOptions(const std::vector<std::string>& args, Options* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (const int limit = ParseLimitFlag(args, &i, &o->interpreter, &o->timeout_seconds, &v); limit != 0) {
      if (limit < 0) return UsageError("run", v, RunUsage());
    } else if (a == "--help" || a == "-h") {
      std::cout << RunUsage();
      return -1;
    } else if (a == "--input" || a == "-i") {
      if (!value(&v)) return UsageError("run", "--input needs a file", RunUsage());
      o->inputs.push_back(v);
    } else if (a == "--resize") {
      if (!value(&v)) return UsageError("run", "--resize needs NAME:SHAPE", RunUsage());
      const size_t colon = v.rfind(':');
      Shape shape;
      if (colon == std::string::npos || !ParseShape(v.substr(colon + 1), &shape)) {
        return UsageError("run", "bad --resize '" + v + "' (expected NAME:D0,D1,...)", RunUsage());
      }
      o->resizes.emplace_back(v.substr(0, colon), shape);
    } else if (a == "--signature") {
      if (!value(&o->signature)) return UsageError("run", "--signature needs a key", RunUsage());
    } else if (a == "--output-dir" || a == "-o") {
      if (!value(&o->output_dir)) return UsageError("run", "--output-dir needs a folder", RunUsage());
    } else if (a == "--top-k") {
      if (!value(&v) || !ParseInt(v, &o->top_k)) return UsageError("run", "--top-k needs a number", RunUsage());
    } else if (a == "--seed") {
      if (!value(&v) || !ParseInt(v, &o->seed)) return UsageError("run", "--seed needs a number", RunUsage());
    } else if (a == "--threads") {
      if (!value(&v) || !ParseInt(v, &o->threads) || o->threads < 1 || o->threads > 256) {
        return UsageError("run", "--threads needs a number from 1 to 256", RunUsage());
      }
    } else if (a == "--delegate") {
      if (!value(&v) || !ParseDelegateName(v, &o->use_xnnpack)) {
        return UsageError("run", "--delegate needs xnnpack or none", RunUsage());
      }
      o->delegate_given = true;
    } else if (a == "--no-xnnpack") {
      o->use_xnnpack = false;
    } else if (a == "--no-fuse") {
      o->fuse = false;
    } else if (a == "--no-winograd") {
      o->winograd = false;
    } else if (a == "--npy") {
      o->npy = true;
    } else if (a == "--json") {
      o->json = true;
    } else if (!a.empty() && a[0] == '-') {
      return UsageError("run", "unknown option " + a, RunUsage());
    } else if (o->model.empty()) {
      o->model = a;
    } else {
      return UsageError("run", "unexpected argument '" + a + "'", RunUsage());
    }
  }
  if (o->model.empty()) return UsageError("run", "no model given", RunUsage());
  return kExitOk;
}

std::string FormatValue(double v) {
  std::ostringstream s;
  s << std::setprecision(6) << v;
  return s.str();
}

}  // namespace

int RunRun(const std::vector<std::string>& args) {
  Options o;
  if (int rc = ParseOptions(args, &o); rc != kExitOk) return rc < 0 ? kExitOk : rc;

  StartWatchdog(o.timeout_seconds, o.model);
  const auto t0 = Clock::now();
  auto model = Model::FromFile(o.model);
  if (!model.ok()) return Fail(model.status().message());
  const auto t1 = Clock::now();
  InterpreterOptions options = o.interpreter;
  options.num_threads = static_cast<int>(o.threads);
  options.use_xnnpack = o.use_xnnpack;
  options.fuse_row_chains = o.fuse;
  options.float_winograd = o.winograd;
  if (o.use_xnnpack && o.delegate_given && !XnnpackAvailable()) {
    return Fail("--delegate xnnpack: this edgerun was built without XNNPACK (libxnnpack-dev)");
  }
  auto created = Interpreter::Create(*model, options);
  if (!created.ok()) return Fail(created.status().message());
  Interpreter& interpreter = **created;

  int subgraph_index = 0;
  if (!o.signature.empty()) {
    SignatureRunner* runner = interpreter.GetSignatureRunner(o.signature);
    if (runner == nullptr) {
      std::string keys;
      for (const auto& k : interpreter.signature_keys()) keys += (keys.empty() ? "" : ", ") + k;
      return Fail(StrCat(o.model, ": no signature '", o.signature, "' (the model has: ",
                         keys.empty() ? "none" : keys, ")"));
    }
    subgraph_index = runner->subgraph_index();
  }
  Subgraph& sg = *interpreter.subgraph(subgraph_index);
  // Shapes first (explicit --resize, then what the files imply), then allocate, then fill.
  std::vector<TensorFile> files;
  if (Status st = ReadInputFiles(o.inputs, &files); !st.ok()) return Fail(st.message());
  if (Status st = ResizeInputs(o.model, o.resizes, o.inputs, files, sg); !st.ok()) return Fail(st.message());
  if (Status st = sg.AllocateTensors(); !st.ok()) return Fail(st.message());
  const auto t2 = Clock::now();
  if (Status st = FillInputs(o.model, o.inputs, files, static_cast<uint64_t>(o.seed), sg); !st.ok()) {
    return Fail(st.message());
  }
  json input_info = json::array();
  for (size_t k = 0; k < sg.inputs().size(); ++k) {
    const Tensor* t = sg.tensor(sg.inputs()[k]);
    input_info.push_back({{"name", t->name},
                          {"dtype", TensorTypeName(t->type)},
                          {"shape", t->shape},
                          {"source", k < o.inputs.size() ? o.inputs[k] : "random"}});
  }

  const auto t3 = Clock::now();
  if (Status st = sg.Invoke(); !st.ok()) return Fail(st.message());
  const auto t4 = Clock::now();

  if (!o.output_dir.empty()) {
    if (Status st = MakeDirs(o.output_dir); !st.ok()) return Fail(st.message());
  }
  // What the delegate took: "XNNPACK: 60 of 64 ops in 2 partitions".
  std::string delegation = "none";
  if (!interpreter.delegates().empty()) {
    delegation = StrCat("none (", interpreter.delegates()[0]->name(),
                        " took no op; 'edgerun inspect --delegate xnnpack' says why)");
  }
  if (const DelegationReport* report = interpreter.delegation(subgraph_index); report && !report->partitions.empty()) {
    size_t delegated = 0;
    for (const auto& p : report->partitions) delegated += p.partition.nodes.size();
    delegation = StrCat(report->partitions[0].delegate, ": ", delegated, " of ", report->nodes.size(), " ops in ",
                        report->partitions.size(), report->partitions.size() == 1 ? " partition" : " partitions");
  }
  json outputs = json::array();
  for (size_t k = 0; k < sg.outputs().size(); ++k) {
    const Tensor& t = *sg.tensor(sg.outputs()[k]);
    if (!o.output_dir.empty()) {
      const std::string path = StrCat(o.output_dir, "/output_", k, o.npy ? ".npy" : ".bin");
      Status st = o.npy ? WriteNpy(path, t) : WriteFileBytes(path, t.data, t.bytes);
      if (!st.ok()) return Fail(st.message());
    }
    json j = {{"name", t.name}, {"dtype", TensorTypeName(t.type)}, {"shape", t.shape}};
    if (!t.quantization.empty() && !t.quantization.per_channel()) {
      j["quantization"] = {{"scale", t.scale()}, {"zero_point", t.zero_point()}};
    }
    const TensorSummary s = Summarize(t, static_cast<int>(std::min<long long>(o.top_k, 1 << 20)));
    if (s.count > 0) {
      j["min"] = s.min;
      j["max"] = s.max;
      j["mean"] = s.mean;
      json top = json::array();
      for (const auto& [index, value] : s.top) {
        json entry = {{"index", index}, {"value", value}};
        if (!t.quantization.empty() && !t.quantization.per_channel()) {
          entry["dequantized"] = t.scale() * (value - t.zero_point());
        }
        top.push_back(entry);
      }
      if (s.count > 1) j["top_k"] = top;
    } else if (t.type == TensorType::kString) {
      bool ok;
      j["strings"] = ReadStringTensor(t.data, t.bytes, &ok);
    }
    outputs.push_back(j);
  }

  if (o.json) {
    json report = {{"model", o.model},
                   {"subgraph", subgraph_index},
                   {"inputs", input_info},
                   {"outputs", outputs},
                   {"arena_bytes", interpreter.arena_bytes()},
                   {"delegate", delegation},
                   {"threads", o.threads},
                   {"timing_ms", {{"load", Ms(t0, t1)}, {"prepare", Ms(t1, t2)}, {"invoke", Ms(t3, t4)}}}};
    if (!o.signature.empty()) report["signature"] = o.signature;
    // Names in a file need not be UTF-8: replace bad bytes rather than throw.
    std::cout << report.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "model: " << o.model;
  if (!o.signature.empty()) std::cout << " (signature '" << o.signature << "')";
  std::cout << "\n";
  for (const json& in : input_info) {
    std::cout << "input  '" << in["name"].get<std::string>() << "' " << in["dtype"].get<std::string>()
              << ShapeToString(in["shape"].get<Shape>()) << " <- " << in["source"].get<std::string>() << "\n";
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const json& j = outputs[k];
    std::cout << "output " << k << " '" << j["name"].get<std::string>() << "' " << j["dtype"].get<std::string>()
              << ShapeToString(j["shape"].get<Shape>());
    if (j.contains("min")) {
      std::cout << "  min " << FormatValue(j["min"]) << " max " << FormatValue(j["max"]) << " mean "
                << FormatValue(j["mean"]);
    }
    std::cout << "\n";
    if (j.contains("strings")) {
      const auto& strings = j["strings"];
      const size_t shown = std::min<size_t>(strings.size(), 20);
      std::cout << "  strings:";
      for (size_t i = 0; i < shown; ++i) {
        std::cout << (i ? ", " : " ") << json(strings[i]).dump(-1, ' ', false, json::error_handler_t::replace);
      }
      if (shown < strings.size()) std::cout << ", ... (" << strings.size() << " in all)";
      std::cout << "\n";
    }
    if (j.contains("top_k")) {
      std::cout << "  top-" << j["top_k"].size() << ":";
      for (const json& e : j["top_k"]) {
        std::cout << " [" << e["index"] << "] " << FormatValue(e["value"]);
        if (e.contains("dequantized")) std::cout << " (" << FormatValue(e["dequantized"]) << ")";
      }
      std::cout << "\n";
    }
  }
  std::cout << std::fixed << std::setprecision(2) << "time: load " << Ms(t0, t1) << " ms, prepare " << Ms(t1, t2)
            << " ms, invoke " << Ms(t3, t4) << " ms; arena " << interpreter.arena_bytes() << " bytes\n";
  std::cout << "delegate: " << delegation << "\n";
  if (!o.output_dir.empty()) std::cout << "outputs written to " << o.output_dir << "/\n";
  return kExitOk;
}

}  // namespace edgerun::tools
