// Memory for large buffers: the arena, tensors that own their memory, packed weights, scratch.
//
// Why: on a virtual machine every first touch of a 4 KiB page is an exit to the hypervisor.
// Measured on the 2-core development VM: 13-17 us per page touched, against about 1 us per page
// when mmap fills them all in one pass (MAP_POPULATE). An arena of 1.4 MiB and 3.4 MiB of
// packed weights were 1450 page faults, about 22 of the 29 ms of coral MobileNet v2's first
// inference. Large blocks are therefore mapped with their pages present; the pages would all be
// written anyway (every byte of an arena or a packed copy is), so this costs no memory.
// Small blocks, and everything under the sanitizers (which must see every allocation), come from
// the C allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace edgerun {

// Blocks of this size and more are mapped.
constexpr size_t kMappedBlockMinBytes = 64 * 1024;

// False under the sanitizers: every block then comes from the C allocator.
bool MappedBlocksEnabled();

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
