// InfiniHostAllocator.h: pinned (page-locked) host memory for fast and truly asynchronous copies.
//
// Blocks come from infinirtMallocHost and are cached by power-of-two size. A block that an
// asynchronous copy used is reused only after an event recorded on that copy's stream completes,
// so that freeing a pinned tensor right after a non_blocking copy never corrupts the copy.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Stream.h>

namespace infini_torch {

c10::Allocator *getPinnedAllocator();
// True when ptr lies in memory from infinirtMallocHost.
bool isPinnedPtr(const void *ptr);
// Records that an asynchronous copy on stream uses the pinned block holding ptr.
void recordPinnedUse(const void *ptr, const c10::Stream &stream);
// Releases the cached pinned blocks that are free.
void emptyPinnedCache();

}  // namespace infini_torch
