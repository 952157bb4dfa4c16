// family.h: the cpu backend's generic kernel families (infini/families.h). Each family is one function in its
// own file; family.cpp routes the backend's `family` entry to them. The kernels run on the device's stream worker
// (or at once for INFINIRT_STREAM_CALLER) on host memory, split over the kernel threads with ops' parallelFor.
// A kernel that finds bad data (an index out of range) throws: the stream keeps the error for the next
// synchronization, as a device fault would be reported.
#pragma once

#include <infini/backend.h>

#include <functional>

namespace infini::cpu::families {

// Runs work now (INFINIRT_STREAM_CALLER) or queues it on the stream; the work owns copies of what it reads.
infiniStatus_t submit(infinirtStream_t stream, std::function<void()> work);

infiniStatus_t pointwise(const infiniopPointwiseArgs_t &a, infinirtStream_t stream);
infiniStatus_t reduce(const infiniopReduceArgs_t &a, infinirtStream_t stream);
infiniStatus_t scan(const infiniopScanArgs_t &a, infinirtStream_t stream);
infiniStatus_t sort(const infiniopSortArgs_t &a, infinirtStream_t stream);
infiniStatus_t index(const infiniopIndexArgs_t &a, infinirtStream_t stream);
infiniStatus_t nonzero(const infiniopNonzeroArgs_t &a, infinirtStream_t stream);
infiniStatus_t random(const infiniopRandomArgs_t &a, infinirtStream_t stream);
infiniStatus_t rows(const infiniopRowsArgs_t &a, infinirtStream_t stream);
infiniStatus_t norm(const infiniopNormArgs_t &a, infinirtStream_t stream);
infiniStatus_t nllLoss(const infiniopNllLossArgs_t &a, infinirtStream_t stream);
infiniStatus_t sdpa(const infiniopSdpaArgs_t &a, infinirtStream_t stream);
infiniStatus_t window(const infiniopWindowArgs_t &a, infinirtStream_t stream);

// The backend's `family` entry.
infiniStatus_t family(infiniopHandle_t handle, infiniopFamily_t family, const void *args, infinirtStream_t stream);

}  // namespace infini::cpu::families
