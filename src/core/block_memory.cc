#include "core/block_memory.h"

#include <algorithm>

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace edgerun {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUseMappings = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kUseMappings = false;
#else
constexpr bool kUseMappings = true;
#endif
#else
constexpr bool kUseMappings = true;
#endif

bool Mapped(size_t bytes) { return kUseMappings && bytes >= kMappedBlockMinBytes; }

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

constexpr size_t kHugePage = size_t{2} << 20;

// A block of 2 MiB and more starts on a 2 MiB boundary and asks for transparent huge pages
// (THP in "madvise" mode, Debian's default): each 2 MiB of it is then one page, not 512. On the
// development VM the first write of a 4 MiB block took 0.3 ms this way, against 9-11 ms in
// 4 KiB pages, populated or not (the hypervisor maps each small page on its first touch). The
// tail past the last 2 MiB boundary stays in small pages, so no memory is wasted.
void* MapHuge(size_t bytes) {
  const size_t span = bytes + kHugePage;
  void* region = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(region);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t end = aligned + (bytes + 4095) / 4096 * 4096;
  if (aligned > start) munmap(region, aligned - start);
  if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
  void* block = reinterpret_cast<void*>(aligned);
  madvise(block, bytes, MADV_HUGEPAGE);
  // Fill the pages now, like MAP_POPULATE (an older kernel refuses the advice: then on first touch).
  madvise(block, bytes, MADV_POPULATE_WRITE);
  return block;
}

}  // namespace

bool MappedBlocksEnabled() { return kUseMappings; }

void* AllocateBlock(size_t bytes, size_t alignment) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 4096) return nullptr;
  if (Mapped(bytes) && bytes >= kHugePage) return MapHuge(bytes);
  if (Mapped(bytes)) {
    // Page aligned, which satisfies every alignment allowed here.
    void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return block == MAP_FAILED ? nullptr : block;
  }
  void* block = nullptr;
  if (posix_memalign(&block, alignment < sizeof(void*) ? sizeof(void*) : alignment, bytes) != 0) return nullptr;
  return block;
}

void FreeBlock(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (Mapped(bytes)) {
    munmap(block, bytes);
  } else {
    std::free(block);
  }
}

std::vector<ByteRange> MergeByteRanges(std::vector<ByteRange> ranges, ptrdiff_t gap) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<ByteRange> merged;
  for (const ByteRange& range : ranges) {
    if (!merged.empty() && range.first - merged.back().second <= gap) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

}  // namespace edgerun
