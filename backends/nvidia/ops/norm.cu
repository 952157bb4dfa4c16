// norm.cu: rms_norm, add_rms_norm and layer_norm over the last dimension: one block per row, the row
// held in registers (16-byte vectors) between the reduction and the write when it fits.
#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

constexpr int kMaxVecs = 4;  // vectors per thread kept in registers

enum class Norm { kRms, kAddRms, kLayer };

// One row per block. N elements per vector (N = 1: any alignment). Rows addressed through Dims.
// kAddRms: r = a + b is written to `res` and normalized; kLayer: mean and variance, plus bias.
template <Norm K, typename T, typename W, int N>
__global__ void normKernel(T *y, T *res, const T *a, const T *b, const W *w, const W *bias, long long n, float eps,
                           Dims dy, Dims dres, Dims da, Dims db) {
    __shared__ float smem[32];
    long long row = blockIdx.x;
    T *yr = y + offsetOf(dy, row);
    const T *ar = a + offsetOf(da, row);
    const T *br = K == Norm::kAddRms ? b + offsetOf(db, row) : nullptr;
    T *rr = K == Norm::kAddRms ? res + offsetOf(dres, row) : nullptr;
    long long nv = n / N;
    bool cached = nv <= static_cast<long long>(kMaxVecs) * blockDim.x;
    float xs[kMaxVecs][N];
    auto load = [&](long long v, float (&out)[N]) {
        long long j = v * N;
        if constexpr (N > 1) {
            loadF<T, N>(ar + j, out);
        } else {
            out[0] = toF(ar[j]);
        }
        if constexpr (K == Norm::kAddRms) {
            float o[N];
            if constexpr (N > 1) {
                loadF<T, N>(br + j, o);
            } else {
                o[0] = toF(br[j]);
            }
#pragma unroll
            for (int e = 0; e < N; ++e) out[e] = toF(fromF<T>(out[e] + o[e]));  // the residual as stored
        }
    };
    float sum = 0.0f;
    if (cached) {
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                load(v, xs[i]);
#pragma unroll
                for (int e = 0; e < N; ++e) sum += K == Norm::kLayer ? xs[i][e] : xs[i][e] * xs[i][e];
            }
        }
    } else {
        for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
            float t[N];
            load(v, t);
#pragma unroll
            for (int e = 0; e < N; ++e) sum += K == Norm::kLayer ? t[e] : t[e] * t[e];
        }
    }
    sum = blockSum(sum, smem);
    float mean = 0.0f, scale;
    if constexpr (K == Norm::kLayer) {
        mean = sum / static_cast<float>(n);
        float ss = 0.0f;  // second pass over the held (or re-read) row: exact variance
        if (cached) {
#pragma unroll
            for (int i = 0; i < kMaxVecs; ++i) {
                long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
                if (v < nv) {
#pragma unroll
                    for (int e = 0; e < N; ++e) ss += (xs[i][e] - mean) * (xs[i][e] - mean);
                }
            }
        } else {
            for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
                float t[N];
                load(v, t);
#pragma unroll
                for (int e = 0; e < N; ++e) ss += (t[e] - mean) * (t[e] - mean);
            }
        }
        ss = blockSum(ss, smem);
        scale = rsqrtf(ss / static_cast<float>(n) + eps);
    } else {
        scale = rsqrtf(sum / static_cast<float>(n) + eps);
    }
    auto write = [&](long long v, const float (&t)[N]) {
        long long j = v * N;
        float wv[N], bv[N], o[N];
        if constexpr (N > 1) {
            loadWideF<W, N>(w + j, wv);
        } else {
            wv[0] = toF(w[j]);
        }
        if constexpr (K == Norm::kLayer) {
#pragma unroll
            for (int e = 0; e < N; ++e) bv[e] = bias != nullptr ? toF(bias[j + e]) : 0.0f;
        }
#pragma unroll
        for (int e = 0; e < N; ++e) {
            o[e] = K == Norm::kLayer ? (t[e] - mean) * scale * wv[e] + bv[e] : t[e] * scale * wv[e];
        }
        if constexpr (N > 1) {
            storeF<T, N>(yr + j, o);
        } else {
            yr[j] = fromF<T>(o[0]);
        }
        if constexpr (K == Norm::kAddRms) {
            if constexpr (N > 1) {
                storeF<T, N>(rr + j, t);
            } else {
                rr[j] = fromF<T>(t[0]);
            }
        }
    };
    if (cached) {
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) write(v, xs[i]);
        }
    } else {
        for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
            float t[N];
            load(v, t);
            write(v, t);
        }
    }
}

// Threads per row: enough for kMaxVecs vectors each (or one each when there are few rows, so that
// more loads are in flight), a multiple of 32 in [32, 1024].
int threadsFor(long long nv, long long rows) {
    long long per = rows < 264 ? 1 : kMaxVecs;
    long long t = (nv + per - 1) / per;
    t = (t + 31) / 32 * 32;
    return static_cast<int>(t < 32 ? 32 : (t > 1024 ? 1024 : t));
}

bool rowsAligned(const Dims &d, int n_vec) {
    for (int k = 0; k < d.ndim; ++k) {
        if (d.shape[k] > 1 && d.strides[k] % n_vec != 0) return false;
    }
    return true;
}

infiniStatus_t checkWeight(const char *op, const char *name, const Layout &w, const Layout &x) {
    return checks::normWeight(op, name, w, x);
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
                int threads = threadsFor(n / NN, rows);
                normKernel<K, T, Wt, NN><<<grid, threads, 0, x.stream>>>(
                    py, pres, pa, pb, static_cast<const Wt *>(pw), static_cast<const Wt *>(pbias), n, eps, dy, dres, da, db);
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
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    INFINI_RETURN_IF_ERROR(checkWeight(op, "weight", w, x));
    return makeNorm<Norm::kRms>(op, y, Layout{}, x, Layout{}, w, false, static_cast<float>(p.f[0]), m);
}

infiniStatus_t makeAddRMSNorm(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "add_rms_norm";
    Layout y = layoutOf(p.tensors[0]), res = layoutOf(p.tensors[1]), a = layoutOf(p.tensors[2]),
           b = layoutOf(p.tensors[3]), w = layoutOf(p.tensors[4]);
    for (auto [name, t] : {std::pair<const char *, const Layout *>{"y", &y}, {"residual", &res}, {"b", &b}}) {
        INFINI_RETURN_IF_ERROR(expectSameShape(op, name, *t, a, "a"));
        INFINI_RETURN_IF_ERROR(expectSameDtype(op, name, *t, a, "a"));
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "a", a));
    INFINI_RETURN_IF_ERROR(checkWeight(op, "weight", w, a));
    return makeNorm<Norm::kAddRms>(op, y, res, a, b, w, false, static_cast<float>(p.f[0]), m);
}

infiniStatus_t makeLayerNorm(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "layer_norm";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    bool has_bias = p.tensors[3] != nullptr;
    Layout bias = layoutOf(p.tensors[3]);
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    INFINI_RETURN_IF_ERROR(checkWeight(op, "weight", w, x));
    if (has_bias) {
        INFINI_RETURN_IF_ERROR(checkWeight(op, "bias", bias, x));
        if (bias.dtype != w.dtype) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: bias and weight dtypes differ", op);
    }
    return makeNorm<Norm::kLayer>(op, y, Layout{}, x, Layout{}, w, has_bias, static_cast<float>(p.f[0]), m);
}

}  // namespace infini::nvidia::ops
