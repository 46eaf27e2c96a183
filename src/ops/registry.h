// All builtin op registrations (src/ops/builtin_ops.inc), for the resolver and for tools that
// list what edgerun supports (docs/ops.md is generated from this).
#pragma once

#include <vector>

#include "edgerun/op.h"

namespace edgerun::ops {

const std::vector<OpRegistration>& BuiltinRegistrations();
const std::vector<OpRegistration>& CustomRegistrations();

}  // namespace edgerun::ops
