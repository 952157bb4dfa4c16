// attention/decode.cuh: paged_attention's decode kernels on CUDA cores (decodeKernel) and what every decode kernel
// shares: a block's place in the grid and its merge of its warps' partial results (within the block, across a
// cluster, or into the partitions' workspace for combineKernel). The tensor-core kernels: decode_tc.cuh; the plan
// choosing among them: decode_plan.cu.
#pragma once

#include <cooperative_groups.h>

#include "splitk.cuh"

namespace infini::nvidia::ops::attn {

// ---- paged_attention decode, fast path (fp16/bf16, head_dim 64/128/256, 16-byte aligned rows) ----
// Flash-decoding: a block takes one sequence, G query heads of one kv head and one partition of the
// keys; each of its warps walks its own steps of S tokens with an online softmax, so no warp waits
// for another until the end. In a step a lane reads 8 key and 8 value pieces of 16 bytes (all issued
// before any is used): LPT = D / 8 lanes cover one row, so a warp load covers 32 / LPT rows. A score
// is the lanes' partial dots summed over the LPT lanes of its row; the lane then adds its own value
// piece times the probability, for its rows only. At the end the warp sums over its row groups and
// the warps merge through shared memory (log-sum-exp), into the output or into the partition's slot.
constexpr int kDecWarps = 4;

// A decode block's place (grid: parts, kv_heads * hpasses, rows; R query heads a block): partition,
// sequence, kv head, its first query head and how many it takes, and the sequence's length as
// rowMeta checks it (a bad one reported once, by the first block of the sequence, and taken as 0).
struct DecodeBlock {
    long long part, seq, kvh, head0, n;
    long long t0, t1;  // the partition's tokens [t0, t1)
    int hc;
};

// (Every decode kernel starts here: it lets the partitions' combineKernel be placed and waits for the kernel before
// it, as launchOp's kernels do: the decode kernels and combineKernel are launched as dependents, see launchOp.)
// decodePlace: the block's place alone (no memory read: a kernel may issue its first reads beside the length's);
// decodeSetLength then takes the sequence's seq_lens entry n. decodeBlock: both, the length read between.
__device__ __forceinline__ DecodeBlock decodePlace(const AttnParams &p, int R) {
    opEntry();
    DecodeBlock b;
    b.part = blockIdx.x;
    b.seq = blockIdx.z;
    b.kvh = blockIdx.y / p.hpasses;
    int h0 = static_cast<int>(blockIdx.y % p.hpasses) * R;
    b.hc = min(R, static_cast<int>(p.group) - h0);
    b.head0 = b.kvh * p.group + h0;
    b.t0 = b.part * p.part_len;
    return b;
}
__device__ __forceinline__ void decodeSetLength(DecodeBlock &b, const AttnParams &p, long long n, DeviceError *err) {
    b.n = decodeLength(p, b.seq, n, err, b.part == 0 && blockIdx.y == 0 && threadIdx.x == 0);
    b.t1 = min(b.n, b.t0 + p.part_len);
}
__device__ __forceinline__ DecodeBlock decodeBlock(const AttnParams &p, const void *lens, int R, DeviceError *err) {
    DecodeBlock b = decodePlace(p, R);
    decodeSetLength(b, p, readIndex(lens, p.len64, b.seq * p.len_s0), err);
    return b;
}

// lseMerge over the block's warps' partial results for head h, element e (every warp writes its own in
// shared memory, tcFinish or decodeKernel: ALL may be set).
template <bool ALL, int W, int R, int D>
__device__ __forceinline__ float blockWarpsAt(const float (&sm_acc)[W][R][D], const float (&sm_ml)[W][R][2], int h,
                                              int e, float &mm, float &ll) {
    return lseMerge<W, ALL>(
        W, [&](int w) { return make_float2(sm_ml[w][h][0], sm_ml[w][h][1]); }, [&](int w) { return sm_acc[w][h][e]; },
        mm, ll);
}

// The cluster's merge (CL), one barrier: each block merges its warps for its heads h < hc and stores the
// result straight into the shared memory of the head's owner (rank h % parts; stores to another block's
// shared memory need no reply), then after the cluster barrier each owner merges its heads from its own
// shared memory. (Reading the other blocks' shared memory after the barrier waited on a round trip per
// rank and head, and needed a second barrier before any block could leave.) The kernel arrived
// (clusterArriveRelaxed) when it started; the wait before the stores makes sure every owner has started
// (compute-sanitizer's racecheck reports the stores otherwise: "Potential invalid __shared__ write ... in a block
// that might not have entered yet"); by the merge every block has long arrived, so it returns at once.
template <typename T, int D, int R, int W>
__device__ __forceinline__ void mergeCluster(const AttnParams &p, T *out, const float (&sm_acc)[W][R][D],
                                             const float (&sm_ml)[W][R][2], int hc, long long head0, long long seq) {
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    constexpr int kThreads = W * 32;
    static_assert((R * D) % kThreads == 0, "whole passes");
    // the owner's slot of (its k-th head, source rank r): k * parts + r < R + parts - 1 <= 2R with parts <= R
    __shared__ float rcv[2 * R][D];
    __shared__ float rcv_ml[2 * R][2];
    const int nr = p.parts, rank = static_cast<int>(cl.block_rank());
    clusterWait();  // (the kernel's clusterArriveRelaxed: every block of the cluster has started)
#pragma unroll
    for (int k = 0; k < R * D / kThreads; ++k) {
        const int i = k * kThreads + static_cast<int>(threadIdx.x), h = i / D, e = i % D;
        if (h < hc) {
            float mm, ll;
            const float o = blockWarpsAt<true>(sm_acc, sm_ml, h, e, mm, ll);
            const int owner = h % nr, slot = (h / nr) * nr + rank;
            *cl.map_shared_rank(&rcv[slot][e], owner) = o;
            if (e == 0) {
                float *ml = cl.map_shared_rank(&rcv_ml[slot][0], owner);
                ml[0] = mm;
                ml[1] = ll;
            }
        }
    }
    cl.sync();  // every block's share is in its owner's shared memory
    const int mine = hc > rank ? (hc - rank + nr - 1) / nr : 0;
    for (int i = static_cast<int>(threadIdx.x); i < mine * D; i += kThreads) {
        const int k = i / D, e = i % D;
        float mm, ll;
        const float o = lseMerge<0, true>(
            nr, [&](int r) { return make_float2(rcv_ml[k * nr + r][0], rcv_ml[k * nr + r][1]); },
            [&](int r) { return rcv[k * nr + r][e]; }, mm, ll);
        out[seq * p.o_row + (head0 + rank + k * nr) * p.o_head + e] = fromF<T>(ll > 0.0f ? o / ll : 0.0f);
    }
}

// The block's last step in decode: merges its warps' (max, sum, unnormalized output) from shared
// memory (log-sum-exp) for heads head0 .. head0 + hc, into the output or into the partition's slot.
// CL: the partitions of (sequence, kv head) are one cluster of p.parts blocks that merge each other's
// through distributed shared memory (mergeCluster: no workspace, no second kernel).
template <typename T, int D, int R, bool CL, int W>
__device__ __forceinline__ void mergeWarps(const AttnParams &p, T *out, const float (&sm_acc)[W][R][D],
                                           const float (&sm_ml)[W][R][2], int hc, long long head0, long long seq,
                                           long long part, float *part_out, float *part_ml) {
    if constexpr (CL) {
        mergeCluster<T, D, R>(p, out, sm_acc, sm_ml, hc, head0, seq);
    } else {
        for (int i = threadIdx.x; i < hc * D; i += W * 32) {
            int h = i / D, e = i % D;
            float mm, ll;
            const float o = blockWarpsAt<false>(sm_acc, sm_ml, h, e, mm, ll);  // (an empty warp's sums skipped)
            long long head = head0 + h;
            if (p.parts == 1) {
                out[seq * p.o_row + head * p.o_head + e] = fromF<T>(ll > 0.0f ? o / ll : 0.0f);
            } else {
                long long slot = (seq * p.heads + head) * p.parts + part;
                part_out[slot * D + e] = o;
                if (e == 0) {
                    part_ml[slot * 2] = mm;
                    part_ml[slot * 2 + 1] = ll;
                }
            }
        }
    }
}

// The blocks an SM that decodeKernel's registers must allow: 4 with one query head a block (128 registers, a
// few bytes spilled: measured faster than the compiler's own choice of 3 blocks, than 5, which spills hundreds of
// bytes, and than no spills at 2); no bound (0) with 2 or 4 heads, which spill hundreds of bytes at 128 registers.
constexpr int decodeMinBlocks(int G) { return G == 1 ? 4 : 0; }

template <typename T, int D, int G>
__global__ void __launch_bounds__(kDecWarps * 32, decodeMinBlocks(G))
    decodeKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc, const void *bt, const void *lens,
                 const float *alibi, float *part_out, float *part_ml, DeviceError *err) {
    constexpr int LPT = D / 8, TPW = 32 / LPT, L = G == 4 ? 4 : 8, S = L * TPW;
    __shared__ float sm_acc[kDecWarps][G][D];
    __shared__ float sm_ml[kDecWarps][G][2];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, sub = lane / LPT, c = lane % LPT;
    const DecodeBlock at = decodeBlock(p, lens, G, err);
    const long long part = at.part, seq = at.seq, g = at.kvh, head0 = at.head0, n = at.n, t0 = at.t0, t1 = at.t1;
    const int hc = at.hc;
    float qv[G][8], m[G], l[G], acc[G][8];
#pragma unroll
    for (int h = 0; h < G; ++h) {
        if (h < hc) {
            loadF<T, 8>(q + seq * p.q_row + (head0 + h) * p.q_head + c * 8, qv[h]);
#pragma unroll
            for (int e = 0; e < 8; ++e) qv[h][e] *= p.scale;
        } else {
#pragma unroll
            for (int e = 0; e < 8; ++e) qv[h][e] = 0.0f;
        }
        m[h] = -INFINITY;
        l[h] = 0.0f;
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[h][e] = 0.0f;
    }
    const float qpos = static_cast<float>(n - 1);
    const T *kbase = kc + g * p.k_s1 + c * 8, *vbase = vc + g * p.v_s1 + c * 8;
    const int bs = static_cast<int>(p.block_size), shift = p.block_shift;
    const long long bt_row = seq * p.bt_s0;
    // the block ids of a step: read one step ahead, so that a step waits for its keys and values only
    long long blk[L], blk_next[L];
    auto readIds = [&](long long s, long long (&ids)[L]) {
#pragma unroll
        for (int i = 0; i < L; ++i) {
            int t = static_cast<int>(s) + i * TPW + sub;
            int pg = shift >= 0 ? t >> shift : t / bs;
            ids[i] = t < t1 ? readIndex(bt, p.bt64, bt_row + pg * p.bt_s1) : 0;
        }
    };
    if (t0 + warp * S < t1) readIds(t0 + warp * S, blk);
    for (long long s0 = t0 + warp * S; s0 < t1; s0 += kDecWarps * S) {
        Vec<T, 8> kr[L], vr[L];
        bool ok[L];
        bool bad = false;
#pragma unroll
        for (int i = 0; i < L; ++i) {
            int t = static_cast<int>(s0) + i * TPW + sub;
            int pg = shift >= 0 ? t >> shift : t / bs;
            int row = shift >= 0 ? t & (bs - 1) : t - pg * bs;
            bool out_of_range = t < t1 && (blk[i] < 0 || blk[i] >= p.num_blocks);
            bad |= out_of_range;
            ok[i] = t < t1 && !out_of_range;
            reinterpret_cast<uint4 &>(kr[i]) = make_uint4(0, 0, 0, 0);
            reinterpret_cast<uint4 &>(vr[i]) = make_uint4(0, 0, 0, 0);
            if (ok[i]) {
                kr[i] = *reinterpret_cast<const Vec<T, 8> *>(kbase + blk[i] * p.k_s0 + row * p.k_s2);
                vr[i] = *reinterpret_cast<const Vec<T, 8> *>(vbase + blk[i] * p.v_s0 + row * p.v_s2);
            }
        }
        if (bad) {
#pragma unroll
            for (int i = 0; i < L; ++i) {
                int t = static_cast<int>(s0) + i * TPW + sub;
                if (t < t1 && (blk[i] < 0 || blk[i] >= p.num_blocks)) {
                    reportError(err, kErrIndex, p.op, kArgBlockTables, blk[i], p.num_blocks);
                }
            }
        }
        if (s0 + kDecWarps * S < t1) readIds(s0 + kDecWarps * S, blk_next);
        float sc[G][L];
#pragma unroll
        for (int i = 0; i < L; ++i) {
            float kf[8];
            unpackF(kr[i], kf);
#pragma unroll
            for (int h = 0; h < G; ++h) {
                float d = 0.0f;
#pragma unroll
                for (int e = 0; e < 8; ++e) d = fmaf(kf[e], qv[h][e], d);
#pragma unroll
                for (int o = LPT / 2; o > 0; o >>= 1) d += __shfl_xor_sync(0xffffffffu, d, o);
                if (alibi != nullptr && h < hc) {
                    d += alibi[(head0 + h) * p.alibi_s0] * (static_cast<float>(s0 + i * TPW + sub) - qpos);
                }
                sc[h][i] = ok[i] ? d : -INFINITY;
            }
        }
#pragma unroll
        for (int h = 0; h < G; ++h) {
            float mx = sc[h][0];
#pragma unroll
            for (int i = 1; i < L; ++i) mx = fmaxf(mx, sc[h][i]);
#pragma unroll
            for (int o = LPT; o < 32; o <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
            float mn = fmaxf(m[h], mx);
            if (mn == -INFINITY) continue;    // nothing visible yet
            float alpha = __expf(m[h] - mn);  // 0 when m was -inf
            m[h] = mn;
            l[h] *= alpha;
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[h][e] *= alpha;
#pragma unroll
            for (int i = 0; i < L; ++i) {
                float pr = __expf(sc[h][i] - mn);  // 0 for masked rows
                l[h] += pr;
                float vf[8];
                unpackF(vr[i], vf);
#pragma unroll
                for (int e = 0; e < 8; ++e) acc[h][e] = fmaf(pr, vf[e], acc[h][e]);
            }
        }
#pragma unroll
        for (int i = 0; i < L; ++i) blk[i] = blk_next[i];
    }
    // the warp: sum over its row groups (m is the same in every lane)
#pragma unroll
    for (int h = 0; h < G; ++h) {
#pragma unroll
        for (int o = LPT; o < 32; o <<= 1) {
            l[h] += __shfl_xor_sync(0xffffffffu, l[h], o);
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[h][e] += __shfl_xor_sync(0xffffffffu, acc[h][e], o);
        }
        if (sub == 0) {
#pragma unroll
            for (int e = 0; e < 8; ++e) sm_acc[warp][h][c * 8 + e] = acc[h][e];
        }
        if (lane == 0) {
            sm_ml[warp][h][0] = m[h];
            sm_ml[warp][h][1] = l[h];
        }
    }
    __syncthreads();
    mergeWarps<T, D, G, false>(p, out, sm_acc, sm_ml, hc, head0, seq, part, part_out, part_ml);
}

}  // namespace infini::nvidia::ops::attn
