// families/family.cu: the nvidia backend's `family` entry: the handle's device made current for the call, the
// stream resolved, then the family's function. A family not built into this library answers NOT_IMPLEMENTED
// (the glue then falls back to its CPU path): each file defines its family's function, replacing the weak stub.
#include "family.h"

namespace infini::nvidia::families {

#define INFINI_NV_FAMILY_STUB(fn, Args)                                                       \
    __attribute__((weak)) infiniStatus_t fn(const Args &, const Queue &) {                  \
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "the nvidia backend has no " #fn " kernels"); \
    }
INFINI_NV_FAMILY_STUB(pointwise, infiniopPointwiseArgs_t)
INFINI_NV_FAMILY_STUB(reduce, infiniopReduceArgs_t)
INFINI_NV_FAMILY_STUB(scan, infiniopScanArgs_t)
INFINI_NV_FAMILY_STUB(sort, infiniopSortArgs_t)
INFINI_NV_FAMILY_STUB(index, infiniopIndexArgs_t)
INFINI_NV_FAMILY_STUB(nonzero, infiniopNonzeroArgs_t)
INFINI_NV_FAMILY_STUB(random, infiniopRandomArgs_t)
INFINI_NV_FAMILY_STUB(rows, infiniopRowsArgs_t)
INFINI_NV_FAMILY_STUB(norm, infiniopNormArgs_t)
INFINI_NV_FAMILY_STUB(nllLoss, infiniopNllLossArgs_t)
INFINI_NV_FAMILY_STUB(sdpa, infiniopSdpaArgs_t)
INFINI_NV_FAMILY_STUB(window, infiniopWindowArgs_t)
#undef INFINI_NV_FAMILY_STUB

namespace {

// Makes `device` current for the call's scope (restoring the caller's device after), as the handle's device may
// not be the thread's current one.
class DeviceScope {
  public:
    explicit DeviceScope(int device) {
        if (cudaGetDevice(&old_) != cudaSuccess) {
            cudaGetLastError();
            old_ = -1;
        }
        if (old_ != device) status_ = cudaSetDevice(device);
    }
    ~DeviceScope() {
        if (status_ == cudaSuccess && old_ >= 0) cudaSetDevice(old_);
    }
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    cudaError_t status() const { return status_; }

  private:
    int old_ = -1;
    cudaError_t status_ = cudaSuccess;
};

}  // namespace

const char *familyErrorName(int op) {
    switch (op - kFamilyErrorOp) {
        case INFINIOP_FAMILY_INDEX: return "index";
        case INFINIOP_FAMILY_NLL_LOSS: return "nll_loss";
        case INFINIOP_FAMILY_WINDOW: return "max_pool_backward";
        default: return "a kernel family";
    }
}

infiniStatus_t family(infiniopHandle_t handle, infiniopFamily_t family, const void *args, infinirtStream_t stream) {
    const int dev = handle->device_id;
    DeviceScope scope(dev);
    if (scope.status() != cudaSuccess) return cudaFail(scope.status(), "cudaSetDevice");
    DeviceError *err = deviceErrorSlot(dev);
    if (err == nullptr) return fail(INFINI_STATUS_INTERNAL_ERROR, "could not map the device error record");
    const Queue q{stream == INFINIRT_STREAM_CALLER ? nullptr : static_cast<cudaStream_t>(stream), dev, err};
    switch (family) {
        case INFINIOP_FAMILY_POINTWISE: return pointwise(*static_cast<const infiniopPointwiseArgs_t *>(args), q);
        case INFINIOP_FAMILY_REDUCE: return reduce(*static_cast<const infiniopReduceArgs_t *>(args), q);
        case INFINIOP_FAMILY_SCAN: return scan(*static_cast<const infiniopScanArgs_t *>(args), q);
        case INFINIOP_FAMILY_SORT: return sort(*static_cast<const infiniopSortArgs_t *>(args), q);
        case INFINIOP_FAMILY_INDEX: return index(*static_cast<const infiniopIndexArgs_t *>(args), q);
        case INFINIOP_FAMILY_NONZERO: return nonzero(*static_cast<const infiniopNonzeroArgs_t *>(args), q);
        case INFINIOP_FAMILY_RANDOM: return random(*static_cast<const infiniopRandomArgs_t *>(args), q);
        case INFINIOP_FAMILY_ROWS: return rows(*static_cast<const infiniopRowsArgs_t *>(args), q);
        case INFINIOP_FAMILY_NORM: return norm(*static_cast<const infiniopNormArgs_t *>(args), q);
        case INFINIOP_FAMILY_NLL_LOSS: return nllLoss(*static_cast<const infiniopNllLossArgs_t *>(args), q);
        case INFINIOP_FAMILY_SDPA: return sdpa(*static_cast<const infiniopSdpaArgs_t *>(args), q);
        case INFINIOP_FAMILY_WINDOW: return window(*static_cast<const infiniopWindowArgs_t *>(args), q);
        default: return fail(INFINI_STATUS_NOT_IMPLEMENTED, "family %d is not provided by the nvidia backend", family);
    }
}

}  // namespace infini::nvidia::families
