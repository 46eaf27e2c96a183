// The `edgerun` command line: shared pieces of the subcommands.
#pragma once

#include <string>
#include <vector>

#include "edgerun/interpreter.h"
#include "edgerun/tensor.h"

namespace edgerun::tools {

// Exit codes of every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;  // the model or an input is bad, or running failed
constexpr int kExitUsage = 2;  // the command line is wrong

int RunInspect(const std::vector<std::string>& args);
int RunRun(const std::vector<std::string>& args);
int RunOps(const std::vector<std::string>& args);
int RunSynth(const std::vector<std::string>& args);
int RunBench(const std::vector<std::string>& args);

// Prints "edgerun: <message>" to stderr and returns kExitError.
int Fail(const std::string& message);
// Prints "edgerun <command>: <message>" and the usage to stderr and returns kExitUsage.
int UsageError(const std::string& command, const std::string& message, const char* usage);

// "scale=0.0235 zero_point=-128" or "per-channel axis 0, 32 scales"; empty when unquantized.
std::string QuantizationText(const QuantizationParams& q);

// Parses "1,224,224,3" into a shape; false on anything else.
bool ParseShape(const std::string& text, Shape* shape);
// Parses a non-negative integer argument.
bool ParseInt(const std::string& text, long long* value);
// Parses "4096", "512K", "64M", "2G" (powers of 1024); false on anything else or zero.
bool ParseByteSize(const std::string& text, size_t* bytes);

// Resource limits of `run` and `inspect`: a hostile file gets an error, not all the memory or
// time of the machine. The defaults are tighter than the library's (see docs/robustness.md).
extern const char kLimitUsage[];
InterpreterOptions DefaultCliOptions();
// When args[*i] is a limit flag, consumes it and its value (advancing *i) and returns 1; returns 0
// for any other argument and -1 (with *error set) for a bad value.
int ParseLimitFlag(const std::vector<std::string>& args, size_t* i, InterpreterOptions* options,
                   double* timeout_seconds, std::string* error);
// After `seconds` (when > 0), prints "<what>: stopped after N s" and exits with kExitError.
void StartWatchdog(double seconds, const std::string& what);

// --delegate NAME: "xnnpack" or "none". False for anything else.
bool ParseDelegateName(const std::string& text, bool* use_xnnpack);

}  // namespace edgerun::tools
