// InfiniAllocator.h: the caching device allocator for "infini" tensors.
//
// Blocks come from segments obtained with infinirtMalloc and are cached per device and per stream:
// requests up to 1 MiB share 2 MiB segments (the small pool), larger ones come from 20 MiB segments
// or their own (the large pool); a cached block is split to fit and merged with free neighbours
// on release. A block used on other streams (record_stream) is reused only after events recorded
// on those streams complete. When infinirtMalloc fails, the cache is released and the allocation
// retried once; if it fails again, torch.OutOfMemoryError says what was asked and what is free.
//
// Private pools (graphs, InfiniGraph.h): while a stream captures, allocations made on it come from the private
// pool of the capture, a set of segments no other allocation uses. A block freed there goes back to that pool
// only (later allocations of captures into the same pool may reuse it, in stream order). The pool's segments stay
// reserved while a graph holds the pool; once none does, empty_cache releases those not in use.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

namespace infini_torch {

c10::DeviceAllocator *getDeviceAllocator();

// Releases the cached, unused segments of every device.
void emptyCache();

// Devices statistics in torch's format.
c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device);

// Allocations on `stream` of `device` come from private pool `pool` (made, or held once more) until
// endAllocateToPool; a stream routes to one pool at a time.
void beginAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool, c10::StreamId stream);
void endAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool, c10::StreamId stream);
// Drops one hold on the pool (taken by beginAllocateToPool).
void releasePool(c10::DeviceIndex device, c10::MempoolId_t pool);
// Bytes of the segments the pool owns.
size_t poolReservedBytes(c10::DeviceIndex device, c10::MempoolId_t pool);

}  // namespace infini_torch
