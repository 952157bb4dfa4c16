#include "common.h"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <sstream>

#include "../runtime.h"


namespace infini::cpu::ops::INFINI_CPU_ISA {

size_t parallelism() { return static_cast<size_t>(omp_get_max_threads()); }

namespace {

size_t lastLevelCacheBytes() {
    for (int i = 0; i < 8; ++i) {
        std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        int level = 0;
        char unit = 0;
        unsigned long long size = 0;
        FILE *f = std::fopen((dir + "level").c_str(), "r");
        if (f == nullptr) break;
        bool ok = std::fscanf(f, "%d", &level) == 1;
        std::fclose(f);
        if (!ok || level != 3) continue;
        f = std::fopen((dir + "size").c_str(), "r");
        if (f == nullptr) break;
        int got = std::fscanf(f, "%llu%c", &size, &unit);
        std::fclose(f);
        if (got >= 1 && size > 0) return size * (unit == 'K' ? 1024ULL : unit == 'M' ? 1024ULL * 1024 : 1ULL);
    }
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return v > 0 ? static_cast<size_t>(v) : size_t(32) << 20;
}

}  // namespace

size_t streamingStoreBytes() {
    static const size_t bytes = lastLevelCacheBytes() / 4;
    return bytes;
}

void streamCopy(void *dst, const void *src, size_t n) {
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    size_t head = std::min(n, (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31);
    std::memcpy(d, s, head);
    size_t i = head;
    for (; i + 128 <= n; i += 128) {
        __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
        __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 32));
        __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 64));
        __m256i x3 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i), x0);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 32), x1);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 64), x2);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i + 96), x3);
    }
    for (; i + 32 <= n; i += 32) {
        _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i), _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)));
    }
    std::memcpy(d + i, s + i, n - i);
    _mm_sfence();
}

// OpenMP, on purpose: linked as libgomp.so.1, it resolves to the copy torch has already loaded (same
// soname), so torch's kernels and ours share one team of threads. A pool of our own (tried) made two
// teams spin against each other: an op right after a torch op waited for a core torch's spinning
// threads held (measured here: add on [16, 4096] 76 us against torch's 12 when calls alternate).
void parallelFor(size_t n, size_t cost_per_item, const std::function<void(size_t, size_t)> &body) {
    constexpr size_t kMinWorkPerThread = 32768;  // elements: below this, threads cost more than they save
    int threads = omp_get_max_threads();
    size_t useful = (n * cost_per_item) / kMinWorkPerThread;
    if (threads <= 1 || useful < 2 || n < 2 || omp_in_parallel()) {
        body(0, n);
        return;
    }
    int team = static_cast<int>(std::min<size_t>({static_cast<size_t>(threads), useful, n}));
#pragma omp parallel num_threads(team)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t begin = n * t / nt, end = n * (t + 1) / nt;
        if (begin < end) body(begin, end);
    }
}

namespace {

struct CpuOp : InfiniopDescriptor {
    std::shared_ptr<const Kernel> kernel;  // shared with queued launches, so destroy never races them
    int ndata = 0;
};

infiniStatus_t runCpuOp(InfiniopDescriptor *self, void *, size_t, void *const *data, infinirtStream_t stream) {
    auto *op = static_cast<CpuOp *>(self);
    if (stream == INFINIRT_STREAM_CALLER) {
        try {
            (*op->kernel)(data);
        } catch (const std::exception &e) {  // a check that needs the data (an index out of range)
            return fail(INFINI_STATUS_BAD_PARAM, "%s", e.what());
        }
        return INFINI_STATUS_SUCCESS;
    }
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    std::array<void *, INFINIOP_MAX_TENSORS> ptrs{};
    std::copy(data, data + op->ndata, ptrs.begin());
    s->enqueue([kernel = op->kernel, ptrs] { (*kernel)(ptrs.data()); });
    return INFINI_STATUS_SUCCESS;
}

void destroyCpuOp(InfiniopDescriptor *self) { delete static_cast<CpuOp *>(self); }

const OpFactory kFactories[INFINIOP_OP_COUNT] = {
    makeAdd,       makeMul,         makeSilu,       makeRelu,          makeGelu,     makeSwiGLU, makeSiluAndMul,
    makeRMSNorm,   makeAddRMSNorm,  makeLayerNorm,  makeSoftmax,       makeCausalSoftmax, makeEmbedding, makeRoPE,
    makeTopkSoftmax, makeRandomSample, makePagedCaching, makeGemm, makeAttention, makePagedAttention,
    makePagedAttentionPrefill,
};
static_assert(sizeof(kFactories) / sizeof(kFactories[0]) == INFINIOP_OP_COUNT, "one factory per operator");

}  // namespace

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out) {
    if (params->op < 0 || params->op >= INFINIOP_OP_COUNT) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "operator %d is not provided by the cpu backend", params->op);
    }
    for (int i = 0; i < params->ntensors; ++i) {
        const auto *t = params->tensors[i];
        for (size_t d = 0; t && d < t->ndim; ++d) {
            if (t->strides[d] < 0) {
                return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "tensor %d has a negative stride", i);
            }
        }
    }
    Kernel kernel;
    INFINI_RETURN_IF_ERROR(kFactories[params->op](*params, &kernel));
    auto *op = new CpuOp();
    op->device = INFINI_DEVICE_CPU;
    op->device_id = handle->device_id;
    op->op = params->op;
    op->workspace_size = 0;
    op->run = runCpuOp;
    op->destroy = destroyCpuOp;
    op->kernel = std::make_shared<const Kernel>(std::move(kernel));
    op->ndata = params->ntensors;
    *out = op;
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
