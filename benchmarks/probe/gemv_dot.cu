// gemv_dot.cu: variants of gemv.cu's dot-product kernel (k-contiguous B, linear's weight) for 2-4 rows of A, where
// the landed kernel loses to cuBLASLt in 16-bit (0.90-1.11x, 44th session): R output columns a warp (each piece of
// A then serves R weight pieces), and A staged once a block in shared memory (SA). Built by nvcc at run time with
// gemv.cu included whole, into a torch-free library that gemv_dot.py calls through ctypes (no package build).
#include "../../backends/nvidia/ops/gemv.cu"

namespace infini::nvidia::ops {
infiniStatus_t launched(const char *op) {
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? INFINI_STATUS_SUCCESS : fail(INFINI_STATUS_INTERNAL_ERROR, "%s: %s", op, cudaGetErrorString(err));
}
namespace {

template <typename T>
__device__ __forceinline__ uint4 loadA(const T *p, bool shared_a) {
    return shared_a ? *reinterpret_cast<const uint4 *>(p) : __ldg(reinterpret_cast<const uint4 *>(p));
}

// out[m, n] = sum_k a[m, k] w[n, k] for R consecutive n a warp group (wpr warps share them, splitting K).
template <typename T, int M, int R, bool SA>
__global__ void __launch_bounds__(kThreads) dotR(GemvArgs p, int wpr) {
    constexpr int V = kVec16<T>;
    constexpr int U = R >= 4 ? 1 : 4 / R;  // weight pieces in flight a lane: U * R = 4
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ float red[kWarps][M * R];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long n0 = (static_cast<long long>(blockIdx.x) * (kWarps / wpr) + warp / wpr) * R;
    const int part = warp % wpr;
    const long long nq = p.K / V;
    const T *a = static_cast<const T *>(p.a);
    long long lda = p.lda;
    if constexpr (SA) {
        T *sa = reinterpret_cast<T *>(smem_raw);
        for (long long i = threadIdx.x; i < M * nq; i += kThreads) {
            const long long m = i / nq, q = i % nq;
            *reinterpret_cast<uint4 *>(sa + m * p.K + q * V) = __ldg(reinterpret_cast<const uint4 *>(a + m * p.lda + q * V));
        }
        __syncthreads();
        a = sa;
        lda = p.K;
    }
    float acc[M][R];
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
    if (n0 < p.N) {
        const T *w[R];
#pragma unroll
        for (int r = 0; r < R; ++r) w[r] = static_cast<const T *>(p.b) + min(n0 + r, p.N - 1) * p.ldb;
        const long long step = 32LL * wpr;
        long long q = part * 32 + lane;
        auto use = [&](const uint4 (&raw)[R], long long qq) {
            float wf[R][V];
#pragma unroll
            for (int r = 0; r < R; ++r) piece<T>(raw[r], wf[r]);
#pragma unroll
            for (int m = 0; m < M; ++m) {
                float af[V];
                piece<T>(loadA(a + m * lda + qq * V, SA), af);
#pragma unroll
                for (int r = 0; r < R; ++r)
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[m][r] = fmaf(af[e], wf[r][e], acc[m][r]);
            }
        };
        for (; q + (U - 1) * step < nq; q += U * step) {
            uint4 raw[U][R];
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int r = 0; r < R; ++r) raw[u][r] = loadOnce(w[r] + (q + u * step) * V);
#pragma unroll
            for (int u = 0; u < U; ++u) use(raw[u], q + u * step);
        }
        for (; q < nq; q += step) {
            uint4 raw[R];
#pragma unroll
            for (int r = 0; r < R; ++r) raw[r] = loadOnce(w[r] + q * V);
            use(raw, q);
        }
    }
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < R; ++r) acc[m][r] = warpSum(acc[m][r]);
    if (wpr > 1) {
        if (lane == 0) {
#pragma unroll
            for (int m = 0; m < M; ++m)
#pragma unroll
                for (int r = 0; r < R; ++r) red[warp][m * R + r] = acc[m][r];
        }
        __syncthreads();
        if (lane == 0 && part == 0) {
#pragma unroll
            for (int m = 0; m < M; ++m)
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    float s = red[warp][m * R + r];
                    for (int j = 1; j < wpr; ++j) s += red[warp + j][m * R + r];
                    acc[m][r] = s;
                }
        }
    }
    if (lane == 0 && part == 0) {
#pragma unroll
        for (int m = 0; m < M; ++m)
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (n0 + r < p.N) finish(static_cast<T *>(p.c) + m * p.ldc + n0 + r, acc[m][r], p.alpha, p.beta);
    }
}

template <typename T, int M, int R, bool SA>
int launchDotR(const GemvArgs &p, int wpr_in) {
    const long long groups = (p.N + R - 1) / R;
    int wpr = wpr_in;
    if (wpr <= 0) {  // as gemv.cu: the fewest warps a group giving every SM 4 blocks of 8 warps
        wpr = 1;
        while (wpr < kWarps && groups * wpr < 4LL * kWarps * smCount()) wpr *= 2;
    }
    const long long per_block = kWarps / wpr;
    const size_t smem = SA ? static_cast<size_t>(M) * p.K * sizeof(T) : 0;
    auto kern = dotR<T, M, R, SA>;
    if (smem > 48 * 1024) cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    kern<<<static_cast<unsigned>((groups + per_block - 1) / per_block), kThreads, smem>>>(p, wpr);
    return static_cast<int>(cudaGetLastError());
}

template <int M>
int dotM(int r, int sa, const GemvArgs &p, int wpr) {
    using T = __nv_bfloat16;
    if (r == 1) return sa ? launchDotR<T, M, 1, true>(p, wpr) : launchDotR<T, M, 1, false>(p, wpr);
    if (r == 2) return sa ? launchDotR<T, M, 2, true>(p, wpr) : launchDotR<T, M, 2, false>(p, wpr);
    if (r == 4) return sa ? launchDotR<T, M, 4, true>(p, wpr) : launchDotR<T, M, 4, false>(p, wpr);
    return -1;
}
}  // namespace
}  // namespace infini::nvidia::ops

using namespace infini::nvidia::ops;

// m x K (bf16) times w [N, K]: r 0 is gemv.cu's own dot kernel; else R columns a warp, A in shared memory where sa,
// wpr warps a column group (0: gemv.cu's rule).
extern "C" int gd_launch(int m, int r, int sa, int wpr, long long N, long long K, const void *a, const void *w, void *c) {
    GemvArgs p{m, N, K, 1, a, K, 0, w, K, 0, false, c, N, 0, 1.0f, 0.0f};
    if (r == 0) {
        infiniStatus_t s = launchGemv(INFINI_DTYPE_BF16, p, nullptr);
        return s == INFINI_STATUS_SUCCESS ? 0 : 1000 + static_cast<int>(s);
    }
    switch (m) {
        case 1: return dotM<1>(r, sa, p, wpr);
        case 2: return dotM<2>(r, sa, p, wpr);
        case 4: return dotM<4>(r, sa, p, wpr);
        default: return -1;
    }
}
