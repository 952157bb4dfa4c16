// ccl.cpp: the nvidia backend's collectives: infiniccl over NCCL, on the given infinirt (CUDA) stream.
//
// NCCL is loaded at the first collective call (dlopen of libnccl.so.2: the copy torch has already
// loaded when there is one, else INFINI_NCCL_LIBRARY, else the loader's search path), so the backend
// builds without NCCL's headers and loads where NCCL is absent; only the collectives then report it.
// The few NCCL entry points used are declared here from NCCL's documented C ABI: ncclUniqueId is 128
// bytes, and its dtype and reduce-op enums are mapped explicitly below.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <infini/backend_fill.h>

#include "nvidia.h"

namespace infini::nvidia {
namespace {

using ncclResult = int;
using ncclCommHandle = void *;
struct NcclId {
    char internal[128];
};
static_assert(sizeof(NcclId) == INFINICCL_UNIQUE_ID_BYTES, "NCCL's id fits infiniccl's");

struct Nccl {
    const char *(*getErrorString)(ncclResult);
    const char *(*getLastError)(ncclCommHandle);
    ncclResult (*getUniqueId)(NcclId *);
    ncclResult (*commInitRank)(ncclCommHandle *, int, NcclId, int);
    ncclResult (*commInitAll)(ncclCommHandle *, int, const int *);
    ncclResult (*commDestroy)(ncclCommHandle);
    ncclResult (*commGetAsyncError)(ncclCommHandle, ncclResult *);
    ncclResult (*allReduce)(const void *, void *, size_t, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*broadcast)(const void *, void *, size_t, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*reduce)(const void *, void *, size_t, int, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*allGather)(const void *, void *, size_t, int, ncclCommHandle, cudaStream_t);
    ncclResult (*reduceScatter)(const void *, void *, size_t, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*send)(const void *, size_t, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*recv)(void *, size_t, int, int, ncclCommHandle, cudaStream_t);
    ncclResult (*groupStart)();
    ncclResult (*groupEnd)();
};

// NCCL once per process, or the reason it is missing.
const Nccl *nccl(std::string *why) {
    static Nccl table;
    static std::string error;
    static std::once_flag once;
    std::call_once(once, [] {
        void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
        if (h == nullptr) {
            if (const char *path = std::getenv("INFINI_NCCL_LIBRARY")) h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
        if (h == nullptr) h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) {
            const char *e = dlerror();
            error = std::string("NCCL could not be loaded (libnccl.so.2; INFINI_NCCL_LIBRARY names another): ") +
                    (e ? e : "not found");
            return;
        }
        bool ok = true;
        auto get = [&](auto &fn, const char *name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (fn == nullptr && ok) {
                ok = false;
                error = std::string("NCCL has no ") + name;
            }
        };
        get(table.getErrorString, "ncclGetErrorString");
        get(table.getLastError, "ncclGetLastError");
        get(table.getUniqueId, "ncclGetUniqueId");
        get(table.commInitRank, "ncclCommInitRank");
        get(table.commInitAll, "ncclCommInitAll");
        get(table.commDestroy, "ncclCommDestroy");
        get(table.commGetAsyncError, "ncclCommGetAsyncError");
        get(table.allReduce, "ncclAllReduce");
        get(table.broadcast, "ncclBroadcast");
        get(table.reduce, "ncclReduce");
        get(table.allGather, "ncclAllGather");
        get(table.reduceScatter, "ncclReduceScatter");
        get(table.send, "ncclSend");
        get(table.recv, "ncclRecv");
        get(table.groupStart, "ncclGroupStart");
        get(table.groupEnd, "ncclGroupEnd");
    });
    if (!error.empty()) {
        if (why) *why = error;
        return nullptr;
    }
    return &table;
}

#define NCCL_OR_FAIL(n)          \
    std::string why_;            \
    const Nccl *n = nccl(&why_); \
    if (n == nullptr) return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s", why_.c_str())

// A failing NCCL call as a status with NCCL's message.
infiniStatus_t ncclFail(const Nccl *n, ncclResult r, const char *what, ncclCommHandle comm = nullptr) {
    const char *last = n->getLastError(comm);
    return fail(r == 1 || r == 3 ? INFINI_STATUS_INTERNAL_ERROR
                : r == 4         ? INFINI_STATUS_BAD_PARAM
                                 : INFINI_STATUS_REMOTE_ERROR,
                "%s failed: %s%s%s", what, n->getErrorString(r), last && *last ? ": " : "", last ? last : "");
}

#define NCCL_RETURN(n, expr, comm)                        \
    do {                                                  \
        ncclResult r_ = (expr);                           \
        if (r_ != 0) return ncclFail(n, r_, #expr, comm); \
    } while (0)

struct Comm {
    InfinicclComm header;  // first: the handle the core sees is &header
    ncclCommHandle nccl = nullptr;
};

Comm *asComm(infinicclComm_t c) { return reinterpret_cast<Comm *>(c); }

int ncclType(infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_I8: return 0;
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BOOL:
        case INFINI_DTYPE_BYTE: return 1;
        case INFINI_DTYPE_I32: return 2;
        case INFINI_DTYPE_U32: return 3;
        case INFINI_DTYPE_I64: return 4;
        case INFINI_DTYPE_U64: return 5;
        case INFINI_DTYPE_F16: return 6;
        case INFINI_DTYPE_F32: return 7;
        case INFINI_DTYPE_F64: return 8;
        case INFINI_DTYPE_BF16: return 9;
        default: return -1;
    }
}

// Data-movement calls of other dtypes move bytes.
void asBytes(infiniDtype_t &t, size_t &count) {
    if (ncclType(t) >= 0) return;
    size_t es = 0;
    switch (t) {
        case INFINI_DTYPE_I16:
        case INFINI_DTYPE_U16:
        case INFINI_DTYPE_C16: es = 2; break;
        case INFINI_DTYPE_C32: es = 4; break;
        case INFINI_DTYPE_C64: es = 8; break;
        case INFINI_DTYPE_C128: es = 16; break;
        default: es = 1;
    }
    count *= es;
    t = INFINI_DTYPE_U8;
}

// NCCL has sum, prod, max, min and avg only
infiniStatus_t checkNcclOp(infinicclReduceOp_t op) {
    if (op >= INFINICCL_BAND) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infiniccl on NCCL: the bitwise reduce ops (BAND, BOR, BXOR) are not supported");
    }
    return INFINI_STATUS_SUCCESS;
}

int ncclOp(infinicclReduceOp_t op) {
    switch (op) {
        case INFINICCL_PROD: return 1;
        case INFINICCL_MAX: return 2;
        case INFINICCL_MIN: return 3;
        case INFINICCL_AVG: return 4;
        default: return 0;
    }
}

cudaStream_t streamOf(infinirtStream_t s) { return static_cast<cudaStream_t>(s); }

infiniStatus_t getUniqueId(infinicclUniqueId *id) {
    NCCL_OR_FAIL(n);
    NcclId nid;
    NCCL_RETURN(n, n->getUniqueId(&nid), nullptr);
    std::memcpy(id->internal, nid.internal, sizeof(nid));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitRank(infinicclComm_t *out, int nranks, const infinicclUniqueId *id, int rank) {
    NCCL_OR_FAIL(n);
    int device = 0;
    INFINI_CUDA_RETURN(cudaGetDevice(&device));
    NcclId nid;
    std::memcpy(nid.internal, id->internal, sizeof(nid));
    auto *c = new Comm{{INFINI_DEVICE_NVIDIA, device, rank, nranks}, nullptr};
    ncclResult r = n->commInitRank(&c->nccl, nranks, nid, rank);
    if (r != 0) {
        delete c;
        return ncclFail(n, r, "ncclCommInitRank");
    }
    *out = &c->header;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitAll(infinicclComm_t *out, int ndevice, const int *device_ids) {
    NCCL_OR_FAIL(n);
    std::vector<ncclCommHandle> handles(ndevice);
    NCCL_RETURN(n, n->commInitAll(handles.data(), ndevice, device_ids), nullptr);
    for (int i = 0; i < ndevice; ++i) {
        out[i] = &(new Comm{{INFINI_DEVICE_NVIDIA, device_ids[i], i, ndevice}, handles[i]})->header;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commDestroy(infinicclComm_t comm) {
    NCCL_OR_FAIL(n);
    Comm *c = asComm(comm);
    ncclResult r = n->commDestroy(c->nccl);
    delete c;
    if (r != 0) return ncclFail(n, r, "ncclCommDestroy");
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commSetTimeout(infinicclComm_t, uint64_t) {
    return INFINI_STATUS_SUCCESS;  // NCCL has no per-communicator timeout; torch-side watchdogs apply
}

infiniStatus_t commGetAsyncError(infinicclComm_t comm, infiniStatus_t *error) {
    NCCL_OR_FAIL(n);
    ncclResult r = 0;
    NCCL_RETURN(n, n->commGetAsyncError(asComm(comm)->nccl, &r), asComm(comm)->nccl);
    *error = INFINI_STATUS_SUCCESS;
    if (r != 0 && r != 7 /* ncclInProgress */) *error = ncclFail(n, r, "NCCL", asComm(comm)->nccl);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkReduceType(infiniDtype_t t) {
    if (ncclType(t) < 0) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "NCCL cannot reduce dtype %d", int(t));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t allReduce(void *s, void *r, size_t count, infiniDtype_t t, infinicclReduceOp_t op, infinicclComm_t comm,
                         infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    INFINI_RETURN_IF_ERROR(checkReduceType(t));
    INFINI_RETURN_IF_ERROR(checkNcclOp(op));
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->allReduce(s, r, count, ncclType(t), ncclOp(op), h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t broadcast(void *s, void *r, size_t count, infiniDtype_t t, int root, infinicclComm_t comm,
                         infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->broadcast(s, r, count, ncclType(t), root, h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t reduceRoot(void *s, void *r, size_t count, infiniDtype_t t, infinicclReduceOp_t op, int root,
                          infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    INFINI_RETURN_IF_ERROR(checkReduceType(t));
    INFINI_RETURN_IF_ERROR(checkNcclOp(op));
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->reduce(s, r, count, ncclType(t), ncclOp(op), root, h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t allGather(void *s, void *r, size_t count, infiniDtype_t t, infinicclComm_t comm,
                         infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->allGather(s, r, count, ncclType(t), h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t reduceScatter(void *s, void *r, size_t count, infiniDtype_t t, infinicclReduceOp_t op,
                             infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    INFINI_RETURN_IF_ERROR(checkReduceType(t));
    INFINI_RETURN_IF_ERROR(checkNcclOp(op));
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->reduceScatter(s, r, count, ncclType(t), ncclOp(op), h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t send(void *buf, size_t count, infiniDtype_t t, int peer, infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->send(buf, count, ncclType(t), peer, h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t recv(void *buf, size_t count, infiniDtype_t t, int peer, infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    auto h = asComm(comm)->nccl;
    NCCL_RETURN(n, n->recv(buf, count, ncclType(t), peer, h, streamOf(stream)), h);
    return INFINI_STATUS_SUCCESS;
}

// Groups are forwarded only once NCCL is loaded: a group on a process that never used NCCL is empty.
infiniStatus_t groupStart() {
    const Nccl *n = nccl(nullptr);
    if (n == nullptr) return INFINI_STATUS_SUCCESS;
    NCCL_RETURN(n, n->groupStart(), nullptr);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t groupEnd() {
    const Nccl *n = nccl(nullptr);
    if (n == nullptr) return INFINI_STATUS_SUCCESS;
    NCCL_RETURN(n, n->groupEnd(), nullptr);
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

void fillCclTable(infiniBackend_t &t) { INFINI_BACKEND_FILL_CCL(t); }

}  // namespace infini::nvidia
