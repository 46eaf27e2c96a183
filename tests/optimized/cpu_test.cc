// Run-time dispatch: the kernel table of a level this CPU lacks is the level below's, so tests and
// callers that walk every level never run an instruction the CPU does not have.
#include <gtest/gtest.h>

#include "kernels/optimized/cpu.h"
#include "kernels/optimized/isa_kernels.h"

namespace edgerun::optimized {
namespace {

TEST(CpuDispatch, NoKernelTableRisesAboveTheDetectedLevel) {
  const int detected = static_cast<int>(DetectedIsa());
  for (int level = 0; level <= static_cast<int>(Isa::kAvx512); ++level) {
    SCOPED_TRACE(IsaName(static_cast<Isa>(level)));
    const Isa got = KernelsFor(static_cast<Isa>(level)).isa;
    EXPECT_LE(static_cast<int>(got), detected);
    EXPECT_LE(static_cast<int>(got), level);
  }
  // The detected level itself is filled (a build without the x86 kernels detects kGeneric).
  EXPECT_EQ(KernelsFor(DetectedIsa()).isa, DetectedIsa());
}

TEST(CpuDispatch, TheEnvironmentOrAnOverrideOnlyLowersTheLevel) {
  EXPECT_LE(static_cast<int>(ActiveIsa()), static_cast<int>(DetectedIsa()));
  {
    ScopedIsa generic(Isa::kGeneric);
    EXPECT_EQ(ActiveIsa(), Isa::kGeneric);
  }
  {
    ScopedIsa highest(Isa::kAvx512);
    EXPECT_LE(static_cast<int>(ActiveIsa()), static_cast<int>(DetectedIsa()));
  }
}

}  // namespace
}  // namespace edgerun::optimized
