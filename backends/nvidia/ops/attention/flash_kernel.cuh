// attention/flash_kernel.cuh: the tiled kernel's entry points: flashKernel (a block a tile of rows, or WG 2's
// persistent blocks taking tiles in turn) and flashSplitKernel (a prefill split by sequence, each tile by its
// sequence's form).
#pragma once

#include "flash_body.cuh"

namespace infini::nvidia::ops::attn {

template <Mode M, typename T, int D, int G4, int WG>
__global__ void __launch_bounds__(kFlashWarps * 32, 1)
    flashKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc, const void *bt, const int4 *tiles,
                DeviceError *err, const void *lens, const void *cu) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // (launched as a dependent on Hopper: launchEx. A prefill whose blocks find their own tiles reads nothing the
    // check kernel before it (launched plainly) writes; its gathered form waits for the gather once it has its tile)
    if (!(M == Mode::kPrefill && p.self_tiles != kTilesList)) waitForPrerequisites();
    constexpr int RB = 16 * (kFlashWarps / G4);                                          // rows a block
    const int cnt = M == Mode::kPrefill && p.self_tiles == kTilesList ? tiles[0].x : 0;  // (after the wait above)
    if constexpr (WG == 2) {
        // Persistent (grid: at most one block an SM): the (heads / G4) x (row tiles) tiles in the order the hardware
        // would place them (blocks of heads fastest; the last row tiles, the most keys, first), block b taking tile
        // k P + b in even rounds and k P + P - 1 - b in odd ones (P blocks; a long tile of one round and a short one
        // of the next), so that each tile's query rows and first key tiles are issued in its predecessor's last
        // iterations (FlashRun): a tile's first key tile need not be waited for, and an SM's tiles follow each other
        // with almost no gap (the next tile's copies are issued only in the last PF iterations, which keeps the main
        // loop's as they are). With P equal to the tiles (the launch's choice elsewhere) each block takes one tile,
        // in the hardware's order.
        const long long gx = p.heads / G4, gy = flashRowTiles<M>(p, RB);
        const long long P = gridDim.x, b = blockIdx.x;
        // tile k of this block (false: none, nor any after it)
        auto tileAt = [&](int k, FlashTile &t, int &hb) {
            const long long w = k * P + ((k & 1) ? P - 1 - b : b);
            if (w >= gx * gy) return false;
            hb = static_cast<int>(w % gx);
            if (M == Mode::kPrefill && k > 0) __syncthreads();  // (every thread has read flashOwnTile's last results)
            return flashTileAt<M>(p, tiles, cnt, lens, cu, RB, gy, static_cast<int>(w / gx), t);
        };
        FlashRun run{};
        FlashTile tl;
        int hb;
        if (!tileAt(0, tl, hb)) return;
        if (M == Mode::kPrefill && p.self_tiles != kTilesList) waitForPrerequisites();  // (the gather)
        for (int k = 0;; ++k) {
            run.has_next = tileAt(k + 1, run.next, run.next_hb);
            flashBody<M, T, D, G4, WG>(p, out, q, kc, vc, bt, err, tl, hb, run);
            if (!run.has_next) break;
            tl = run.next;
            hb = run.next_hb;
        }
    } else {
        // grid (heads / G4, row tiles): the blocks of the last row tiles (the most keys) are placed first
        FlashTile tl;
        if (!flashTileAt<M>(p, tiles, cnt, lens, cu, RB, gridDim.y, static_cast<int>(blockIdx.y), tl)) return;
        FlashRun run{};
        flashBody<M, T, D, G4, WG>(p, out, q, kc, vc, bt, err, tl, static_cast<int>(blockIdx.x), run);
    }
#endif
}

// The tiled prefill of a call split by sequence (Hopper, 2 to 256 sequences; flashSplitPays), launched after the
// gather: the tiles of the sequences whose keys flashGatherKernel gathered (kg / vg; pg: their strides) by the
// decoupled form, the others' by the paged form. One launch for both (as three - gather, decoupled, paged - the
// empty one costs a launch): a call all of one form costs what that form's kernel does.
template <typename T, int D, int G4>
__global__ void __launch_bounds__(kFlashWarps * 32, 1)
    flashSplitKernel(AttnParams p, AttnParams pg, T *out, const T *q, const T *kc, const T *vc, const T *kg,
                     const T *vg, const void *bt, DeviceError *err, const void *lens, const void *cu) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    bool gathered;
    const int4 t4 = flashOwnTile(p, lens, cu, 16 * (kFlashWarps / G4), static_cast<int>(blockIdx.y), true, gathered);
    if (t4.x < 0) return;
    const FlashTile tl{t4.x, t4.y, t4.z, t4.w};
    FlashRun run{};
    if (gathered) {
        flashBody<Mode::kPrefill, T, D, G4, 2>(pg, out, q, kg, vg, bt, err, tl, static_cast<int>(blockIdx.x), run);
    } else {
        flashBody<Mode::kPrefill, T, D, G4, 1>(p, out, q, kc, vc, bt, err, tl, static_cast<int>(blockIdx.x), run);
    }
#endif
}

}  // namespace infini::nvidia::ops::attn
