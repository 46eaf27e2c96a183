// The `edgerun` command line: shared pieces of the subcommands.
#pragma once

#include <string>
#include <vector>

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

// --delegate NAME: "xnnpack" or "none". False for anything else.
bool ParseDelegateName(const std::string& text, bool* use_xnnpack);

}  // namespace edgerun::tools
