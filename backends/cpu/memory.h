// memory.h: the CPU backend's memory: per-device accounted allocations, pinned host memory, copies.
//
// Device memory is host memory that the backend tracks, so that every copy can check that its
// pointers are of the kind it names and stay inside their allocation, as a real device would fault.
#pragma once

#include <infini/infinirt.h>

namespace infini::cpu {

infiniStatus_t mallocDevice(void **ptr, size_t size);
infiniStatus_t mallocHost(void **ptr, size_t size);
infiniStatus_t freeDevice(void *ptr);
infiniStatus_t freeHost(void *ptr);
infiniStatus_t mallocAsync(void **ptr, size_t size, infinirtStream_t stream);
infiniStatus_t freeAsync(void *ptr, infinirtStream_t stream);
infiniStatus_t memcpySync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
infiniStatus_t memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, infinirtStream_t stream);
infiniStatus_t memsetSync(void *ptr, int value, size_t size);
infiniStatus_t memsetAsync(void *ptr, int value, size_t size, infinirtStream_t stream);
infiniStatus_t pointerGetAttributes(infinirtPointerAttributes_t *attr, const void *ptr);
infiniStatus_t getMemInfo(int device, size_t *free_bytes, size_t *total_bytes);

}  // namespace infini::cpu
