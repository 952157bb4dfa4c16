// backend.cpp: the nvidia backend's entry point: infinirt over the CUDA runtime (devices, streams,
// events, memory), the per-device error records of the operators, and the table the core loads.
#include <cstdio>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "nvidia.h"
#include <infini/backend_fill.h>
#include "families/family.h"
#include "ops/ops.h"

namespace infini::nvidia {

infiniStatus_t cudaFail(cudaError_t err, const char *what) {
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    infiniStatus_t status = INFINI_STATUS_INTERNAL_ERROR;
    if (err == cudaErrorMemoryAllocation) status = INFINI_STATUS_OUT_OF_MEMORY;
    if (err == cudaErrorInvalidDevice || err == cudaErrorNoDevice) status = INFINI_STATUS_DEVICE_NOT_FOUND;
    if (err == cudaErrorInvalidResourceHandle) status = INFINI_STATUS_INVALID_HANDLE;
    if (err == cudaErrorNotReady) status = INFINI_STATUS_NOT_READY;
    if (err == cudaErrorInvalidValue) status = INFINI_STATUS_BAD_PARAM;
    if (err == cudaErrorStreamCaptureUnsupported || err == cudaErrorStreamCaptureInvalidated ||
        err == cudaErrorStreamCaptureImplicit || err == cudaErrorCapturedEvent ||
        err == cudaErrorStreamCaptureWrongThread || err == cudaErrorStreamCaptureIsolation ||
        err == cudaErrorStreamCaptureUnjoined || err == cudaErrorStreamCaptureUnmatched) {
        status = INFINI_STATUS_CAPTURE_UNSUPPORTED;
    }
    infiniStatus_t r = fail(status, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
    if (status == INFINI_STATUS_CAPTURE_UNSUPPORTED && err != cudaErrorStreamCaptureInvalidated) noteRefusedCall();
    return r;
}

namespace {

// The streams capturing now, each with the first refused call that spoiled its capture (CUDA reports only
// "invalidated" at the end; the user needs the call that did it).
struct Capturing {
    cudaStream_t stream;
    std::string spoiled_by;
};
std::mutex g_capturing_mu;
std::vector<Capturing> g_capturing;

}  // namespace

void noteRefusedCall() {
    std::lock_guard<std::mutex> lock(g_capturing_mu);
    for (Capturing &c : g_capturing) {
        cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        if (c.spoiled_by.empty() && cudaStreamIsCapturing(c.stream, &st) == cudaSuccess &&
            st == cudaStreamCaptureStatusInvalidated) {
            c.spoiled_by = lastErrorMessage();
        }
    }
    cudaGetLastError();
}

namespace {

// cudaMalloc and cudaMallocHost are refused while any stream captures in global mode; the caching allocators call
// them for memory a capture uses (a graph's private pool), as torch's do, with this thread's mode relaxed.
struct RelaxedCaptureMode {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&mode); }
    ~RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&mode); }
};

const char *lastError() { return lastErrorMessage().c_str(); }

int g_device_count = 0;

struct ErrorSlots {
    std::mutex mu;
    std::vector<DeviceError *> host;    // per device, lazily allocated
    std::vector<DeviceError *> device;  // the same memory as the device sees it
};

ErrorSlots &slots() {
    static auto *s = new ErrorSlots();
    return *s;
}

int currentDevice() {
    int d = 0;
    cudaGetDevice(&d);
    return d;
}

infiniStatus_t init() {
    cudaError_t err = cudaGetDeviceCount(&g_device_count);
    if (err != cudaSuccess) {
        g_device_count = 0;
        return cudaFail(err, "cudaGetDeviceCount");
    }
    if (g_device_count == 0) return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no CUDA device");
    auto &s = slots();
    s.host.assign(g_device_count, nullptr);
    s.device.assign(g_device_count, nullptr);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceCount(int *count) {
    *count = g_device_count;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t setDevice(int id) {
    if (id < 0 || id >= g_device_count) return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no device nvidia:%d", id);
    INFINI_CUDA_RETURN(cudaSetDevice(id));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSynchronize() {
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) return cudaFail(err, "synchronizing the device (cudaDeviceSynchronize)");
    return takeDeviceError(currentDevice());
}

infiniStatus_t getMemInfo(int id, size_t *free_bytes, size_t *total_bytes) {
    if (id < 0 || id >= g_device_count) return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no device nvidia:%d", id);
    int old = currentDevice();
    INFINI_CUDA_RETURN(cudaSetDevice(id));
    cudaError_t err = cudaMemGetInfo(free_bytes, total_bytes);
    cudaSetDevice(old);
    if (err != cudaSuccess) return cudaFail(err, "cudaMemGetInfo");
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceName(int id, char *name, size_t len) {
    if (id < 0 || id >= g_device_count) return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no device nvidia:%d", id);
    cudaDeviceProp prop;
    INFINI_CUDA_RETURN(cudaGetDeviceProperties(&prop, id));
    std::snprintf(name, len, "%s", prop.name);
    return INFINI_STATUS_SUCCESS;
}

cudaStream_t asStream(infinirtStream_t s) { return static_cast<cudaStream_t>(s); }

infiniStatus_t streamCreate(infinirtStream_t *stream) {
    cudaStream_t s;
    INFINI_CUDA_RETURN(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = s;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamDestroy(infinirtStream_t stream) {
    if (stream == nullptr)
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamDestroy: the default stream cannot be destroyed");
    INFINI_CUDA_RETURN(cudaStreamDestroy(asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamSynchronize(infinirtStream_t stream) {
    cudaError_t err = cudaStreamSynchronize(asStream(stream));
    if (err != cudaSuccess) return cudaFail(err, "synchronizing a stream (cudaStreamSynchronize)");
    return takeDeviceError(currentDevice());
}

infiniStatus_t streamQuery(infinirtStream_t stream, infinirtEventStatus_t *status) {
    cudaError_t err = cudaStreamQuery(asStream(stream));
    if (err == cudaErrorNotReady) {
        *status = INFINIRT_EVENT_NOT_READY;
        return INFINI_STATUS_SUCCESS;
    }
    INFINI_CUDA_RETURN(err);
    *status = INFINIRT_EVENT_COMPLETE;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamWaitEvent(infinirtStream_t stream, infinirtEvent_t event) {
    INFINI_CUDA_RETURN(cudaStreamWaitEvent(asStream(stream), static_cast<cudaEvent_t>(event), 0));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t launchHostFunc(infinirtStream_t stream, void (*fn)(void *), void *user_data) {
    INFINI_CUDA_RETURN(cudaLaunchHostFunc(asStream(stream), fn, user_data));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventCreate(infinirtEvent_t *event, uint32_t flags) {
    unsigned cuda_flags = cudaEventDefault;
    if (flags & INFINIRT_EVENT_DISABLE_TIMING) cuda_flags |= cudaEventDisableTiming;
    if (flags & INFINIRT_EVENT_BLOCKING_SYNC) cuda_flags |= cudaEventBlockingSync;
    cudaEvent_t e;
    INFINI_CUDA_RETURN(cudaEventCreateWithFlags(&e, cuda_flags));
    *event = e;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) {
    INFINI_CUDA_RETURN(cudaEventRecord(static_cast<cudaEvent_t>(event), asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventQuery(infinirtEvent_t event, infinirtEventStatus_t *status) {
    cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
        *status = INFINIRT_EVENT_NOT_READY;
        return INFINI_STATUS_SUCCESS;
    }
    if (err == cudaErrorCapturedEvent) return cudaFail(err, "querying an event recorded during a stream capture");
    INFINI_CUDA_RETURN(err);
    *status = INFINIRT_EVENT_COMPLETE;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventSynchronize(infinirtEvent_t event) {
    cudaError_t err = cudaEventSynchronize(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorCapturedEvent) return cudaFail(err, "synchronizing an event recorded during a stream capture");
    if (err != cudaSuccess) return cudaFail(err, "synchronizing an event (cudaEventSynchronize)");
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventDestroy(infinirtEvent_t event) {
    INFINI_CUDA_RETURN(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventElapsedTime(float *ms, infinirtEvent_t start, infinirtEvent_t end) {
    INFINI_CUDA_RETURN(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t mallocDevice(void **ptr, size_t size) {
    RelaxedCaptureMode relaxed;
    INFINI_CUDA_RETURN(cudaMalloc(ptr, size));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t mallocHost(void **ptr, size_t size) {
    RelaxedCaptureMode relaxed;
    INFINI_CUDA_RETURN(cudaMallocHost(ptr, size));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeDevice(void *ptr) {
    INFINI_CUDA_RETURN(cudaFree(ptr));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeHost(void *ptr) {
    INFINI_CUDA_RETURN(cudaFreeHost(ptr));
    return INFINI_STATUS_SUCCESS;
}

cudaMemcpyKind kindOf(infinirtMemcpyKind_t kind) {
    switch (kind) {
        case INFINIRT_MEMCPY_H2H: return cudaMemcpyHostToHost;
        case INFINIRT_MEMCPY_H2D: return cudaMemcpyHostToDevice;
        case INFINIRT_MEMCPY_D2H: return cudaMemcpyDeviceToHost;
        default: return cudaMemcpyDeviceToDevice;
    }
}

infiniStatus_t memcpySync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    if (kind < INFINIRT_MEMCPY_H2H || kind > INFINIRT_MEMCPY_D2D)
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtMemcpy: bad kind %d", kind);
    INFINI_CUDA_RETURN(cudaMemcpy(dst, src, size, kindOf(kind)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                           infinirtStream_t stream) {
    if (kind < INFINIRT_MEMCPY_H2H || kind > INFINIRT_MEMCPY_D2D)
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtMemcpyAsync: bad kind %d", kind);
    INFINI_CUDA_RETURN(cudaMemcpyAsync(dst, src, size, kindOf(kind), asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t mallocAsync(void **ptr, size_t size, infinirtStream_t stream) {
    retainPoolMemory();
    INFINI_CUDA_RETURN(cudaMallocAsync(ptr, size, asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeAsync(void *ptr, infinirtStream_t stream) {
    INFINI_CUDA_RETURN(cudaFreeAsync(ptr, asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetSync(void *ptr, int value, size_t size) {
    INFINI_CUDA_RETURN(cudaMemset(ptr, value, size));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetAsync(void *ptr, int value, size_t size, infinirtStream_t stream) {
    INFINI_CUDA_RETURN(cudaMemsetAsync(ptr, value, size, asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t pointerGetAttributes(infinirtPointerAttributes_t *attr, const void *ptr) {
    cudaPointerAttributes a;
    cudaError_t err = cudaPointerGetAttributes(&a, ptr);
    std::memset(attr, 0, sizeof(*attr));
    if (err != cudaSuccess) {
        cudaGetLastError();
        attr->type = INFINIRT_MEMORY_UNREGISTERED;
        return INFINI_STATUS_SUCCESS;
    }
    if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
        attr->type = INFINIRT_MEMORY_DEVICE;
        attr->device = INFINI_DEVICE_NVIDIA;
        attr->device_id = a.device;
    } else if (a.type == cudaMemoryTypeHost) {
        attr->type = INFINIRT_MEMORY_HOST;
    } else {
        attr->type = INFINIRT_MEMORY_UNREGISTERED;
    }
    // the allocation's extent is a driver query (cuMemGetAddressRange); not needed by the glue
    attr->base = nullptr;
    attr->size = 0;
    return INFINI_STATUS_SUCCESS;
}

struct NvidiaHandle {
    InfiniopHandle header;
};

infiniStatus_t createHandle(infiniopHandle_t *handle) {
    auto *h = new NvidiaHandle{{INFINI_DEVICE_NVIDIA, currentDevice()}};
    *handle = &h->header;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t destroyHandle(infiniopHandle_t handle) {
    delete reinterpret_cast<NvidiaHandle *>(handle);
    return INFINI_STATUS_SUCCESS;
}

const char *opName(int op) {
    if (op >= families::kFamilyOpBase) {  // a family's kernels (families/family.h)
        static const char *fam[] = {"pointwise", "reduce", "scan", "sort",     "index", "nonzero",
                                    "random",    "rows",   "norm", "nll_loss", "sdpa",  "window"};
        const int f = op - families::kFamilyOpBase;
        return f < static_cast<int>(sizeof(fam) / sizeof(fam[0])) ? fam[f] : "family";
    }
    static const char *names[] = {"add",
                                  "mul",
                                  "silu",
                                  "relu",
                                  "gelu",
                                  "swiglu",
                                  "silu_and_mul",
                                  "rms_norm",
                                  "add_rms_norm",
                                  "layer_norm",
                                  "softmax",
                                  "causal_softmax",
                                  "embedding",
                                  "rope",
                                  "topk_softmax",
                                  "random_sample",
                                  "paged_caching",
                                  "gemm",
                                  "attention",
                                  "paged_attention",
                                  "paged_attention_prefill"};
    return op >= 0 && op < static_cast<int>(sizeof(names) / sizeof(names[0])) ? names[op] : "operator";
}

const char *argName(int arg) {
    static const char *names[] = {"indices", "pos_ids", "slot_mapping", "block_tables", "seq_lens", "cu_seqlens_q"};
    return arg >= 0 && arg < 6 ? names[arg] : "an index tensor";
}

// Graphs: CUDA graphs captured from a stream, instantiated at the end of the capture. A handle is a Graph the
// backend made and has not destroyed (checked, so that a stale handle is reported instead of crashing).
struct Graph {
    int device;
    cudaGraphExec_t exec;
};
std::mutex g_graphs_mu;
std::unordered_set<Graph *> g_graphs;

Graph *liveGraph(infinirtGraph_t handle) {
    std::lock_guard<std::mutex> lock(g_graphs_mu);
    auto *g = static_cast<Graph *>(handle);
    return g_graphs.count(g) ? g : nullptr;
}

infiniStatus_t streamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode) {
    cudaStreamCaptureMode m = mode == INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL ? cudaStreamCaptureModeThreadLocal
                              : mode == INFINIRT_STREAM_CAPTURE_MODE_RELAXED    ? cudaStreamCaptureModeRelaxed
                                                                                : cudaStreamCaptureModeGlobal;
    INFINI_CUDA_RETURN(cudaStreamBeginCapture(asStream(stream), m));
    std::lock_guard<std::mutex> lock(g_capturing_mu);
    g_capturing.push_back({asStream(stream), std::string()});
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph) {
    cudaGraph_t captured = nullptr;
    cudaError_t ended = cudaStreamEndCapture(asStream(stream), &captured);
    std::string spoiled_by;
    {
        std::lock_guard<std::mutex> lock(g_capturing_mu);
        for (auto it = g_capturing.begin(); it != g_capturing.end(); ++it) {
            if (it->stream != asStream(stream)) continue;
            spoiled_by = std::move(it->spoiled_by);
            g_capturing.erase(it);
            break;
        }
    }
    if (ended != cudaSuccess && !spoiled_by.empty()) {
        cudaGetLastError();
        return fail(INFINI_STATUS_CAPTURE_UNSUPPORTED, "a call the capture cannot record spoiled it: %s",
                    spoiled_by.c_str());
    }
    if (ended != cudaSuccess) return cudaFail(ended, "cudaStreamEndCapture");
    int device = 0;
    cudaGraphExec_t exec = nullptr;
    cudaError_t err = cudaGetDevice(&device);
    // (auto-free: memory a captured stream-ordered allocation left allocated is freed before the next launch)
    if (err == cudaSuccess)
        err = cudaGraphInstantiateWithFlags(&exec, captured, cudaGraphInstantiateFlagAutoFreeOnLaunch);
    cudaGraphDestroy(captured);
    if (err != cudaSuccess) return cudaFail(err, "cudaGraphInstantiateWithFlags");
    auto *g = new Graph{device, exec};
    std::lock_guard<std::mutex> lock(g_graphs_mu);
    g_graphs.insert(g);
    *graph = g;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamIsCapturing(infinirtStream_t stream, infinirtStreamCaptureStatus_t *status) {
    cudaStreamCaptureStatus st;
    INFINI_CUDA_RETURN(cudaStreamIsCapturing(asStream(stream), &st));
    *status = st == cudaStreamCaptureStatusActive        ? INFINIRT_STREAM_CAPTURE_STATUS_ACTIVE
              : st == cudaStreamCaptureStatusInvalidated ? INFINIRT_STREAM_CAPTURE_STATUS_INVALIDATED
                                                         : INFINIRT_STREAM_CAPTURE_STATUS_NONE;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphLaunch(infinirtGraph_t graph, infinirtStream_t stream) {
    Graph *g = liveGraph(graph);
    if (g == nullptr) return fail(INFINI_STATUS_INVALID_HANDLE, "graph %p is not a live graph", graph);
    if (g->device != currentDevice()) {
        return fail(INFINI_STATUS_BAD_PARAM, "a graph captured on nvidia:%d cannot be launched on nvidia:%d", g->device,
                    currentDevice());
    }
    INFINI_RETURN_IF_ERROR(takeDeviceError(g->device));
    INFINI_CUDA_RETURN(cudaGraphLaunch(g->exec, asStream(stream)));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphDestroy(infinirtGraph_t graph) {
    Graph *g = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_graphs_mu);
        auto it = g_graphs.find(static_cast<Graph *>(graph));
        if (it == g_graphs.end()) return fail(INFINI_STATUS_INVALID_HANDLE, "graph %p is not a live graph", graph);
        g = *it;
        g_graphs.erase(it);
    }
    cudaError_t err = cudaGraphExecDestroy(g->exec);  // launches already queued still run
    delete g;
    if (err != cudaSuccess) return cudaFail(err, "cudaGraphExecDestroy");
    return INFINI_STATUS_SUCCESS;
}

infiniBackend_t makeTable() {
    infiniBackend_t t{};
    t.abi_version = INFINI_BACKEND_ABI_VERSION;
    t.struct_size = sizeof(infiniBackend_t);
    t.device_type = INFINI_DEVICE_NVIDIA;
    t.name = "nvidia";
    INFINI_BACKEND_FILL_RUNTIME(t, ops::createOp);
    INFINI_BACKEND_FILL_GRAPH(t);
    fillCclTable(t);
    t.family = families::family;
    return t;
}

}  // namespace

void retainPoolMemory() {
    static std::atomic<uint64_t> done{0};  // a bit a device (devices past 63: set each time, harmless)
    const int dev = currentDevice();
    const uint64_t bit = dev < 64 ? uint64_t(1) << dev : 0;
    if (bit != 0 && (done.load(std::memory_order_relaxed) & bit)) return;
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
    done.fetch_or(bit, std::memory_order_relaxed);
}

DeviceError *deviceErrorSlot(int device) {
    auto &s = slots();
    if (device < 0 || device >= static_cast<int>(s.host.size())) return nullptr;
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.host[device] == nullptr) {
        void *h = nullptr, *d = nullptr;
        if (cudaHostAlloc(&h, sizeof(DeviceError), cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
            cudaGetLastError();
            return nullptr;
        }
        std::memset(h, 0, sizeof(DeviceError));
        void *claim = nullptr;
        if (cudaHostGetDevicePointer(&d, h, 0) != cudaSuccess || cudaMalloc(&claim, sizeof(int)) != cudaSuccess ||
            cudaMemset(claim, 0, sizeof(int)) != cudaSuccess) {
            cudaGetLastError();
            if (claim) cudaFree(claim);
            cudaFreeHost(h);
            return nullptr;
        }
        static_cast<DeviceError *>(h)->claim = static_cast<int *>(claim);
        s.host[device] = static_cast<DeviceError *>(h);
        s.device[device] = static_cast<DeviceError *>(d);
    }
    return s.device[device];
}

infiniStatus_t takeDeviceError(int device) {
    auto &s = slots();
    if (device < 0 || device >= static_cast<int>(s.host.size())) return INFINI_STATUS_SUCCESS;
    volatile DeviceError *e = s.host[device];
    if (e == nullptr || e->kind <= kErrNone) return INFINI_STATUS_SUCCESS;
    DeviceError copy;
    std::memcpy(&copy, const_cast<DeviceError *>(e), sizeof(copy));
    int *claim = copy.claim;
    std::memset(const_cast<DeviceError *>(e), 0, sizeof(copy));
    e->claim = claim;
    cudaMemset(claim, 0, sizeof(int));  // rare (an error was found): a synchronous reset is fine
    const char *op = opName(copy.op);
    switch (copy.kind) {
        case kErrIndex:
            return fail(INFINI_STATUS_BAD_PARAM, "%s: index %lld in %s is out of range [0, %lld)", op, copy.a,
                        argName(copy.arg), copy.b);
        case kErrSeqLen:
            if (copy.c < 0) {
                return fail(INFINI_STATUS_BAD_PARAM, "%s: seq_lens[%lld] = %lld is out of range [q_len, %lld]", op,
                            copy.a, copy.b, copy.d);
            }
            return fail(INFINI_STATUS_BAD_PARAM, "%s: seq_lens[%lld] = %lld is out of range [%lld, %lld]", op, copy.a,
                        copy.b, copy.c, copy.d);
        case kErrFamilyIndex:
            return fail(INFINI_STATUS_BAD_PARAM,
                        "%s: index out of range: %lld is not in [%lld, %lld) (index operand %lld)", op, copy.a,
                        copy.d ? -copy.b : 0LL, copy.b, copy.c);
        case kErrTarget:
            return fail(INFINI_STATUS_BAD_PARAM, "%s: index out of range: Target %lld is out of bounds (%lld classes)",
                        op, copy.a, copy.b);
        default: return fail(INFINI_STATUS_BAD_PARAM, "%s: cu_seqlens_q must rise from 0 to %lld", op, copy.a);
    }
}

}  // namespace infini::nvidia

extern "C" INFINI_EXPORT const infiniBackend_t *infiniBackendGetV1(void) {
    static const infiniBackend_t table = infini::nvidia::makeTable();
    return &table;
}
