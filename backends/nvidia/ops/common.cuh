// common.cuh: what the nvidia kernels share: float conversions, 16-byte vectors, warp and block
// reductions, strided index math, and the device error record.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "../../common/dtype.h"
#include "ops.h"

namespace infini::nvidia::ops {

__device__ __forceinline__ float toF(float x) { return x; }
__device__ __forceinline__ float toF(__half x) { return __half2float(x); }
__device__ __forceinline__ float toF(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T fromF(float x);
template <>
__device__ __forceinline__ float fromF<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ __half fromF<__half>(float x) {
    return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromF<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}

// N elements of T in one aligned piece (16 bytes when N = 16 / sizeof(T)).
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
    T v[N];
};

template <typename T>
constexpr int kVec16 = 16 / sizeof(T);

template <typename T, int N>
__device__ __forceinline__ void loadF(const T *p, float (&out)[N]) {
    Vec<T, N> v = *reinterpret_cast<const Vec<T, N> *>(p);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = toF(v.v[i]);
}

// A 16-byte piece held as stored, as floats (bf16: a shift or a mask per element; fewer registers
// than the conversion intrinsics take here).
__device__ __forceinline__ void unpackF(const Vec<__nv_bfloat16, 8> &x, float (&f)[8]) {
    const uint32_t *w = reinterpret_cast<const uint32_t *>(&x);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        f[2 * i] = __uint_as_float(w[i] << 16);
        f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
}
__device__ __forceinline__ void unpackF(const Vec<__half, 8> &x, float (&f)[8]) {
    const __half2 *h = reinterpret_cast<const __half2 *>(&x);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float2 v = __half22float2(h[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}
template <typename T, int N>
__device__ __forceinline__ void unpackF(const Vec<T, N> &x, float (&f)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) f[i] = toF(x.v[i]);
}
__device__ __forceinline__ void unpackF(const Vec<float, 4> &x, float (&f)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) f[i] = x.v[i];
}

// A piece stored as is, or (KEEP, 16-byte pieces) with an L2 evict_last policy: the line kept before others. For
// an op's output, which the next kernel reads, written by a kernel that streams more than it writes: the output is
// then in the L2 for its consumer and its write-back is left to later traffic (the inputs' lines, read once, go
// first). Against the plain store it measured faster for the op and for its consumer, about even for calls back to
// back on distinct buffers (the deferred write-backs paid inside), and costs an unrelated kernel after it nothing.
template <bool KEEP, typename VT>
__device__ __forceinline__ void storeVec(VT *p, const VT &v) {
    if constexpr (KEEP) {
        static_assert(sizeof(VT) == 16, "16-byte pieces");
        const uint4 r = *reinterpret_cast<const uint4 *>(&v);
        uint64_t pol;
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(r.x), "r"(r.y),
                     "r"(r.z), "r"(r.w), "l"(pol)
                     : "memory");
    } else {
        *p = v;
    }
}

// N floats stored as N elements of T in one piece; KEEP as storeVec where the piece is 16 bytes (else plain).
template <typename T, int N, bool KEEP = false>
__device__ __forceinline__ void storeF(T *p, const float (&in)[N]) {
    Vec<T, N> v;
#pragma unroll
    for (int i = 0; i < N; ++i) v.v[i] = fromF<T>(in[i]);
    storeVec<KEEP && sizeof(v) == 16>(reinterpret_cast<Vec<T, N> *>(p), v);
}

// N elements of W (any float type) from p in 16-byte pieces (p aligned to 16 bytes, N a multiple of a
// piece), or in one 8- or 4-byte piece (p aligned to it), else one by one.
template <typename W, int N>
__device__ __forceinline__ void loadWideF(const W *p, float (&out)[N]) {
    constexpr int kPer = 16 / sizeof(W);
    if constexpr (N % kPer == 0) {
#pragma unroll
        for (int c = 0; c < N / kPer; ++c) {
            float part[kPer];
            loadF<W, kPer>(p + c * kPer, part);
#pragma unroll
            for (int e = 0; e < kPer; ++e) out[c * kPer + e] = part[e];
        }
    } else if constexpr (N * sizeof(W) == 8 || N * sizeof(W) == 4) {  // one narrower piece (p aligned to it)
        loadF<W, N>(p, out);
    } else {
#pragma unroll
        for (int e = 0; e < N; ++e) out[e] = toF(p[e]);
    }
}

// A 16- or 8-byte global load issued where it stands. The compilers sink an ordinary load below a later
// branch that decides whether its value is used (an index read and checked first), which turns one memory
// round trip into two; ptxas does so even with a plain ld.global from volatile asm (SASS of the 8-byte
// paged_caching kernel: the k/v loads after the slot's check). A relaxed gpu-scope load is a strong memory
// operation that ptxas leaves before the branch; for data no other thread writes during the kernel it
// reads the same values.
__device__ __forceinline__ uint4 loadNow(const uint4 *p) {
    uint4 r;
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}
__device__ __forceinline__ uint2 loadNow(const uint2 *p) {
    uint2 r;
    asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
    return r;
}

// Ends the SASS basic block here (`never` is false at run time, which the compiler cannot know). ptxas
// schedules within a block and issues a load whose value is first used after a reduction late, after the
// reduction's first steps (rms_norm's weights: a second memory round trip); loads placed before this stay
// before it.
__device__ __forceinline__ void loadsEndHere(bool never) {
    if (never) __trap();
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// A reduction over the block (every thread gets it); `smem` holds 32 floats; blockDim.x a multiple of 32.
template <typename WarpOp>
__device__ __forceinline__ float blockReduce(float v, float *smem, float identity, WarpOp warp_op) {
    v = warp_op(v);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    __syncthreads();
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = lane < warps ? smem[lane] : identity;
    return warp_op(v);
}

__device__ __forceinline__ float blockSum(float v, float *smem) { return blockReduce(v, smem, 0.0f, warpSum); }
__device__ __forceinline__ float blockMax(float v, float *smem) { return blockReduce(v, smem, -INFINITY, warpMax); }

// Row kernels (norms, softmax): a block per row, each thread keeping up to kMaxVecs vectors of the row
// in registers between passes when the row fits (`cached`), else re-reading it each pass.
constexpr int kMaxVecs = 4;

// One pass over the row's nv vectors: f(v, values) for vector v. With `cached`, the values live in
// xs (loaded on the `first` pass); otherwise load(v, values) reads them again.
// P (the vectors a thread holds) comes from xs.
template <int N, int P, typename Load, typename F>
__device__ __forceinline__ void visitRow(long long nv, bool cached, bool first, float (&xs)[P][N], Load &&load, F &&f) {
    if (cached) {
#pragma unroll
        for (int i = 0; i < P; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                if (first) load(v, xs[i]);
                f(v, xs[i]);
            }
        }
    } else {  // P loads in flight per thread, then their uses
        for (long long v0 = threadIdx.x; v0 < nv; v0 += static_cast<long long>(P) * blockDim.x) {
            float t[P][N];
#pragma unroll
            for (int i = 0; i < P; ++i) {
                long long v = v0 + i * static_cast<long long>(blockDim.x);
                if (v < nv) load(v, t[i]);
            }
#pragma unroll
            for (int i = 0; i < P; ++i) {
                long long v = v0 + i * static_cast<long long>(blockDim.x);
                if (v < nv) f(v, t[i]);
            }
        }
    }
}

// Threads per row of nv vectors: enough for kMaxVecs vectors each (one each when there are few rows,
// so that more loads are in flight), a multiple of 32 in [32, 1024].
inline int rowThreads(long long nv, long long rows) {
    long long per = rows < 264 ? 1 : kMaxVecs;
    long long t = (nv + per - 1) / per;
    t = (t + 31) / 32 * 32;
    return static_cast<int>(t < 32 ? 32 : (t > 1024 ? 1024 : t));
}

// The most threads a block of `kernel` may have (its registers decide), a multiple of 32; asked once
// per kernel.
template <typename Kernel>
inline int maxThreads(Kernel kernel) {
    static const int cap = [kernel] {
        cudaFuncAttributes a{};
        if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) return 1024;
        return a.maxThreadsPerBlock / 32 * 32;
    }();
    return cap;
}

inline bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// Whether every row start of d is a multiple of n_vec elements from the base.
inline bool rowsAligned(const Dims &d, int n_vec) {
    for (int k = 0; k < d.ndim; ++k) {
        if (d.shape[k] > 1 && d.strides[k] % n_vec != 0) return false;
    }
    return true;
}

// a / b and a % b (a >= 0, b > 0) in 32 bits when both fit: a 64-bit division is a long subroutine
// whose latency shows in short kernels, the 32-bit one a few instructions.
__device__ __forceinline__ long long divMod(long long a, long long b, long long *rem) {
    if (((static_cast<unsigned long long>(a) | static_cast<unsigned long long>(b)) >> 32) == 0) {
        unsigned q = static_cast<unsigned>(a) / static_cast<unsigned>(b);
        *rem = static_cast<long long>(static_cast<unsigned>(a) - q * static_cast<unsigned>(b));
        return q;
    }
    long long q = a / b;
    *rem = a - q * b;
    return q;
}

// The element offset of linear index i (row-major over shape) under strides.
// i < the shape's element count, so the outermost dimension needs no division (a plain 2-D row
// layout costs none; hosts collapse() their Dims so that most layouts are that).
__device__ __forceinline__ long long offsetOf(const Dims &d, long long i) {
    long long off = 0;
    for (int k = d.ndim - 1; k > 0; --k) {
        long long r;
        i = divMod(i, d.shape[k], &r);
        off += r * d.strides[k];
    }
    return d.ndim > 0 ? off + i * d.strides[0] : off;
}

// How a kernel gets its rows: PLAIN (the host collapsed the dims to at most one) the row stride alone,
// else the Dims. A short kernel's latency grows with the parameter block it reads (four Dims are 544
// bytes, four strides 32).
template <bool PLAIN>
using RowsOf = std::conditional_t<PLAIN, long long, Dims>;
__device__ __forceinline__ long long rowOffset(long long stride, long long row) { return row * stride; }
__device__ __forceinline__ long long rowOffset(const Dims &d, long long row) { return offsetOf(d, row); }
inline long long rowStride(const Dims &d) { return d.ndim == 0 ? 0 : d.strides[0]; }
// The host's argument for a RowsOf<PLAIN> parameter: converts to the row stride or to the Dims, whichever
// the launched kernel takes.
struct RowsArg {
    const Dims &d;
    operator long long() const { return rowStride(d); }
    operator Dims() const { return d; }
};

// Reads element `off` of an int32 or int64 index tensor.
__device__ __forceinline__ long long readIndex(const void *p, bool i64, long long off) {
    return i64 ? static_cast<const long long *>(p)[off] : static_cast<const int *>(p)[off];
}

// Records the first data error of the device (later ones are dropped until the host takes it).
__device__ __forceinline__ void reportError(DeviceError *e, int kind, int op, int arg, long long a, long long b,
                                            long long c = 0, long long d = 0) {
    if (atomicCAS(e->claim, 0, 1) == 0) {  // claimed: fill in, then publish the kind
        volatile DeviceError *v = e;
        v->op = op;
        v->arg = arg;
        v->a = a;
        v->b = b;
        v->c = c;
        v->d = d;
        __threadfence_system();
        v->kind = kind;
    }
}

// ---- bulk copies into shared memory (the TMA unit, sm_90), an mbarrier counting the bytes in ----
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// An mbarrier of N arrivals a phase, and the fence that makes a thread's initializations visible to the others
// (and to the copy units) once a barrier follows; mbarInit: one of one arrival a phase (the thread that announces
// the phase's bytes) with its fence.
template <int N>
__device__ __forceinline__ void mbarInitCount(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "n"(N) : "memory");
#endif
}
__device__ __forceinline__ void mbarInitFence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void mbarInit(uint32_t bar) {
    mbarInitCount<1>(bar);
    mbarInitFence();
}

// An arrival on the barrier's phase; the arrival of this thread's cp.async issued so far, once they complete
// (noinc: the barrier's count includes it).
__device__ __forceinline__ void mbarArrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}
__device__ __forceinline__ void cpAsyncArrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
#endif
}

// The arrival of the barrier's phase, announcing that `bytes` will come in by bulk copies.
__device__ __forceinline__ void mbarExpect(uint32_t bar, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

// Copies `bytes` (a multiple of 16; both ends 16-byte aligned) from global src to shared dst, counted by bar.
__device__ __forceinline__ void bulkLoad(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
#endif
}

// Waits for the barrier's phase of the given parity to complete (its bytes are then visible).
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n\t.reg .pred done;\n"
        "WAIT_%=:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
#endif
}

// Orders this thread's ordinary writes to shared memory before later bulk copies into the same bytes.
__device__ __forceinline__ void fenceToBulk() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Whether the GPUs here launch clusters (compute capability 9.0 or newer); asked once.
inline bool clustersAvailable() {
    static const bool ok = [] {
        int dev = 0, major = 0;
        if (cudaGetDevice(&dev) != cudaSuccess) return false;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return false;
        return major >= 9;
    }();
    return ok;
}

// The current device's SM count (132 if it cannot be read); asked once.
inline int smCount() {
    static const int n = [] {
        int dev = 0, v = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || v <= 0) {
            return 132;
        }
        return v;
    }();
    return n;
}

// Launches kern over `grid` blocks of `block` threads with `smem` bytes of dynamic shared memory on `stream`,
// in clusters of C blocks along x (C 0: no clusters), and as a programmatic dependent of the kernel
// ahead of it in the stream where `dependent` (see launchOp). Returns the launch's status.
template <typename... P, typename... A>
inline cudaError_t launchEx(void (*kern)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, int C,
                            bool dependent, A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr[2];
    unsigned n = 0;
    if (C > 0) {
        attr[n].id = cudaLaunchAttributeClusterDimension;
        attr[n].val.clusterDim.x = static_cast<unsigned>(C);
        attr[n].val.clusterDim.y = 1;
        attr[n].val.clusterDim.z = 1;
        ++n;
    }
    if (dependent) {
        attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[n].val.programmaticStreamSerializationAllowed = 1;
        ++n;
    }
    cfg.attrs = attr;
    cfg.numAttrs = n;
    return cudaLaunchKernelEx(&cfg, kern, args...);
}

// Programmatic dependent launch (compute capability 9.0+; no-ops before): a kernel launched as a dependent
// (launchOp, or launchEx with `dependent`) may be scheduled before the kernel ahead of it in the stream has finished, once every
// block of that kernel has called dependentsMayLaunch (or exited); it must call waitForPrerequisites
// before it reads what that kernel wrote (it returns when that kernel has finished and its writes are seen).
__device__ __forceinline__ void dependentsMayLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void waitForPrerequisites() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// barrier.cluster in halves (compute capability 9.0+; no-ops before): arrive (relaxed, or release: this block's
// earlier writes, those into other blocks' shared memory included, become visible) and wait (acquire). A block may
// write another block's shared memory only once that block is known to have started: every kernel that does
// arrives (relaxed) when it starts and waits before its first such write (compute-sanitizer's racecheck reports the
// write otherwise: "a block that might not have entered yet").
__device__ __forceinline__ void clusterArriveRelaxed() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void clusterArrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void clusterWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}

// The first step of every kernel that launchOp launches, before it touches global memory: lets a kernel
// launched as its programmatic dependent be placed (its blocks then wait in turn), then waits for the
// kernel ahead of it in the stream to finish, its writes seen.
__device__ __forceinline__ void opEntry() {
    dependentsMayLaunch();
    waitForPrerequisites();
}

// Whether kernels are launched as programmatic dependents (launchOp, and the attention kernels launchEx
// launches): on compute capability 9.0+, unless INFINI_PDL=0 (read once).
inline bool opsDependent() {
    static const bool on = [] {
        const char *e = std::getenv("INFINI_PDL");
        return clustersAvailable() && !(e != nullptr && e[0] == '0' && e[1] == '\0');
    }();
    return on;
}

// The memory-bound ops' launches (norms, element-wise, softmax, rope, caching, embedding, topk_softmax, the
// gemv dot kernel; the decode attention kernels, the clustered softmax kernels and random_sample's through
// launchEx with opsDependent): as programmatic dependents of the kernel before them, whose end their start
// then overlaps; their kernels begin with opEntry. A model's back-to-back small ops gain the gap between
// kernels (a large part of a small op's time), also after a kernel that does not trigger early itself.
// One call between events gains nothing: the start event stands between.
// A kernel whose early trigger slows the call after it (its successor's blocks placed early take its
// room) begins with waitForPrerequisites alone: a dependent that waits but lets its dependents launch only
// when it ends, gaining the launch gap before it and losing nothing after: the clustered softmax kernel and the
// gemv dot kernel (each measured slower than a plain launch when triggering early, faster waiting only).
// Waiting only as well, not measured triggering: random_sample's kernel and the bulk and hold softmax
// kernels (each faster than a plain launch).
template <typename... P, typename... A>
inline cudaError_t launchOp(void (*kern)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, A... args) {
    return launchEx(kern, grid, block, smem, stream, 0, opsDependent(), args...);
}

// Lets one kernel take more dynamic shared memory than the default 48 KiB. CUDA keeps that attribute per
// device, so a launch site keeps one SmemAllowance per kernel (a function-local static) and asks it
// before each launch: the attribute is set the first time on each device, after that it costs a
// cudaGetDevice and a bit test. False when the device refuses (its error cleared, so that the next
// launch's check does not report it).
class SmemAllowance {
   public:
    template <typename K>
    bool ensure(K *kern, int bytes) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
            cudaGetLastError();
            return false;
        }
        const unsigned long long bit = 1ULL << dev;
        if (done_.load(std::memory_order_acquire) & bit) return true;
        if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        done_.fetch_or(bit, std::memory_order_acq_rel);
        return true;
    }

   private:
    std::atomic<unsigned long long> done_{0};
};

// The L2 cache's size in bytes on device `dev` (0 if it cannot be read).
inline long long l2Bytes(int dev) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, dev) != cudaSuccess) return 0;
    return v;
}

inline unsigned blocksFor(long long n, int threads, long long cap = 1 << 20) {
    long long b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    return static_cast<unsigned>(b < cap ? b : cap);
}

}  // namespace infini::nvidia::ops
