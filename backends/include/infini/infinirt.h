/* infinirt.h: the runtime (devices, streams, events, memory), routed to the backend of the calling
 * thread's current device type.
 *
 * The current device (type and index) is thread-local; a new thread starts on (CPU, 0). Streams,
 * events and pointers belong to the device that was current when they were created. A NULL stream
 * means the current device's default stream. Calls that name a stream or event are routed to the
 * calling thread's current device type, as in InfiniCore. */
#ifndef INFINI_INFINIRT_H_
#define INFINI_INFINIRT_H_

#include "infinicore.h"

typedef void *infinirtStream_t;
typedef void *infinirtEvent_t;

/* extension: a stream value that host backends (the CPU backend) accept for operators: the work
 * runs in the calling thread and is done when the call returns, as torch's own CPU ops. */
#define INFINIRT_STREAM_CALLER ((infinirtStream_t)(intptr_t)-1)

typedef enum {
    INFINIRT_EVENT_COMPLETE = 0,
    INFINIRT_EVENT_NOT_READY = 1,
} infinirtEventStatus_t;

typedef enum {
    INFINIRT_EVENT_DEFAULT = 0x0,        /* records timing */
    INFINIRT_EVENT_DISABLE_TIMING = 0x1, /* no timing: cheaper, ElapsedTime refuses it */
    INFINIRT_EVENT_BLOCKING_SYNC = 0x2,  /* synchronization blocks instead of spinning */
} infinirtEventFlags_t;

typedef enum {
    INFINIRT_MEMCPY_H2H = 0,
    INFINIRT_MEMCPY_H2D = 1,
    INFINIRT_MEMCPY_D2H = 2,
    INFINIRT_MEMCPY_D2D = 3,
} infinirtMemcpyKind_t;

/* Finds and loads the backend libraries (also done lazily by the first call of any function). */
INFINI_API infiniStatus_t infinirtInit(void);

/* Device */
/* Fills count_array[INFINI_DEVICE_TYPE_COUNT] with the number of devices of each type (0 where no backend). */
INFINI_API infiniStatus_t infinirtGetAllDeviceCount(int *count_array);
/* Number of devices of one type; 0 when its backend is absent. */
INFINI_API infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count);
/* Makes (device, device_id) the calling thread's current device. */
INFINI_API infiniStatus_t infinirtSetDevice(infiniDevice_t device, int device_id);
/* The calling thread's current device. */
INFINI_API infiniStatus_t infinirtGetDevice(infiniDevice_t *device_ptr, int *device_id_ptr);
/* Waits for all work queued on every stream of the current device. */
INFINI_API infiniStatus_t infinirtDeviceSynchronize(void);
/* Free and total memory of one device, in bytes. */
INFINI_API infiniStatus_t infinirtGetMemInfo(infiniDevice_t device, int device_id, size_t *free_bytes,
                                             size_t *total_bytes);
/* extension: the device's marketing name, NUL-terminated, truncated to len bytes. */
INFINI_API infiniStatus_t infinirtGetDeviceName(infiniDevice_t device, int device_id, char *name, size_t len);

/* Stream */
/* Creates a stream on the current device. */
INFINI_API infiniStatus_t infinirtStreamCreate(infinirtStream_t *stream_ptr);
/* Waits for the stream's queued work, then destroys it. */
INFINI_API infiniStatus_t infinirtStreamDestroy(infinirtStream_t stream);
/* Waits until all work queued on the stream so far has completed. */
INFINI_API infiniStatus_t infinirtStreamSynchronize(infinirtStream_t stream);
/* extension: COMPLETE if all work queued on the stream has completed, NOT_READY otherwise. */
INFINI_API infiniStatus_t infinirtStreamQuery(infinirtStream_t stream, infinirtEventStatus_t *status_ptr);
/* Makes later work on stream wait for the event's most recent record (a no-op if never recorded). */
INFINI_API infiniStatus_t infinirtStreamWaitEvent(infinirtStream_t stream, infinirtEvent_t event);
/* extension: queues fn(user_data) on the stream, run on the host in stream order (fn must not call infinirt). */
INFINI_API infiniStatus_t infinirtLaunchHostFunc(infinirtStream_t stream, void (*fn)(void *), void *user_data);

/* Event */
/* Creates a timing event on the current device. */
INFINI_API infiniStatus_t infinirtEventCreate(infinirtEvent_t *event_ptr);
/* Creates an event with infinirtEventFlags_t flags on the current device. */
INFINI_API infiniStatus_t infinirtEventCreateWithFlags(infinirtEvent_t *event_ptr, uint32_t flags);
/* Records the event at the current end of the stream's queue. */
INFINI_API infiniStatus_t infinirtEventRecord(infinirtEvent_t event, infinirtStream_t stream);
/* COMPLETE once the work before the most recent record has run (also when never recorded). */
INFINI_API infiniStatus_t infinirtEventQuery(infinirtEvent_t event, infinirtEventStatus_t *status_ptr);
/* Waits for the event's most recent record to complete. */
INFINI_API infiniStatus_t infinirtEventSynchronize(infinirtEvent_t event);
/* Destroys an event; pending records still complete. */
INFINI_API infiniStatus_t infinirtEventDestroy(infinirtEvent_t event);
/* Milliseconds between two completed timing events. */
INFINI_API infiniStatus_t infinirtEventElapsedTime(float *ms_ptr, infinirtEvent_t start, infinirtEvent_t end);

/* Memory */
/* Allocates size bytes of device memory on the current device (NULL for size 0). */
INFINI_API infiniStatus_t infinirtMalloc(void **p_ptr, size_t size);
/* Allocates page-locked host memory that async copies can use without staging. */
INFINI_API infiniStatus_t infinirtMallocHost(void **p_ptr, size_t size);
/* Frees device memory after the work of its device has completed (NULL is a no-op). */
INFINI_API infiniStatus_t infinirtFree(void *ptr);
/* Frees memory from infinirtMallocHost (NULL is a no-op). */
INFINI_API infiniStatus_t infinirtFreeHost(void *ptr);
/* Copies size bytes; returns once the copy is done and previously queued work of the device is done. */
INFINI_API infiniStatus_t infinirtMemcpy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
/* Queues a copy on the stream (a pageable host side makes it complete before returning). */
INFINI_API infiniStatus_t infinirtMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                              infinirtStream_t stream);
/* Allocates device memory usable by work queued on the stream from now on. */
INFINI_API infiniStatus_t infinirtMallocAsync(void **p_ptr, size_t size, infinirtStream_t stream);
/* Frees device memory once the work queued on the stream so far has completed. */
INFINI_API infiniStatus_t infinirtFreeAsync(void *ptr, infinirtStream_t stream);
/* extension: sets size bytes of device memory to value, synchronously. */
INFINI_API infiniStatus_t infinirtMemset(void *ptr, int value, size_t size);
/* extension: queues a memset of device memory on the stream. */
INFINI_API infiniStatus_t infinirtMemsetAsync(void *ptr, int value, size_t size, infinirtStream_t stream);

/* Graphs: work captured from a stream, replayed as a unit.
 *
 * Between infinirtStreamBeginCapture and infinirtStreamEndCapture, work queued on the stream (kernels, async
 * copies and memsets between device or page-locked memory, host functions, event records and waits) is recorded
 * instead of run. A call that would need captured work to have run (synchronizing the stream, its device or an
 * event it recorded; querying them; a synchronous copy or memset on the device; infinirtFree on it; a copy through
 * pageable host memory or a stream-ordered allocation on the capturing stream) fails with
 * INFINI_STATUS_CAPTURE_UNSUPPORTED and invalidates the capture: infinirtStreamEndCapture then fails too and
 * returns no graph. Kernel arguments, pointers included, are fixed at capture: a launch reads and writes the
 * same memory each time, so that memory must stay allocated while the graph lives. */
typedef void *infinirtGraph_t;

/* CUDA's capture modes: which threads may not make calls that are unsafe during a capture. A backend may refuse
 * more (the cpu backend refuses the calls listed above from every thread in every mode). */
typedef enum {
    INFINIRT_STREAM_CAPTURE_MODE_GLOBAL = 0,       /* unsafe calls are refused on every thread */
    INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1, /* unsafe calls are refused on the capturing thread */
    INFINIRT_STREAM_CAPTURE_MODE_RELAXED = 2,      /* only calls that touch the capturing stream are refused */
} infinirtStreamCaptureMode_t;

typedef enum {
    INFINIRT_STREAM_CAPTURE_STATUS_NONE = 0,        /* not capturing */
    INFINIRT_STREAM_CAPTURE_STATUS_ACTIVE = 1,      /* capturing */
    INFINIRT_STREAM_CAPTURE_STATUS_INVALIDATED = 2, /* capturing, but a refused call spoiled it */
} infinirtStreamCaptureStatus_t;

/* extension: starts capturing the work queued on stream (not the default stream) into a graph. */
INFINI_API infiniStatus_t infinirtStreamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode);
/* extension: ends the capture; *graph_ptr is the graph, ready to launch (NULL when the capture was invalidated). */
INFINI_API infiniStatus_t infinirtStreamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph_ptr);
/* extension: whether the stream is capturing. */
INFINI_API infiniStatus_t infinirtStreamIsCapturing(infinirtStream_t stream, infinirtStreamCaptureStatus_t *status_ptr);
/* extension: queues the graph's work on a stream of the device it was captured on (into a capture: as a part of it). */
INFINI_API infiniStatus_t infinirtGraphLaunch(infinirtGraph_t graph, infinirtStream_t stream);
/* extension: destroys a graph; launches already queued still run. */
INFINI_API infiniStatus_t infinirtGraphDestroy(infinirtGraph_t graph);

/* extension: what a pointer is. */
typedef enum {
    INFINIRT_MEMORY_UNREGISTERED = 0, /* ordinary (pageable) host memory or unknown */
    INFINIRT_MEMORY_HOST = 1,         /* from infinirtMallocHost */
    INFINIRT_MEMORY_DEVICE = 2,       /* from infinirtMalloc(Async) */
} infinirtMemoryType_t;

typedef struct {
    infinirtMemoryType_t type;
    infiniDevice_t device; /* valid for DEVICE */
    int device_id;         /* valid for DEVICE */
    void *base;            /* start of the allocation holding the pointer (NULL if unregistered) */
    size_t size;           /* size of that allocation */
} infinirtPointerAttributes_t;

/* extension: describes the allocation that holds ptr, for the current device type's backend. */
INFINI_API infiniStatus_t infinirtPointerGetAttributes(infinirtPointerAttributes_t *attr, const void *ptr);

/* extension: what the loader found. */
typedef struct {
    const char *name;    /* backend name ("cpu", "nvidia") or the file name when it did not load */
    const char *path;    /* the library's path */
    int device_type;     /* an infiniDevice_t, or -1 when it did not load */
    int loaded;          /* 1 when usable */
    int device_count;    /* devices it reported, 0 when not loaded */
    const char *message; /* why it was not loaded, or "" */
} infinirtBackendInfo_t;

/* extension: number of backend libraries the loader looked at (loaded or not). */
INFINI_API infiniStatus_t infinirtGetBackendCount(int *count);
/* extension: what the loader found for library index (0 <= index < count); strings live for the process. */
INFINI_API infiniStatus_t infinirtGetBackendInfo(int index, infinirtBackendInfo_t *info);

#endif /* INFINI_INFINIRT_H_ */
