// softmax.cu: softmax along any dim (a line per block, walked with its stride) and causal_softmax over
// the last dim. Lines with stride 1 use 16-byte loads; short ones stay in registers between the
// reductions and the write, long ones are read twice (max and sum in one online pass, then written).
#include <cooperative_groups.h>

#include <algorithm>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

// (m, s) of the block: max and sum of exp(x - max).
__device__ __forceinline__ void blockMaxSum(float &m, float &s, float *smem) {
    float bm = blockMax(m, smem);
    float part = m == -INFINITY ? 0.0f : s * __expf(m - bm);
    s = blockSum(part, smem);
    m = bm;
}

// One line per block: line `row` of x starts at offsetOf(dx, row), its n elements `sx` apart (sx == 1
// when N > 1). causal: row r of a [.., q, kv] tensor keeps j <= (r % q) + kv - q, the rest is 0.
// CACHED: the host checked that the line fits in registers (N > 1, nv <= kMaxVecs * threads).
template <typename T, int N, bool CACHED>
__global__ void softmaxKernel(T *y, const T *x, long long n, long long sy, long long sx, Dims dy, Dims dx,
                              long long causal_q) {
    __shared__ float smem[32];
    long long row = blockIdx.x;
    const T *xr = x + offsetOf(dx, row);
    T *yr = y + offsetOf(dy, row);
    long long limit = n;  // elements [0, limit) are live
    if (causal_q > 0) limit = (row % causal_q) + n - causal_q + 1;
    long long nv = (n + N - 1) / N;
    float xs[kMaxVecs][N];
    float m = -INFINITY, s = 0.0f;
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
    if constexpr (CACHED) {
        // the line in registers: the thread's own max, exp(x - it) once per element (kept), then the
        // block's max and sum; the write only rescales
        float lm = -INFINITY;
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
#pragma unroll
        for (int i = 0; i < kMaxVecs; ++i) {
            long long v = i * static_cast<long long>(blockDim.x) + threadIdx.x;
#pragma unroll
            for (int e = 0; e < N; ++e) {
                xs[i][e] = v < nv && lm != -INFINITY ? __expf(xs[i][e] - lm) : 0.0f;
                s += xs[i][e];
            }
        }
        m = lm;
        blockMaxSum(m, s, smem);
        float f = lm == -INFINITY ? 0.0f : __expf(lm - m) / s;
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
        visitRow<N>(nv, false, true, xs, load, [&](long long, const float (&t)[N]) {
            float vm = t[0];
#pragma unroll
            for (int e = 1; e < N; ++e) vm = fmaxf(vm, t[e]);
            if (vm == -INFINITY) return;
            if (vm > m) {
                s *= __expf(m - vm);
                m = vm;
            }
#pragma unroll
            for (int e = 0; e < N; ++e) s += __expf(t[e] - m);
        });
        blockMaxSum(m, s, smem);
        float inv = 1.0f / s;
        visitRow<N>(nv, false, false, xs, load, [&](long long v, const float (&t)[N]) {
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
}


// Lines too long for one block's registers (a vocabulary row): a cluster of C blocks splits the line,
// each block keeping its part in registers as 16-byte pieces, so the line is read once; the blocks
// exchange their (max, sum) through distributed shared memory. Grid: C blocks per line, along x.
constexpr int kClusterThreads = 512, kClusterVecs = 8;

template <typename T>
__global__ void __launch_bounds__(kClusterThreads) softmaxClusterKernel(T *y, const T *x, long long n, Dims dy, Dims dx,
                                                                        long long causal_q, int C, long long per) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int N = kVec16<T>;
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    __shared__ float smem[32];
    __shared__ float ms[2];
    long long row = blockIdx.x / C;
    int rank = static_cast<int>(cl.block_rank());
    const T *xr = x + offsetOf(dx, row);
    T *yr = y + offsetOf(dy, row);
    long long limit = n;
    if (causal_q > 0) limit = (row % causal_q) + n - causal_q + 1;
    long long nv = n / N, v0 = rank * per, v1 = min(nv, v0 + per);
    Vec<T, N> raw[kClusterVecs];
    float m = -INFINITY, s = 0.0f;
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {
        long long v = v0 + i * static_cast<long long>(blockDim.x) + threadIdx.x;
        if (v < v1 && v * N < limit) raw[i] = *reinterpret_cast<const Vec<T, N> *>(xr + v * N);
    }
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {  // the thread's max
        long long v = v0 + i * static_cast<long long>(blockDim.x) + threadIdx.x;
        if (v < v1 && v * N < limit) {
            float f[N];
            unpackF(raw[i], f);
#pragma unroll
            for (int e = 0; e < N; ++e) {
                if (v * N + e < limit) m = fmaxf(m, f[e]);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {  // its sum
        long long v = v0 + i * static_cast<long long>(blockDim.x) + threadIdx.x;
        if (v < v1 && v * N < limit && m != -INFINITY) {
            float f[N];
            unpackF(raw[i], f);
#pragma unroll
            for (int e = 0; e < N; ++e) {
                if (v * N + e < limit) s += __expf(f[e] - m);
            }
        }
    }
    blockMaxSum(m, s, smem);
    if (threadIdx.x == 0) {
        ms[0] = m;
        ms[1] = s;
    }
    cl.sync();
    float gm = -INFINITY;
    for (int r = 0; r < C; ++r) gm = fmaxf(gm, cl.map_shared_rank(ms, r)[0]);
    float gs = 0.0f;
    for (int r = 0; r < C; ++r) {
        const float *o = cl.map_shared_rank(ms, r);
        if (o[0] != -INFINITY) gs += o[1] * __expf(o[0] - gm);
    }
    cl.sync();  // no block leaves while another still reads its (max, sum)
    float inv = 1.0f / gs;
#pragma unroll
    for (int i = 0; i < kClusterVecs; ++i) {
        long long v = v0 + i * static_cast<long long>(blockDim.x) + threadIdx.x;
        if (v < v1) {
            float o[N], f[N];
            unpackF(raw[i], f);
#pragma unroll
            for (int e = 0; e < N; ++e) o[e] = v * N + e < limit ? __expf(f[e] - gm) * inv : 0.0f;
            storeF<T, N>(yr + v * N, o);
        }
    }
#endif
}

// Whether the GPUs here launch clusters (compute capability 9.0 or newer); asked once.
bool clustersAvailable() {
    static const bool ok = [] {
        int dev = 0, major = 0;
        if (cudaGetDevice(&dev) != cudaSuccess) return false;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return false;
        return major >= 9;
    }();
    return ok;
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
            long long nv = n / N;
            // a line longer than one block keeps: a cluster of the fewest blocks (2, 4 or 8) with at most
            // 256 threads each (8 pieces per thread), else up to 512
            int C = 0, threads = 0;
            long long per = 0;
            // (few lines only: with many, a cluster per line measured slower than reading each line twice,
            // the second time mostly from L2)
            if (v && nv > static_cast<long long>(kMaxVecs) * 1024 && rows <= 32 && clustersAvailable()) {
                for (int c : {2, 4, 8}) {
                    long long pc = (nv + c - 1) / c;
                    if (pc <= 256LL * kClusterVecs || (c == 8 && pc <= static_cast<long long>(kClusterThreads) * kClusterVecs)) {
                        C = c;
                        per = pc;
                        threads = static_cast<int>(((pc + kClusterVecs - 1) / kClusterVecs + 31) / 32 * 32);
                        break;
                    }
                }
                if (rows * C >= (1LL << 31)) C = 0;
            }
            if (C > 0) {
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3(static_cast<unsigned>(rows * C));
                cfg.blockDim = dim3(static_cast<unsigned>(threads));
                cfg.stream = a.stream;
                cudaLaunchAttribute attr[1];
                attr[0].id = cudaLaunchAttributeClusterDimension;
                attr[0].val.clusterDim.x = static_cast<unsigned>(C);
                attr[0].val.clusterDim.y = 1;
                attr[0].val.clusterDim.z = 1;
                cfg.attrs = attr;
                cfg.numAttrs = 1;
                cudaLaunchKernelEx(&cfg, softmaxClusterKernel<T>, py, px, n, dy, dx, causal_q, C, per);
            } else if (v) {
                int threads = rowThreads(nv, rows);
                int cached_threads = std::min(threads, maxThreads(softmaxKernel<T, N, true>));
                if (nv <= static_cast<long long>(kMaxVecs) * cached_threads) {
                    softmaxKernel<T, N, true><<<static_cast<unsigned>(rows), cached_threads, 0, a.stream>>>(py, px, n, 1, 1, dy, dx, causal_q);
                } else {
                    softmaxKernel<T, N, false><<<static_cast<unsigned>(rows), std::min(threads, maxThreads(softmaxKernel<T, N, false>)), 0,
                                                 a.stream>>>(py, px, n, 1, 1, dy, dx, causal_q);
                }
            } else {
                softmaxKernel<T, 1, false><<<static_cast<unsigned>(rows), std::min(rowThreads(n, rows), maxThreads(softmaxKernel<T, 1, false>)), 0, a.stream>>>(py, px, n, sy, sx, dy, dx, causal_q);
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
