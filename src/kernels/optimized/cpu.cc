#include "kernels/optimized/cpu.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(EDGERUN_X86_KERNELS) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif

namespace edgerun::optimized {
namespace {

struct Detected {
  Isa isa = Isa::kGeneric;
  bool avx512_vnni = false;
  bool splits_wide_fma = false;
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
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
      char vendor[13] = {};
      std::memcpy(vendor, &ebx, 4);
      std::memcpy(vendor + 4, &edx, 4);
      std::memcpy(vendor + 8, &ecx, 4);
      if (std::strcmp(vendor, "AuthenticAMD") == 0 && __get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        // The family as cpuid reports it: base family 0xF plus the extended family.
        const unsigned base = (eax >> 8) & 0xF, extended = (eax >> 20) & 0xFF;
        d.splits_wide_fma = (base == 0xF ? base + extended : base) == 0x19;
      }
    }
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

bool SplitsWideFma() { return GetDetected().splits_wide_fma; }

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
