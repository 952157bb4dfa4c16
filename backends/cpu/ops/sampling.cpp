// sampling.cpp: topk_softmax (MoE routing) and random_sample (top-k / top-p sampling), both
// without sorting the whole row: selection (nth_element) finds the k candidates, and random_sample halves the
// range holding the crossing position by mass until a few elements are left to sort.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "convert.h"
#include "exp.h"
#include "op_base.h"
#include "parallel.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// random_sample: up to this many candidates (top-k) are sorted; more (top-p alone, a large top-k) are selected.
constexpr size_t kSortedCandidates = 1024;

infiniStatus_t makeTopkSoftmax(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "topk_softmax";
    Layout w = layoutOf(p.tensors[0]), idx = layoutOf(p.tensors[1]), x = layoutOf(p.tensors[2]);
    int64_t topk = p.i[0];
    bool renormalize = p.i[1] != 0;
    INFINI_RETURN_IF_ERROR(checks::topkSoftmax(w, idx, x, topk));
    size_t tokens = x.shape[0], experts = x.shape[1];
    size_t kk = static_cast<size_t>(topk);
    return dispatchFloat(x.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            float *pw = static_cast<float *>(data[0]);
            int64_t *pi = static_cast<int64_t *>(data[1]);
            const T *px = static_cast<const T *>(data[2]);
            parallelFor(tokens, experts * 8, [&](size_t begin, size_t end) {
                std::vector<float> prob(experts);
                std::vector<int64_t> order(experts);
                for (size_t r = begin; r < end; ++r) {
                    const T *row = px + x.rowOffset(r);
                    float m = -INFINITY;
                    for (size_t j = 0; j < experts; ++j) {
                        prob[j] = toFloat(row[j]);
                        m = prob[j] > m ? prob[j] : m;
                    }
                    float total = 0;
                    for (size_t j = 0; j < experts; ++j) {
                        prob[j] = expf_fast(prob[j] - m);
                        total += prob[j];
                    }
                    for (size_t j = 0; j < experts; ++j) prob[j] /= total;
                    std::iota(order.begin(), order.end(), 0);
                    std::partial_sort(order.begin(), order.begin() + kk, order.end(), [&](int64_t a, int64_t b) {
                        return prob[a] > prob[b] || (prob[a] == prob[b] && a < b);
                    });
                    float picked = 0;
                    for (size_t j = 0; j < kk; ++j) picked += prob[order[j]];
                    float *rw = pw + w.rowOffset(r);
                    int64_t *ri = pi + idx.rowOffset(r);
                    for (size_t j = 0; j < kk; ++j) {
                        ri[j] = order[j];
                        rw[j] = renormalize ? prob[order[j]] / picked : prob[order[j]];
                    }
                }
            });
        };
    });
}

infiniStatus_t makeRandomSample(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "random_sample";
    Layout out = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), rv = layoutOf(p.tensors[2]);
    float topp = static_cast<float>(p.f[0]), temperature = static_cast<float>(p.f[1]);
    int64_t topk = p.i[0];
    INFINI_RETURN_IF_ERROR(checks::randomSample(out, x, rv, temperature));
    size_t batch = x.ndim() == 2 ? x.shape[0] : 1, vocab = x.last();
    bool sample = topk > 1 && topp > 0;
    size_t kk = std::min<size_t>(static_cast<size_t>(std::max<int64_t>(topk, 1)), vocab);
    ptrdiff_t rs = rv.ndim() ? rv.strides[0] : 0, os = out.ndim() ? out.strides[0] : 0;
    return dispatchFloat(x.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            int64_t *po = static_cast<int64_t *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            const float *pr = static_cast<const float *>(data[2]);
            parallelFor(batch, vocab * 4, [&](size_t begin, size_t end) {
                std::vector<float> logit(vocab);
                std::vector<double> weight(sample ? vocab : 0);
                std::vector<int64_t> order;
                for (size_t b = begin; b < end; ++b) {
                    const T *row = px + (x.ndim() == 2 ? static_cast<ptrdiff_t>(b) * x.strides[0] : 0);
                    size_t best = 0;
                    for (size_t j = 0; j < vocab; ++j) {
                        logit[j] = toFloat(row[j]);
                        if (logit[j] > logit[best]) best = j;  // first maximum: ties take the lower index
                    }
                    int64_t *dst = po + static_cast<ptrdiff_t>(b) * os;
                    if (!sample) {
                        *dst = static_cast<int64_t>(best);
                        continue;
                    }
                    // weights exp((logit - max) / temperature), summed in double (a float sum over a long row drifts
                    // by more than the reference's rounding); the reference's probabilities are weight / total, so
                    // its threshold min(c[k-1], topp) * r is min(top, topp * total) * r in weights
                    float m = logit[best];
                    double total = 0;
                    for (size_t j = 0; j < vocab; ++j) {
                        weight[j] = expf_fast((logit[j] - m) / temperature);
                        total += weight[j];
                    }
                    auto before = [&](int64_t a, int64_t c) {
                        return logit[a] > logit[c] || (logit[a] == logit[c] && a < c);
                    };
                    order.resize(vocab);
                    std::iota(order.begin(), order.end(), 0);
                    // the k best in order[0, kk): sorted when few, else only selected
                    const bool sorted = kk <= kSortedCandidates;
                    if (sorted) {
                        std::partial_sort(order.begin(), order.begin() + kk, order.end(), before);
                    } else if (kk < vocab) {
                        std::nth_element(order.begin(), order.begin() + (kk - 1), order.end(), before);
                    }
                    double top = 0;
                    for (size_t j = 0; j < kk; ++j) top += weight[order[j]];
                    const double threshold =
                        std::min(top, static_cast<double>(topp) * total) * pr[static_cast<ptrdiff_t>(b) * rs];
                    // the first position in sorted order whose cumulative weight exceeds the threshold: unsorted, halve
                    // the range [lo, hi) that holds it (above: the weight of what sorts before lo) until few elements
                    // are left, then sort those; then scan
                    size_t lo = 0, hi = kk;
                    double above = 0;
                    if (!sorted) {
                        while (hi - lo > 64) {
                            const size_t mid = lo + (hi - lo) / 2;
                            std::nth_element(order.begin() + lo, order.begin() + mid, order.begin() + hi, before);
                            double half = 0;
                            for (size_t j = lo; j < mid; ++j) half += weight[order[j]];
                            if (above + half > threshold) {
                                hi = mid;
                            } else {
                                above += half;
                                lo = mid;
                            }
                        }
                        std::sort(order.begin() + lo, order.begin() + hi, before);
                    }
                    size_t pick = hi - 1;  // no crossing in the range (rounding): its last, as the reference's k-th
                    for (size_t j = lo; j < hi; ++j) {
                        above += weight[order[j]];
                        if (above > threshold) {
                            pick = j;
                            break;
                        }
                    }
                    *dst = order[pick];
                }
            });
        };
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
