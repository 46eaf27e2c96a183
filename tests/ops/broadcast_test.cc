// reference::ForEachBroadcast against a naive walk over output multi-indices: the same
// (a, b, out) triples in the same order, for random shapes and broadcast patterns (its fast paths
// collapse dimensions and handle a row repeated along an image without an odometer).
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "kernels/reference/broadcast.h"

namespace edgerun {
namespace {

using Triple = std::tuple<int64_t, int64_t, int64_t>;

// Index of the output multi-index `at` in a tensor of `shape`, right-aligned, size-1 dims fixed at 0.
int64_t Flat(const Shape& shape, const std::vector<int>& at) {
  int64_t index = 0;
  const size_t offset = at.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + (shape[d] == 1 ? 0 : at[offset + d]);
  return index;
}

std::vector<Triple> Naive(const Shape& a, const Shape& b, const Shape& out) {
  std::vector<Triple> triples;
  const int64_t total = NumElements(out);
  std::vector<int> at(out.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    triples.emplace_back(Flat(a, at), Flat(b, at), i);
    for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
      if (++at[d] < out[d]) break;
      at[d] = 0;
    }
  }
  return triples;
}

TEST(Broadcast, ForEachBroadcastVisitsLikeTheNaiveWalk) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 2000; ++iter) {
    const int rank = pick(0, 5);
    Shape out(static_cast<size_t>(rank)), a, b;
    for (int& d : out) d = pick(0, 6) == 0 ? 1 : pick(1, 5);
    // Each operand: a suffix of the output's dims (numpy's right alignment), some set to 1.
    const int a_rank = pick(0, rank), b_rank = pick(0, rank);
    for (int d = rank - a_rank; d < rank; ++d) a.push_back(pick(0, 2) == 0 ? 1 : out[d]);
    for (int d = rank - b_rank; d < rank; ++d) b.push_back(pick(0, 2) == 0 ? 1 : out[d]);
    if (pick(0, 3) == 0) b = a;  // same shapes sometimes
    // The output must be the broadcast of a and b: where both are 1 (or missing), so is out.
    for (int d = 0; d < rank; ++d) {
      const int da = d - (rank - static_cast<int>(a.size())), db = d - (rank - static_cast<int>(b.size()));
      const bool a_one = da < 0 || a[da] == 1, b_one = db < 0 || b[db] == 1;
      if (a_one && b_one) out[d] = 1;
    }
    std::vector<Triple> got;
    reference::ForEachBroadcast(a, b, out, [&](int64_t ia, int64_t ib, int64_t io) { got.emplace_back(ia, ib, io); });
    ASSERT_EQ(got, Naive(a, b, out)) << "a " << ShapeToString(a) << " b " << ShapeToString(b) << " out "
                                     << ShapeToString(out);
  }
  // The row-repeated patterns by name: an image minus a per-channel row, and the mirror.
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{{{1, 7, 5, 3}, {1, 1, 1, 3}},
                                                                  {{3}, {2, 4, 3}},
                                                                  {{6, 6, 1}, {1, 17}}}) {
    Shape out(std::max(a.size(), b.size()));
    for (size_t i = 0; i < out.size(); ++i) {
      const int da = static_cast<int>(i) - static_cast<int>(out.size() - a.size());
      const int db = static_cast<int>(i) - static_cast<int>(out.size() - b.size());
      out[i] = std::max(da < 0 ? 1 : a[da], db < 0 ? 1 : b[db]);
    }
    std::vector<Triple> got;
    reference::ForEachBroadcast(a, b, out, [&](int64_t ia, int64_t ib, int64_t io) { got.emplace_back(ia, ib, io); });
    EXPECT_EQ(got, Naive(a, b, out)) << ShapeToString(a) << " " << ShapeToString(b);
  }
}

// BroadcastBinary on random shapes, the short-run path (IsShortInnerRunBroadcast: either
// operand repeated, blocks split when the broadcast dimension is long) and the others: every
// output is op(a value, b value) of the pair the naive walk gives. The op is not commutative
// (a - 2b), so swapped operands would show.
TEST(Broadcast, BroadcastBinaryMatchesTheNaivePairs) {
  std::mt19937 rng(8);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int short_runs = 0;
  auto check = [&](const Shape& a, const Shape& b, const Shape& out) {
    std::vector<float> va(static_cast<size_t>(NumElements(a))), vb(static_cast<size_t>(NumElements(b)));
    for (size_t i = 0; i < va.size(); ++i) va[i] = static_cast<float>(i % 97) + 0.25f;
    for (size_t i = 0; i < vb.size(); ++i) vb[i] = static_cast<float>(i % 89) * 0.5f;
    std::vector<float> got(static_cast<size_t>(NumElements(out)), -1.0f);
    reference::CollapsedBroadcast collapsed;
    short_runs += reference::IsShortInnerRunBroadcast(a, b, out, &collapsed);
    reference::BroadcastBinary(a, va.data(), b, vb.data(), out, got.data(), [](float x, float y) { return x - 2 * y; });
    std::vector<float> want;
    for (const auto& [ia, ib, io] : Naive(a, b, out)) want.push_back(va[ia] - 2 * vb[ib]);
    ASSERT_EQ(got, want) << "a " << ShapeToString(a) << " b " << ShapeToString(b) << " out " << ShapeToString(out);
  };
  for (int iter = 0; iter < 1500; ++iter) {
    const int rank = pick(1, 5);
    Shape out(static_cast<size_t>(rank)), a, b;
    for (int& d : out) d = pick(0, 6) == 0 ? 1 : pick(1, 6);
    const int a_rank = pick(0, rank), b_rank = pick(0, rank);
    for (int d = rank - a_rank; d < rank; ++d) a.push_back(pick(0, 2) == 0 ? 1 : out[d]);
    for (int d = rank - b_rank; d < rank; ++d) b.push_back(pick(0, 2) == 0 ? 1 : out[d]);
    for (int d = 0; d < rank; ++d) {
      const int da = d - (rank - static_cast<int>(a.size())), db = d - (rank - static_cast<int>(b.size()));
      if ((da < 0 || a[da] == 1) && (db < 0 || b[db] == 1)) out[d] = 1;
    }
    check(a, b, out);
  }
  // By name: RoPE's pattern both ways round, and a broadcast dimension longer than one block.
  check({8, 10, 32, 2}, {8, 10, 1, 2}, {8, 10, 32, 2});
  check({8, 10, 1, 2}, {8, 10, 32, 2}, {8, 10, 32, 2});
  check({3, 5000, 3}, {3, 1, 3}, {3, 5000, 3});
  EXPECT_GT(short_runs, 100) << "the random shapes should reach the short-run path often";
}

}  // namespace
}  // namespace edgerun
