// family.cu: the nvidia backend's `family` entry: makes the handle's device current for the call (and restores the
// caller's), resolves the stream and the device's error record, and routes to the family's function.
#include "family.h"

namespace infini::nvidia::families {

// A family not built into this library answers NOT_IMPLEMENTED (the glue then falls back to the CPU path); a
// family's own file replaces its stub with the real function.
#define INFINI_NV_FAMILY_STUB(fn, Args)                                                          \
    __attribute__((weak)) infiniStatus_t fn(const Args &, const Ctx &) {                         \
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

// Makes `device` current for the calling thread while it lives (the caller's device comes back after).
class DeviceScope {
   public:
    explicit DeviceScope(int device) {
        if (cudaGetDevice(&old_) != cudaSuccess) {
            cudaGetLastError();
            old_ = -1;
        }
        if (old_ != device) {
            status_ = cudaSetDevice(device);
            switched_ = status_ == cudaSuccess;
        }
    }
    ~DeviceScope() {
        if (switched_ && old_ >= 0) cudaSetDevice(old_);
    }
    cudaError_t status() const { return status_; }

   private:
    int old_ = -1;
    bool switched_ = false;
    cudaError_t status_ = cudaSuccess;
};

infiniStatus_t route(infiniopFamily_t family, const void *args, const Ctx &ctx) {
    switch (family) {
        case INFINIOP_FAMILY_POINTWISE: return pointwise(*static_cast<const infiniopPointwiseArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_REDUCE: return reduce(*static_cast<const infiniopReduceArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_SCAN: return scan(*static_cast<const infiniopScanArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_SORT: return sort(*static_cast<const infiniopSortArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_INDEX: return index(*static_cast<const infiniopIndexArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_NONZERO: return nonzero(*static_cast<const infiniopNonzeroArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_RANDOM: return random(*static_cast<const infiniopRandomArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_ROWS: return rows(*static_cast<const infiniopRowsArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_NORM: return norm(*static_cast<const infiniopNormArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_NLL_LOSS: return nllLoss(*static_cast<const infiniopNllLossArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_SDPA: return sdpa(*static_cast<const infiniopSdpaArgs_t *>(args), ctx);
        case INFINIOP_FAMILY_WINDOW: return window(*static_cast<const infiniopWindowArgs_t *>(args), ctx);
        default: return fail(INFINI_STATUS_NOT_IMPLEMENTED, "family %d is not provided by the nvidia backend", family);
    }
}

}  // namespace

infiniStatus_t family(infiniopHandle_t handle, infiniopFamily_t family, const void *args, infinirtStream_t stream) {
    const int device = handle->device_id;
    DeviceScope scope(device);
    if (scope.status() != cudaSuccess) return cudaFail(scope.status(), "cudaSetDevice");
    DeviceError *err = deviceErrorSlot(device);
    if (err == nullptr) return fail(INFINI_STATUS_INTERNAL_ERROR, "could not map the device error record");
    Ctx ctx{stream == INFINIRT_STREAM_CALLER ? nullptr : static_cast<cudaStream_t>(stream), err, device};
    return route(family, args, ctx);
}

}  // namespace infini::nvidia::families
