// The XNNPACK delegate that InterpreterOptions::use_xnnpack adds to every interpreter.
#pragma once

#include <memory>

#include "edgerun/delegate.h"

namespace edgerun {

// As CreateXnnpackDelegate(0, min_partition_nodes), but XNNPACK itself is initialized (about
// 0.4 ms, once per process) only when a node is about to be delegated: a model that runs
// entirely on the builtin kernels never pays for it. Null in builds without XNNPACK.
std::shared_ptr<Delegate> CreateDefaultXnnpackDelegate(int min_partition_nodes);

}  // namespace edgerun
