// Without XNNPACK (libxnnpack-dev missing at configure time) the delegate does not exist.
#include "delegates/xnnpack/xnnpack_allocator.h"
#include "delegates/xnnpack_default.h"
#include "edgerun/interpreter.h"

#if !EDGERUN_HAVE_XNNPACK
namespace edgerun {

bool XnnpackAvailable() { return false; }

std::shared_ptr<Delegate> CreateXnnpackDelegate(int, int) { return nullptr; }
std::shared_ptr<Delegate> CreateDefaultXnnpackDelegate(int) { return nullptr; }

namespace xnnpack {
bool PrefaultingEnabled() { return false; }
size_t MappedBlockCount() { return 0; }
}  // namespace xnnpack

}  // namespace edgerun
#endif
