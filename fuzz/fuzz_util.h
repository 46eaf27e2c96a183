// Shared by the fuzz targets (see docs/robustness.md): resource limits small enough that every
// input runs in milliseconds, seeded input filling, and running the command line in-process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgerun/interpreter.h"

namespace edgerun::fuzz {

// Limits for fuzzing: a few MB per tensor, a small arena, short loops. Anything larger is an
// error, which is a valid outcome for a fuzz input.
InterpreterOptions FuzzOptions();

// 64-bit FNV-1a of the bytes (seeds the inputs, so a crash reproduces from the file alone).
uint64_t Hash(const uint8_t* data, size_t size);

// Fills every input of the subgraph: raw random bits, small integers, or zeros, chosen per
// tensor from `seed`; string inputs get a few short strings.
void FillInputs(Subgraph& subgraph, uint64_t seed);

// Allocates and invokes `subgraph` twice with inputs from `seed` (state carried over, as in a
// stream); errors are fine, crashes and leaks are not.
void AllocateAndInvoke(Subgraph& subgraph, uint64_t seed);

// Writes `bytes` to an in-memory file and returns a path that Model::FromFile can open
// ("/proc/self/fd/N"); the same file is reused by every call.
std::string MemoryFile(const uint8_t* data, size_t size);

// Runs `edgerun <args>` in-process with stdout and stderr discarded; returns the exit code.
int RunCli(const std::vector<std::string>& args);

}  // namespace edgerun::fuzz
