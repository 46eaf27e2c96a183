// Without XNNPACK (libxnnpack-dev missing at configure time) the delegate does not exist.
#include "edgerun/interpreter.h"

#if !EDGERUN_HAVE_XNNPACK
namespace edgerun {

bool XnnpackAvailable() { return false; }

std::shared_ptr<Delegate> CreateXnnpackDelegate(int, int) { return nullptr; }

}  // namespace edgerun
#endif
