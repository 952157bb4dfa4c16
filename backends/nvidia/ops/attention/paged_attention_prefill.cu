// attention/paged_attention_prefill.cu: paged_attention_prefill: the general kernel, and the tiled kernel's paged,
// gathered and split forms where the call allows them; and flashTilesKernel, the checks and row-tile list both
// launch.
#include "flash_plan.cuh"
#include "flash_tiles.cuh"
#include "splitk.cuh"

namespace infini::nvidia::ops::attn {

// Prefill: the blocks' row tiles of rb rows, sequence by sequence (one block of 256 threads, a thread a
// sequence, an exclusive scan of the tile counts per 256 sequences). tiles[0].x: how many; at most cap (none
// where tiles is null: the general kernel's path, which launches it for the checks alone).
// It checks cu_seqlens_q (rising from 0 to the rows) and seq_lens (each at least its sequence's rows, at most the
// block table's tokens) and reports the first error in sequence order: each sequence's check is its own, so
// the threads' keys (s + 1) * 2 + (a length error) meet in a minimum (0: cu_seqlens_q[0] is not 0).
__global__ void __launch_bounds__(256)
    flashTilesKernel(AttnParams p, const void *lens, const void *cu, int rb, int cap, int4 *tiles, DeviceError *err) {
    dependentsMayLaunch();  // (the tiled kernel or the gather, launched as dependents, may be placed: launchEx)
    __shared__ int warp_tot[8];
    __shared__ int base;
    __shared__ unsigned long long first_bad;
    // a chunk's sequences: their first tile within the chunk, rows [lo, hi), the position of row 0 (LLONG_MIN: a
    // bad sequence)
    __shared__ int c_off[256], c_lo[256], c_hi[256];
    __shared__ long long c_q[256];
    if (threadIdx.x == 0) {
        base = 0;
        first_bad = readIndex(cu, p.cu64, 0) != 0 ? 0ULL : ~0ULL;
    }
    __syncthreads();
    for (long long s0 = 0; s0 < p.seqs; s0 += 256) {
        const long long s = s0 + threadIdx.x;
        const PrefillSeq q = prefillSeq(p, lens, cu, s);
        if (q.cu_bad || q.len_bad)
            atomicMin(&first_bad, static_cast<unsigned long long>(s + 1) * 2 + (q.cu_bad ? 0 : 1));
        int total;
        const int off = blockScan256(prefillTileCount(q.lo, q.hi, rb), warp_tot, total);
        c_off[threadIdx.x] = off;
        c_lo[threadIdx.x] = static_cast<int>(q.lo);
        c_hi[threadIdx.x] = static_cast<int>(q.hi);
        c_q[threadIdx.x] = q.ok ? q.qstart : LLONG_MIN;
        __syncthreads();
        // the chunk's tiles written by the whole block (tile i: the last sequence whose first tile is at or
        // before i; rather than a sequence's tiles by its own thread, which serializes a long sequence's)
        for (int i = threadIdx.x; i < total && base + i < cap; i += 256) {
            int a = 0, b = 255;
            while (a < b) {
                const int m = (a + b + 1) / 2;
                if (c_off[m] <= i)
                    a = m;
                else
                    b = m - 1;
            }
            tiles[1 + base + i] = prefillTile(static_cast<int>(s0) + a, c_lo[a], c_hi[a], c_q[a], i - c_off[a], rb);
        }
        __syncthreads();  // every thread has read base, warp_tot and the chunk's arrays
        if (threadIdx.x == 0) base += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (tiles) tiles[0].x = min(base, cap);
        const unsigned long long key = first_bad;
        const long long last = readIndex(cu, p.cu64, p.seqs * p.cu_s0);
        if (key == 0) {
            reportError(err, kErrCuSeqlens, p.op, kArgCuSeqlens, p.rows, readIndex(cu, p.cu64, 0));
        } else if (key != ~0ULL) {
            const long long s = static_cast<long long>(key / 2) - 1;
            if (key % 2 == 0) {
                reportError(err, kErrCuSeqlens, p.op, kArgCuSeqlens, p.rows, readIndex(cu, p.cu64, (s + 1) * p.cu_s0));
            } else {
                reportError(err, kErrSeqLen, p.op, kArgSeqLens, s, readIndex(lens, p.len64, s * p.len_s0), -1,
                            p.max_tokens);
            }
        } else if (last != p.rows) {
            reportError(err, kErrCuSeqlens, p.op, kArgCuSeqlens, p.rows, last);
        }
    }
}

}  // namespace infini::nvidia::ops::attn

namespace infini::nvidia::ops {

using namespace attn;

infiniStatus_t makePagedAttentionPrefill(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "paged_attention_prefill";
    Layout out = layoutOf(prm.tensors[0]), q = layoutOf(prm.tensors[1]), kc = layoutOf(prm.tensors[2]),
           vc = layoutOf(prm.tensors[3]), bt = layoutOf(prm.tensors[4]), lens = layoutOf(prm.tensors[5]),
           cu = layoutOf(prm.tensors[6]), alibi = layoutOf(prm.tensors[7]);
    bool has_alibi = prm.tensors[7] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedPrefill(out, q, kc, vc, bt, lens, cu, alibi, has_alibi));
    size_t seqs = bt.shape[0];
    AttnParams p = pagedParams(out, q, kc, vc, bt, lens, alibi, has_alibi, static_cast<float>(prm.f[0]),
                               INFINIOP_OP_PAGED_ATTENTION_PREFILL);
    p.cu64 = cu.dtype == INFINI_DTYPE_I64;
    p.cu_s0 = cu.strides[0];
    if (seqs == 0 && p.rows > 0)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: q has rows but there are no sequences", op);
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2}, 8);
    Made generic;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kPrefill>(op, p, q.dtype, p.max_tokens, 1, 2, 3, 4, 5, 6,
                                                       has_alibi ? 7 : -1, aligned, &generic));
    Launch flash;
    size_t flash_ws = 0;
    if (!makeFlash<Mode::kPrefill>(p, q.dtype, has_alibi, &flash, &flash_ws)) {
        *m = std::move(generic);
        return INFINI_STATUS_SUCCESS;
    }
    m->workspace = std::max(generic.workspace, flash_ws);
    m->launch = flashOr(std::move(flash), std::move(generic.launch));
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::nvidia::ops
