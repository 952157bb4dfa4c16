// sdpa.cpp: the sdpa family on the cpu backend: scaled dot-product attention, forward and backward, computed in
// float32 in the blocked (flash) form: the keys are visited kBk at a time and no [lq, lk] matrix is ever stored.
//
// Forward: a task is (batch, query head, block of kBq queries); it keeps each query row's running max m, sum l and
// output accumulator, rescaled as later key blocks raise the max; out = acc / l, lse = m + log l.
// Backward, with D_i = dout_i . out_i and p_ij = e^(s_ij - lse_i) recomputed from the forward's lse:
//   dq_i = scale * sum_j ds_ij k_j,  ds_ij = p_ij (dout_i . v_j - D_i)   (tasks: batch, query head, query block)
//   dk_j = scale * sum_i ds_ij q_i,  dv_j = sum_i p_ij dout_i            (tasks: batch, key head, key block; the
//                                                                        query heads of its group summed inside)
// so every output element has one writer. Scores of one query row against a key block come from a key block stored
// transposed ([d][kBk]): kBk lanes of FMAs per element of q, accumulated in registers. A row that attends no key
// (every score -inf) gets out = 0 and lse = -inf, and contributes nothing to the gradients.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "rowio.h"

namespace infini::cpu::families {
namespace {

constexpr int64_t kBq = 32;  // query rows a forward task owns
constexpr int64_t kBk = 64;  // keys a block: 8 AVX2 vectors of scores

// A strided 4-d operand; dims of extent 1 read with stride 0 (broadcast).
struct View {
    char *p = nullptr;
    int64_t s[4] = {};
    int64_t esize = 0;
    infiniDtype_t t = INFINI_DTYPE_INVALID;
    char *row(int64_t b, int64_t h, int64_t i) const { return p + (b * s[0] + h * s[1] + i * s[2]) * esize; }
};

View viewOf(const infiniopTensor_t &x) {
    View v;
    v.p = static_cast<char *>(x.data);
    v.t = x.dtype;
    v.esize = elementSize(x.dtype);
    for (int d = 0; d < x.ndim && d < 4; ++d) v.s[d] = x.shape[d] == 1 ? 0 : x.strides[d];
    return v;
}

struct Geometry {
    int64_t B, HQ, HK, G, LQ, LK, D;
    float scale;
    bool causal;
    bool has_mask, bool_mask;
    View q, k, v, mask, out, lse, dout, dq, dk, dv;
};

// s[0..kBk) = q . kt[:, j] for a key block stored transposed (kt[dd * kBk + j]).
inline void scores(const float *q, const float *kt, int64_t D, float *s) {
    __m256 acc[kBk / 8];
    for (auto &a : acc) a = _mm256_setzero_ps();
    for (int64_t dd = 0; dd < D; ++dd) {
        const __m256 qv = _mm256_set1_ps(q[dd]);
        const float *r = kt + dd * kBk;
        for (int v = 0; v < kBk / 8; ++v) acc[v] = _mm256_fmadd_ps(qv, _mm256_loadu_ps(r + 8 * v), acc[v]);
    }
    for (int v = 0; v < kBk / 8; ++v) _mm256_storeu_ps(s + 8 * v, acc[v]);
}

// o[0..D) += sum_{j < n} p[j] * rows[j * D + 0..D); zero weights skipped (masked keys).
inline void accumulate(float *o, const float *p, const float *rows, int64_t n, int64_t D) {
    int64_t c = 0;
    for (; c + 64 <= D; c += 64) {
        __m256 a[8];
        for (int v = 0; v < 8; ++v) a[v] = _mm256_loadu_ps(o + c + 8 * v);
        for (int64_t j = 0; j < n; ++j) {
            if (p[j] == 0.0f) continue;
            const __m256 pv = _mm256_set1_ps(p[j]);
            const float *r = rows + j * D + c;
            for (int v = 0; v < 8; ++v) a[v] = _mm256_fmadd_ps(pv, _mm256_loadu_ps(r + 8 * v), a[v]);
        }
        for (int v = 0; v < 8; ++v) _mm256_storeu_ps(o + c + 8 * v, a[v]);
    }
    if (c == D) return;
    for (int64_t j = 0; j < n; ++j) {
        if (p[j] == 0.0f) continue;
        const float pj = p[j];
        const float *r = rows + j * D;
        for (int64_t dd = c; dd < D; ++dd) o[dd] += pj * r[dd];
    }
}

// Keys j0 .. j0+n of head kh: transposed into kt ([D][kBk], the missing keys 0) and/or row-major into kf ([n][D]).
void loadKeys(const View &k, int64_t b, int64_t kh, int64_t j0, int64_t n, int64_t D, float *kt, float *kf,
              float *tmp) {
    for (int64_t j = 0; j < n; ++j) {
        float *dst = kf != nullptr ? kf + j * D : tmp;
        loadRun(dst, k.row(b, kh, j0 + j), k.t, static_cast<size_t>(D));
        if (kt != nullptr) {
            for (int64_t dd = 0; dd < D; ++dd) kt[dd * kBk + j] = dst[dd];
        }
    }
    if (kt != nullptr && n < kBk) {
        for (int64_t dd = 0; dd < D; ++dd) std::fill(kt + dd * kBk + n, kt + (dd + 1) * kBk, 0.0f);
    }
}

// Adds the mask and the causal limit to the scores of query row i against keys j0 .. j0+n; keys past n are -inf.
void bias(const Geometry &g, int64_t b, int64_t h, int64_t i, int64_t j0, int64_t n, float *s) {
    const float ninf = -INFINITY;
    int64_t valid = n;
    if (g.causal) valid = std::min(valid, std::max<int64_t>(0, i + g.LK - g.LQ - j0 + 1));
    for (int64_t j = valid; j < kBk; ++j) s[j] = ninf;
    if (!g.has_mask) return;
    const char *m = g.mask.row(b, h, i) + j0 * g.mask.s[3] * g.mask.esize;
    const int64_t step = g.mask.s[3] * g.mask.esize;
    if (g.bool_mask) {
        for (int64_t j = 0; j < valid; ++j) {
            if (*reinterpret_cast<const uint8_t *>(m + j * step) == 0) s[j] = ninf;
        }
    } else {
        for (int64_t j = 0; j < valid; ++j) s[j] += load<float>(m + j * step, g.mask.t);
    }
}

// The last key (exclusive) any of queries [i0, i1) attends.
int64_t keyEnd(const Geometry &g, int64_t i1) {
    if (!g.causal) return g.LK;
    return std::clamp<int64_t>(i1 - 1 + g.LK - g.LQ + 1, 0, g.LK);
}

// Query rows [i0, i1) of head h, scaled by `scale`, into qf ([rows][D]).
void loadRows(const View &x, int64_t b, int64_t h, int64_t i0, int64_t i1, int64_t D, float scale, float *dst) {
    for (int64_t i = i0; i < i1; ++i) {
        float *r = dst + (i - i0) * D;
        loadRun(r, x.row(b, h, i), x.t, static_cast<size_t>(D));
        if (scale != 1.0f) {
            for (int64_t dd = 0; dd < D; ++dd) r[dd] *= scale;
        }
    }
}

float lseAt(const Geometry &g, int64_t b, int64_t h, int64_t i) {
    return *reinterpret_cast<const float *>(g.lse.row(b, h, i));
}

// Task t of `blocks` blocks per (batch, head) of `heads` heads: its batch, head and block.
struct Task {
    int64_t b, h, block;
    Task(size_t t, int64_t heads, int64_t blocks) {
        const int64_t i = static_cast<int64_t>(t);
        b = i / (heads * blocks);
        h = i / blocks % heads;
        block = i % blocks;
    }
};

void forward(const Geometry &g) {
    const int64_t D = g.D, qblocks = (g.LQ + kBq - 1) / kBq;
    const size_t tasks = static_cast<size_t>(g.B * g.HQ * qblocks);
    const size_t cost = static_cast<size_t>(kBq * std::max<int64_t>(g.LK, 1) * D * 4);
    ops::avx2::parallelFor(tasks, cost, [&](size_t begin, size_t end) {
        std::vector<float> buf(static_cast<size_t>(2 * kBq * D + 2 * kBk * D + D + 3 * kBk + 2 * kBq));
        float *qf = buf.data(), *acc = qf + kBq * D, *kt = acc + kBq * D, *vf = kt + kBk * D, *tmp = vf + kBk * D;
        float *s = tmp + D, *p = s + kBk, *m = p + kBk, *l = m + kBq;
        for (size_t task = begin; task < end; ++task) {
            const Task t(task, g.HQ, qblocks);
            const int64_t b = t.b, h = t.h, kh = h / g.G, i0 = t.block * kBq, i1 = std::min(g.LQ, i0 + kBq);
            loadRows(g.q, b, h, i0, i1, D, g.scale, qf);
            std::fill(acc, acc + (i1 - i0) * D, 0.0f);
            std::fill(m, m + kBq, -INFINITY);
            std::fill(l, l + kBq, 0.0f);
            const int64_t kend = keyEnd(g, i1);
            for (int64_t j0 = 0; j0 < kend; j0 += kBk) {
                const int64_t n = std::min(kBk, kend - j0);
                loadKeys(g.k, b, kh, j0, n, D, kt, nullptr, tmp);
                loadKeys(g.v, b, kh, j0, n, D, nullptr, vf, tmp);
                for (int64_t i = i0; i < i1; ++i) {
                    const int64_t r = i - i0;
                    scores(qf + r * D, kt, D, s);
                    bias(g, b, h, i, j0, n, s);
                    const float top = maxRun(s, kBk);
                    if (top == -INFINITY) continue;  // nothing attended in this block
                    const float mnew = std::max(m[r], top);
                    const float alpha = std::exp(m[r] - mnew);  // 0 for the first attended block
                    const float sum = expSubRun(p, s, mnew, kBk);
                    float *o = acc + r * D;
                    if (alpha != 1.0f) {
                        for (int64_t dd = 0; dd < D; ++dd) o[dd] *= alpha;
                    }
                    l[r] = l[r] * alpha + sum;
                    m[r] = mnew;
                    accumulate(o, p, vf, n, D);
                }
            }
            for (int64_t i = i0; i < i1; ++i) {
                const int64_t r = i - i0;
                float *o = acc + r * D;
                const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
                for (int64_t dd = 0; dd < D; ++dd) o[dd] = l[r] > 0.0f ? o[dd] * inv : 0.0f;
                storeRun(g.out.row(b, h, i), g.out.t, o, static_cast<size_t>(D));
                if (g.lse.p != nullptr) {
                    *reinterpret_cast<float *>(g.lse.row(b, h, i)) = l[r] > 0.0f ? m[r] + std::log(l[r]) : -INFINITY;
                }
            }
        }
    });
}

// p[0..kBk) = e^(s - lse) (0 for a row that attends nothing), ds = p * (dp - delta).
inline void probabilities(float *s, float lse, float *p) {
    if (lse == -INFINITY) {
        std::fill(p, p + kBk, 0.0f);
    } else {
        expSubRun(p, s, lse, kBk);
    }
}

void backward(const Geometry &g) {
    const int64_t D = g.D, rows = g.B * g.HQ * g.LQ;
    // delta_i = dout_i . out_i
    std::vector<float> delta(static_cast<size_t>(rows));
    ops::avx2::parallelFor(static_cast<size_t>(rows), static_cast<size_t>(D * 4), [&](size_t begin, size_t end) {
        std::vector<float> a(static_cast<size_t>(2 * D));
        for (size_t r = begin; r < end; ++r) {
            const int64_t b = static_cast<int64_t>(r) / (g.HQ * g.LQ), h = static_cast<int64_t>(r) / g.LQ % g.HQ;
            const int64_t i = static_cast<int64_t>(r) % g.LQ;
            loadRun(a.data(), g.dout.row(b, h, i), g.dout.t, static_cast<size_t>(D));
            loadRun(a.data() + D, g.out.row(b, h, i), g.out.t, static_cast<size_t>(D));
            delta[r] = dotRun(a.data(), a.data() + D, static_cast<size_t>(D));
        }
    });
    auto deltaAt = [&](int64_t b, int64_t h, int64_t i) {
        return delta[static_cast<size_t>((b * g.HQ + h) * g.LQ + i)];
    };

    // dq: tasks (batch, query head, query block)
    const int64_t qblocks = (g.LQ + kBq - 1) / kBq;
    const size_t dq_cost = static_cast<size_t>(kBq * std::max<int64_t>(g.LK, 1) * D * 6);
    ops::avx2::parallelFor(static_cast<size_t>(g.B * g.HQ * qblocks), dq_cost, [&](size_t begin, size_t end) {
        std::vector<float> buf(static_cast<size_t>(3 * kBq * D + 3 * kBk * D + D + 3 * kBk));
        float *qf = buf.data(), *dof = qf + kBq * D, *dq = dof + kBq * D, *kt = dq + kBq * D, *kf = kt + kBk * D;
        float *vt = kf + kBk * D, *tmp = vt + kBk * D, *s = tmp + D, *p = s + kBk, *dp = p + kBk;
        for (size_t task = begin; task < end; ++task) {
            const Task t(task, g.HQ, qblocks);
            const int64_t b = t.b, h = t.h, kh = h / g.G, i0 = t.block * kBq, i1 = std::min(g.LQ, i0 + kBq);
            loadRows(g.q, b, h, i0, i1, D, g.scale, qf);
            loadRows(g.dout, b, h, i0, i1, D, 1.0f, dof);
            std::fill(dq, dq + (i1 - i0) * D, 0.0f);
            const int64_t kend = keyEnd(g, i1);
            for (int64_t j0 = 0; j0 < kend; j0 += kBk) {
                const int64_t n = std::min(kBk, kend - j0);
                loadKeys(g.k, b, kh, j0, n, D, kt, kf, tmp);
                loadKeys(g.v, b, kh, j0, n, D, vt, nullptr, tmp);
                for (int64_t i = i0; i < i1; ++i) {
                    const int64_t r = i - i0;
                    scores(qf + r * D, kt, D, s);
                    bias(g, b, h, i, j0, n, s);
                    probabilities(s, lseAt(g, b, h, i), p);
                    scores(dof + r * D, vt, D, dp);
                    const float di = deltaAt(b, h, i);
                    for (int64_t j = 0; j < kBk; ++j) dp[j] = p[j] * (dp[j] - di);
                    accumulate(dq + r * D, dp, kf, n, D);
                }
            }
            for (int64_t i = i0; i < i1; ++i) {
                float *r = dq + (i - i0) * D;
                for (int64_t dd = 0; dd < D; ++dd) r[dd] *= g.scale;
                storeRun(g.dq.row(b, h, i), g.dq.t, r, static_cast<size_t>(D));
            }
        }
    });

    // dk, dv: tasks (batch, key head, key block); the queries of the group's heads that see the block
    const int64_t kblocks = (g.LK + kBk - 1) / kBk;
    const size_t dkv_cost = static_cast<size_t>(kBk * std::max<int64_t>(g.LQ, 1) * g.G * D * 6);
    ops::avx2::parallelFor(static_cast<size_t>(g.B * g.HK * kblocks), dkv_cost, [&](size_t begin, size_t end) {
        std::vector<float> buf(static_cast<size_t>(2 * kBq * D + 4 * kBk * D + D + 3 * kBk));
        float *qf = buf.data(), *dof = qf + kBq * D, *kt = dof + kBq * D, *vt = kt + kBk * D, *dk = vt + kBk * D;
        float *dv = dk + kBk * D, *tmp = dv + kBk * D, *s = tmp + D, *p = s + kBk, *dp = p + kBk;
        for (size_t task = begin; task < end; ++task) {
            const Task t(task, g.HK, kblocks);
            const int64_t b = t.b, kh = t.h, j0 = t.block * kBk, n = std::min(kBk, g.LK - j0);
            loadKeys(g.k, b, kh, j0, n, D, kt, nullptr, tmp);
            loadKeys(g.v, b, kh, j0, n, D, vt, nullptr, tmp);
            std::fill(dk, dk + n * D, 0.0f);
            std::fill(dv, dv + n * D, 0.0f);
            // causal: query i sees key j0 when i + LK - LQ >= j0
            const int64_t first = g.causal ? std::clamp<int64_t>(j0 - (g.LK - g.LQ), 0, g.LQ) : 0;
            for (int64_t h = kh * g.G; h < (kh + 1) * g.G; ++h) {
                for (int64_t i0 = first; i0 < g.LQ; i0 += kBq) {
                    const int64_t i1 = std::min(g.LQ, i0 + kBq);
                    loadRows(g.q, b, h, i0, i1, D, g.scale, qf);
                    loadRows(g.dout, b, h, i0, i1, D, 1.0f, dof);
                    for (int64_t i = i0; i < i1; ++i) {
                        const int64_t r = i - i0;
                        scores(qf + r * D, kt, D, s);
                        bias(g, b, h, i, j0, n, s);
                        probabilities(s, lseAt(g, b, h, i), p);
                        scores(dof + r * D, vt, D, dp);
                        const float di = deltaAt(b, h, i);
                        const float *qi = qf + r * D, *doi = dof + r * D;
                        for (int64_t j = 0; j < n; ++j) {
                            if (p[j] == 0.0f) continue;
                            const float pj = p[j], dsj = pj * (dp[j] - di);
                            float *vr = dv + j * D, *kr = dk + j * D;
                            for (int64_t dd = 0; dd < D; ++dd) vr[dd] += pj * doi[dd];
                            for (int64_t dd = 0; dd < D; ++dd) kr[dd] += dsj * qi[dd];
                        }
                    }
                }
            }
            for (int64_t j = 0; j < n; ++j) {
                storeRun(g.dk.row(b, kh, j0 + j), g.dk.t, dk + j * D, static_cast<size_t>(D));
                storeRun(g.dv.row(b, kh, j0 + j), g.dv.t, dv + j * D, static_cast<size_t>(D));
            }
        }
    });
}

bool isAttnDtype(infiniDtype_t t) { return t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16; }

bool sameShape(const infiniopTensor_t &t, int64_t a, int64_t b, int64_t c, int64_t d) {
    return t.ndim == 4 && t.shape[0] == a && t.shape[1] == b && t.shape[2] == c && t.shape[3] == d;
}

// Stride 1 along the last dim (or a last dim of one element).
bool lastContiguous(const infiniopTensor_t &t) { return t.shape[3] <= 1 || t.strides[3] == 1; }

}  // namespace

infiniStatus_t sdpa(const infiniopSdpaArgs_t &a, infinirtStream_t stream) {
    const char *op = a.backward ? "sdpa backward" : "sdpa";
    if (a.q.ndim != 4 || a.k.ndim != 4 || a.v.ndim != 4) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: q, k, v must be 4-d, got %d, %d, %d dims", op, a.q.ndim,
                    a.k.ndim, a.v.ndim);
    }
    Geometry g{};
    g.B = a.q.shape[0];
    g.HQ = a.q.shape[1];
    g.LQ = a.q.shape[2];
    g.D = a.q.shape[3];
    g.HK = a.k.shape[1];
    g.LK = a.k.shape[2];
    if (!isAttnDtype(a.dtype) || a.q.dtype != a.dtype || a.k.dtype != a.dtype || a.v.dtype != a.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: q, k, v must share one of F16, BF16, F32", op);
    }
    if (!sameShape(a.k, g.B, g.HK, g.LK, g.D) || !sameShape(a.v, g.B, g.HK, g.LK, g.D) || g.HK == 0 ||
        g.HQ % g.HK != 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "%s: k and v must be [%lld, h, lk, %lld] with h dividing %lld query heads", op, (long long)g.B,
                    (long long)g.D, (long long)g.HQ);
    }
    g.G = g.HQ / g.HK;
    g.scale = static_cast<float>(a.scale);
    g.causal = a.causal != 0;
    g.has_mask = a.mask_dtype != INFINI_DTYPE_INVALID;
    if (g.has_mask) {
        const infiniopTensor_t &m = a.mask;
        if (a.mask_dtype != INFINI_DTYPE_BOOL && a.mask_dtype != a.dtype) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: the mask must be BOOL or q's dtype", op);
        }
        if (m.ndim != 4 || (m.shape[0] != 1 && m.shape[0] != g.B) || (m.shape[1] != 1 && m.shape[1] != g.HQ) ||
            m.shape[2] != g.LQ || m.shape[3] != g.LK) {
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: the mask must be [b|1, hq|1, lq, lk]", op);
        }
        g.bool_mask = a.mask_dtype == INFINI_DTYPE_BOOL;
        g.mask = viewOf(m);
        g.mask.t = a.mask_dtype;
        g.mask.esize = elementSize(a.mask_dtype);
    }
    if (!sameShape(a.out, g.B, g.HQ, g.LQ, g.D) || a.out.dtype != a.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: out must be [b, hq, lq, d] in q's dtype", op);
    }
    const bool lse_given = a.lse.data != nullptr || a.backward;
    if (lse_given && (a.lse.ndim != 3 || a.lse.dtype != INFINI_DTYPE_F32 || a.lse.shape[0] != g.B ||
                      a.lse.shape[1] != g.HQ || a.lse.shape[2] != g.LQ)) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: lse must be F32 [b, hq, lq]", op);
    }
    bool strides_ok = lastContiguous(a.q) && lastContiguous(a.k) && lastContiguous(a.v) && lastContiguous(a.out);
    if (a.backward) {
        if (!sameShape(a.dout, g.B, g.HQ, g.LQ, g.D) || !sameShape(a.dq, g.B, g.HQ, g.LQ, g.D) ||
            !sameShape(a.dk, g.B, g.HK, g.LK, g.D) || !sameShape(a.dv, g.B, g.HK, g.LK, g.D) ||
            a.dout.dtype != a.dtype || a.dq.dtype != a.dtype || a.dk.dtype != a.dtype || a.dv.dtype != a.dtype) {
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: dout, dq, dk, dv must have the shapes of out, q, k, v",
                        op);
        }
        strides_ok = strides_ok && lastContiguous(a.dout) && lastContiguous(a.dq) && lastContiguous(a.dk) &&
                     lastContiguous(a.dv);
    }
    if (!strides_ok) return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "%s: operands need stride 1 in their last dim", op);
    const bool rows = g.B * g.HQ * g.LQ > 0, keys = g.B * g.HK * g.LK > 0;
    if ((rows && g.D > 0 && (a.q.data == nullptr || a.out.data == nullptr)) ||
        (keys && g.D > 0 && (a.k.data == nullptr || a.v.data == nullptr))) {
        return fail(INFINI_STATUS_NULL_POINTER, "%s: an operand is NULL", op);
    }
    if (!rows && !(a.backward && keys)) return INFINI_STATUS_SUCCESS;
    g.q = viewOf(a.q);
    g.k = viewOf(a.k);
    g.v = viewOf(a.v);
    g.out = viewOf(a.out);
    g.lse = viewOf(a.lse);
    if (a.backward) {
        g.dout = viewOf(a.dout);
        g.dq = viewOf(a.dq);
        g.dk = viewOf(a.dk);
        g.dv = viewOf(a.dv);
    }
    return submit(stream, [g, bwd = a.backward != 0] {
        if (bwd) {
            backward(g);
        } else {
            forward(g);
        }
    });
}

}  // namespace infini::cpu::families
