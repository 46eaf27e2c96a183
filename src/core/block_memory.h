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
#include <new>
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

// Blocks under a page for metadata that lives about as long as an interpreter (its tensor and node
// arrays, the ops' per-channel scales, XNNPACK's operators): 64-byte aligned slots carved from
// page blocks of AllocateBlock, so from the same huge pages. On the development VM each fresh
// 4 KiB page of the C allocator's heap costs ~10 us at its first touch, and MoveNet's create +
// allocate wrote about 140 of them. Null when `bytes` is 0 or over kSmallBlockMaxBytes, when
// mapped blocks are disabled (sanitizers), or out of memory: then use the C allocator.
constexpr size_t kSmallBlockMaxBytes = kMappedBlockMinBytes - 1;
void* AllocateSmallBlock(size_t bytes);
// Frees a block of AllocateSmallBlock and returns true; false (doing nothing) for any other
// pointer, so that a caller without sizes can try it first.
bool FreeSmallBlock(void* block);
// The usable bytes of a block of AllocateSmallBlock (its slot), 0 for any other pointer.
size_t SmallBlockCapacity(const void* block);
// Slabs the small blocks currently use, and the blocks given out and not freed (for tests).
size_t SmallBlockSlabsForTesting();
size_t SmallBlocksInUseForTesting();

// Metadata of `bytes` (64-byte aligned): a small block, or a mapped block from a page; from the C
// allocator under the sanitizers. Null when out of memory. Give it back with FreeMetadata and the
// same `bytes`.
void* AllocateMetadata(size_t bytes);
void FreeMetadata(void* block, size_t bytes);

// A standard allocator on AllocateMetadata, for containers of interpreter metadata.
template <class T>
struct MetadataAllocator {
  using value_type = T;
  static_assert(alignof(T) <= 64, "metadata blocks are 64-byte aligned");
  MetadataAllocator() = default;
  template <class U>
  MetadataAllocator(const MetadataAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    void* block = AllocateMetadata(n * sizeof(T));
    if (block == nullptr) throw std::bad_alloc();
    return static_cast<T*>(block);
  }
  void deallocate(T* block, size_t n) noexcept { FreeMetadata(block, n * sizeof(T)); }
  template <class U>
  bool operator==(const MetadataAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const MetadataAllocator<U>&) const noexcept { return false; }
};

// [begin, end) byte ranges sorted and merged where they overlap or lie at most `gap` bytes apart:
// the spans to release in as few madvise calls as possible (each one flushes the TLB), with a gap
// of a page since a release rounds out to whole pages anyway.
using ByteRange = std::pair<const uint8_t*, const uint8_t*>;
std::vector<ByteRange> MergeByteRanges(std::vector<ByteRange> ranges, ptrdiff_t gap);

}  // namespace edgerun
