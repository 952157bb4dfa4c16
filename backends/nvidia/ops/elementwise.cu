// elementwise.cu: add, mul, swiglu (binary), silu, relu, gelu (unary) and silu_and_mul. Contiguous
// tensors take a flat kernel with 16-byte loads; anything else a strided one.
#include <algorithm>

#include "../../common/erf_fit.h"
#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

struct AddF {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct MulF {
    __device__ float operator()(float a, float b) const { return a * b; }
};
// silu(x) = x / (1 + e^-x) with the fast division (a reciprocal and a multiply, 2 ulp): the IEEE one
// is a longer sequence with a slow-path branch. x -> -inf: e^-x = inf, x * 0 = -0 (NaN at -inf, as torch).
__device__ __forceinline__ float siluF(float x) { return __fdividef(x, 1.0f + __expf(-x)); }
struct SwiGLUF {  // a * silu(b): b is the gate
    __device__ float operator()(float a, float b) const { return a * siluF(b); }
};
struct SiluF {
    static constexpr bool kSmallPieces = false;  // (the unary launch: unaryShot, one vector a thread)
    __device__ float operator()(float x) const { return siluF(x); }
};
struct ReluF {
    static constexpr bool kSmallPieces = false;
    __device__ float operator()(float x) const { return x < 0.0f ? 0.0f : x; }  // -0 and NaN stay, as torch
};
// erf(x) without a branch (backends/common/erf_fit.h: our fit, ~1 ulp, plus ex2.approx's 2 ulp on the
// erfc part, under 0.5 ulp of erf). erff branches a lane into its |x| >= 1 range, and gelu with it waits
// on the branch.
__device__ __forceinline__ float erfNoBranch(float x) {
    using namespace erf_fit;
    const float ax = fabsf(x), u = x * x;
    float q = erfQ(kQTerms - 1);
#pragma unroll
    for (int k = kQTerms - 2; k >= 0; --k) q = fmaf(q, u, erfQ(k));
    const float small = fmaf(x, q, x);
    const float t = ax > kErfClamp ? kErfClamp : ax;  // (NaN passes)
    float r = erfR(kRTerms - 1);
#pragma unroll
    for (int k = kRTerms - 2; k >= 0; --k) r = fmaf(r, t, erfR(k));
    float e;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(r));
    return ax < kErfSplit ? small : copysignf(1.0f - e, x);
}
// kSmallPieces: decode-size inputs (under 2^18 elements) in 8-byte pieces, 128-thread blocks (more SMs
// for the few rows)
struct GeluF {  // x Phi(x) = x (1 + erf(x / sqrt 2)) / 2
    static constexpr bool kSmallPieces = true;
    __device__ float operator()(float x) const { return 0.5f * x * (1.0f + erfNoBranch(x * 0.7071067811865476f)); }
};
// the tanh form in one pass as well (unaryShot: faster than a grid-stride kernel at every size)
struct GeluTanhF {
    static constexpr bool kSmallPieces = true;
    __device__ float operator()(float x) const {
        const float k = 0.7978845608028654f;  // sqrt(2 / pi)
        return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
    }
};

// A 16-byte piece loaded with the L2 evict_first policy: streaming inputs that about fill the L2 leave
// it to the output's lines (faster there; slower with inputs beyond the L2, which the callers leave out).
template <typename VT>
__device__ __forceinline__ VT loadEvictFirst(const VT *p) {
    static_assert(sizeof(VT) == 16, "16-byte pieces");
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    uint4 r;
    asm("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p), "l"(pol));
    return *reinterpret_cast<VT *>(&r);
}

// chunked: block b takes the contiguous chunk of blockDim x U vectors at b (then b + gridDim, ...),
// its thread t the chunk's vectors t, t + blockDim, ... (the binary ops with many vectors, in 128-thread
// blocks: faster for them than the grid-stride layout in 256-thread blocks, though not for relu; the unary
// ops take unaryShot below).
// The binary kernels take 2 vectors a thread (not 4): half the chunk, twice the blocks, and no
// partial last wave of big blocks (one vector measured about the same as 2).
constexpr int kBinaryUnroll = 2;

// KEEP: the output stored evict_last (common.cuh's storeVec).
template <typename T, int N, typename F, bool EF = false, int U = kBinaryUnroll, bool KEEP = false>
__global__ void __launch_bounds__(256, 4) binaryFlat(T *c, const T *a, const T *b, long long n, F f, bool chunked) {
    opEntry();
    long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * N;
    long long step = static_cast<long long>(gridDim.x) * blockDim.x * N, outer = U * step;
    if (chunked) {
        i = static_cast<long long>(blockIdx.x) * blockDim.x * N * U + threadIdx.x * N;
        step = static_cast<long long>(blockDim.x) * N;
        outer = static_cast<long long>(gridDim.x) * blockDim.x * N * U;
    }
    if constexpr (N > 1) {
        for (; i + (U - 1) * step + N <= n; i += outer) {
            Vec<T, N> va[U], vb[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if constexpr (EF && sizeof(Vec<T, N>) == 16) {
                    va[u] = loadEvictFirst(reinterpret_cast<const Vec<T, N> *>(a + i + u * step));
                    vb[u] = loadEvictFirst(reinterpret_cast<const Vec<T, N> *>(b + i + u * step));
                } else {
                    va[u] = *reinterpret_cast<const Vec<T, N> *>(a + i + u * step);
                    vb[u] = *reinterpret_cast<const Vec<T, N> *>(b + i + u * step);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                float x[N], y[N];
                unpackF(va[u], x);
                unpackF(vb[u], y);
#pragma unroll
                for (int k = 0; k < N; ++k) x[k] = f(x[k], y[k]);
                storeF<T, N, KEEP>(c + i + u * step, x);
            }
        }
    }
    for (; i + N <= n; i += step) {
        float x[N], y[N], z[N];
        loadF<T, N>(a + i, x);
        loadF<T, N>(b + i, y);
#pragma unroll
        for (int k = 0; k < N; ++k) z[k] = f(x[k], y[k]);
        storeF<T, N, KEEP>(c + i, z);
    }
    for (; i < n; ++i) c[i] = fromF<T>(f(toF(a[i]), toF(b[i])));  // the tail (N > 1 only)
}

// Decode-size flat inputs (n < 2^18): one piece of N elements a thread, int offsets, no loop: a short
// kernel for the latency of a few rows; the last piece may be partial (8-byte pieces measured a little faster
// than 16-byte ones).
template <typename T, int N, typename F>
__global__ void __launch_bounds__(128) binarySmall(T *c, const T *a, const T *b, int n, F f) {
    opEntry();
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * N;
    if (i + N <= n) {
        Vec<T, N> va = *reinterpret_cast<const Vec<T, N> *>(a + i), vb = *reinterpret_cast<const Vec<T, N> *>(b + i);
        float x[N], y[N];
        unpackF(va, x);
        unpackF(vb, y);
#pragma unroll
        for (int k = 0; k < N; ++k) x[k] = f(x[k], y[k]);
        storeF<T, N>(c + i, x);
    } else {
        for (int j = i; j < n; ++j) c[j] = fromF<T>(f(toF(a[j]), toF(b[j])));
    }
}

template <typename T, typename F>
__global__ void binaryStrided(T *c, const T *a, const T *b, long long n, Dims dc, Dims da, Dims db, F f) {
    opEntry();
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        c[offsetOf(dc, i)] = fromF<T>(f(toF(a[offsetOf(da, i)]), toF(b[offsetOf(db, i)])));
    }
}

// Contiguous but not on 16 bytes: an element a thread, grid stride.
template <typename T, typename F>
__global__ void __launch_bounds__(256) unaryFlat(T *y, const T *x, long long n, F f) {
    opEntry();
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        y[i] = fromF<T>(f(toF(x[i])));
    }
}

// One pass, no grid stride: thread t of block b the vector at b x blockDim + t (one load, one store);
// the last partial vector element by element: every unary op's contiguous aligned launch. Faster than a
// grid-stride kernel of 4 vectors a thread (2 or 4 vectors a thread measured in between); gelu too, with
// erfNoBranch (with erff it is slower in one pass), and its tanh form (GeluTanhF).
template <typename T, int N, typename F>
__global__ void __launch_bounds__(256) unaryShot(T *y, const T *x, long long n, F f) {
    opEntry();
    const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * N;
    if (i + N <= n) {
        float w[N];
        unpackF(*reinterpret_cast<const Vec<T, N> *>(x + i), w);
#pragma unroll
        for (int k = 0; k < N; ++k) w[k] = f(w[k]);
        storeF<T, N>(y + i, w);
    } else {
        for (long long j = i; j < n; ++j) y[j] = fromF<T>(f(toF(x[j])));
    }
}

template <typename T, typename F>
__global__ void unaryStrided(T *y, const T *x, long long n, Dims dy, Dims dx, F f) {
    opEntry();
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        y[offsetOf(dy, i)] = fromF<T>(f(toF(x[offsetOf(dx, i)])));
    }
}

// Flat-kernel grid: enough blocks to fill the GPU a few times over, each thread N elements per step.
unsigned flatBlocks(long long n, int n_per_thread, int threads) {
    return blocksFor((n + n_per_thread - 1) / n_per_thread, threads, 132LL * 16);
}

// The binary kernels' grid: one vector a thread while that fits in one wave of the GPU (132 SMs x
// 2048 threads: a single round trip per thread), else one pass with `unroll` vectors a thread.
constexpr long long kOneWaveVecs = 132LL * 2048;
unsigned vecBlocks(long long n, int n_per_vec, int threads, int unroll) {
    long long vecs = (n + n_per_vec - 1) / n_per_vec;
    if (vecs <= kOneWaveVecs) return blocksFor(vecs, threads);
    return blocksFor((vecs + unroll - 1) / unroll, threads);
}

template <typename F>
infiniStatus_t makeBinary(const char *op, const infiniopOpParams_t &p, int device, Made *m, F f) {
    Layout c = layoutOf(p.tensors[0]), a = layoutOf(p.tensors[1]), b = layoutOf(p.tensors[2]);
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "a", a, c, "c"));
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "b", b, c, "c"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "a", a, c, "c"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "b", b, c, "c"));
    Dims dc, da, db;
    if (!dimsOf(c, &dc) || !dimsOf(a, &da) || !dimsOf(b, &db)) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims);
    }
    long long n = static_cast<long long>(c.numel());
    bool flat = c.contiguous() && a.contiguous() && b.contiguous();
    for (Dims *d : {&dc, &da, &db}) collapse(d);
    // the inputs at most the L2's size: streaming (evict_first) loads in the many-vector kernel
    const bool stream_in_l2 = 2LL * n * static_cast<long long>(dtypeSize(c.dtype)) <= l2Bytes(device);
    return INFINI_NV_DISPATCH_FLOAT(c.dtype, op, {
        m->launch = [=](const LaunchArgs &x) {
            if (n == 0) return INFINI_STATUS_SUCCESS;
            T *pc = static_cast<T *>(x.data[0]);
            const T *pa = static_cast<const T *>(x.data[1]);
            const T *pb = static_cast<const T *>(x.data[2]);
            constexpr int N = kVec16<T>;
            if (flat && aligned16(pc) && aligned16(pa) && aligned16(pb)) {
                if (n < (1LL << 18)) {
                    constexpr int M = N / 2;  // 8-byte pieces, 128-thread blocks: more SMs for few rows
                    launchOp(binarySmall<T, M, F>, static_cast<unsigned>((n + 128 * M - 1) / (128 * M)), 128, 0,
                             x.stream, pc, pa, pb, static_cast<int>(n), f);
                } else {
                    const bool chunked = (n + N - 1) / N > kOneWaveVecs;
                    const int threads = chunked ? 128 : 256;
                    const unsigned blocks = vecBlocks(n, N, threads, kBinaryUnroll);
                    // the output kept in the L2 for its consumer (common.cuh's storeVec)
                    if (stream_in_l2) {
                        launchOp(binaryFlat<T, N, F, true, kBinaryUnroll, true>, blocks, threads, 0, x.stream, pc, pa,
                                 pb, n, f, chunked);
                    } else {
                        launchOp(binaryFlat<T, N, F, false, kBinaryUnroll, true>, blocks, threads, 0, x.stream, pc, pa,
                                 pb, n, f, chunked);
                    }
                }
            } else if (flat) {
                launchOp(binaryFlat<T, 1, F>, flatBlocks(n, 1, 256), 256, 0, x.stream, pc, pa, pb, n, f, false);
            } else {
                launchOp(binaryStrided<T, F>, flatBlocks(n, 1, 256), 256, 0, x.stream, pc, pa, pb, n, dc, da, db, f);
            }
            return launched(op);
        };
    });
}

template <typename F>
infiniStatus_t makeUnary(const char *op, const infiniopOpParams_t &p, Made *m, F f) {
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    Dims dy, dx;
    if (!dimsOf(y, &dy) || !dimsOf(x, &dx))
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims);
    long long n = static_cast<long long>(x.numel());
    bool flat = y.contiguous() && x.contiguous();
    collapse(&dy);
    collapse(&dx);
    return INFINI_NV_DISPATCH_FLOAT(x.dtype, op, {
        m->launch = [=](const LaunchArgs &a) {
            if (n == 0) return INFINI_STATUS_SUCCESS;
            T *py = static_cast<T *>(a.data[0]);
            const T *px = static_cast<const T *>(a.data[1]);
            constexpr int N = kVec16<T>;
            if (flat && aligned16(py) && aligned16(px)) {
                if (F::kSmallPieces && n < (1LL << 18)) {
                    constexpr int M = N / 2;
                    launchOp(unaryShot<T, M, F>, static_cast<unsigned>((n + 128LL * M - 1) / (128LL * M)), 128, 0,
                             a.stream, py, px, n, f);
                } else {
                    launchOp(unaryShot<T, N, F>, static_cast<unsigned>((n + 256LL * N - 1) / (256LL * N)), 256, 0,
                             a.stream, py, px, n, f);
                }
            } else if (flat) {
                launchOp(unaryFlat<T, F>, flatBlocks(n, 1, 256), 256, 0, a.stream, py, px, n, f);
            } else {
                launchOp(unaryStrided<T, F>, flatBlocks(n, 1, 256), 256, 0, a.stream, py, px, n, dy, dx, f);
            }
            return launched(op);
        };
    });
}

// y[r, j] = silu(x[r, j]) * x[r, d + j]; one thread per N outputs; rows addressed through Dims.
template <typename T, int N>
__global__ void siluAndMulKernel(T *y, const T *x, long long rows, long long d, Dims ry, Dims rx) {
    opEntry();
    long long per_row = d / N;
    long long total = rows * per_row;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long j;
        const long long r = divMod(i, per_row, &j);
        j *= N;
        const T *xr = x + offsetOf(rx, r);
        T *yr = y + offsetOf(ry, r);
        float g[N], u[N];
        loadF<T, N>(xr + j, g);
        loadF<T, N>(xr + d + j, u);
#pragma unroll
        for (int k = 0; k < N; ++k) g[k] = siluF(g[k]) * u[k];
        storeF<T, N>(yr + j, g);
    }
}

// The same for rows `sy` / `sx` elements apart (dims collapsed to one): a 2-D grid, x over a row's
// vectors, y over rows (grid-stride), so no division. EF: the inputs loaded evict_first. The output stored
// evict_last (common.cuh's storeVec).
template <typename T, int N, bool EF = false>
__global__ void siluAndMulRowKernel(T *y, const T *x, long long rows, int per_row, long long d, long long sy,
                                    long long sx) {
    opEntry();
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= per_row) return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *xr = x + r * sx + c * N;
        float g[N], u[N];
        if constexpr (EF && sizeof(Vec<T, N>) == 16) {
            unpackF(loadEvictFirst(reinterpret_cast<const Vec<T, N> *>(xr)), g);
            unpackF(loadEvictFirst(reinterpret_cast<const Vec<T, N> *>(xr + d)), u);
        } else {
            loadF<T, N>(xr, g);
            loadF<T, N>(xr + d, u);
        }
#pragma unroll
        for (int k = 0; k < N; ++k) g[k] = siluF(g[k]) * u[k];
        storeF<T, N, true>(y + r * sy + c * N, g);  // (the output kept in the L2: common.cuh's storeVec)
    }
}

// Decode-size batches (at most 2^18 outputs, int offsets), as Triton's kernel for this op: a block of 128
// threads a (row, 128 * N columns) tile, the row from blockIdx.x (its offsets uniform across the block), the
// loads clamped into the row so that nothing branches before them, the store predicated. With 8-byte pieces
// (N = 4 for 16-bit types). (A flat 1-D kernel, the row by a multiply-shift, measured slower.)
template <typename T, int N>
__global__ void __launch_bounds__(128) siluAndMulTileKernel(T *y, const T *x, int d, int sy, int sx) {
    opEntry();
    const int c = blockIdx.y * (128 * N) + threadIdx.x * N;
    const T *xr = x + static_cast<long long>(blockIdx.x) * sx;
    const int cl = min(c, d - N);  // (d >= N)
    float g[N], u[N];
    loadF<T, N>(xr + cl, g);
    loadF<T, N>(xr + d + cl, u);
#pragma unroll
    for (int k = 0; k < N; ++k) g[k] = siluF(g[k]) * u[k];
    if (c < d) storeF<T, N>(y + static_cast<long long>(blockIdx.x) * sy + c, g);
}

template <typename T>
__global__ void scaleCopyKernel(T *dst, Dims dd, const T *src, Dims ds, long long n, float scale) {
    opEntry();
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        dst[offsetOf(dd, i)] = fromF<T>(src != nullptr ? scale * toF(src[offsetOf(ds, i)]) : 0.0f);
    }
}

}  // namespace

infiniStatus_t launchScaleCopy(infiniDtype_t dtype, void *dst, const Dims &ddst, const void *src, const Dims &dsrc,
                               long long n, float scale, cudaStream_t stream) {
    if (n == 0) return INFINI_STATUS_SUCCESS;
    return INFINI_NV_DISPATCH_FLOAT(dtype, "gemm", {
        launchOp(scaleCopyKernel<T>, flatBlocks(n, 1, 256), 256, 0, stream, static_cast<T *>(dst), ddst,
                 static_cast<const T *>(src), dsrc, n, scale);
    });
}

infiniStatus_t makeAdd(const infiniopOpParams_t &p, int device, Made *m) {
    return makeBinary("add", p, device, m, AddF{});
}
infiniStatus_t makeMul(const infiniopOpParams_t &p, int device, Made *m) {
    return makeBinary("mul", p, device, m, MulF{});
}
infiniStatus_t makeSwiGLU(const infiniopOpParams_t &p, int device, Made *m) {
    return makeBinary("swiglu", p, device, m, SwiGLUF{});
}
infiniStatus_t makeSilu(const infiniopOpParams_t &p, int, Made *m) { return makeUnary("silu", p, m, SiluF{}); }
infiniStatus_t makeRelu(const infiniopOpParams_t &p, int, Made *m) { return makeUnary("relu", p, m, ReluF{}); }
infiniStatus_t makeGelu(const infiniopOpParams_t &p, int, Made *m) {
    if (p.i[0] != 0 && p.i[0] != 1)
        return fail(INFINI_STATUS_BAD_PARAM, "gelu: approximate must be 0 (none) or 1 (tanh)");
    return p.i[0] == 1 ? makeUnary("gelu", p, m, GeluTanhF{}) : makeUnary("gelu", p, m, GeluF{});
}

infiniStatus_t makeSiluAndMul(const infiniopOpParams_t &p, int device, Made *m) {
    const char *op = "silu_and_mul";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    INFINI_RETURN_IF_ERROR(checks::siluAndMul(y, x));
    Dims ry, rx;
    if (!dimsOf(y, &ry, 1) || !dimsOf(x, &rx, 1))
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims + 1);
    collapse(&ry);
    collapse(&rx);
    long long rows = static_cast<long long>(y.rows()), d = static_cast<long long>(y.last());
    bool vec_rows = rowsAligned(rx, 8) && rowsAligned(ry, 8);  // row starts 16 bytes apart, either dtype
    // the input at most the L2's size: streaming (evict_first) loads in the many-row kernel
    const bool stream_in_l2 = 2LL * rows * d * static_cast<long long>(dtypeSize(x.dtype)) <= l2Bytes(device);
    return INFINI_NV_DISPATCH_FLOAT(x.dtype, op, {
        m->launch = [=](const LaunchArgs &a) {
            if (rows == 0 || d == 0) return INFINI_STATUS_SUCCESS;
            T *py = static_cast<T *>(a.data[0]);
            const T *px = static_cast<const T *>(a.data[1]);
            constexpr int N = kVec16<T>;
            bool vec = vec_rows && d % N == 0 && aligned16(py) && aligned16(px);
            if (vec && ry.ndim <= 1 && rx.ndim <= 1 && d < (1LL << 31)) {  // (int offsets within a row)
                long long sy = ry.ndim ? ry.strides[0] : 0, sx = rx.ndim ? rx.strides[0] : 0;
                if (rows * d <= (1LL << 18) && (rows - 1) * std::max(sy, sx) + 2 * d < (1LL << 31)) {
                    // decode-size: half pieces (8 bytes): more SMs share the exps
                    constexpr int M = N / 2;
                    dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((d + 128 * M - 1) / (128 * M)));
                    launchOp(siluAndMulTileKernel<T, M>, grid, 128, 0, a.stream, py, px, static_cast<int>(d),
                             static_cast<int>(sy), static_cast<int>(sx));
                } else {
                    int per_row = static_cast<int>(d / N);
                    dim3 grid(static_cast<unsigned>((per_row + 255) / 256),
                              static_cast<unsigned>(std::min<long long>(rows, 65535)));
                    if (stream_in_l2) {
                        launchOp(siluAndMulRowKernel<T, N, true>, grid, 256, 0, a.stream, py, px, rows, per_row, d, sy,
                                 sx);
                    } else {
                        launchOp(siluAndMulRowKernel<T, N>, grid, 256, 0, a.stream, py, px, rows, per_row, d, sy, sx);
                    }
                }
            } else if (vec) {
                launchOp(siluAndMulKernel<T, N>, flatBlocks(rows * d, N, 256), 256, 0, a.stream, py, px, rows, d, ry,
                         rx);
            } else {
                launchOp(siluAndMulKernel<T, 1>, flatBlocks(rows * d, 1, 256), 256, 0, a.stream, py, px, rows, d, ry,
                         rx);
            }
            return launched(op);
        };
    });
}

}  // namespace infini::nvidia::ops
