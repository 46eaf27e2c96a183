// ArenaPlanner: no two live tensors overlap, memory is reused, and the arena never exceeds the
// sum of (aligned) sizes.
#include "core/arena_planner.h"

#include <gtest/gtest.h>

#include <random>

namespace edgerun {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

void ExpectValid(const std::vector<TensorLifetime>& tensors, const ArenaPlan& plan) {
  size_t aligned_sum = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    aligned_sum += AlignUp(tensors[i].bytes);
    EXPECT_EQ(plan.offsets[i] % 64, 0u) << "tensor " << i;
    EXPECT_LE(plan.offsets[i] + tensors[i].bytes, plan.arena_bytes) << "tensor " << i;
    for (size_t j = i + 1; j < tensors.size(); ++j) {
      const auto& a = tensors[i];
      const auto& b = tensors[j];
      if (a.bytes == 0 || b.bytes == 0) continue;
      const bool live_together = a.first_node <= b.last_node && b.first_node <= a.last_node;
      const bool overlap = plan.offsets[i] < plan.offsets[j] + b.bytes && plan.offsets[j] < plan.offsets[i] + a.bytes;
      EXPECT_FALSE(live_together && overlap) << "tensors " << i << " and " << j << " overlap";
    }
  }
  EXPECT_LE(plan.arena_bytes, aligned_sum);
}

TEST(ArenaPlanner, ChainReusesMemory) {
  // A chain a -> b -> c -> d: only neighbours are live together, so two slots suffice.
  const std::vector<TensorLifetime> chain = {{1000, 0, 0}, {1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  const ArenaPlan plan = PlanArena(chain);
  ExpectValid(chain, plan);
  EXPECT_EQ(plan.arena_bytes, 2 * AlignUp(1000));
}

TEST(ArenaPlanner, AllLiveNeedsTheSum) {
  const std::vector<TensorLifetime> all = {{100, 0, 5}, {200, 0, 5}, {300, 0, 5}};
  const ArenaPlan plan = PlanArena(all);
  ExpectValid(all, plan);
  EXPECT_EQ(plan.arena_bytes, AlignUp(100) + AlignUp(200) + AlignUp(300));
}

TEST(ArenaPlanner, FillsGapsBetweenTensors) {
  // Large tensors at both ends of time leave a gap that a small middle tensor can use.
  const std::vector<TensorLifetime> t = {{4096, 0, 1}, {4096, 2, 3}, {1024, 1, 2}, {512, 3, 4}};
  const ArenaPlan plan = PlanArena(t);
  ExpectValid(t, plan);
  EXPECT_LE(plan.arena_bytes, 4096 + 1024 + 512);
}

TEST(ArenaPlanner, RandomGraphsNeverOverlap) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<TensorLifetime> t(1 + rng() % 40);
    for (auto& x : t) {
      x.bytes = rng() % 5000;
      x.first_node = static_cast<int>(rng() % 20);
      x.last_node = x.first_node + static_cast<int>(rng() % 6);
    }
    ExpectValid(t, PlanArena(t));
  }
}

TEST(ArenaPlanner, EmptyAndZeroSized) {
  EXPECT_EQ(PlanArena({}).arena_bytes, 0u);
  const ArenaPlan plan = PlanArena({{0, 0, 3}, {0, 1, 1}});
  EXPECT_EQ(plan.arena_bytes, 0u);
}

}  // namespace
}  // namespace edgerun
