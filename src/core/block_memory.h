// Memory for large buffers: the arena, tensors that own their memory, packed weights, scratch.
//
// Why: on a virtual machine every first touch of a 4 KiB page is an exit to the hypervisor.
// Measured on the 2-core development VM: 13-17 us per page touched, and still about 4-5 us per
// page when mmap fills them in one pass (MAP_POPULATE): the hypervisor maps each small page on its
// first user access. A 2 MiB transparent huge page costs about as much as one small page. An arena
// of 1.4 MiB and 3.4 MiB of packed weights were 1450 page faults, most of coral MobileNet v2's
// first inference. So: blocks of 2 MiB and more are mapped from a 2 MiB boundary with huge pages;
// blocks from one 4 KiB page share 2 MiB huge-page chunks (block_memory.cc); smaller blocks, and
// everything under the sanitizers (which must see every allocation), come from the C allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace edgerun {

// Blocks of this size and more are mapped (alone from 2 MiB, in shared chunks below). One page:
// coral MobileNet v2 int8 packs most of its layers into blocks of 4-64 KiB, and from the C
// allocator their fresh pages were 190 of the 215 page faults of its first inference (TF2
// MobileNet v2's first inference 12.6 -> 9.5 ms with them in chunks, peak RSS +1.3 MiB).
constexpr size_t kMappedBlockMinBytes = 4 * 1024;

// False under the sanitizers: every block then comes from the C allocator.
bool MappedBlocksEnabled();

// Chunks of 2 MiB that blocks under 2 MiB currently share (for tests).
size_t PooledChunksForTesting();

// `bytes` (> 0) aligned to `alignment` (a power of two, at most 4096); null when out of memory.
// Give it back with FreeBlock and the same `bytes`.
void* AllocateBlock(size_t bytes, size_t alignment);
void FreeBlock(void* block, size_t bytes);

// [begin, end) byte ranges sorted and merged where they overlap or lie at most `gap` bytes apart:
// the spans to release in as few madvise calls as possible (each one flushes the TLB), with a gap
// of a page since a release rounds out to whole pages anyway.
using ByteRange = std::pair<const uint8_t*, const uint8_t*>;
std::vector<ByteRange> MergeByteRanges(std::vector<ByteRange> ranges, ptrdiff_t gap);

}  // namespace edgerun
