// ArenaPlanner: places every activation tensor of a subgraph in one buffer, reusing memory of
// tensors that are no longer live. Greedy by size (TFLite's strategy): the largest tensors are
// placed first, each at the lowest aligned offset that does not overlap a placed tensor whose
// lifetime overlaps its own.
#pragma once

#include <cstddef>
#include <vector>

namespace edgerun {

struct TensorLifetime {
  size_t bytes = 0;
  int first_node = 0;  // first node that writes or reads it (0 for subgraph inputs)
  int last_node = 0;   // last node that reads it (the node count for subgraph outputs)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per lifetime, in input order
  size_t arena_bytes = 0;
};

ArenaPlan PlanArena(const std::vector<TensorLifetime>& tensors, size_t alignment = 64);

}  // namespace edgerun
