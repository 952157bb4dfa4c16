// rows.cpp: the rows family on the cpu backend: softmax, log_softmax and their backward forms over the middle dim
// of a contiguous [outer, n, inner] view. With inner == 1 (the last dim, the common case) each row is contiguous:
// it is read into a compute buffer once (F32 operands in place) and reduced with the vector helpers of
// ops/reduce.h. With inner > 1 a task owns a block of up to kCols columns of one outer index and walks the n
// rows of the view, each a contiguous run, keeping the per-column state in arrays the loops vectorize over.
// Math in float, in double when an operand is F64. Semantics as torch's CPU kernels: a NaN in a row makes the
// row NaN; a row of -inf gives NaN (softmax and log_softmax alike).
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "../../common/error.h"
#include "../ops/exp.h"
#include "family.h"
#include "rowio.h"

namespace infini::cpu::families {
namespace {

using ops::avx2::expf_fast;

constexpr size_t kCols = 64;  // columns a task owns when inner > 1: the state stays in L1

template <class C>
inline C expC(C x) {
    if constexpr (sizeof(C) == sizeof(float)) {
        return expf_fast(x);
    } else {
        return std::exp(x);
    }
}

bool needsY(infiniopRowsOp_t op) { return op == INFINIOP_ROWS_SOFTMAX_BWD || op == INFINIOP_ROWS_LOG_SOFTMAX_BWD; }

// One contiguous row of n: o = op(x[, y]); scratch holds n values. o may be x or y (each element is read
// before it is written).
template <class C>
void row(infiniopRowsOp_t op, C *o, const C *x, const C *y, size_t n, C *scratch) {
    switch (op) {
        case INFINIOP_ROWS_SOFTMAX: {
            const C m = maxRun(x, n);
            const C inv = C(1) / expSubRun(o, x, m, n);
            for (size_t j = 0; j < n; ++j) o[j] *= inv;
            return;
        }
        case INFINIOP_ROWS_LOG_SOFTMAX: {
            const C m = maxRun(x, n);
            const C shift = m + std::log(expSubRun(scratch, x, m, n));
            for (size_t j = 0; j < n; ++j) o[j] = x[j] - shift;
            return;
        }
        case INFINIOP_ROWS_SOFTMAX_BWD: {  // x = grad, y = softmax output
            const C s = dotRun(x, y, n);
            for (size_t j = 0; j < n; ++j) o[j] = y[j] * (x[j] - s);
            return;
        }
        default: {  // LOG_SOFTMAX_BWD: x = grad, y = log_softmax output
            const C s = sumRun(x, n);
            expSubRun(scratch, y, C(0), n);
            for (size_t j = 0; j < n; ++j) o[j] = x[j] - scratch[j] * s;
            return;
        }
    }
}

// inner == 1: rows split over the kernel threads.
template <class C>
void lastDim(const infiniopRowsArgs_t &a) {
    const size_t n = static_cast<size_t>(a.n);
    const bool y_used = needsY(a.op);
    // F32 operands are read and written in place when C is float
    constexpr bool kFloat = sizeof(C) == sizeof(float);
    const bool x_direct = kFloat && a.x_dtype == INFINI_DTYPE_F32;
    const bool y_direct = kFloat && a.y_dtype == INFINI_DTYPE_F32;
    const bool o_direct = kFloat && a.out_dtype == INFINI_DTYPE_F32;
    ops::avx2::parallelFor(static_cast<size_t>(a.outer), n * 8 + 32, [&](size_t begin, size_t end) {
        std::vector<C> buf(4 * n);
        C *bx = buf.data(), *by = bx + n, *bo = by + n, *scratch = bo + n;
        for (size_t r = begin; r < end; ++r) {
            const size_t off = r * n;
            const C *x = x_direct ? static_cast<const C *>(a.x) + off : bx;
            if (!x_direct) loadRun(bx, at(a.x, a.x_dtype, off), a.x_dtype, n);
            const C *y = nullptr;
            if (y_used) {
                y = y_direct ? static_cast<const C *>(a.y) + off : by;
                if (!y_direct) loadRun(by, at(a.y, a.y_dtype, off), a.y_dtype, n);
            }
            C *o = o_direct ? static_cast<C *>(a.out) + off : bo;
            row(a.op, o, x, y, n, scratch);
            if (!o_direct) storeRun(at(a.out, a.out_dtype, off), a.out_dtype, bo, n);
        }
    });
}

// inner > 1: a task is (outer index, block of up to kCols columns); rows of the view are read as runs.
template <class C>
void strided(const infiniopRowsArgs_t &a) {
    const size_t n = static_cast<size_t>(a.n), inner = static_cast<size_t>(a.inner);
    const size_t blocks = (inner + kCols - 1) / kCols;
    ops::avx2::parallelFor(static_cast<size_t>(a.outer) * blocks, n * kCols * 8, [&](size_t begin, size_t end) {
        C bx[kCols], by[kCols], bo[kCols], s0[kCols], s1[kCols];
        for (size_t task = begin; task < end; ++task) {
            const size_t o = task / blocks, c0 = (task % blocks) * kCols, w = std::min(kCols, inner - c0);
            auto offset = [&](size_t k) { return (o * n + k) * inner + c0; };
            auto loadX = [&](size_t k) { loadRun(bx, at(a.x, a.x_dtype, offset(k)), a.x_dtype, w); };
            auto loadY = [&](size_t k) { loadRun(by, at(a.y, a.y_dtype, offset(k)), a.y_dtype, w); };
            auto storeO = [&](size_t k) { storeRun(at(a.out, a.out_dtype, offset(k)), a.out_dtype, bo, w); };
            switch (a.op) {
                case INFINIOP_ROWS_SOFTMAX:
                case INFINIOP_ROWS_LOG_SOFTMAX: {
                    for (size_t j = 0; j < w; ++j) s0[j] = -static_cast<C>(INFINITY);  // max
                    for (size_t k = 0; k < n; ++k) {
                        loadX(k);
                        for (size_t j = 0; j < w; ++j) s0[j] = bx[j] > s0[j] ? bx[j] : s0[j];
                    }
                    for (size_t j = 0; j < w; ++j) s1[j] = 0;  // sum of e^(x - max)
                    for (size_t k = 0; k < n; ++k) {
                        loadX(k);
                        for (size_t j = 0; j < w; ++j) s1[j] += expC(bx[j] - s0[j]);
                    }
                    if (a.op == INFINIOP_ROWS_SOFTMAX) {
                        for (size_t j = 0; j < w; ++j) s1[j] = C(1) / s1[j];
                        for (size_t k = 0; k < n; ++k) {
                            loadX(k);
                            for (size_t j = 0; j < w; ++j) bo[j] = expC(bx[j] - s0[j]) * s1[j];
                            storeO(k);
                        }
                    } else {
                        for (size_t j = 0; j < w; ++j) s1[j] = s0[j] + std::log(s1[j]);
                        for (size_t k = 0; k < n; ++k) {
                            loadX(k);
                            for (size_t j = 0; j < w; ++j) bo[j] = bx[j] - s1[j];
                            storeO(k);
                        }
                    }
                    break;
                }
                default: {  // the backward forms: x = grad, y = forward output
                    const bool soft = a.op == INFINIOP_ROWS_SOFTMAX_BWD;
                    for (size_t j = 0; j < w; ++j) s0[j] = 0;  // sum(x * y), or sum(x)
                    for (size_t k = 0; k < n; ++k) {
                        loadX(k);
                        if (soft) {
                            loadY(k);
                            for (size_t j = 0; j < w; ++j) s0[j] += bx[j] * by[j];
                        } else {
                            for (size_t j = 0; j < w; ++j) s0[j] += bx[j];
                        }
                    }
                    for (size_t k = 0; k < n; ++k) {
                        loadX(k);
                        loadY(k);
                        if (soft) {
                            for (size_t j = 0; j < w; ++j) bo[j] = by[j] * (bx[j] - s0[j]);
                        } else {
                            for (size_t j = 0; j < w; ++j) bo[j] = bx[j] - expC(by[j]) * s0[j];
                        }
                        storeO(k);
                    }
                    break;
                }
            }
        }
    });
}

template <class C>
void run(const infiniopRowsArgs_t &a) {
    if (a.inner == 1) {
        lastDim<C>(a);
    } else {
        strided<C>(a);
    }
}

}  // namespace

infiniStatus_t rows(const infiniopRowsArgs_t &a, infinirtStream_t stream) {
    const bool y_used = needsY(a.op);
    if (!isRowDtype(a.out_dtype) || !isRowDtype(a.x_dtype) || (y_used && !isRowDtype(a.y_dtype))) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "rows: dtypes out %d, x %d, y %d (F16, BF16, F32 or F64)",
                    a.out_dtype, a.x_dtype, a.y_dtype);
    }
    if (a.outer == 0 || a.n == 0 || a.inner == 0) return INFINI_STATUS_SUCCESS;
    if (a.out == nullptr || a.x == nullptr || (y_used && a.y == nullptr)) {
        return fail(INFINI_STATUS_NULL_POINTER, "rows: an operand is NULL");
    }
    const bool wide =
        a.out_dtype == INFINI_DTYPE_F64 || a.x_dtype == INFINI_DTYPE_F64 || (y_used && a.y_dtype == INFINI_DTYPE_F64);
    const infiniopRowsArgs_t args = a;
    return submit(stream, [args, wide] {
        if (wide) {
            run<double>(args);
        } else {
            run<float>(args);
        }
    });
}

}  // namespace infini::cpu::families
