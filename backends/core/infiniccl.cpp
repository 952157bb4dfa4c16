// infiniccl.cpp: the public collectives API. Checks every argument it can, then routes each call to
// the backend of the communicator's device type (communicators are tracked here, so that a stale or
// foreign pointer is an error status, not a crash).
#include <infini/backend.h>

#include <cstring>
#include <string>
#include <vector>

#include "../common/dtype.h"
#include "../common/error.h"
#include "live_set.h"
#include "loader.h"

using infini::fail;

namespace {

infini::core::LiveSet<infinicclComm_t> &liveComms() {
    static auto *s = new infini::core::LiveSet<infinicclComm_t>();
    return *s;
}

thread_local int group_depth = 0;

// The backend of a device type, if it provides collectives.
infiniStatus_t cclBackend(const char *api, int type, const infiniBackend_t **out) {
    if (type < 0 || type >= INFINI_DEVICE_TYPE_COUNT) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not a device type", api, type);
    }
    const infiniBackend_t *b = infini::core::backendFor(type);
    if (b == nullptr) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "%s: no %s backend is loaded", api,
                    infiniGetDeviceTypeName(static_cast<infiniDevice_t>(type)));
    }
    if (!infini::core::hasCollectives(b)) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend has no collectives", api, b->name);
    }
    *out = b;
    return INFINI_STATUS_SUCCESS;
}

// Prefixes a backend failure's message with the API name.
infiniStatus_t forward(const char *api, const infiniBackend_t *b, infiniStatus_t status) {
    if (status != INFINI_STATUS_SUCCESS) {
        infini::lastErrorMessage() = std::string(api) + ": " + b->last_error_message();
    }
    return status;
}

infiniStatus_t commBackend(const char *api, infinicclComm_t comm, const infiniBackend_t **out) {
    INFINI_CHECK_NOT_NULL(api, comm);
    if (!liveComms().contains(comm)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "%s: %p is not a live communicator", api, (void *)comm);
    }
    return cclBackend(api, comm->device, out);
}

bool isReducible(infiniDtype_t dtype) {
    switch (dtype) {
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16:
        case INFINI_DTYPE_F32:
        case INFINI_DTYPE_F64:
        case INFINI_DTYPE_I8:
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_I32:
        case INFINI_DTYPE_I64: return true;
        default: return false;
    }
}

infiniStatus_t checkDtype(const char *api, infiniDtype_t dtype, bool reduces) {
    if (infini::dtypeSize(dtype) == 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %d is not a dtype", api, static_cast<int>(dtype));
    }
    if (reduces && !isReducible(dtype)) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE,
                    "%s: cannot reduce dtype %d (float16, bfloat16, float32, float64, int8, uint8, int32, int64 "
                    "can be reduced)",
                    api, static_cast<int>(dtype));
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkOp(const char *api, infinicclReduceOp_t op, infiniDtype_t dtype) {
    if (op < INFINICCL_SUM || op > INFINICCL_BXOR) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not a reduce op", api, static_cast<int>(op));
    }
    const bool integer =
        dtype == INFINI_DTYPE_I8 || dtype == INFINI_DTYPE_U8 || dtype == INFINI_DTYPE_I32 || dtype == INFINI_DTYPE_I64;
    if (op >= INFINICCL_BAND && !integer) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: the bitwise reduce ops take integer dtypes, not dtype %d", api,
                    static_cast<int>(dtype));
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkRank(const char *api, const char *what, int rank, infinicclComm_t comm) {
    if (rank < 0 || rank >= comm->nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %d is not a rank of this %d-rank communicator", api, what, rank,
                    comm->nranks);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkBuffer(const char *api, const char *what, const void *buf, size_t count) {
    if (count > 0 && buf == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", api, what);
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

namespace infini::core {

bool hasCollectives(const infiniBackend_t *b) {
    if (b == nullptr || b->struct_size < INFINI_BACKEND_CCL_SIZE) return false;
    return b->ccl_get_unique_id && b->ccl_comm_init_rank && b->ccl_comm_init_all && b->ccl_comm_destroy &&
           b->ccl_comm_set_timeout && b->ccl_comm_get_async_error && b->ccl_all_reduce && b->ccl_broadcast &&
           b->ccl_reduce && b->ccl_all_gather && b->ccl_reduce_scatter && b->ccl_send && b->ccl_recv &&
           b->ccl_group_start && b->ccl_group_end;
}

}  // namespace infini::core

INFINI_API infiniStatus_t infinicclGetUniqueId(infiniDevice_t device_type, infinicclUniqueId *id) {
    constexpr const char *api = "infinicclGetUniqueId";
    INFINI_CHECK_NOT_NULL(api, id);
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(cclBackend(api, device_type, &b));
    std::memset(id, 0, sizeof(*id));
    return forward(api, b, b->ccl_get_unique_id(id));
}

INFINI_API infiniStatus_t infinicclCommInitRank(infinicclComm_t *comm, int nranks, infinicclUniqueId id, int rank) {
    constexpr const char *api = "infinicclCommInitRank";
    INFINI_CHECK_NOT_NULL(api, comm);
    if (nranks < 1) return fail(INFINI_STATUS_BAD_PARAM, "%s: nranks is %d, must be at least 1", api, nranks);
    if (rank < 0 || rank >= nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: rank %d is not in [0, %d)", api, rank, nranks);
    }
    infiniDevice_t type;
    int device_id;
    INFINI_RETURN_IF_ERROR(infinirtGetDevice(&type, &device_id));
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(cclBackend(api, type, &b));
    infinicclComm_t made = nullptr;
    INFINI_RETURN_IF_ERROR(forward(api, b, b->ccl_comm_init_rank(&made, nranks, &id, rank)));
    liveComms().add(made);
    *comm = made;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclCommInitAll(infiniDevice_t device_type, infinicclComm_t *comms, int ndevice,
                                               const int *device_ids) {
    constexpr const char *api = "infinicclCommInitAll";
    INFINI_CHECK_NOT_NULL(api, comms);
    if (ndevice < 1) return fail(INFINI_STATUS_BAD_PARAM, "%s: ndevice is %d, must be at least 1", api, ndevice);
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(cclBackend(api, device_type, &b));
    int count = infini::core::deviceCount(device_type);
    if (device_ids != nullptr) {
        for (int i = 0; i < ndevice; ++i) {
            if (device_ids[i] < 0 || device_ids[i] >= count) {
                return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "%s: device %s:%d does not exist (%d devices)", api,
                            infiniGetDeviceTypeName(device_type), device_ids[i], count);
            }
            for (int j = 0; j < i; ++j) {
                if (device_ids[j] == device_ids[i]) {
                    return fail(INFINI_STATUS_BAD_PARAM, "%s: device %d is listed twice (one rank per device)", api,
                                device_ids[i]);
                }
            }
        }
    } else if (ndevice > count) {
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "%s: %d ranks need %d devices, there are %d %s devices", api,
                    ndevice, ndevice, count, infiniGetDeviceTypeName(device_type));
    }
    std::vector<int> ids(ndevice);
    for (int i = 0; i < ndevice; ++i) ids[i] = device_ids ? device_ids[i] : i;
    INFINI_RETURN_IF_ERROR(forward(api, b, b->ccl_comm_init_all(comms, ndevice, ids.data())));
    for (int i = 0; i < ndevice; ++i) liveComms().add(comms[i]);
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclCommDestroy(infinicclComm_t comm) {
    constexpr const char *api = "infinicclCommDestroy";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    liveComms().remove(comm);
    return forward(api, b, b->ccl_comm_destroy(comm));
}

INFINI_API infiniStatus_t infinicclCommCount(infinicclComm_t comm, int *count) {
    const infiniBackend_t *b = nullptr;
    INFINI_CHECK_NOT_NULL("infinicclCommCount", count);
    INFINI_RETURN_IF_ERROR(commBackend("infinicclCommCount", comm, &b));
    *count = comm->nranks;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclCommUserRank(infinicclComm_t comm, int *rank) {
    const infiniBackend_t *b = nullptr;
    INFINI_CHECK_NOT_NULL("infinicclCommUserRank", rank);
    INFINI_RETURN_IF_ERROR(commBackend("infinicclCommUserRank", comm, &b));
    *rank = comm->rank;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclCommSetTimeout(infinicclComm_t comm, uint64_t timeout_ms) {
    constexpr const char *api = "infinicclCommSetTimeout";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    if (timeout_ms == 0) return fail(INFINI_STATUS_BAD_PARAM, "%s: the timeout must be positive", api);
    return forward(api, b, b->ccl_comm_set_timeout(comm, timeout_ms));
}

INFINI_API infiniStatus_t infinicclCommGetAsyncError(infinicclComm_t comm, infiniStatus_t *async_error) {
    constexpr const char *api = "infinicclCommGetAsyncError";
    INFINI_CHECK_NOT_NULL(api, async_error);
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(forward(api, b, b->ccl_comm_get_async_error(comm, async_error)));
    if (*async_error != INFINI_STATUS_SUCCESS) {
        infini::lastErrorMessage() = std::string(api) + ": " + b->last_error_message();
    }
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclCommAbort(infinicclComm_t comm) {
    constexpr const char *api = "infinicclCommAbort";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    if (b->struct_size < INFINI_BACKEND_CCL_ABORT_SIZE || b->ccl_comm_abort == nullptr) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend cannot abort a communicator", api, b->name);
    }
    return forward(api, b, b->ccl_comm_abort(comm));
}

INFINI_API infiniStatus_t infinicclAllReduce(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                             infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream) {
    constexpr const char *api = "infinicclAllReduce";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, true));
    INFINI_RETURN_IF_ERROR(checkOp(api, op, datatype));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, count));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, count));
    return forward(api, b, b->ccl_all_reduce(sendbuf, recvbuf, count, datatype, op, comm, stream));
}

INFINI_API infiniStatus_t infinicclBroadcast(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                             int root, infinicclComm_t comm, infinirtStream_t stream) {
    constexpr const char *api = "infinicclBroadcast";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, false));
    INFINI_RETURN_IF_ERROR(checkRank(api, "root", root, comm));
    if (comm->rank == root) INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, count));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, count));
    return forward(api, b, b->ccl_broadcast(sendbuf, recvbuf, count, datatype, root, comm, stream));
}

INFINI_API infiniStatus_t infinicclReduce(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                          infinicclReduceOp_t op, int root, infinicclComm_t comm,
                                          infinirtStream_t stream) {
    constexpr const char *api = "infinicclReduce";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, true));
    INFINI_RETURN_IF_ERROR(checkOp(api, op, datatype));
    INFINI_RETURN_IF_ERROR(checkRank(api, "root", root, comm));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, count));
    if (comm->rank == root) INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, count));
    return forward(api, b, b->ccl_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, stream));
}

INFINI_API infiniStatus_t infinicclAllGather(void *sendbuf, void *recvbuf, size_t send_count, infiniDtype_t datatype,
                                             infinicclComm_t comm, infinirtStream_t stream) {
    constexpr const char *api = "infinicclAllGather";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, false));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, send_count));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, send_count));
    return forward(api, b, b->ccl_all_gather(sendbuf, recvbuf, send_count, datatype, comm, stream));
}

INFINI_API infiniStatus_t infinicclReduceScatter(void *sendbuf, void *recvbuf, size_t recv_count,
                                                 infiniDtype_t datatype, infinicclReduceOp_t op, infinicclComm_t comm,
                                                 infinirtStream_t stream) {
    constexpr const char *api = "infinicclReduceScatter";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, true));
    INFINI_RETURN_IF_ERROR(checkOp(api, op, datatype));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, recv_count));
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, recv_count));
    return forward(api, b, b->ccl_reduce_scatter(sendbuf, recvbuf, recv_count, datatype, op, comm, stream));
}

INFINI_API infiniStatus_t infinicclSend(void *sendbuf, size_t count, infiniDtype_t datatype, int peer,
                                        infinicclComm_t comm, infinirtStream_t stream) {
    constexpr const char *api = "infinicclSend";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, false));
    INFINI_RETURN_IF_ERROR(checkRank(api, "peer", peer, comm));
    if (peer == comm->rank) return fail(INFINI_STATUS_BAD_PARAM, "%s: rank %d cannot send to itself", api, peer);
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "sendbuf", sendbuf, count));
    return forward(api, b, b->ccl_send(sendbuf, count, datatype, peer, comm, stream));
}

INFINI_API infiniStatus_t infinicclRecv(void *recvbuf, size_t count, infiniDtype_t datatype, int peer,
                                        infinicclComm_t comm, infinirtStream_t stream) {
    constexpr const char *api = "infinicclRecv";
    const infiniBackend_t *b = nullptr;
    INFINI_RETURN_IF_ERROR(commBackend(api, comm, &b));
    INFINI_RETURN_IF_ERROR(checkDtype(api, datatype, false));
    INFINI_RETURN_IF_ERROR(checkRank(api, "peer", peer, comm));
    if (peer == comm->rank) return fail(INFINI_STATUS_BAD_PARAM, "%s: rank %d cannot receive from itself", api, peer);
    INFINI_RETURN_IF_ERROR(checkBuffer(api, "recvbuf", recvbuf, count));
    return forward(api, b, b->ccl_recv(recvbuf, count, datatype, peer, comm, stream));
}

INFINI_API infiniStatus_t infinicclGroupStart(void) {
    for (const auto &lib : infini::core::libraries()) {
        if (lib.loaded && infini::core::hasCollectives(lib.table)) {
            INFINI_RETURN_IF_ERROR(forward("infinicclGroupStart", lib.table, lib.table->ccl_group_start()));
        }
    }
    ++group_depth;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infinicclGroupEnd(void) {
    if (group_depth == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinicclGroupEnd: no group was started on this thread");
    }
    --group_depth;
    infiniStatus_t first = INFINI_STATUS_SUCCESS;
    std::string message;
    for (const auto &lib : infini::core::libraries()) {
        if (lib.loaded && infini::core::hasCollectives(lib.table)) {
            // every backend ends its group, even after one failed
            infiniStatus_t s = forward("infinicclGroupEnd", lib.table, lib.table->ccl_group_end());
            if (s != INFINI_STATUS_SUCCESS && first == INFINI_STATUS_SUCCESS) {
                first = s;
                message = infini::lastErrorMessage();
            }
        }
    }
    if (first != INFINI_STATUS_SUCCESS) infini::lastErrorMessage() = message;
    return first;
}
