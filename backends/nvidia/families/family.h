// families/family.h: the nvidia backend's generic kernel families (infini/families.h). Each family is one function
// in its own file; family.cu routes the backend's `family` entry to them with the handle's device current. A family
// checks what it needs on the host, then queues its kernels on the queue's stream and returns: no host
// synchronization. Data errors found by kernels (an index out of range) go into the device's error record
// (nvidia.h), reported by the next synchronization.
#pragma once

#include <cuda_runtime.h>
#include <infini/backend.h>

#include "../nvidia.h"

namespace infini::nvidia::families {

// Where a family's kernels go: the stream (NULL: the default stream), the handle's device (current during the
// call) and that device's error record.
struct Queue {
    cudaStream_t stream;
    int device;
    DeviceError *err;
};

infiniStatus_t pointwise(const infiniopPointwiseArgs_t &a, const Queue &q);
infiniStatus_t reduce(const infiniopReduceArgs_t &a, const Queue &q);
infiniStatus_t scan(const infiniopScanArgs_t &a, const Queue &q);
infiniStatus_t sort(const infiniopSortArgs_t &a, const Queue &q);
infiniStatus_t index(const infiniopIndexArgs_t &a, const Queue &q);
infiniStatus_t nonzero(const infiniopNonzeroArgs_t &a, const Queue &q);
infiniStatus_t random(const infiniopRandomArgs_t &a, const Queue &q);
infiniStatus_t rows(const infiniopRowsArgs_t &a, const Queue &q);
infiniStatus_t norm(const infiniopNormArgs_t &a, const Queue &q);
infiniStatus_t nllLoss(const infiniopNllLossArgs_t &a, const Queue &q);
infiniStatus_t sdpa(const infiniopSdpaArgs_t &a, const Queue &q);
infiniStatus_t window(const infiniopWindowArgs_t &a, const Queue &q);

// The backend's `family` entry.
infiniStatus_t family(infiniopHandle_t handle, infiniopFamily_t family, const void *args, infinirtStream_t stream);

// The name a family's data errors carry (DeviceError::op = kFamilyErrorOp + the family); backend.cpp's messages.
const char *familyErrorName(int op);

}  // namespace infini::nvidia::families
