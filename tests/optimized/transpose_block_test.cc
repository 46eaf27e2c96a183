// The ISAs' 4-byte TRANSPOSE block (IsaKernels::transpose_block_32) against the reference's
// TransposeBlock<4>: random rows and columns (past the 4 x 4 tiles and the 64-column bands, with
// edges), source and destination steps larger than the block, every byte pattern (NaN bits
// included, which must pass unchanged), and nothing written outside the block.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/movement.h"
#include "optimized_test_util.h"

namespace edgerun::optimized {
namespace {

using testing::Random;

TEST(TransposeBlock32, MatchesReferenceOnRandomBlocks) {
  Random r(57);
  int checked_isas = 0;
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const TransposeBlock32Fn block = KernelsFor(static_cast<Isa>(i)).transpose_block_32;
    if (block == nullptr) continue;  // the generic build keeps the reference's tiles
    ++checked_isas;
    SCOPED_TRACE(IsaName(static_cast<Isa>(i)));
    for (int iter = 0; iter < 300; ++iter) {
      const int64_t rows = r.Int(1, 23), cols = r.Int(1, iter % 10 == 0 ? 150 : 23);
      const int64_t src_step = rows + r.Int(0, 5), dst_step = cols + r.Int(0, 5);
      std::vector<uint8_t> src(static_cast<size_t>(src_step * cols * 4));
      for (auto& b : src) b = static_cast<uint8_t>(r.Int(0, 255));
      std::vector<uint8_t> want(static_cast<size_t>(dst_step * rows * 4), 0xA5), got(want);
      reference::TransposeBlock<4>(src.data(), src_step, want.data(), dst_step, rows, cols);
      block(src.data(), src_step, got.data(), dst_step, rows, cols);
      ASSERT_EQ(got, want) << rows << " x " << cols << " steps " << src_step << ", " << dst_step;
    }
  }
  if (DetectedIsa() != Isa::kGeneric) {
    EXPECT_GT(checked_isas, 0);
  }
}

}  // namespace
}  // namespace edgerun::optimized
