// Helpers for the tests of the optimized kernels against their reference twins: a seeded random
// source, every instruction set this CPU runs, and thread pools of 1 and 3 threads.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/optimized/cpu.h"

namespace edgerun::optimized::testing {

class Random {
 public:
  explicit Random(uint32_t seed) : engine_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }
  bool Bool() { return Int(0, 1) == 1; }
  float Float(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine_); }
  template <class T>
  std::vector<T> Ints(size_t n, int lo, int hi) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(Int(lo, hi));
    return v;
  }
  std::vector<float> Floats(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    for (auto& x : v) x = Float(lo, hi);
    return v;
  }

 private:
  std::mt19937 engine_;
};

// Runs fn(isa, pool) for each ISA up to the detected one, with 1 and with 3 threads.
inline void ForEachIsaAndThreads(const std::function<void(Isa, ThreadPool*)>& fn) {
  ThreadPool one(1), three(3);
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const Isa isa = static_cast<Isa>(i);
    ScopedIsa scoped(isa);
    SCOPED_TRACE(IsaName(isa));
    for (ThreadPool* pool : {&one, &three}) {
      SCOPED_TRACE(pool->num_threads());
      fn(isa, pool);
    }
  }
}

// |got - want| <= tolerance * (1 + scale), scale a bound on the magnitudes summed into `want`.
inline void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float scale,
                       float tolerance = 2e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tolerance * (1.0f + scale)) << "at " << i;
  }
}

}  // namespace edgerun::optimized::testing
