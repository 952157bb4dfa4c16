// pointwise.cu: the pointwise family on the nvidia backend. The arithmetic is common/pointwise_math.h; this file
// walks the operands, in one of these kernels:
// - pwVecFast<T, NIN, N> / pwVecAny<T, NIN, N>: every memory operand of one float dtype T (F32, F16, BF16) and compute
//   F32; after coalescing the output is unit-stride along dim 0 and each input unit-stride, broadcast (stride 0) or a
//   constant there; the outer dims are rows. N elements a thread: a 16-byte piece where every unit-stride operand's
//   rows are aligned to it, else 1. The common ops are compiled into pwVecFast (two pieces in flight a thread, few
//   registers); the others run in pwVecAny through one out-of-line function of the op code.
// - pwCopy<U, N>: COPY between two operands of one dtype in the same layout, moving raw elements (bits kept).
// - pwGeneric<C, WIDE>: everything else: any dtypes and strides, every op, in the compute type C.
// - pwAdam<C, WIDE>: the optimizer steps.
// WIDE: 64-bit index math (else every offset fits in 31 bits). Each kernel is a grid-stride loop.
#include "../../common/pointwise_math.h"
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kThreads = 256;

// ---- the vectorized float path ----

// How an input is read along dim 0.
enum InMode : int { kVec = 0, kBcast = 1, kConst = 2 };

// The outer dims (1 .. ndim - 1, dim 1 fastest) of a rows layout: extents and per operand (out, in 0..2) element
// strides.
struct RowsGeo {
    int ndim;
    int64_t shape[kMaxDims];
    int64_t stride[kMaxDims][4];
};

__device__ __forceinline__ void rowOffsets(const RowsGeo &g, int64_t row, int64_t (&off)[4]) {
#pragma unroll
    for (int k = 0; k < 4; ++k) off[k] = 0;
    for (int d = 0; d < g.ndim; ++d) {
        long long c = row;
        if (d + 1 < g.ndim) row = ops::divMod(row, g.shape[d], &c);
#pragma unroll
        for (int k = 0; k < 4; ++k) off[k] += c * g.stride[d][k];
    }
}

// An op's scalars in the compute type C (s) and as integers (si).
template <class C>
struct OpScalars {
    C s[4];
    int64_t si[4];
};

// Any op of nin inputs in C, out of line: one copy of the op switch per compute type serves every kernel.
template <class C>
__device__ __noinline__ C applyAny(int op, int nin, C x, C y, C z, const OpScalars<C> &sc) {
    switch (nin) {
        case 0:
        case 1: return pw::unary<C>(op, x, sc.s, sc.si);
        case 2: return pw::binary<C>(op, x, y, sc.s, sc.si);
        default: return pw::ternary<C>(op, x, y, z, sc.s, sc.si);
    }
}

struct VecParams {
    void *out;
    const void *in[3];
    int mode[3];
    float cval[3];
    int64_t inner;  // dim 0's extent
    int64_t rows;   // the product of the outer extents
    int64_t vpr;    // pieces of N a row (rows == 1: inner / N rounded down, the rest is the tail)
    int op;
    int nin;
    int by_rows;  // blockIdx.y walks the rows, blockIdx.x and the threads a row's pieces (no division a piece)
    OpScalars<float> sc;
    RowsGeo geo;
};

struct AnyF {
    int op, nin;
    OpScalars<float> sc;
    __device__ float operator()(float x, float y, float z) const { return applyAny<float>(op, nin, x, y, z, sc); }
};
struct FillF {
    float c;
    __device__ float operator()(float, float, float) const { return c; }
};
struct CopyF {
    __device__ float operator()(float x, float, float) const { return x; }
};
struct NegF {
    __device__ float operator()(float x, float, float) const { return -x; }
};
struct AddScalarF {
    float c;
    __device__ float operator()(float x, float, float) const { return x + c; }
};
struct MulScalarF {
    float c;
    __device__ float operator()(float x, float, float) const { return x * c; }
};
struct AddF {
    float alpha;
    __device__ float operator()(float x, float y, float) const { return x + alpha * y; }
};
struct SubF {
    float alpha;
    __device__ float operator()(float x, float y, float) const { return x - alpha * y; }
};
struct MulF {
    __device__ float operator()(float x, float y, float) const { return x * y; }
};
struct DivF {
    __device__ float operator()(float x, float y, float) const { return x / y; }
};

// The pieces of the grid-stride loop, U at a time: every piece's loads are issued before any is used (several loads
// in flight a thread).
template <class T, int NIN, int N, int U, class F>
__device__ __forceinline__ void vecLoop(const VecParams &p, F f) {
    using P = Vec<T, N>;
    constexpr int K = NIN > 0 ? NIN : 1;
    T *out = static_cast<T *>(p.out);
    const T *in[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) in[k] = static_cast<const T *>(p.in[k]);
    const int64_t total = p.rows * p.vpr;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (int64_t v0 = first; v0 < total; v0 += U * step) {
        P raw[U][K];
        float bc[U][K];
        int64_t at[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t v = v0 + u * step;
            if (v >= total) break;
            int64_t off[4] = {0, 0, 0, 0};
            int64_t col = v * N;
            if (p.rows > 1) {
                long long piece;
                const int64_t row = ops::divMod(v, p.vpr, &piece);
                rowOffsets(p.geo, row, off);
                col = piece * N;
            }
            at[u] = off[0] + col;
#pragma unroll
            for (int k = 0; k < NIN; ++k) {
                if (p.mode[k] == kVec) {
                    raw[u][k] = *reinterpret_cast<const P *>(in[k] + off[k + 1] + col);
                } else {
                    bc[u][k] = p.mode[k] == kBcast ? toF(in[k][off[k + 1]]) : p.cval[k];
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (v0 + u * step >= total) break;
            float x[3][N];
#pragma unroll
            for (int k = 0; k < 3; ++k) {
                if (k < NIN && p.mode[k] == kVec) {
                    ops::unpackF(raw[u][k], x[k]);
                } else {
                    const float b = k < NIN ? bc[u][k < K ? k : 0] : 0.0f;
#pragma unroll
                    for (int e = 0; e < N; ++e) x[k][e] = b;
                }
            }
            float r[N];
#pragma unroll
            for (int e = 0; e < N; ++e) r[e] = f(x[0][e], x[1][e], x[2][e]);
            ops::storeF<T, N>(out + at[u], r);
        }
    }
    if (p.rows == 1) {  // the tail of a single row (its outer dims are all gone: no row offsets)
        for (int64_t i = p.vpr * N + first; i < p.inner; i += step) {
            float x[3] = {0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int k = 0; k < NIN; ++k) {
                x[k] = p.mode[k] == kVec ? toF(in[k][i]) : (p.mode[k] == kBcast ? toF(in[k][0]) : p.cval[k]);
            }
            out[i] = fromF<T>(f(x[0], x[1], x[2]));
        }
    }
}

// The rows layout (by_rows): a row's offsets once, then its pieces, U a thread at a time (loads before use).
template <class T, int NIN, int N, int U, class F>
__device__ __forceinline__ void vecRows(const VecParams &p, F f) {
    using P = Vec<T, N>;
    constexpr int K = NIN > 0 ? NIN : 1;
    T *out = static_cast<T *>(p.out);
    const T *in[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) in[k] = static_cast<const T *>(p.in[k]);
    const int64_t span = static_cast<int64_t>(gridDim.x) * blockDim.x * U;
    for (int64_t row = blockIdx.y; row < p.rows; row += gridDim.y) {
        int64_t off[4];
        rowOffsets(p.geo, row, off);
        float rb[K];
#pragma unroll
        for (int k = 0; k < NIN; ++k) {
            rb[k] = p.mode[k] == kVec ? 0.0f : (p.mode[k] == kBcast ? toF(in[k][off[k + 1]]) : p.cval[k]);
        }
        for (int64_t c0 = static_cast<int64_t>(blockIdx.x) * blockDim.x * U + threadIdx.x; c0 < p.vpr; c0 += span) {
            P raw[U][K];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = c0 + static_cast<int64_t>(u) * blockDim.x;
                if (c >= p.vpr) break;
#pragma unroll
                for (int k = 0; k < NIN; ++k) {
                    if (p.mode[k] == kVec) raw[u][k] = *reinterpret_cast<const P *>(in[k] + off[k + 1] + c * N);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t c = c0 + static_cast<int64_t>(u) * blockDim.x;
                if (c >= p.vpr) break;
                float x[3][N];
#pragma unroll
                for (int k = 0; k < 3; ++k) {
                    if (k < NIN && p.mode[k] == kVec) {
                        ops::unpackF(raw[u][k], x[k]);
                    } else {
                        const float b = k < NIN ? rb[k < K ? k : 0] : 0.0f;
#pragma unroll
                        for (int e = 0; e < N; ++e) x[k][e] = b;
                    }
                }
                float r[N];
#pragma unroll
                for (int e = 0; e < N; ++e) r[e] = f(x[0][e], x[1][e], x[2][e]);
                ops::storeF<T, N>(out + off[0] + c * N, r);
            }
        }
    }
}

template <class T, int NIN, int N, int U, class F>
__device__ __forceinline__ void vecRun(const VecParams &p, F f) {
    if (p.by_rows) {
        vecRows<T, NIN, N, U>(p, f);
    } else {
        vecLoop<T, NIN, N, U>(p, f);
    }
}

// The ops compiled into the vectorized kernel (isFast); pwVecAny takes the others through applyAny.
// Pieces a thread at a time: four for a single input (its loads alone), two for two inputs (four: more registers,
// no faster).
template <int NIN>
constexpr int kUnroll = NIN <= 1 ? 4 : 2;

__host__ __device__ inline bool isFast(int op, int nin) {
    switch (nin) {
        case 0: return op == INFINIOP_PW_FILL;
        case 1:
            return op == INFINIOP_PW_COPY || op == INFINIOP_PW_NEG || op == INFINIOP_PW_ADD_SCALAR ||
                   op == INFINIOP_PW_MUL_SCALAR;
        case 2: return op == INFINIOP_PW_ADD || op == INFINIOP_PW_SUB || op == INFINIOP_PW_MUL || op == INFINIOP_PW_DIV;
        default: return false;
    }
}

template <class T, int NIN, int N>
__global__ void __launch_bounds__(kThreads) pwVecFast(VecParams p) {
    opEntry();
    if constexpr (NIN == 0) {
        vecRun<T, NIN, N, kUnroll<NIN>>(p, FillF{p.sc.s[0]});
    } else if constexpr (NIN == 1) {
        switch (p.op) {
            case INFINIOP_PW_NEG: return vecRun<T, NIN, N, kUnroll<NIN>>(p, NegF{});
            case INFINIOP_PW_ADD_SCALAR: return vecRun<T, NIN, N, kUnroll<NIN>>(p, AddScalarF{p.sc.s[0]});
            case INFINIOP_PW_MUL_SCALAR: return vecRun<T, NIN, N, kUnroll<NIN>>(p, MulScalarF{p.sc.s[0]});
            default: return vecRun<T, NIN, N, kUnroll<NIN>>(p, CopyF{});
        }
    } else {
        switch (p.op) {
            case INFINIOP_PW_SUB: return vecRun<T, NIN, N, kUnroll<NIN>>(p, SubF{p.sc.s[0]});
            case INFINIOP_PW_MUL: return vecRun<T, NIN, N, kUnroll<NIN>>(p, MulF{});
            case INFINIOP_PW_DIV: return vecRun<T, NIN, N, kUnroll<NIN>>(p, DivF{});
            default: return vecRun<T, NIN, N, kUnroll<NIN>>(p, AddF{p.sc.s[0]});
        }
    }
}

template <class T, int NIN, int N>
__global__ void __launch_bounds__(kThreads) pwVecAny(VecParams p) {
    opEntry();
    vecRun<T, NIN, N, 1>(p, AnyF{p.op, p.nin, p.sc});
}

// ---- raw copies ----

struct CopyParams {
    void *out;
    const void *in;
    int bcast;    // the input is broadcast along dim 0
    int by_rows;  // blockIdx.y and threadIdx.y walk the rows (blockDim.y of them a block), the x's a row's pieces
    int64_t inner, rows, vpr;
    RowsGeo geo;  // element strides of out (operand 0) and in (operand 1)
};

constexpr int kCopyUnroll = 4;

// kCopyUnroll pieces a thread at a time, all loaded before any is stored. (A register cap of 64 keeps four blocks an
// SM: a copy's speed is the bytes it has in flight.)
// ROWS: the by_rows walk (its own kernel: the flat walk's registers would bound its occupancy).
template <class U, int N, bool ROWS>
__global__ void __launch_bounds__(kThreads, 4) pwCopy(CopyParams p) {
    opEntry();
    using P = Vec<U, N>;
    U *out = static_cast<U *>(p.out);
    const U *in = static_cast<const U *>(p.in);
    if constexpr (ROWS) {
        const int64_t span = static_cast<int64_t>(gridDim.x) * blockDim.x * kCopyUnroll;
        const int64_t row_step = static_cast<int64_t>(gridDim.y) * blockDim.y;
        for (int64_t row = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; row < p.rows; row += row_step) {
            int64_t off[4];
            rowOffsets(p.geo, row, off);
            for (int64_t c0 = static_cast<int64_t>(blockIdx.x) * blockDim.x * kCopyUnroll + threadIdx.x; c0 < p.vpr;
                 c0 += span) {
                P piece[kCopyUnroll];
#pragma unroll
                for (int u = 0; u < kCopyUnroll; ++u) {
                    const int64_t c = c0 + static_cast<int64_t>(u) * blockDim.x;
                    if (c >= p.vpr) break;
                    if (p.bcast) {
                        const U b = in[off[1]];
#pragma unroll
                        for (int e = 0; e < N; ++e) piece[u].v[e] = b;
                    } else {
                        piece[u] = *reinterpret_cast<const P *>(in + off[1] + c * N);
                    }
                }
#pragma unroll
                for (int u = 0; u < kCopyUnroll; ++u) {
                    const int64_t c = c0 + static_cast<int64_t>(u) * blockDim.x;
                    if (c >= p.vpr) break;
                    *reinterpret_cast<P *>(out + off[0] + c * N) = piece[u];
                }
            }
        }
        return;
    }
    const int64_t total = p.rows * p.vpr;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (int64_t v0 = first; v0 < total; v0 += kCopyUnroll * step) {
        P piece[kCopyUnroll];
        int64_t at[kCopyUnroll];
#pragma unroll
        for (int u = 0; u < kCopyUnroll; ++u) {
            const int64_t v = v0 + u * step;
            if (v >= total) break;
            int64_t off[4] = {0, 0, 0, 0};
            int64_t col = v * N;
            if (p.rows > 1) {
                long long c;
                const int64_t row = ops::divMod(v, p.vpr, &c);
                rowOffsets(p.geo, row, off);
                col = c * N;
            }
            at[u] = off[0] + col;
            if (p.bcast) {
                const U b = in[off[1]];
#pragma unroll
                for (int e = 0; e < N; ++e) piece[u].v[e] = b;
            } else {
                piece[u] = *reinterpret_cast<const P *>(in + off[1] + col);
            }
        }
#pragma unroll
        for (int u = 0; u < kCopyUnroll; ++u) {
            if (v0 + u * step >= total) break;
            *reinterpret_cast<P *>(out + at[u]) = piece[u];
        }
    }
    if (p.rows == 1) {
        for (int64_t i = p.vpr * N + first; i < p.inner; i += step) out[i] = in[p.bcast ? 0 : i];
    }
}

// ---- the general path ----

template <class C>
struct GenParams {
    Geo<4> geo;
    char *data[4];
    infiniDtype_t dtype[4];
    C cval[4];
    OpScalars<C> sc;
    int op, nin;
    int64_t n;
};

template <class C, bool WIDE>
__global__ void __launch_bounds__(kThreads) pwGeneric(GenParams<C> p) {
    opEntry();
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step) {
        Off<WIDE> off[4];
        offsetsOf<WIDE>(p.geo, i, off);
        C x[3] = {C(0), C(0), C(0)};
#pragma unroll
        for (int k = 0; k < 3; ++k) {
            if (k < p.nin) x[k] = p.data[1 + k] ? loadAs<C>(p.data[1 + k] + off[1 + k], p.dtype[1 + k]) : p.cval[1 + k];
        }
        const C r = p.op == INFINIOP_PW_IOTA ? p.sc.s[0] + static_cast<C>(i) * p.sc.s[1]  // 1-d: i is the position
                                             : applyAny<C>(p.op, p.nin, x[0], x[1], x[2], p.sc);
        storeAs<C>(p.data[0] + off[0], p.dtype[0], r);
    }
}

// ---- the optimizer steps ----

struct AdamParams {
    Geo<kMaxOps> geo;
    char *data[kMaxOps];
    infiniDtype_t dtype[kMaxOps];
    int nout;
    int flags;
    double lr, beta1, beta2, eps, wd;
    int64_t n;
};

// Outputs p, m, v[, vmax]; inputs the same again (read through the outputs: they alias them), then grad, step.
template <class C, bool WIDE>
__global__ void __launch_bounds__(kThreads) pwAdam(AdamParams p) {
    opEntry();
    const bool ams = p.nout == 4;
    const int g = 2 * p.nout, st = 2 * p.nout + 1;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step) {
        Off<WIDE> off[kMaxOps];
        offsetsOf<WIDE>(p.geo, i, off);
        C pv = loadAs<C>(p.data[0] + off[0], p.dtype[0]);
        C m = loadAs<C>(p.data[1] + off[1], p.dtype[1]);
        C v = loadAs<C>(p.data[2] + off[2], p.dtype[2]);
        C vmax = ams ? loadAs<C>(p.data[3] + off[3], p.dtype[3]) : C(0);
        const C grad = loadAs<C>(p.data[g] + off[g], p.dtype[g]);
        const C stp = loadAs<C>(p.data[st] + off[st], p.dtype[st]);
        pw::adamStep<C>(pv, m, v, vmax, grad, stp, p.lr, p.beta1, p.beta2, p.eps, p.wd, p.flags);
        storeAs<C>(p.data[0] + off[0], p.dtype[0], pv);
        storeAs<C>(p.data[1] + off[1], p.dtype[1], m);
        storeAs<C>(p.data[2] + off[2], p.dtype[2], v);
        if (ams) storeAs<C>(p.data[3] + off[3], p.dtype[3], vmax);
    }
}

// ---- host ----

const char *const kName = "pointwise";

bool aligned(const void *p, int64_t bytes) {
    return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes) == 0;
}

// The rows layout of a coalesced space whose operand 0 is unit-stride along dim 0: the outer dims' element strides
// of operands 0..nops-1 (nops <= 4). False when an operand's dim-0 stride is not 0 or one element (operand 0: one).
bool rowsOf(const Space &sp, const infiniopIter_t &it, int nops, RowsGeo &g, int64_t &inner, int64_t &rows) {
    g = RowsGeo{};
    inner = sp.ndim > 0 ? sp.shape[0] : 1;
    rows = 1;
    for (int k = 0; k < nops; ++k) {
        if (it.data[k] == nullptr || sp.ndim == 0) continue;
        const int64_t e = elemSize(it.dtype[k]), s0 = sp.stride[k][0];
        if (!(s0 == e || (k > 0 && s0 == 0))) return false;
    }
    g.ndim = sp.ndim > 0 ? sp.ndim - 1 : 0;
    for (int d = 1; d < sp.ndim; ++d) {
        g.shape[d - 1] = sp.shape[d];
        rows *= sp.shape[d];
        for (int k = 0; k < nops; ++k) g.stride[d - 1][k] = sp.stride[k][d] / elemSize(it.dtype[k]);
    }
    return true;
}

// Whether every unit-stride operand takes pieces of n elements: its data aligned to the piece and, with several
// rows, every row start too (inner a multiple of n, every outer stride as well).
bool piecesFit(const infiniopIter_t &it, const Space &sp, const RowsGeo &g, int64_t inner, int64_t rows, int nops,
               int64_t n) {
    if (n <= 1) return true;
    if (rows > 1 && inner % n != 0) return false;
    for (int k = 0; k < nops; ++k) {
        if (it.data[k] == nullptr || (k > 0 && sp.ndim > 0 && sp.stride[k][0] == 0)) continue;
        if (!aligned(it.data[k], n * elemSize(it.dtype[k]))) return false;
        for (int d = 0; d < g.ndim; ++d) {
            if (g.stride[d][k] % n != 0) return false;
        }
    }
    return true;
}

// The rows layout where rows are several and long enough (a block of kRowThreads threads a row's pieces, U each):
// sets by_rows and the launch's shape.
constexpr int kRowThreads = 128;

void rowsGrid(int64_t rows, int64_t vpr, int per_thread, int *by_rows, dim3 *grid, dim3 *block) {
    *by_rows = rows > 1 && vpr >= 64;
    if (!*by_rows) return;
    const int64_t per_block = static_cast<int64_t>(kRowThreads) * per_thread;
    int64_t gx = (vpr + per_block - 1) / per_block;
    const int64_t gy = rows < 65535 ? rows : 65535;
    const int64_t cap = (static_cast<int64_t>(smCount()) * 64 + gy - 1) / gy;  // enough blocks, not one a piece
    if (gx > cap) gx = cap;
    *grid = dim3(static_cast<unsigned>(gx < 1 ? 1 : gx), static_cast<unsigned>(gy));
    *block = dim3(kRowThreads);
}

template <class T, int NIN>
cudaError_t launchVec(VecParams &p, bool wide_pieces, cudaStream_t stream) {
    constexpr int NV = 16 / sizeof(T);
    const int n = wide_pieces ? NV : 1;
    p.vpr = p.inner / n;
    const int64_t work = p.rows * p.vpr > 0 ? p.rows * p.vpr : p.inner;
    const bool fast = isFast(p.op, NIN);
    const int per_thread = fast ? kUnroll<NIN> : 1;
    dim3 grid(gridFor((work + per_thread - 1) / per_thread, kThreads)), block(kThreads);
    rowsGrid(p.rows, p.vpr, per_thread, &p.by_rows, &grid, &block);
    if constexpr (NIN == 0) {  // (FILL: the only op without inputs that takes this path)
        return wide_pieces ? launchOp(pwVecFast<T, NIN, NV>, grid, block, 0, stream, p)
                           : launchOp(pwVecFast<T, NIN, 1>, grid, block, 0, stream, p);
    } else if constexpr (NIN == 3) {
        return wide_pieces ? launchOp(pwVecAny<T, NIN, NV>, grid, block, 0, stream, p)
                           : launchOp(pwVecAny<T, NIN, 1>, grid, block, 0, stream, p);
    } else if (fast) {
        return wide_pieces ? launchOp(pwVecFast<T, NIN, NV>, grid, block, 0, stream, p)
                           : launchOp(pwVecFast<T, NIN, 1>, grid, block, 0, stream, p);
    } else {
        return wide_pieces ? launchOp(pwVecAny<T, NIN, NV>, grid, block, 0, stream, p)
                           : launchOp(pwVecAny<T, NIN, 1>, grid, block, 0, stream, p);
    }
}

template <class T>
cudaError_t launchVecT(VecParams &p, bool wide_pieces, cudaStream_t stream) {
    switch (p.nin) {
        case 0: return launchVec<T, 0>(p, wide_pieces, stream);
        case 1: return launchVec<T, 1>(p, wide_pieces, stream);
        case 2: return launchVec<T, 2>(p, wide_pieces, stream);
        default: return launchVec<T, 3>(p, wide_pieces, stream);
    }
}

// The vectorized float path, when the operands take it (returns false without launching otherwise).
bool tryVec(const infiniopPointwiseArgs_t &a, const Space &sp, int nin, const Ctx &ctx, infiniStatus_t *status) {
    const infiniopIter_t &it = a.iter;
    if (a.compute != INFINI_DTYPE_F32 || a.noutputs != 1 || (nin == 0 && a.op != INFINIOP_PW_FILL)) return false;
    const infiniDtype_t t = it.dtype[0];
    if (t != INFINI_DTYPE_F32 && t != INFINI_DTYPE_F16 && t != INFINI_DTYPE_BF16) return false;
    for (int k = 1; k <= nin; ++k) {
        if (it.data[k] != nullptr && it.dtype[k] != t) return false;
    }
    VecParams p{};
    int64_t inner, rows;
    if (!rowsOf(sp, it, 1 + nin, p.geo, inner, rows)) return false;
    p.out = it.data[0];
    p.inner = inner;
    p.rows = rows;
    p.op = a.op;
    p.nin = nin;
    for (int k = 0; k < 4; ++k) {
        p.sc.s[k] = static_cast<float>(a.f[k]);
        p.sc.si[k] = a.i[k];
    }
    for (int k = 0; k < nin; ++k) {
        const int q = 1 + k;
        p.in[k] = it.data[q];
        p.cval[k] = static_cast<float>(a.cf[q]);
        p.mode[k] = it.data[q] == nullptr ? kConst : (sp.ndim > 0 && sp.stride[q][0] == 0 ? kBcast : kVec);
    }
    const int64_t nv = 16 / elemSize(t);
    const bool wide = inner >= nv && piecesFit(it, sp, p.geo, inner, rows, 1 + nin, nv);
    // ADD, SUB and MUL with one constant operand as ADD_SCALAR / MUL_SCALAR of the other (the same arithmetic, exactly:
    // alpha 1, addition and multiplication commute, x - c = x + (-c)): the single-input kernel, more loads in flight
    if (nin == 2 && (it.data[1] == nullptr) != (it.data[2] == nullptr)) {
        const int keep = it.data[1] != nullptr ? 0 : 1;
        const float c = p.cval[1 - keep];
        int op = -1;
        float s0 = 0.0f;
        if (a.op == INFINIOP_PW_MUL) {
            op = INFINIOP_PW_MUL_SCALAR;
            s0 = c;
        } else if (a.op == INFINIOP_PW_ADD && a.f[0] == 1.0) {
            op = INFINIOP_PW_ADD_SCALAR;
            s0 = c;
        } else if (a.op == INFINIOP_PW_SUB && a.f[0] == 1.0 && keep == 0) {
            op = INFINIOP_PW_ADD_SCALAR;
            s0 = -c;
        }
        if (op >= 0) {
            if (keep == 1) {
                p.in[0] = p.in[1];
                p.mode[0] = p.mode[1];
                for (int d = 0; d < p.geo.ndim; ++d) p.geo.stride[d][1] = p.geo.stride[d][2];
            }
            p.op = op;
            p.nin = 1;
            p.sc.s[0] = s0;
        }
    }
    cudaError_t err;
    switch (t) {
        case INFINI_DTYPE_F32: err = launchVecT<float>(p, wide, ctx.stream); break;
        case INFINI_DTYPE_F16: err = launchVecT<__half>(p, wide, ctx.stream); break;
        default: err = launchVecT<__nv_bfloat16>(p, wide, ctx.stream); break;
    }
    *status = launchStatus(err, kName);
    return true;
}

template <class U>
cudaError_t launchCopy(CopyParams &p, bool wide_pieces, cudaStream_t stream) {
    constexpr int NV = 16 / sizeof(U);
    if constexpr (NV > 1) {
        if (wide_pieces && !p.bcast && (p.rows > 1 || p.inner % NV == 0)) {
            // raw bits: whatever the dtype, move 16-byte words (one register quad a piece, not NV registers)
            for (int d = 0; d < p.geo.ndim; ++d) {
                p.geo.stride[d][0] /= NV;
                p.geo.stride[d][1] /= NV;
            }
            p.inner /= NV;
            return launchCopy<uint4>(p, false, stream);
        }
    }
    const int n = wide_pieces ? NV : 1;
    p.vpr = p.inner / n;
    const int64_t work = p.rows * p.vpr > 0 ? p.rows * p.vpr : p.inner;
    dim3 grid(gridFor((work + kCopyUnroll - 1) / kCopyUnroll, kThreads)), block(kThreads);
    rowsGrid(p.rows, p.vpr, kCopyUnroll, &p.by_rows, &grid, &block);
    if (p.by_rows) {
        // a block of kThreads: as many lanes a row as give each kCopyUnroll pieces (32 at least), the rest more rows
        int64_t bx = ((p.vpr + kCopyUnroll - 1) / kCopyUnroll + 31) / 32 * 32;
        if (bx > kThreads) bx = kThreads;
        const int64_t by = kThreads / bx;
        int64_t gy = (p.rows + by - 1) / by;
        if (gy > 65535) gy = 65535;
        int64_t gx = (p.vpr + bx * kCopyUnroll - 1) / (bx * kCopyUnroll);
        const int64_t cap = (static_cast<int64_t>(smCount()) * 32 + gy - 1) / gy;  // enough blocks, not one a piece
        if (gx > cap) gx = cap;
        grid = dim3(static_cast<unsigned>(gx < 1 ? 1 : gx), static_cast<unsigned>(gy));
        block = dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by));
    }
    if (p.by_rows) {
        return wide_pieces ? launchOp(pwCopy<U, NV, true>, grid, block, 0, stream, p)
                           : launchOp(pwCopy<U, 1, true>, grid, block, 0, stream, p);
    }
    return wide_pieces ? launchOp(pwCopy<U, NV, false>, grid, block, 0, stream, p)
                       : launchOp(pwCopy<U, 1, false>, grid, block, 0, stream, p);
}

// COPY between operands of one dtype in the rows layout, as raw elements.
bool tryCopy(const infiniopPointwiseArgs_t &a, const Space &sp, const Ctx &ctx, infiniStatus_t *status) {
    const infiniopIter_t &it = a.iter;
    if (a.op != INFINIOP_PW_COPY || a.noutputs != 1 || it.noperands != 2 || it.data[1] == nullptr) return false;
    if (it.dtype[0] != it.dtype[1]) return false;
    CopyParams p{};
    int64_t inner, rows;
    if (!rowsOf(sp, it, 2, p.geo, inner, rows)) return false;
    p.out = it.data[0];
    p.in = it.data[1];
    p.bcast = sp.ndim > 0 && sp.stride[1][0] == 0;
    p.inner = inner;
    p.rows = rows;
    const int e = elemSize(it.dtype[0]);
    const int64_t nv = 16 / e;
    const bool wide = inner >= nv && piecesFit(it, sp, p.geo, inner, rows, 2, nv);
    cudaError_t err;
    switch (e) {
        case 8: err = launchCopy<uint64_t>(p, wide, ctx.stream); break;
        case 4: err = launchCopy<uint32_t>(p, wide, ctx.stream); break;
        case 2: err = launchCopy<uint16_t>(p, wide, ctx.stream); break;
        default: err = launchCopy<uint8_t>(p, wide, ctx.stream); break;
    }
    *status = launchStatus(err, kName);
    return true;
}

template <class C>
infiniStatus_t runGeneric(const infiniopPointwiseArgs_t &a, const Space &sp, int nin, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    GenParams<C> p{};
    p.geo = geoOf<4>(sp);
    for (int k = 0; k < 4; ++k) {
        p.data[k] = k < it.noperands ? static_cast<char *>(it.data[k]) : nullptr;
        p.dtype[k] = k < it.noperands ? it.dtype[k] : INFINI_DTYPE_F32;
        p.cval[k] = std::is_integral_v<C> ? static_cast<C>(a.ci[k]) : static_cast<C>(a.cf[k]);
        p.sc.s[k] = std::is_integral_v<C> ? static_cast<C>(a.i[k]) : static_cast<C>(a.f[k]);
        p.sc.si[k] = a.i[k];
    }
    p.op = a.op;
    p.nin = nin;
    p.n = sp.numel();
    const unsigned grid = gridFor(p.n, kThreads);
    const cudaError_t err = fits32(sp) ? launchOp(pwGeneric<C, false>, dim3(grid), dim3(kThreads), 0, ctx.stream, p)
                                       : launchOp(pwGeneric<C, true>, dim3(grid), dim3(kThreads), 0, ctx.stream, p);
    return launchStatus(err, kName);
}

template <class C>
infiniStatus_t runAdam(const infiniopPointwiseArgs_t &a, const Space &sp, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    AdamParams p{};
    p.geo = geoOf<kMaxOps>(sp);
    for (int k = 0; k < it.noperands; ++k) {
        p.data[k] = static_cast<char *>(it.data[k]);
        p.dtype[k] = it.dtype[k];
    }
    p.nout = a.noutputs;
    p.flags = a.flags;
    p.lr = a.f[0];
    p.beta1 = a.f[1];
    p.beta2 = a.f[2];
    p.eps = a.f[3];
    p.wd = a.wd;
    p.n = sp.numel();
    const unsigned grid = gridFor(p.n, kThreads);
    const cudaError_t err = fits32(sp) ? launchOp(pwAdam<C, false>, dim3(grid), dim3(kThreads), 0, ctx.stream, p)
                                       : launchOp(pwAdam<C, true>, dim3(grid), dim3(kThreads), 0, ctx.stream, p);
    return launchStatus(err, kName);
}

}  // namespace

infiniStatus_t pointwise(const infiniopPointwiseArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const int nops = it.noperands;
    int nin = 0;
    if (a.op == INFINIOP_PW_ADAMW) {
        if ((a.noutputs != 3 && a.noutputs != 4) || nops != 2 * a.noutputs + 2) {
            return fail(INFINI_STATUS_BAD_PARAM, "pointwise ADAMW: %d outputs and %d operands", a.noutputs, nops);
        }
        if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "pointwise ADAMW: compute dtype %d", a.compute);
        }
        for (int k = 0; k < nops; ++k) {
            if (it.data[k] == nullptr)
                return fail(INFINI_STATUS_NULL_POINTER, "pointwise ADAMW: operand %d is NULL", k);
        }
    } else {
        nin = pw::arity(a.op, a.i[2]);
        if (nin < 0 || a.noutputs != 1 || nops != 1 + nin) {
            return fail(INFINI_STATUS_BAD_PARAM, "pointwise op %d: %d outputs and %d operands (expected 1 and %d)",
                        a.op, a.noutputs, nops, 1 + nin);
        }
    }
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "pointwise: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    INFINI_RETURN_IF_ERROR(checkDtypes(kName, it));
    Space sp = spaceOf(it);
    if (sp.numel() == 0) return INFINI_STATUS_SUCCESS;
    coalesce(sp);  // (keeps every linear index's offsets: IOTA's k is still the linear index)
    if (a.op == INFINIOP_PW_ADAMW) {
        return a.compute == INFINI_DTYPE_F64 ? runAdam<double>(a, sp, ctx) : runAdam<float>(a, sp, ctx);
    }
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    if (tryCopy(a, sp, ctx, &status)) return status;
    if (tryVec(a, sp, nin, ctx, &status)) return status;
    switch (a.compute) {
        case INFINI_DTYPE_F32: return runGeneric<float>(a, sp, nin, ctx);
        case INFINI_DTYPE_F64: return runGeneric<double>(a, sp, nin, ctx);
        default: return runGeneric<int64_t>(a, sp, nin, ctx);
    }
}

}  // namespace infini::nvidia::families
