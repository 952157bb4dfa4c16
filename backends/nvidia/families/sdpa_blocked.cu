// families/sdpa_blocked.cu: the sdpa family's blocked kernels, on CUDA cores in float: the forward for what the
// tiled tensor-core kernel does not take (masks, no causal, float32, head_dim other than 64 / 128, layouts it
// cannot address), and the backward for what the tensor-core backward (sdpa_mma.cu) does not take.
// Layout: a block of 128 threads, TPR threads a row (of queries, or of keys for dk / dv), each holding DT of the
// row's head_dim (D = DT * TPR >= head_dim, zero-padded): thread r of a row holds elements 4 TPR m + 4 r + u
// (m < DT / 4, u < 4), so that the TPR threads of a row read a row of a shared-memory tile as one contiguous
// piece (and every row of the warp the same piece: a broadcast). Dot products are reduced over the row's threads
// by shuffles. The other operand comes through shared memory as float, a tile of 32 rows at a time.
// - sdpaFwd: grid (query tiles, hq, b); the keys a tile at a time, the online softmax per tile (a row's running
//   max m and sum l; a masked score is -inf and weighs 0; a row that sees no key is 0, its lse -inf).
// - sdpaDelta: delta = rowsum(dout * out) (F32, in a temporary).
// - sdpaDq: grid (query tiles, hq, b): p = exp(s - lse), ds = p (dout . v - delta), dq = scale sum ds k.
// - sdpaDkv: grid (key tiles, hk, b): for every query head of the key head's group and every query tile:
//   dv = sum p dout, dk = scale sum ds q. Each gradient is written once by one thread (no atomics: deterministic).
#include <algorithm>

#include "sdpa.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kThreads = 128;  // a block
constexpr int kTile = 32;      // rows of a shared-memory tile

template <int TPR>
__device__ __forceinline__ float groupSum(float v) {
#pragma unroll
    for (int o = 1; o < TPR; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// This thread's DT elements of a row at base + off (dtype t), zeros past d.
template <int DT, int TPR>
__device__ __forceinline__ void loadSlice(float (&dst)[DT], const void *base, infiniDtype_t t, long long off,
                                          long long d, int r) {
#pragma unroll
    for (int m = 0; m < DT / 4; ++m) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long e = 4LL * TPR * m + 4 * r + u;
            dst[4 * m + u] = e < d ? ldAs<float>(base, t, off + e) : 0.0f;
        }
    }
}
template <int DT, int TPR>
__device__ __forceinline__ void storeSlice(const float (&src)[DT], float f, void *base, infiniDtype_t t, long long off,
                                           long long d, int r) {
#pragma unroll
    for (int m = 0; m < DT / 4; ++m) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long e = 4LL * TPR * m + 4 * r + u;
            if (e < d) stAs<float>(base, t, off + e, src[4 * m + u] * f);
        }
    }
}

// The dot product of this thread's elements with its part of the shared-memory row (float4 pieces), not reduced.
template <int DT, int TPR>
__device__ __forceinline__ float partDot(const float (&a)[DT], const float *row, int r) {
    const float4 *p = reinterpret_cast<const float4 *>(row);
    float s = 0.0f;
#pragma unroll
    for (int m = 0; m < DT / 4; ++m) {
        const float4 v = p[m * TPR + r];
        s = fmaf(a[4 * m], v.x, s);
        s = fmaf(a[4 * m + 1], v.y, s);
        s = fmaf(a[4 * m + 2], v.z, s);
        s = fmaf(a[4 * m + 3], v.w, s);
    }
    return s;
}
// acc += f * (this thread's part of the shared-memory row).
template <int DT, int TPR>
__device__ __forceinline__ void axpy(float (&acc)[DT], float f, const float *row, int r) {
    const float4 *p = reinterpret_cast<const float4 *>(row);
#pragma unroll
    for (int m = 0; m < DT / 4; ++m) {
        const float4 v = p[m * TPR + r];
        acc[4 * m] = fmaf(f, v.x, acc[4 * m]);
        acc[4 * m + 1] = fmaf(f, v.y, acc[4 * m + 1]);
        acc[4 * m + 2] = fmaf(f, v.z, acc[4 * m + 2]);
        acc[4 * m + 3] = fmaf(f, v.w, acc[4 * m + 3]);
    }
}

// Rows [row0, row0 + kTile) of a [rows, d] matrix at base + off (row stride rs, dtype t) into tile [kTile][D] as
// floats, zeros past the rows and past d.
template <int D>
__device__ __forceinline__ void loadTile(float *tile, const void *base, infiniDtype_t t, long long off, long long rs,
                                         long long row0, long long rows, long long d) {
    for (int idx = threadIdx.x; idx < kTile * D; idx += blockDim.x) {
        const int j = idx / D, e = idx % D;
        const long long row = row0 + j;
        tile[idx] = row < rows && e < d ? ldAs<float>(base, t, off + row * rs + e) : 0.0f;
    }
}

// The score's additive term for (query i, key j) of the mask plane at moff: bool (false: -inf) or additive.
__device__ __forceinline__ float maskTerm(const SdpaGeom &g, const void *mask, long long moff, long long i,
                                          long long j) {
    const long long k = moff + i * g.mask[2] + j * g.mask[3];
    if (g.mask_dtype == INFINI_DTYPE_BOOL) return static_cast<const unsigned char *>(mask)[k] != 0 ? 0.0f : -INFINITY;
    return ldAs<float>(mask, g.mask_dtype, k);
}

// The last key query row i attends (causal), or lk - 1.
__device__ __forceinline__ long long lastKey(const SdpaGeom &g, long long i) {
    return g.causal ? i + g.lk - g.lq : g.lk - 1;
}

// The scaled, masked score of (query i, key j) from its raw dot product; -inf where i does not attend j.
__device__ __forceinline__ float scoreOf(const SdpaGeom &g, const void *mask, long long moff, float dot, long long i,
                                         long long j) {
    if (j >= g.lk || j > lastKey(g, i)) return -INFINITY;
    float s = dot * g.scale;
    if (mask != nullptr) s += maskTerm(g, mask, moff, i, j);
    return s;
}

template <int DT, int TPR>
__global__ void __launch_bounds__(kThreads) sdpaFwd(SdpaGeom g, SdpaData x) {
    constexpr int D = DT * TPR, ROWS = kThreads / TPR;
    extern __shared__ float4 smem4[];
    float *ks = reinterpret_cast<float *>(smem4), *vs = ks + kTile * D;
    const int r = threadIdx.x % TPR;
    const long long bb = blockIdx.z, h = blockIdx.y, hk = h / g.group;
    const long long i0 = static_cast<long long>(blockIdx.x) * ROWS, i = i0 + threadIdx.x / TPR;
    const bool live = i < g.lq;
    float qv[DT], o[DT];
    loadSlice<DT, TPR>(qv, x.q, g.dtype, bb * g.q[0] + h * g.q[1] + (live ? i : 0) * g.q[2], live ? g.d : 0, r);
#pragma unroll
    for (int e = 0; e < DT; ++e) o[e] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    const long long kend = min(g.lk, lastKey(g, min(i0 + ROWS, g.lq) - 1) + 1);  // the block's keys
    const long long moff = bb * g.mask[0] + h * g.mask[1];
    const long long koff = bb * g.k[0] + hk * g.k[1], voff = bb * g.v[0] + hk * g.v[1];
    for (long long k0 = 0; k0 < kend; k0 += kTile) {
        __syncthreads();  // (the previous tile was read)
        loadTile<D>(ks, x.k, g.dtype, koff, g.k[2], k0, g.lk, g.d);
        loadTile<D>(vs, x.v, g.dtype, voff, g.v[2], k0, g.lk, g.d);
        __syncthreads();
        float s[kTile];
        float cmax = -INFINITY;
#pragma unroll
        for (int j = 0; j < kTile; ++j) {
            const float dot = groupSum<TPR>(partDot<DT, TPR>(qv, ks + j * D, r));  // (every thread: the shuffles)
            s[j] = live ? scoreOf(g, x.mask, moff, dot, i, k0 + j) : -INFINITY;
            cmax = fmaxf(cmax, s[j]);
        }
        const float mn = fmaxf(m, cmax);
        if (mn != -INFINITY) {  // (else no key seen yet: o and l stay 0)
            const float alpha = m == -INFINITY ? 0.0f : expf(m - mn);
            l *= alpha;
#pragma unroll
            for (int e = 0; e < DT; ++e) o[e] *= alpha;
#pragma unroll
            for (int j = 0; j < kTile; ++j) {
                const float p = s[j] == -INFINITY ? 0.0f : expf(s[j] - mn);
                l += p;
                axpy<DT, TPR>(o, p, vs + j * D, r);
            }
            m = mn;
        }
    }
    if (!live) return;
    storeSlice<DT, TPR>(o, l > 0.0f ? 1.0f / l : 0.0f, x.out, g.dtype, bb * g.o[0] + h * g.o[1] + i * g.o[2], g.d, r);
    if (x.lse != nullptr && r == 0)
        x.lse[bb * g.lse[0] + h * g.lse[1] + i * g.lse[2]] = l > 0.0f ? m + logf(l) : -INFINITY;
}

// delta[(bb hq + h) lq + i] = sum over the row of dout * out: a warp a row (grid-stride).
__global__ void __launch_bounds__(256) sdpaDelta(SdpaGeom g, SdpaData x, float *delta) {
    const long long rows = g.b * g.hq * g.lq, warps = static_cast<long long>(gridDim.x) * 8;
    const int lane = threadIdx.x % 32;
    for (long long w = static_cast<long long>(blockIdx.x) * 8 + threadIdx.x / 32; w < rows; w += warps) {
        const long long i = w % g.lq, h = (w / g.lq) % g.hq, bb = w / (g.lq * g.hq);
        const long long od = bb * g.dout[0] + h * g.dout[1] + i * g.dout[2], oo = bb * g.o[0] + h * g.o[1] + i * g.o[2];
        float s = 0.0f;
        for (long long e = lane; e < g.d; e += 32)
            s += ldAs<float>(x.dout, g.dtype, od + e) * ldAs<float>(x.o_in, g.dtype, oo + e);
        s = warpSumA(s);
        if (lane == 0) delta[w] = s;
    }
}

// The probability of a score given its row's lse (0 where masked or the row sees no key).
__device__ __forceinline__ float probOf(float s, float lse) {
    return s == -INFINITY || lse == -INFINITY ? 0.0f : expf(s - lse);
}

template <int DT, int TPR>
__global__ void __launch_bounds__(kThreads) sdpaDq(SdpaGeom g, SdpaData x, const float *delta) {
    constexpr int D = DT * TPR, ROWS = kThreads / TPR;
    extern __shared__ float4 smem4[];
    float *ks = reinterpret_cast<float *>(smem4), *vs = ks + kTile * D;
    const int r = threadIdx.x % TPR;
    const long long bb = blockIdx.z, h = blockIdx.y, hk = h / g.group;
    const long long i0 = static_cast<long long>(blockIdx.x) * ROWS, i = i0 + threadIdx.x / TPR;
    const bool live = i < g.lq;
    const long long ic = live ? i : 0;
    float qv[DT], dov[DT], dq[DT];
    loadSlice<DT, TPR>(qv, x.q, g.dtype, bb * g.q[0] + h * g.q[1] + ic * g.q[2], live ? g.d : 0, r);
    loadSlice<DT, TPR>(dov, x.dout, g.dtype, bb * g.dout[0] + h * g.dout[1] + ic * g.dout[2], live ? g.d : 0, r);
#pragma unroll
    for (int e = 0; e < DT; ++e) dq[e] = 0.0f;
    const float lse = live ? x.lse_in[bb * g.lse[0] + h * g.lse[1] + i * g.lse[2]] : -INFINITY;
    const float dl = live ? delta[(bb * g.hq + h) * g.lq + i] : 0.0f;
    const long long kend = min(g.lk, lastKey(g, min(i0 + ROWS, g.lq) - 1) + 1);
    const long long moff = bb * g.mask[0] + h * g.mask[1];
    const long long koff = bb * g.k[0] + hk * g.k[1], voff = bb * g.v[0] + hk * g.v[1];
    for (long long k0 = 0; k0 < kend; k0 += kTile) {
        __syncthreads();
        loadTile<D>(ks, x.k, g.dtype, koff, g.k[2], k0, g.lk, g.d);
        loadTile<D>(vs, x.v, g.dtype, voff, g.v[2], k0, g.lk, g.d);
        __syncthreads();
#pragma unroll 4
        for (int j = 0; j < kTile; ++j) {
            const float dot = groupSum<TPR>(partDot<DT, TPR>(qv, ks + j * D, r));
            const float s = live ? scoreOf(g, x.mask, moff, dot, i, k0 + j) : -INFINITY;
            const float dp = groupSum<TPR>(partDot<DT, TPR>(dov, vs + j * D, r));
            const float ds = probOf(s, lse) * (dp - dl);
            axpy<DT, TPR>(dq, ds * g.scale, ks + j * D, r);
        }
    }
    if (live) storeSlice<DT, TPR>(dq, 1.0f, x.dq, g.dtype, bb * g.dq[0] + h * g.dq[1] + i * g.dq[2], g.d, r);
}

template <int DT, int TPR>
__global__ void __launch_bounds__(kThreads) sdpaDkv(SdpaGeom g, SdpaData x, const float *delta) {
    constexpr int D = DT * TPR, ROWS = kThreads / TPR;
    extern __shared__ float4 smem4[];
    float *qs = reinterpret_cast<float *>(smem4), *dos = qs + kTile * D;
    float *lses = dos + kTile * D, *dls = lses + kTile;
    const int r = threadIdx.x % TPR;
    const long long bb = blockIdx.z, hk = blockIdx.y;
    const long long j0 = static_cast<long long>(blockIdx.x) * ROWS, j = j0 + threadIdx.x / TPR;
    const bool live = j < g.lk;
    const long long jc = live ? j : 0;
    float kv[DT], vv[DT], dk[DT], dv[DT];
    loadSlice<DT, TPR>(kv, x.k, g.dtype, bb * g.k[0] + hk * g.k[1] + jc * g.k[2], live ? g.d : 0, r);
    loadSlice<DT, TPR>(vv, x.v, g.dtype, bb * g.v[0] + hk * g.v[1] + jc * g.v[2], live ? g.d : 0, r);
#pragma unroll
    for (int e = 0; e < DT; ++e) dk[e] = dv[e] = 0.0f;
    // the first query that attends any of the block's keys (causal: key j is seen from query j - (lk - lq) on)
    const long long qstart = g.causal ? max(0LL, (j0 - (g.lk - g.lq)) / kTile * kTile) : 0;
    for (long long h = hk * g.group; h < (hk + 1) * g.group; ++h) {
        const long long moff = bb * g.mask[0] + h * g.mask[1];
        const long long qoff = bb * g.q[0] + h * g.q[1], dooff = bb * g.dout[0] + h * g.dout[1];
        for (long long q0 = qstart; q0 < g.lq; q0 += kTile) {
            __syncthreads();
            loadTile<D>(qs, x.q, g.dtype, qoff, g.q[2], q0, g.lq, g.d);
            loadTile<D>(dos, x.dout, g.dtype, dooff, g.dout[2], q0, g.lq, g.d);
            if (threadIdx.x < kTile) {
                const long long i = q0 + threadIdx.x;
                lses[threadIdx.x] = i < g.lq ? x.lse_in[bb * g.lse[0] + h * g.lse[1] + i * g.lse[2]] : -INFINITY;
                dls[threadIdx.x] = i < g.lq ? delta[(bb * g.hq + h) * g.lq + i] : 0.0f;
            }
            __syncthreads();
#pragma unroll 4
            for (int t = 0; t < kTile; ++t) {
                const long long i = q0 + t;
                const float dot = groupSum<TPR>(partDot<DT, TPR>(kv, qs + t * D, r));
                const float s = i < g.lq ? scoreOf(g, x.mask, moff, dot, i, j) : -INFINITY;
                const float p = probOf(s, lses[t]);
                axpy<DT, TPR>(dv, p, dos + t * D, r);
                const float dp = groupSum<TPR>(partDot<DT, TPR>(vv, dos + t * D, r));
                axpy<DT, TPR>(dk, p * (dp - dls[t]) * g.scale, qs + t * D, r);
            }
        }
    }
    if (!live) return;
    storeSlice<DT, TPR>(dk, 1.0f, x.dk, g.dtype, bb * g.dk[0] + hk * g.dk[1] + j * g.dk[2], g.d, r);
    storeSlice<DT, TPR>(dv, 1.0f, x.dv, g.dtype, bb * g.dv[0] + hk * g.dv[1] + j * g.dv[2], g.d, r);
}

// The kernels' configuration for head_dim d: DT elements a thread, TPR threads a row.
template <typename F>
infiniStatus_t byHeadDim(long long d, F &&f) {
    if (d <= 64) return f(std::integral_constant<int, 16>{}, std::integral_constant<int, 4>{});
    if (d <= 128) return f(std::integral_constant<int, 32>{}, std::integral_constant<int, 4>{});
    return f(std::integral_constant<int, 32>{}, std::integral_constant<int, 8>{});
}

// Launches kern over grid with `smem` bytes of dynamic shared memory (more than the default 48 KiB asked for).
template <typename K, typename... Args>
infiniStatus_t launchSmem(K *kern, ops::SmemAllowance &allowance, dim3 grid, int smem, cudaStream_t s, Args... args) {
    if (smem > 48 * 1024 && !allowance.ensure(kern, smem)) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "infiniopSdpa: %d bytes of shared memory refused", smem);
    }
    kern<<<grid, kThreads, smem, s>>>(args...);
    return launched("infiniopSdpa");
}

}  // namespace

infiniStatus_t sdpaBlockedForward(const SdpaGeom &g, const SdpaData &x, const Ctx &q) {
    return byHeadDim(g.d, [&](auto dt, auto tpr) {
        constexpr int DT = decltype(dt)::value, TPR = decltype(tpr)::value, D = DT * TPR, ROWS = kThreads / TPR;
        static ops::SmemAllowance allowance;
        const dim3 grid(gridX((g.lq + ROWS - 1) / ROWS), static_cast<unsigned>(g.hq), static_cast<unsigned>(g.b));
        return launchSmem(sdpaFwd<DT, TPR>, allowance, grid, 2 * kTile * D * static_cast<int>(sizeof(float)), q.stream,
                          g, x);
    });
}

infiniStatus_t sdpaBackwardDelta(const SdpaGeom &g, const SdpaData &x, float *delta, const Ctx &q) {
    sdpaDelta<<<blocksFor(g.b * g.hq * g.lq, 8, 1LL << 20), 256, 0, q.stream>>>(g, x, delta);
    return launched("infiniopSdpa");
}

infiniStatus_t sdpaBlockedBackward(const SdpaGeom &g, const SdpaData &x, const Ctx &q) {
    StreamBuffer delta(q.stream);
    const long long rows = g.b * g.hq * g.lq;
    if (rows > 0) {
        INFINI_RETURN_IF_ERROR(delta.alloc(static_cast<size_t>(rows) * sizeof(float)));
        INFINI_RETURN_IF_ERROR(sdpaBackwardDelta(g, x, delta.as<float>(), q));
    }
    return byHeadDim(g.d, [&](auto dt, auto tpr) -> infiniStatus_t {
        constexpr int DT = decltype(dt)::value, TPR = decltype(tpr)::value, D = DT * TPR, ROWS = kThreads / TPR;
        constexpr int kv_smem = 2 * kTile * D * static_cast<int>(sizeof(float));
        if (g.lq > 0) {
            static ops::SmemAllowance allowance;
            const dim3 grid(gridX((g.lq + ROWS - 1) / ROWS), static_cast<unsigned>(g.hq), static_cast<unsigned>(g.b));
            INFINI_RETURN_IF_ERROR(launchSmem(sdpaDq<DT, TPR>, allowance, grid, kv_smem, q.stream, g, x,
                                              static_cast<const float *>(delta.as<float>())));
        }
        if (g.lk > 0) {
            static ops::SmemAllowance allowance;
            const dim3 grid(gridX((g.lk + ROWS - 1) / ROWS), static_cast<unsigned>(g.hk), static_cast<unsigned>(g.b));
            INFINI_RETURN_IF_ERROR(launchSmem(sdpaDkv<DT, TPR>, allowance, grid,
                                              kv_smem + 2 * kTile * static_cast<int>(sizeof(float)), q.stream, g, x,
                                              static_cast<const float *>(delta.as<float>())));
        }
        return INFINI_STATUS_SUCCESS;
    });
}

}  // namespace infini::nvidia::families
