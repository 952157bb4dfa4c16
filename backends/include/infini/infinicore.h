/* infinicore.h: status codes, device types and dtypes shared by every part of the infini C ABI.
 *
 * Names and values follow InfiniCore's public headers. Values marked "extension" are ours. */
#ifndef INFINI_INFINICORE_H_
#define INFINI_INFINICORE_H_

#if defined(__GNUC__)
#define INFINI_EXPORT __attribute__((visibility("default")))
#else
#define INFINI_EXPORT
#endif

#ifdef __cplusplus
#define INFINI_EXTERN_C extern "C"
#include <cstddef>
#include <cstdint>
#else
#define INFINI_EXTERN_C
#include <stddef.h>
#include <stdint.h>
#endif

/* Every public function is declared with INFINI_API. */
#define INFINI_API INFINI_EXTERN_C INFINI_EXPORT

typedef enum {
    INFINI_STATUS_SUCCESS = 0,
    INFINI_STATUS_INTERNAL_ERROR = 1,
    INFINI_STATUS_NOT_IMPLEMENTED = 2,
    INFINI_STATUS_BAD_PARAM = 3,
    INFINI_STATUS_NULL_POINTER = 4,
    INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED = 5,
    INFINI_STATUS_DEVICE_NOT_FOUND = 6,
    INFINI_STATUS_DEVICE_NOT_INITIALIZED = 7,
    INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED = 8,
    INFINI_STATUS_BAD_TENSOR_DTYPE = 10,
    INFINI_STATUS_BAD_TENSOR_SHAPE = 11,
    INFINI_STATUS_BAD_TENSOR_STRIDES = 12,
    INFINI_STATUS_INSUFFICIENT_WORKSPACE = 13,
    INFINI_STATUS_OUT_OF_MEMORY = 20,       /* extension: a device allocation exceeded the free memory */
    INFINI_STATUS_INVALID_HANDLE = 21,      /* extension: a stream/event/handle/descriptor that is not live */
    INFINI_STATUS_NOT_READY = 22,           /* extension: queried work has not completed yet */
    INFINI_STATUS_TIMEOUT = 23,             /* extension: a collective waited longer than its communicator's timeout */
    INFINI_STATUS_REMOTE_ERROR = 24,        /* extension: a peer rank of a communicator failed, exited or left */
    INFINI_STATUS_CAPTURE_UNSUPPORTED = 25, /* extension: not allowed while a stream capture is underway (infinirt.h) */
    INFINI_STATUS_ABORTED = 26,             /* extension: the communicator was aborted (infinicclCommAbort) */
} infiniStatus_t;

typedef enum {
    INFINI_DEVICE_CPU = 0,
    INFINI_DEVICE_NVIDIA = 1,
    INFINI_DEVICE_CAMBRICON = 2,
    INFINI_DEVICE_ASCEND = 3,
    INFINI_DEVICE_METAX = 4,
    INFINI_DEVICE_MOORE = 5,
    INFINI_DEVICE_ILUVATAR = 6,
    INFINI_DEVICE_KUNLUN = 7,
    INFINI_DEVICE_HYGON = 8,
    INFINI_DEVICE_QY = 9,
    INFINI_DEVICE_TYPE_COUNT
} infiniDevice_t;

typedef enum {
    INFINI_DTYPE_INVALID = 0,
    INFINI_DTYPE_BYTE = 1,
    INFINI_DTYPE_BOOL = 2,
    INFINI_DTYPE_I8 = 3,
    INFINI_DTYPE_I16 = 4,
    INFINI_DTYPE_I32 = 5,
    INFINI_DTYPE_I64 = 6,
    INFINI_DTYPE_U8 = 7,
    INFINI_DTYPE_U16 = 8,
    INFINI_DTYPE_U32 = 9,
    INFINI_DTYPE_U64 = 10,
    INFINI_DTYPE_F8 = 11,
    INFINI_DTYPE_F16 = 12,
    INFINI_DTYPE_F32 = 13,
    INFINI_DTYPE_F64 = 14,
    INFINI_DTYPE_C16 = 15,
    INFINI_DTYPE_C32 = 16,
    INFINI_DTYPE_C64 = 17,
    INFINI_DTYPE_C128 = 18,
    INFINI_DTYPE_BF16 = 19,
    INFINI_DTYPE_COUNT
} infiniDtype_t;

/* extension: a static, human-readable name of a status ("INFINI_STATUS_BAD_PARAM"). */
INFINI_API const char *infiniGetStatusString(infiniStatus_t status);
/* extension: the message of the last failed call on this thread ("" if none); valid until the next failing call. */
INFINI_API const char *infiniGetLastErrorMessage(void);
/* extension: the short lower-case name of a device type ("cpu", "nvidia", ...), or "unknown". */
INFINI_API const char *infiniGetDeviceTypeName(infiniDevice_t device);
/* extension: the size in bytes of one element of dtype, or 0 for INVALID and unknown values. */
INFINI_API size_t infiniSizeOf(infiniDtype_t dtype);

#endif /* INFINI_INFINICORE_H_ */
