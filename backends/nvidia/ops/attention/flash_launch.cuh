// attention/flash_launch.cuh: the tiled kernel's launch (flashRun), included by the four units that instantiate it,
// one a mode and dtype (params.cuh): each instantiation's kernels, and its SmemAllowance statics, are that unit's.
#pragma once

#include "flash_gather.cuh"
#include "flash_kernel.cuh"
#include "flash_plan.cuh"

namespace infini::nvidia::ops::attn {

// The tiled kernel's launch for dtype TT under plan f (makeFlash): the prefill's checks and tile list, its gather
// where the plan has one, then the kernel of the plan's form.
template <Mode M, typename TT>
infiniStatus_t flashRun(const FlashPlan &f, const LaunchArgs &a) {
    const AttnParams &p = f.p, &pg = f.pg;
    const size_t g_off = f.g_off, g_bytes = f.g_bytes;
    const long long slots = f.slots, cap = f.cap;
    const int form = f.form, G4 = f.G4, rb = f.rb;
    // (Hopper: the tiled kernel, and the gather, launched as programmatic dependents of the kernel before
    // them, which lets them be placed at its start (dependentsMayLaunch); INFINI_PDL=0 turns it off, as for every
    // kernel: opsDependent)
    const bool wg = flashWgmma(), pdl = wg && opsDependent();
    const bool pre = M == Mode::kPrefill;
    const void *q = a.data[pre ? 1 : 3], *kc = a.data[pre ? 2 : 1], *vc = a.data[pre ? 3 : 2],
               *bt = pre ? a.data[4] : nullptr;
    const void *lens = pre ? a.data[5] : nullptr, *cu = pre ? a.data[6] : nullptr;
    // the tiled kernel, form WW (its tiles by pk.self_tiles)
    auto flash = [&](auto ttag, auto dtag, auto gtag, auto wtag, const AttnParams &pk, const void *k, const void *v) {
        using T = typename decltype(ttag)::type;
        constexpr int DD = decltype(dtag)::value, GG = decltype(gtag)::value;
        constexpr int WW = decltype(wtag)::value;
        auto kern = flashKernel<M, T, DD, GG, WW>;
        static SmemAllowance allowance;
        allowance.ensure(kern, kFlashSmem<M, DD, WW>);  // (if refused, the launch reports it)
        const int4 *tiles = pre ? static_cast<const int4 *>(a.workspace) : nullptr;
        // (WG 2: a block a tile, or persistent - at most a block an SM - where the tiles' order is the longest
        // first: dense attention, a prefill of one sequence (a call of several orders its tiles sequence by
        // sequence, which the hardware's placement balances and a fixed round-robin does not); see flashKernel)
        const long long items = p.heads / GG * cap;
        const bool persist = WW == 2 && (M == Mode::kDense || p.seqs == 1);
        dim3 grid = WW == 2 ? dim3(static_cast<unsigned>(persist ? std::min<long long>(items, smCount()) : items), 1)
                            : dim3(static_cast<unsigned>(p.heads / GG), static_cast<unsigned>(cap));
        launchEx(kern, grid, kFlashWarps * 32, kFlashSmem<M, DD, WW>, a.stream, 0, pdl, pk, static_cast<T *>(a.data[0]),
                 static_cast<const T *>(q), static_cast<const T *>(k), static_cast<const T *>(v), bt, tiles, a.err,
                 lens, cu);
    };
    auto byW = [&](auto ttag, auto dtag, auto gtag) {
        using I0 = std::integral_constant<int, 0>;
        using I1 = std::integral_constant<int, 1>;
        using I2 = std::integral_constant<int, 2>;
        if constexpr (M == Mode::kDense) {
            if (!wg)
                flash(ttag, dtag, gtag, I0{}, p, kc, vc);
            else
                flash(ttag, dtag, gtag, I2{}, p, kc, vc);
        } else {
            // the checks of cu_seqlens_q and seq_lens, and the tile list where the blocks take it
            const bool list = !wg || p.self_tiles == kTilesList;
            flashTilesKernel<<<1, 256, 0, a.stream>>>(p, lens, cu, rb, list ? static_cast<int>(cap) : 0,
                                                      list ? static_cast<int4 *>(a.workspace) : nullptr, a.err);
            if (!wg) {  // (planned where wg held: this device lacks sm_90a, so the list and no gather)
                AttnParams pk = p;
                pk.self_tiles = kTilesList;
                flash(ttag, dtag, gtag, I0{}, pk, kc, vc);
            } else if (form == 0) {
                flash(ttag, dtag, gtag, I1{}, p, kc, vc);
            } else {
                using T = typename decltype(ttag)::type;
                constexpr int DD = decltype(dtag)::value, GG = decltype(gtag)::value;
                // the gather: (pieces, kv heads, slots) blocks, at most 1024 a slot and head; a split call's
                // (pieces, kv heads), at most ~512 (a wave at 4 an SM: most such calls gather little or none)
                unsigned char *gk = static_cast<unsigned char *>(a.workspace) + g_off, *gv = gk + g_bytes;
                const long long L = p.max_tokens, per = (L * (DD / 8) + 255) / 256;
                const long long gx = std::min(per, form == 2 ? std::max(1LL, 512 / p.kv_heads) : 1024LL);
                dim3 ggrid(static_cast<unsigned>(gx), static_cast<unsigned>(p.kv_heads),
                           static_cast<unsigned>(form == 2 ? 1 : slots));
                AttnParams pq = p;
                if (form == 2) pq.self_tiles = kTilesGathered;
                launchEx(flashGatherKernel<DD>, ggrid, 256, 0, a.stream, 0, pdl, pq, static_cast<const uint16_t *>(kc),
                         static_cast<const uint16_t *>(vc), bt, lens, cu, L, reinterpret_cast<uint16_t *>(gk),
                         reinterpret_cast<uint16_t *>(gv), a.err);
                if (form == 1) {
                    flash(ttag, dtag, gtag, I2{}, pg, gk, gv);
                } else {
                    auto kern = flashSplitKernel<T, DD, GG>;
                    constexpr int smem = std::max(kFlashSmem<M, DD, 1>, kFlashSmem<M, DD, 2>);
                    static SmemAllowance allowance;
                    allowance.ensure(kern, smem);
                    dim3 grid(static_cast<unsigned>(p.heads / GG), static_cast<unsigned>(cap));
                    // (launched plainly: as the gather's programmatic dependent, its paged tiles starting while
                    // the gather ran, it cost more where nothing is gathered than it saved where some is)
                    launchEx(kern, grid, kFlashWarps * 32, smem, a.stream, 0, false, p, pg, static_cast<T *>(a.data[0]),
                             static_cast<const T *>(q), static_cast<const T *>(kc), static_cast<const T *>(vc),
                             reinterpret_cast<const T *>(gk), reinterpret_cast<const T *>(gv), bt, a.err, lens, cu);
                }
            }
        }
    };
    auto byG = [&](auto ttag, auto dtag) {
        if (G4 == 4)
            byW(ttag, dtag, std::integral_constant<int, 4>{});
        else if (G4 == 2)
            byW(ttag, dtag, std::integral_constant<int, 2>{});
        else
            byW(ttag, dtag, std::integral_constant<int, 1>{});
    };
    if (p.d == 64)
        byG(TypeTag<TT>{}, std::integral_constant<int, 64>{});
    else
        byG(TypeTag<TT>{}, std::integral_constant<int, 128>{});
    return launched(M == Mode::kPrefill ? "paged_attention_prefill" : "attention");
}

}  // namespace infini::nvidia::ops::attn
