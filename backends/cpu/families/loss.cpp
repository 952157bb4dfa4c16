// loss.cpp: the nll_loss family on the cpu backend: the negative log-likelihood of log-probabilities x [n, c, d]
// at targets [n, d] (d: the flattened spatial dims, 1 without), with class weights and ignore_index, and its
// backward. Elements split over the kernel threads; a reduced loss sums in double over a fixed number of element
// chunks, added in chunk order (deterministic whatever the thread count). A target outside [0, c) (other than
// ignore_index) is skipped and reported when the task ends (the stream keeps the error for the next
// synchronization), as torch's "Target t is out of bounds".
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "rowio.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

constexpr int64_t kChunk = 4096;  // elements (i, k) a piece of the reduced loss

int64_t targetAt(const infiniopNllLossArgs_t &a, int64_t e) {
    return a.target_dtype == INFINI_DTYPE_I64 ? static_cast<const int64_t *>(a.target)[e]
                                              : static_cast<int64_t>(static_cast<const int32_t *>(a.target)[e]);
}

double valueAt(const void *p, infiniDtype_t t, int64_t e) { return load<double>(at(p, t, static_cast<size_t>(e)), t); }

// The first target out of range any piece met (INT64_MIN: none).
struct BadTarget {
    std::atomic<int64_t> value{INT64_MIN};
    void record(int64_t t) {
        int64_t none = INT64_MIN;
        value.compare_exchange_strong(none, t);
    }
    void raise(const infiniopNllLossArgs_t &a) const {
        const int64_t t = value.load();
        if (t == INT64_MIN) return;
        throw std::out_of_range("nll_loss: index out of range: Target " + std::to_string(t) + " is out of bounds (" +
                                std::to_string(a.c) + " classes)");
    }
};

void forward(const infiniopNllLossArgs_t &a) {
    const int64_t n = a.n, c = a.c, d = a.d, total = n * d;
    BadTarget bad;
    // element e = i * d + k: target[e], x[i, t, k] at (i * c + t) * d + k
    auto term = [&](int64_t e, double *weight) -> double {
        const int64_t t = targetAt(a, e);
        *weight = 0.0;
        if (t == a.ignore_index) return 0.0;
        if (t < 0 || t >= c) {
            bad.record(t);
            return 0.0;
        }
        const int64_t i = e / d, k = e % d;
        *weight = a.weight != nullptr ? valueAt(a.weight, a.dtype, t) : 1.0;
        return -valueAt(a.x, a.dtype, (i * c + t) * d + k) * *weight;
    };
    if (a.reduction == 0) {
        ops::avx2::parallelFor(static_cast<size_t>(total), 8, [&](size_t begin, size_t end) {
            for (size_t e = begin; e < end; ++e) {
                double w;
                store<double>(at(a.out, a.dtype, e), a.dtype, term(static_cast<int64_t>(e), &w));
            }
        });
        bad.raise(a);
        return;
    }
    const int64_t pieces = (total + kChunk - 1) / kChunk;
    std::vector<double> loss(static_cast<size_t>(pieces)), weight(static_cast<size_t>(pieces));
    ops::avx2::parallelFor(static_cast<size_t>(pieces), kChunk * 8, [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) {
            double l = 0.0, tw = 0.0;
            const int64_t first = static_cast<int64_t>(p) * kChunk, last = std::min(total, first + kChunk);
            for (int64_t e = first; e < last; ++e) {
                double w;
                l += term(e, &w);
                tw += w;
            }
            loss[p] = l;
            weight[p] = tw;
        }
    });
    bad.raise(a);
    double l = 0.0, tw = 0.0;
    for (int64_t p = 0; p < pieces; ++p) {
        l += loss[static_cast<size_t>(p)];
        tw += weight[static_cast<size_t>(p)];
    }
    if (a.reduction == 1) l /= tw;  // no weight at all: 0 / 0, NaN as torch
    store<double>(a.out, a.dtype, l);
    if (a.total_weight != nullptr) store<double>(a.total_weight, a.dtype, tw);
}

void backward(const infiniopNllLossArgs_t &a) {
    const int64_t n = a.n, c = a.c, d = a.d, total = n * d;
    const size_t esize = static_cast<size_t>(elementSize(a.dtype));
    const size_t row = static_cast<size_t>(c * d);  // elements of grad_input per sample
    if (row > 0) {
        ops::avx2::parallelFor(static_cast<size_t>(n), row, [&](size_t begin, size_t end) {
            std::memset(at(a.out, a.dtype, begin * row), 0, (end - begin) * row * esize);
        });
    }
    double scale = 0.0;  // reduced: every element's gradient is -w[t] * scale
    if (a.reduction != 0) {
        scale = valueAt(a.x, a.dtype, 0);
        if (a.reduction == 1) scale /= valueAt(a.total_weight_in, a.dtype, 0);
    }
    BadTarget bad;
    ops::avx2::parallelFor(static_cast<size_t>(total), 8, [&](size_t begin, size_t end) {
        for (size_t e = begin; e < end; ++e) {
            const int64_t t = targetAt(a, static_cast<int64_t>(e));
            if (t == a.ignore_index) continue;
            if (t < 0 || t >= c) {
                bad.record(t);
                continue;
            }
            const int64_t i = static_cast<int64_t>(e) / d, k = static_cast<int64_t>(e) % d;
            const double g = a.reduction == 0 ? valueAt(a.x, a.dtype, static_cast<int64_t>(e)) : scale;
            const double w = a.weight != nullptr ? valueAt(a.weight, a.dtype, t) : 1.0;
            store<double>(at(a.out, a.dtype, static_cast<size_t>((i * c + t) * d + k)), a.dtype, -w * g);
        }
    });
    bad.raise(a);
}

}  // namespace

infiniStatus_t nllLoss(const infiniopNllLossArgs_t &a, infinirtStream_t stream) {
    if (!isRowDtype(a.dtype)) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "nll_loss: dtype %d (F16, BF16, F32 or F64)", a.dtype);
    }
    if (a.target_dtype != INFINI_DTYPE_I64 && a.target_dtype != INFINI_DTYPE_I32) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "nll_loss: target dtype %d (I32 or I64)", a.target_dtype);
    }
    if (a.reduction < 0 || a.reduction > 2) return fail(INFINI_STATUS_BAD_PARAM, "nll_loss: reduction %d", a.reduction);
    const int64_t total = a.n * a.d, inputs = a.n * a.c * a.d;
    if (a.backward) {
        if (total == 0) return INFINI_STATUS_SUCCESS;  // grad_input has no element either
        const bool missing = a.target == nullptr || a.x == nullptr || (inputs > 0 && a.out == nullptr) ||
                             (a.reduction == 1 && a.total_weight_in == nullptr);
        if (missing) return fail(INFINI_STATUS_NULL_POINTER, "nll_loss backward: an operand is NULL");
    } else {
        if (a.reduction == 0 && total == 0) return INFINI_STATUS_SUCCESS;
        const bool missing = a.out == nullptr || (total > 0 && a.target == nullptr) || (inputs > 0 && a.x == nullptr);
        if (missing) return fail(INFINI_STATUS_NULL_POINTER, "nll_loss: an operand is NULL");
    }
    const infiniopNllLossArgs_t args = a;
    return submit(stream, [args] {
        if (args.backward) {
            backward(args);
        } else {
            forward(args);
        }
    });
}

}  // namespace infini::cpu::families
