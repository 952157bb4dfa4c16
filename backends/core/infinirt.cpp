// infinirt.cpp: the public runtime API. Keeps each thread's current device and forwards every call
// to the backend of that device type, prefixing the backend's error message with the API name.
#include <infini/infinirt.h>

#include "../common/error.h"
#include "loader.h"

using infini::fail;
using infini::core::backendFor;
using infini::core::deviceCount;

namespace {

struct CurrentDevice {
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = 0;
};
thread_local CurrentDevice current_device;

infiniStatus_t backendOf(const char *api, int type, const infiniBackend_t **out) {
    if (type < 0 || type >= INFINI_DEVICE_TYPE_COUNT) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not a device type", api, type);
    }
    *out = backendFor(type);
    if (*out == nullptr) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                    "%s: no %s backend is loaded (infinirtGetBackendInfo tells why)", api,
                    infiniGetDeviceTypeName(static_cast<infiniDevice_t>(type)));
    }
    return INFINI_STATUS_SUCCESS;
}

// Prefixes a backend failure's message with the API name.
infiniStatus_t forward(const char *api, const infiniBackend_t *b, infiniStatus_t status) {
    if (status != INFINI_STATUS_SUCCESS) {
        infini::lastErrorMessage() = std::string(api) + ": " + b->last_error_message();
    }
    return status;
}

infiniStatus_t checkDevice(const char *api, infiniDevice_t type, int id, const infiniBackend_t **b) {
    INFINI_RETURN_IF_ERROR(backendOf(api, type, b));
    int count = deviceCount(type);
    if (id < 0 || id >= count) {
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "%s: device %s:%d does not exist (%d %s device%s)", api,
                    infiniGetDeviceTypeName(type), id, count, infiniGetDeviceTypeName(type), count == 1 ? "" : "s");
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

// Routes to the current device type's backend: ROUTE("infinirtX", field, args...).
#define ROUTE(api, field, ...)                                            \
    do {                                                                  \
        const infiniBackend_t *b_ = nullptr;                              \
        INFINI_RETURN_IF_ERROR(backendOf(api, current_device.type, &b_)); \
        return forward(api, b_, b_->field(__VA_ARGS__));                  \
    } while (0)

INFINI_API infiniStatus_t infinirtInit(void) {
    for (const auto &lib : infini::core::libraries()) {
        if (lib.loaded) return INFINI_STATUS_SUCCESS;
    }
    return fail(INFINI_STATUS_DEVICE_NOT_INITIALIZED,
                "infinirtInit: no backend library could be loaded (infinirtGetBackendInfo tells why)");
}

INFINI_API infiniStatus_t infinirtGetAllDeviceCount(int *count_array) {
    INFINI_CHECK_NOT_NULL("infinirtGetAllDeviceCount", count_array);
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) count_array[t] = deviceCount(t);
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count) {
    INFINI_CHECK_NOT_NULL("infinirtGetDeviceCount", count);
    if (device < 0 || device >= INFINI_DEVICE_TYPE_COUNT) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtGetDeviceCount: %d is not a device type", device);
    }
    *count = deviceCount(device);
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtSetDevice(infiniDevice_t device, int device_id) {
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(checkDevice("infinirtSetDevice", device, device_id, &b));
    INFINI_RETURN_IF_ERROR(forward("infinirtSetDevice", b, b->set_device(device_id)));
    current_device.type = device;
    current_device.id = device_id;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtGetDevice(infiniDevice_t *device_ptr, int *device_id_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtGetDevice", device_ptr);
    INFINI_CHECK_NOT_NULL("infinirtGetDevice", device_id_ptr);
    *device_ptr = current_device.type;
    *device_id_ptr = current_device.id;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtDeviceSynchronize(void) { ROUTE("infinirtDeviceSynchronize", device_synchronize); }

INFINI_API infiniStatus_t infinirtGetMemInfo(infiniDevice_t device, int device_id, size_t *free_bytes,
                                             size_t *total_bytes) {
    INFINI_CHECK_NOT_NULL("infinirtGetMemInfo", free_bytes);
    INFINI_CHECK_NOT_NULL("infinirtGetMemInfo", total_bytes);
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(checkDevice("infinirtGetMemInfo", device, device_id, &b));
    return forward("infinirtGetMemInfo", b, b->get_mem_info(device_id, free_bytes, total_bytes));
}

INFINI_API infiniStatus_t infinirtGetDeviceName(infiniDevice_t device, int device_id, char *name, size_t len) {
    INFINI_CHECK_NOT_NULL("infinirtGetDeviceName", name);
    if (len == 0) return fail(INFINI_STATUS_BAD_PARAM, "infinirtGetDeviceName: len is 0");
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(checkDevice("infinirtGetDeviceName", device, device_id, &b));
    return forward("infinirtGetDeviceName", b, b->get_device_name(device_id, name, len));
}

INFINI_API infiniStatus_t infinirtStreamCreate(infinirtStream_t *stream_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtStreamCreate", stream_ptr);
    ROUTE("infinirtStreamCreate", stream_create, stream_ptr);
}

INFINI_API infiniStatus_t infinirtStreamDestroy(infinirtStream_t stream) {
    if (stream == nullptr)
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamDestroy: the default stream cannot be destroyed");
    ROUTE("infinirtStreamDestroy", stream_destroy, stream);
}

INFINI_API infiniStatus_t infinirtStreamSynchronize(infinirtStream_t stream) {
    ROUTE("infinirtStreamSynchronize", stream_synchronize, stream);
}

INFINI_API infiniStatus_t infinirtStreamQuery(infinirtStream_t stream, infinirtEventStatus_t *status_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtStreamQuery", status_ptr);
    ROUTE("infinirtStreamQuery", stream_query, stream, status_ptr);
}

INFINI_API infiniStatus_t infinirtStreamWaitEvent(infinirtStream_t stream, infinirtEvent_t event) {
    INFINI_CHECK_NOT_NULL("infinirtStreamWaitEvent", event);
    ROUTE("infinirtStreamWaitEvent", stream_wait_event, stream, event);
}

INFINI_API infiniStatus_t infinirtLaunchHostFunc(infinirtStream_t stream, void (*fn)(void *), void *user_data) {
    INFINI_CHECK_NOT_NULL("infinirtLaunchHostFunc", fn);
    ROUTE("infinirtLaunchHostFunc", launch_host_func, stream, fn, user_data);
}

INFINI_API infiniStatus_t infinirtEventCreate(infinirtEvent_t *event_ptr) {
    return infinirtEventCreateWithFlags(event_ptr, INFINIRT_EVENT_DEFAULT);
}

INFINI_API infiniStatus_t infinirtEventCreateWithFlags(infinirtEvent_t *event_ptr, uint32_t flags) {
    INFINI_CHECK_NOT_NULL("infinirtEventCreate", event_ptr);
    if (flags & ~uint32_t(INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtEventCreateWithFlags: unknown flags 0x%x", flags);
    }
    ROUTE("infinirtEventCreate", event_create, event_ptr, flags);
}

INFINI_API infiniStatus_t infinirtEventRecord(infinirtEvent_t event, infinirtStream_t stream) {
    INFINI_CHECK_NOT_NULL("infinirtEventRecord", event);
    ROUTE("infinirtEventRecord", event_record, event, stream);
}

INFINI_API infiniStatus_t infinirtEventQuery(infinirtEvent_t event, infinirtEventStatus_t *status_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtEventQuery", event);
    INFINI_CHECK_NOT_NULL("infinirtEventQuery", status_ptr);
    ROUTE("infinirtEventQuery", event_query, event, status_ptr);
}

INFINI_API infiniStatus_t infinirtEventSynchronize(infinirtEvent_t event) {
    INFINI_CHECK_NOT_NULL("infinirtEventSynchronize", event);
    ROUTE("infinirtEventSynchronize", event_synchronize, event);
}

INFINI_API infiniStatus_t infinirtEventDestroy(infinirtEvent_t event) {
    INFINI_CHECK_NOT_NULL("infinirtEventDestroy", event);
    ROUTE("infinirtEventDestroy", event_destroy, event);
}

INFINI_API infiniStatus_t infinirtEventElapsedTime(float *ms_ptr, infinirtEvent_t start, infinirtEvent_t end) {
    INFINI_CHECK_NOT_NULL("infinirtEventElapsedTime", ms_ptr);
    INFINI_CHECK_NOT_NULL("infinirtEventElapsedTime", start);
    INFINI_CHECK_NOT_NULL("infinirtEventElapsedTime", end);
    ROUTE("infinirtEventElapsedTime", event_elapsed_time, ms_ptr, start, end);
}

INFINI_API infiniStatus_t infinirtMalloc(void **p_ptr, size_t size) {
    INFINI_CHECK_NOT_NULL("infinirtMalloc", p_ptr);
    ROUTE("infinirtMalloc", malloc_device, p_ptr, size);
}

INFINI_API infiniStatus_t infinirtMallocHost(void **p_ptr, size_t size) {
    INFINI_CHECK_NOT_NULL("infinirtMallocHost", p_ptr);
    ROUTE("infinirtMallocHost", malloc_host, p_ptr, size);
}

INFINI_API infiniStatus_t infinirtFree(void *ptr) { ROUTE("infinirtFree", free_device, ptr); }

INFINI_API infiniStatus_t infinirtFreeHost(void *ptr) { ROUTE("infinirtFreeHost", free_host, ptr); }

static infiniStatus_t checkCopy(const char *api, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    if (kind < INFINIRT_MEMCPY_H2H || kind > INFINIRT_MEMCPY_D2D) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not a memcpy kind", api, static_cast<int>(kind));
    }
    if (size > 0 && (dst == nullptr || src == nullptr)) {
        return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", api, dst == nullptr ? "dst" : "src");
    }
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtMemcpy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    INFINI_RETURN_IF_ERROR(checkCopy("infinirtMemcpy", dst, src, size, kind));
    ROUTE("infinirtMemcpy", memcpy_sync, dst, src, size, kind);
}

INFINI_API infiniStatus_t infinirtMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                              infinirtStream_t stream) {
    INFINI_RETURN_IF_ERROR(checkCopy("infinirtMemcpyAsync", dst, src, size, kind));
    ROUTE("infinirtMemcpyAsync", memcpy_async, dst, src, size, kind, stream);
}

INFINI_API infiniStatus_t infinirtMallocAsync(void **p_ptr, size_t size, infinirtStream_t stream) {
    INFINI_CHECK_NOT_NULL("infinirtMallocAsync", p_ptr);
    ROUTE("infinirtMallocAsync", malloc_async, p_ptr, size, stream);
}

INFINI_API infiniStatus_t infinirtFreeAsync(void *ptr, infinirtStream_t stream) {
    ROUTE("infinirtFreeAsync", free_async, ptr, stream);
}

INFINI_API infiniStatus_t infinirtMemset(void *ptr, int value, size_t size) {
    if (size > 0) INFINI_CHECK_NOT_NULL("infinirtMemset", ptr);
    ROUTE("infinirtMemset", memset_sync, ptr, value, size);
}

INFINI_API infiniStatus_t infinirtMemsetAsync(void *ptr, int value, size_t size, infinirtStream_t stream) {
    if (size > 0) INFINI_CHECK_NOT_NULL("infinirtMemsetAsync", ptr);
    ROUTE("infinirtMemsetAsync", memset_async, ptr, value, size, stream);
}

INFINI_API infiniStatus_t infinirtPointerGetAttributes(infinirtPointerAttributes_t *attr, const void *ptr) {
    INFINI_CHECK_NOT_NULL("infinirtPointerGetAttributes", attr);
    ROUTE("infinirtPointerGetAttributes", pointer_get_attributes, attr, ptr);
}

// Routes a graph call to the current device type's backend, or says that it cannot capture.
#define ROUTE_GRAPH(api, field, ...)                                                                                \
    do {                                                                                                            \
        const infiniBackend_t *b_ = nullptr;                                                                        \
        INFINI_RETURN_IF_ERROR(backendOf(api, current_device.type, &b_));                                           \
        if (b_->struct_size < INFINI_BACKEND_GRAPH_SIZE || b_->field == nullptr) {                                  \
            return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend cannot capture streams", api, b_->name); \
        }                                                                                                           \
        return forward(api, b_, b_->field(__VA_ARGS__));                                                            \
    } while (0)

INFINI_API infiniStatus_t infinirtStreamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode) {
    if (stream == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinirtStreamBeginCapture: the default stream cannot be captured (use one from "
                    "infinirtStreamCreate)");
    }
    if (mode < INFINIRT_STREAM_CAPTURE_MODE_GLOBAL || mode > INFINIRT_STREAM_CAPTURE_MODE_RELAXED) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamBeginCapture: %d is not a capture mode",
                    static_cast<int>(mode));
    }
    ROUTE_GRAPH("infinirtStreamBeginCapture", stream_begin_capture, stream, mode);
}

INFINI_API infiniStatus_t infinirtStreamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtStreamEndCapture", graph_ptr);
    *graph_ptr = nullptr;
    ROUTE_GRAPH("infinirtStreamEndCapture", stream_end_capture, stream, graph_ptr);
}

INFINI_API infiniStatus_t infinirtStreamIsCapturing(infinirtStream_t stream,
                                                    infinirtStreamCaptureStatus_t *status_ptr) {
    INFINI_CHECK_NOT_NULL("infinirtStreamIsCapturing", status_ptr);
    ROUTE_GRAPH("infinirtStreamIsCapturing", stream_is_capturing, stream, status_ptr);
}

INFINI_API infiniStatus_t infinirtGraphLaunch(infinirtGraph_t graph, infinirtStream_t stream) {
    INFINI_CHECK_NOT_NULL("infinirtGraphLaunch", graph);
    ROUTE_GRAPH("infinirtGraphLaunch", graph_launch, graph, stream);
}

INFINI_API infiniStatus_t infinirtGraphDestroy(infinirtGraph_t graph) {
    INFINI_CHECK_NOT_NULL("infinirtGraphDestroy", graph);
    ROUTE_GRAPH("infinirtGraphDestroy", graph_destroy, graph);
}

INFINI_API infiniStatus_t infinirtGetBackendCount(int *count) {
    INFINI_CHECK_NOT_NULL("infinirtGetBackendCount", count);
    *count = static_cast<int>(infini::core::libraries().size());
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinirtGetBackendInfo(int index, infinirtBackendInfo_t *info) {
    INFINI_CHECK_NOT_NULL("infinirtGetBackendInfo", info);
    const auto &libs = infini::core::libraries();
    if (index < 0 || index >= static_cast<int>(libs.size())) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtGetBackendInfo: index %d is out of range [0, %zu)", index,
                    libs.size());
    }
    const auto &lib = libs[index];
    info->name = lib.name.c_str();
    info->path = lib.path.c_str();
    info->device_type = lib.device_type;
    info->loaded = lib.loaded ? 1 : 0;
    info->device_count = lib.device_count;
    info->message = lib.message.c_str();
    return INFINI_STATUS_SUCCESS;
}
