// attention/decode_plan.cu: the decode fast path's plan (makeDecodeFast): which decode kernel, its blocks and
// partitions, and how the partitions are merged; and its launch.
#include "decode_tc.cuh"

namespace infini::nvidia::ops::attn {

bool makeDecodeFast(AttnParams p, infiniDtype_t dtype, bool has_alibi, Made *made) {
    if (dtype != INFINI_DTYPE_F16 && dtype != INFINI_DTYPE_BF16) return false;
    if (p.d != 64 && p.d != 128 && p.d != 256) return false;
    if (!alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2, p.q_row, p.q_head}, 8)) return false;
    if (p.rows > 65535 || p.rows == 0 || p.max_tokens > (1LL << 30) || p.block_size <= 0) return false;
    // 4+ query heads per kv head: the tensor-core kernel, 8 heads a block
    bool tc =
        !has_alibi && p.num_blocks < (1LL << 31) && p.group >= 4 && (p.d == 64 || p.d == 128) && p.block_shift >= 3;
    // else query heads per block: 4 (measured faster than 2 or 1 for grouped heads)
    int G = tc ? kTcRows : (p.group >= 4 ? 4 : (p.group >= 2 ? 2 : 1));
    p.hpasses = static_cast<int>((p.group + G - 1) / G);
    if (p.kv_heads * p.hpasses > 65535) return false;
    long long S = tc ? 16 : (G == 4 ? 4 : 8) * (32 / (p.d / 8)), unit = kDecWarps * S;
    long long pairs = p.rows * p.kv_heads * p.hpasses;
    // blocks to aim for: 16 per SM (of 132); the tensor-core kernel wants fewer, longer partitions: 4 per SM
    // with much work, 1 with little; its bulk-copy form (below) 8 (3 blocks an SM, so about 4 waves of blocks
    // rather than 2.6). Each the fastest measured of its neighbours.
    const bool little = pairs * p.max_tokens < (1LL << 19);
    // With much work and packed rows, the tensor-core kernel takes its keys/values by bulk copies
    // (decodeBulkKernel; compute capability 9.0+, as clusters).
    const bool bulk = tc && !little && p.k_s2 == p.d && p.v_s2 == p.d && clustersAvailable();
    long long target = 132LL * (tc ? (little ? 1 : (bulk ? 8 : 4)) : 16);
    // partitions of at least min_len tokens, a multiple of u; and how many cover the keys
    auto partLen = [&](long long min_len, long long u) { return std::max(u, (min_len + u - 1) / u * u); };
    auto partsOf = [&](long long len) { return p.max_tokens <= 0 ? 1 : (p.max_tokens + len - 1) / len; };
    const long long want = std::max(1LL, (target + pairs - 1) / pairs);
    long long part_len = partLen((p.max_tokens + want - 1) / want, unit);
    long long parts = partsOf(part_len);
    // The tensor-core kernel with little work in blocks of 8 warps, one an SM, in at most 8 partitions (one
    // cluster, no second kernel; partitions at least twice as long: a warp's steps halve, the cluster's merge has
    // fewer ranks), where that still gives 64+ blocks (with fewer, 4 warps a block and twice the blocks measured
    // faster)
    int warps = kDecWarps;
    if (tc && little) {
        const long long want8 = std::max(1LL, 132LL / pairs);
        const long long len8 = partLen(std::max((p.max_tokens + want8 - 1) / want8, (p.max_tokens + 7) / 8), 8 * 16);
        const long long parts8 = partsOf(len8);  // at most 8
        if (pairs * parts8 >= 64 && (parts8 == 1 || clustersAvailable())) {
            warps = 8;
            part_len = len8;
            parts = parts8;
        }
    }
    if (parts > 65535) return false;
    p.part_len = static_cast<int>(part_len);
    p.parts = static_cast<int>(parts);
    // The tensor-core kernel with little work (one wave of blocks) merges its 2-8 partitions inside a
    // cluster, with no second kernel (mergeCluster: by stores into the owner's shared memory). The partitions
    // stay at one block an SM. Not with much work: a block that finishes first holds its SM while it waits for
    // its cluster. Else combineKernel merges them, launched as a programmatic dependent of the decode kernel
    // (its blocks are placed while the decode's last blocks run, then wait for them). (The last partition of
    // each (sequence, kv head) to finish merging them instead, counting arrivals with a fence and an atomic in
    // every block, measured slower.)
    const bool cl = tc && little && parts >= 2 && parts <= 8 && clustersAvailable();
    made->workspace = parts > 1 && !cl ? static_cast<size_t>(p.rows * p.heads * parts) * (p.d + 2) * sizeof(float) : 0;
    auto launch = [p, G, tc, cl, bulk, little, warps, has_alibi](auto ttag, const LaunchArgs &a) -> infiniStatus_t {
        using T = typename decltype(ttag)::type;
        T *out = static_cast<T *>(a.data[0]);
        const T *q = static_cast<const T *>(a.data[1]);
        const T *kc = static_cast<const T *>(a.data[2]);
        const T *vc = static_cast<const T *>(a.data[3]);
        const float *alibi = has_alibi ? static_cast<const float *>(a.data[6]) : nullptr;
        float *part_out = static_cast<float *>(a.workspace);
        float *part_ml = part_out ? part_out + p.rows * p.heads * p.parts * p.d : nullptr;
        unsigned gp = static_cast<unsigned>(p.parts), gk = static_cast<unsigned>(p.kv_heads * p.hpasses),
                 gs = static_cast<unsigned>(p.rows);
        dim3 grid(gp, gk, gs);
        // the tensor-core kernel: with much work (bulk) by bulk copies; with little its loads skip L1 and,
        // where cl, the partitions of (sequence, kv head) are one cluster that merges them
        auto runTc = [&](auto dtag) {
            constexpr int DD = decltype(dtag)::value;
            static SmemAllowance ring_smem;
            if (bulk && ring_smem.ensure(decodeBulkKernel<T, DD>, kBulkRing<T, DD>)) {
                launchEx(decodeBulkKernel<T, DD>, grid, kDecWarps * 32, kBulkRing<T, DD>, a.stream, 0, opsDependent(),
                         p, out, q, kc, vc, a.data[4], a.data[5], part_out, part_ml, a.err);
            } else {  // (if the ring's shared memory is refused: the register kernel)
                auto kern = warps == 8
                                ? (cl ? decodeTcKernel<T, DD, true, true, 8> : decodeTcKernel<T, DD, false, true, 8>)
                            : cl     ? decodeTcKernel<T, DD, true, true>
                            : little ? decodeTcKernel<T, DD, false, true>
                                     : decodeTcKernel<T, DD, false, false>;
                launchEx(kern, grid, warps * 32, 0, a.stream, cl ? static_cast<int>(gp) : 0, opsDependent(), p, out, q,
                         kc, vc, a.data[4], a.data[5], part_out, part_ml, a.err);
            }
        };
        auto go = [&](auto dtag, auto gtag) {
            constexpr int DD = decltype(dtag)::value, GG = decltype(gtag)::value;
            launchOp(decodeKernel<T, DD, GG>, grid, kDecWarps * 32, 0, a.stream, p, out, q, kc, vc, a.data[4],
                     a.data[5], alibi, part_out, part_ml, a.err);
        };
        auto byD = [&](auto gtag) {
            if (p.d == 64)
                go(std::integral_constant<int, 64>{}, gtag);
            else if (p.d == 128)
                go(std::integral_constant<int, 128>{}, gtag);
            else
                go(std::integral_constant<int, 256>{}, gtag);
        };
        if (tc) {
            if (p.d == 64)
                runTc(std::integral_constant<int, 64>{});
            else
                runTc(std::integral_constant<int, 128>{});
        } else if (G == 4)
            byD(std::integral_constant<int, 4>{});
        else if (G == 2)
            byD(std::integral_constant<int, 2>{});
        else
            byD(std::integral_constant<int, 1>{});
        if (p.parts > 1 && !cl) {
            dim3 cg(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.rows));
            launchOp(combineKernel<T>, cg, 128, 0, a.stream, p, out, part_out, part_ml);
        }
        return launched("paged_attention");
    };
    bool bf = dtype == INFINI_DTYPE_BF16;
    made->launch = [launch, bf](const LaunchArgs &a) -> infiniStatus_t {
        if (bf) return launch(TypeTag<__nv_bfloat16>{}, a);
        return launch(TypeTag<__half>{}, a);
    };
    return true;
}

}  // namespace infini::nvidia::ops::attn
