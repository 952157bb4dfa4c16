// softmax.cu: softmax along any dim (a line per block, walked with its stride) and causal_softmax over
// the last dim. Lines with stride 1 use 16-byte loads and stay in registers between the reductions
// and the write when they fit: as floats (a block per line), as stored (8 pieces a thread, for many
// lines), or split over a cluster of blocks (longer than a block holds; many such lines: each block's
// part half in registers and half in shared memory, or for causal ones all in shared memory, brought in
// by one bulk copy); the rest are read twice (max and sum in one online pass,
// then written).
#include <cooperative_groups.h>

#include <algorithm>
#include <type_traits>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

// causal: row r of a [.., q, kv] tensor keeps elements [0, r % q + kv - q + 1).
__device__ __forceinline__ long long causalLimit(long long row, long long n, long long q) {
    long long r;
    divMod(row, q, &r);
    return r + n - q + 1;
}
__device__ __forceinline__ int causalLimit32(int row, int n, int q) {  // the same, all three known to fit in 32 bits
    return static_cast<int>(static_cast<unsigned>(row) % static_cast<unsigned>(q)) + n - q + 1;
}

// The factor exp(m - ref) that moves the sum of a part of a line (its max m) onto the max ref; 0 where m
// is -inf (the part holds no finite value), so that the part's sum (0, or NaN if it held a NaN) adds
// nothing or stays NaN, where exp(-inf - -inf) would make a part of only -inf NaN.
__device__ __forceinline__ float shiftFactor(float m, float ref) { return m == -INFINITY ? 0.0f : __expf(m - ref); }

// (m, s) of the block: max and sum of exp(x - max).
__device__ __forceinline__ void blockMaxSum(float &m, float &s, float *smem) {
    float bm = blockMax(m, smem);
    float part = s * shiftFactor(m, bm);  // (s NaN stays NaN: see expInPlace)
    s = blockSum(part, smem);
    m = bm;
}

// exp(x - m) as 2^(x log2 e - m log2 e): one FFMA and the special-function unit's ex2 (with mL = m log2 e
// computed once), where __expf(x - m) takes an FADD, an FMUL and the ex2. x = -inf gives 0.
constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float expShifted(float x, float mL) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaf(x, kLog2e, -mL)));
    return y;
}

// A piece held as stored (elements [j, j + N) of a line whose [0, limit) are live) replaced by
// exp(x - m) (mL = m log2 e) as T, 0 where masked (MASK) or where m is -inf; the exps added to s.
// m = -inf (the max ignores NaN): a live NaN is added to s, so that the line's sum, and every value,
// is NaN as in torch; the partial sums combine as s * (m == -inf ? 0 : exp(m - max)), which keeps it.
template <bool MASK, typename T, int N>
__device__ __forceinline__ void expInPlace(Vec<T, N> &raw, int j, int limit, float m, float mL, float &s) {
    float f[N];
    if (j < limit && m != -INFINITY) {
        unpackF(raw, f);
#pragma unroll
        for (int e = 0; e < N; ++e) {
            f[e] = !MASK || j + e < limit ? expShifted(f[e], mL) : 0.0f;
            s += f[e];
        }
    } else {
        if (j < limit) {
            unpackF(raw, f);
#pragma unroll
            for (int e = 0; e < N; ++e) {
                if ((!MASK || j + e < limit) && f[e] != f[e]) s += f[e];
            }
        }
#pragma unroll
        for (int e = 0; e < N; ++e) f[e] = 0.0f;
    }
#pragma unroll
    for (int e = 0; e < N; ++e) raw.v[e] = fromF<T>(f[e]);
}

// A line whose live elements are all -inf: NaN there (0/0, as torch and the CPU backend), 0 where
// causal masks. Rare: a separate, plain write (element by element at stride sy, by the whole block).
template <typename T>
__device__ __noinline__ void nanLine(T *yr, long long n, long long sy, long long limit) {
    for (long long j = threadIdx.x; j < n; j += blockDim.x) yr[j * sy] = fromF<T>(j < limit ? NAN : 0.0f);
}
// The same for one 16-byte piece starting at element j.
template <typename T, int N>
__device__ __forceinline__ void nanPiece(T *p, long long j, long long limit) {
    float o[N];
#pragma unroll
    for (int e = 0; e < N; ++e) o[e] = j + e < limit ? NAN : 0.0f;
    storeF<T, N>(p, o);
}

// The max of a held piece's live elements (j: its first element's index; [0, limit) live) into m.
template <typename T, int N>
__device__ __forceinline__ void maxLive(const Vec<T, N> &piece, int j, int limit, float &m) {
    float f[N];
    unpackF(piece, f);
#pragma unroll
    for (int e = 0; e < N; ++e) m = j + e < limit ? fmaxf(m, f[e]) : m;
}

// A held piece (the exps in place of the inputs) times `scale`, stored at p.
template <typename T, int N>
__device__ __forceinline__ void scaleStore(T *p, const Vec<T, N> &piece, float scale) {
    float o[N];
    unpackF(piece, o);
#pragma unroll
    for (int e = 0; e < N; ++e) o[e] *= scale;
    storeF<T, N>(p, o);
}

// One line per block: line `row` of x starts at offsetOf(dx, row), its n elements `sx` apart (sx == 1
// when N > 1). causal: row r of a [.., q, kv] tensor keeps j <= (r % q) + kv - q, the rest is 0.
// CACHED: the host checked that the line fits in registers (N > 1, nv <= kMaxVecs * threads).
template <typename T, int N, bool CACHED, bool PLAIN>
__global__ void softmaxKernel(T *y, const T *x, long long n, long long sy, long long sx, RowsOf<PLAIN> dy,
                              RowsOf<PLAIN> dx, long long causal_q) {
    opEntry();
    __shared__ float smem[32];
    long long row = blockIdx.x;
    const T *xr = x + rowOffset(dx, row);
    T *yr = y + rowOffset(dy, row);
    long long limit = n;  // elements [0, limit) are live
    if (causal_q > 0) limit = causalLimit(row, n, causal_q);
    long long nv = (n + N - 1) / N;
    float xs[kMaxVecs][N];
    float m = -INFINITY, s = 0.0f;
    if constexpr (CACHED) {
        // the line in registers: the thread's own max, exp(x - it) once per element (kept), then the
        // block's max and sum; the write only rescales
        float lm = -INFINITY;  // (a thread whose live values are all -inf: exp(x - 0), 0, or NaN for a NaN)
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            long long j = v * N;
            if (v < nv && j < limit) {  // wholly masked pieces (causal) are not read
                loadF<T, N>(xr + j, xs[i]);
#pragma unroll
                for (int e = 0; e < N; ++e) {
                    if (j + e >= limit) xs[i][e] = -INFINITY;
                    lm = fmaxf(lm, xs[i][e]);
                }
            } else {
#pragma unroll
                for (int e = 0; e < N; ++e) xs[i][e] = -INFINITY;
            }
        }
        const float lm0 = lm == -INFINITY ? 0.0f : lm;
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
#pragma unroll
            for (int e = 0; e < N; ++e) {
                xs[i][e] = v < nv ? __expf(xs[i][e] - lm0) : 0.0f;
                s += xs[i][e];
            }
        }
        m = lm;
        blockMaxSum(m, s, smem);
        if (m == -INFINITY) return nanLine(yr, n, 1, limit);
        float f = shiftFactor(lm, m) / s;
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                float o[N];
#pragma unroll
                for (int e = 0; e < N; ++e) o[e] = xs[i][e] * f;
                storeF<T, N>(yr + v * N, o);
            }
        }
    } else {  // read twice: (max, sum) online, one exp per element and one rescale per piece; then the write
        auto load = [&](long long v, float (&out)[N]) {
            long long j = v * N;
            if (j >= limit) {  // wholly masked (causal): not read
#pragma unroll
                for (int e = 0; e < N; ++e) out[e] = -INFINITY;
                return;
            }
            if constexpr (N > 1) {
                loadF<T, N>(xr + j, out);
            } else {
                out[0] = toF(xr[j * sx]);
            }
#pragma unroll
            for (int e = 0; e < N; ++e) {
                if (j + e >= limit) out[e] = -INFINITY;
            }
        };
        visitRow<N>(nv, false, true, xs, load, [&](long long, const float (&t)[N]) {
            float vm = t[0];
#pragma unroll
            for (int e = 1; e < N; ++e) vm = fmaxf(vm, t[e]);
            if (vm == -INFINITY) {  // (a NaN among -inf: the sum NaN, as in torch)
#pragma unroll
                for (int e = 0; e < N; ++e) s = t[e] != t[e] ? t[e] : s;
                return;
            }
            if (vm > m) {
                s *= __expf(m - vm);
                m = vm;
            }
#pragma unroll
            for (int e = 0; e < N; ++e) s += __expf(t[e] - m);
        });
        blockMaxSum(m, s, smem);
        if (m == -INFINITY) return nanLine(yr, n, N > 1 ? 1 : sy, limit);
        float inv = 1.0f / s;
        visitRow<N>(nv, false, false, xs, load, [&](long long v, const float (&t)[N]) {
            long long j = v * N;
            float o[N];
#pragma unroll
            for (int e = 0; e < N; ++e) o[e] = shiftFactor(t[e], m) * inv;  // (inv NaN: NaN)
            if constexpr (N > 1) {
                storeF<T, N>(yr + j, o);
            } else {
                yr[j * sy] = fromF<T>(o[0]);
            }
        });
    }
}

// Lines held in registers as stored (16-byte pieces, kClusterVecs a thread): the line is read once,
// and a block of up to 512 threads stays within 64 registers so that two share an SM (one loading
// while the other writes). Lines longer than one block keeps (a vocabulary row) are split over a cluster of C blocks
// (CLUSTER), which exchange their (max, sum) through distributed shared memory. Grid: C blocks per
// line, along x; block `rank` of a line takes pieces [rank * per, rank * per + per). n < 2^31.
// One exp an element: the pieces hold exp(x - thread max) after the sum, the write only rescales (two exps an
// element measured slower: the special-function unit is what the SM runs short of).
constexpr int kClusterThreads = 512, kClusterVecs = 8;

// The line's (max, sum) from each of the cluster's C blocks' (m, s) (this block: `rank`), into m and s.
// Every block writes its pair into slot `rank` of every block's `slots` (C entries), then one cluster
// barrier; each reads its own copy, so no block reads another's memory after the barrier and none has
// to wait at the end for the others before it leaves (one barrier, not two). The kernel arrived
// (clusterArriveRelaxed) when it started: the first wait here means every block of the cluster runs.
__device__ __forceinline__ void clusterMaxSum(float &m, float &s, float2 *slots, int C, int rank) {
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    clusterWait();
    if (static_cast<int>(threadIdx.x) < C)
        cl.map_shared_rank(slots, static_cast<int>(threadIdx.x))[rank] = make_float2(m, s);
    clusterArrive();
    clusterWait();
    float gm = -INFINITY, gs = 0.0f;
    for (int r = 0; r < C; ++r) gm = fmaxf(gm, slots[r].x);
    for (int r = 0; r < C; ++r) {
        gs += slots[r].y * shiftFactor(slots[r].x, gm);
    }
    m = gm;
    s = gs;
}

// A running max over pieces as stored: bf16 and fp16 pairs by the packed max (two elements an
// instruction, no conversion), floats one by one. NaN as fmaxf: the other operand.
__device__ __forceinline__ void maxInto(__nv_bfloat162 &acc, const Vec<__nv_bfloat16, 8> &p) {
    const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&p);
    acc = __hmax2(acc, __hmax2(__hmax2(h[0], h[1]), __hmax2(h[2], h[3])));
}
__device__ __forceinline__ void maxInto(__half2 &acc, const Vec<__half, 8> &p) {
    const __half2 *h = reinterpret_cast<const __half2 *>(&p);
    acc = __hmax2(acc, __hmax2(__hmax2(h[0], h[1]), __hmax2(h[2], h[3])));
}
__device__ __forceinline__ void maxInto(float &acc, const Vec<float, 4> &p) {
    acc = fmaxf(acc, fmaxf(fmaxf(p.v[0], p.v[1]), fmaxf(p.v[2], p.v[3])));
}
__device__ __forceinline__ float maxOf(__nv_bfloat162 a) { return fmaxf(__low2float(a), __high2float(a)); }
__device__ __forceinline__ float maxOf(__half2 a) { return fmaxf(__low2float(a), __high2float(a)); }
__device__ __forceinline__ float maxOf(float a) { return a; }
template <typename T>
struct MaxAcc {
    using type = float;
    static __device__ float init() { return -INFINITY; }
};
template <>
struct MaxAcc<__nv_bfloat16> {
    using type = __nv_bfloat162;
    static __device__ type init() { return __float2bfloat162_rn(-INFINITY); }
};
template <>
struct MaxAcc<__half> {
    using type = __half2;
    static __device__ type init() { return __float2half2_rn(-INFINITY); }
};

template <typename T, bool CLUSTER, bool CAUSAL>
__global__ void __launch_bounds__(kClusterThreads, 2)
    softmaxPackedKernel(T *y, const T *x, int n, Dims dy, Dims dx, long long causal_q, int C, int per) {
    // the clustered launches are dependents that wait but do not trigger (launchOp's note)
    if constexpr (!CLUSTER)
        opEntry();
    else
        waitForPrerequisites();
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900 || !CLUSTER)
    constexpr int N = kVec16<T>;
    using V = Vec<T, N>;
    namespace cg = cooperative_groups;
    __shared__ float smem[32];
    __shared__ float2 slots[8];  // CLUSTER: (max, sum) of every block of the line, written by each
    long long row = blockIdx.x / C;
    int rank = 0;
    if constexpr (CLUSTER) {
        rank = static_cast<int>(cg::this_cluster().block_rank());
        clusterArriveRelaxed();  // this block has started: after the matching wait, the others may write its slots
    }
    const V *xr = reinterpret_cast<const V *>(x + offsetOf(dx, row));
    V *yr = reinterpret_cast<V *>(y + offsetOf(dy, row));
    int limit = causal_q > 0 ? static_cast<int>(causalLimit(row, n, causal_q)) : n;  // [0, limit) live
    int vbeg = rank * per + static_cast<int>(threadIdx.x), vend = min(n / N, rank * per + per);
    int step = static_cast<int>(blockDim.x);
    V raw[kClusterVecs];
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {  // every load first
        int v = vbeg + i * step;
        if (v < vend && v * N < limit) raw[i] = xr[v];
    }
    float m = -INFINITY, s = 0.0f;
    if constexpr (CAUSAL) {
#pragma unroll
        for (int i = 0; i < kClusterVecs; ++i) {  // the thread's max over its live elements
            int v = vbeg + i * step;
            if (v < vend && v * N < limit) maxLive(raw[i], v * N, limit, m);
        }
    } else {  // every element of the thread's pieces is live
        typename MaxAcc<T>::type acc = MaxAcc<T>::init();
#pragma unroll
        for (int i = 0; i < kClusterVecs; ++i) {
            if (vbeg + i * step < vend) maxInto(acc, raw[i]);
        }
        m = maxOf(acc);
    }
    // its sum; each piece now holds exp(x - m) in place of x (as T: one exp an element, where the
    // special-function unit is what the SM runs short of), 0 where masked
    const float lm = m, lmL = m * kLog2e;
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {
        int v = vbeg + i * step;
        if (v < vend) {
            expInPlace<CAUSAL>(raw[i], v * N, limit, lm, lmL,
                               s);  // (a thread whose live elements are all -inf adds 0s)
        }
    }
    blockMaxSum(m, s, smem);
    if constexpr (CLUSTER) clusterMaxSum(m, s, slots, C, rank);
    if (CAUSAL && m == -INFINITY) {  // the live elements are all -inf
#pragma unroll
        for (int i = 0; i < kClusterVecs; ++i) {
            int v = vbeg + i * step;
            if (v < vend) nanPiece<T, N>(reinterpret_cast<T *>(yr + v), v * N, limit);
        }
        return;
    }
    // exp(x - lm) -> exp(x - line max) / sum; a line of only -inf (pieces all 0): NaN
    float scale = m == -INFINITY ? NAN : shiftFactor(lm, m) / s;
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {
        int v = vbeg + i * step;
        if (v < vend) scaleStore<T, N>(reinterpret_cast<T *>(yr + v), raw[i], scale);
    }
#endif
}

// The cluster kernel with each block's part of the line in shared memory instead of registers: block
// `rank` brings its pieces [rank * per, rank * per + per) in with one bulk copy (the TMA unit: one thread
// issues it, an mbarrier counts the bytes in), so its threads hold no registers for the data and shared
// memory decides how many blocks an SM keeps (3 of 64 KiB); then the part's max, its exps written back
// in place (one exp an element), the cluster's (max, sum) as in softmaxPackedKernel, and the scaled write.
constexpr int kBulkThreads = 256, kBulkPartBytes = 64 * 1024;

template <typename T, bool CAUSAL>
__global__ void __launch_bounds__(kBulkThreads)
    softmaxBulkKernel(T *y, const T *x, int n, Dims dy, Dims dx, long long causal_q, int C, int per) {
    waitForPrerequisites();  // a dependent that waits only (launchOp's note)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int N = kVec16<T>;
    using V = Vec<T, N>;
    namespace cg = cooperative_groups;
    extern __shared__ __align__(128) unsigned char dyn_smem[];
    V *chunk = reinterpret_cast<V *>(dyn_smem);
    __shared__ float smem[32];
    __shared__ float2 slots[8];
    __shared__ __align__(8) unsigned long long bar;
    long long row = blockIdx.x / C;
    const int rank = static_cast<int>(cg::this_cluster().block_rank());
    clusterArriveRelaxed();
    const V *xr = reinterpret_cast<const V *>(x + offsetOf(dx, row));
    V *yr = reinterpret_cast<V *>(y + offsetOf(dy, row));
    const int limit = causal_q > 0 ? static_cast<int>(causalLimit(row, n, causal_q)) : n;
    const int vbeg = rank * per, vend = min(n / N, vbeg + per);
    const int vlive = CAUSAL ? min(vend, (limit + N - 1) / N) : vend;  // pieces read: the wholly masked are not
    const int cnt = max(0, vlive - vbeg);
    const uint32_t b = smemAddr(&bar);
    if (threadIdx.x == 0) {
        mbarInit(b);
        if (cnt > 0) {  // one arrival (this one) plus cnt * 16 bytes complete the barrier's phase 0
            mbarExpect(b, cnt * 16);
            bulkLoad(smemAddr(chunk), xr + vbeg, cnt * 16, b);
        }
    }
    __syncthreads();  // (the barrier is initialized before anyone waits on it)
    if (cnt > 0) mbarWait(b, 0);
    const int tid = static_cast<int>(threadIdx.x), step = static_cast<int>(blockDim.x);
    float m = -INFINITY;
    if constexpr (CAUSAL) {
        for (int v = vbeg + tid; v < vlive; v += step) maxLive(chunk[v - vbeg], v * N, limit, m);
    } else {
        typename MaxAcc<T>::type acc = MaxAcc<T>::init();
#pragma unroll 4
        for (int v = vbeg + tid; v < vlive; v += step) maxInto(acc, chunk[v - vbeg]);
        m = maxOf(acc);
    }
    m = blockMax(m, smem);
    const float mb = m, mL = m * kLog2e;
    float s = 0.0f;
#pragma unroll 4
    for (int v = vbeg + tid; v < vlive; v += step) {
        V piece = chunk[v - vbeg];
        expInPlace<CAUSAL>(piece, v * N, limit, mb, mL, s);
        chunk[v - vbeg] = piece;
    }
    s = blockSum(s, smem);
    clusterMaxSum(m, s, slots, C, rank);
    if (CAUSAL && m == -INFINITY) {
        for (int v = vbeg + tid; v < vend; v += step) nanPiece<T, N>(reinterpret_cast<T *>(yr + v), v * N, limit);
        return;
    }
    const float scale = m == -INFINITY ? NAN : shiftFactor(mb, m) / s;
#pragma unroll 4
    for (int v = vbeg + tid; v < vend; v += step) {
        if (!CAUSAL || v < vlive) {
            scaleStore<T, N>(reinterpret_cast<T *>(yr + v), chunk[v - vbeg], scale);
        } else {
            yr[v] = V{};  // wholly masked
        }
    }
#endif
}

// Stores v into `slot` (a float2 in this block's shared memory) of block `target` of the cluster, the
// store counted (8 bytes) by that block's mbarrier at the address of `bar` in this block.
__device__ __forceinline__ void sendPair(float2 v, const float2 *slot, const unsigned long long *bar, int target) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t raddr, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(raddr) : "r"(smemAddr(slot)), "r"(target));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(smemAddr(bar)), "r"(target));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(raddr),
                 "f"(v.x), "f"(v.y), "r"(rbar)
                 : "memory");
#endif
}

constexpr int kHoldThreads = 256, kHoldWarps = kHoldThreads / 32;  // softmaxHoldKernel's blocks

// The write's scale: bf16 as hi + lo (hi the scale rounded to bf16, lo the rest rounded), so that
// fma(e, hi, e * lo) in packed bf16 arithmetic is e * scale rounded once (to ~2^-17 before the rounding):
// two packed instructions for two elements where unpack, multiply and pack take five. Other types: the float
// scale. (The exp pass without a branch a piece - pieces past the part held as -inf - measured slower, with
// register spills at the 128-register cap.)
template <typename T>
struct WriteScale {
    float f;
    __device__ explicit WriteScale(float scale) : f(scale) {}
    template <int N>
    __device__ __forceinline__ void store(T *p, const Vec<T, N> &piece) const {
        scaleStore<T, N>(p, piece, f);
    }
};
template <>
struct WriteScale<__nv_bfloat16> {
    __nv_bfloat162 hi, lo;
    __device__ explicit WriteScale(float scale) {
        const __nv_bfloat16 h = __float2bfloat16_rn(scale);
        hi = __bfloat162bfloat162(h);
        lo = __float2bfloat162_rn(scale - __bfloat162float(h));
    }
    __device__ __forceinline__ void store(__nv_bfloat16 *p, const Vec<__nv_bfloat16, 8> &piece) const {
        const __nv_bfloat162 *e = reinterpret_cast<const __nv_bfloat162 *>(&piece);
        Vec<__nv_bfloat16, 8> o;
        __nv_bfloat162 *q = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
        for (int k = 0; k < 4; ++k) q[k] = __hfma2(e[k], hi, __hmul2(e[k], lo));
        *reinterpret_cast<Vec<__nv_bfloat16, 8> *>(p) = o;
    }
};

// expInPlace for a piece of a line whose max is finite (mL = max log2 e), every element live: no check a
// piece, and the piece's exps summed pairwise before they join s (a chain of one add a piece, not N); each
// measured a little faster.
template <typename T, int N>
__device__ __forceinline__ void expFinite(Vec<T, N> &raw, float mL, float &s) {
    float f[N], t[N];
    unpackF(raw, f);
#pragma unroll
    for (int e = 0; e < N; ++e) t[e] = f[e] = expShifted(f[e], mL);
#pragma unroll
    for (int w = N / 2; w >= 1; w /= 2) {
#pragma unroll
        for (int e = 0; e < w; ++e) t[e] += t[e + w];
    }
    s += t[0];
#pragma unroll
    for (int e = 0; e < N; ++e) raw.v[e] = fromF<T>(f[e]);
}

// Many long lines (vocabulary rows), not causal: a line a cluster of C blocks (not persistent); block
// `rank` takes the line's pieces [rank * per, rank * per + per), warp w of the block the part's pieces
// [w * 32 (R + S), +32 (R + S)), lane + 32 i its own: the first 32 R straight into registers (R a lane),
// the other 32 S by one bulk copy into the warp's shared memory (S a lane; their exps written back in
// place). Half the part in registers and half in shared memory keeps the registers a thread needs low,
// so that an SM holds MINB blocks: the blocks of other lines load while a block waits for its cluster.
// Each thread: its max, exp(x - its max) in place (one exp an element); each warp's (max, sum), which the
// warp sends to every block of the cluster by asynchronous stores into their shared memory, counted by
// that block's mbarrier (no cluster or block barrier on the way: a warp waits only for its own copy and
// the line's C x 8 pairs, and reduces them itself); the scaled write. n < 2^31.
// Within a few percent of a plain copy of the same bytes, and faster than a persistent kernel of clusters of 4
// (each block's 64 KiB part in registers, the next line's copied into shared memory meanwhile) and than the
// bulk kernel. <R, S, MINB> = <4, 4, 6> and <8, 8, 4> (launchHold) measured fastest of the splits tried; more
// blocks an SM spill, all of a part in registers is slower.
template <typename T, int R, int S, int MINB>
__global__ void __launch_bounds__(kHoldThreads, MINB)
    softmaxHoldKernel(T *y, const T *x, int n, Dims dy, Dims dx, int C, int per) {
    waitForPrerequisites();  // a dependent that waits only (launchOp's note)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int N = kVec16<T>, WV = 32 * (R + S);
    using V = Vec<T, N>;
    namespace cg = cooperative_groups;
    extern __shared__ __align__(128) unsigned char dyn_smem[];
    __shared__ __align__(8) unsigned long long bar[kHoldWarps];  // warp w's copy
    __shared__ __align__(8) unsigned long long xbar;             // the cluster's pairs
    __shared__ float2 slots[8 * kHoldWarps];                     // (max, sum) of warp w of block r: slots[r 8 + w]
    const int rank = static_cast<int>(cg::this_cluster().block_rank()), tid = static_cast<int>(threadIdx.x);
    const int warp = tid / 32, lane = tid % 32;
    const long long row = blockIdx.x / C;
    const int vbeg = rank * per, cnt = max(0, min(n / N, vbeg + per) - vbeg);
    const int wbeg = warp * WV, sbeg = wbeg + 32 * R;  // the warp's first piece; its first in shared memory
    const uint32_t sbytes = static_cast<uint32_t>(max(0, min(cnt - sbeg, 32 * S))) * 16u, wbar = smemAddr(&bar[warp]);
    V *sp = reinterpret_cast<V *>(dyn_smem) + warp * 32 * S;
    if (tid == 0) {
        for (int w = 0; w < kHoldWarps; ++w) mbarInit(smemAddr(&bar[w]));
        mbarInit(smemAddr(&xbar));
    }
    clusterArriveRelaxed();
    __syncthreads();  // (the barriers are initialized before anyone uses them)
    const V *xr = reinterpret_cast<const V *>(x + offsetOf(dx, row)) + vbeg;
    if (lane == 0 && sbytes > 0) {
        mbarExpect(wbar, sbytes);
        bulkLoad(smemAddr(sp), xr + sbeg, sbytes, wbar);
    }
    V raw[R > 0 ? R : 1];
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if (wbeg + lane + i * 32 < cnt) raw[i] = xr[wbeg + lane + i * 32];
    }
    if (tid == 0) mbarExpect(smemAddr(&xbar), static_cast<uint32_t>(C * kHoldWarps) * 8u);  // C x 8 pairs to come
    typename MaxAcc<T>::type acc = MaxAcc<T>::init();
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if (wbeg + lane + i * 32 < cnt) maxInto(acc, raw[i]);
    }
    if (sbytes > 0) mbarWait(wbar, 0);
#pragma unroll
    for (int j = 0; j < S; ++j) {
        if (sbeg + lane + j * 32 < cnt) maxInto(acc, sp[lane + j * 32]);
    }
    const float lm = maxOf(acc), lmL = lm * kLog2e;
    float s = 0.0f;
    if (lm != -INFINITY) {
#pragma unroll
        for (int i = 0; i < R; ++i) {
            if (wbeg + lane + i * 32 < cnt) expFinite(raw[i], lmL, s);
        }
#pragma unroll
        for (int j = 0; j < S; ++j) {
            if (sbeg + lane + j * 32 < cnt) {
                V p = sp[lane + j * 32];
                expFinite(p, lmL, s);
                sp[lane + j * 32] = p;
            }
        }
    } else {  // (the thread's elements all -inf or NaN: its NaNs join the sum)
#pragma unroll
        for (int i = 0; i < R; ++i) {
            if (wbeg + lane + i * 32 < cnt) expInPlace<false>(raw[i], 0, 1, lm, lmL, s);
        }
#pragma unroll
        for (int j = 0; j < S; ++j) {
            if (sbeg + lane + j * 32 < cnt) {
                V p = sp[lane + j * 32];
                expInPlace<false>(p, 0, 1, lm, lmL, s);
                sp[lane + j * 32] = p;
            }
        }
    }
    const float wm = warpMax(lm);
    const float ws = warpSum(s * shiftFactor(lm, wm));
    clusterWait();  // every block of the cluster runs, its barriers initialized: pairs may be sent to it
    if (lane < C) sendPair(make_float2(wm, ws), &slots[rank * kHoldWarps + warp], &xbar, lane);  // lane r to block r
    mbarWait(smemAddr(&xbar), 0);
    const int np = C * kHoldWarps;  // 16, 32 or 64 pairs: lane i takes pairs i and i + 32
    const float2 none = make_float2(-INFINITY, 0.0f), pa = lane < np ? slots[lane] : none,
                 pb = lane + 32 < np ? slots[lane + 32] : none;
    const float gm = warpMax(fmaxf(pa.x, pb.x));
    const float gs = warpSum(pa.y * shiftFactor(pa.x, gm) + pb.y * shiftFactor(pb.x, gm));
    const WriteScale<T> scale(gm == -INFINITY ? NAN : shiftFactor(lm, gm) / gs);
    V *yr = reinterpret_cast<V *>(y + offsetOf(dy, row)) + vbeg;
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if (wbeg + lane + i * 32 < cnt) scale.store(reinterpret_cast<T *>(yr + wbeg + lane + i * 32), raw[i]);
    }
#pragma unroll
    for (int j = 0; j < S; ++j) {
        if (sbeg + lane + j * 32 < cnt)
            scale.store(reinterpret_cast<T *>(yr + sbeg + lane + j * 32), sp[lane + j * 32]);
    }
#endif
}

// The reduction of a line held by G warps, each warp's value already reduced: through shared memory `sm`
// (G floats; every thread gets it). G = 1: the warp's value.
template <int G, typename Op>
__device__ __forceinline__ float lineReduce(float v, float *sm, Op op) {
    if constexpr (G == 1) {
        return v;
    } else {
        if (threadIdx.x % 32 == 0) sm[threadIdx.x / 32] = v;
        __syncthreads();
        float r = sm[0];
#pragma unroll
        for (int k = 1; k < G; ++k) r = op(r, sm[k]);
        return r;
    }
}

// G warps a line, for short lines with little work in all (decode-size attention rows): up to VPL
// 16-byte pieces a lane, warp shuffles (and for G > 1 one shared-memory step a reduction), the exps kept
// in place of the inputs as in softmaxPackedKernel. G = 1: 4 lines a block; else a line a block.
// Lines `sx` / `sy` elements apart (the host collapsed their dims to one); rows < 2^31.
template <typename T, int VPL, int G>
__global__ void __launch_bounds__(128)
    softmaxWarpKernel(T *y, const T *x, int n, int rows, long long sy, long long sx, int causal_q) {
    opEntry();
    constexpr int N = kVec16<T>, L = 32 * G;
    using V = Vec<T, N>;
    __shared__ float sm[2 * G];
    const int row =
        G == 1 ? static_cast<int>(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) : static_cast<int>(blockIdx.x);
    if (row >= rows) return;
    const int lane = G == 1 ? static_cast<int>(threadIdx.x % 32) : static_cast<int>(threadIdx.x), nv = n / N;
    const V *xr = reinterpret_cast<const V *>(x + row * sx);
    V *yr = reinterpret_cast<V *>(y + row * sy);
    const int limit = causal_q > 0 ? causalLimit32(row, n, causal_q) : n;
    V raw[VPL];
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
        int v = lane + L * i;
        // masked pieces too (they lie inside the line): the loads do not wait on the limit's modulo
        if (v < nv) raw[i] = xr[v];
    }
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
        int v = lane + L * i;
        if (v < nv && v * N < limit) maxLive(raw[i], v * N, limit, m);
    }
    // the line's max: every lane's exps are taken against it (no rescale later)
    m = lineReduce<G>(warpMax(m), sm, [](float a, float b) { return fmaxf(a, b); });
    const float mL = m * kLog2e;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
        int v = lane + L * i;
        if (v < nv) {
            expInPlace<true>(raw[i], v * N, limit, m, mL, s);
        }
    }
    s = lineReduce<G>(warpSum(s), sm + G, [](float a, float b) { return a + b; });
    if (m == -INFINITY) {  // the line is all -inf
#pragma unroll
        for (int i = 0; i < VPL; ++i) {
            int v = lane + L * i;
            if (v < nv) nanPiece<T, N>(reinterpret_cast<T *>(yr + v), v * N, limit);
        }
        return;
    }
    const float scale = 1.0f / s;
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
        int v = lane + L * i;
        if (v < nv) scaleStore<T, N>(reinterpret_cast<T *>(yr + v), raw[i], scale);
    }
}

// Launches over `rows` lines of n elements; y and x line starts given by dy/dx, element strides sy/sx.
// The fewest blocks (2, 4 or 8) a cluster needs so that each block's part of a line of nv pieces is at
// most max_pieces; 0 if 8 are not enough. *per: the pieces a part.
inline int fewestBlocks(long long nv, long long max_pieces, long long *per) {
    for (int c : {2, 4, 8}) {
        *per = (nv + c - 1) / c;
        if (*per <= max_pieces) return c;
    }
    return 0;
}

// Launches softmaxHoldKernel<T, R, S, MINB> over `rows` lines of n (a multiple of the 16-byte piece, n <
// 2^31), a line a cluster of the fewest blocks (2, 4 or 8) whose parts its blocks hold (32 (R + S) pieces a
// warp): 1 launched, 0 the launch refused, -1 the lines too long for it.
template <typename T, int R, int S, int MINB>
int launchHoldSplit(T *py, const T *px, long long rows, long long n, const Dims &dy, const Dims &dx,
                    cudaStream_t stream) {
    long long per = 0;
    const int C = fewestBlocks(n / kVec16<T>, 32LL * (R + S) * kHoldWarps, &per);
    if (C == 0) return -1;
    if (rows * C >= (1LL << 31)) return 0;
    if (launchEx(softmaxHoldKernel<T, R, S, MINB>, dim3(static_cast<unsigned>(rows * C)), kHoldThreads,
                 32 * S * kHoldWarps * sizeof(Vec<T, kVec16<T>>), stream, C, opsDependent(), py, px,
                 static_cast<int>(n), dy, dx, C, static_cast<int>(per)) != cudaSuccess) {
        cudaGetLastError();  // (not launched: the caller takes another kernel)
        return 0;
    }
    return 1;
}

// Launches softmaxHoldKernel over `rows` lines of n (a multiple of the 16-byte piece): parts of up to 32 KiB
// (<4, 4, 6>), else up to 64 KiB (<8, 8, 4>). False: not launched (lines too long, or the launch refused):
// the caller takes the bulk kernel (which is slower where this launches).
template <typename T>
bool launchHold(T *py, const T *px, long long rows, long long n, const Dims &dy, const Dims &dx, cudaStream_t stream) {
    if (n >= (1LL << 31)) return false;
    int got = launchHoldSplit<T, 4, 4, 6>(py, px, rows, n, dy, dx, stream);
    if (got < 0) got = launchHoldSplit<T, 8, 8, 4>(py, px, rows, n, dy, dx, stream);
    return got > 0;
}

infiniStatus_t makeLines(const char *op, infiniDtype_t dtype, long long rows, long long n, long long sy, long long sx,
                         const Dims &dy, const Dims &dx, long long causal_q, Made *m) {
    bool rows_aligned = rowsAligned(dy, 8) && rowsAligned(dx, 8);
    return INFINI_NV_DISPATCH_FLOAT(dtype, op, {
        constexpr int N = kVec16<T>;
        bool vec = sy == 1 && sx == 1 && n % N == 0 && rows_aligned;
        m->launch = [=](const LaunchArgs &a) {
            if (rows == 0 || n == 0) return INFINI_STATUS_SUCCESS;
            T *py = static_cast<T *>(a.data[0]);
            const T *px = static_cast<const T *>(a.data[1]);
            bool v = vec && ((reinterpret_cast<uintptr_t>(py) | reinterpret_cast<uintptr_t>(px)) & 15) == 0;
            long long nv = n / N;
            // Many lines of 2048+ elements (bf16): the line as stored in registers, 8 pieces a thread, when
            // the lines give at least 2^18 threads (a full wave here); fewer lines keep more threads each.
            // With fewer threads or pieces it measured slower, hence the bounds.
            long long packed_threads = (nv + kClusterVecs - 1) / kClusterVecs;
            if (v && nv >= 256 && nv <= static_cast<long long>(kClusterThreads) * kClusterVecs && rows < (1LL << 31) &&
                rows * packed_threads >= (1LL << 18)) {
                auto kern = causal_q > 0 ? softmaxPackedKernel<T, false, true> : softmaxPackedKernel<T, false, false>;
                launchOp(kern, static_cast<unsigned>(rows), static_cast<unsigned>((packed_threads + 31) / 32 * 32), 0,
                         a.stream, py, px, static_cast<int>(n), dy, dx, causal_q, 1, static_cast<int>(nv));
                return launched(op);
            }
            // A line longer than one block keeps: a cluster of the fewest blocks (2, 4 or 8) with at most 256
            // threads each (8 pieces a thread), else up to 512; for any number of lines (rather than reading
            // each line twice). Measured slower: 4 blocks of 512 threads, 16 of 128, persistent clusters with the
            // next line in shared memory or in a second register buffer, an L2 prefetch of the next wave's lines.
            if (v && nv <= 32 * 8 && rows * nv <= (1LL << 17) && dy.ndim <= 1 && dx.ndim <= 1) {
                // little work in short lines (decode-size): a warp a line (4 a block) up to 32 pieces; longer
                // lines four warps each, so that each lane's exps and sums stay short. Up to 2^17 pieces in all
                // (faster than the cluster kernels up to there; 2^18 the same).
                int ni = static_cast<int>(n), ri = static_cast<int>(rows), qi = static_cast<int>(causal_q);
                long long ry = dy.ndim ? dy.strides[0] : 0, rx = dx.ndim ? dx.strides[0] : 0;
                unsigned lines = static_cast<unsigned>(rows);
                if (nv <= 32)
                    launchOp(softmaxWarpKernel<T, 1, 1>, (lines + 3) / 4, 128, 0, a.stream, py, px, ni, ri, ry, rx, qi);
                else if (nv <= 128)
                    launchOp(softmaxWarpKernel<T, 1, 4>, lines, 128, 0, a.stream, py, px, ni, ri, ry, rx, qi);
                else
                    launchOp(softmaxWarpKernel<T, 2, 4>, lines, 128, 0, a.stream, py, px, ni, ri, ry, rx, qi);
                return launched(op);
            }
            int C = 0, threads = 0;
            long long per = 0;
            if (v && nv > static_cast<long long>(kMaxVecs) * 1024 && n < (1LL << 31) && clustersAvailable()) {
                for (int c : {2, 4, 8}) {
                    long long pc = (nv + c - 1) / c;
                    if (pc <= 256LL * kClusterVecs ||
                        (c == 8 && pc <= static_cast<long long>(kClusterThreads) * kClusterVecs)) {
                        C = c;
                        per = pc;
                        threads = static_cast<int>(((pc + kClusterVecs - 1) / kClusterVecs + 31) / 32 * 32);
                        break;
                    }
                }
                if (rows * C >= (1LL << 31)) C = 0;
            }
            // Many such lines (blocks of the register kernel's cluster at least 4 an SM), not causal: a line a
            // cluster, each block's part half in registers, half in shared memory (launchHold; faster than the
            // bulk kernel below)
            if (C > 0 && causal_q == 0 && rows * C >= 4LL * smCount() &&
                launchHold(py, px, rows, n, dy, dx, a.stream)) {
                return launched(op);
            }
            // Many such causal lines (or lines launchHold does not take): clusters of the
            // fewest blocks (2, 4 or 8) whose parts fit kBulkPartBytes of shared memory, each part brought in
            // by one bulk copy (faster than the register kernel with many lines, slower with few, hence the
            // bound; 32 KiB parts in clusters of 8 measured slower).
            static SmemAllowance bulk_smem[2];  // [causal]: each kernel may take up to kBulkPartBytes
            const bool causal = causal_q > 0;
            auto bulk_kern = causal ? softmaxBulkKernel<T, true> : softmaxBulkKernel<T, false>;
            long long pc = 0;
            const int c = fewestBlocks(nv, kBulkPartBytes / 16, &pc);
            if (C > 0 && c > 0 && rows * C >= 4LL * smCount() && bulk_smem[causal].ensure(bulk_kern, kBulkPartBytes)) {
                launchEx(bulk_kern, dim3(static_cast<unsigned>(rows * c)), kBulkThreads, static_cast<size_t>(pc * 16),
                         a.stream, c, opsDependent(), py, px, static_cast<int>(n), dy, dx, causal_q, c,
                         static_cast<int>(pc));
                return launched(op);
            }
            if (C > 0) {
                auto kern = causal_q > 0 ? softmaxPackedKernel<T, true, true> : softmaxPackedKernel<T, true, false>;
                launchEx(kern, dim3(static_cast<unsigned>(rows * C)), threads, 0, a.stream, C, opsDependent(), py, px,
                         static_cast<int>(n), dy, dx, causal_q, C, static_cast<int>(per));
            } else {
                // a block a line; lines collapsed to one dimension get their row strides, not two Dims
                auto run = [&](auto plain) {
                    constexpr bool P = decltype(plain)::value;
                    RowsArg ry{dy}, rx{dx};
                    unsigned grid = static_cast<unsigned>(rows);
                    if (v) {
                        int threads = rowThreads(nv, rows);
                        int cached_threads = std::min(threads, maxThreads(softmaxKernel<T, N, true, P>));
                        if (nv <= static_cast<long long>(kMaxVecs) * cached_threads) {
                            launchOp(softmaxKernel<T, N, true, P>, grid, cached_threads, 0, a.stream, py, px, n, 1, 1,
                                     ry, rx, causal_q);
                        } else {
                            launchOp(softmaxKernel<T, N, false, P>, grid,
                                     std::min(threads, maxThreads(softmaxKernel<T, N, false, P>)), 0, a.stream, py, px,
                                     n, 1, 1, ry, rx, causal_q);
                        }
                    } else {
                        launchOp(softmaxKernel<T, 1, false, P>, grid,
                                 std::min(rowThreads(n, rows), maxThreads(softmaxKernel<T, 1, false, P>)), 0, a.stream,
                                 py, px, n, sy, sx, ry, rx, causal_q);
                    }
                };
                if (dy.ndim <= 1 && dx.ndim <= 1)
                    run(std::true_type{});
                else
                    run(std::false_type{});
            }
            return launched(op);
        };
    });
}

}  // namespace

infiniStatus_t makeSoftmax(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "softmax";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    int64_t dim;
    INFINI_RETURN_IF_ERROR(checks::softmaxDim(y, x, p.i[0], &dim));
    Layout ym = y.movedLast(static_cast<size_t>(dim)),
           xm = x.movedLast(static_cast<size_t>(dim));  // lines along dim as rows
    Dims dy{}, dx{};
    if (xm.ndim() > 0 && (!dimsOf(ym, &dy, 1) || !dimsOf(xm, &dx, 1))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    }
    collapse(&dy);
    collapse(&dx);
    long long n = static_cast<long long>(xm.last());
    long long sy = ym.ndim() ? ym.strides.back() : 1, sx = xm.ndim() ? xm.strides.back() : 1;
    if (n <= 1) sy = sx = 1;
    return makeLines(op, x.dtype, static_cast<long long>(xm.rows()), n, sy, sx, dy, dx, 0, m);
}

infiniStatus_t makeCausalSoftmax(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "causal_softmax";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    INFINI_RETURN_IF_ERROR(checks::causalSoftmax(y, x));
    size_t q = x.shape[x.ndim() - 2], kv = x.last();
    Dims dy{}, dx{};
    if (!dimsOf(y, &dy, 1) || !dimsOf(x, &dx, 1))
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    collapse(&dy);
    collapse(&dx);
    long long n = static_cast<long long>(kv);
    long long sy = n > 1 ? y.strides.back() : 1, sx = n > 1 ? x.strides.back() : 1;
    return makeLines(op, x.dtype, static_cast<long long>(x.rows()), n, sy, sx, dy, dx, static_cast<long long>(q), m);
}

}  // namespace infini::nvidia::ops
