// families/sdpa.cu: the sdpa family (families.h): scaled dot-product attention, forward and backward. The host
// checks the call, then routes it:
// - the forward of fp16 / bf16, causal with lq <= lk, no mask, head_dim 64 or 128, to the backend's tiled
//   tensor-core kernel (ops/attention: its dense form, wgmma on Hopper) as attention over a dense cache: query row
//   i at position lk - lq + i sees keys 0 .. that position, which is the family's causal form. Heads of a batch
//   are the kernel's heads; batches fold into the heads where every batch stride is the heads' extent times the
//   head stride (contiguous [b, h, s, d], and lse [b, h, s]), else a launch a batch. The kernel also writes lse.
// - the backward of fp16 / bf16 with head_dim 64 or 128 and no mask to the tensor-core backward (sdpa_mma.cu);
// - everything else to the blocked kernels on CUDA cores (sdpa_blocked.cu).
#include <algorithm>
#include <cmath>

#include "../ops/attention/flash_plan.cuh"
#include "sdpa.cuh"

namespace infini::nvidia::families {
namespace {

infiniStatus_t checkShape(const char *name, const infiniopTensor_t &t, long long b, long long h, long long l,
                          long long d) {
    const long long want[4] = {b, h, l, d};
    bool ok = t.ndim == 4;
    for (int k = 0; ok && k < 4; ++k) ok = t.shape[k] == want[k];
    if (!ok) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopSdpa: %s is not [%lld, %lld, %lld, %lld]", name, b, h, l,
                    d);
    }
    if (d > 1 && t.strides[3] != 1) {
        return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "infiniopSdpa: %s's last dim is not contiguous (stride %lld)",
                    name, static_cast<long long>(t.strides[3]));
    }
    return INFINI_STATUS_SUCCESS;
}

void stridesOf(const infiniopTensor_t &t, long long (&s)[3]) {
    for (int k = 0; k < 3; ++k) s[k] = t.shape[k] == 1 ? 0 : t.strides[k];
}

// The tiled kernel for the forward where it takes the call; false (nothing queued) where it does not.
bool flashForward(const SdpaGeom &g, const SdpaData &x, const Ctx &q, infiniStatus_t *status) {
    using namespace ops;
    using namespace ops::attn;
    if ((g.dtype != INFINI_DTYPE_F16 && g.dtype != INFINI_DTYPE_BF16) || g.mask_dtype != INFINI_DTYPE_INVALID ||
        !g.causal)
        return false;
    if (g.lq > g.lk || (g.d != 64 && g.d != 128) || g.lq < 16 || !(g.scale >= 0.0f && std::isfinite(g.scale)))
        return false;
    for (const void *p : {x.q, x.k, x.v, static_cast<const void *>(x.out)}) {
        if (!aligned16(p)) return false;
    }
    const bool fold = g.b == 1 || (g.q[0] == g.hq * g.q[1] && g.o[0] == g.hq * g.o[1] && g.k[0] == g.hk * g.k[1] &&
                                   g.v[0] == g.hk * g.v[1] && (x.lse == nullptr || g.lse[0] == g.hq * g.lse[1]));
    // a launch a batch: its pointers move by the batch strides (multiples of 8 elements keep them on 16 bytes)
    if (!fold && (g.q[0] % 8 != 0 || g.k[0] % 8 != 0 || g.v[0] % 8 != 0 || g.o[0] % 8 != 0)) return false;
    const long long nb = fold ? g.b : 1;
    AttnParams p{};
    p.q_row = g.q[2];
    p.q_head = g.q[1];
    p.o_row = g.o[2];
    p.o_head = g.o[1];
    p.rows = g.lq;
    p.heads = g.hq * nb;
    p.kv_heads = g.hk * nb;
    p.group = g.group;
    p.d = g.d;
    p.scale = g.scale;
    p.k_s0 = g.k[1];
    p.k_s1 = g.k[2];
    p.v_s0 = g.v[1];
    p.v_s1 = g.v[2];
    p.pos = g.lk - g.lq;
    p.op = INFINIOP_OP_ATTENTION;
    p.lse_row = g.lse[2];
    p.lse_head = g.lse[1];
    Launch launch;
    size_t ws = 0;
    if (!makeFlash<Mode::kDense>(p, g.dtype, false, &launch, &ws) || ws != 0) return false;
    const long long es = static_cast<long long>(dtypeSize(g.dtype));
    for (long long bb = 0; bb < (fold ? 1 : g.b); ++bb) {
        // (the plan holds lse's pointer: made again for each batch)
        p.lse = x.lse != nullptr ? x.lse + bb * g.lse[0] : nullptr;
        if (bb > 0 || p.lse != nullptr) makeFlash<Mode::kDense>(p, g.dtype, false, &launch, &ws);
        // the dense op's tensor order: out, k cache, v cache, q
        void *data[4] = {static_cast<char *>(x.out) + bb * g.o[0] * es,
                         const_cast<char *>(static_cast<const char *>(x.k) + bb * g.k[0] * es),
                         const_cast<char *>(static_cast<const char *>(x.v) + bb * g.v[0] * es),
                         const_cast<char *>(static_cast<const char *>(x.q) + bb * g.q[0] * es)};
        const LaunchArgs a{data, nullptr, 0, q.stream, q.err, q.device};
        *status = launch(a);
        if (*status != INFINI_STATUS_SUCCESS) return true;
    }
    *status = INFINI_STATUS_SUCCESS;
    return true;
}

}  // namespace

infiniStatus_t sdpa(const infiniopSdpaArgs_t &a, const Ctx &q) {
    const infiniDtype_t dt = a.dtype;
    if (dt != INFINI_DTYPE_F16 && dt != INFINI_DTYPE_BF16 && dt != INFINI_DTYPE_F32) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopSdpa: dtype %d (float16, bfloat16 or float32)", dt);
    }
    if (a.q.ndim != 4 || a.k.ndim != 4)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopSdpa: q and k must be 4-d");
    SdpaGeom g{};
    g.b = a.q.shape[0];
    g.hq = a.q.shape[1];
    g.lq = a.q.shape[2];
    g.d = a.q.shape[3];
    g.hk = a.k.shape[1];
    g.lk = a.k.shape[2];
    g.dtype = dt;
    g.causal = a.causal != 0;
    g.scale = static_cast<float>(a.scale);
    const bool has_mask = a.mask_dtype != INFINI_DTYPE_INVALID && a.mask.data != nullptr;
    g.mask_dtype = has_mask ? a.mask_dtype : INFINI_DTYPE_INVALID;
    if (g.hk <= 0 ? g.hq != 0 : g.hq % g.hk != 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "infiniopSdpa: %lld query heads are not a multiple of %lld key heads", g.hq, g.hk);
    }
    g.group = g.hk > 0 ? g.hq / g.hk : 1;
    for (const infiniopTensor_t *t : {&a.q, &a.k, &a.v}) {
        if (t->dtype != dt) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopSdpa: q, k and v differ in dtype");
    }
    INFINI_RETURN_IF_ERROR(checkShape("q", a.q, g.b, g.hq, g.lq, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("k", a.k, g.b, g.hk, g.lk, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("v", a.v, g.b, g.hk, g.lk, g.d));
    stridesOf(a.q, g.q);
    stridesOf(a.k, g.k);
    stridesOf(a.v, g.v);
    if (has_mask) {
        const infiniopTensor_t &m = a.mask;
        const long long want[4] = {g.b, g.hq, g.lq, g.lk};
        bool ok = m.ndim == 4 && (a.mask_dtype == INFINI_DTYPE_BOOL || isFloatDtype(a.mask_dtype));
        for (int k = 0; ok && k < 4; ++k) {
            ok = m.shape[k] == want[k] || m.shape[k] == 1;
            g.mask[k] = m.shape[k] == 1 ? 0 : m.strides[k];
        }
        if (!ok) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "infiniopSdpa: the mask (dtype %d) is not a bool or float [b|1, hq|1, lq, lk] tensor",
                        a.mask_dtype);
        }
    }
    if (g.d > kSdpaMaxHeadDim) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "infiniopSdpa: head_dim %lld (the nvidia kernels take up to %lld)",
                    g.d, kSdpaMaxHeadDim);
    }
    if (g.b > 65535 || g.hq > 65535) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "infiniopSdpa: %lld batches of %lld heads (at most 65535 each)", g.b,
                    g.hq);
    }
    SdpaData x{};
    x.q = a.q.data;
    x.k = a.k.data;
    x.v = a.v.data;
    x.mask = has_mask ? a.mask.data : nullptr;
    const bool has_lse = a.lse.data != nullptr;
    if (has_lse) {
        if (a.lse.ndim != 3 || a.lse.dtype != INFINI_DTYPE_F32 || a.lse.shape[0] != g.b || a.lse.shape[1] != g.hq ||
            a.lse.shape[2] != g.lq) {
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopSdpa: lse is not F32 [%lld, %lld, %lld]", g.b, g.hq,
                        g.lq);
        }
        for (int k = 0; k < 3; ++k) g.lse[k] = a.lse.shape[k] == 1 ? 0 : a.lse.strides[k];
    }
    if (!a.backward) {
        INFINI_RETURN_IF_ERROR(checkShape("out", a.out, g.b, g.hq, g.lq, g.d));
        if (a.out.dtype != dt)
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopSdpa: out's dtype differs from q's");
        stridesOf(a.out, g.o);
        if (g.b * g.hq * g.lq == 0) return INFINI_STATUS_SUCCESS;
        x.out = a.out.data;
        x.lse = has_lse ? static_cast<float *>(a.lse.data) : nullptr;
        infiniStatus_t st = INFINI_STATUS_SUCCESS;
        if (g.d > 0 && flashForward(g, x, q, &st)) return st;
        return sdpaBlockedForward(g, x, q);
    }
    INFINI_RETURN_IF_ERROR(checkShape("out", a.out, g.b, g.hq, g.lq, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("dout", a.dout, g.b, g.hq, g.lq, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("dq", a.dq, g.b, g.hq, g.lq, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("dk", a.dk, g.b, g.hk, g.lk, g.d));
    INFINI_RETURN_IF_ERROR(checkShape("dv", a.dv, g.b, g.hk, g.lk, g.d));
    for (const infiniopTensor_t *t : {&a.out, &a.dout, &a.dq, &a.dk, &a.dv}) {
        if (t->dtype != dt)
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopSdpa: the backward's tensors differ in dtype");
    }
    if (g.b * g.hq * g.lq > 0 && !has_lse)
        return fail(INFINI_STATUS_NULL_POINTER, "infiniopSdpa: the backward needs lse");
    if (g.b * (g.hq * g.lq + g.hk * g.lk) == 0 || g.d == 0) return INFINI_STATUS_SUCCESS;
    stridesOf(a.out, g.o);
    stridesOf(a.dout, g.dout);
    stridesOf(a.dq, g.dq);
    stridesOf(a.dk, g.dk);
    stridesOf(a.dv, g.dv);
    x.o_in = a.out.data;
    x.dout = a.dout.data;
    x.lse_in = static_cast<const float *>(a.lse.data);
    x.dq = a.dq.data;
    x.dk = a.dk.data;
    x.dv = a.dv.data;
    return sdpaMmaTakes(g, x) ? sdpaMmaBackward(g, x, q) : sdpaBlockedBackward(g, x, q);
}

}  // namespace infini::nvidia::families
