#include "delegates/partition.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace edgerun::delegates {
namespace {

// deps[u]: units that must run before u (all of them earlier in the plan), sorted. Tensor-indexed
// vectors rather than maps: the delegates partition every plan at start-up.
std::vector<std::vector<int>> Dependencies(const std::vector<PlanUnit>& units) {
  const int n = static_cast<int>(units.size());
  int tensors = 0;
  for (const PlanUnit& u : units) {
    for (int t : u.reads) tensors = std::max(tensors, t + 1);
    for (int t : u.writes) tensors = std::max(tensors, t + 1);
  }
  std::vector<std::vector<int>> deps(n);
  std::vector<int> last_writer(static_cast<size_t>(tensors), -1);       // tensor -> unit
  std::vector<std::vector<int>> readers(static_cast<size_t>(tensors));  // units that read it since its last write
  int last_barrier = -1;
  std::vector<int> d;
  for (int u = 0; u < n; ++u) {
    d.clear();
    if (units[u].barrier) {
      // Everything since the previous barrier (which itself follows everything before it).
      for (int v = std::max(last_barrier, 0); v < u; ++v) d.push_back(v);
    } else if (last_barrier >= 0) {
      d.push_back(last_barrier);
    }
    for (int t : units[u].reads) {
      if (last_writer[t] >= 0) d.push_back(last_writer[t]);
    }
    for (int t : units[u].writes) {
      if (last_writer[t] >= 0) d.push_back(last_writer[t]);
      d.insert(d.end(), readers[t].begin(), readers[t].end());
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    d.erase(std::remove(d.begin(), d.end(), u), d.end());
    deps[u] = d;
    for (int t : units[u].reads) readers[t].push_back(u);
    for (int t : units[u].writes) {
      last_writer[t] = u;
      readers[t].clear();
    }
    if (units[u].barrier) last_barrier = u;
  }
  return deps;
}

// Alternates between the two kinds, starting with `kind`; each pass takes every unit of the kind
// whose dependencies have run. The plan order is topological, so one pass in order also takes
// chains: a pass is the closure of the ready units of its kind, taken in plan order (a unit that
// becomes ready comes after the one that made it so), with a count of unmet dependencies per
// unit instead of a scan of the whole plan per pass.
std::vector<PlanGroup> GroupFrom(const std::vector<PlanUnit>& units, const std::vector<std::vector<int>>& deps,
                                 bool kind) {
  const int n = static_cast<int>(units.size());
  std::vector<int> group_of(n, -1);
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> unmet(n, 0);
  for (int u = 0; u < n; ++u) {
    unmet[u] = static_cast<int>(deps[u].size());
    for (int d : deps[u]) consumers[d].push_back(u);
  }
  // Ready units of each kind, smallest plan index first.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready[2];
  for (int u = 0; u < n; ++u) {
    if (unmet[u] == 0) ready[units[u].claimed ? 1 : 0].push(u);
  }
  std::vector<PlanGroup> groups;
  for (int remaining = n; remaining > 0; kind = !kind) {
    auto& queue = ready[kind ? 1 : 0];
    if (queue.empty()) {
      if (ready[kind ? 0 : 1].empty()) break;  // not reachable: every dependency is earlier
      continue;
    }
    PlanGroup group{kind, {}};
    while (!queue.empty()) {
      const int u = queue.top();
      queue.pop();
      group_of[u] = static_cast<int>(groups.size());
      group.units.push_back(u);
      --remaining;
      for (int c : consumers[u]) {
        if (--unmet[c] == 0) ready[units[c].claimed ? 1 : 0].push(c);
      }
    }
    groups.push_back(std::move(group));
  }

  // A claimed unit without dependencies (it reads only constants) was taken by the first claimed
  // pass; move it next to its consumers when they all sit in one later claimed group, so that its
  // result stays inside that partition.
  bool moved = false;
  for (int u = 0; u < n; ++u) {
    if (!units[u].claimed || !deps[u].empty() || consumers[u].empty()) continue;
    const int target = group_of[consumers[u][0]];
    const bool one_group = std::all_of(consumers[u].begin(), consumers[u].end(),
                                       [&](int c) { return group_of[c] == target; });
    if (!one_group || target == group_of[u] || !groups[target].claimed) continue;
    auto& from = groups[group_of[u]].units;
    from.erase(std::find(from.begin(), from.end(), u));
    auto& to = groups[target].units;
    to.insert(std::upper_bound(to.begin(), to.end(), u), u);  // plan order is a valid order
    group_of[u] = target;
    moved = true;
  }
  if (moved) {
    // Drop emptied groups and merge neighbours of the same kind.
    std::vector<PlanGroup> merged;
    for (PlanGroup& g : groups) {
      if (g.units.empty()) continue;
      if (!merged.empty() && merged.back().claimed == g.claimed) {
        merged.back().units.insert(merged.back().units.end(), g.units.begin(), g.units.end());
      } else {
        merged.push_back(std::move(g));
      }
    }
    groups = std::move(merged);
  }
  return groups;
}

}  // namespace

namespace {

std::vector<PlanGroup> GroupUnitsBy(const std::vector<PlanUnit>& units, const std::vector<std::vector<int>>& deps) {
  if (units.empty()) return {};
  // Starting with either kind can give fewer groups; take the better.
  std::vector<PlanGroup> a = GroupFrom(units, deps, units[0].claimed);
  std::vector<PlanGroup> b = GroupFrom(units, deps, !units[0].claimed);
  return b.size() < a.size() ? b : a;
}

}  // namespace

std::vector<PlanGroup> GroupUnits(const std::vector<PlanUnit>& units) {
  return GroupUnitsBy(units, Dependencies(units));
}

std::vector<PlanGroup> PartitionPlan(std::vector<PlanUnit> units, int min_group_units,
                                     std::vector<std::pair<int, int>>* demoted) {
  // The dependencies do not change as units are sent back: found once.
  const std::vector<std::vector<int>> deps = Dependencies(units);
  while (true) {
    std::vector<PlanGroup> groups = GroupUnitsBy(units, deps);
    bool changed = false;
    for (const PlanGroup& g : groups) {
      if (!g.claimed) continue;
      const int size = static_cast<int>(g.units.size());
      const bool whole = size == static_cast<int>(units.size());
      const bool heavy = std::any_of(g.units.begin(), g.units.end(), [&](int u) { return units[u].heavy; });
      if (size >= min_group_units || whole || heavy) continue;
      for (int u : g.units) {
        units[u].claimed = false;
        if (demoted) demoted->emplace_back(u, size);
      }
      changed = true;
    }
    if (!changed) return groups;
  }
}

}  // namespace edgerun::delegates
