// All builtin op registrations (src/ops/builtin_ops.inc), for the resolver and for tools that
// list what edgerun supports (docs/ops.md is generated from this).
#pragma once

#include <cstdint>
#include <vector>

#include "edgerun/op.h"

namespace edgerun::ops {

// One line of builtin_ops.inc: the op's builtin code and the function that builds its registration.
struct BuiltinEntry {
  int32_t code;
  OpRegistration (*make)();
};
const std::vector<BuiltinEntry>& BuiltinTable();

// The registration of builtin op `code`, or null when edgerun has none. Built on first use and kept
// for the life of the process; safe to call from many threads.
//
// Why lazily: the first interpreter of a process used to build all ~170 registrations, and each
// Register function sits in its own cold code page; that was about 2 ms of every process's first
// Interpreter::Create, for a model that uses a handful of op types.
const OpRegistration* BuiltinRegistration(int32_t code);

// Every builtin registration (builds them all: for tools and docs, not for the interpreter).
const std::vector<OpRegistration>& BuiltinRegistrations();
const std::vector<OpRegistration>& CustomRegistrations();

}  // namespace edgerun::ops
