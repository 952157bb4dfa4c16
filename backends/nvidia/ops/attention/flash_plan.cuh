// attention/flash_plan.cuh: the tiled kernel's plan (makeFlash: whether it takes the call, its row tiles, its
// form, the gathered keys' place in the workspace) and its per-call fallback to the general kernel (flashOr).
#pragma once

#include "flash_layout.cuh"

namespace infini::nvidia::ops::attn {

// Whether the tiled kernel takes its products by wgmma: the build has sm_90a code (INFINI_SM90A), which runs
// only on compute capability 9.x (else the mma.sync form).
inline bool flashWgmma() {
#if defined(INFINI_SM90A)
    return clustersAvailable();  // (9.0+)
#else
    return false;
#endif
}

// The most workspace the prefill's gathered keys and values take (else its paged form).
constexpr double kFlashGatherMax = 1024.0 * 1024.0 * 1024.0;

// Whether the prefill's keys and values are worth gathering, judged by the average query rows a sequence (calls
// of more than 256 sequences, whose blocks take their tiles from flashTilesKernel's list: all gathered or none).
inline bool flashGatherPays(const AttnParams &p) {
    return flashGathers(p.rows / std::max(1LL, p.seqs), p.rows, p.max_tokens);
}

// Whether a call of 2 to 256 sequences is split by sequence (flashSplitKernel): where the average does not gather,
// with 2048+ query rows and block tables of 2048+ tokens. The split gains where some sequences have many query rows
// and costs a few microseconds where none does (the gather's blocks only scan, then the tiled kernel starts); with
// shorter block tables it measured slower.
inline bool flashSplitPays(const AttnParams &p) {
    return !flashGatherPays(p) && p.rows >= 2048 && p.max_tokens >= 2048;
}

// The tiled kernel's plan for paged_attention_prefill (M = kPrefill) and attention (kDense), or false
// when the dtype, head_dim, alibi or strides are not its own; ws: the tile list's bytes (prefill).
template <Mode M>
bool makeFlash(AttnParams p, infiniDtype_t dtype, bool has_alibi, Launch *launch, size_t *ws) {
    if (dtype != INFINI_DTYPE_F16 && dtype != INFINI_DTYPE_BF16) return false;
    if ((p.d != 64 && p.d != 128) || has_alibi || p.rows < 16 || !(p.scale >= 0.0f && p.scale < INFINITY)) return false;
    if (!alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2, p.q_row, p.q_head, p.o_row, p.o_head}, 8))
        return false;
    if (p.rows >= (1LL << 30) || p.max_tokens >= (1LL << 30) || p.pos + p.rows >= (1LL << 30)) return false;
    if (M == Mode::kPrefill && p.block_size <= 0) return false;
    const int G4 = p.group % 4 == 0 ? 4 : (p.group % 2 == 0 ? 2 : 1);
    const int rb = 16 * (kFlashWarps / G4);  // rows a block
    const long long cap = flashRowTiles<M>(p, rb);
    if (cap > 65535) return false;
    *ws = M == Mode::kPrefill ? static_cast<size_t>(cap + 1) * sizeof(int4) : 0;
    // the prefill on Hopper: keys and values gathered (flashGatherKernel) into the workspace after the tile list,
    // for the decoupled form (pg: the gathered copies' strides), at most kFlashGatherMax bytes of them: a single
    // sequence where flashGathers, more where flashGatherPays (the average), every sequence's; and calls of 2 to
    // 256 sequences that flashSplitPays are split by sequence: the sequences whose own query rows flashGathers have
    // their keys gathered into slots (at most rows / kFlashGatherRows of them), and flashSplitKernel runs their
    // tiles by the decoupled form and the others' by the paged form.
    AttnParams pg = p;
    size_t g_off = 0, g_bytes = 0;
    long long slots = 0;
    int form = 0;  // 0: paged (or the mma.sync form), 1: gathered, 2: split
    int tmode = kTilesList;
    if (M == Mode::kPrefill && flashWgmma()) {
        tmode = p.seqs <= 256 ? kTilesOwn : kTilesList;
        const bool split = p.seqs > 1 && p.seqs <= 256 && flashSplitPays(p);
        if (p.seqs == 1 ? flashGathers(p.rows, p.rows, p.max_tokens) : split || flashGatherPays(p)) {
            form = split ? 2 : 1;
            slots = split ? flashSplitSlots(p) : p.seqs;
        }
        const long long L = p.max_tokens;
        const double total =
            2.0 * static_cast<double>(slots) * static_cast<double>(p.kv_heads) * static_cast<double>(L) * p.d * 2.0;
        if (slots > 0 && slots <= 65535 && p.kv_heads <= 65535 && total <= kFlashGatherMax) {
            g_off = (*ws + 255) / 256 * 256;
            g_bytes = static_cast<size_t>(slots * p.kv_heads * L * p.d) * 2;
            *ws = g_off + 2 * g_bytes;
            pg.k_s0 = pg.v_s0 = L * p.d;
            pg.k_s1 = pg.v_s1 = p.d;
            pg.kv_seq = p.kv_heads * L * p.d;
        } else {  // (none, or too much to gather: every sequence paged)
            slots = 0;
            form = 0;
        }
    }
    p.self_tiles = pg.self_tiles = tmode;
    const FlashPlan f{p, pg, g_off, g_bytes, slots, cap, form, G4, rb};
    const bool bf = dtype == INFINI_DTYPE_BF16;
    *launch = [f, bf](const LaunchArgs &a) {
        return bf ? flashRun<M, __nv_bfloat16>(f, a) : flashRun<M, __half>(f, a);
    };
    return true;
}

// The tiled kernel where the call's tensors 0-3 (out, q and the caches, in either op's order) start on 16
// bytes, else the general one (checked per call: the plan is made for shapes and strides only).
inline Launch flashOr(Launch flash, Launch generic) {
    return [flash = std::move(flash), generic = std::move(generic)](const LaunchArgs &a) {
        const bool al = aligned16(a.data[0]) && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[3]);
        return al ? flash(a) : generic(a);
    };
}

}  // namespace infini::nvidia::ops::attn
