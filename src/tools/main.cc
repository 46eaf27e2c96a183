// edgerun: inspect and run TensorFlow Lite models.
#include <iostream>

#include "tools/cli.h"

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
