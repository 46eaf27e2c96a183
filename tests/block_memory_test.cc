// core/block_memory.h: large blocks mapped with their pages present (huge pages from 2 MiB), small
// ones from the C allocator; the buffers built on it.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>
#include <utility>
#include <vector>

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

// Blocks from a page up to 2 MiB share huge-page chunks: they do not overlap, a freed range is
// used again (zeroed, as a fresh mapping is), and a chunk goes when its last block does.
TEST(BlockMemory, MidSizeBlocksShareChunksThatGoWhenEmpty) {
  if (!MappedBlocksEnabled()) GTEST_SKIP() << "the sanitizers' builds use the C allocator";
  const size_t before = PooledChunksForTesting();
  const size_t sizes[] = {kMappedBlockMinBytes, 100000, 300 * 1024, 700 * 1024, (size_t{2} << 20) - 1, 65537};
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t bytes : sizes) {
    auto* block = static_cast<uint8_t*>(AllocateBlock(bytes, 4096));
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 4096, 0u);
    for (size_t i = 0; i < bytes; i += 4096) EXPECT_EQ(block[i], 0) << "a new block is zeroed";
    std::memset(block, static_cast<int>(blocks.size() + 1), bytes);
    blocks.emplace_back(block, bytes);
  }
  // No block was written over by another.
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto [block, bytes] = blocks[b];
    for (size_t i = 0; i < bytes; i += 1024) ASSERT_EQ(block[i], static_cast<uint8_t>(b + 1)) << b << " at " << i;
    ASSERT_EQ(block[bytes - 1], static_cast<uint8_t>(b + 1));
  }
  EXPECT_GE(PooledChunksForTesting(), before + 2);  // 3.9 MiB in all does not fit one chunk
  // The range of a freed block is taken again (first fit: once the holes of chunks made earlier
  // in this process are filled), and starts at zero.
  uint8_t* freed = blocks[2].first;
  FreeBlock(freed, blocks[2].second);
  std::vector<uint8_t*> fillers;
  uint8_t* again = nullptr;
  while (again != freed && fillers.size() < 64) {
    again = static_cast<uint8_t*>(AllocateBlock(200 * 1024, 64));
    ASSERT_NE(again, nullptr);
    fillers.push_back(again);
  }
  ASSERT_EQ(again, freed);
  for (size_t i = 0; i < 200 * 1024; ++i) ASSERT_EQ(again[i], 0) << i;
  for (uint8_t* filler : fillers) FreeBlock(filler, 200 * 1024);
  blocks.erase(blocks.begin() + 2);
  for (const auto& [block, bytes] : blocks) FreeBlock(block, bytes);
  EXPECT_EQ(PooledChunksForTesting(), before);
}

// Threads allocating and freeing at once get blocks of their own.
TEST(BlockMemory, ChunksServeSeveralThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 50; ++i) {
        const size_t bytes = kMappedBlockMinBytes + static_cast<size_t>((t * 50 + i) % 7) * 50000;
        auto* block = static_cast<uint8_t*>(AllocateBlock(bytes, 64));
        if (block == nullptr) {
          ++failures;
          continue;
        }
        std::memset(block, t + 1, bytes);
        std::this_thread::yield();
        for (size_t k = 0; k < bytes; k += 4096) failures += block[k] != t + 1;
        FreeBlock(block, bytes);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
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

// Small blocks: 64-byte aligned slots of at least the size asked, that no other block overlaps.
TEST(BlockMemory, SmallBlocksAreAlignedSlotsOfTheirOwn) {
  if (!MappedBlocksEnabled()) {
    EXPECT_EQ(AllocateSmallBlock(100), nullptr) << "the sanitizers' builds use the C allocator";
    GTEST_SKIP();
  }
  EXPECT_EQ(AllocateSmallBlock(0), nullptr);
  EXPECT_EQ(AllocateSmallBlock(kSmallBlockMaxBytes + 1), nullptr);
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t bytes = 1; bytes <= kSmallBlockMaxBytes; bytes += bytes < 600 ? 7 : 61) {
    for (int copy = 0; copy < 3; ++copy) {
      auto* block = static_cast<uint8_t*>(AllocateSmallBlock(bytes));
      ASSERT_NE(block, nullptr) << bytes;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u) << bytes;
      EXPECT_GE(SmallBlockCapacity(block), bytes);
      EXPECT_LE(SmallBlockCapacity(block), bytes + 256);
      std::memset(block, static_cast<int>(blocks.size() % 251), bytes);
      blocks.emplace_back(block, bytes);
    }
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto [block, bytes] = blocks[b];
    ASSERT_EQ(block[0], b % 251) << b;
    ASSERT_EQ(block[bytes - 1], b % 251) << b;
  }
  // Pointers it did not hand out are not its own.
  int on_stack = 0;
  void* from_malloc = std::malloc(100);
  EXPECT_FALSE(FreeSmallBlock(&on_stack));
  EXPECT_FALSE(FreeSmallBlock(from_malloc));
  EXPECT_FALSE(FreeSmallBlock(nullptr));
  EXPECT_EQ(SmallBlockCapacity(from_malloc), 0u);
  std::free(from_malloc);
  for (const auto& [block, bytes] : blocks) EXPECT_TRUE(FreeSmallBlock(block));
}

// Freed slots are used again; empty slabs go back, but one of each size stays for the next block.
TEST(BlockMemory, SmallBlockSlabsAreReusedAndGiveBackWhenEmpty) {
  if (!MappedBlocksEnabled()) GTEST_SKIP() << "the sanitizers' builds use the C allocator";
  constexpr size_t kBytes = 1000;  // 1024-byte slots, 16 to a 16 KiB slab
  void* first = AllocateSmallBlock(kBytes);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(FreeSmallBlock(first));
  EXPECT_EQ(AllocateSmallBlock(kBytes), first) << "the freed slot comes first";
  const size_t slabs = SmallBlockSlabsForTesting();
  std::vector<void*> blocks = {first};
  for (int i = 0; i < 200; ++i) blocks.push_back(AllocateSmallBlock(kBytes));
  EXPECT_GE(SmallBlockSlabsForTesting(), slabs + 2);
  for (void* block : blocks) EXPECT_TRUE(FreeSmallBlock(block));
  EXPECT_LE(SmallBlockSlabsForTesting(), slabs);
  EXPECT_GE(SmallBlockSlabsForTesting(), 1u);
}

TEST(BlockMemory, SmallBlocksServeSeveralThreads) {
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &bad] {
      std::vector<std::vector<int, MetadataAllocator<int>>> lists(50);
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < lists.size(); ++i) lists[i].assign(1 + (i * 37 + round) % 1500, t * 1000 + round);
        for (const auto& list : lists) {
          for (int v : list) bad += v != t * 1000 + round;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
}

// Containers on MetadataAllocator: small and page-sized arrays, moved and grown.
TEST(BlockMemory, MetadataAllocatorHoldsContainers) {
  std::vector<double, MetadataAllocator<double>> values;
  for (int i = 0; i < 5000; ++i) {
    values.push_back(i * 0.5);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(values.data()) % 64, 0u);
  }
  std::deque<std::vector<int>, MetadataAllocator<std::vector<int>>> lists;
  for (int i = 0; i < 300; ++i) lists.emplace_back(static_cast<size_t>(i), i);
  auto moved = std::move(values);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(moved[static_cast<size_t>(i)], i * 0.5);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(lists[static_cast<size_t>(i)], std::vector<int>(static_cast<size_t>(i), i));
  void* empty = AllocateMetadata(0);
  EXPECT_NE(empty, nullptr);
  FreeMetadata(empty, 0);
  FreeMetadata(nullptr, 100);
}

}  // namespace
}  // namespace edgerun
