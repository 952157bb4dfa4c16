// softmax.cu: softmax along any dim (a line per block, walked with its stride) and causal_softmax over
// the last dim. Lines with stride 1 use 16-byte loads; short ones stay in registers between the
// reductions and the write, long ones are read twice (max and sum in one online pass, then written).
#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

constexpr int kMaxVecs = 4;

__device__ __forceinline__ void onlineAdd(float &m, float &s, float x) {
    if (x > m) {
        s = s * __expf(m - x) + 1.0f;
        m = x;
    } else if (x != -INFINITY) {
        s += __expf(x - m);
    }
}

// (m, s) of the block: max and sum of exp(x - max).
__device__ __forceinline__ void blockMaxSum(float &m, float &s, float *smem) {
    float bm = blockMax(m, smem);
    float part = m == -INFINITY ? 0.0f : s * __expf(m - bm);
    s = blockSum(part, smem);
    m = bm;
}

// One line per block: line `row` of x starts at offsetOf(dx, row), its n elements `sx` apart (sx == 1
// when N > 1). causal: row r of a [.., q, kv] tensor keeps j <= (r % q) + kv - q, the rest is 0.
template <typename T, int N>
__global__ void softmaxKernel(T *y, const T *x, long long n, long long sy, long long sx, Dims dy, Dims dx,
                              long long causal_q) {
    __shared__ float smem[32];
    long long row = blockIdx.x;
    const T *xr = x + offsetOf(dx, row);
    T *yr = y + offsetOf(dy, row);
    long long limit = n;  // elements [0, limit) are live
    if (causal_q > 0) limit = (row % causal_q) + n - causal_q + 1;
    long long nv = (n + N - 1) / N;
    bool cached = N > 1 && nv <= static_cast<long long>(kMaxVecs) * blockDim.x;
    float xs[kMaxVecs][N];
    float m = -INFINITY, s = 0.0f;
    auto load = [&](long long v, float (&out)[N]) {
        long long j = v * N;
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
    if (cached) {
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
            if (v < nv) {
                load(v, xs[i]);
#pragma unroll
                for (int e = 0; e < N; ++e) onlineAdd(m, s, xs[i][e]);
            }
        }
    } else {
        for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
            float t[N];
            load(v, t);
#pragma unroll
            for (int e = 0; e < N; ++e) onlineAdd(m, s, t[e]);
        }
    }
    blockMaxSum(m, s, smem);
    float inv = 1.0f / s;
    auto write = [&](long long v, float (&t)[N]) {
        long long j = v * N;
#pragma unroll
        for (int e = 0; e < N; ++e) t[e] = t[e] == -INFINITY ? 0.0f : __expf(t[e] - m) * inv;
        if constexpr (N > 1) {
            storeF<T, N>(yr + j, t);
        } else {
            yr[j * sy] = fromF<T>(t[0]);
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

int threadsFor(long long nv, long long rows) {
    long long per = rows < 264 ? 1 : kMaxVecs;
    long long t = (nv + per - 1) / per;
    t = (t + 31) / 32 * 32;
    return static_cast<int>(t < 32 ? 32 : (t > 1024 ? 1024 : t));
}

// Launches over `rows` lines of n elements; y and x line starts given by dy/dx, element strides sy/sx.
infiniStatus_t makeLines(const char *op, infiniDtype_t dtype, long long rows, long long n, long long sy, long long sx,
                         const Dims &dy, const Dims &dx, long long causal_q, Made *m) {
    bool rows_aligned = true;
    for (const Dims *d : {&dy, &dx}) {
        for (int k = 0; k < d->ndim; ++k) rows_aligned = rows_aligned && (d->shape[k] <= 1 || d->strides[k] % 8 == 0);
    }
    return INFINI_NV_DISPATCH_FLOAT(dtype, op, {
        constexpr int N = kVec16<T>;
        bool vec = sy == 1 && sx == 1 && n % N == 0 && rows_aligned;
        m->launch = [=](const LaunchArgs &a) {
            if (rows == 0 || n == 0) return INFINI_STATUS_SUCCESS;
            T *py = static_cast<T *>(a.data[0]);
            const T *px = static_cast<const T *>(a.data[1]);
            bool v = vec && ((reinterpret_cast<uintptr_t>(py) | reinterpret_cast<uintptr_t>(px)) & 15) == 0;
            if (v) {
                softmaxKernel<T, N><<<static_cast<unsigned>(rows), threadsFor(n / N, rows), 0, a.stream>>>(py, px, n, 1, 1, dy, dx, causal_q);
            } else {
                softmaxKernel<T, 1><<<static_cast<unsigned>(rows), threadsFor(n, rows), 0, a.stream>>>(py, px, n, sy, sx, dy, dx, causal_q);
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
    auto moveLast = [&](Layout l) {
        if (l.ndim() == 0) return l;
        std::rotate(l.shape.begin() + dim, l.shape.begin() + dim + 1, l.shape.end());
        std::rotate(l.strides.begin() + dim, l.strides.begin() + dim + 1, l.strides.end());
        return l;
    };
    Layout ym = moveLast(y), xm = moveLast(x);
    Dims dy{}, dx{};
    if (xm.ndim() > 0 && (!dimsOf(ym, &dy, 1) || !dimsOf(xm, &dx, 1))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    }
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
    if (!dimsOf(y, &dy, 1) || !dimsOf(x, &dx, 1)) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    long long n = static_cast<long long>(kv);
    long long sy = n > 1 ? y.strides.back() : 1, sx = n > 1 ? x.strides.back() : 1;
    return makeLines(op, x.dtype, static_cast<long long>(x.rows()), n, sy, sx, dy, dx, static_cast<long long>(q), m);
}

}  // namespace infini::nvidia::ops
