#include "core/arena_planner.h"

#include <algorithm>
#include <numeric>

namespace edgerun {
namespace {

size_t AlignUp(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

bool Overlap(const TensorLifetime& a, const TensorLifetime& b) {
  return a.first_node <= b.last_node && b.first_node <= a.last_node;
}

}  // namespace

ArenaPlan PlanArena(const std::vector<TensorLifetime>& tensors, size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(tensors.size(), 0);
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first; among equals the one that lives first, so the plan is deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tensors[a].bytes != tensors[b].bytes) return tensors[a].bytes > tensors[b].bytes;
    return tensors[a].first_node < tensors[b].first_node;
  });

  std::vector<size_t> placed;  // indices of placed tensors, kept sorted by offset
  std::vector<size_t> conflicts;
  for (size_t index : order) {
    const TensorLifetime& t = tensors[index];
    if (t.bytes == 0) continue;
    conflicts.clear();
    for (size_t p : placed) {
      if (Overlap(t, tensors[p])) conflicts.push_back(p);
    }
    // conflicts inherit the offset order of `placed`: walk the gaps between them.
    size_t candidate = 0;
    for (size_t c : conflicts) {
      const size_t start = plan.offsets[c];
      const size_t end = start + tensors[c].bytes;
      if (candidate + t.bytes <= start) break;
      candidate = std::max(candidate, AlignUp(end, alignment));
    }
    plan.offsets[index] = candidate;
    plan.arena_bytes = std::max(plan.arena_bytes, candidate + t.bytes);
    const auto at = std::upper_bound(placed.begin(), placed.end(), candidate,
                                     [&](size_t offset, size_t p) { return offset < plan.offsets[p]; });
    placed.insert(at, index);
  }
  plan.arena_bytes = AlignUp(plan.arena_bytes, alignment);
  return plan;
}

}  // namespace edgerun
