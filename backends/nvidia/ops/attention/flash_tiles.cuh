// attention/flash_tiles.cuh: which rows a block of the tiled kernel takes: the prefill's sequences and their row
// tiles (listed by flashTilesKernel, or found by each block), attention's by arithmetic; and whether a prefill's
// keys and values are gathered out of the pages first.
#pragma once

#include "params.cuh"

namespace infini::nvidia::ops::attn {

// Where the tiled prefill's blocks take their row tiles (AttnParams::self_tiles): flashTilesKernel's list, or the
// blocks find their own (flashOwnTile); kTilesGathered: the gather of a call split by sequence (flashSplitKernel).
constexpr int kTilesList = 0, kTilesOwn = 1, kTilesGathered = 2;

// Whether a sequence of nq query rows has its keys and values gathered for the tiled prefill's decoupled form
// (rows: the call's query rows, L: the block table's tokens): the gather's gain grows with the sequence's query
// rows (each key is read by nq / 32 blocks), its cost with the keys; the bounds are where it measured faster than
// the paged form. At least kFlashGatherRows rows.
constexpr long long kFlashGatherRows = 512;
__host__ __device__ inline bool flashGathers(long long nq, long long rows, long long L) {
    return nq >= 1024 || (nq >= kFlashGatherRows && (rows >= 2048 || L >= 2 * nq));
}

// A prefill sequence's query rows as the tiled kernels see them: rows [lo, hi) of q (clamped to the rows), row r
// at position qstart + r; cu_bad / len_bad: its cu_seqlens_q entries (falling, past the rows) or its seq_lens entry
// (below its rows, past the block table's tokens) are bad, ok: neither, and its first entry not negative. A
// sequence s >= p.seqs has no rows.
struct PrefillSeq {
    long long lo, hi, qstart;
    bool ok, cu_bad, len_bad;
};
__device__ __forceinline__ PrefillSeq prefillSeq(const AttnParams &p, const void *lens, const void *cu, long long s) {
    PrefillSeq r{0, 0, 0, false, false, false};
    if (s < p.seqs) {
        const long long start = readIndex(cu, p.cu64, s * p.cu_s0), stop = readIndex(cu, p.cu64, (s + 1) * p.cu_s0);
        const long long n = readIndex(lens, p.len64, s * p.len_s0);
        r.lo = max(0LL, start);
        r.hi = min(p.rows, stop);
        r.cu_bad = stop < start || stop > p.rows;
        r.len_bad = n < stop - start || n > p.max_tokens;
        r.ok = start >= 0 && !r.cu_bad && !r.len_bad;
        r.qstart = n - (stop - start) - start;
    }
    return r;
}

// A split call's gathered slots: at most one a kFlashGatherRows query rows (more only where cu_seqlens_q is bad,
// which flashTilesKernel reports: the sequences past them are then not gathered and their rows written as zeros).
__host__ __device__ inline long long flashSplitSlots(const AttnParams &p) {
    return p.seqs < p.rows / kFlashGatherRows ? p.seqs : p.rows / kFlashGatherRows;
}

// Whether the sequence's keys are gathered in a call split by sequence (flashSplitKernel).
__device__ __forceinline__ bool flashSeqGathered(const AttnParams &p, const PrefillSeq &q) {
    return q.hi > q.lo && flashGathers(q.hi - q.lo, p.rows, p.max_tokens);
}

// A sequence's tile count (rb rows a tile) and tile k of it: {sequence, first row, rows, first row's position
// (-1: a bad sequence, q == LLONG_MIN)}.
__device__ __forceinline__ int prefillTileCount(long long lo, long long hi, int rb) {
    return hi > lo ? static_cast<int>((hi - lo + rb - 1) / rb) : 0;
}
__device__ __forceinline__ int4 prefillTile(int s, int lo, int hi, long long q, int k, int rb) {
    const int r0 = lo + k * rb, nr = min(rb, hi - r0);
    return make_int4(s, r0, nr, q != LLONG_MIN ? static_cast<int>(q + r0) : -1);
}

// Exclusive scan of v over a block of 256 threads: the thread's offset; total: the block's sum. warp_tot: 8 values
// of shared memory, read by every thread after the call (sync before writing it again).
template <typename V>
__device__ __forceinline__ V blockScan256(V v, V *warp_tot, V &total) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    V incl = v;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const V x = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += x;
    }
    if (lane == 31) warp_tot[warp] = incl;
    __syncthreads();
    V off = incl - v;
    total = 0;
    for (int w = 0; w < 8; ++w) {
        if (w < warp) off += warp_tot[w];
        total += warp_tot[w];
    }
    return off;
}

// Token t of a sequence: its page (the index into the sequence's block-table row) and its row within the page
// (a shift and a mask where the block size is a power of two). I: the token index's type.
template <typename I>
__device__ __forceinline__ long long pageOf(const AttnParams &p, I t) {
    return p.block_shift >= 0 ? (t >> p.block_shift) : t / p.block_size;
}
template <typename I>
__device__ __forceinline__ long long rowInPage(const AttnParams &p, I t) {
    return p.block_shift >= 0 ? (t & (static_cast<I>(p.block_size) - 1)) : t % p.block_size;
}

// A tiled prefill block's row tile found by the block itself, for calls of at most 256 sequences (a thread a
// sequence; the tile counts scanned as flashTilesKernel scans them, and the tiles taken from the end as the kernel
// takes that list), so that the tiled kernel need not wait for the list: {sequence, first row, rows, first row's
// position (-1: a bad sequence)}, or x = -1 where
// y (the block's row tile: blockIdx.y, or a persistent block's) is past the tiles. split (a call split by sequence,
// flashSplitKernel): the tiles of the sequences not gathered first, then those of the gathered ones
// (flashSeqGathered), so that the latter are taken first; gathered: the tile's, whose x is then the sequence's
// gathered slot (its rank among them; a slot past flashSplitSlots, from a bad cu_seqlens_q, makes the tile a bad
// sequence's). Block-uniform; every thread calls it.
__device__ __forceinline__ int4 flashOwnTile(const AttnParams &p, const void *lens, const void *cu, int rb, int y,
                                             bool split, bool &gathered) {
    __shared__ unsigned long long warp_tot[8];
    __shared__ int4 found;
    __shared__ bool found_g;
    const int tid = static_cast<int>(threadIdx.x);
    const PrefillSeq q = prefillSeq(p, lens, cu, tid);
    const bool g = split && flashSeqGathered(p, q);
    const int cnt = prefillTileCount(q.lo, q.hi, rb);
    if (tid == 0) found = make_int4(-1, 0, 0, 0);
    // one scan of the paged tiles (bits 0..19; < 2^20: at most 65535 tiles), the gathered tiles (20..39) and the
    // gathered sequences (40..)
    const unsigned long long c = static_cast<unsigned long long>(cnt);
    unsigned long long total;
    const unsigned long long off = blockScan256(g ? (c << 20) | (1ULL << 40) : c, warp_tot, total);  // (syncs: found)
    const int paged = static_cast<int>(total & 0xfffff), all = paged + static_cast<int>((total >> 20) & 0xfffff);
    const int start = g ? paged + static_cast<int>((off >> 20) & 0xfffff) : static_cast<int>(off & 0xfffff);
    const int target = all - 1 - y;
    if (cnt > 0 && target >= start && target < start + cnt) {
        const int slot = static_cast<int>(off >> 40);
        const bool ok = q.ok && (!g || slot < flashSplitSlots(p));
        found = prefillTile(g ? (ok ? slot : 0) : tid, static_cast<int>(q.lo), static_cast<int>(q.hi),
                            ok ? q.qstart : LLONG_MIN, target - start, rb);
        found_g = g;
    }
    __syncthreads();
    gathered = found.x >= 0 && found_g;
    return found;
}

// A block's rows: sequence, first row, row count and the first row's position (-1: none of the
// sequence's keys, the rows are written as zeros: a bad sequence, which flashTilesKernel reports).
struct FlashTile {
    int seq, r0, nr, qpos0;
};

// The tiled kernel's row tiles for blocks of rb rows: prefill's at most one more a sequence than rows / rb
// (flashTilesKernel lists them), attention's rows / rb rounded up.
template <Mode M>
__host__ __device__ inline long long flashRowTiles(const AttnParams &p, int rb) {
    return M == Mode::kPrefill ? p.rows / rb + p.seqs + 1 : (p.rows + rb - 1) / rb;
}

// Row tile y (0: the last rows, which see the most keys) of the tiled kernel's gy, for blocks of rb rows: attention's
// by arithmetic, a prefill's from flashTilesKernel's list (p.self_tiles kTilesList: cnt its count) or found by the
// block (flashOwnTile; block-uniform, every thread calls it). False: no such tile (nor any past it).
template <Mode M>
__device__ __forceinline__ bool flashTileAt(const AttnParams &p, const int4 *tiles, int cnt, const void *lens,
                                            const void *cu, int rb, long long gy, int y, FlashTile &t) {
    if constexpr (M == Mode::kDense) {
        t.seq = 0;
        t.r0 = static_cast<int>(gy - 1 - y) * rb;
        t.nr = min(rb, static_cast<int>(p.rows - t.r0));
        t.qpos0 = static_cast<int>(p.pos) + t.r0;
        return true;
    } else {
        int4 t4;
        if (p.self_tiles != kTilesList) {
            bool gathered;  // (false: not a split call)
            t4 = flashOwnTile(p, lens, cu, rb, y, false, gathered);
        } else {
            if (y >= cnt) return false;
            t4 = tiles[cnt - y];
        }
        t = FlashTile{t4.x, t4.y, t4.z, t4.w};
        return t4.x >= 0;
    }
}

}  // namespace infini::nvidia::ops::attn
