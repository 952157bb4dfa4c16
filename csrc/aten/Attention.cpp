// Attention.cpp: F.scaled_dot_product_attention on the sdpa family (infiniopSdpa).
//
// torch's scaled_dot_product_attention asks the device's _fused_sdp_choice_stub which backend to run. For infini
// tensors the family takes (3-d or 4-d q / k / v of one float32 / float16 / bfloat16 dtype and one head dim, no
// dropout, grouped heads when enable_gqa, a mask that needs no gradient) the answer is "overrideable": torch then
// converts a bool mask to an additive one and calls _scaled_dot_product_fused_attention_overrideable, and autograd
// its _backward; both are here. Anything else gets "math", torch's composition of matmul and softmax (Linalg.cpp,
// NN.cpp). The overrideable op has no enable_gqa: the grouping comes from the head counts (hq a multiple of hk).
// is_causal is torch's top-left aligned mask (query i sees keys j <= i); the family's causal flag is aligned to the
// bottom right, the same when lq == lk, so other lengths pass the mask explicitly.
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/_fused_sdp_choice_ops.h>
#include <ATen/ops/_scaled_dot_product_fused_attention_overrideable_backward_ops.h>
#include <ATen/ops/_scaled_dot_product_fused_attention_overrideable_ops.h>
#include <c10/core/GradMode.h>
#include <torch/library.h>

#include <cmath>

#include "Family.h"
#include "Route.h"

namespace infini_torch::aten {
namespace {

using at::Tensor;

// torch's SDPBackend values (ATen/native/transformers/sdp_utils_cpp.h, ATen/SDPBackend.h: stable since 2.5).
constexpr int64_t kMath = 0;
constexpr int64_t kOverrideable = 4;

bool takes(const Tensor &q, const Tensor &k, const Tensor &v, const std::optional<Tensor> &mask, double dropout_p,
           bool enable_gqa) {
    if (q.is_nested() || k.is_nested() || v.is_nested() || dropout_p != 0.0) return false;
    if (!isInfini(q) || k.device() != q.device() || v.device() != q.device()) return false;
    if (q.dim() != k.dim() || q.dim() != v.dim() || (q.dim() != 3 && q.dim() != 4)) return false;
    if (!isFloat32Or16(q.scalar_type()) || k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type()) {
        return false;
    }
    const int64_t d = q.size(-1), hq = q.size(-3), hk = k.size(-3);
    if (k.size(-1) != d || v.size(-1) != d || k.sizes() != v.sizes()) return false;
    if (q.dim() == 4 && k.size(0) != q.size(0)) return false;
    if (hk == 0 || (hq != hk && !(enable_gqa && hq % hk == 0))) return false;
    if (mask.has_value() && mask->defined()) {
        const Tensor &m = *mask;
        if (m.device() != q.device() || m.is_nested() || m.dim() > 4) return false;
        if (m.scalar_type() != at::kBool && !at::isFloatingType(m.scalar_type())) return false;
        if (m.requires_grad() && c10::GradMode::is_enabled()) return false;  // the family gives no mask gradient
    }
    return true;
}

int64_t sdpChoice(const Tensor &q, const Tensor &k, const Tensor &v, const std::optional<Tensor> &mask,
                  double dropout_p, bool /*is_causal*/, std::optional<double> /*scale*/, bool enable_gqa) {
    if (!at::globalContext().userEnabledOverrideableSDP()) return kMath;
    const bool native = takes(q, k, v, mask, dropout_p, enable_gqa) && familyOn(q.device(), INFINIOP_FAMILY_SDPA);
    return native ? kOverrideable : kMath;
}

// The operands of one call: 4-d q / k / v (3-d ones get a batch dim of 1), each with stride 1 along its last dim,
// and the mask ([b, hq, lq, lk] by broadcasting, in q's dtype unless bool); causal stays the family's flag only
// where lq == lk.
struct Prepared {
    Tensor q, k, v, mask;
    bool causal = false;
    bool squeeze = false;
    double scale = 0.0;
};

Tensor lastContiguous(const Tensor &t) { return t.size(-1) <= 1 || t.stride(-1) == 1 ? t : t.contiguous(); }

Prepared prepare(const char *name, const Tensor &query, const Tensor &key, const Tensor &value, const Tensor &bias,
                 bool is_causal, std::optional<double> scale) {
    TORCH_CHECK(query.dim() == key.dim() && query.dim() == value.dim() && (query.dim() == 3 || query.dim() == 4), name,
                ": query, key and value must all be 3-d or all 4-d, got ", query.dim(), ", ", key.dim(), " and ",
                value.dim(), " dims");
    TORCH_CHECK(isFloat32Or16(query.scalar_type()) && key.scalar_type() == query.scalar_type() &&
                    value.scalar_type() == query.scalar_type(),
                name, ": query, key and value must share one of float32, float16, bfloat16; got ", query.scalar_type(),
                ", ", key.scalar_type(), " and ", value.scalar_type());
    checkSameDevice(name, query.device(), {&key, &value, &bias});
    Prepared p;
    p.squeeze = query.dim() == 3;
    p.q = lastContiguous(p.squeeze ? query.unsqueeze(0) : query);
    p.k = lastContiguous(p.squeeze ? key.unsqueeze(0) : key);
    p.v = lastContiguous(p.squeeze ? value.unsqueeze(0) : value);
    const int64_t b = p.q.size(0), hq = p.q.size(1), lq = p.q.size(2), d = p.q.size(3);
    const int64_t hk = p.k.size(1), lk = p.k.size(2);
    TORCH_CHECK(p.k.size(0) == b && p.k.size(3) == d && p.v.sizes() == p.k.sizes(), name, ": key and value must be [",
                b, ", heads, keys, ", d, "] alike, got ", key.sizes(), " and ", value.sizes());
    TORCH_CHECK(hk > 0 && hq % hk == 0, name, ": the number of query heads (", hq,
                ") must be a multiple of the number of key / value heads (", hk, ")");
    p.scale = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(d));
    if (bias.defined()) {
        TORCH_CHECK(!is_causal, name, ": Explicit attn_mask should not be set when is_causal=True");
        const Tensor m = bias.scalar_type() == at::kBool ? bias : bias.to(query.scalar_type());
        p.mask = m.expand({b, hq, lq, lk});
    } else if (is_causal && lq != lk) {
        // torch's top-left causal mask for unequal lengths, made on the host (lq * lk bytes)
        p.mask = at::ones({lq, lk}, at::kBool).tril().to(query.device()).expand({b, hq, lq, lk});
    } else {
        p.causal = is_causal;
    }
    return p;
}

infiniopSdpaArgs_t argsOf(const Prepared &p) { return sdpaArgsOf(p.q, p.k, p.v, p.mask, p.causal, p.scale); }

// A tensor like t (its dim order where t is dense) with stride 1 along its last dim.
Tensor emptyLike(const Tensor &t) {
    Tensor e = at::empty_like(t);
    return e.size(-1) <= 1 || e.stride(-1) == 1 ? e : at::empty(t.sizes(), t.options());
}

using SdpaOutputs = std::tuple<Tensor, Tensor, Tensor, Tensor, c10::SymInt, c10::SymInt, Tensor, Tensor, Tensor>;

SdpaOutputs sdpaForward(const Tensor &query, const Tensor &key, const Tensor &value,
                        const std::optional<Tensor> &attn_bias, double dropout_p, bool is_causal,
                        bool /*return_debug_mask*/, std::optional<double> scale) {
    const char *name = "aten::_scaled_dot_product_fused_attention_overrideable";
    TORCH_CHECK(dropout_p == 0.0, name,
                ": dropout is not supported on infini (scaled_dot_product_attention runs it "
                "on the math path)");
    const Tensor bias = attn_bias.has_value() ? *attn_bias : Tensor();
    const Prepared p = prepare(name, query, key, value, bias, is_causal, scale);
    const int64_t b = p.q.size(0), hq = p.q.size(1), lq = p.q.size(2), lk = p.k.size(2);
    Tensor out = emptyLike(p.q);
    Tensor lse = at::empty({b, hq, lq}, p.q.options().dtype(at::kFloat));
    infiniopSdpaArgs_t a = argsOf(p);
    a.backward = 0;
    a.out = tensorOf(out);
    a.lse = tensorOf(lse);
    runFamily(name, infiniopSdpa, query.device(), a);
    // torch's convention for the unused outputs (as its CPU flash kernel): philox seed / offset as 0-d int64 on the
    // host, no cumulative sequence lengths, no debug mask
    Tensor seed = at::empty({}, at::dtype(at::kLong)), offset = at::empty({}, at::dtype(at::kLong));
    return {p.squeeze ? out.squeeze(0) : out,
            lse,
            Tensor(),
            Tensor(),
            c10::SymInt(lq),
            c10::SymInt(lk),
            std::move(seed),
            std::move(offset),
            Tensor()};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> sdpaBackward(
    const Tensor &grad_out, const Tensor &query, const Tensor &key, const Tensor &value, const Tensor &attn_bias,
    std::array<bool, 4> grad_input_mask, const Tensor &out, const Tensor &logsumexp, const Tensor & /*cum_seq_q*/,
    const Tensor & /*cum_seq_k*/, c10::SymInt /*max_q*/, c10::SymInt /*max_k*/, double dropout_p, bool is_causal,
    const Tensor & /*philox_seed*/, const Tensor & /*philox_offset*/, std::optional<double> scale) {
    const char *name = "aten::_scaled_dot_product_fused_attention_overrideable_backward";
    TORCH_CHECK(dropout_p == 0.0, name, ": dropout is not supported on infini");
    TORCH_CHECK(!(grad_input_mask[3] && attn_bias.defined()), name,
                ": no gradient for attn_mask on infini ("
                "scaled_dot_product_attention takes the math path for a mask that requires grad)");
    if (!grad_input_mask[0] && !grad_input_mask[1] && !grad_input_mask[2]) return {};
    const Prepared p = prepare(name, query, key, value, attn_bias, is_causal, scale);
    const Tensor dout = lastContiguous(p.squeeze ? grad_out.unsqueeze(0) : grad_out).to(p.q.scalar_type());
    const Tensor o = lastContiguous(p.squeeze ? out.unsqueeze(0) : out);
    const Tensor lse = logsumexp.to(at::kFloat).reshape({p.q.size(0), p.q.size(1), p.q.size(2)});
    checkSameDevice(name, query.device(), {&dout, &o, &lse});
    Tensor dq = emptyLike(p.q), dk = emptyLike(p.k), dv = emptyLike(p.v);
    infiniopSdpaArgs_t a = argsOf(p);
    a.backward = 1;
    a.out = tensorOf(o);
    a.lse = tensorOf(lse);
    a.dout = tensorOf(dout);
    a.dq = tensorOf(dq);
    a.dk = tensorOf(dk);
    a.dv = tensorOf(dv);
    runFamily(name, infiniopSdpa, query.device(), a);
    auto back = [&](Tensor &t, bool wanted) { return !wanted ? Tensor() : p.squeeze ? t.squeeze(0) : t; };
    return {back(dq, grad_input_mask[0]), back(dk, grad_input_mask[1]), back(dv, grad_input_mask[2]), Tensor()};
}

}  // namespace

infiniopSdpaArgs_t sdpaArgsOf(const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &mask, bool causal,
                              double scale) {
    infiniopSdpaArgs_t a{};
    a.causal = causal ? 1 : 0;
    a.scale = scale;
    a.dtype = familyDtype(q.scalar_type());
    a.mask_dtype = mask.defined() ? familyDtype(mask.scalar_type()) : INFINI_DTYPE_INVALID;
    a.q = tensorOf(q);
    a.k = tensorOf(k);
    a.v = tensorOf(v);
    if (mask.defined()) a.mask = tensorOf(mask);
    return a;
}

}  // namespace infini_torch::aten

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &infini_torch::aten::sdpChoice)
}  // namespace at::native

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
    using namespace infini_torch::aten;
    m.impl("_fused_sdp_choice", TORCH_FN(sdpChoice));
    m.impl("_scaled_dot_product_fused_attention_overrideable", TORCH_FN(sdpaForward));
    m.impl("_scaled_dot_product_fused_attention_overrideable_backward", TORCH_FN(sdpaBackward));
}
