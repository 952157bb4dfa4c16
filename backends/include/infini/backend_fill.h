/* backend_fill.h: fills an infiniBackend_t (backend.h) from functions in scope named after its entries
 * (init, getDeviceCount, ..., createOp; getUniqueId, ..., groupEnd), so that backends written that way
 * (cpu, nvidia) share one list of the entries instead of keeping one each. */
#ifndef INFINI_BACKEND_FILL_H_
#define INFINI_BACKEND_FILL_H_

#include "backend.h"

/* The runtime, handle and operator entries; create_op is `create_op_fn`. */
#define INFINI_BACKEND_FILL_RUNTIME(t, create_op_fn)       \
    do {                                                   \
        (t).last_error_message = lastError;                \
        (t).init = init;                                   \
        (t).get_device_count = getDeviceCount;             \
        (t).set_device = setDevice;                        \
        (t).device_synchronize = deviceSynchronize;        \
        (t).get_mem_info = getMemInfo;                     \
        (t).get_device_name = getDeviceName;               \
        (t).stream_create = streamCreate;                  \
        (t).stream_destroy = streamDestroy;                \
        (t).stream_synchronize = streamSynchronize;        \
        (t).stream_query = streamQuery;                    \
        (t).stream_wait_event = streamWaitEvent;           \
        (t).launch_host_func = launchHostFunc;             \
        (t).event_create = eventCreate;                    \
        (t).event_record = eventRecord;                    \
        (t).event_query = eventQuery;                      \
        (t).event_synchronize = eventSynchronize;          \
        (t).event_destroy = eventDestroy;                  \
        (t).event_elapsed_time = eventElapsedTime;         \
        (t).malloc_device = mallocDevice;                  \
        (t).malloc_host = mallocHost;                      \
        (t).free_device = freeDevice;                      \
        (t).free_host = freeHost;                          \
        (t).memcpy_sync = memcpySync;                      \
        (t).memcpy_async = memcpyAsync;                    \
        (t).malloc_async = mallocAsync;                    \
        (t).free_async = freeAsync;                        \
        (t).memset_sync = memsetSync;                      \
        (t).memset_async = memsetAsync;                    \
        (t).pointer_get_attributes = pointerGetAttributes; \
        (t).create_handle = createHandle;                  \
        (t).destroy_handle = destroyHandle;                \
        (t).create_op = create_op_fn;                      \
    } while (0)

/* The collective entries (infiniccl.h). */
#define INFINI_BACKEND_FILL_CCL(t)                        \
    do {                                                  \
        (t).ccl_get_unique_id = getUniqueId;              \
        (t).ccl_comm_init_rank = commInitRank;            \
        (t).ccl_comm_init_all = commInitAll;              \
        (t).ccl_comm_destroy = commDestroy;               \
        (t).ccl_comm_set_timeout = commSetTimeout;        \
        (t).ccl_comm_get_async_error = commGetAsyncError; \
        (t).ccl_all_reduce = allReduce;                   \
        (t).ccl_broadcast = broadcast;                    \
        (t).ccl_reduce = reduceRoot;                      \
        (t).ccl_all_gather = allGather;                   \
        (t).ccl_reduce_scatter = reduceScatter;           \
        (t).ccl_send = send;                              \
        (t).ccl_recv = recv;                              \
        (t).ccl_group_start = groupStart;                 \
        (t).ccl_group_end = groupEnd;                     \
        (t).ccl_comm_abort = commAbort;                   \
    } while (0)

/* The graph entries (infinirt.h: stream capture). */
#define INFINI_BACKEND_FILL_GRAPH(t)                   \
    do {                                               \
        (t).stream_begin_capture = streamBeginCapture; \
        (t).stream_end_capture = streamEndCapture;     \
        (t).stream_is_capturing = streamIsCapturing;   \
        (t).graph_launch = graphLaunch;                \
        (t).graph_destroy = graphDestroy;              \
    } while (0)

#endif /* INFINI_BACKEND_FILL_H_ */
