// norm.cu: rms_norm, add_rms_norm and layer_norm over the last dimension: one block per row, the row
// held in registers (16-byte vectors) between the reduction and the write when it fits.
#include <algorithm>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

enum class Norm { kRms, kAddRms, kLayer };

// N elements of W from p (aligned to 16 bytes) as stored, in 16-byte pieces.
template <typename W, int N>
__device__ __forceinline__ void loadRaw(const W *p, Vec<W, N> &out) {
    static_assert(sizeof(W) * N % 16 == 0, "whole 16-byte pieces");
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(&out);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(W) * N / 16); ++i) dst[i] = src[i];
}

// One row per block. N elements per vector (N = 1: any alignment). Rows addressed through Dims.
// kAddRms: r = a + b is written to `res` and normalized; kLayer: mean and variance, plus bias.
template <Norm K, typename T, typename W, int N, bool CACHED>
__global__ void normKernel(T *y, T *res, const T *a, const T *b, const W *w, const W *bias, long long n, float eps,
                           Dims dy, Dims dres, Dims da, Dims db) {
    __shared__ float smem[32];
    long long row = blockIdx.x;
    T *yr = y + offsetOf(dy, row);
    const T *ar = a + offsetOf(da, row);
    const T *br = K == Norm::kAddRms ? b + offsetOf(db, row) : nullptr;
    T *rr = K == Norm::kAddRms ? res + offsetOf(dres, row) : nullptr;
    long long nv = n / N;
    constexpr bool cached = CACHED;  // the host checked that the row fits: nv <= kMaxVecs * threads
    if constexpr (K == Norm::kRms && N > 1 && CACHED) {
        // rms_norm: the row and the weights in registers as stored (16-byte pieces), every load issued
        // before the reduction: one memory round trip per row (add_rms_norm measured slower this way:
        // three rows of registers)
        Vec<T, N> xr[kMaxVecs];
        Vec<W, N> wr[kMaxVecs];
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                xr[i] = *reinterpret_cast<const Vec<T, N> *>(ar + v * N);
                loadRaw<W, N>(w + v * N, wr[i]);
            }
        }
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
#pragma unroll
                for (int e = 0; e < N; ++e) {
                    float t = toF(xr[i].v[e]);
                    sum += t * t;
                }
            }
        }
        sum = blockSum(sum, smem);
        float scale = rsqrtf(sum / static_cast<float>(n) + eps);
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                float o[N];
#pragma unroll
                for (int e = 0; e < N; ++e) o[e] = toF(xr[i].v[e]) * scale * toF(wr[i].v[e]);
                storeF<T, N>(yr + v * N, o);
            }
        }
    } else {
        float xs[kMaxVecs][N];
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
        visitRow<N>(nv, cached, true, xs, load, [&](long long, const float (&t)[N]) {
#pragma unroll
            for (int e = 0; e < N; ++e) sum += K == Norm::kLayer ? t[e] : t[e] * t[e];
        });
        sum = blockSum(sum, smem);
        float mean = 0.0f, scale;
        if constexpr (K == Norm::kLayer) {
            mean = sum / static_cast<float>(n);
            float ss = 0.0f;  // second pass over the held (or re-read) row: exact variance
            visitRow<N>(nv, cached, false, xs, load, [&](long long, const float (&t)[N]) {
#pragma unroll
                for (int e = 0; e < N; ++e) ss += (t[e] - mean) * (t[e] - mean);
            });
            ss = blockSum(ss, smem);
            scale = rsqrtf(ss / static_cast<float>(n) + eps);
        } else {
            scale = rsqrtf(sum / static_cast<float>(n) + eps);
        }
        visitRow<N>(nv, cached, false, xs, load, [&](long long v, const float (&t)[N]) {
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


template <Norm K>
infiniStatus_t makeNorm(const char *op, const Layout &y, const Layout &res, const Layout &a, const Layout &b,
                        const Layout &w, bool has_bias, float eps, Made *m) {
    Dims dy{}, dres{}, da{}, db{};
    if (!dimsOf(y, &dy, 1) || !dimsOf(a, &da, 1) || (K == Norm::kAddRms && (!dimsOf(res, &dres, 1) || !dimsOf(b, &db, 1)))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    }
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
                int threads = rowThreads(nv, rows);
                auto run = [&](auto kern) {
                    kern<<<grid, std::min(threads, maxThreads(kern)), 0, x.stream>>>(
                        py, pres, pa, pb, static_cast<const Wt *>(pw), static_cast<const Wt *>(pbias), n, eps, dy, dres, da, db);
                };
                if (nv <= static_cast<long long>(kMaxVecs) * std::min(threads, maxThreads(normKernel<K, T, Wt, NN, true>))) {
                    run(normKernel<K, T, Wt, NN, true>);
                } else {
                    run(normKernel<K, T, Wt, NN, false>);
                }
            };
            if (w32) {
                if (v) go(float{}, std::integral_constant<int, N>{}); else go(float{}, std::integral_constant<int, 1>{});
            } else {
                if (v) go(T{}, std::integral_constant<int, N>{}); else go(T{}, std::integral_constant<int, 1>{});
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
