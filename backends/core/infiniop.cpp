// infiniop.cpp: operator handles (made by the current device's backend, tracked here so that a stale
// or foreign handle is an error status) and tensor descriptors (plain data, owned by the core).
#include <infini/backend.h>

#include <cstring>
#include <mutex>
#include <new>

#include "../common/error.h"
#include "live_set.h"
#include "loader.h"

using infini::fail;

namespace infini::core {

LiveSet<infiniopHandle_t> &liveHandles() {
    static auto *s = new LiveSet<infiniopHandle_t>();
    return *s;
}

LiveSet<infiniopTensorDescriptor_t> &liveTensorDescriptors() {
    static auto *s = new LiveSet<infiniopTensorDescriptor_t>();
    return *s;
}

}  // namespace infini::core

using infini::core::liveHandles;
using infini::core::liveTensorDescriptors;

namespace {

constexpr size_t kMaxDims = 64;

}  // namespace

INFINI_API infiniStatus_t infiniopCreateHandle(infiniopHandle_t *handle_ptr) {
    INFINI_CHECK_NOT_NULL("infiniopCreateHandle", handle_ptr);
    infiniDevice_t type;
    int id;
    INFINI_RETURN_IF_ERROR(infinirtGetDevice(&type, &id));
    const infiniBackend_t *b = infini::core::backendFor(type);
    if (b == nullptr) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "infiniopCreateHandle: no %s backend is loaded",
                    infiniGetDeviceTypeName(type));
    }
    infiniopHandle_t handle = nullptr;
    if (infiniStatus_t s = b->create_handle(&handle); s != INFINI_STATUS_SUCCESS) {
        return fail(s, "infiniopCreateHandle: %s", b->last_error_message());
    }
    liveHandles().add(handle);
    *handle_ptr = handle;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopDestroyHandle(infiniopHandle_t handle) {
    INFINI_CHECK_NOT_NULL("infiniopDestroyHandle", handle);
    if (!liveHandles().remove(handle)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopDestroyHandle: %p is not a live handle", (void *)handle);
    }
    const infiniBackend_t *b = infini::core::backendFor(handle->device);
    if (infiniStatus_t s = b->destroy_handle(handle); s != INFINI_STATUS_SUCCESS) {
        return fail(s, "infiniopDestroyHandle: %s", b->last_error_message());
    }
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopGetHandleDevice(infiniopHandle_t handle, infiniDevice_t *device, int *device_id) {
    INFINI_CHECK_NOT_NULL("infiniopGetHandleDevice", handle);
    INFINI_CHECK_NOT_NULL("infiniopGetHandleDevice", device);
    INFINI_CHECK_NOT_NULL("infiniopGetHandleDevice", device_id);
    if (!liveHandles().contains(handle)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopGetHandleDevice: %p is not a live handle", (void *)handle);
    }
    *device = handle->device;
    *device_id = handle->device_id;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopCreateTensorDescriptor(infiniopTensorDescriptor_t *desc_ptr, size_t ndim,
                                                         const size_t *shape, const ptrdiff_t *strides,
                                                         infiniDtype_t dtype) {
    const char *api = "infiniopCreateTensorDescriptor";
    INFINI_CHECK_NOT_NULL(api, desc_ptr);
    if (ndim > kMaxDims) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: ndim %zu exceeds %zu", api, ndim, kMaxDims);
    if (ndim > 0) INFINI_CHECK_NOT_NULL(api, shape);
    if (infiniSizeOf(dtype) == 0) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %d is not a dtype", api, dtype);
    // One allocation: the struct, then shape, then strides.
    size_t bytes = sizeof(InfiniopTensorDescriptor) + ndim * (sizeof(size_t) + sizeof(ptrdiff_t));
    auto *raw = static_cast<char *>(::operator new(bytes, std::nothrow));
    if (raw == nullptr) return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: host allocation failed", api);
    auto *desc = reinterpret_cast<InfiniopTensorDescriptor *>(raw);
    desc->dtype = dtype;
    desc->ndim = ndim;
    desc->shape = reinterpret_cast<size_t *>(raw + sizeof(InfiniopTensorDescriptor));
    desc->strides = reinterpret_cast<ptrdiff_t *>(desc->shape + ndim);
    if (ndim > 0) std::memcpy(desc->shape, shape, ndim * sizeof(size_t));
    ptrdiff_t running = 1;
    for (size_t i = ndim; i-- > 0;) {
        desc->strides[i] = strides ? strides[i] : running;
        running *= static_cast<ptrdiff_t>(shape[i] > 0 ? shape[i] : 1);
    }
    liveTensorDescriptors().add(desc);
    *desc_ptr = desc;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopDestroyTensorDescriptor(infiniopTensorDescriptor_t desc) {
    INFINI_CHECK_NOT_NULL("infiniopDestroyTensorDescriptor", desc);
    if (!liveTensorDescriptors().remove(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopDestroyTensorDescriptor: %p is not a live descriptor",
                    (void *)desc);
    }
    ::operator delete(desc);
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopGetTensorDescriptor(infiniopTensorDescriptor_t desc, size_t *ndim, size_t *shape,
                                                      ptrdiff_t *strides, infiniDtype_t *dtype) {
    INFINI_CHECK_NOT_NULL("infiniopGetTensorDescriptor", desc);
    if (!liveTensorDescriptors().contains(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopGetTensorDescriptor: %p is not a live descriptor",
                    (void *)desc);
    }
    if (ndim) *ndim = desc->ndim;
    if (shape && desc->ndim) std::memcpy(shape, desc->shape, desc->ndim * sizeof(size_t));
    if (strides && desc->ndim) std::memcpy(strides, desc->strides, desc->ndim * sizeof(ptrdiff_t));
    if (dtype) *dtype = desc->dtype;
    return INFINI_STATUS_SUCCESS;
}
