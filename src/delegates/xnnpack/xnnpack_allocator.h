// The memory functions XNNPACK uses for its packed weights and workspaces (see the .cc for why).
// The header does not need xnnpack.h, so that tests build with or without XNNPACK.
#pragma once

#include <cstddef>
#include <functional>

struct xnn_allocator;

namespace edgerun::xnnpack {

// Passed to xnn_initialize: blocks of a page (4 KiB) and more come from huge-page memory
// (AllocateBlock).
const xnn_allocator* PrefaultingAllocator();

// False under the sanitizers (and without XNNPACK): every block then comes from malloc.
bool PrefaultingEnabled();

// While one is alive, every block of 64 KiB or more that XNNPACK allocates on this thread first
// calls `release` with the block's size. XNNPACK allocates an operator's packed weights just before packing them, so
// a `release` that lets go of the model file's pages of the partition's weights
// (Model::ReleaseResidentPages) drops those of the operators already packed: the file's pages
// and their packed copies are never all resident at once, which keeps down peak memory.
class ReleaseBeforeEachPacking {
 public:
  explicit ReleaseBeforeEachPacking(std::function<void(size_t)> release);
  ~ReleaseBeforeEachPacking();
  ReleaseBeforeEachPacking(const ReleaseBeforeEachPacking&) = delete;
  ReleaseBeforeEachPacking& operator=(const ReleaseBeforeEachPacking&) = delete;

 private:
  std::function<void(size_t)> release_;
  std::function<void(size_t)>* previous_;
};

// How many mapped blocks are live now (for tests: they must all be returned).
size_t MappedBlockCount();

}  // namespace edgerun::xnnpack
