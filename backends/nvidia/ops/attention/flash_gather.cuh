// attention/flash_gather.cuh: the tiled prefill's gather of its keys and values out of the pages into the
// workspace, where its decoupled form reads them as a dense cache.
#pragma once

#include "flash_tiles.cuh"

namespace infini::nvidia::ops::attn {

// flashGatherKernel's copy of sequence s into slot z (its block's pieces of kv head blockIdx.y).
template <int D>
__device__ __forceinline__ void gatherSequence(const AttnParams &p, const uint16_t *kc, const uint16_t *vc,
                                               const void *bt, const void *lens, const void *cu, long long L,
                                               uint16_t *kg, uint16_t *vg, DeviceError *err, long long s, long long z) {
    constexpr int CPR = D / 8;  // 16-byte pieces a token
    const long long h = blockIdx.y;
    const long long start = readIndex(cu, p.cu64, s * p.cu_s0), stop = readIndex(cu, p.cu64, (s + 1) * p.cu_s0);
    long long n = stop > start ? readIndex(lens, p.len64, s * p.len_s0) : 0;
    n = n < 0 ? 0 : min(n, L);
    const long long total = n * CPR, o = (z * p.kv_heads + h) * L * D;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < total; i += gridDim.x * 256LL) {
        const long long t = i / CPR;
        const int c = static_cast<int>(i % CPR);
        const long long pg = pageOf(p, t), within = rowInPage(p, t);
        const long long blk = readIndex(bt, p.bt64, s * p.bt_s0 + pg * p.bt_s1);
        uint4 kv = make_uint4(0, 0, 0, 0), vv = kv;
        if (blk < 0 || blk >= p.num_blocks) {
            if (c == 0 && within == 0) reportError(err, kErrIndex, p.op, kArgBlockTables, blk, p.num_blocks);
        } else {
            kv = *reinterpret_cast<const uint4 *>(kc + blk * p.k_s0 + h * p.k_s1 + within * p.k_s2 + c * 8);
            vv = *reinterpret_cast<const uint4 *>(vc + blk * p.v_s0 + h * p.v_s1 + within * p.v_s2 + c * 8);
        }
        *reinterpret_cast<uint4 *>(kg + o + t * D + c * 8) = kv;
        *reinterpret_cast<uint4 *>(vg + o + t * D + c * 8) = vv;
    }
}

// The tiled prefill's keys and values (its decoupled form) gathered out of the pages: sequence s's first n
// tokens of kv head h to [slot][h][t][d] of kg / vg, L tokens a head (n its seq_lens entry, clamped to [0, L];
// none for a sequence without query rows, whose keys the prefill does not read; flashTilesKernel reports bad
// lengths), 16 bytes a thread; grid (pieces, kv heads, slots). A bad block-table entry is reported (the call fails)
// and its rows written as zeros. p.self_tiles: kTilesList / kTilesOwn: slot z is sequence z (the first waits for
// the list); kTilesGathered (a split call; grid (pieces, kv heads)): every block finds the sequences that
// flashSeqGathered and copies its pieces of each in turn, slot i the i-th of them (calls where none is gathered
// thus cost only a wave of blocks that scan; a grid of blocks a slot cost such calls much more).
template <int D>
__global__ void __launch_bounds__(256)
    flashGatherKernel(AttnParams p, const uint16_t *kc, const uint16_t *vc, const void *bt, const void *lens,
                      const void *cu, long long L, uint16_t *kg, uint16_t *vg, DeviceError *err) {
    dependentsMayLaunch();  // (the tiled kernel after it may be placed)
    // (launched as a dependent on Hopper: launchEx; it waits for the tile list, except where the blocks find their
    // own tiles: then the kernel before it only checks the lengths and was launched plainly, so the inputs are done)
    __shared__ int slot_seq[256];
    int z0 = static_cast<int>(blockIdx.z), z1 = z0 + 1;
    if (p.self_tiles == kTilesList) {
        waitForPrerequisites();
    } else if (p.self_tiles == kTilesGathered) {
        __shared__ int warp_tot[8];
        const PrefillSeq q = prefillSeq(p, lens, cu, threadIdx.x);
        const bool gathered = flashSeqGathered(p, q);
        int total;
        const int rank = blockScan256(gathered ? 1 : 0, warp_tot, total);
        if (gathered) slot_seq[rank] = static_cast<int>(threadIdx.x);
        __syncthreads();
        z0 = 0;
        z1 = static_cast<int>(min(static_cast<long long>(total), flashSplitSlots(p)));
    }
    if (p.self_tiles != kTilesGathered) {
        gatherSequence<D>(p, kc, vc, bt, lens, cu, L, kg, vg, err, z0, z0);
    } else {
        for (int z = z0; z < z1; ++z) gatherSequence<D>(p, kc, vc, bt, lens, cu, L, kg, vg, err, slot_seq[z], z);
    }
}

}  // namespace infini::nvidia::ops::attn
