#include "kernels/optimized/cpu.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace edgerun::optimized {
namespace {

struct Detected {
  Isa isa = Isa::kGeneric;
  bool avx512_vnni = false;
};

Detected Detect() {
  Detected d;
#if defined(EDGERUN_X86_KERNELS) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  // __builtin_cpu_supports also checks that the OS saves the wide registers (xgetbv).
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) d.isa = Isa::kAvx2;
  if (d.isa == Isa::kAvx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    d.isa = Isa::kAvx512;
    d.avx512_vnni = __builtin_cpu_supports("avx512vnni");
  }
#endif
  return d;
}

const Detected& GetDetected() {
  static const Detected detected = Detect();
  return detected;
}

// The environment's choice, read once.
Isa EnvironmentIsa() {
  static const Isa isa = [] {
    const char* env = std::getenv("EDGERUN_ISA");
    Isa chosen = GetDetected().isa;
    if (env == nullptr) return chosen;
    if (std::strcmp(env, "generic") == 0) chosen = Isa::kGeneric;
    if (std::strcmp(env, "avx2") == 0) chosen = Isa::kAvx2;
    if (std::strcmp(env, "avx512") == 0) chosen = Isa::kAvx512;
    return static_cast<int>(chosen) < static_cast<int>(GetDetected().isa) ? chosen : GetDetected().isa;
  }();
  return isa;
}

std::atomic<int> g_override{-1};

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kGeneric: return "generic";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
  }
  return "?";
}

Isa DetectedIsa() { return GetDetected().isa; }

bool HasAvx512Vnni() { return GetDetected().avx512_vnni; }

Isa ActiveIsa() {
  const Isa base = EnvironmentIsa();
  const int o = g_override.load(std::memory_order_relaxed);
  if (o >= 0 && o < static_cast<int>(base)) return static_cast<Isa>(o);
  return base;
}

void SetIsaOverride(Isa isa) { g_override.store(static_cast<int>(isa), std::memory_order_relaxed); }
void ResetIsaOverride() { g_override.store(-1, std::memory_order_relaxed); }

ScopedIsa::ScopedIsa(Isa isa) : previous_(g_override.load()) { SetIsaOverride(isa); }
ScopedIsa::~ScopedIsa() { g_override.store(previous_); }

}  // namespace edgerun::optimized
