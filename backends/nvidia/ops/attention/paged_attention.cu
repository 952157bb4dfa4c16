// attention/paged_attention.cu: paged_attention (decode): the general kernel, and the decode fast path
// (makeDecodeFast) where the call's shapes and alignment allow it.
#include "splitk.cuh"

namespace infini::nvidia::ops {

using namespace attn;

infiniStatus_t makePagedAttention(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "paged_attention";
    Layout out = layoutOf(prm.tensors[0]), q = layoutOf(prm.tensors[1]), kc = layoutOf(prm.tensors[2]),
           vc = layoutOf(prm.tensors[3]), bt = layoutOf(prm.tensors[4]), lens = layoutOf(prm.tensors[5]),
           alibi = layoutOf(prm.tensors[6]);
    bool has_alibi = prm.tensors[6] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedDecode(out, q, kc, vc, bt, lens, alibi, has_alibi));
    AttnParams p = pagedParams(out, q, kc, vc, bt, lens, alibi, has_alibi, static_cast<float>(prm.f[0]),
                               INFINIOP_OP_PAGED_ATTENTION);
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2}, 8);
    Made generic, fast;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kDecode>(op, p, q.dtype, p.max_tokens, 1, 2, 3, 4, 5, -1,
                                                      has_alibi ? 6 : -1, aligned, &generic));
    if (!makeDecodeFast(p, q.dtype, has_alibi, &fast)) {
        *m = std::move(generic);
        return INFINI_STATUS_SUCCESS;
    }
    // the fast path where q, k_cache and v_cache start on 16 bytes (checked per call)
    m->workspace = std::max(generic.workspace, fast.workspace);
    m->launch = [generic = std::move(generic.launch), fast = std::move(fast.launch)](const LaunchArgs &a) {
        bool al = aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[3]);
        return al ? fast(a) : generic(a);
    };
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::nvidia::ops
