// The allocator edgerun hands to xnn_initialize.
//
// Why: building an XNNPACK runtime packs every weight into fresh memory, and XNNPACK fills each
// packed buffer with a memset before packing into it. With malloc, every 4 KiB page of that
// memory is then faulted in one by one; on a virtual machine a page fault is an exit to the
// hypervisor, and for coral MobileNet v2 (3.4 MiB of weights) those faults were about half of
// `AllocateTensors`. Large blocks are therefore mapped with MAP_POPULATE, which makes the kernel
// fill the pages in one pass inside the mmap call. Small blocks, and everything under the
// sanitizers (which must see every allocation), stay on malloc.
#include "delegates/xnnpack/xnnpack_allocator.h"

#include <xnnpack.h>

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace edgerun::xnnpack {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUseMappings = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kUseMappings = false;
#else
constexpr bool kUseMappings = true;
#endif
#else
constexpr bool kUseMappings = true;
#endif

// Below this, malloc's own pools serve the block faster than a system call would.
constexpr size_t kMappedMinBytes = 64 * 1024;

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

void* Allocate(void*, size_t size) { return std::malloc(size); }
void* Reallocate(void*, void* pointer, size_t size) { return std::realloc(pointer, size); }
void Deallocate(void*, void* pointer) { std::free(pointer); }

void* AlignedAllocate(void*, size_t alignment, size_t size) {
  if (release_before_packing != nullptr && size >= kMappedMinBytes) (*release_before_packing)(size);
  // mmap returns page-aligned memory, which satisfies every alignment XNNPACK asks for (64).
  if (kUseMappings && size >= kMappedMinBytes && alignment <= 4096) {
    void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (block != MAP_FAILED) {
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
  if (pointer == nullptr) return;
  if (kUseMappings) {
    Mappings& mappings = TheMappings();
    std::unique_lock<std::mutex> lock(mappings.mutex);
    auto it = mappings.lengths.find(pointer);
    if (it != mappings.lengths.end()) {
      size_t length = it->second;
      mappings.lengths.erase(it);
      lock.unlock();
      munmap(pointer, length);
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

bool PrefaultingEnabled() { return kUseMappings; }

size_t MappedBlockCount() {
  Mappings& mappings = TheMappings();
  std::lock_guard<std::mutex> lock(mappings.mutex);
  return mappings.lengths.size();
}

}  // namespace edgerun::xnnpack
