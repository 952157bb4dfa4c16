// attention/decode_tc.cuh: paged_attention's decode kernels on tensor cores, for grouped query heads: keys and
// values through registers (decodeTcKernel) or, with much work, by bulk copies into shared memory
// (decodeBulkKernel).
#pragma once

#include "decode.cuh"
#include "mma.cuh"

namespace infini::nvidia::ops::attn {

// ---- paged_attention decode on tensor cores (GQA: 4+ query heads per kv head; fp16/bf16, head_dim
// 64/128, power-of-two blocks of 8+ tokens, no alibi) ----
// The split of decodeKernel (a block: one sequence, up to 8 query heads of one kv head, one partition;
// each warp walks its own steps of 16 tokens with an online softmax), but the dots are
// mma.m16n8k16: S = Q K^T with the heads as rows (8 of the 16 used, the other 8 rows zero registers)
// and 8 tokens per n-tile, then O += P V with P taken straight from S's registers. Every fragment
// comes from 16-byte global loads, because a reduction axis may be permuted as long as both operands
// agree: lane (g = lane / 4, c = lane % 4) loads its token's key pieces at d = 32 jj + 8 c, whose words
// 0-1 and 2-3 feed two k-steps (the queries are loaded the same way); it loads VP = D / 64 value pieces
// of 8 at d = 64 i + 8 g of its 4 value tokens (2c, 2c+1, 2c+8, 2c+9), so that one load of a warp reads
// whole 128-byte lines, and n-tile nt pairs element nt % 8 of piece nt / 8 of two tokens: column n of
// n-tile nt is d = 64 (nt / 8) + 8 n + nt % 8 (vDim), where the lane's outputs (columns 2c, 2c+1) go.
// Queries sit in shared memory (reread each step: 168 registers, 3 blocks an SM). Values are read by whole lines
// (rather than 32 bytes a lane, each load half of every sector).
constexpr int kTcRows = 8;

// The head_dim index of column n of the value n-tile nt (see above).
__device__ __forceinline__ int vDim(int nt, int n) { return 64 * (nt / 8) + 8 * n + nt % 8; }

// A key/value piece, the L2 asked to fetch the 256 bytes around it (a token's row); NA: not kept in L1 either
// (nothing is read twice), which pays with little work (one wave of blocks) but not with much.
template <bool NA>
__device__ __forceinline__ uint4 loadKV(const void *p) {
    uint4 r;
    if constexpr (NA) {
        asm("ld.global.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
            : "l"(p));
    } else {
        asm("ld.global.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    }
    return r;
}

// The tensor-core decode's pieces that its two kernels (keys/values through registers, or by bulk copies
// into shared memory) share.
// Query pieces of head g as stored, into shared memory by warp 0 (each lane reads back its own each step:
// fewer registers): words 0-1 feed k-step 2jj, words 2-3 k-step 2jj+1. tcQueryLoad: warp 0's loads (zeros
// elsewhere), tcQueryStore: into shared memory; tcQuery: both.
template <typename T, int KP>
__device__ __forceinline__ void tcQueryLoad(uint4 (&qw)[KP], const AttnParams &p, const T *q, long long seq,
                                            long long head0, int hc) {
    const int lane = threadIdx.x % 32, g = lane / 4, c = lane % 4;
#pragma unroll
    for (int jj = 0; jj < KP; ++jj) {
        qw[jj] = threadIdx.x / 32 == 0 && g < hc
                     ? *reinterpret_cast<const uint4 *>(q + seq * p.q_row + (head0 + g) * p.q_head + 32 * jj + 8 * c)
                     : make_uint4(0, 0, 0, 0);
    }
}
template <int KP>
__device__ __forceinline__ void tcQueryStore(uint4 (&sm_q)[KP][32], const uint4 (&qw)[KP]) {
    if (threadIdx.x / 32 == 0) {
#pragma unroll
        for (int jj = 0; jj < KP; ++jj) sm_q[jj][threadIdx.x % 32] = qw[jj];
    }
}
template <typename T, int KP>
__device__ __forceinline__ void tcQuery(uint4 (&sm_q)[KP][32], const AttnParams &p, const T *q, long long seq,
                                        long long head0, int hc) {
    uint4 qw[KP];
    tcQueryLoad<T, KP>(qw, p, q, seq, head0, hc);
    tcQueryStore<KP>(sm_q, qw);
}

// A step's scores sc[tile][e] (head g, token tile * 8 + 2c + e) = Q K^T; key(tile, jj): the lane's key
// piece of token tile * 8 + g at d = 32 jj + 8 c.
template <typename T, int KP, typename Key>
__device__ __forceinline__ void tcScores(float (&sc)[2][2], const uint4 (&sm_q)[KP][32], Key &&key) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
        for (int jj = 0; jj < KP; ++jj) {
            uint4 kw = key(tile, jj);
            uint4 qw = sm_q[jj][lane];
            mma16816<T>(sc[tile], qw.x, qw.y, kw.x, kw.y);
            mma16816<T>(sc[tile], qw.z, qw.w, kw.z, kw.w);
        }
    }
}

// The online softmax over a step's scores (bit 2 tile + e of vis: whether token tile * 8 + 2c + e counts),
// then O += P V from the value pieces vr (tokens 2c, 2c+1, 2c+8, 2c+9 at d = 64 i + 8 g).
template <typename T, int NT, int VP>
__device__ __forceinline__ void tcUpdate(float (&sc)[2][2], unsigned vis, float scale, const uint4 (&vr)[4][VP],
                                         float &m, float &l, float (&acc)[NT][2]) {
    float mx = -INFINITY;
#pragma unroll
    for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            sc[tile][e] = (vis >> (2 * tile + e)) & 1u ? sc[tile][e] * scale : -INFINITY;
            mx = fmaxf(mx, sc[tile][e]);
        }
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    float mn = fmaxf(m, mx);
    float alpha = mn == -INFINITY ? 1.0f : __expf(m - mn);  // 0 when m was -inf
    float pr[2][2];
#pragma unroll
    for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
        for (int e = 0; e < 2; ++e) pr[tile][e] = mn == -INFINITY ? 0.0f : __expf(sc[tile][e] - mn);
    }
    m = mn;
    l = l * alpha + (pr[0][0] + pr[0][1] + pr[1][0] + pr[1][1]);
    uint32_t pa0 = packPair<T>(pr[0][0], pr[0][1]), pa2 = packPair<T>(pr[1][0], pr[1][1]);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
        acc[nt][0] *= alpha;
        acc[nt][1] *= alpha;
        const uint32_t *w0 = reinterpret_cast<const uint32_t *>(&vr[0][nt / 8]);
        const uint32_t *w1 = reinterpret_cast<const uint32_t *>(&vr[1][nt / 8]);
        const uint32_t *w2 = reinterpret_cast<const uint32_t *>(&vr[2][nt / 8]);
        const uint32_t *w3 = reinterpret_cast<const uint32_t *>(&vr[3][nt / 8]);
        const unsigned sel = (nt & 1) ? 0x7632u : 0x5410u;
        uint32_t b0 = __byte_perm(w0[(nt % 8) / 2], w1[(nt % 8) / 2], sel);
        uint32_t b1 = __byte_perm(w2[(nt % 8) / 2], w3[(nt % 8) / 2], sel);
        mma16816<T>(acc[nt], pa0, pa2, b0, b1);
    }
}

// A warp's end: the quad's partial denominators (m is the same in its 4 lanes), then its sums and (max,
// denominator) of heads g < hc into shared memory for mergeWarps.
template <int D, int NT, int W>
__device__ __forceinline__ void tcFinish(float l, float m, const float (&acc)[NT][2], float (&sm_acc)[W][kTcRows][D],
                                         float (&sm_ml)[W][kTcRows][2], int hc) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, c = lane % 4;
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    if (g < hc) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
            sm_acc[warp][g][vDim(nt, 2 * c)] = acc[nt][0];
            sm_acc[warp][g][vDim(nt, 2 * c + 1)] = acc[nt][1];
        }
        if (c == 0) {
            sm_ml[warp][g][0] = m;
            sm_ml[warp][g][1] = l;
        }
    }
}

// W warps a block: 4 (up to 3 blocks an SM) or 8 (one: little work, a block an SM; see makeDecodeFast). The
// block's first reads - its sequence's length, its warp's first block ids and the queries - are issued together,
// before any is waited for: the block ids speculatively, for tokens inside the block table's width, and checked
// against the length once it is in (one memory round trip, not three). Each warp walks steps of 16 tokens, a
// step's loads all issued before any is used (two steps' loads at once, 242 registers, measured slower).
template <int W>
constexpr int tcMinBlocks() {
    return W == 4 ? 3 : 1;
}
template <typename T, int D, bool CL, bool NA, int W = kDecWarps>
__global__ void __launch_bounds__(W * 32, tcMinBlocks<W>())
    decodeTcKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc, const void *bt, const void *lens,
                   float *part_out, float *part_ml, DeviceError *err) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int KP = D / 32, NT = D / 8, VP = NT / 8;  // key pieces a token, n-tiles, value pieces a token
    __shared__ float sm_acc[W][kTcRows][D];
    __shared__ float sm_ml[W][kTcRows][2];
    __shared__ uint4 sm_q[KP][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, c = lane % 4;
    const int bmask = static_cast<int>(p.block_size) - 1, shift = p.block_shift;
    const int nblocks = static_cast<int>(p.num_blocks);
    DecodeBlock at = decodePlace(p, kTcRows);
    const long long part = at.part, seq = at.seq, kvh = at.kvh, head0 = at.head0, bt_row = seq * p.bt_s0;
    const int hc = at.hc, t0 = static_cast<int>(at.t0);
    if constexpr (CL) clusterArriveRelaxed();  // this block has started (mergeCluster waits for every block's)
    // the block table's entries of tokens s and s + 8 (0 at or past `limit`)
    auto rawIds = [&](int s, long long limit, long long &x, long long &y) {
        x = s < limit ? readIndex(bt, p.bt64, bt_row + (s >> shift) * p.bt_s1) : 0;
        y = s + 8 < limit ? readIndex(bt, p.bt64, bt_row + ((s + 8) >> shift) * p.bt_s1) : 0;
    };
    // their block ids, -1 where bad (reported); tokens at or past t1 take 0
    auto checkIds = [&](int s, int t1, long long x, long long y, int &a, int &b) {
        x = s < t1 ? x : 0;
        y = s + 8 < t1 ? y : 0;
        a = x >= 0 && x < nblocks ? static_cast<int>(x) : -1;
        b = y >= 0 && y < nblocks ? static_cast<int>(y) : -1;
        if (a < 0 || b < 0) reportError(err, kErrIndex, p.op, kArgBlockTables, a < 0 ? x : y, p.num_blocks);
    };
    const long long len = readIndex(lens, p.len64, seq * p.len_s0);
    long long x0, y0;
    rawIds(t0 + warp * 16, p.max_tokens, x0, y0);
    uint4 qw[KP];
    tcQueryLoad<T, KP>(qw, p, q, seq, head0, hc);
    decodeSetLength(at, p, len, err);
    const int t1 = static_cast<int>(at.t1);
    tcQueryStore<KP>(sm_q, qw);
    int ida = 0, idb = 0, na = 0, nb = 0;
    if (t0 + warp * 16 < t1) checkIds(t0 + warp * 16, t1, x0, y0, ida, idb);
    __syncthreads();
    float acc[NT][2];
#pragma unroll
    for (int i = 0; i < NT; ++i) acc[i][0] = acc[i][1] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    const T *kbase = kc + kvh * p.k_s1, *vbase = vc + kvh * p.v_s1;
    for (int s0 = t0 + warp * 16; s0 < t1; s0 += W * 16) {
        bool bada = ida < 0, badb = idb < 0;
        // keys: tokens s0 + g (tile 0) and s0 + 8 + g (tile 1); values: tokens 2c, 2c+1 (block a), 2c+8, 2c+9 (b)
        uint4 kr[2][KP], vr[4][VP];
#pragma unroll
        for (int tile = 0; tile < 2; ++tile) {
            int t = s0 + tile * 8 + g;
            bool ok = t < t1 && !(tile ? badb : bada);
            const T *row = kbase + static_cast<long long>(tile ? idb : ida) * p.k_s0 + (t & bmask) * p.k_s2 + 8 * c;
#pragma unroll
            for (int jj = 0; jj < KP; ++jj) kr[tile][jj] = ok ? loadKV<NA>(row + 32 * jj) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            int t = s0 + (u >> 1) * 8 + 2 * c + (u & 1);
            bool ok = t < t1 && !((u >> 1) ? badb : bada);
            const T *row = vbase + static_cast<long long>((u >> 1) ? idb : ida) * p.v_s0 + (t & bmask) * p.v_s2 + 8 * g;
#pragma unroll
            for (int i = 0; i < VP; ++i) vr[u][i] = ok ? loadKV<NA>(row + 64 * i) : make_uint4(0, 0, 0, 0);
        }
        if (s0 + W * 16 < t1) {
            long long x, y;
            rawIds(s0 + W * 16, t1, x, y);
            checkIds(s0 + W * 16, t1, x, y, na, nb);
        }
        float sc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};  // [tile][token 2c, 2c+1] for head g
        tcScores<T, KP>(sc, sm_q, [&](int tile, int jj) { return kr[tile][jj]; });
        unsigned vis = 0;
#pragma unroll
        for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
            for (int e = 0; e < 2; ++e)
                vis |= (s0 + tile * 8 + 2 * c + e < t1 && !(tile ? badb : bada)) ? 1u << (2 * tile + e) : 0u;
        }
        tcUpdate<T, NT, VP>(sc, vis, p.scale, vr, m, l, acc);
        ida = na;
        idb = nb;
    }
    tcFinish<D, NT>(l, m, acc, sm_acc, sm_ml, hc);
    __syncthreads();
    mergeWarps<T, D, kTcRows, CL>(p, out, sm_acc, sm_ml, hc, head0, seq, part, part_out, part_ml);
#endif
}

// ---- the same with much work: keys and values through shared memory by bulk copies ----
// decodeTcKernel's split, fragments and math, but each warp brings its steps' keys and values into a ring
// of kBulkSlots slots of shared memory, a step ahead of the one it computes: lanes 0-3 each copy one
// 8-row tile (lane & 1) of the keys or the values (lane & 2) with one bulk copy (the TMA unit) counted by
// the slot's mbarrier, so the warp's registers hold no data in flight and the memory system sees 2 KiB
// requests (measured faster than the register kernel with much work, and than copying a row a lane into rows
// padded against bank conflicts; 2 slots measured faster than 3 or 4; with little work the register kernel
// stays). A tile's block id is read a step before its copy is issued. Value rows not copied (past the sequence's end, or a bad
// block id) are zeroed (their probability is 0, and 0 times stale bits may be NaN); key rows need not be:
// their scores are replaced. The ring is reused for the warps' merge. Rows must be packed (row stride
// head_dim), so that a tile is one span.
constexpr int kBulkSlots = 2;

template <typename T, int D>
constexpr int kBulkRing = kDecWarps * kBulkSlots * 32 * D * static_cast<int>(sizeof(T));

template <typename T, int D>
__global__ void __launch_bounds__(kDecWarps * 32)
    decodeBulkKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc, const void *bt, const void *lens,
                     float *part_out, float *part_ml, DeviceError *err) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int NS = kBulkSlots, KP = D / 32, NT = D / 8, VP = NT / 8, ROW = D * static_cast<int>(sizeof(T));
    constexpr int SLOT = 32 * ROW;  // a slot: 16 key rows, then 16 value rows
    static_assert(kDecWarps * kTcRows * D * 4 <= kBulkRing<T, D>, "the merge's sums fit in the ring");
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long full[kDecWarps][NS];
    __shared__ unsigned valid[kDecWarps][NS];  // the slot's tokens whose rows came in (bit r: token s0 + r)
    __shared__ uint4 sm_q[KP][32];
    __shared__ float sm_ml[kDecWarps][kTcRows][2];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, c = lane % 4;
    const DecodeBlock at = decodeBlock(p, lens, kTcRows, err);
    const long long part = at.part, seq = at.seq, kvh = at.kvh, head0 = at.head0;
    const int hc = at.hc, t0 = static_cast<int>(at.t0), t1 = static_cast<int>(at.t1);
    tcQuery<T, KP>(sm_q, p, q, seq, head0, hc);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < NS; ++k) mbarInit(smemAddr(&full[warp][k]));
    }
    __syncthreads();
    unsigned char *wring = ring + warp * NS * SLOT;
    const bool isv = (lane & 2) != 0;
    const T *src_base = isv ? vc + kvh * p.v_s1 : kc + kvh * p.k_s1;
    const long long src_s0 = isv ? p.v_s0 : p.k_s0, src_s2 = isv ? p.v_s2 : p.k_s2;
    const int bs = static_cast<int>(p.block_size), shift = p.block_shift;
    const long long bt_row = seq * p.bt_s0;
    // the block id of the lane's tile of step s (lanes 0-3): -1 past the end, -2 when bad (reported by a key lane)
    auto idOf = [&](int s) -> long long {
        int t = s + 8 * (lane & 1);
        if (lane >= 4 || t >= t1) return -1;
        int pg = shift >= 0 ? t >> shift : t / bs;
        long long x = readIndex(bt, p.bt64, bt_row + pg * p.bt_s1);
        if (x < 0 || x >= p.num_blocks) {
            if (!isv) reportError(err, kErrIndex, p.op, kArgBlockTables, x, p.num_blocks);
            return -2;
        }
        return x;
    };
    // step s's tiles into slot k (the whole warp calls it): valid rows' bits, zeroed value rows, then the
    // arrival announcing the bytes and the copies
    auto issue = [&](int s, long long id, int k) {
        const uint32_t bar = smemAddr(&full[warp][k]);
        const int tile = lane & 1, t = s + 8 * tile, nr = max(0, min(8, t1 - t)), copied = id >= 0 ? nr : 0;
        unsigned char *dst = wring + k * SLOT + ((lane & 2) ? 16 : 0) * ROW + 8 * tile * ROW;
        unsigned bits = lane < 2 ? ((1u << copied) - 1u) << (8 * tile) : 0u;
        bits |= __shfl_xor_sync(0xffffffffu, bits, 1);
        if (lane < 4 && (lane & 2) && copied < 8) {
            for (int i = copied * ROW / 16; i < 8 * ROW / 16; ++i)
                reinterpret_cast<uint4 *>(dst)[i] = make_uint4(0, 0, 0, 0);
            fenceToBulk();
        }
        if (lane == 0) valid[warp][k] = bits;
        __syncwarp();  // the zeros and the bits are seen by the lanes that wait on this slot
        if (lane == 0) mbarExpect(bar, 2 * __popc(bits) * ROW);
        if (lane < 4 && copied > 0) {
            int within = shift >= 0 ? t & (bs - 1) : t % bs;
            bulkLoad(smemAddr(dst), src_base + id * src_s0 + within * src_s2, copied * ROW, bar);
        }
    };
    float acc[NT][2];
#pragma unroll
    for (int i = 0; i < NT; ++i) acc[i][0] = acc[i][1] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    const int first = t0 + warp * 16, stride = kDecWarps * 16;
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        if (first + k * stride < t1) issue(first + k * stride, idOf(first + k * stride), k);
    }
    long long pend = idOf(first + NS * stride);
    int it = 0;
    for (int s0 = first; s0 < t1; s0 += stride, ++it) {
        const int k = it % NS;
        mbarWait(smemAddr(&full[warp][k]), static_cast<uint32_t>((it / NS) & 1));
        const unsigned char *ks = wring + k * SLOT, *vs = ks + 16 * ROW;
        const unsigned vm = valid[warp][k];
        float sc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};  // [tile][token 2c, 2c+1] for head g
        tcScores<T, KP>(sc, sm_q, [&](int tile, int jj) {
            return *reinterpret_cast<const uint4 *>(ks + (tile * 8 + g) * ROW + (32 * jj + 8 * c) * sizeof(T));
        });
        uint4 vr[4][VP];  // tokens 2c, 2c+1, 2c+8, 2c+9 at d = 64 i + 8 g
#pragma unroll
        for (int u = 0; u < 4; ++u) {
#pragma unroll
            for (int i = 0; i < VP; ++i) {
                vr[u][i] = *reinterpret_cast<const uint4 *>(vs + ((u >> 1) * 8 + 2 * c + (u & 1)) * ROW +
                                                            (64 * i + 8 * g) * sizeof(T));
            }
        }
        tcUpdate<T, NT, VP>(sc, ((vm >> (2 * c)) & 3u) | (((vm >> (8 + 2 * c)) & 3u) << 2), p.scale, vr, m, l, acc);
        __syncwarp();  // every lane has read the slot
        const int sn = s0 + NS * stride;
        if (sn < t1) issue(sn, pend, k);
        pend = idOf(sn + stride);
    }
    __syncthreads();  // every warp is done with the ring: it takes the merge's sums
    auto &sm_acc = *reinterpret_cast<float (*)[kDecWarps][kTcRows][D]>(ring);
    tcFinish<D, NT>(l, m, acc, sm_acc, sm_ml, hc);
    __syncthreads();
    mergeWarps<T, D, kTcRows, false>(p, out, sm_acc, sm_ml, hc, head0, seq, part, part_out, part_ml);
#endif
}

}  // namespace infini::nvidia::ops::attn
