// The allocator edgerun hands to xnn_initialize.
//
// Why: building an XNNPACK runtime packs every weight into fresh memory, and XNNPACK fills each
// packed buffer with a memset before packing into it. With malloc, every 4 KiB page of that
// memory is then faulted in one by one (for coral MobileNet v2, 3.4 MiB of weights, those faults
// were about half of `AllocateTensors`). Large blocks therefore come from AllocateBlock, mapped
// with their pages present (core/block_memory.h says why that matters on a virtual machine).
#include "delegates/xnnpack/xnnpack_allocator.h"

#include <xnnpack.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/block_memory.h"

namespace edgerun::xnnpack {
namespace {

// The mapped blocks and their lengths, so that aligned_deallocate knows which free to call.
struct Mappings {
  std::mutex mutex;
  std::unordered_map<void*, size_t> lengths;
};

Mappings& TheMappings() {
  static Mappings* mappings = new Mappings;  // never destroyed: XNNPACK may free at exit
  return *mappings;
}

thread_local std::function<void(size_t)>* release_before_packing = nullptr;
// The blocks before which ReleaseBeforeEachPacking releases: each release is a TLB flush, worth
// it before an operator's packed weights, not before its small workspaces.
constexpr size_t kReleaseBeforeBlockBytes = 64 * 1024;

// Blocks under a page come from the small blocks of core/block_memory.h (huge pages): a runtime's
// operators are about 2 KiB each, and from malloc BlazeFace's 73 were 38 fresh heap pages of
// AllocateTensors. XNNPACK's larger plain blocks (the node and value arrays of each subgraph it
// builds and drops) stay with malloc.
void* Allocate(void*, size_t size) {
  if (void* block = AllocateSmallBlock(size)) return block;
  return std::malloc(size);
}

void* Reallocate(void*, void* pointer, size_t size) {
  const size_t capacity = SmallBlockCapacity(pointer);
  if (capacity == 0) return std::realloc(pointer, size);
  if (size <= capacity) return pointer;
  void* block = Allocate(nullptr, size);
  if (block == nullptr) return nullptr;  // the old block stays valid, as with realloc
  std::memcpy(block, pointer, capacity);
  FreeSmallBlock(pointer);
  return block;
}

void Deallocate(void*, void* pointer) {
  if (!FreeSmallBlock(pointer)) std::free(pointer);
}

void* AlignedAllocate(void*, size_t alignment, size_t size) {
  if (release_before_packing != nullptr && size >= kReleaseBeforeBlockBytes) (*release_before_packing)(size);
  if (alignment <= 64) {
    if (void* block = AllocateSmallBlock(size)) return block;  // 64-byte aligned slots
  }
  if (MappedBlocksEnabled() && size >= kMappedBlockMinBytes && alignment <= 4096) {
    void* block = AllocateBlock(size, alignment);
    if (block != nullptr) {
      Mappings& mappings = TheMappings();
      std::lock_guard<std::mutex> lock(mappings.mutex);
      mappings.lengths.emplace(block, size);
      return block;
    }
    // Fall through: malloc may still find the memory (or fail the same way, cleanly).
  }
  void* block = nullptr;
  if (posix_memalign(&block, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) != 0) {
    return nullptr;
  }
  return block;
}

void AlignedDeallocate(void*, void* pointer) {
  if (pointer == nullptr || FreeSmallBlock(pointer)) return;
  if (MappedBlocksEnabled()) {
    Mappings& mappings = TheMappings();
    std::unique_lock<std::mutex> lock(mappings.mutex);
    auto it = mappings.lengths.find(pointer);
    if (it != mappings.lengths.end()) {
      size_t length = it->second;
      mappings.lengths.erase(it);
      lock.unlock();
      FreeBlock(pointer, length);
      return;
    }
  }
  std::free(pointer);
}

}  // namespace

const xnn_allocator* PrefaultingAllocator() {
  static const xnn_allocator allocator = {nullptr,         Allocate,         Reallocate,
                                          Deallocate,      AlignedAllocate,  AlignedDeallocate};
  return &allocator;
}

ReleaseBeforeEachPacking::ReleaseBeforeEachPacking(std::function<void(size_t)> release)
    : release_(std::move(release)), previous_(release_before_packing) {
  release_before_packing = &release_;
}

ReleaseBeforeEachPacking::~ReleaseBeforeEachPacking() { release_before_packing = previous_; }

bool PrefaultingEnabled() { return MappedBlocksEnabled(); }

size_t MappedBlockCount() {
  Mappings& mappings = TheMappings();
  std::lock_guard<std::mutex> lock(mappings.mutex);
  return mappings.lengths.size();
}

}  // namespace edgerun::xnnpack
