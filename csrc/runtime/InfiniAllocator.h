// InfiniAllocator.h: the caching device allocator for "infini" tensors.
//
// Blocks come from segments obtained with infinirtMalloc and are cached per device and per stream:
// requests up to 1 MiB share 2 MiB segments (the small pool), larger ones come from 20 MiB segments
// or their own (the large pool); a cached block is split to fit and merged with free neighbours
// on release. A block used on other streams (record_stream) is reused only after events recorded
// on those streams complete. When infinirtMalloc fails, the cache is released and the allocation
// retried once; if it fails again, torch.OutOfMemoryError says what was asked and what is free.
#pragma once

#include <c10/core/CachingDeviceAllocator.h>

namespace infini_torch {

c10::DeviceAllocator *getDeviceAllocator();

// Releases the cached, unused segments of every device.
void emptyCache();

// Devices statistics in torch's format.
c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device);

}  // namespace infini_torch
