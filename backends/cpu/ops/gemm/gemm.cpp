// gemm.cpp: the gemm op, c = alpha * a @ b + beta * c_in: it picks the kernel of this folder for the
// shape and dtype: bfloat16 on AMX (amx.cpp) or AVX512-BF16 (dpbf16.cpp) where the CPU has them, few
// rows of a (decode) through gemv.cpp, and the rest through OpenBLAS's sgemm (float32 accumulation for
// every dtype): float32 operands go to BLAS as they lie (row- or column-major, so transposed views cost
// no copy); float16/bfloat16 operands are widened to float32 first.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../convert.h"
#include "../op_base.h"
#include "../parallel.h"
#include "amx.h"
#include "dpbf16.h"
#include "gemv.h"

#ifdef INFINI_OPENBLAS_LIB
#include <cblas.h>  // scipy-openblas32: every symbol carries the scipy_ prefix
#include <dlfcn.h>
#endif

namespace infini::cpu::ops::INFINI_CPU_ISA {

#ifdef INFINI_OPENBLAS_LIB
namespace {

using SgemmFn = decltype(&scipy_cblas_sgemm);

// OpenBLAS's sgemm, loaded on first use with one thread (our threads split the work), or nullptr
// with the reason in *why.
SgemmFn loadSgemm(std::string *why) {
    static std::string error;
    static SgemmFn fn = [] {
        setenv("OPENBLAS_NUM_THREADS", "1", 0);
        void *lib = dlopen(INFINI_OPENBLAS_LIB, RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            const char *e = dlerror();
            error = e ? e : "dlopen failed";
            return static_cast<SgemmFn>(nullptr);
        }
        auto f = reinterpret_cast<SgemmFn>(dlsym(lib, "scipy_cblas_sgemm"));
        if (f == nullptr) error = "no scipy_cblas_sgemm in " INFINI_OPENBLAS_LIB;
        return f;
    }();
    if (why) *why = error;
    return fn;
}

// Where a batched gemm's matrices start (element strides between batches) and whether c_in is read.
struct BatchPlace {
    size_t batch;
    ptrdiff_t c, a, b, cin;
    bool read_cin;  // c_in given and beta != 0 (else f gets nullptr and c_in is never read)
};

// The kernel that calls f(c, a, b, c_in) on each batch's matrices (data: c, a, b, c_in).
template <typename T, typename F>
Kernel perBatch(const BatchPlace &at, F f) {
    return [at, f](void *const *data) {
        auto *pc = static_cast<T *>(data[0]);
        const auto *pa = static_cast<const T *>(data[1]);
        const auto *pb = static_cast<const T *>(data[2]);
        const auto *pi = at.read_cin ? static_cast<const T *>(data[3]) : nullptr;
        for (size_t q = 0; q < at.batch; ++q) {
            auto off = static_cast<ptrdiff_t>(q);
            f(pc + off * at.c, pa + off * at.a, pb + off * at.b, pi ? pi + off * at.cin : nullptr);
        }
    };
}

// How BLAS sees one matrix of a [.., rows, cols] tensor: row-major with leading dimension ld, or
// its transpose; `ok` is false when neither dimension has stride 1.
struct BlasView {
    bool ok = false;
    bool trans = false;
    int ld = 0;
};

BlasView blasView(const Layout &t, size_t rows, size_t cols) {
    ptrdiff_t sr = t.strides[t.ndim() - 2], sc = t.strides[t.ndim() - 1];
    // the stride of a dimension of size 1 is never used (torch's is arbitrary there; csrc passes such a
    // matrix as it is): a single column is row-major, a single row column-major
    if (cols <= 1)
        sc = 1;
    else if (rows <= 1)
        sr = 1;
    BlasView v;
    if (sc == 1 && (rows <= 1 || sr >= static_cast<ptrdiff_t>(cols))) {
        v = {true, false, static_cast<int>(std::max<ptrdiff_t>(sr, std::max<size_t>(cols, 1)))};
    } else if (sr == 1 && (cols <= 1 || sc >= static_cast<ptrdiff_t>(rows))) {
        v = {true, true, static_cast<int>(std::max<ptrdiff_t>(sc, std::max<size_t>(rows, 1)))};
    }
    return v;
}

// A [rows, cols] matrix widened into contiguous float in its own memory order: row-major when its
// columns are contiguous (returns false), else as its transpose (returns true), so that the copy
// reads memory in order; BLAS is then told which.
template <typename T>
bool widen(float *dst, const T *src, ptrdiff_t sr, ptrdiff_t sc, size_t rows, size_t cols) {
    bool transposed = sc != 1 && sr == 1;
    size_t outer = transposed ? cols : rows, inner = transposed ? rows : cols;
    ptrdiff_t so = transposed ? sc : sr, si = transposed ? sr : sc;
    parallelFor(outer, inner, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            const T *line = src + static_cast<ptrdiff_t>(i) * so;
            float *out = dst + i * inner;
            if (si == 1) {
                for (size_t j = 0; j < inner; ++j) out[j] = toFloat(line[j]);
            } else {
                for (size_t j = 0; j < inner; ++j) out[j] = toFloat(line[static_cast<ptrdiff_t>(j) * si]);
            }
        }
    });
    return transposed;
}

// sgemm with our own threads (OpenBLAS runs single-threaded, so that its spinning workers never
// compete with the other kernels): C's rows split where A has more rows than B has columns, else C's
// columns, so that each thread reads its own part of the larger operand and all of the smaller one (a
// row split with fewer rows than columns has every thread read all of B: several times slower on
// many cores).
void parallelSgemm(bool ta, bool tb, size_t M, size_t N, size_t K, float alpha, const float *A, int lda, const float *B,
                   int ldb, float *C, int ldc) {
    SgemmFn sgemm = loadSgemm(nullptr);
    auto call = [&](size_t m0, size_t m1, size_t n0, size_t n1) {
        const float *a = ta ? A + m0 : A + m0 * static_cast<size_t>(lda);
        const float *b = tb ? B + n0 * static_cast<size_t>(ldb) : B + n0;
        sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m1 - m0),
              static_cast<int>(n1 - n0), static_cast<int>(K), alpha, a, lda, b, ldb, 0.0f,
              C + m0 * static_cast<size_t>(ldc) + n0, ldc);
    };
    if (M > N) {
        parallelFor((M + 15) / 16, 16 * N * K / 64,
                    [&](size_t b0, size_t b1) { call(b0 * 16, std::min(M, b1 * 16), 0, N); });
    } else {
        parallelFor((N + 63) / 64, 64 * M * K / 64,
                    [&](size_t b0, size_t b1) { call(0, M, b0 * 64, std::min(N, b1 * 64)); });
    }
}

}  // namespace
#endif

infiniStatus_t makeGemm(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "gemm";
#ifndef INFINI_OPENBLAS_LIB
    (void)p;
    (void)k;
    return fail(INFINI_STATUS_NOT_IMPLEMENTED,
                "%s: the cpu backend was built without OpenBLAS (pip install scipy-openblas32, then rebuild)", op);
#else
    std::string why;
    if (loadSgemm(&why) == nullptr) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: OpenBLAS could not be loaded: %s", op, why.c_str());
    }
    Layout c = layoutOf(p.tensors[0]), a = layoutOf(p.tensors[1]), b = layoutOf(p.tensors[2]);
    bool has_cin = p.tensors[3] != nullptr;
    Layout cin = layoutOf(p.tensors[3]);
    float alpha = static_cast<float>(p.f[0]), beta = static_cast<float>(p.f[1]);
    INFINI_RETURN_IF_ERROR(checks::gemm(c, a, b, cin, has_cin));
    size_t nd = a.ndim(), M = a.shape[nd - 2], K = a.shape[nd - 1], N = b.shape[nd - 1];
    size_t batch = nd == 3 ? c.shape[0] : 1;
    BlasView va = blasView(a, M, K), vb = blasView(b, K, N);
    bool f32 = a.dtype == INFINI_DTYPE_F32;
    if (f32 && (!va.ok || !vb.ok)) {
        return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "%s: a and b need stride 1 in one of their last two dimensions",
                    op);
    }
    ptrdiff_t bsa = nd == 3 ? a.strides[0] : 0, bsb = nd == 3 ? b.strides[0] : 0, bsc = nd == 3 ? c.strides[0] : 0;
    ptrdiff_t bsi = has_cin && nd == 3 ? cin.strides[0] : 0;
    const BatchPlace place{batch, bsc, bsa, bsb, bsi, has_cin && beta != 0.0f};
    int ldc = static_cast<int>(std::max<ptrdiff_t>(c.strides[nd - 2], std::max<size_t>(N, 1)));
    bool amx = a.dtype == INFINI_DTYPE_BF16 && amxAvailable();
    const ptrdiff_t am = a.strides[nd - 2], ak = a.strides[nd - 1], bk = b.strides[nd - 2], bn = b.strides[nd - 1];
    const ptrdiff_t cm = c.strides[nd - 2], cn = c.strides[nd - 1];
    const ptrdiff_t im = has_cin ? cin.strides[nd - 2] : 0, in = has_cin ? cin.strides[nd - 1] : 0;
    // bfloat16 without AMX (dpbf16.cpp, vdpbf16ps): up to 256 rows against linear's weight (k contiguous)
    // as dot products read in place; more than 8 rows as a packed product; up to 8 rows against a
    // row-major B through gemv.cpp below (which streams B once: 1.6-4x faster than packing it there).
    const bool dp = !amx && a.dtype == INFINI_DTYPE_BF16 && dpbf16Available() && N > 0 && K > 0;
    if (dp && bk == 1 && M <= kDpbf16DotMaxRows) {
        *k = perBatch<bf16>(place, [=](bf16 *qc, const bf16 *qa, const bf16 *qb, const bf16 *qi) {
            dpbf16DotBf16(M, N, K, qa, am, ak, qb, bn, qc, cm, cn, qi, im, in, alpha, beta);
        });
        return INFINI_STATUS_SUCCESS;
    }
    if (dp && M > 8) {
        *k = perBatch<bf16>(place, [=](bf16 *qc, const bf16 *qa, const bf16 *qb, const bf16 *qi) {
            dpbf16GemmBf16(M, N, K, qa, am, ak, qb, bk, bn, qc, cm, cn, qi, im, in, alpha, beta);
        });
        return INFINI_STATUS_SUCCESS;
    }
    if (!amx && b.strides[nd - 1] == 1 && gemvShape(M, N, f32) && K > 0 && c.strides[nd - 1] == 1) {
        // decode with B row-major (gemv.cpp): B streamed once, no packing
        return dispatchFloat(a.dtype, op, [&](auto t) {
            using T = decltype(t);
            *k = perBatch<T>(place, [=](T *qc, const T *qa, const T *qb, const T *qi) {
                gemvRowMajorB<T>(M, N, K, qa, am, ak, qb, bk, qc, cm, qi, im, in, alpha, beta);
            });
        });
    }
    if (!amx && b.strides[nd - 2] == 1 && gemvDotShape(M, f32) && N > 0) {
        // B's k contiguous (linear's weight; gemv.cpp), decode rows (float32 with AVX-512: up to 128):
        // B read in place in its own dtype, as dot products
        return dispatchFloat(a.dtype, op, [&](auto t) {
            using T = decltype(t);
            *k = perBatch<T>(place, [=](T *qc, const T *qa, const T *qb, const T *qi) {
                gemvDotB<T>(M, N, K, qa, am, ak, qb, bn, qc, cm, cn, qi, im, in, alpha, beta);
            });
        });
    }
    if (amx && M > 0 && N > 0 && K > 0) {
        // AMX (amx.cpp): the operand whose k is contiguous, and the larger one when both are, goes
        // on the A side, where it is read in place; computing c^T = b^T a^T when that is b.
        bool swap = bk == 1 && (ak != 1 || N > M);
        *k = perBatch<bf16>(place, [=](bf16 *qc, const bf16 *qa, const bf16 *qb, const bf16 *qi) {
            if (swap) {
                amxGemmBf16(N, M, K, qb, bn, bk, qa, ak, am, qc, cn, cm, qi, in, im, alpha, beta);
            } else {
                amxGemmBf16(M, N, K, qa, am, ak, qb, bk, bn, qc, cm, cn, qi, im, in, alpha, beta);
            }
        });
        return INFINI_STATUS_SUCCESS;
    }
    return dispatchFloat(a.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *pc = static_cast<T *>(data[0]);
            const T *pa = static_cast<const T *>(data[1]);
            const T *pb = static_cast<const T *>(data[2]);
            const T *pi = has_cin ? static_cast<const T *>(data[3]) : nullptr;
            if (M == 0 || N == 0) return;
            bool direct = f32 && !has_cin;  // BLAS writes c itself: no scratch at all
            std::vector<float> fa, fb, prod;
            if (!f32) {
                fa.resize(M * K);
                fb.resize(K * N);
            }
            if (!direct) prod.resize(M * N);
            for (size_t q = 0; q < batch; ++q) {
                const T *qa = pa + static_cast<ptrdiff_t>(q) * bsa;
                const T *qb = pb + static_cast<ptrdiff_t>(q) * bsb;
                T *qc = pc + static_cast<ptrdiff_t>(q) * bsc;
                float *out = direct ? reinterpret_cast<float *>(qc) : prod.data();
                int ldo = direct ? ldc : static_cast<int>(N);
                if (K == 0) {
                    for (size_t i = 0; i < M; ++i) std::fill(out + i * ldo, out + i * ldo + N, 0.0f);
                } else if (f32) {
                    parallelSgemm(va.trans, vb.trans, M, N, K, alpha, reinterpret_cast<const float *>(qa), va.ld,
                                  reinterpret_cast<const float *>(qb), vb.ld, out, ldo);
                } else {
                    bool ta = widen(fa.data(), qa, a.strides[nd - 2], a.strides[nd - 1], M, K);
                    bool tb = widen(fb.data(), qb, b.strides[nd - 2], b.strides[nd - 1], K, N);
                    parallelSgemm(ta, tb, M, N, K, alpha, fa.data(), static_cast<int>(ta ? M : K), fb.data(),
                                  static_cast<int>(tb ? K : N), out, ldo);
                }
                if (direct) continue;
                // epilogue: c = product + beta * c_in, rounded to T once
                const T *qi = has_cin ? pi + static_cast<ptrdiff_t>(q) * bsi : nullptr;
                for (size_t i = 0; i < M; ++i) {
                    T *crow = qc + static_cast<ptrdiff_t>(i) * c.strides[nd - 2];
                    const float *prow = prod.data() + i * N;
                    if (qi != nullptr && beta != 0.0f) {
                        const T *irow = qi + static_cast<ptrdiff_t>(i) * cin.strides[nd - 2];
                        ptrdiff_t si = cin.strides[nd - 1];
                        for (size_t j = 0; j < N; ++j) crow[j] = fromFloat<T>(prow[j] + beta * toFloat(irow[j * si]));
                    } else {
                        for (size_t j = 0; j < N; ++j) crow[j] = fromFloat<T>(prow[j]);
                    }
                }
            }
        };
    });
#endif
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
