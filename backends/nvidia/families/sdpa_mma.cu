// families/sdpa_mma.cu: the sdpa family's backward on tensor cores (mma.sync m16n8k16, f32 accumulators) for fp16 /
// bf16 with head_dim 64 or 128, no mask (causal or not), every stride a multiple of 8 elements and every operand on
// 16 bytes; sdpa.cu routes the rest to the blocked kernels. The probabilities are recomputed from the forward's
// lse (p = exp(scale s - lse), 0 where causal hides the key or the row saw none), ds = p (dout . v - delta) with
// delta = rowsum(dout * out) (sdpaBackwardDelta). Two kernels, each writing its gradients once (no atomics:
// deterministic), at the cost of the scores and dP products computed in both:
// - sdpaMmaDq: grid (query tiles of 64, hq, b), 4 warps of 16 query rows; key tiles of 32 through shared memory:
//   S = Q K^T, dP = dO V^T (Q and dO fragments held in registers), dQ += dS K.
// - sdpaMmaDkv: grid (key tiles of 64, hk, b), 4 warps of 16 key rows; for every query head of the key head's group,
//   query tiles of 32 through shared memory: S^T = K Q^T, dP^T = V dO^T, dV += P^T dO, dK += dS^T Q.
// Fragments (g = lane / 4, c = lane % 4): A rows g, g + 8 by ldmatrix from shared rows; B of a product with the
// other operand's rows as its N dim by 32-bit reads of those rows, of one with them as its K dim by ldmatrix.trans;
// a C fragment's probabilities packed into the next product's A fragment in registers (16-bit, as FlashAttention).
// Shared rows are padded by 16 bytes, so that the 8 rows an ldmatrix phase or a B read touches sit in distinct banks.
#include <cstdlib>

#include "../ops/attention/mma.cuh"
#include "sdpa.cuh"

namespace infini::nvidia::families {
namespace {

using ops::attn::mma16816x4;
using ops::attn::packPair;

constexpr int kWarps = 4;

__device__ __forceinline__ uint32_t smemU32(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldsm4(uint32_t (&r)[4], const void *p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smemU32(p)));
}
__device__ __forceinline__ void ldsm4t(uint32_t (&r)[4], const void *p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smemU32(p)));
}

// Rows [r0, r0 + R) of a [L, D] matrix (row stride rs elements, a multiple of 8; base on 16 bytes) into a shared
// tile of rows RS elements apart, zeros past L; 16 bytes a thread at a time.
template <typename T, int D, int RS>
__device__ __forceinline__ void loadRows(T *tile, const T *base, long long rs, long long r0, long long L, int R) {
    constexpr int kPieces = D / 8;
    for (int idx = threadIdx.x; idx < R * kPieces; idx += kWarps * 32) {
        const int row = idx / kPieces, ch = idx % kPieces;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (r0 + row < L) v = *reinterpret_cast<const uint4 *>(base + (r0 + row) * rs + ch * 8);
        *reinterpret_cast<uint4 *>(tile + row * RS + ch * 8) = v;
    }
}

// The A fragment of rows [row0, row0 + 16) x columns [col0, col0 + 16) of a shared tile (rows RS elements apart).
template <int RS, typename T>
__device__ __forceinline__ void fragA(uint32_t (&a)[4], const T *tile, int row0, int col0) {
    const int lane = threadIdx.x % 32, mat = lane >> 3;
    ldsm4(a, tile + (row0 + (lane & 7) + 8 * (mat & 1)) * RS + col0 + 8 * (mat >> 1));
}

// B fragments (b0, b1) of two n-tiles (n = columns [col0, col0 + 16)) of a product whose K dim is the tile's rows
// [row0, row0 + 16): ldmatrix.trans; b[0], b[1] for n-tile col0 / 8, b[2], b[3] for the next.
template <int RS, typename T>
__device__ __forceinline__ void fragBt(uint32_t (&b)[4], const T *tile, int row0, int col0) {
    const int lane = threadIdx.x % 32;
    ldsm4t(b, tile + (row0 + ((lane >> 3) & 1) * 8 + (lane & 7)) * RS + col0 + (lane >> 4) * 8);
}

// The B fragment of n-tile rows [row0, row0 + 8) (N = the tile's rows) at K columns [col0, col0 + 16).
template <int RS, typename T>
__device__ __forceinline__ void fragB(uint32_t &b0, uint32_t &b1, const T *tile, int row0, int col0) {
    const int lane = threadIdx.x % 32, g = lane / 4, c = lane % 4;
    const T *p = tile + (row0 + g) * RS + col0 + 2 * c;
    b0 = *reinterpret_cast<const uint32_t *>(p);
    b1 = *reinterpret_cast<const uint32_t *>(p + 8);
}

// Whether query i attends key j (the key in range, causal's bound).
__device__ __forceinline__ bool attends(const SdpaGeom &g, long long i, long long j) {
    return i < g.lq && j < g.lk && (!g.causal || j <= i + g.lk - g.lq);
}

__device__ __forceinline__ float probAt(float s, float scale, float lse, bool ok) {
    return ok && lse != -INFINITY ? expf(s * scale - lse) : 0.0f;
}

template <typename T, int D>
__global__ void __launch_bounds__(kWarps * 32) sdpaMmaDq(SdpaGeom g, SdpaData x, const float *delta) {
    constexpr int RS = D + 8, BQ = 16 * kWarps, BK = 32, NT = D / 8, KS = D / 16;
    extern __shared__ __align__(16) unsigned char smem[];
    T *qs = reinterpret_cast<T *>(smem), *dos = qs + BQ * RS, *ks = dos + BQ * RS, *vs = ks + BK * RS;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, gq = lane / 4, c = lane % 4;
    const long long bb = blockIdx.z, h = blockIdx.y, hk = h / g.group;
    const long long i0 = static_cast<long long>(blockIdx.x) * BQ;
    const T *q = static_cast<const T *>(x.q) + bb * g.q[0] + h * g.q[1];
    const T *dout = static_cast<const T *>(x.dout) + bb * g.dout[0] + h * g.dout[1];
    const T *k = static_cast<const T *>(x.k) + bb * g.k[0] + hk * g.k[1];
    const T *v = static_cast<const T *>(x.v) + bb * g.v[0] + hk * g.v[1];
    loadRows<T, D, RS>(qs, q, g.q[2], i0, g.lq, BQ);
    loadRows<T, D, RS>(dos, dout, g.dout[2], i0, g.lq, BQ);
    __syncthreads();
    uint32_t qf[KS][4], df[KS][4];
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
        fragA<RS>(qf[kk], qs, 16 * warp, 16 * kk);
        fragA<RS>(df[kk], dos, 16 * warp, 16 * kk);
    }
    // the lane's rows (g and g + 8 of the warp's 16): their lse and delta
    long long ir[2];
    float lse[2], dl[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        ir[r] = i0 + 16 * warp + gq + 8 * r;
        const bool live = ir[r] < g.lq;
        lse[r] = live ? x.lse_in[bb * g.lse[0] + h * g.lse[1] + ir[r] * g.lse[2]] : -INFINITY;
        dl[r] = live ? delta[(bb * g.hq + h) * g.lq + ir[r]] : 0.0f;
    }
    float dq[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) dq[nt][0] = dq[nt][1] = dq[nt][2] = dq[nt][3] = 0.0f;
    const long long ilast = min(i0 + BQ, g.lq) - 1;
    const long long kend = g.causal ? min(g.lk, ilast + g.lk - g.lq + 1) : g.lk;
    for (long long k0 = 0; k0 < kend; k0 += BK) {
        __syncthreads();  // (the previous tiles were read)
        loadRows<T, D, RS>(ks, k, g.k[2], k0, g.lk, BK);
        loadRows<T, D, RS>(vs, v, g.v[2], k0, g.lk, BK);
        __syncthreads();
        float s[BK / 8][4], dp[BK / 8][4];
#pragma unroll
        for (int nt = 0; nt < BK / 8; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) s[nt][e] = dp[nt][e] = 0.0f;
#pragma unroll
            for (int kk = 0; kk < KS; ++kk) {
                uint32_t b0, b1;
                fragB<RS>(b0, b1, ks, 8 * nt, 16 * kk);
                mma16816x4<T>(s[nt], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], b0, b1);
                fragB<RS>(b0, b1, vs, 8 * nt, 16 * kk);
                mma16816x4<T>(dp[nt], df[kk][0], df[kk][1], df[kk][2], df[kk][3], b0, b1);
            }
        }
        // ds = p (dp - delta) in place of s (element e: row g + 8 (e / 2), key 2c + e % 2 of the n-tile)
#pragma unroll
        for (int nt = 0; nt < BK / 8; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int r = e / 2;
                const long long j = k0 + 8 * nt + 2 * c + (e % 2);
                s[nt][e] = probAt(s[nt][e], g.scale, lse[r], attends(g, ir[r], j)) * (dp[nt][e] - dl[r]);
            }
        }
        // dq += ds K, 16 keys a k-step
#pragma unroll
        for (int ks16 = 0; ks16 < BK / 16; ++ks16) {
            const uint32_t a0 = packPair<T>(s[2 * ks16][0], s[2 * ks16][1]),
                           a1 = packPair<T>(s[2 * ks16][2], s[2 * ks16][3]);
            const uint32_t a2 = packPair<T>(s[2 * ks16 + 1][0], s[2 * ks16 + 1][1]);
            const uint32_t a3 = packPair<T>(s[2 * ks16 + 1][2], s[2 * ks16 + 1][3]);
#pragma unroll
            for (int m = 0; m < NT / 2; ++m) {
                uint32_t b[4];
                fragBt<RS>(b, ks, 16 * ks16, 16 * m);
                mma16816x4<T>(dq[2 * m], a0, a1, a2, a3, b[0], b[1]);
                mma16816x4<T>(dq[2 * m + 1], a0, a1, a2, a3, b[2], b[3]);
            }
        }
    }
    T *dqp = static_cast<T *>(x.dq) + bb * g.dq[0] + h * g.dq[1];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        if (ir[r] >= g.lq) continue;
        T *row = dqp + ir[r] * g.dq[2] + 2 * c;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
            *reinterpret_cast<uint32_t *>(row + 8 * nt) =
                packPair<T>(dq[nt][2 * r] * g.scale, dq[nt][2 * r + 1] * g.scale);
        }
    }
}

template <typename T, int D>
__global__ void __launch_bounds__(kWarps * 32) sdpaMmaDkv(SdpaGeom g, SdpaData x, const float *delta) {
    constexpr int RS = D + 8, BK = 16 * kWarps, BQ = 32, NT = D / 8, KS = D / 16;
    extern __shared__ __align__(16) unsigned char smem[];
    T *ks = reinterpret_cast<T *>(smem), *vs = ks + BK * RS, *qs = vs + BK * RS, *dos = qs + BQ * RS;
    float *lses = reinterpret_cast<float *>(dos + BQ * RS), *dls = lses + BQ;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, gq = lane / 4, c = lane % 4;
    const long long bb = blockIdx.z, hk = blockIdx.y;
    const long long j0 = static_cast<long long>(blockIdx.x) * BK;
    loadRows<T, D, RS>(ks, static_cast<const T *>(x.k) + bb * g.k[0] + hk * g.k[1], g.k[2], j0, g.lk, BK);
    loadRows<T, D, RS>(vs, static_cast<const T *>(x.v) + bb * g.v[0] + hk * g.v[1], g.v[2], j0, g.lk, BK);
    long long jr[2];  // the lane's key rows (g and g + 8 of the warp's 16)
    jr[0] = j0 + 16 * warp + gq;
    jr[1] = jr[0] + 8;
    float dk[NT][4], dv[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) dk[nt][e] = dv[nt][e] = 0.0f;
    }
    // the first query tile that sees any of the block's keys (causal: key j is seen from query j - (lk - lq) on)
    const long long qstart = g.causal ? max(0LL, (j0 - (g.lk - g.lq)) / BQ * BQ) : 0;
    for (long long h = hk * g.group; h < (hk + 1) * g.group; ++h) {
        const T *q = static_cast<const T *>(x.q) + bb * g.q[0] + h * g.q[1];
        const T *dout = static_cast<const T *>(x.dout) + bb * g.dout[0] + h * g.dout[1];
        for (long long q0 = qstart; q0 < g.lq; q0 += BQ) {
            __syncthreads();  // (the previous tiles were read; the first time: nothing)
            loadRows<T, D, RS>(qs, q, g.q[2], q0, g.lq, BQ);
            loadRows<T, D, RS>(dos, dout, g.dout[2], q0, g.lq, BQ);
            if (threadIdx.x < BQ) {
                const long long i = q0 + threadIdx.x;
                lses[threadIdx.x] = i < g.lq ? x.lse_in[bb * g.lse[0] + h * g.lse[1] + i * g.lse[2]] : -INFINITY;
                dls[threadIdx.x] = i < g.lq ? delta[(bb * g.hq + h) * g.lq + i] : 0.0f;
            }
            __syncthreads();
            // S^T = K Q^T and dP^T = V dO^T: the warp's 16 keys x the tile's 32 queries
            float s[BQ / 8][4], dp[BQ / 8][4];
#pragma unroll
            for (int nt = 0; nt < BQ / 8; ++nt) {
#pragma unroll
                for (int e = 0; e < 4; ++e) s[nt][e] = dp[nt][e] = 0.0f;
            }
#pragma unroll
            for (int kk = 0; kk < KS; ++kk) {
                uint32_t ka[4], va[4];
                fragA<RS>(ka, ks, 16 * warp, 16 * kk);
                fragA<RS>(va, vs, 16 * warp, 16 * kk);
#pragma unroll
                for (int nt = 0; nt < BQ / 8; ++nt) {
                    uint32_t b0, b1;
                    fragB<RS>(b0, b1, qs, 8 * nt, 16 * kk);
                    mma16816x4<T>(s[nt], ka[0], ka[1], ka[2], ka[3], b0, b1);
                    fragB<RS>(b0, b1, dos, 8 * nt, 16 * kk);
                    mma16816x4<T>(dp[nt], va[0], va[1], va[2], va[3], b0, b1);
                }
            }
            // p^T in s, ds^T in dp (element e: key row g + 8 (e / 2), query 2c + e % 2 of the n-tile)
#pragma unroll
            for (int nt = 0; nt < BQ / 8; ++nt) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int t = 8 * nt + 2 * c + (e % 2);
                    const float p = probAt(s[nt][e], g.scale, lses[t], attends(g, q0 + t, jr[e / 2]));
                    s[nt][e] = p;
                    dp[nt][e] = p * (dp[nt][e] - dls[t]);
                }
            }
            // dV += P^T dO and dK += dS^T Q, 16 queries a k-step
#pragma unroll
            for (int ks16 = 0; ks16 < BQ / 16; ++ks16) {
                const uint32_t p0 = packPair<T>(s[2 * ks16][0], s[2 * ks16][1]),
                               p1 = packPair<T>(s[2 * ks16][2], s[2 * ks16][3]);
                const uint32_t p2 = packPair<T>(s[2 * ks16 + 1][0], s[2 * ks16 + 1][1]);
                const uint32_t p3 = packPair<T>(s[2 * ks16 + 1][2], s[2 * ks16 + 1][3]);
                const uint32_t d0 = packPair<T>(dp[2 * ks16][0], dp[2 * ks16][1]),
                               d1 = packPair<T>(dp[2 * ks16][2], dp[2 * ks16][3]);
                const uint32_t d2 = packPair<T>(dp[2 * ks16 + 1][0], dp[2 * ks16 + 1][1]);
                const uint32_t d3 = packPair<T>(dp[2 * ks16 + 1][2], dp[2 * ks16 + 1][3]);
#pragma unroll
                for (int m = 0; m < NT / 2; ++m) {
                    uint32_t b[4];
                    fragBt<RS>(b, dos, 16 * ks16, 16 * m);
                    mma16816x4<T>(dv[2 * m], p0, p1, p2, p3, b[0], b[1]);
                    mma16816x4<T>(dv[2 * m + 1], p0, p1, p2, p3, b[2], b[3]);
                    fragBt<RS>(b, qs, 16 * ks16, 16 * m);
                    mma16816x4<T>(dk[2 * m], d0, d1, d2, d3, b[0], b[1]);
                    mma16816x4<T>(dk[2 * m + 1], d0, d1, d2, d3, b[2], b[3]);
                }
            }
        }
    }
    T *dkp = static_cast<T *>(x.dk) + bb * g.dk[0] + hk * g.dk[1];
    T *dvp = static_cast<T *>(x.dv) + bb * g.dv[0] + hk * g.dv[1];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        if (jr[r] >= g.lk) continue;
        T *rk = dkp + jr[r] * g.dk[2] + 2 * c, *rv = dvp + jr[r] * g.dv[2] + 2 * c;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
            *reinterpret_cast<uint32_t *>(rk + 8 * nt) =
                packPair<T>(dk[nt][2 * r] * g.scale, dk[nt][2 * r + 1] * g.scale);
            *reinterpret_cast<uint32_t *>(rv + 8 * nt) = packPair<T>(dv[nt][2 * r], dv[nt][2 * r + 1]);
        }
    }
}

template <typename T, int D>
infiniStatus_t launchMma(const SdpaGeom &g, const SdpaData &x, const float *delta, const Ctx &q) {
    constexpr int RS = D + 8;
    constexpr int dq_smem = (2 * 16 * kWarps + 2 * 32) * RS * static_cast<int>(sizeof(T));
    constexpr int dkv_smem =
        (2 * 16 * kWarps + 2 * 32) * RS * static_cast<int>(sizeof(T)) + 2 * 32 * static_cast<int>(sizeof(float));
    static ops::SmemAllowance dq_allow, dkv_allow;
    if (g.lq > 0) {
        if (dq_smem > 48 * 1024 && !dq_allow.ensure(sdpaMmaDq<T, D>, dq_smem)) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "infiniopSdpa: %d bytes of shared memory refused", dq_smem);
        }
        const dim3 grid(gridX((g.lq + 16 * kWarps - 1) / (16 * kWarps)), static_cast<unsigned>(g.hq),
                        static_cast<unsigned>(g.b));
        sdpaMmaDq<T, D><<<grid, kWarps * 32, dq_smem, q.stream>>>(g, x, delta);
        INFINI_RETURN_IF_ERROR(launched("infiniopSdpa"));
    }
    if (g.lk > 0) {
        if (dkv_smem > 48 * 1024 && !dkv_allow.ensure(sdpaMmaDkv<T, D>, dkv_smem)) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "infiniopSdpa: %d bytes of shared memory refused", dkv_smem);
        }
        const dim3 grid(gridX((g.lk + 16 * kWarps - 1) / (16 * kWarps)), static_cast<unsigned>(g.hk),
                        static_cast<unsigned>(g.b));
        sdpaMmaDkv<T, D><<<grid, kWarps * 32, dkv_smem, q.stream>>>(g, x, delta);
        INFINI_RETURN_IF_ERROR(launched("infiniopSdpa"));
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

bool sdpaMmaTakes(const SdpaGeom &g, const SdpaData &x) {
    static const bool off = [] {
        const char *e = std::getenv("INFINI_SDPA_BACKWARD");
        return e != nullptr && e[0] == 'b';  // "blocked": the CUDA-core kernels for every backward
    }();
    if (off || (g.dtype != INFINI_DTYPE_F16 && g.dtype != INFINI_DTYPE_BF16) || (g.d != 64 && g.d != 128)) return false;
    if (g.mask_dtype != INFINI_DTYPE_INVALID || g.scale != g.scale) return false;
    for (const long long *s : {g.q, g.k, g.v, g.dout, g.dq, g.dk, g.dv}) {
        if (s[0] % 8 != 0 || s[1] % 8 != 0 || s[2] % 8 != 0) return false;
    }
    for (const void *p : {x.q, x.k, x.v, x.dout, static_cast<const void *>(x.dq), static_cast<const void *>(x.dk),
                          static_cast<const void *>(x.dv)}) {
        if (!aligned16(p)) return false;
    }
    return true;
}

infiniStatus_t sdpaMmaBackward(const SdpaGeom &g, const SdpaData &x, const Ctx &q) {
    StreamBuffer delta(q.stream);
    const long long rows = g.b * g.hq * g.lq;
    if (rows > 0) {
        INFINI_RETURN_IF_ERROR(delta.alloc(static_cast<size_t>(rows) * sizeof(float)));
        INFINI_RETURN_IF_ERROR(sdpaBackwardDelta(g, x, delta.as<float>(), q));
    }
    const float *dl = delta.as<float>();
    if (g.dtype == INFINI_DTYPE_BF16) {
        return g.d == 64 ? launchMma<__nv_bfloat16, 64>(g, x, dl, q) : launchMma<__nv_bfloat16, 128>(g, x, dl, q);
    }
    return g.d == 64 ? launchMma<__half, 64>(g, x, dl, q) : launchMma<__half, 128>(g, x, dl, q);
}

}  // namespace infini::nvidia::families
