// norm.cpp: the norm family on the cpu backend: layer_norm and rms_norm over the last `cols` elements of each row,
// forward and backward. Rows split over the kernel threads; each row is read into a compute buffer once (float,
// or double for F64) and reduced with the vector helpers of ops/reduce.h. The backward's dw / db are sums over
// rows: each of a fixed number of row chunks accumulates its own partial row, and the partials are added in chunk
// order, so the result does not depend on the thread count. mean / rstd are F32, F64 for F64 rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "rowio.h"

namespace infini::cpu::families {
namespace {

constexpr size_t kMaxChunks = 64;                 // row chunks of the backward (partials of dw / db)
constexpr size_t kMaxPartials = size_t(1) << 24;  // elements of partials at most (64 MiB of float)

bool isBackward(infiniopNormOp_t op) { return op == INFINIOP_NORM_LAYER_NORM_BWD || op == INFINIOP_NORM_RMS_NORM_BWD; }
bool isLayer(infiniopNormOp_t op) { return op == INFINIOP_NORM_LAYER_NORM || op == INFINIOP_NORM_LAYER_NORM_BWD; }

infiniDtype_t statDtype(const infiniopNormArgs_t &a) {
    return a.dtype == INFINI_DTYPE_F64 ? INFINI_DTYPE_F64 : INFINI_DTYPE_F32;
}

template <class C>
C loadStat(const void *p, infiniDtype_t t, size_t r) {
    return t == INFINI_DTYPE_F64 ? static_cast<C>(static_cast<const double *>(p)[r])
                                 : static_cast<C>(static_cast<const float *>(p)[r]);
}

template <class C>
void storeStat(void *p, infiniDtype_t t, size_t r, C v) {
    if (p == nullptr) return;
    if (t == INFINI_DTYPE_F64) {
        static_cast<double *>(p)[r] = static_cast<double>(v);
    } else {
        static_cast<float *>(p)[r] = static_cast<float>(v);
    }
}

// A parameter row (w or b) in C, or empty when absent.
template <class C>
std::vector<C> paramRow(const void *p, infiniDtype_t t, size_t n) {
    std::vector<C> v;
    if (p != nullptr) {
        v.resize(n);
        loadRun(v.data(), p, t, n);
    }
    return v;
}

// sum (a - c) and sum (a - c)^2 over n values.
template <class C>
void moments(const C *a, C c, size_t n, C *s1, C *s2) {
    if constexpr (sizeof(C) == sizeof(float)) {
        ops::avx2::shiftedMoments(a, c, n, s1, s2);
    } else {
        C t1 = 0, t2 = 0;
        for (size_t i = 0; i < n; ++i) {
            const C d = a[i] - c;
            t1 += d;
            t2 += d * d;
        }
        *s1 = t1;
        *s2 = t2;
    }
}

template <class C>
void forward(const infiniopNormArgs_t &a) {
    const size_t rows = static_cast<size_t>(a.rows), n = static_cast<size_t>(a.cols);
    const infiniDtype_t st = statDtype(a);
    const bool layer = isLayer(a.op);
    const C eps = static_cast<C>(a.eps);
    if (n == 0) {  // statistics of no values: 0 / 0
        for (size_t r = 0; r < rows; ++r) {
            storeStat(a.mean, st, r, std::numeric_limits<C>::quiet_NaN());
            storeStat(a.rstd, st, r, std::numeric_limits<C>::quiet_NaN());
        }
        return;
    }
    const std::vector<C> wv = paramRow<C>(a.w, a.w_dtype, n), bv = paramRow<C>(a.b, a.w_dtype, n);
    const C *w = wv.empty() ? nullptr : wv.data(), *b = bv.empty() ? nullptr : bv.data();
    ops::avx2::parallelFor(rows, n * 6 + 32, [&](size_t begin, size_t end) {
        std::vector<C> buf(2 * n);
        C *x = buf.data(), *y = x + n;
        for (size_t r = begin; r < end; ++r) {
            loadRun(x, at(a.x, a.dtype, r * n), a.dtype, n);
            C mean = 0, rstd;
            if (layer) {
                mean = sumRun(x, n) / static_cast<C>(n);
                C d1, d2;
                moments(x, mean, n, &d1, &d2);  // two passes: no cancellation in E[x^2] - E[x]^2
                const C m1 = d1 / static_cast<C>(n);
                const C var = std::max(d2 / static_cast<C>(n) - m1 * m1, C(0));
                rstd = C(1) / std::sqrt(var + eps);
                for (size_t j = 0; j < n; ++j) y[j] = (x[j] - mean) * rstd;  // exact 0 at the mean
            } else {
                rstd = C(1) / std::sqrt(dotRun(x, x, n) / static_cast<C>(n) + eps);
                for (size_t j = 0; j < n; ++j) y[j] = x[j] * rstd;
            }
            if (w != nullptr) {
                for (size_t j = 0; j < n; ++j) y[j] *= w[j];
            }
            if (b != nullptr) {
                for (size_t j = 0; j < n; ++j) y[j] += b[j];
            }
            storeRun(at(a.y, a.dtype, r * n), a.dtype, y, n);
            if (layer) storeStat(a.mean, st, r, mean);
            storeStat(a.rstd, st, r, rstd);
        }
    });
}

template <class C>
void backward(const infiniopNormArgs_t &a) {
    const size_t rows = static_cast<size_t>(a.rows), n = static_cast<size_t>(a.cols);
    const infiniDtype_t st = statDtype(a);
    const bool layer = isLayer(a.op);
    void *dx = a.y;
    const bool want_dw = a.dw != nullptr, want_db = layer && a.db != nullptr;
    if (n == 0) return;
    const std::vector<C> wv = paramRow<C>(a.w, a.w_dtype, n);
    const C *w = wv.empty() ? nullptr : wv.data();
    const size_t chunks = rows == 0 ? 0 : std::max<size_t>(1, std::min({rows, kMaxChunks, kMaxPartials / (2 * n)}));
    const size_t per = chunks == 0 ? 0 : (rows + chunks - 1) / chunks;
    std::vector<C> dwp(want_dw ? chunks * n : 0, C(0)), dbp(want_db ? chunks * n : 0, C(0));
    const C inv_n = C(1) / static_cast<C>(n);
    ops::avx2::parallelFor(chunks, per * n * 10 + 32, [&](size_t begin, size_t end) {
        std::vector<C> buf(3 * n);
        C *x = buf.data(), *g = x + n, *h = g + n;  // x, then dy (g), x-hat (h); g becomes dy * w
        for (size_t c = begin; c < end; ++c) {
            C *pw = want_dw ? dwp.data() + c * n : nullptr;
            C *pb = want_db ? dbp.data() + c * n : nullptr;
            for (size_t r = c * per; r < std::min(rows, (c + 1) * per); ++r) {
                loadRun(x, at(a.x, a.dtype, r * n), a.dtype, n);
                loadRun(g, at(a.dy, a.dtype, r * n), a.dtype, n);
                const C rstd = loadStat<C>(a.rstd, st, r);
                const C mean = layer ? loadStat<C>(a.mean, st, r) : C(0);
                for (size_t j = 0; j < n; ++j) h[j] = (x[j] - mean) * rstd;
                if (pw != nullptr) {
                    for (size_t j = 0; j < n; ++j) pw[j] += g[j] * h[j];
                }
                if (pb != nullptr) {
                    for (size_t j = 0; j < n; ++j) pb[j] += g[j];
                }
                if (dx == nullptr) continue;
                if (w != nullptr) {
                    for (size_t j = 0; j < n; ++j) g[j] *= w[j];
                }
                // dx = rstd * (g - mean(g) - x-hat * mean(g * x-hat)); rms_norm has no mean(g) term
                const C c1 = dotRun(g, h, n) * inv_n;
                const C c2 = layer ? sumRun(g, n) * inv_n : C(0);
                for (size_t j = 0; j < n; ++j) x[j] = rstd * (g[j] - c2 - h[j] * c1);
                storeRun(at(dx, a.dtype, r * n), a.dtype, x, n);
            }
        }
    });
    // dw, db: the partials added in chunk order, column blocks over the threads
    auto reduce = [&](std::vector<C> &partials, void *out) {
        ops::avx2::parallelFor((n + 255) / 256, 256 * (chunks + 1), [&](size_t begin, size_t end) {
            std::vector<C> sum(256);
            for (size_t blk = begin; blk < end; ++blk) {
                const size_t j0 = blk * 256, m = std::min<size_t>(256, n - j0);
                std::fill(sum.begin(), sum.begin() + m, C(0));
                for (size_t c = 0; c < chunks; ++c) {
                    const C *p = partials.data() + c * n + j0;
                    for (size_t j = 0; j < m; ++j) sum[j] += p[j];
                }
                storeRun(at(out, a.w_dtype, j0), a.w_dtype, sum.data(), m);
            }
        });
    };
    if (want_dw) reduce(dwp, a.dw);
    if (want_db) reduce(dbp, a.db);
}

template <class C>
void run(const infiniopNormArgs_t &a) {
    if (isBackward(a.op)) {
        backward<C>(a);
    } else {
        forward<C>(a);
    }
}

}  // namespace

infiniStatus_t norm(const infiniopNormArgs_t &a, infinirtStream_t stream) {
    const bool params = a.w != nullptr || a.b != nullptr || a.dw != nullptr || a.db != nullptr;
    if (!isRowDtype(a.dtype) || (params && !isRowDtype(a.w_dtype))) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "norm: dtypes %d (rows) and %d (weights): F16, BF16, F32 or F64",
                    a.dtype, a.w_dtype);
    }
    const bool backward = isBackward(a.op), layer = isLayer(a.op);
    if (a.rows > 0 && a.cols > 0) {
        const bool missing =
            backward ? (a.x == nullptr || a.dy == nullptr || a.rstd == nullptr || (layer && a.mean == nullptr) ||
                        (a.y == nullptr && a.dw == nullptr && a.db == nullptr))
                     : (a.x == nullptr || a.y == nullptr);
        if (missing) return fail(INFINI_STATUS_NULL_POINTER, "norm: an operand is NULL");
    }
    if (backward && a.cols > 0 && a.rows == 0 && (a.dw != nullptr || a.db != nullptr)) {
        // sums over no rows: zeros
    } else if (a.rows == 0 || (backward && a.cols == 0)) {
        return INFINI_STATUS_SUCCESS;
    }
    const bool wide = a.dtype == INFINI_DTYPE_F64 || (params && a.w_dtype == INFINI_DTYPE_F64);
    const infiniopNormArgs_t args = a;
    return submit(stream, [args, wide] {
        if (wide) {
            run<double>(args);
        } else {
            run<float>(args);
        }
    });
}

}  // namespace infini::cpu::families
