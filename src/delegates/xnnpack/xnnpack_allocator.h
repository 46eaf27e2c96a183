// The memory functions XNNPACK uses for its packed weights and workspaces (see the .cc for why).
// The header does not need xnnpack.h, so that tests build with or without XNNPACK.
#pragma once

#include <cstddef>

struct xnn_allocator;

namespace edgerun::xnnpack {

// Passed to xnn_initialize: blocks of 64 KiB and more come pre-faulted from mmap.
const xnn_allocator* PrefaultingAllocator();

// False under the sanitizers (and without XNNPACK): every block then comes from malloc.
bool PrefaultingEnabled();

// How many mapped blocks are live now (for tests: they must all be returned).
size_t MappedBlockCount();

}  // namespace edgerun::xnnpack
