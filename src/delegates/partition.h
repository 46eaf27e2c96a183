// Cutting an execution plan into partitions for a delegate: pure graph logic, no tensors.
#pragma once

#include <cstddef>
#include <vector>

namespace edgerun::delegates {

// One step of the plan as the partitioner sees it.
struct PlanUnit {
  std::vector<int> reads;   // tensor indices (no -1)
  std::vector<int> writes;
  bool claimed = false;     // the delegate takes it
  bool heavy = false;       // a claimed unit worth a partition of its own
  // Keeps its place relative to every other unit: it has effects that tensors do not show
  // (resource variables, control flow, random state).
  bool barrier = false;
};

struct PlanGroup {
  bool claimed = false;
  std::vector<int> units;  // indices into the plan, in an order that respects every dependency
};

// Groups the units (given in a valid execution order) into an alternating sequence of claimed and
// unclaimed groups such that running the groups in order, each group's units in order, respects
// every dependency (read after write, write after read, write after write) and every barrier.
// Claimed units are gathered into as few groups as the dependencies allow; a claimed unit that
// depends on nothing joins the group of its consumers when they all share one.
std::vector<PlanGroup> GroupUnits(const std::vector<PlanUnit>& units);

// GroupUnits, then sends back to the unclaimed side every claimed group smaller than
// `min_group_units` that has no heavy unit and is not the whole plan, until none is left.
// `demoted` (when given) receives the units sent back, with the size of their group.
std::vector<PlanGroup> PartitionPlan(std::vector<PlanUnit> units, int min_group_units,
                                     std::vector<std::pair<int, int>>* demoted = nullptr);

}  // namespace edgerun::delegates
