// families/elems.cuh: what the row-wise families (rows, norm, nll_loss, sdpa, window) share: float elements of a
// dtype known at run time (one kernel serves F16, BF16, F32 and F64 operands, the dtype a warp-uniform switch),
// typed conversions with double, pieces of up to 16 bytes, block reductions in float or double, launch helpers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <type_traits>

#include "../../common/dtype.h"
#include "../ops/common.cuh"
#include "family.h"

namespace infini::nvidia::families {
// (an inline namespace: these helpers' symbols stay apart from same-named ones of other family files)
inline namespace rowwise {

using ops::blocksFor;
using ops::fromF;
using ops::launched;
using ops::reportError;
using ops::toF;
using ops::Vec;

inline bool isFloatDtype(infiniDtype_t t) {
    return t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16 || t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F64;
}
inline bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// T's value as A (float or double), and back (rounded to nearest).
template <typename A, typename T>
__device__ __forceinline__ A cvt(T x) {
    if constexpr (std::is_same_v<T, double>)
        return static_cast<A>(x);
    else if constexpr (std::is_same_v<A, double>)
        return static_cast<double>(toF(x));
    else
        return toF(x);
}
template <typename T, typename A>
__device__ __forceinline__ T cvtTo(A x) {
    if constexpr (std::is_same_v<T, double>)
        return static_cast<double>(x);
    else if constexpr (std::is_same_v<T, float>)
        return static_cast<float>(x);
    else
        return fromF<T>(static_cast<float>(x));
}

// Element k of a float operand of dtype t (F16, BF16, F32 or F64) as A, and a store of v into it.
template <typename A>
__device__ __forceinline__ A ldAs(const void *p, infiniDtype_t t, long long k) {
    switch (t) {
        case INFINI_DTYPE_F32: return static_cast<A>(static_cast<const float *>(p)[k]);
        case INFINI_DTYPE_F16: return static_cast<A>(__half2float(static_cast<const __half *>(p)[k]));
        case INFINI_DTYPE_BF16: return static_cast<A>(__bfloat162float(static_cast<const __nv_bfloat16 *>(p)[k]));
        default: return static_cast<A>(static_cast<const double *>(p)[k]);
    }
}
template <typename A>
__device__ __forceinline__ void stAs(void *p, infiniDtype_t t, long long k, A v) {
    switch (t) {
        case INFINI_DTYPE_F32: static_cast<float *>(p)[k] = static_cast<float>(v); break;
        case INFINI_DTYPE_F16: static_cast<__half *>(p)[k] = __float2half_rn(static_cast<float>(v)); break;
        case INFINI_DTYPE_BF16: static_cast<__nv_bfloat16 *>(p)[k] = __float2bfloat16_rn(static_cast<float>(v)); break;
        default: static_cast<double *>(p)[k] = static_cast<double>(v); break;
    }
}

// N elements of T at p as floats (p aligned to min(16, N * sizeof(T)) bytes), in pieces of at most 16 bytes.
template <typename T, int N>
__device__ __forceinline__ void loadN(const T *p, float (&out)[N]) {
    constexpr int kPer = N * sizeof(T) >= 16 ? static_cast<int>(16 / sizeof(T)) : N;
#pragma unroll
    for (int c = 0; c < N / kPer; ++c) {
        const Vec<T, kPer> v = *reinterpret_cast<const Vec<T, kPer> *>(p + c * kPer);
#pragma unroll
        for (int e = 0; e < kPer; ++e) out[c * kPer + e] = toF(v.v[e]);
    }
}
template <typename T, int N>
__device__ __forceinline__ void storeN(T *p, const float (&in)[N]) {
    constexpr int kPer = N * sizeof(T) >= 16 ? static_cast<int>(16 / sizeof(T)) : N;
#pragma unroll
    for (int c = 0; c < N / kPer; ++c) {
        Vec<T, kPer> v;
#pragma unroll
        for (int e = 0; e < kPer; ++e) v.v[e] = fromF<T>(in[c * kPer + e]);
        *reinterpret_cast<Vec<T, kPer> *>(p + c * kPer) = v;
    }
}

// Sum and max over the block (every thread gets the result); smem: 32 values of A; blockDim.x a multiple of 32,
// threadIdx.y == 0.
template <typename A>
__device__ __forceinline__ A warpSumA(A v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
template <typename A>
__device__ __forceinline__ A warpMaxA(A v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
template <typename A>
__device__ __forceinline__ A blockSumA(A v, A *smem) {
    v = warpSumA(v);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    __syncthreads();  // (smem may still be read by a previous reduction)
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = lane < warps ? smem[lane] : A(0);
    return warpSumA(v);
}
template <typename A>
__device__ __forceinline__ A blockMaxA(A v, A *smem) {
    v = warpMaxA(v);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    __syncthreads();
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    v = lane < warps ? smem[lane] : A(-INFINITY);
    return warpMaxA(v);
}

// exp, log in A.
__device__ __forceinline__ float expA(float x) { return expf(x); }
__device__ __forceinline__ double expA(double x) { return exp(x); }
__device__ __forceinline__ float logA(float x) { return logf(x); }
__device__ __forceinline__ double logA(double x) { return log(x); }

// Threads for a block walking a row of nv vectors, P a thread: a multiple of 32 in [32, cap].
inline int threadsFor(long long nv, int per, int cap) {
    long long t = (nv + per - 1) / per;
    t = (t + 31) / 32 * 32;
    return static_cast<int>(t < 32 ? 32 : (t > cap ? cap : t));
}

// The most threads (a multiple of 32, at most 1024) a block of kernel K may have, its registers decide; asked once.
template <auto K>
inline int threadCap() {
    static const int cap = [] {
        cudaFuncAttributes a{};
        if (cudaFuncGetAttributes(&a, K) != cudaSuccess) {
            cudaGetLastError();
            return 256;
        }
        const int t = a.maxThreadsPerBlock / 32 * 32;
        return t < 32 ? 32 : (t > 1024 ? 1024 : t);
    }();
    return cap;
}

// A grid of at most 2^31 - 1 blocks along x (kernels loop over what is past it).
inline unsigned gridX(long long blocks) {
    return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 0x7fffffffLL ? 0x7fffffffLL : blocks));
}

// Device memory for the call's temporaries, taken and given back on the queue's stream (cudaMallocAsync): freed
// when the scope ends, after the kernels queued before it.
class StreamBuffer {
   public:
    explicit StreamBuffer(cudaStream_t s) : stream_(s) {}
    ~StreamBuffer() {
        if (p_ != nullptr) cudaFreeAsync(p_, stream_);
    }
    StreamBuffer(const StreamBuffer &) = delete;
    StreamBuffer &operator=(const StreamBuffer &) = delete;
    infiniStatus_t alloc(size_t bytes) {
        retainPoolMemory();
        INFINI_CUDA_RETURN(cudaMallocAsync(&p_, bytes < 16 ? 16 : bytes, stream_));
        return INFINI_STATUS_SUCCESS;
    }
    template <typename T>
    T *as() const {
        return static_cast<T *>(p_);
    }

   private:
    cudaStream_t stream_;
    void *p_ = nullptr;
};

}  // namespace rowwise
}  // namespace infini::nvidia::families
