// softmax.cu: softmax along any dim (a line per block, walked with its stride) and causal_softmax over
// the last dim. Lines with stride 1 use 16-byte loads; short ones stay in registers between the
// reductions and the write, long ones are read twice (max and sum in one online pass, then written).
#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

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
    visitRow<N>(nv, cached, true, xs, load, [&](long long, const float (&t)[N]) {
#pragma unroll
        for (int e = 0; e < N; ++e) onlineAdd(m, s, t[e]);
    });
    blockMaxSum(m, s, smem);
    float inv = 1.0f / s;
    visitRow<N>(nv, cached, false, xs, load, [&](long long v, const float (&t)[N]) {
        long long j = v * N;
        float o[N];
#pragma unroll
        for (int e = 0; e < N; ++e) o[e] = t[e] == -INFINITY ? 0.0f : __expf(t[e] - m) * inv;
        if constexpr (N > 1) {
            storeF<T, N>(yr + j, o);
        } else {
            yr[j * sy] = fromF<T>(o[0]);
        }
    });
}


// Launches over `rows` lines of n elements; y and x line starts given by dy/dx, element strides sy/sx.
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
            if (v) {
                softmaxKernel<T, N><<<static_cast<unsigned>(rows), rowThreads(n / N, rows), 0, a.stream>>>(py, px, n, 1, 1, dy, dx, causal_q);
            } else {
                softmaxKernel<T, 1><<<static_cast<unsigned>(rows), rowThreads(n, rows), 0, a.stream>>>(py, px, n, sy, sx, dy, dx, causal_q);
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
    Layout ym = y.movedLast(static_cast<size_t>(dim)), xm = x.movedLast(static_cast<size_t>(dim));  // lines along dim as rows
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
