// status.cpp: names of statuses, device types and dtypes, and the last error message.
#include "../common/dtype.h"
#include "../common/error.h"

INFINI_API const char *infiniGetStatusString(infiniStatus_t status) {
    switch (status) {
#define INFINI_CASE(s) \
    case s: return #s;
        INFINI_CASE(INFINI_STATUS_SUCCESS)
        INFINI_CASE(INFINI_STATUS_INTERNAL_ERROR)
        INFINI_CASE(INFINI_STATUS_NOT_IMPLEMENTED)
        INFINI_CASE(INFINI_STATUS_BAD_PARAM)
        INFINI_CASE(INFINI_STATUS_NULL_POINTER)
        INFINI_CASE(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED)
        INFINI_CASE(INFINI_STATUS_DEVICE_NOT_FOUND)
        INFINI_CASE(INFINI_STATUS_DEVICE_NOT_INITIALIZED)
        INFINI_CASE(INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED)
        INFINI_CASE(INFINI_STATUS_BAD_TENSOR_DTYPE)
        INFINI_CASE(INFINI_STATUS_BAD_TENSOR_SHAPE)
        INFINI_CASE(INFINI_STATUS_BAD_TENSOR_STRIDES)
        INFINI_CASE(INFINI_STATUS_INSUFFICIENT_WORKSPACE)
        INFINI_CASE(INFINI_STATUS_OUT_OF_MEMORY)
        INFINI_CASE(INFINI_STATUS_INVALID_HANDLE)
        INFINI_CASE(INFINI_STATUS_NOT_READY)
        INFINI_CASE(INFINI_STATUS_TIMEOUT)
        INFINI_CASE(INFINI_STATUS_REMOTE_ERROR)
        INFINI_CASE(INFINI_STATUS_CAPTURE_UNSUPPORTED)
        INFINI_CASE(INFINI_STATUS_ABORTED)
#undef INFINI_CASE
    }
    return "INFINI_STATUS_UNKNOWN";
}

INFINI_API const char *infiniGetLastErrorMessage(void) { return infini::lastErrorMessage().c_str(); }

INFINI_API const char *infiniGetDeviceTypeName(infiniDevice_t device) {
    static const char *const names[] = {"cpu",   "nvidia",   "cambricon", "ascend", "metax",
                                        "moore", "iluvatar", "kunlun",    "hygon",  "qy"};
    static_assert(sizeof(names) / sizeof(names[0]) == INFINI_DEVICE_TYPE_COUNT, "one name per device type");
    if (device < 0 || device >= INFINI_DEVICE_TYPE_COUNT) return "unknown";
    return names[device];
}

INFINI_API size_t infiniSizeOf(infiniDtype_t dtype) { return infini::dtypeSize(dtype); }
