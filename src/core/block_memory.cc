#include "core/block_memory.h"

#include <algorithm>
#include <array>
#include <new>

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

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


constexpr size_t kHugePage = size_t{2} << 20;

// A block of 2 MiB and more starts on a 2 MiB boundary and asks for transparent huge pages
// (THP in "madvise" mode, Debian's default): each 2 MiB of it is then one page, not 512. On the
// development VM the first write of a 4 MiB block took 0.3 ms this way, against 9-11 ms in
// 4 KiB pages, populated or not (the hypervisor maps each small page on its first touch). The
// tail past the last 2 MiB boundary stays in small pages, so no memory is wasted.
// `bytes` (rounded up to pages) mapped from a 2 MiB boundary; null when out of memory.
void* MapAligned(size_t bytes) {
  const size_t span = bytes + kHugePage;
  void* region = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(region);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t end = aligned + (bytes + 4095) / 4096 * 4096;
  if (aligned > start) munmap(region, aligned - start);
  if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
  return reinterpret_cast<void*>(aligned);
}

void* MapHuge(size_t bytes) {
  void* block = MapAligned(bytes);
  if (block == nullptr) return nullptr;
  madvise(block, bytes, MADV_HUGEPAGE);
  // Not filled now (MADV_POPULATE_WRITE): each huge page comes with its first write, which costs
  // about what filling it ahead does, and a block being written while other memory is freed
  // (packing a 9 MiB filter as its file pages are released) grows as they shrink. Filled ahead, a
  // synthetic ResNet-18 reached 74 MiB for a moment, 9 MiB over what it keeps.
  return block;
}

// Blocks from a page up to 2 MiB (packed weights of one layer, scratch, a small arena) share
// 2 MiB chunks, each asking for one transparent huge page. Measured on the development VM: the
// first write of 40 blocks of 85 KiB took 4.8-5.4 ms as separate populated mappings (the
// hypervisor maps each 4 KiB page on its first touch, MAP_POPULATE or not) and 0.4-0.5 ms in
// huge-page chunks; that was most of the gap between a model's first inference and the next.
// A chunk keeps a sorted list of its free ranges (first fit, merged on free) and is unmapped when
// its last block is freed, so memory freed inside a chunk is used again and nothing outlives its
// blocks. The cost: a chunk's huge page is resident as a whole once touched (at most 2 MiB per
// chunk in use, where separate mappings held only their own pages).
class ChunkPool {
 public:
  void* Allocate(size_t bytes) {
    const size_t size = RoundToPage(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    for (Chunk& chunk : chunks_) {
      if (void* block = chunk.Take(size)) return block;
    }
    void* base = MapAligned(kHugePage);
    if (base == nullptr) return nullptr;
    madvise(base, kHugePage, MADV_HUGEPAGE);
    chunks_.push_back(Chunk{static_cast<uint8_t*>(base), {{0, kHugePage}}, 0});
    return chunks_.back().Take(size);
  }

  void Free(void* block, size_t bytes) {
    const size_t size = RoundToPage(bytes);
    auto* base = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(block) / kHugePage * kHugePage);
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < chunks_.size(); ++i) {
      if (chunks_[i].base != base) continue;
      if (chunks_[i].Give(static_cast<size_t>(static_cast<uint8_t*>(block) - base), size)) {
        munmap(base, kHugePage);
        chunks_.erase(chunks_.begin() + static_cast<ptrdiff_t>(i));
      }
      return;
    }
  }

  size_t chunks() {
    std::lock_guard<std::mutex> lock(mutex_);
    return chunks_.size();
  }

 private:
  struct Range {
    size_t offset, size;
  };
  struct Chunk {
    uint8_t* base;
    std::vector<Range> free;  // sorted by offset, never adjacent
    int live;

    void* Take(size_t size) {
      for (size_t i = 0; i < free.size(); ++i) {
        if (free[i].size < size) continue;
        uint8_t* block = base + free[i].offset;
        // A range freed before holds old bytes; a mapped block starts zeroed, as mmap gives it.
        if (free[i].offset < high_water) std::memset(block, 0, std::min(size, high_water - free[i].offset));
        free[i].offset += size;
        free[i].size -= size;
        if (free[i].size == 0) free.erase(free.begin() + static_cast<ptrdiff_t>(i));
        high_water = std::max(high_water, static_cast<size_t>(block - base) + size);
        ++live;
        return block;
      }
      return nullptr;
    }
    // True when the chunk is empty.
    bool Give(size_t offset, size_t size) {
      auto next = std::lower_bound(free.begin(), free.end(), offset,
                                   [](const Range& r, size_t o) { return r.offset < o; });
      next = free.insert(next, Range{offset, size});
      if (next + 1 != free.end() && next->offset + next->size == (next + 1)->offset) {
        next->size += (next + 1)->size;
        free.erase(next + 1);
      }
      if (next != free.begin() && (next - 1)->offset + (next - 1)->size == next->offset) {
        (next - 1)->size += next->size;
        free.erase(next);
      }
      return --live == 0;
    }
    size_t high_water = 0;  // bytes below this offset have been handed out before
  };

  static size_t RoundToPage(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

  std::mutex mutex_;
  std::vector<Chunk> chunks_;
};

ChunkPool& Pool() {
  static ChunkPool* pool = new ChunkPool;  // never destroyed: blocks may be freed at exit
  return *pool;
}

bool Pooled(size_t bytes) { return Mapped(bytes) && bytes < kHugePage; }

// Small blocks: 22 slot sizes (64-byte steps to 512, 256-byte steps to 4096), each served from
// 16 KiB slabs of its own (page blocks of the chunk pool above, so huge pages too). A slab keeps
// a list of its freed slots. Empty slabs go back to the pool, except the last one of each size:
// XNNPACK builds and drops a runtime per node it checks, and a slab (and with it, maybe, a whole
// chunk) given back and taken again each time would touch a fresh huge page each time.
class SmallPool {
 public:
  static constexpr size_t kSlabBytes = 16 * 1024;
  static constexpr int kSizes = 22;

  static int SizeIndex(size_t bytes) {
    return bytes <= 512 ? static_cast<int>((bytes + 63) / 64) - 1 : 8 + static_cast<int>((bytes - 512 + 255) / 256) - 1;
  }
  static size_t SlotBytes(int index) { return index < 8 ? static_cast<size_t>(index + 1) * 64 : 512 + static_cast<size_t>(index - 7) * 256; }

  void* Allocate(size_t bytes) {
    const int index = SizeIndex(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Slab*>& open = open_[index];
    while (!open.empty()) {
      Slab* slab = open.back();
      if (void* slot = slab->Take()) return slot;
      open.pop_back();  // full: back on the list when a slot is freed
      slab->listed = false;
    }
    void* base = AllocateBlock(kSlabBytes, 4096);
    if (base == nullptr) return nullptr;
    auto* slab = new (std::nothrow) Slab{static_cast<uint8_t*>(base), index, SlotBytes(index)};
    if (slab == nullptr) {
      FreeBlock(base, kSlabBytes);
      return nullptr;
    }
    slabs_.insert(std::upper_bound(slabs_.begin(), slabs_.end(), slab, ByBase), slab);
    open.push_back(slab);
    slab->listed = true;
    return slab->Take();
  }

  bool Free(void* block) {
    std::lock_guard<std::mutex> lock(mutex_);
    Slab* slab = Find(block);
    if (slab == nullptr) return false;
    slab->Give(block);
    std::vector<Slab*>& open = open_[slab->size_index];
    if (!slab->listed) {
      open.push_back(slab);
      slab->listed = true;
    }
    if (slab->live == 0 && open.size() > 1) {
      open.erase(std::find(open.begin(), open.end(), slab));
      slabs_.erase(std::find(slabs_.begin(), slabs_.end(), slab));
      FreeBlock(slab->base, kSlabBytes);
      delete slab;
    }
    return true;
  }

  size_t Capacity(const void* block) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Slab* slab = Find(block);
    return slab ? slab->slot_bytes : 0;
  }

  size_t slabs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return slabs_.size();
  }

  size_t blocks_in_use() {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t live = 0;
    for (const Slab* slab : slabs_) live += slab->live;
    return live;
  }

 private:
  struct Slab {
    uint8_t* base;
    int size_index;
    size_t slot_bytes;
    size_t bumped = 0;        // slots handed out from the top so far
    void* freed = nullptr;    // freed slots, each holding the next one's address
    size_t live = 0;
    bool listed = false;      // on open_[size_index]

    void* Take() {
      void* slot = nullptr;
      if (freed != nullptr) {
        slot = freed;
        std::memcpy(&freed, slot, sizeof(void*));
      } else if ((bumped + 1) * slot_bytes <= kSlabBytes) {
        slot = base + bumped++ * slot_bytes;
      } else {
        return nullptr;
      }
      ++live;
      return slot;
    }
    void Give(void* slot) {
      std::memcpy(slot, &freed, sizeof(void*));
      freed = slot;
      --live;
    }
  };

  static bool ByBase(const Slab* a, const Slab* b) { return a->base < b->base; }

  // The slab holding `block`, or null.
  Slab* Find(const void* block) const {
    const auto* p = static_cast<const uint8_t*>(block);
    auto it = std::upper_bound(slabs_.begin(), slabs_.end(), p, [](const uint8_t* q, const Slab* s) { return q < s->base; });
    if (it == slabs_.begin()) return nullptr;
    Slab* slab = *(it - 1);
    if (p >= slab->base + kSlabBytes) return nullptr;
    return slab;
  }

  std::mutex mutex_;
  std::vector<Slab*> slabs_;  // sorted by base
  std::array<std::vector<Slab*>, kSizes> open_;  // per slot size: slabs that may have room
};

SmallPool& Smalls() {
  static SmallPool* pool = new SmallPool;  // never destroyed: blocks may be freed at exit
  return *pool;
}

}  // namespace

bool MappedBlocksEnabled() { return kUseMappings; }

size_t PooledChunksForTesting() { return Pool().chunks(); }

void* AllocateBlock(size_t bytes, size_t alignment) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > 4096) return nullptr;
  if (Mapped(bytes) && bytes >= kHugePage) return MapHuge(bytes);
  if (Pooled(bytes)) return Pool().Allocate(bytes);  // page aligned: every alignment allowed here
  void* block = nullptr;
  if (posix_memalign(&block, alignment < sizeof(void*) ? sizeof(void*) : alignment, bytes) != 0) return nullptr;
  return block;
}

void FreeBlock(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (Pooled(bytes)) {
    Pool().Free(block, bytes);
  } else if (Mapped(bytes)) {
    munmap(block, bytes);
  } else {
    std::free(block);
  }
}

void* AllocateSmallBlock(size_t bytes) {
  if (!kUseMappings || bytes == 0 || bytes > kSmallBlockMaxBytes) return nullptr;
  return Smalls().Allocate(bytes);
}

bool FreeSmallBlock(void* block) {
  if (!kUseMappings || block == nullptr) return false;
  return Smalls().Free(block);
}

size_t SmallBlockCapacity(const void* block) {
  if (!kUseMappings || block == nullptr) return 0;
  return Smalls().Capacity(block);
}

size_t SmallBlockSlabsForTesting() { return Smalls().slabs(); }

size_t SmallBlocksInUseForTesting() { return Smalls().blocks_in_use(); }

void* AllocateMetadata(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (!kUseMappings) return std::aligned_alloc(64, (bytes + 63) / 64 * 64);  // the sanitizers see it
  return bytes <= kSmallBlockMaxBytes ? AllocateSmallBlock(bytes) : AllocateBlock(bytes, 64);
}

void FreeMetadata(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (bytes == 0) bytes = 1;
  if (!kUseMappings) {
    std::free(block);
  } else if (bytes <= kSmallBlockMaxBytes) {
    FreeSmallBlock(block);
  } else {
    FreeBlock(block, bytes);
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
