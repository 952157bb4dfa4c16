// families/rows.cu: the rows family: softmax, log_softmax and their backwards over the middle dim of a contiguous
// [outer, n, inner] view (families.h). Three kernels, the op a runtime switch in each:
// - rowsVec (inner == 1, every operand on 16 bytes, n a multiple of x's 16-byte piece; typed on x's (and y's)
//   dtype and out's): a block a row, 16-byte loads, the row held in registers as floats where the block holds it
//   (one read of the row), else read again for the write (max and sum in one online pass first).
// - rowsAny (inner == 1, any float dtypes and alignment): a block a row, an element at a time, read twice.
// - rowsCols (inner > 1): 32 columns (o, i) a block, coalesced across i, 8 threads down each column.
// Math in float (double where an operand is F64). NaN and inf as torch's kernels give them: the max ignores NaN
// but a NaN reaches the sum and so every output of its row; a row of only -inf (or NaN) is NaN (exp(-inf - -inf));
// a +inf makes its row NaN (exp(inf - inf) in the sum).
#include <algorithm>

#include "elems.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kVecs = 4;  // 16-byte pieces a thread holds (rowsVec)

// The online (max, sum of exp(x - max)) step: a larger x moves the sum onto it (exp(x - x) is 1, NaN for an
// infinite x as exp(inf - inf) in torch's sum); -inf adds nothing; a NaN makes the sum NaN. m never becomes NaN.
template <typename A>
__device__ __forceinline__ void onlineStep(A x, A &m, A &s) {
    if (x > m) {
        s = s * expA(m - x) + (isinf(x) ? A(NAN) : A(1));
        m = x;
    } else if (x > A(-INFINITY) || x != x) {
        s += expA(x - m);
    }
}

// A thread's (m, s) moved onto the max M of the group: a thread that saw no value above -inf holds s = 0 or NaN.
template <typename A>
__device__ __forceinline__ A onto(A m, A s, A M) {
    return m == A(-INFINITY) ? s : s * expA(m - M);
}

// The block's (M, S) from each thread's online (m, s).
template <typename A>
__device__ __forceinline__ void blockOnline(A m, A s, A &M, A &S, A *smem) {
    M = blockMaxA(m, smem);
    S = blockSumA(onto(m, s, M), smem);
}

// What the write of element x (with the forward output y for the backwards) is, given the row's reductions: the
// forwards' max M and sum S (inv = 1 / S, ls = log S), the backwards' sum S.
template <typename A>
struct RowStats {
    A M, S, inv, ls;
};
template <typename A>
__device__ __forceinline__ A rowOut(int op, A x, A y, const RowStats<A> &r) {
    switch (op) {
        case INFINIOP_ROWS_SOFTMAX: return r.M == A(-INFINITY) ? A(NAN) : expA(x - r.M) * r.inv;
        case INFINIOP_ROWS_LOG_SOFTMAX: return r.M == A(-INFINITY) ? A(NAN) : (x - r.M) - r.ls;
        case INFINIOP_ROWS_SOFTMAX_BWD: return y * (x - r.S);
        default: return x - expA(y) * r.S;
    }
}
template <typename A>
__device__ __forceinline__ RowStats<A> statsOf(A M, A S) {
    return RowStats<A>{M, S, A(1) / S, logA(S)};
}
__device__ __forceinline__ bool forwardOp(int op) {
    return op == INFINIOP_ROWS_SOFTMAX || op == INFINIOP_ROWS_LOG_SOFTMAX;
}

// ---- rowsVec: a block a row (grid-stride over rows), N = 16 / sizeof(TX) elements a piece, kVecs pieces a
// thread held in registers (CACHED: the host checked that the row fits: nv <= kVecs * blockDim.x). y (the forward
// output, backwards only) has x's dtype.
template <typename TX, typename TO, bool CACHED>
__global__ void rowsVec(int op, long long rows, long long n, TO *out, const TX *x, const TX *y) {
    constexpr int N = 16 / sizeof(TX), P = kVecs;
    __shared__ float smem[32];
    const long long nv = n / N, bd = blockDim.x, t = threadIdx.x;
    const bool fwd = forwardOp(op);
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const TX *xr = x + row * n, *yr = fwd ? nullptr : y + row * n;
        TO *orow = out + row * n;
        float xs[P][N];
        RowStats<float> st;
        if constexpr (CACHED) {
            float acc = fwd ? -INFINITY : 0.0f;  // the thread's max (forwards) or sum (backwards)
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long v = t + i * bd;
                if (v < nv) {
                    loadN<TX, N>(xr + v * N, xs[i]);
                    if (op == INFINIOP_ROWS_SOFTMAX_BWD) {
                        float ys[N];
                        loadN<TX, N>(yr + v * N, ys);
#pragma unroll
                        for (int e = 0; e < N; ++e) acc += xs[i][e] * ys[e];
                    } else {
#pragma unroll
                        for (int e = 0; e < N; ++e) acc = fwd ? fmaxf(acc, xs[i][e]) : acc + xs[i][e];
                    }
                }
            }
            if (fwd) {
                const float M = blockMaxA(acc, smem);
                float s = 0.0f;
                if (M != -INFINITY) {
#pragma unroll
                    for (int i = 0; i < P; ++i) {
                        if (t + i * bd < nv) {
#pragma unroll
                            for (int e = 0; e < N; ++e) {
                                const float ex = expf(xs[i][e] - M);
                                s += ex;
                                if (op == INFINIOP_ROWS_SOFTMAX) xs[i][e] = ex;  // (kept: the write scales it)
                            }
                        }
                    }
                }
                st = statsOf(M, blockSumA(s, smem));
            } else {
                st = statsOf(0.0f, blockSumA(acc, smem));
            }
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long v = t + i * bd;
                if (v < nv) {
                    float ys[N], o[N];
                    if (!fwd) loadN<TX, N>(yr + v * N, ys);
#pragma unroll
                    for (int e = 0; e < N; ++e) {
                        if (op == INFINIOP_ROWS_SOFTMAX)
                            o[e] = st.M == -INFINITY ? NAN : xs[i][e] * st.inv;
                        else
                            o[e] = rowOut<float>(op, xs[i][e], fwd ? 0.0f : ys[e], st);
                    }
                    storeN<TO, N>(orow + v * N, o);
                }
            }
        } else {
            // the reductions in one pass (P pieces in flight a thread), then the write reading the row again
            float m = -INFINITY, s = 0.0f;
            for (long long v0 = t; v0 < nv; v0 += P * bd) {
                float ys[P][N];
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    const long long v = v0 + i * bd;
                    if (v < nv) {
                        loadN<TX, N>(xr + v * N, xs[i]);
                        if (op == INFINIOP_ROWS_SOFTMAX_BWD) loadN<TX, N>(yr + v * N, ys[i]);
                    }
                }
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    if (v0 + i * bd < nv) {
#pragma unroll
                        for (int e = 0; e < N; ++e) {
                            if (fwd)
                                onlineStep(xs[i][e], m, s);
                            else
                                s += op == INFINIOP_ROWS_SOFTMAX_BWD ? xs[i][e] * ys[i][e] : xs[i][e];
                        }
                    }
                }
            }
            if (fwd) {
                float M, S;
                blockOnline(m, s, M, S, smem);
                st = statsOf(M, S);
            } else {
                st = statsOf(0.0f, blockSumA(s, smem));
            }
            for (long long v0 = t; v0 < nv; v0 += P * bd) {
                float ys[P][N];
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    const long long v = v0 + i * bd;
                    if (v < nv) {
                        loadN<TX, N>(xr + v * N, xs[i]);
                        if (!fwd) loadN<TX, N>(yr + v * N, ys[i]);
                    }
                }
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    const long long v = v0 + i * bd;
                    if (v < nv) {
                        float o[N];
#pragma unroll
                        for (int e = 0; e < N; ++e) o[e] = rowOut<float>(op, xs[i][e], fwd ? 0.0f : ys[i][e], st);
                        storeN<TO, N>(orow + v * N, o);
                    }
                }
            }
        }
    }
}

// ---- rowsAny: a block a row (grid-stride), element by element in any float dtypes, read twice.
template <typename A>
__global__ void __launch_bounds__(256) rowsAny(int op, long long rows, long long n, void *out, infiniDtype_t to,
                                               const void *x, infiniDtype_t tx, const void *y, infiniDtype_t ty) {
    __shared__ A smem[32];
    const bool fwd = forwardOp(op);
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const long long base = row * n;
        A m = A(-INFINITY), s = A(0);
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const A xv = ldAs<A>(x, tx, base + j);
            if (fwd)
                onlineStep(xv, m, s);
            else
                s += op == INFINIOP_ROWS_SOFTMAX_BWD ? xv * ldAs<A>(y, ty, base + j) : xv;
        }
        RowStats<A> st;
        if (fwd) {
            A M, S;
            blockOnline(m, s, M, S, smem);
            st = statsOf(M, S);
        } else {
            st = statsOf(A(0), blockSumA(s, smem));
        }
        for (long long j = threadIdx.x; j < n; j += blockDim.x) {
            const A xv = ldAs<A>(x, tx, base + j), yv = fwd ? A(0) : ldAs<A>(y, ty, base + j);
            stAs<A>(out, to, base + j, rowOut<A>(op, xv, yv, st));
        }
    }
}

// ---- rowsCols: inner > 1. Block (32, 8): column c = o * inner + i of the [outer, inner] columns (32 consecutive
// a block, grid-stride), element j of it at (o * n + j) * inner + i; thread y takes j = y, y + 8, ...; the eight
// partial reductions combined through shared memory.
template <typename A>
__global__ void __launch_bounds__(256)
    rowsCols(int op, long long outer, long long n, long long inner, void *out, infiniDtype_t to, const void *x,
             infiniDtype_t tx, const void *y, infiniDtype_t ty) {
    __shared__ A pm[8][32], ps[8][32];
    const bool fwd = forwardOp(op);
    const long long cols = outer * inner;
    const int tx_ = threadIdx.x, ty_ = threadIdx.y;
    for (long long cb = static_cast<long long>(blockIdx.x) * 32; cb < cols;
         cb += static_cast<long long>(gridDim.x) * 32) {
        const long long c = cb + tx_;
        const bool live = c < cols;
        const long long o = live ? c / inner : 0, i = live ? c - o * inner : 0;
        const long long base = o * n * inner + i;
        A m = A(-INFINITY), s = A(0);
        if (live) {
            for (long long j = ty_; j < n; j += 8) {
                const A xv = ldAs<A>(x, tx, base + j * inner);
                if (fwd)
                    onlineStep(xv, m, s);
                else
                    s += op == INFINIOP_ROWS_SOFTMAX_BWD ? xv * ldAs<A>(y, ty, base + j * inner) : xv;
            }
        }
        __syncthreads();  // (the previous columns' partials were read)
        pm[ty_][tx_] = m;
        ps[ty_][tx_] = s;
        __syncthreads();
        RowStats<A> st;
        if (fwd) {
            A M = A(-INFINITY), S = A(0);
#pragma unroll
            for (int k = 0; k < 8; ++k) M = fmax(M, pm[k][tx_]);
#pragma unroll
            for (int k = 0; k < 8; ++k) S += onto(pm[k][tx_], ps[k][tx_], M);
            st = statsOf(M, S);
        } else {
            A S = A(0);
#pragma unroll
            for (int k = 0; k < 8; ++k) S += ps[k][tx_];
            st = statsOf(A(0), S);
        }
        if (live) {
            for (long long j = ty_; j < n; j += 8) {
                const long long k = base + j * inner;
                const A xv = ldAs<A>(x, tx, k), yv = fwd ? A(0) : ldAs<A>(y, ty, k);
                stAs<A>(out, to, k, rowOut<A>(op, xv, yv, st));
            }
        }
    }
}

// rowsVec for x's dtype TX and out's dtype TO.
template <typename TX, typename TO>
infiniStatus_t launchVec(const infiniopRowsArgs_t &a, const Ctx &q) {
    constexpr int N = 16 / sizeof(TX);
    const long long nv = a.n / N, rows = a.outer;
    auto cached = rowsVec<TX, TO, true>;
    auto plain = rowsVec<TX, TO, false>;
    const int threads = threadsFor(nv, kVecs, threadCap<rowsVec<TX, TO, true>>());
    const bool hold = nv <= static_cast<long long>(kVecs) * threads;
    const unsigned grid = gridX(rows);
    if (hold) {
        cached<<<grid, threads, 0, q.stream>>>(a.op, rows, a.n, static_cast<TO *>(a.out), static_cast<const TX *>(a.x),
                                               static_cast<const TX *>(a.y));
    } else {
        plain<<<grid, threadCap<rowsVec<TX, TO, false>>(), 0, q.stream>>>(
            a.op, rows, a.n, static_cast<TO *>(a.out), static_cast<const TX *>(a.x), static_cast<const TX *>(a.y));
    }
    return launched("infiniopRows");
}

template <typename TX>
infiniStatus_t launchVecOut(const infiniopRowsArgs_t &a, const Ctx &q) {
    switch (a.out_dtype) {
        case INFINI_DTYPE_F32: return launchVec<TX, float>(a, q);
        case INFINI_DTYPE_F16: return launchVec<TX, __half>(a, q);
        default: return launchVec<TX, __nv_bfloat16>(a, q);
    }
}

bool vecDtype(infiniDtype_t t) { return t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16 || t == INFINI_DTYPE_F32; }

}  // namespace

infiniStatus_t rows(const infiniopRowsArgs_t &a, const Ctx &q) {
    const bool bwd = a.op == INFINIOP_ROWS_SOFTMAX_BWD || a.op == INFINIOP_ROWS_LOG_SOFTMAX_BWD;
    if (!isFloatDtype(a.out_dtype) || !isFloatDtype(a.x_dtype) || (bwd && !isFloatDtype(a.y_dtype))) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE,
                    "infiniopRows: dtypes %d, %d, %d (float16, bfloat16, float32 or float64)", a.out_dtype, a.x_dtype,
                    a.y_dtype);
    }
    if (a.outer == 0 || a.n == 0 || a.inner == 0) return INFINI_STATUS_SUCCESS;
    if (a.out == nullptr || a.x == nullptr || (bwd && a.y == nullptr)) {
        return fail(INFINI_STATUS_NULL_POINTER, "infiniopRows: an operand is NULL");
    }
    const bool f64 =
        a.out_dtype == INFINI_DTYPE_F64 || a.x_dtype == INFINI_DTYPE_F64 || (bwd && a.y_dtype == INFINI_DTYPE_F64);
    if (a.inner == 1) {
        const int piece = static_cast<int>(16 / dtypeSize(a.x_dtype));
        const bool vec = !f64 && vecDtype(a.x_dtype) && vecDtype(a.out_dtype) && (!bwd || a.y_dtype == a.x_dtype) &&
                         a.n % piece == 0 && aligned16(a.x) && aligned16(a.out) && (!bwd || aligned16(a.y));
        if (vec) {
            switch (a.x_dtype) {
                case INFINI_DTYPE_F32: return launchVecOut<float>(a, q);
                case INFINI_DTYPE_F16: return launchVecOut<__half>(a, q);
                default: return launchVecOut<__nv_bfloat16>(a, q);
            }
        }
        const unsigned grid = gridX(a.outer);
        if (f64) {
            rowsAny<double>
                <<<grid, 256, 0, q.stream>>>(a.op, a.outer, a.n, a.out, a.out_dtype, a.x, a.x_dtype, a.y, a.y_dtype);
        } else {
            rowsAny<float>
                <<<grid, 256, 0, q.stream>>>(a.op, a.outer, a.n, a.out, a.out_dtype, a.x, a.x_dtype, a.y, a.y_dtype);
        }
        return launched("infiniopRows");
    }
    const unsigned grid = gridX((a.outer * a.inner + 31) / 32);
    const dim3 block(32, 8);
    if (f64) {
        rowsCols<double><<<grid, block, 0, q.stream>>>(a.op, a.outer, a.n, a.inner, a.out, a.out_dtype, a.x, a.x_dtype,
                                                       a.y, a.y_dtype);
    } else {
        rowsCols<float><<<grid, block, 0, q.stream>>>(a.op, a.outer, a.n, a.inner, a.out, a.out_dtype, a.x, a.x_dtype,
                                                      a.y, a.y_dtype);
    }
    return launched("infiniopRows");
}

}  // namespace infini::nvidia::families
