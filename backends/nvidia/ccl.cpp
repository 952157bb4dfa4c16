// ccl.cpp: the nvidia backend's collectives: infiniccl over NCCL, on the given infinirt (CUDA) stream.
//
// NCCL is loaded at the first collective call (dlopen of libnccl.so.2: the copy torch has already
// loaded when there is one, else INFINI_NCCL_LIBRARY, else the loader's search path), so the backend
// builds without NCCL's headers and loads where NCCL is absent; only the collectives then report it.
// The few NCCL entry points used are declared here from NCCL's documented C ABI: ncclUniqueId is 128
// bytes, ncclConfig_t is declared in its first (2.14) layout, and the dtype, reduce-op and result enums
// are mapped explicitly below.
//
// Fault handling. Communicators are nonblocking (ncclCommInitRankConfig with config.blocking = 0): a
// call that needs its peers (joining the group, connecting, ncclGroupEnd, ncclCommFinalize) returns
// ncclInProgress at once, and is polled with ncclCommGetAsyncError until it is done or the
// communicator's timeout (infinicclCommSetTimeout, default INFINICCL_TIMEOUT_MS, else 30 minutes) has
// passed. Joining is polled at the communicator's first use, so a timeout set right after
// infinicclCommInitRank applies to it. A failure (an NCCL error, a timeout, infinicclCommAbort) sticks:
// it is recorded, the NCCL communicator is aborted (ncclCommAbort: kernels waiting for peers quit), and
// every later call on the communicator fails with the recorded message. Work already queued on a stream
// that waits for a dead peer is not timed here: the caller watches it (the torch glue's watchdog) and
// calls infinicclCommAbort.
//
// INFINI_NCCL_BLOCKING=1, or an NCCL without ncclCommInitRankConfig (< 2.14) or ncclCommAbort, gives
// blocking communicators instead: calls then wait inside NCCL, joining and connecting have no timeout,
// and an abort from another thread waits for a call in progress at most kAbortLockWait.
//
// Locking: each communicator's mutex is held while an NCCL call uses its handle (short with nonblocking
// communicators), so ncclCommGetAsyncError and ncclCommAbort from a watchdog thread never run while
// another thread is inside NCCL with the same communicator, except in blocking mode when a call is stuck.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <infini/backend_fill.h>

#include "nvidia.h"
#include "../common/ccl_timeout.h"

namespace infini::nvidia {
namespace {

using ncclResult = int;
using ncclCommHandle = void *;
struct NcclId {
    char internal[128];
};
static_assert(sizeof(NcclId) == INFINICCL_UNIQUE_ID_BYTES, "NCCL's id fits infiniccl's");

// ncclResult_t values (nccl.h).
constexpr ncclResult kSuccess = 0;
constexpr ncclResult kInProgress = 7;

// ncclConfig_t as NCCL 2.14 declared it (ncclConfig_v21400). NCCL copies `size` bytes of the caller's
// struct over its defaults and, from `version`, leaves the fields added after that version at their
// defaults, so every NCCL from 2.14 on reads this layout.
struct NcclConfigV21400 {
    size_t size;
    unsigned int magic;    // NCCL_API_MAGIC
    unsigned int version;  // NCCL_VERSION(2, 14, 0)
    int blocking;
};
constexpr unsigned int kNcclApiMagic = 0xcafebeef;
constexpr unsigned int kNcclConfigVersion = 2 * 10000 + 14 * 100 + 0;  // NCCL_VERSION(2, 14, 0)

// How long an abort waits for a call in progress on another thread to leave NCCL (blocking mode only:
// nonblocking calls hold the communicator's mutex for microseconds).
constexpr std::chrono::milliseconds kAbortLockWait{2000};

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
    // Optional (NULL in an NCCL that lacks them).
    ncclResult (*commInitRankConfig)(ncclCommHandle *, int, NcclId, int, NcclConfigV21400 *);
    ncclResult (*commAbort)(ncclCommHandle);
    ncclResult (*commFinalize)(ncclCommHandle);
    bool nonblocking;  // communicators are made nonblocking (see the top of this file)
};

bool blockingFromEnv() {
    const char *env = std::getenv("INFINI_NCCL_BLOCKING");
    return env != nullptr && env[0] == '1';
}

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
        auto getOptional = [&](auto &fn, const char *name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
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
        getOptional(table.commInitRankConfig, "ncclCommInitRankConfig");
        getOptional(table.commAbort, "ncclCommAbort");
        getOptional(table.commFinalize, "ncclCommFinalize");
        table.nonblocking = !blockingFromEnv() && table.commInitRankConfig != nullptr && table.commAbort != nullptr;
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
    infiniStatus_t status = r == 1 || r == 3   ? INFINI_STATUS_INTERNAL_ERROR
                            : r == 4 || r == 5 ? INFINI_STATUS_BAD_PARAM
                            : r == 8           ? INFINI_STATUS_TIMEOUT
                                               : INFINI_STATUS_REMOTE_ERROR;
    return fail(status, "%s failed: %s%s%s", what, n->getErrorString(r), last && *last ? ": " : "", last ? last : "");
}

#define NCCL_RETURN(n, expr, comm)                        \
    do {                                                  \
        ncclResult r_ = (expr);                           \
        if (r_ != 0) return ncclFail(n, r_, #expr, comm); \
    } while (0)

struct Comm {
    explicit Comm(InfinicclComm h) : header(h) {}
    InfinicclComm header;           // first: the handle the core sees is &header
    std::timed_mutex mu;            // held while an NCCL call uses `nccl`
    ncclCommHandle nccl = nullptr;  // (guarded by mu) NULL once aborted
    bool nonblocking = false;
    std::atomic<bool> ready{true};  // false while a nonblocking join has not been seen to complete
    std::atomic<uint64_t> timeout_ms{cclDefaultTimeoutMs()};

    // The sticky failure: SUCCESS while there is none; else that status, with its message made the
    // calling thread's last error.
    infiniStatus_t failure() {
        std::lock_guard<std::mutex> lock(err_mu_);
        if (err_ == INFINI_STATUS_SUCCESS) return INFINI_STATUS_SUCCESS;
        return fail(err_, "%s", err_message_.c_str());
    }
    // Records the first failure (later ones keep the first's message).
    void setFailure(infiniStatus_t status, const std::string &message) {
        std::lock_guard<std::mutex> lock(err_mu_);
        if (err_ != INFINI_STATUS_SUCCESS) return;
        err_ = status;
        err_message_ = message;
    }

   private:
    std::mutex err_mu_;
    infiniStatus_t err_ = INFINI_STATUS_SUCCESS;
    std::string err_message_;
};

Comm *asComm(infinicclComm_t c) { return reinterpret_cast<Comm *>(c); }

// Aborts the NCCL communicator once (mu held, or not obtainable: see kAbortLockWait).
void abortNccl(const Nccl *n, Comm *c) {
    ncclCommHandle h = c->nccl;
    c->nccl = nullptr;
    if (h != nullptr && n->commAbort != nullptr) n->commAbort(h);
}

// Records `status` (whose message is the last error) as the communicator's failure and aborts it
// (mu held); returns the failure.
infiniStatus_t failComm(const Nccl *n, Comm *c, infiniStatus_t status) {
    c->setFailure(status, lastErrorMessage());
    abortNccl(n, c);
    return c->failure();
}

// Polls a nonblocking communicator until its call in progress is done: SUCCESS, or the failure that
// ended it (an NCCL error, the communicator's timeout, an abort from another thread), which sticks.
infiniStatus_t settle(const Nccl *n, Comm *c, const char *what) {
    const auto start = std::chrono::steady_clock::now();
    const auto limit = std::chrono::milliseconds(c->timeout_ms.load());
    for (auto pause = std::chrono::microseconds(10);; pause = std::min(pause * 2, std::chrono::microseconds(1000))) {
        {
            std::lock_guard<std::timed_mutex> lock(c->mu);
            if (c->nccl == nullptr) return c->failure();
            ncclResult state = kInProgress;
            ncclResult r = n->commGetAsyncError(c->nccl, &state);
            if (r != kSuccess) state = r;
            if (state == kSuccess) {
                c->ready.store(true);
                return INFINI_STATUS_SUCCESS;
            }
            if (state != kInProgress) return failComm(n, c, ncclFail(n, state, what, c->nccl));
            if (std::chrono::steady_clock::now() - start >= limit) {
                return failComm(n, c,
                                fail(INFINI_STATUS_TIMEOUT,
                                     "%s: timed out after %llu ms waiting for the peers (one that never joined, "
                                     "exited or stopped responding)",
                                     what, static_cast<unsigned long long>(limit.count())));
            }
        }
        std::this_thread::sleep_for(pause);
    }
}

// The communicators a thread's open group has used (ncclGroupEnd completes their calls).
thread_local int group_depth = 0;
thread_local std::vector<Comm *> group_comms;

// Runs one NCCL call that uses the communicator: refuses a failed communicator, completes a nonblocking
// join first, calls fn(handle) with mu held, and polls a nonblocking call left in progress. A failure
// sticks (see the top of the file).
template <typename Fn>
infiniStatus_t call(const Nccl *n, Comm *c, const char *what, Fn fn) {
    INFINI_RETURN_IF_ERROR(c->failure());
    if (!c->ready.load()) INFINI_RETURN_IF_ERROR(settle(n, c, "joining the group (ncclCommInitRankConfig)"));
    ncclResult r;
    {
        std::lock_guard<std::timed_mutex> lock(c->mu);
        if (c->nccl == nullptr) return c->failure();
        r = fn(c->nccl);
        if (r != kSuccess && r != kInProgress) return failComm(n, c, ncclFail(n, r, what, c->nccl));
    }
    if (group_depth > 0) {
        if (std::find(group_comms.begin(), group_comms.end(), c) == group_comms.end()) group_comms.push_back(c);
        return INFINI_STATUS_SUCCESS;  // ncclGroupEnd issues it
    }
    if (r == kInProgress) return settle(n, c, what);
    return INFINI_STATUS_SUCCESS;
}

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

// A nonblocking communicator returns as soon as NCCL has started joining; the join completes (or times
// out) at its first use, under the timeout set by then.
infiniStatus_t commInitRank(infinicclComm_t *out, int nranks, const infinicclUniqueId *id, int rank) {
    NCCL_OR_FAIL(n);
    int device = 0;
    INFINI_CUDA_RETURN(cudaGetDevice(&device));
    NcclId nid;
    std::memcpy(nid.internal, id->internal, sizeof(nid));
    auto *c = new Comm({INFINI_DEVICE_NVIDIA, device, rank, nranks});
    ncclResult r;
    if (n->nonblocking) {
        NcclConfigV21400 config{sizeof(NcclConfigV21400), kNcclApiMagic, kNcclConfigVersion, /*blocking=*/0};
        r = n->commInitRankConfig(&c->nccl, nranks, nid, rank, &config);
        c->nonblocking = true;
        c->ready.store(r == kSuccess);
    } else {
        r = n->commInitRank(&c->nccl, nranks, nid, rank);
    }
    if (r != kSuccess && r != kInProgress) {
        infiniStatus_t status = ncclFail(n, r, n->nonblocking ? "ncclCommInitRankConfig" : "ncclCommInitRank");
        abortNccl(n, c);  // a half-made communicator (NULL when NCCL made none)
        delete c;
        return status;
    }
    *out = &c->header;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitAll(infinicclComm_t *out, int ndevice, const int *device_ids) {
    NCCL_OR_FAIL(n);
    std::vector<ncclCommHandle> handles(ndevice);
    NCCL_RETURN(n, n->commInitAll(handles.data(), ndevice, device_ids), nullptr);
    for (int i = 0; i < ndevice; ++i) {  // ncclCommInitAll makes blocking communicators
        auto *c = new Comm({INFINI_DEVICE_NVIDIA, device_ids[i], i, ndevice});
        c->nccl = handles[i];
        out[i] = &c->header;
    }
    return INFINI_STATUS_SUCCESS;
}

// A healthy nonblocking communicator is finalized first (its queued work flushed, polled under the
// timeout), then destroyed; a failed one, or one whose finalize fails, is aborted instead, so that
// destroying never waits for a peer that is gone.
infiniStatus_t commDestroy(infinicclComm_t comm) {
    NCCL_OR_FAIL(n);
    Comm *c = asComm(comm);
    if (c->nonblocking && n->commFinalize != nullptr && c->failure() == INFINI_STATUS_SUCCESS) {
        (void)call(n, c, "ncclCommFinalize", [&](ncclCommHandle h) { return n->commFinalize(h); });
    }
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    {
        std::lock_guard<std::timed_mutex> lock(c->mu);
        if (c->nccl != nullptr && c->failure() == INFINI_STATUS_SUCCESS) {
            ncclResult r = n->commDestroy(c->nccl);
            if (r != kSuccess) status = ncclFail(n, r, "ncclCommDestroy");
            c->nccl = nullptr;
        }
        abortNccl(n, c);  // failed: every failure has aborted it already, this is a no-op kept for safety
    }
    delete c;
    return status;
}

infiniStatus_t commAbort(infinicclComm_t comm) {
    NCCL_OR_FAIL(n);
    Comm *c = asComm(comm);
    c->setFailure(INFINI_STATUS_ABORTED, "the communicator was aborted (infinicclCommAbort)");
    std::unique_lock<std::timed_mutex> lock(c->mu, std::defer_lock);
    // A blocking call stuck in NCCL keeps mu: NCCL's abort is what releases it, so abort without the lock then.
    (void)lock.try_lock_for(kAbortLockWait);
    abortNccl(n, c);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commSetTimeout(infinicclComm_t comm, uint64_t timeout_ms) {
    asComm(comm)->timeout_ms.store(timeout_ms);
    return INFINI_STATUS_SUCCESS;
}

// Never waits: while another thread's call holds the communicator, the state recorded so far is
// reported (that call reports its own outcome).
infiniStatus_t commGetAsyncError(infinicclComm_t comm, infiniStatus_t *error) {
    NCCL_OR_FAIL(n);
    Comm *c = asComm(comm);
    *error = c->failure();
    if (*error != INFINI_STATUS_SUCCESS) return INFINI_STATUS_SUCCESS;
    std::unique_lock<std::timed_mutex> lock(c->mu, std::try_to_lock);
    if (!lock.owns_lock() || c->nccl == nullptr) return INFINI_STATUS_SUCCESS;
    ncclResult state = kSuccess;
    ncclResult r = n->commGetAsyncError(c->nccl, &state);
    if (r != kSuccess) state = r;
    if (state != kSuccess && state != kInProgress) *error = failComm(n, c, ncclFail(n, state, "NCCL", c->nccl));
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
    return call(n, asComm(comm), "ncclAllReduce", [&](ncclCommHandle h) {
        return n->allReduce(s, r, count, ncclType(t), ncclOp(op), h, streamOf(stream));
    });
}

infiniStatus_t broadcast(void *s, void *r, size_t count, infiniDtype_t t, int root, infinicclComm_t comm,
                         infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    return call(n, asComm(comm), "ncclBroadcast",
                [&](ncclCommHandle h) { return n->broadcast(s, r, count, ncclType(t), root, h, streamOf(stream)); });
}

infiniStatus_t reduceRoot(void *s, void *r, size_t count, infiniDtype_t t, infinicclReduceOp_t op, int root,
                          infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    INFINI_RETURN_IF_ERROR(checkReduceType(t));
    INFINI_RETURN_IF_ERROR(checkNcclOp(op));
    return call(n, asComm(comm), "ncclReduce", [&](ncclCommHandle h) {
        return n->reduce(s, r, count, ncclType(t), ncclOp(op), root, h, streamOf(stream));
    });
}

infiniStatus_t allGather(void *s, void *r, size_t count, infiniDtype_t t, infinicclComm_t comm,
                         infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    return call(n, asComm(comm), "ncclAllGather",
                [&](ncclCommHandle h) { return n->allGather(s, r, count, ncclType(t), h, streamOf(stream)); });
}

infiniStatus_t reduceScatter(void *s, void *r, size_t count, infiniDtype_t t, infinicclReduceOp_t op,
                             infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    INFINI_RETURN_IF_ERROR(checkReduceType(t));
    INFINI_RETURN_IF_ERROR(checkNcclOp(op));
    return call(n, asComm(comm), "ncclReduceScatter", [&](ncclCommHandle h) {
        return n->reduceScatter(s, r, count, ncclType(t), ncclOp(op), h, streamOf(stream));
    });
}

infiniStatus_t send(void *buf, size_t count, infiniDtype_t t, int peer, infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    return call(n, asComm(comm), "ncclSend",
                [&](ncclCommHandle h) { return n->send(buf, count, ncclType(t), peer, h, streamOf(stream)); });
}

infiniStatus_t recv(void *buf, size_t count, infiniDtype_t t, int peer, infinicclComm_t comm, infinirtStream_t stream) {
    NCCL_OR_FAIL(n);
    asBytes(t, count);
    return call(n, asComm(comm), "ncclRecv",
                [&](ncclCommHandle h) { return n->recv(buf, count, ncclType(t), peer, h, streamOf(stream)); });
}

// Groups are forwarded only once NCCL is loaded: a group on a process that never used NCCL is empty.
infiniStatus_t groupStart() {
    const Nccl *n = nccl(nullptr);
    if (n == nullptr) return INFINI_STATUS_SUCCESS;
    NCCL_RETURN(n, n->groupStart(), nullptr);
    ++group_depth;
    return INFINI_STATUS_SUCCESS;
}

// The outermost ncclGroupEnd issues the group's calls with every communicator it used locked (in address
// order), then polls those left in progress; a failure of the group sticks to each of them.
infiniStatus_t groupEnd() {
    const Nccl *n = nccl(nullptr);
    if (n == nullptr) return INFINI_STATUS_SUCCESS;
    if (group_depth > 0) --group_depth;
    if (group_depth > 0) {
        NCCL_RETURN(n, n->groupEnd(), nullptr);
        return INFINI_STATUS_SUCCESS;
    }
    std::vector<Comm *> comms;
    comms.swap(group_comms);
    std::sort(comms.begin(), comms.end());
    ncclResult r;
    {
        std::vector<std::unique_lock<std::timed_mutex>> locks;
        for (Comm *c : comms) locks.emplace_back(c->mu);
        r = n->groupEnd();
        if (r != kSuccess && r != kInProgress) {
            infiniStatus_t status = ncclFail(n, r, "ncclGroupEnd");
            const std::string message = lastErrorMessage();
            for (Comm *c : comms) {
                c->setFailure(status, message);
                abortNccl(n, c);
            }
            return fail(status, "%s", message.c_str());
        }
    }
    infiniStatus_t first = INFINI_STATUS_SUCCESS;
    std::string message;
    for (Comm *c : comms) {
        if (!c->nonblocking) continue;
        infiniStatus_t s = settle(n, c, "ncclGroupEnd");
        if (s != INFINI_STATUS_SUCCESS && first == INFINI_STATUS_SUCCESS) {
            first = s;
            message = lastErrorMessage();
        }
    }
    if (first != INFINI_STATUS_SUCCESS) lastErrorMessage() = message;
    return first;
}

}  // namespace

void fillCclTable(infiniBackend_t &t) { INFINI_BACKEND_FILL_CCL(t); }

}  // namespace infini::nvidia
