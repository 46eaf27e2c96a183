#include "delegates/partition.h"

#include <algorithm>
#include <map>
#include <set>

namespace edgerun::delegates {
namespace {

// deps[u]: units that must run before u (all of them earlier in the plan).
std::vector<std::vector<int>> Dependencies(const std::vector<PlanUnit>& units) {
  const int n = static_cast<int>(units.size());
  std::vector<std::vector<int>> deps(n);
  std::map<int, int> last_writer;                // tensor -> unit
  std::map<int, std::vector<int>> readers;       // tensor -> units that read it since its last write
  int last_barrier = -1;
  for (int u = 0; u < n; ++u) {
    std::set<int> d;
    if (units[u].barrier) {
      // Everything since the previous barrier (which itself follows everything before it).
      for (int v = std::max(last_barrier, 0); v < u; ++v) d.insert(v);
    } else if (last_barrier >= 0) {
      d.insert(last_barrier);
    }
    for (int t : units[u].reads) {
      auto w = last_writer.find(t);
      if (w != last_writer.end()) d.insert(w->second);
    }
    for (int t : units[u].writes) {
      auto w = last_writer.find(t);
      if (w != last_writer.end()) d.insert(w->second);
      for (int r : readers[t]) d.insert(r);
    }
    d.erase(u);
    deps[u].assign(d.begin(), d.end());
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
// chains.
std::vector<PlanGroup> GroupFrom(const std::vector<PlanUnit>& units, const std::vector<std::vector<int>>& deps,
                                 bool kind) {
  const int n = static_cast<int>(units.size());
  std::vector<bool> done(n, false);
  std::vector<int> group_of(n, -1);
  std::vector<PlanGroup> groups;
  int remaining = n;
  while (remaining > 0) {
    PlanGroup group{kind, {}};
    for (int u = 0; u < n; ++u) {
      if (done[u] || units[u].claimed != kind) continue;
      const bool ready = std::all_of(deps[u].begin(), deps[u].end(), [&](int d) { return done[d]; });
      if (!ready) continue;
      done[u] = true;
      group_of[u] = static_cast<int>(groups.size());
      group.units.push_back(u);
      --remaining;
    }
    if (!group.units.empty()) groups.push_back(std::move(group));
    kind = !kind;
  }

  // A claimed unit without dependencies (it reads only constants) was taken by the first claimed
  // pass; move it next to its consumers when they all sit in one later claimed group, so that its
  // result stays inside that partition.
  std::vector<std::vector<int>> consumers(n);
  for (int u = 0; u < n; ++u) {
    for (int d : deps[u]) consumers[d].push_back(u);
  }
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

std::vector<PlanGroup> GroupUnits(const std::vector<PlanUnit>& units) {
  if (units.empty()) return {};
  const std::vector<std::vector<int>> deps = Dependencies(units);
  // Starting with either kind can give fewer groups; take the better.
  std::vector<PlanGroup> a = GroupFrom(units, deps, units[0].claimed);
  std::vector<PlanGroup> b = GroupFrom(units, deps, !units[0].claimed);
  return b.size() < a.size() ? b : a;
}

std::vector<PlanGroup> PartitionPlan(std::vector<PlanUnit> units, int min_group_units,
                                     std::vector<std::pair<int, int>>* demoted) {
  while (true) {
    std::vector<PlanGroup> groups = GroupUnits(units);
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
