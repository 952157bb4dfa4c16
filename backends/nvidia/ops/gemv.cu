// gemv.cu: gemm with one to four rows of A (decode: a few tokens' activations times a weight matrix).
// Such a product reads the weights once and does little arithmetic on them, so it is bound by memory
// bandwidth, of which cuBLASLt's kernels for it reach about two thirds. These kernels stream the weights in
// 16-byte loads that skip L1 and accumulate in float32 in a fixed order (no atomics: the same inputs give the
// same bits).
// - B column-major (linear's weight [N, K] read as its transpose; k contiguous): a dot product per
//   output column, 1-8 warps each (fewer columns: more warps a column), then a warp shuffle and, across
//   the warps, shared memory.
// - B row-major ([K, N], n contiguous): a block takes 8 pieces of columns (64 bf16 / 32 float32
//   columns) and a slice of K, 32 rows at a time; the slices of a column block form a thread-block
//   cluster and the first block adds the others' partial sums out of their shared memory.
#include <cooperative_groups.h>

#include "common.cuh"
#include "ops.h"

namespace infini::nvidia::ops {

namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;  // 16-byte weight loads a thread has in flight
// row-major B: threads across a row (8 x 16 bytes: the fastest measured of 8, 16 and 32 with 256 or 512 threads)
// and threads a block
constexpr int kRowsAcross = 8;
constexpr int kRowsThreads = 256;

// 16 bytes read once: not kept in L1 (the weights), into registers as stored.
__device__ __forceinline__ uint4 loadOnce(const void *p) {
    uint4 r;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
    return r;
}

template <typename T>
__device__ __forceinline__ void piece(uint4 raw, float (&f)[kVec16<T>]) {
    unpackF(*reinterpret_cast<const Vec<T, kVec16<T>> *>(&raw), f);
}

// out = alpha * acc + beta * out (beta 0: out is not read, NaN there included)
template <typename T>
__device__ __forceinline__ void finish(T *out, float acc, float alpha, float beta) {
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * toF(*out);
    *out = fromF<T>(v);
}

// B column-major: out[m, n] = sum_k a[m, k] b[n * ldb + k]. wpr warps (1, 2, 4 or 8) share column n.
// Launched as a dependent that waits but does not trigger its own dependents early (launchOp's note: triggering
// early measured slower than a plain launch, waiting only faster).
template <typename T, int M>
__global__ void __launch_bounds__(kThreads) gemvDotKernel(GemvArgs p, int wpr) {
    waitForPrerequisites();
    constexpr int V = kVec16<T>;
    __shared__ float red[kWarps][M];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long n = static_cast<long long>(blockIdx.x) * (kWarps / wpr) + warp / wpr;
    const int part = warp % wpr;
    const long long z = blockIdx.z;
    const T *a = static_cast<const T *>(p.a) + z * p.bsa;
    float acc[M];
#pragma unroll
    for (int m = 0; m < M; ++m) acc[m] = 0.0f;
    if (n < p.N) {
        const T *w = static_cast<const T *>(p.b) + z * p.bsb + n * p.ldb;
        const long long nq = p.K / V, step = 32LL * wpr;
        long long q = part * 32 + lane;
        for (; q + (kUnroll - 1) * step < nq; q += kUnroll * step) {
            uint4 raw[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) raw[u] = loadOnce(w + (q + u * step) * V);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                float wf[V];
                piece<T>(raw[u], wf);
#pragma unroll
                for (int m = 0; m < M; ++m) {
                    float af[V];
                    loadF<T, V>(a + m * p.lda + (q + u * step) * V, af);
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[m] = fmaf(af[e], wf[e], acc[m]);
                }
            }
        }
        for (; q < nq; q += step) {
            float wf[V];
            piece<T>(loadOnce(w + q * V), wf);
#pragma unroll
            for (int m = 0; m < M; ++m) {
                float af[V];
                loadF<T, V>(a + m * p.lda + q * V, af);
#pragma unroll
                for (int e = 0; e < V; ++e) acc[m] = fmaf(af[e], wf[e], acc[m]);
            }
        }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) acc[m] = warpSum(acc[m]);
    if (wpr > 1) {
        if (lane == 0) {
#pragma unroll
            for (int m = 0; m < M; ++m) red[warp][m] = acc[m];
        }
        __syncthreads();
        if (lane == 0 && part == 0) {
#pragma unroll
            for (int m = 0; m < M; ++m) {
                float s = red[warp][m];
                for (int j = 1; j < wpr; ++j) s += red[warp + j][m];
                acc[m] = s;
            }
        }
    }
    if (lane == 0 && part == 0 && n < p.N) {
        T *c = static_cast<T *>(p.c) + z * p.bsc + n;
#pragma unroll
        for (int m = 0; m < M; ++m) finish(c + m * p.ldc, acc[m], p.alpha, p.beta);
    }
}

// B row-major: out[m, n] = sum_k a[m, k] b[k * ldb + n]. A block of NT threads takes CT * 16 bytes of
// columns (CT threads across them) and NT / CT rows at a time of its slice of K: blockIdx.x is the slice
// (the cluster's rank), blockIdx.y the column block.
template <typename T, int M, int CT, int NT>
__global__ void __launch_bounds__(NT) gemvRowsKernel(GemvArgs p, long long k_slice) {
    constexpr int V = kVec16<T>;
    constexpr int C = CT * V;    // columns a block
    constexpr int RT = NT / CT;  // rows at a time
    __shared__ float sums[RT][C];
    __shared__ float partial[M][C];
    const int tc = threadIdx.x % CT, tr = threadIdx.x / CT;
    const long long z = blockIdx.z;
    const long long col = static_cast<long long>(blockIdx.y) * C + tc * V;
    const long long k0 = static_cast<long long>(blockIdx.x) * k_slice;
    const long long k1 = min(p.K, k0 + k_slice);
    const T *a = static_cast<const T *>(p.a) + z * p.bsa;
    float acc[M][V];
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[m][e] = 0.0f;
    if (col < p.N) {
        const T *b = static_cast<const T *>(p.b) + z * p.bsb + col;
        long long k = k0 + tr;
        for (; k + (kUnroll - 1) * RT < k1; k += kUnroll * RT) {
            uint4 raw[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) raw[u] = loadOnce(b + (k + u * RT) * p.ldb);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                float bf[V];
                piece<T>(raw[u], bf);
#pragma unroll
                for (int m = 0; m < M; ++m) {
                    const float am = toF(a[m * p.lda + k + u * RT]);
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[m][e] = fmaf(am, bf[e], acc[m][e]);
                }
            }
        }
        for (; k < k1; k += RT) {
            float bf[V];
            piece<T>(loadOnce(b + k * p.ldb), bf);
#pragma unroll
            for (int m = 0; m < M; ++m) {
                const float am = toF(a[m * p.lda + k]);
#pragma unroll
                for (int e = 0; e < V; ++e) acc[m][e] = fmaf(am, bf[e], acc[m][e]);
            }
        }
    }
    // the block's rows in order, a row of A at a time: one thread a column
#pragma unroll
    for (int m = 0; m < M; ++m) {
        if (m > 0) __syncthreads();
#pragma unroll
        for (int e = 0; e < V; ++e) sums[tr][tc * V + e] = acc[m][e];
        __syncthreads();
        for (int j = threadIdx.x; j < C; j += NT) {
            float s = 0.0f;
#pragma unroll 8
            for (int r = 0; r < RT; ++r) s += sums[r][j];
            partial[m][j] = s;
        }
    }
    const unsigned slices = gridDim.x;
    if (slices > 1) {
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync();  // every slice's partial sums are in its shared memory
        if (cluster.block_rank() == 0) {
            for (int i = threadIdx.x; i < M * C; i += NT) {
                float s = (&partial[0][0])[i];
                for (unsigned r = 1; r < slices; ++r) s += cluster.map_shared_rank(&partial[0][0], r)[i];
                (&partial[0][0])[i] = s;
            }
        }
        cluster.sync();  // the other slices keep their shared memory until the first has read it
        if (cluster.block_rank() != 0) return;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < M * C; i += NT) {
        const int m = i / C, j = i % C;
        const long long n = static_cast<long long>(blockIdx.y) * C + j;
        if (n < p.N) finish(static_cast<T *>(p.c) + z * p.bsc + m * p.ldc + n, partial[m][j], p.alpha, p.beta);
    }
}

template <typename T, int M, int CT, int NT>
infiniStatus_t launchRows(const GemvArgs &p, cudaStream_t stream) {
    constexpr int C = CT * kVec16<T>;
    constexpr int RT = NT / CT;
    const long long col_blocks = (p.N + C - 1) / C;
    // slices of K (a cluster of up to 8, the portable most): the fewest that give every SM 3 blocks, each
    // slice at least kUnroll passes of the block's rows
    int slices = 1;
    if (clustersAvailable()) {
        while (slices < 8 && col_blocks * p.batch * slices < 3LL * smCount() && p.K >= 2LL * slices * RT * kUnroll)
            slices *= 2;
    }
    const long long k_slice = (p.K + slices - 1) / slices;
    dim3 grid(static_cast<unsigned>(slices), static_cast<unsigned>(col_blocks), static_cast<unsigned>(p.batch));
    launchEx(gemvRowsKernel<T, M, CT, NT>, grid, NT, 0, stream, slices > 1 ? slices : 0, false, p,
             k_slice);  // (plain: not a dependent)
    return launched("gemm");
}

template <typename T, int M>
infiniStatus_t launchM(const GemvArgs &p, cudaStream_t stream) {
    if (!p.b_rows) {
        // warps a column: the fewest that give every SM 4 blocks of 8 warps
        int wpr = 1;
        while (wpr < kWarps && p.N * p.batch * wpr < 4LL * kWarps * smCount()) wpr *= 2;
        const long long per_block = kWarps / wpr;
        dim3 grid(static_cast<unsigned>((p.N + per_block - 1) / per_block), 1, static_cast<unsigned>(p.batch));
        launchOp(gemvDotKernel<T, M>, grid, kThreads, 0, stream, p, wpr);
        return launched("gemm");
    }
    return launchRows<T, M, kRowsAcross, kRowsThreads>(p, stream);
}

template <typename T>
infiniStatus_t launchT(const GemvArgs &p, cudaStream_t stream) {
    switch (p.M) {
        case 1: return launchM<T, 1>(p, stream);
        case 2: return launchM<T, 2>(p, stream);
        case 3: return launchM<T, 3>(p, stream);
        case 4: return launchM<T, 4>(p, stream);
        default: return fail(INFINI_STATUS_BAD_PARAM, "gemm: the few-rows kernel takes 1 to 4 rows, not %lld", p.M);
    }
}

}  // namespace

bool gemvFits(const GemvArgs &p, int elem) {
    const long long v = 16 / elem;
    if (p.M < 1 || p.M > kGemvMaxRows || p.N < 1 || p.K < 1 || p.batch < 1 || p.batch > 65535) return false;
    if (p.ldb % v != 0 || (p.batch > 1 && p.bsb % v != 0)) return false;
    // rows of B (and for the dot product, of A) in whole 16-byte pieces; A's elements one by one otherwise
    if (p.b_rows) return p.N % v == 0 && (p.N + kRowsAcross * v - 1) / (kRowsAcross * v) <= 65535;
    return p.K % v == 0 && (p.M == 1 || p.lda % v == 0) && (p.batch == 1 || p.bsa % v == 0);
}

infiniStatus_t launchGemv(infiniDtype_t dtype, const GemvArgs &p, cudaStream_t stream) {
    return INFINI_NV_DISPATCH_FLOAT(dtype, "gemm", return launchT<T>(p, stream));
}

}  // namespace infini::nvidia::ops
