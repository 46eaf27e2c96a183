// core/block_memory.h: large blocks mapped with their pages present (huge pages from 2 MiB), small
// ones from the C allocator; the buffers built on it.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "core/block_memory.h"
#include "edgerun/tensor.h"
#include "kernels/optimized/gemm.h"

namespace edgerun {
namespace {

TEST(BlockMemory, MergeByteRangesJoinsOverlapsAndNearNeighbours) {
  static uint8_t bytes[100000];
  const uint8_t* p = bytes;
  // Unsorted; [0,10) and [5,20) overlap; [20+4096, 30000) is a page after; [40000, 50000) is not;
  // [45000, 46000) lies inside the last.
  const std::vector<ByteRange> merged = MergeByteRanges(
      {{p + 40000, p + 50000}, {p + 5, p + 20}, {p, p + 10}, {p + 20 + 4096, p + 30000}, {p + 45000, p + 46000}},
      4096);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0], (ByteRange{p, p + 30000}));
  EXPECT_EQ(merged[1], (ByteRange{p + 40000, p + 50000}));
  EXPECT_TRUE(MergeByteRanges({}, 4096).empty());
  EXPECT_EQ(MergeByteRanges({{p, p + 1}, {p + 2, p + 3}}, 0).size(), 2u);
}

TEST(BlockMemory, EverySizeIsAlignedWritableAndFreed) {
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, kMappedBlockMinBytes - 1, kMappedBlockMinBytes,
                       size_t{1} << 20, (size_t{2} << 20) - 64, size_t{2} << 20, (size_t{5} << 20) + 12345}) {
    for (size_t alignment : {size_t{1}, size_t{8}, size_t{64}, size_t{4096}}) {
      SCOPED_TRACE(testing::Message() << bytes << " bytes aligned to " << alignment);
      auto* block = static_cast<uint8_t*>(AllocateBlock(bytes, alignment));
      ASSERT_NE(block, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % alignment, 0u);
      std::memset(block, 0xA5, bytes);  // every byte is ours (ASan checks the small ones)
      EXPECT_EQ(block[0], 0xA5);
      EXPECT_EQ(block[bytes - 1], 0xA5);
      if (MappedBlocksEnabled() && bytes >= (size_t{2} << 20)) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % (size_t{2} << 20), 0u) << "huge blocks start on 2 MiB";
      }
      FreeBlock(block, bytes);
    }
  }
  FreeBlock(nullptr, 0);
  FreeBlock(nullptr, size_t{8} << 20);
}

TEST(BlockMemory, RefusesWhatItCannotAlign) {
  EXPECT_EQ(AllocateBlock(0, 64), nullptr);
  EXPECT_EQ(AllocateBlock(1024, 0), nullptr);
  EXPECT_EQ(AllocateBlock(1024, 48), nullptr);    // not a power of two
  EXPECT_EQ(AllocateBlock(1024, 8192), nullptr);  // past a page
}

// A mapped huge block does not leave its pages behind: the process maps none of them after the free.
TEST(BlockMemory, FreedMappingsLeaveNoPages) {
  if (!MappedBlocksEnabled()) GTEST_SKIP() << "the sanitizers' builds use the C allocator";
  const size_t bytes = (size_t{4} << 20) + 4096;
  auto* block = static_cast<uint8_t*>(AllocateBlock(bytes, 64));
  ASSERT_NE(block, nullptr);
  block[bytes / 2] = 1;
  const uintptr_t page = reinterpret_cast<uintptr_t>(block) / 4096;
  FreeBlock(block, bytes);
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  ASSERT_GE(fd, 0);
  size_t present = 0;
  for (uintptr_t p = page; p < page + bytes / 4096; ++p) {
    uint64_t entry = 0;
    ASSERT_EQ(pread(fd, &entry, sizeof(entry), static_cast<off_t>(p * sizeof(entry))), 8);
    present += (entry >> 63) != 0;
  }
  close(fd);
  EXPECT_EQ(present, 0u);
}

TEST(BlockMemory, BuffersKeepTheirMemoryAndMove) {
  AlignedBuffer arena;
  ASSERT_TRUE(arena.Reserve(3 << 20));
  uint8_t* first = arena.data();
  std::memset(first, 1, 3 << 20);
  ASSERT_TRUE(arena.Reserve(100));  // smaller: same memory
  EXPECT_EQ(arena.data(), first);
  AlignedBuffer moved = std::move(arena);
  EXPECT_EQ(moved.data(), first);
  EXPECT_EQ(arena.data(), nullptr);
  EXPECT_EQ(moved.capacity(), size_t{3} << 20);

  optimized::AlignedBuffer<float> packed;
  packed.Resize(100000);
  float* data = packed.data();
  for (size_t i = 0; i < packed.size(); ++i) data[i] = static_cast<float>(i);
  packed.Resize(10);
  EXPECT_EQ(packed.data(), data);
  optimized::AlignedBuffer<float> other = std::move(packed);
  EXPECT_EQ(other.data(), data);
  EXPECT_EQ(other.size(), 10u);
  EXPECT_EQ(packed.data(), nullptr);
  other.Resize(1 << 20);  // grows into a huge block
  other.data()[(1 << 20) - 1] = 2.0f;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(other.data()) % 64, 0u);
}

}  // namespace
}  // namespace edgerun
