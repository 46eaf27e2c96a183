// edgerun: inspect and run TensorFlow Lite models.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "tools/cli.h"

namespace edgerun::tools {

int Fail(const std::string& message) {
  std::cerr << "edgerun: " << message << "\n";
  return kExitError;
}

int UsageError(const std::string& command, const std::string& message, const char* usage) {
  std::cerr << "edgerun " << command << ": " << message << "\n" << usage;
  return kExitUsage;
}

std::string QuantizationText(const QuantizationParams& q) {
  if (q.empty()) return "";
  std::ostringstream s;
  if (q.per_channel()) {
    s << "per-channel axis " << q.quantized_dimension << ", " << q.scale.size() << " scales";
  } else {
    s << "scale=" << q.scale[0] << " zero_point=" << (q.zero_point.empty() ? 0 : q.zero_point[0]);
  }
  return s.str();
}

bool ParseShape(const std::string& text, Shape* shape) {
  shape->clear();
  if (text.empty()) return true;  // a scalar
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    long long v;
    if (!ParseInt(part, &v) || v > 0x7fffffff) return false;
    shape->push_back(static_cast<int32_t>(v));
  }
  return true;
}

bool ParseInt(const std::string& text, long long* value) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  *value = std::stoll(text);
  return true;
}

bool ParseDelegateName(const std::string& text, bool* use_xnnpack) {
  if (text == "xnnpack" || text == "XNNPACK") *use_xnnpack = true;
  else if (text == "none") *use_xnnpack = false;
  else return false;
  return true;
}

}  // namespace edgerun::tools

namespace {

const char kUsage[] =
    "usage: edgerun COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  inspect MODEL [--json]           what a model holds: tensors, ops, signatures, memory\n"
    "          [--delegate xnnpack]     ... and which ops a delegate runs (and why not the others)\n"
    "  run MODEL [--input FILE]...      run a model on .bin/.npy inputs (random if none)\n"
    "  ops [--markdown]                 the builtin ops and versions edgerun supports\n"
    "  bench MODEL [--profile]          latency, memory and an op profile (--json, --trace)\n"
    "  synth NAME -o FILE [--int8]      write a synthetic network (random weights)\n"
    "  version                          print the version\n"
    "\n"
    "Run 'edgerun COMMAND --help' for the options of a command.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace edgerun::tools;
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "inspect") return RunInspect(args);
  if (command == "run") return RunRun(args);
  if (command == "ops") return RunOps(args);
  if (command == "synth") return RunSynth(args);
  if (command == "bench") return RunBench(args);
  if (command == "version" || command == "--version") {
    std::cout << "edgerun 0.1.0 (TFLite schema v3)\n";
    return kExitOk;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  std::cerr << "edgerun: unknown command '" << command << "'\n" << kUsage;
  return kExitUsage;
}
