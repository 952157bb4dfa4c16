// family.h: the nvidia backend's generic kernel families (infini/families.h). Each family is one function in its
// own file; family.cu routes the backend's `family` entry to them, on the handle's device. A family checks its
// arguments on the host, then queues kernels on the stream and returns without synchronizing. A kernel that finds
// bad data (an index out of range) records it in the device's error record (nvidia.h), reported at the next
// synchronization.
#pragma once

#include <cuda_runtime.h>
#include <infini/backend.h>

#include "../nvidia.h"

namespace infini::nvidia::families {

// What every family call gets besides its arguments.
struct Ctx {
    cudaStream_t stream;  // the stream to queue on (NULL: the device's default stream)
    DeviceError *err;     // the device's error record (device-side pointer)
    int device;
};

infiniStatus_t pointwise(const infiniopPointwiseArgs_t &a, const Ctx &ctx);
infiniStatus_t reduce(const infiniopReduceArgs_t &a, const Ctx &ctx);
infiniStatus_t scan(const infiniopScanArgs_t &a, const Ctx &ctx);
infiniStatus_t sort(const infiniopSortArgs_t &a, const Ctx &ctx);
infiniStatus_t index(const infiniopIndexArgs_t &a, const Ctx &ctx);
infiniStatus_t nonzero(const infiniopNonzeroArgs_t &a, const Ctx &ctx);
infiniStatus_t random(const infiniopRandomArgs_t &a, const Ctx &ctx);
infiniStatus_t rows(const infiniopRowsArgs_t &a, const Ctx &ctx);
infiniStatus_t norm(const infiniopNormArgs_t &a, const Ctx &ctx);
infiniStatus_t nllLoss(const infiniopNllLossArgs_t &a, const Ctx &ctx);
infiniStatus_t sdpa(const infiniopSdpaArgs_t &a, const Ctx &ctx);
infiniStatus_t window(const infiniopWindowArgs_t &a, const Ctx &ctx);

// The op code a family's kernels record in DeviceError::op: kFamilyOpBase + the infiniopFamily_t (backend.cpp
// names it after the family).
constexpr int kFamilyOpBase = 1000;

// The backend's `family` entry.
infiniStatus_t family(infiniopHandle_t handle, infiniopFamily_t family, const void *args, infinirtStream_t stream);

}  // namespace infini::nvidia::families
