// norm.cu: rms_norm, add_rms_norm and layer_norm over the last dimension: one block per row, the row
// held in registers (16-byte vectors) between the reduction and the write when it fits.
#include <algorithm>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

enum class Norm { kRms, kAddRms, kLayer };

// N elements of W from p (aligned to 16 bytes) as stored, in 16-byte pieces. Plain loads (cached in L1:
// the weights of rows that share an SM hit there); where their values are used only after a reduction,
// loadsEndHere keeps ptxas from issuing them after it. (Not relaxed gpu-scope loads, loadNow: those go to the
// L2 on every row.)
template <typename W, int N>
__device__ __forceinline__ void loadRaw(const W *p, Vec<W, N> &out) {
    static_assert(sizeof(W) * N % 16 == 0, "whole 16-byte pieces");
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(&out);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(W) * N / 16); ++i) dst[i] = src[i];
}

// Blocks of plain rows that hold 1 or 2 vectors a thread have at most 256 threads and fit 8 to an SM
// (32 registers): a thousand rows of 4096 run in one wave, as Triton's kernel does.
constexpr int kSmallRowThreads(int per, bool cached, bool plain) { return cached && plain && per <= 2 ? 256 : 1024; }

// One row per block. N elements per vector (N = 1: any alignment). Rows addressed through Dims.
// kAddRms: r = a + b is written to `res` and normalized; kLayer: mean and variance, plus bias.
// CACHED: the row fits in the block's registers, PER vectors a thread (registers scale with PER, so
// short rows keep many blocks on an SM); else the row is re-read each pass, PER loads in flight.
// FEW: few rows (fewer blocks than SMs can hold): the rms kernels load the weights with the row
// (latency counts, registers do not), without the 8-blocks register cap. MANY: rows for several waves
// (rms_norm, 2 pieces a thread): the weights with the row too, at 6 blocks an SM (40 registers; at 8 they
// spill), faster than 8 blocks with the weights after the reduction where the rows take several waves (not
// where 8 blocks an SM take them in one wave and 6 would need two).
constexpr int kNormMinBlocks(int threads, bool few, bool many) { return many ? 6 : threads == 256 && !few ? 8 : 1; }
template <Norm K, typename T, typename W, int N, int PER, bool CACHED, bool PLAIN = false, bool FEW = false,
          bool MANY = false>
__global__ void __launch_bounds__(kSmallRowThreads(PER, CACHED, PLAIN),
                                  kNormMinBlocks(kSmallRowThreads(PER, CACHED, PLAIN), FEW, MANY))
    normKernel(T *y, T *res, const T *a, const T *b, const W *w, const W *bias, long long n, float eps,
               RowsOf<PLAIN> dy, RowsOf<PLAIN> dres, RowsOf<PLAIN> da, RowsOf<PLAIN> db,
               float inv_n) {  // inv_n = 1 / n
    opEntry();
    __shared__ float smem[32];
    long long row = blockIdx.x;
    T *yr = y + rowOffset(dy, row);
    const T *ar = a + rowOffset(da, row);
    const T *br = K == Norm::kAddRms ? b + rowOffset(db, row) : nullptr;
    T *rr = K == Norm::kAddRms ? res + rowOffset(dres, row) : nullptr;
    long long nv = n / N;
    if constexpr (K != Norm::kLayer && N > 1 && CACHED && (K == Norm::kRms || PER <= 2)) {
        // rms norms: the row(s) and the weights in registers as stored (16-byte pieces), every load
        // issued before the reduction: one memory round trip per row. (add_rms_norm with 4 pieces a
        // thread, three rows of registers, measured slower than the generic path below.)
        constexpr int NB = K == Norm::kAddRms ? PER : 1;
        using VT = Vec<T, N>;
        using VW = Vec<W, N>;
        const int nvi = static_cast<int>(nv), tid = threadIdx.x, step = blockDim.x;  // the host keeps nv < 2^31
        const VT *xa = reinterpret_cast<const VT *>(ar) + tid;
        const VT *xb = reinterpret_cast<const VT *>(br) + tid;
        const W *wt = w + static_cast<long long>(tid) * N;
        // the weights (in the SM's L1 after its first rows) are loaded before the reduction only by the
        // big blocks, the few rows' and the many rows'; the small ones keep their registers for more blocks
        constexpr bool kWEarly = PER > 2 || FEW || MANY;
        // the outputs of many rows kept in the L2 (common.cuh's storeVec); few rows' plain (evict_last measured
        // slower there)
        constexpr bool kKeep = !FEW;
        VT xr[PER], br2[NB];
        VW wr[PER];
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (tid + i * step < nvi) {
                xr[i] = xa[i * step];
                if constexpr (K == Norm::kAddRms) br2[i] = xb[i * step];
                if constexpr (kWEarly) loadRaw<W, N>(wt + i * step * N, wr[i]);
            }
        }
        if constexpr (kWEarly) loadsEndHere(n < 0);
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (tid + i * step < nvi) {
                if constexpr (K == Norm::kAddRms) {  // the residual as stored, written before the reduction
#pragma unroll
                    for (int e = 0; e < N; ++e) xr[i].v[e] = fromF<T>(toF(xr[i].v[e]) + toF(br2[i].v[e]));
                    storeVec<kKeep>(reinterpret_cast<VT *>(rr) + (tid + i * step), xr[i]);
                }
                float t[N];
                unpackF(xr[i], t);  // (bf16: bit operations, which the compiler does not keep alive
#pragma unroll                      //  until the output as it does the conversions)
                for (int e = 0; e < N; ++e) sum += t[e] * t[e];
            }
        }
        sum = blockSum(sum, smem);
        // the mean by the host's 1/n: no division on the path to the output
        float scale = rsqrtf(sum * inv_n + eps);
        if constexpr (!kWEarly) {
#pragma unroll
            for (int i = 0; i < PER; ++i) {
                if (tid + i * step < nvi) loadRaw<W, N>(wt + i * step * N, wr[i]);
            }
        }
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (tid + i * step < nvi) {
                float o[N];
#pragma unroll
                for (int e = 0; e < N; ++e) o[e] = toF(xr[i].v[e]) * scale * toF(wr[i].v[e]);
                storeF<T, N, kKeep>(yr + (tid + i * step) * N, o);
            }
        }
    } else if constexpr (K == Norm::kLayer && N > 1 && CACHED) {
        // layer_norm: the row, the weights and the bias in registers as stored (16-byte pieces); with few
        // rows (FEW: latency counts, registers do not) the weights and bias are loaded with the row, before
        // the reductions, where the generic path below makes a second memory round trip for them after;
        // mean, then the exact variance from the held values.
        using VT = Vec<T, N>;
        using VW = Vec<W, N>;
        const int nvi = static_cast<int>(nv), tid = threadIdx.x, step = blockDim.x;
        const VT *xa = reinterpret_cast<const VT *>(ar) + tid;
        const W *wt = w + static_cast<long long>(tid) * N;
        const W *bt = bias != nullptr ? bias + static_cast<long long>(tid) * N : nullptr;
        // with the row also where a thread holds 4 pieces (up to 1024 threads, 64 registers) and the
        // weights are as wide as the row, except bfloat16 (its unpacking needs more: spills)
        constexpr bool kWEarly = FEW || (PER > 2 && sizeof(W) == sizeof(T) && !std::is_same_v<T, __nv_bfloat16>);
        VT xr[PER];
        VW wr[PER], bw[PER];
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (tid + i * step < nvi) {
                xr[i] = xa[i * step];
                if constexpr (kWEarly) {
                    loadRaw<W, N>(wt + i * step * N, wr[i]);
                    if (bt != nullptr) loadRaw<W, N>(bt + i * step * N, bw[i]);
                }
            }
        }
        if constexpr (kWEarly) loadsEndHere(n < 0);
        auto heldSum = [&](auto f) {  // the sum of f(x) over the thread's held elements
            float acc = 0.0f;
#pragma unroll
            for (int i = 0; i < PER; ++i) {
                if (tid + i * step < nvi) {
                    float t[N];
                    unpackF(xr[i], t);
#pragma unroll
                    for (int e = 0; e < N; ++e) acc += f(t[e]);
                }
            }
            return acc;
        };
        const float mean = blockSum(heldSum([](float t) { return t; }), smem) * inv_n;
        const float scale =
            rsqrtf(blockSum(heldSum([mean](float t) { return (t - mean) * (t - mean); }), smem) * inv_n + eps);
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (tid + i * step < nvi) {
                if constexpr (!kWEarly) {  // (a piece at a time: 8 blocks an SM leave 32 registers a thread)
                    loadRaw<W, N>(wt + i * step * N, wr[i]);
                    if (bt != nullptr) loadRaw<W, N>(bt + i * step * N, bw[i]);
                }
                float t[N], o[N];
                unpackF(xr[i], t);
#pragma unroll
                for (int e = 0; e < N; ++e) {
                    o[e] = (t[e] - mean) * scale * toF(wr[i].v[e]) + (bt != nullptr ? toF(bw[i].v[e]) : 0.0f);
                }
                storeF<T, N>(yr + (tid + i * step) * N, o);
            }
        }
    } else {
        float xs[PER][N];
        auto load = [&](long long v, float (&out)[N]) {
            loadF<T, N>(ar + v * N, out);
            if constexpr (K == Norm::kAddRms) {
                float o[N];
                loadF<T, N>(br + v * N, o);
#pragma unroll
                for (int e = 0; e < N; ++e) out[e] = toF(fromF<T>(out[e] + o[e]));  // the residual as stored
            }
        };
        float sum = 0.0f;
        visitRow<N>(nv, CACHED, true, xs, load, [&](long long, const float (&t)[N]) {
#pragma unroll
            for (int e = 0; e < N; ++e) sum += K == Norm::kLayer ? t[e] : t[e] * t[e];
        });
        sum = blockSum(sum, smem);
        float mean = 0.0f, scale;
        if constexpr (K == Norm::kLayer) {
            mean = sum / static_cast<float>(n);
            float ss = 0.0f;  // second pass over the held (or re-read) row: exact variance
            visitRow<N>(nv, CACHED, false, xs, load, [&](long long, const float (&t)[N]) {
#pragma unroll
                for (int e = 0; e < N; ++e) ss += (t[e] - mean) * (t[e] - mean);
            });
            ss = blockSum(ss, smem);
            scale = rsqrtf(ss / static_cast<float>(n) + eps);
        } else {
            scale = rsqrtf(sum / static_cast<float>(n) + eps);
        }
        visitRow<N>(nv, CACHED, false, xs, load, [&](long long v, const float (&t)[N]) {
            long long j = v * N;
            float wv[N], bv[N], o[N];
            loadWideF<W, N>(w + j, wv);
            if constexpr (K == Norm::kLayer) {
#pragma unroll
                for (int e = 0; e < N; ++e) bv[e] = bias != nullptr ? toF(bias[j + e]) : 0.0f;
            }
#pragma unroll
            for (int e = 0; e < N; ++e) {
                o[e] = K == Norm::kLayer ? (t[e] - mean) * scale * wv[e] + bv[e] : t[e] * scale * wv[e];
            }
            storeF<T, N>(yr + j, o);
            if constexpr (K == Norm::kAddRms) storeF<T, N>(rr + j, t);
        });
    }
}

// Vectors a thread holds for a row of nv 16-byte vectors: the fewest of 1, 2, 4 that keep the block
// at or under `target` threads (0 when even 4 do not fit in 1024 threads: the re-reading kernel).
inline int normPer(long long nv, long long target) {
    for (int per : {1, 2, 4}) {
        if ((nv + per - 1) / per <= target) return per;
    }
    return nv <= 4 * 1024 ? 4 : 0;
}

// Threads a norm block aims at: 256, as Triton's 8 warps (8 such blocks fit an SM).
constexpr long long kNormThreads = 256;

template <Norm K>
infiniStatus_t makeNorm(const char *op, const Layout &y, const Layout &res, const Layout &a, const Layout &b,
                        const Layout &w, bool has_bias, float eps, Made *m) {
    Dims dy{}, dres{}, da{}, db{};
    if (!dimsOf(y, &dy, 1) || !dimsOf(a, &da, 1) ||
        (K == Norm::kAddRms && (!dimsOf(res, &dres, 1) || !dimsOf(b, &db, 1)))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    }
    for (Dims *d : {&dy, &dres, &da, &db}) collapse(d);
    bool plain = dy.ndim <= 1 && da.ndim <= 1 && (K != Norm::kAddRms || (dres.ndim <= 1 && db.ndim <= 1));
    long long rows = static_cast<long long>(a.rows()), n = static_cast<long long>(a.last());
    bool w32 = w.dtype == INFINI_DTYPE_F32;
    return INFINI_NV_DISPATCH_FLOAT(a.dtype, op, {
        constexpr int N = kVec16<T>;
        bool vec = n % N == 0 && rowsAligned(dy, N) && rowsAligned(da, N) &&
                   (K != Norm::kAddRms || (rowsAligned(dres, N) && rowsAligned(db, N)));
        m->launch = [=](const LaunchArgs &x) {
            if (rows == 0 || n == 0) return INFINI_STATUS_SUCCESS;
            auto *py = static_cast<T *>(x.data[0]);
            int base = K == Norm::kAddRms ? 2 : 1;
            T *pres = K == Norm::kAddRms ? static_cast<T *>(x.data[1]) : nullptr;
            const T *pa = static_cast<const T *>(x.data[base]);
            const T *pb = K == Norm::kAddRms ? static_cast<const T *>(x.data[3]) : nullptr;
            const void *pw = x.data[K == Norm::kAddRms ? 4 : 2];
            const void *pbias = K == Norm::kLayer && has_bias ? x.data[3] : nullptr;
            bool v = vec;
            for (const void *q : {static_cast<const void *>(py), static_cast<const void *>(pa), pw,
                                  static_cast<const void *>(pres), static_cast<const void *>(pb), pbias}) {
                v = v && (reinterpret_cast<uintptr_t>(q) & 15) == 0;
            }
            unsigned grid = static_cast<unsigned>(rows);
            auto go = [&](auto wtag, auto ntag) {
                using Wt = decltype(wtag);
                constexpr int NN = decltype(ntag)::value;
                long long nv = n / NN;
                auto run = [&](auto kern, long long want) {
                    int threads = static_cast<int>(std::min<long long>(1024, (want + 31) / 32 * 32));
                    threads = std::min(threads, maxThreads(kern));
                    launchOp(kern, grid, threads, 0, x.stream, py, pres, pa, pb, static_cast<const Wt *>(pw),
                             static_cast<const Wt *>(pbias), n, eps, RowsArg{dy}, RowsArg{dres}, RowsArg{da},
                             RowsArg{db}, 1.0f / static_cast<float>(n));
                };
                if constexpr (NN > 1) {
                    // a cached kernel must cover the row: its register limit may allow fewer threads
                    auto cached = [&](auto kern, int per) {
                        long long want = (nv + per - 1) / per;
                        if (want > maxThreads(kern)) return false;
                        run(kern, want);
                        return true;
                    };
                    int per = normPer(nv, kNormThreads);
                    bool few = rows <= smCount();  // at most one block per SM
                    if (plain && few && per == 1 && cached(normKernel<K, T, Wt, NN, 1, true, true, true>, 1)) return;
                    if (plain && few && per == 2 && cached(normKernel<K, T, Wt, NN, 2, true, true, true>, 2)) return;
                    if (plain && per == 1 && cached(normKernel<K, T, Wt, NN, 1, true, true>, 1)) return;
                    if constexpr (K == Norm::kRms) {  // (add_rms_norm's three rows of registers spill in this form)
                        bool many = rows >= 3LL * 8 * smCount();  // several waves at 8 blocks an SM
                        if (plain && many && per == 2 &&
                            cached(normKernel<K, T, Wt, NN, 2, true, true, false, true>, 2))
                            return;
                    }
                    if (plain && per == 2 && cached(normKernel<K, T, Wt, NN, 2, true, true>, 2)) return;
                    if (per != 0 && cached(normKernel<K, T, Wt, NN, 4, true>, 4)) return;
                    run(normKernel<K, T, Wt, NN, kMaxVecs, false>, rowThreads(nv, rows));
                } else {
                    int threads = rowThreads(nv, rows);
                    if (nv <= static_cast<long long>(kMaxVecs) *
                                  std::min(threads, maxThreads(normKernel<K, T, Wt, NN, kMaxVecs, true>))) {
                        run(normKernel<K, T, Wt, NN, kMaxVecs, true>, threads);
                    } else {
                        run(normKernel<K, T, Wt, NN, kMaxVecs, false>, threads);
                    }
                }
            };
            if (w32) {
                if (v)
                    go(float{}, std::integral_constant<int, N>{});
                else
                    go(float{}, std::integral_constant<int, 1>{});
            } else {
                if (v)
                    go(T{}, std::integral_constant<int, N>{});
                else
                    go(T{}, std::integral_constant<int, 1>{});
            }
            return launched(op);
        };
    });
}

}  // namespace

infiniStatus_t makeRMSNorm(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "rms_norm";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    INFINI_RETURN_IF_ERROR(checks::rmsNorm(y, x, w));
    return makeNorm<Norm::kRms>(op, y, Layout{}, x, Layout{}, w, false, static_cast<float>(p.f[0]), m);
}

infiniStatus_t makeAddRMSNorm(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "add_rms_norm";
    Layout y = layoutOf(p.tensors[0]), res = layoutOf(p.tensors[1]), a = layoutOf(p.tensors[2]),
           b = layoutOf(p.tensors[3]), w = layoutOf(p.tensors[4]);
    INFINI_RETURN_IF_ERROR(checks::addRmsNorm(y, res, a, b, w));
    return makeNorm<Norm::kAddRms>(op, y, res, a, b, w, false, static_cast<float>(p.f[0]), m);
}

infiniStatus_t makeLayerNorm(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "layer_norm";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    bool has_bias = p.tensors[3] != nullptr;
    Layout bias = layoutOf(p.tensors[3]);
    INFINI_RETURN_IF_ERROR(checks::layerNorm(y, x, w, bias, has_bias));
    return makeNorm<Norm::kLayer>(op, y, Layout{}, x, Layout{}, w, has_bias, static_cast<float>(p.f[0]), m);
}

}  // namespace infini::nvidia::ops
