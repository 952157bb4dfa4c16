/* backend.h: what a hardware backend library implements, and how the core loads it.
 *
 * A backend is one shared library named libinfini_backend_<name>.so that exports
 *
 *     const infiniBackend_t *infiniBackendGetV1(void);
 *
 * The core (libinfinicore.so) dlopens it, checks abi_version and struct_size, calls init(), and then
 * routes every infinirt / infiniop call made while a thread's current device type is device_type to
 * these functions. A backend does not link against the core and does not see other backends.
 *
 * Conventions for every function below:
 * - it returns an infiniStatus_t, and on failure leaves a message for last_error_message();
 * - "the current device" is the one the core last passed to set_device() on the calling thread
 *   (device 0 on a thread that never called it);
 * - a NULL stream means the current device's default stream;
 * - it never aborts the process on bad input: invalid handles and pointers are reported. */
#ifndef INFINI_BACKEND_H_
#define INFINI_BACKEND_H_

#include <stddef.h>

#include "infiniccl.h"
#include "infiniop.h"

#define INFINI_BACKEND_ABI_VERSION 1
#define INFINI_BACKEND_ENTRY_SYMBOL "infiniBackendGetV1"

/* The tensor descriptor built by the core and read by backends. */
struct InfiniopTensorDescriptor {
    infiniDtype_t dtype;
    size_t ndim;
    size_t *shape;      /* ndim entries */
    ptrdiff_t *strides; /* ndim entries, in elements (filled in even when created with NULL strides) */
};

/* Every operator descriptor made by a backend starts with this header (opaque in infiniop.h); the core
 * routes and checks calls with it, then calls run() with the data pointers in the order of params.tensors. */
struct InfiniopDescriptor {
    infiniDevice_t device;
    int device_id;
    infiniopOp_t op;
    size_t workspace_size;
    infiniStatus_t (*run)(struct InfiniopDescriptor *self, void *workspace, size_t workspace_size, void *const *data,
                          infinirtStream_t stream);
    void (*destroy)(struct InfiniopDescriptor *self);
};

/* Every communicator a backend makes starts with this header, so that the core can route calls made
 * with it and check ranks and peers before the backend sees them. */
struct InfinicclComm {
    infiniDevice_t device;
    int device_id;
    int rank;
    int nranks;
};

/* Every backend handle starts with this header so that the core can route calls made with it. */
struct InfiniopHandle {
    infiniDevice_t device;
    int device_id;
};

typedef struct infiniBackend {
    uint32_t abi_version; /* INFINI_BACKEND_ABI_VERSION */
    uint32_t struct_size; /* sizeof(infiniBackend_t) as the backend was compiled */
    infiniDevice_t device_type;
    const char *name; /* short name: "cpu", "nvidia" */

    /* The message of the last failure on the calling thread. */
    const char *(*last_error_message)(void);

    /* Runtime: device */
    infiniStatus_t (*init)(void);
    infiniStatus_t (*get_device_count)(int *count);
    infiniStatus_t (*set_device)(int device_id);
    infiniStatus_t (*device_synchronize)(void);
    infiniStatus_t (*get_mem_info)(int device_id, size_t *free_bytes, size_t *total_bytes);
    infiniStatus_t (*get_device_name)(int device_id, char *name, size_t len);

    /* Runtime: streams */
    infiniStatus_t (*stream_create)(infinirtStream_t *stream);
    infiniStatus_t (*stream_destroy)(infinirtStream_t stream);
    infiniStatus_t (*stream_synchronize)(infinirtStream_t stream);
    infiniStatus_t (*stream_query)(infinirtStream_t stream, infinirtEventStatus_t *status);
    infiniStatus_t (*stream_wait_event)(infinirtStream_t stream, infinirtEvent_t event);
    infiniStatus_t (*launch_host_func)(infinirtStream_t stream, void (*fn)(void *), void *user_data);

    /* Runtime: events */
    infiniStatus_t (*event_create)(infinirtEvent_t *event, uint32_t flags);
    infiniStatus_t (*event_record)(infinirtEvent_t event, infinirtStream_t stream);
    infiniStatus_t (*event_query)(infinirtEvent_t event, infinirtEventStatus_t *status);
    infiniStatus_t (*event_synchronize)(infinirtEvent_t event);
    infiniStatus_t (*event_destroy)(infinirtEvent_t event);
    infiniStatus_t (*event_elapsed_time)(float *ms, infinirtEvent_t start, infinirtEvent_t end);

    /* Runtime: memory */
    infiniStatus_t (*malloc_device)(void **ptr, size_t size);
    infiniStatus_t (*malloc_host)(void **ptr, size_t size);
    infiniStatus_t (*free_device)(void *ptr);
    infiniStatus_t (*free_host)(void *ptr);
    infiniStatus_t (*memcpy_sync)(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
    infiniStatus_t (*memcpy_async)(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                   infinirtStream_t stream);
    infiniStatus_t (*malloc_async)(void **ptr, size_t size, infinirtStream_t stream);
    infiniStatus_t (*free_async)(void *ptr, infinirtStream_t stream);
    infiniStatus_t (*memset_sync)(void *ptr, int value, size_t size);
    infiniStatus_t (*memset_async)(void *ptr, int value, size_t size, infinirtStream_t stream);
    infiniStatus_t (*pointer_get_attributes)(infinirtPointerAttributes_t *attr, const void *ptr);

    /* infiniop: the handle is allocated by the backend and starts with struct InfiniopHandle. */
    infiniStatus_t (*create_handle)(infiniopHandle_t *handle);
    infiniStatus_t (*destroy_handle)(infiniopHandle_t handle);
    /* Optional (NULL: no operators). Makes a descriptor for params on the handle's device, or returns
     * NOT_IMPLEMENTED for an op it does not provide and BAD_TENSOR_* for shapes it cannot take. */
    infiniStatus_t (*create_op)(infiniopHandle_t handle, const infiniopOpParams_t *params,
                                struct InfiniopDescriptor **desc);

    /* Collectives (infiniccl.h). Optional: a backend without them leaves them NULL, and a library
     * built before they existed has a struct_size that stops before them. The core has checked
     * every argument it can (comm live and of this backend, ranks, root and peer in range, dtype,
     * op, non-NULL buffers when count > 0) before calling them. */
    infiniStatus_t (*ccl_get_unique_id)(infinicclUniqueId *id);
    /* Joins rank `rank` of an nranks group on the calling thread's current device. */
    infiniStatus_t (*ccl_comm_init_rank)(infinicclComm_t *comm, int nranks, const infinicclUniqueId *id, int rank);
    infiniStatus_t (*ccl_comm_init_all)(infinicclComm_t *comms, int ndevice, const int *device_ids);
    infiniStatus_t (*ccl_comm_destroy)(infinicclComm_t comm);
    infiniStatus_t (*ccl_comm_set_timeout)(infinicclComm_t comm, uint64_t timeout_ms);
    infiniStatus_t (*ccl_comm_get_async_error)(infinicclComm_t comm, infiniStatus_t *async_error);
    infiniStatus_t (*ccl_all_reduce)(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t dtype,
                                     infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream);
    infiniStatus_t (*ccl_broadcast)(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t dtype, int root,
                                    infinicclComm_t comm, infinirtStream_t stream);
    infiniStatus_t (*ccl_reduce)(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t dtype,
                                 infinicclReduceOp_t op, int root, infinicclComm_t comm, infinirtStream_t stream);
    infiniStatus_t (*ccl_all_gather)(void *sendbuf, void *recvbuf, size_t send_count, infiniDtype_t dtype,
                                     infinicclComm_t comm, infinirtStream_t stream);
    infiniStatus_t (*ccl_reduce_scatter)(void *sendbuf, void *recvbuf, size_t recv_count, infiniDtype_t dtype,
                                         infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream);
    infiniStatus_t (*ccl_send)(void *sendbuf, size_t count, infiniDtype_t dtype, int peer, infinicclComm_t comm,
                               infinirtStream_t stream);
    infiniStatus_t (*ccl_recv)(void *recvbuf, size_t count, infiniDtype_t dtype, int peer, infinicclComm_t comm,
                               infinirtStream_t stream);
    /* Called on every backend with collectives; groups nest (the core counts the depth). */
    infiniStatus_t (*ccl_group_start)(void);
    infiniStatus_t (*ccl_group_end)(void);

    /* The generic kernel families (families.h). Optional: NULL, or a struct_size that stops before it, means
     * none; a family or op the backend does not provide answers NOT_IMPLEMENTED (the torch glue then runs the
     * aten op through its CPU fallback). `args` points at the family's argument struct, already checked by the
     * core for what families.h states generally (dims, operand counts, dtypes, non-NULL data); the backend
     * copies what it needs before returning (the struct does not outlive the call). */
    infiniStatus_t (*family)(infiniopHandle_t handle, infiniopFamily_t family, const void *args,
                             infinirtStream_t stream);

    /* Graphs (infinirt.h). Optional: NULL, or a struct_size that stops before them, means the backend cannot
     * capture streams. The core has checked the mode and non-NULL pointers; a graph handle is the backend's own. */
    infiniStatus_t (*stream_begin_capture)(infinirtStream_t stream, infinirtStreamCaptureMode_t mode);
    infiniStatus_t (*stream_end_capture)(infinirtStream_t stream, infinirtGraph_t *graph);
    infiniStatus_t (*stream_is_capturing)(infinirtStream_t stream, infinirtStreamCaptureStatus_t *status);
    infiniStatus_t (*graph_launch)(infinirtGraph_t graph, infinirtStream_t stream);
    infiniStatus_t (*graph_destroy)(infinirtGraph_t graph);

    /* Collectives: abort (infinicclCommAbort). Optional: NULL, or a struct_size that stops before it, means the
     * backend cannot abort a communicator (the core answers NOT_IMPLEMENTED). It must be safe to call from any
     * thread, also while another thread is in a call on the communicator, and more than once. */
    infiniStatus_t (*ccl_comm_abort)(infinicclComm_t comm);
} infiniBackend_t;

/* The size of the table before the collectives were appended: the smallest struct_size accepted. */
#define INFINI_BACKEND_BASE_SIZE offsetof(infiniBackend_t, ccl_get_unique_id)
/* The size of the table with the collectives and before the families. */
#define INFINI_BACKEND_CCL_SIZE offsetof(infiniBackend_t, family)
/* The size of the table with the families. */
#define INFINI_BACKEND_FAMILY_SIZE (offsetof(infiniBackend_t, family) + sizeof(void *))
/* The size of the table with the graphs. */
#define INFINI_BACKEND_GRAPH_SIZE (offsetof(infiniBackend_t, graph_destroy) + sizeof(void *))
/* The size of the table with the communicator abort. */
#define INFINI_BACKEND_CCL_ABORT_SIZE (offsetof(infiniBackend_t, ccl_comm_abort) + sizeof(void *))

typedef const infiniBackend_t *(*infiniBackendGetFn)(void);

#endif /* INFINI_BACKEND_H_ */
