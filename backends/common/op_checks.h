// op_checks.h: the argument checks of the operators that every backend makes the same way (shapes,
// dtypes, layouts the kernels rely on), so that a bad call fails with the same message whichever
// backend runs it. Header-only, torch-free; each returns a status and leaves the message.
#pragma once

#include <utility>

#include "layout.h"

namespace infini::checks {

// A weight (or bias) vector of x's last dim: [n], x's dtype or float32, contiguous.
inline infiniStatus_t normWeight(const char *op, const char *name, const Layout &w, const Layout &x) {
    if (w.ndim() != 1 || w.shape[0] != x.last()) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: %s must have shape [%zu], got %s", op, name, x.last(),
                    w.str().c_str());
    }
    if (w.dtype != x.dtype && w.dtype != INFINI_DTYPE_F32) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %s must have x's dtype or float32", op, name);
    }
    return expectLastContiguous(op, name, w);
}

// rms_norm: y, x [..., n] with stride 1 along n; weight [n].
inline infiniStatus_t rmsNorm(const Layout &y, const Layout &x, const Layout &w) {
    const char *op = "rms_norm";
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    return normWeight(op, "weight", w, x);
}

// add_rms_norm: y, residual, a, b alike [..., n] with stride 1 along n; weight [n].
inline infiniStatus_t addRmsNorm(const Layout &y, const Layout &res, const Layout &a, const Layout &b,
                                 const Layout &w) {
    const char *op = "add_rms_norm";
    for (auto [name, t] : {std::pair<const char *, const Layout *>{"y", &y}, {"residual", &res}, {"b", &b}}) {
        INFINI_RETURN_IF_ERROR(expectSameShape(op, name, *t, a, "a"));
        INFINI_RETURN_IF_ERROR(expectSameDtype(op, name, *t, a, "a"));
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "a", a));
    return normWeight(op, "weight", w, a);
}

// layer_norm: as rms_norm, plus an optional bias [n] of the weight's dtype.
inline infiniStatus_t layerNorm(const Layout &y, const Layout &x, const Layout &w, const Layout &bias, bool has_bias) {
    const char *op = "layer_norm";
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    INFINI_RETURN_IF_ERROR(normWeight(op, "weight", w, x));
    if (has_bias) {
        INFINI_RETURN_IF_ERROR(normWeight(op, "bias", bias, x));
        if (bias.dtype != w.dtype) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: bias and weight dtypes differ", op);
    }
    return INFINI_STATUS_SUCCESS;
}

// silu_and_mul: x [..., 2d] -> y [..., d], both with stride 1 along the last dim.
inline infiniStatus_t siluAndMul(const Layout &y, const Layout &x) {
    const char *op = "silu_and_mul";
    if (x.ndim() == 0 || x.last() % 2 != 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: the last dimension of x must be even, got %s", op,
                    x.str().c_str());
    }
    Layout half = x;
    half.shape.back() /= 2;
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, half, "x with its last dimension halved"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    return expectLastContiguous(op, "y", y);
}

// embedding: y [..., dim] from weight [vocab, dim] at indices [...].
inline infiniStatus_t embedding(const Layout &y, const Layout &idx, const Layout &w) {
    const char *op = "embedding";
    if (!isIndexType(idx.dtype)) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: indices must be int32 or int64", op);
    if (w.ndim() != 2)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: weight must be 2-D, got %s", op, w.str().c_str());
    Layout expect = idx;
    expect.shape.push_back(w.shape[1]);
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "output", y, expect, "indices.shape + [dim]"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "output", y, w, "weight"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "weight", w));
    return expectLastContiguous(op, "output", y);
}

// rope: x [seq, heads, d] or [batch, seq, heads, d], pos_ids [seq] or [batch, seq], tables [max_pos, d/2].
inline infiniStatus_t rope(const Layout &y, const Layout &x, const Layout &pos, const Layout &sin, const Layout &cos,
                           int64_t algo) {
    const char *op = "rope";
    if (algo != 0 && algo != 1) return fail(INFINI_STATUS_BAD_PARAM, "%s: algo must be 0 (gpt_neox) or 1 (gpt_j)", op);
    if (x.ndim() != 3 && x.ndim() != 4) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "%s: x must be [seq, heads, head_dim] or [batch, seq, heads, head_dim], got %s", op,
                    x.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    size_t d = x.last(), seq = x.shape[x.ndim() - 3];
    size_t batch = x.ndim() == 4 ? x.shape[0] : 1;
    if (d % 2 != 0) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: head_dim %zu must be even", op, d);
    if (!isIndexType(pos.dtype)) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: pos_ids must be int32 or int64", op);
    bool pos_ok = x.ndim() == 3 ? (pos.ndim() == 1 && pos.shape[0] == seq)
                                : (pos.ndim() == 2 && pos.shape[0] == batch && pos.shape[1] == seq);
    if (!pos_ok) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: pos_ids must be [seq]%s, got %s", op,
                    x.ndim() == 4 ? " per batch ([batch, seq])" : "", pos.str().c_str());
    }
    for (auto [name, t] : {std::pair<const char *, const Layout *>{"sin_table", &sin}, {"cos_table", &cos}}) {
        if (t->ndim() != 2 || t->shape[1] != d / 2) {
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: %s must be [max_pos, %zu], got %s", op, name, d / 2,
                        t->str().c_str());
        }
        if (t->dtype != x.dtype && t->dtype != INFINI_DTYPE_F32) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %s must have x's dtype or float32", op, name);
        }
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    if (sin.shape != cos.shape || sin.dtype != cos.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: sin_table and cos_table must match", op);
    }
    return INFINI_STATUS_SUCCESS;
}

// paged_caching: k/v [tokens, kv_heads, d] into caches [blocks, kv_heads, block_size, d] at slot_mapping [tokens].
inline infiniStatus_t pagedCaching(const Layout &kc, const Layout &vc, const Layout &kk, const Layout &vv,
                                   const Layout &slots) {
    const char *op = "paged_caching";
    if (kk.ndim() != 3) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: k must be [tokens, kv_heads, head_dim], got %s", op,
                    kk.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "v", vv, kk, "k"));
    if (kc.ndim() != 4 || kc.shape[1] != kk.shape[1] || kc.shape[3] != kk.shape[2] || kc.shape[2] == 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: k_cache must be [num_blocks, %zu, block_size, %zu], got %s",
                    op, kk.shape[1], kk.shape[2], kc.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "v_cache", vc, kc, "k_cache"));
    for (auto [name, t] : {std::pair<const char *, const Layout *>{"v", &vv}, {"k_cache", &kc}, {"v_cache", &vc}}) {
        INFINI_RETURN_IF_ERROR(expectSameDtype(op, name, *t, kk, "k"));
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "k", kk));
    if (!isIndexType(slots.dtype) || slots.ndim() != 1 || slots.shape[0] != kk.shape[0]) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: slot_mapping must be int32/int64 [%zu]", op, kk.shape[0]);
    }
    return INFINI_STATUS_SUCCESS;
}

// attention: q/out [heads, seq, d], k/v [kv_heads dividing heads, seq, d], caches [kv_heads, max_seq, d], one dtype,
// last dims contiguous, d <= 512, and the new rows inside the caches (pos + seq <= max_seq).
inline infiniStatus_t attention(const Layout &out, const Layout &kc, const Layout &vc, const Layout &q, const Layout &k,
                                const Layout &v, int64_t pos) {
    const char *op = "attention";
    if (q.ndim() != 3 || k.ndim() != 3 || kc.ndim() != 3) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "%s: q [heads, seq, d], k/v [kv_heads, seq, d] and caches [kv_heads, max_seq, d] are 3-D", op);
    }
    size_t heads = q.shape[0], seq = q.shape[1], d = q.shape[2], kvh = k.shape[0], max_seq = kc.shape[1];
    if (kvh == 0 || heads % kvh != 0 || k.shape[1] != seq || k.shape[2] != d) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: k must be [kv_heads dividing %zu, %zu, %zu], got %s", op,
                    heads, seq, d, k.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "v", v, k, "k"));
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "out", out, q, "q"));
    if (kc.shape[0] != kvh || kc.shape[2] != d) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: k_cache must be [%zu, max_seq, %zu], got %s", op, kvh, d,
                    kc.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "v_cache", vc, kc, "k_cache"));
    for (auto [name, t] : {std::pair<const char *, const Layout *>{"out", &out},
                           {"k_cache", &kc},
                           {"v_cache", &vc},
                           {"k", &k},
                           {"v", &v}}) {
        INFINI_RETURN_IF_ERROR(expectSameDtype(op, name, *t, q, "q"));
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "q", q));
    if (d > 512) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: head_dim %zu exceeds 512", op, d);
    if (pos < 0 || static_cast<size_t>(pos) + seq > max_seq) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: pos %lld + seq %zu exceeds the cache's %zu rows", op,
                    static_cast<long long>(pos), seq, max_seq);
    }
    return INFINI_STATUS_SUCCESS;
}

// paged_attention(_prefill): q/out [rows, heads, d], caches [blocks, kv_heads, block_size, d],
// block_tables [seqs, max_blocks], seq_lens [seqs], alibi_slopes float32 [heads] or absent.
inline infiniStatus_t paged(const char *op, const Layout &out, const Layout &q, const Layout &kc, const Layout &vc,
                            const Layout &bt, const Layout &lens, const Layout &alibi, bool has_alibi) {
    if (q.ndim() != 3) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: q must be 3-D, got %s", op, q.str().c_str());
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "out", out, q, "q"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "out", out, q, "q"));
    size_t heads = q.shape[1], d = q.shape[2];
    if (d > 512) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: head_dim %zu exceeds 512", op, d);
    if (kc.ndim() != 4 || kc.shape[3] != d || kc.shape[1] == 0 || kc.shape[2] == 0 || heads % kc.shape[1] != 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "%s: k_cache must be [blocks, kv_heads dividing %zu, block_size, %zu], got %s", op, heads, d,
                    kc.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "v_cache", vc, kc, "k_cache"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "k_cache", kc, q, "q"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "v_cache", vc, q, "q"));
    for (auto [name, t] :
         {std::pair<const char *, const Layout *>{"q", &q}, {"out", &out}, {"k_cache", &kc}, {"v_cache", &vc}}) {
        INFINI_RETURN_IF_ERROR(expectLastContiguous(op, name, *t));
    }
    if (!isIndexType(bt.dtype) || bt.ndim() != 2) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: block_tables must be int32/int64 [seqs, max_blocks]", op);
    }
    if (!isIndexType(lens.dtype) || lens.ndim() != 1 || lens.shape[0] != bt.shape[0]) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: seq_lens must be int32/int64 [%zu]", op, bt.shape[0]);
    }
    if (has_alibi && (alibi.dtype != INFINI_DTYPE_F32 || alibi.ndim() != 1 || alibi.shape[0] != heads)) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: alibi_slopes must be float32 [%zu]", op, heads);
    }
    return INFINI_STATUS_SUCCESS;
}

// paged_attention: paged(), and one q row per sequence.
inline infiniStatus_t pagedDecode(const Layout &out, const Layout &q, const Layout &kc, const Layout &vc,
                                  const Layout &bt, const Layout &lens, const Layout &alibi, bool has_alibi) {
    const char *op = "paged_attention";
    INFINI_RETURN_IF_ERROR(paged(op, out, q, kc, vc, bt, lens, alibi, has_alibi));
    if (q.shape[0] != bt.shape[0]) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: q has %zu sequences, block_tables %zu", op, q.shape[0],
                    bt.shape[0]);
    }
    return INFINI_STATUS_SUCCESS;
}

// paged_attention_prefill: paged(), and cu_seqlens_q [seqs + 1].
inline infiniStatus_t pagedPrefill(const Layout &out, const Layout &q, const Layout &kc, const Layout &vc,
                                   const Layout &bt, const Layout &lens, const Layout &cu, const Layout &alibi,
                                   bool has_alibi) {
    const char *op = "paged_attention_prefill";
    INFINI_RETURN_IF_ERROR(paged(op, out, q, kc, vc, bt, lens, alibi, has_alibi));
    size_t seqs = bt.shape[0];
    if (!isIndexType(cu.dtype) || cu.ndim() != 1 || cu.shape[0] != seqs + 1) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: cu_seqlens_q must be int32/int64 [%zu]", op, seqs + 1);
    }
    return INFINI_STATUS_SUCCESS;
}

// topk_softmax: logits [tokens, experts]; weights float32 and indices int64, both [tokens, k].
inline infiniStatus_t topkSoftmax(const Layout &w, const Layout &idx, const Layout &x, int64_t topk) {
    const char *op = "topk_softmax";
    if (x.ndim() != 2)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: logits must be [tokens, experts], got %s", op,
                    x.str().c_str());
    size_t experts = x.shape[1];
    if (topk < 1 || static_cast<size_t>(topk) > experts) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: k=%lld must be in [1, %zu]", op, static_cast<long long>(topk),
                    experts);
    }
    Layout expect = x;
    expect.shape[1] = static_cast<size_t>(topk);
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "weights", w, expect, "[tokens, k]"));
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "indices", idx, expect, "[tokens, k]"));
    if (w.dtype != INFINI_DTYPE_F32) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: weights must be float32", op);
    if (idx.dtype != INFINI_DTYPE_I64) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: indices must be int64", op);
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "logits", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "weights", w));
    return expectLastContiguous(op, "indices", idx);
}

// random_sample: logits [vocab] or [batch, vocab]; result int64 and random_val float32, one per row.
inline infiniStatus_t randomSample(const Layout &out, const Layout &x, const Layout &rv, float temperature) {
    const char *op = "random_sample";
    if (x.ndim() != 1 && x.ndim() != 2) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: logits must be [vocab] or [batch, vocab], got %s", op,
                    x.str().c_str());
    }
    size_t batch = x.ndim() == 2 ? x.shape[0] : 1;
    if (x.last() == 0) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: the vocabulary is empty", op);
    if (out.dtype != INFINI_DTYPE_I64 || out.numel() != batch || out.ndim() != x.ndim() - 1) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: result must be int64 with one entry per row", op);
    }
    if (rv.dtype != INFINI_DTYPE_F32 || rv.numel() != batch || rv.ndim() > 1) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: random_val must be float32 with one entry per row", op);
    }
    if (!(temperature > 0)) return fail(INFINI_STATUS_BAD_PARAM, "%s: temperature must be > 0", op);
    return expectLastContiguous(op, "logits", x);
}

// softmax's dim, normalized to [0, ndim) (0 for a 0-d x), or BAD_PARAM.
inline infiniStatus_t softmaxDim(const Layout &y, const Layout &x, int64_t dim_in, int64_t *dim) {
    const char *op = "softmax";
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    int64_t nd = static_cast<int64_t>(x.ndim());
    *dim = dim_in < 0 ? dim_in + nd : dim_in;
    if (nd == 0) *dim = 0;
    if (*dim < 0 || (nd > 0 && *dim >= nd)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: dim %lld is out of range for %lld dimensions", op,
                    static_cast<long long>(dim_in), static_cast<long long>(nd));
    }
    return INFINI_STATUS_SUCCESS;
}

// causal_softmax: x [..., q_len, kv_len] with kv_len >= q_len.
inline infiniStatus_t causalSoftmax(const Layout &y, const Layout &x) {
    const char *op = "causal_softmax";
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    if (x.ndim() < 2)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: x must be [..., q_len, kv_len], got %s", op, x.str().c_str());
    size_t q = x.shape[x.ndim() - 2], kv = x.last();
    if (kv < q) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "%s: kv_len %zu is smaller than q_len %zu (a row would be fully masked)", op, kv, q);
    }
    return INFINI_STATUS_SUCCESS;
}

// gemm: c = a @ b (+ c_in), all 2-D or all 3-D (batch first), c with stride 1 along its rows.
inline infiniStatus_t gemm(const Layout &c, const Layout &a, const Layout &b, const Layout &cin, bool has_cin) {
    const char *op = "gemm";
    if (a.ndim() != b.ndim() || a.ndim() != c.ndim() || (a.ndim() != 2 && a.ndim() != 3)) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: a, b and c must all be 2-D or all 3-D, got %s, %s, %s", op,
                    a.str().c_str(), b.str().c_str(), c.str().c_str());
    }
    size_t nd = a.ndim(), M = a.shape[nd - 2], K = a.shape[nd - 1], N = b.shape[nd - 1];
    size_t batch = nd == 3 ? c.shape[0] : 1;
    if (b.shape[nd - 2] != K || c.shape[nd - 2] != M || c.shape[nd - 1] != N ||
        (nd == 3 && (a.shape[0] != batch || b.shape[0] != batch))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: shapes %s @ %s -> %s do not match", op, a.str().c_str(),
                    b.str().c_str(), c.str().c_str());
    }
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "b", b, a, "a"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "c", c, a, "a"));
    if (has_cin) {
        INFINI_RETURN_IF_ERROR(expectSameShape(op, "c_in", cin, c, "c"));
        INFINI_RETURN_IF_ERROR(expectSameDtype(op, "c_in", cin, c, "c"));
    }
    if (c.strides[nd - 1] != 1 && N > 1) {
        return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "%s: c must have stride 1 in its last dimension", op);
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::checks
