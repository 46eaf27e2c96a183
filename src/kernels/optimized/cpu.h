// Run-time CPU dispatch for the optimized kernels: which instruction set this machine runs,
// detected once (cpuid on x86-64), and an override for tests and benchmarks.
//
// The SIMD kernels live in translation units compiled with their own ISA flags
// (kernels_avx2.cc: -mavx2 -mfma, kernels_avx512.cc: -mavx512f/bw/dq/vl); everything else is
// compiled for the baseline, so the library runs on any x86-64 and builds on other CPUs, where
// only the portable kernels (kernels_generic.cc) exist.
#pragma once

namespace edgerun::optimized {

enum class Isa { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };

const char* IsaName(Isa isa);

// The best instruction set this CPU and this build support.
Isa DetectedIsa();

// The one the kernels use: DetectedIsa(), lowered by the environment variable
// EDGERUN_ISA=generic|avx2|avx512 or by SetIsaOverride (never raised above DetectedIsa()).
Isa ActiveIsa();

// True when the CPU has the AVX-512 VNNI dot products (vpdpwssd).
bool HasAvx512Vnni();

// True when the CPU runs a 512-bit FMA as two 256-bit halves, so that a 256-bit FMA costs half
// of one (AMD Zen 4, family 19h with AVX-512; Intel's and Zen 5's cores have full-width units).
bool SplitsWideFma();

// Lowers ActiveIsa() to `isa` (or restores the default with `reset`). For tests and benchmarks;
// not thread-safe against kernels running at the same time.
void SetIsaOverride(Isa isa);
void ResetIsaOverride();

// Restores the previous choice when it goes out of scope.
class ScopedIsa {
 public:
  explicit ScopedIsa(Isa isa);
  ~ScopedIsa();
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  int previous_;
};

}  // namespace edgerun::optimized
