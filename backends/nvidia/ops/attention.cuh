// attention.cuh: attention (dense KV cache), paged_attention (decode) and paged_attention_prefill. Compiled as
// four translation units (attention_decode.cu, attention_prefill.cu, attention_prefill_bf16.cu, attention_dense.cu,
// each defining its INFINI_ATTN_* before including this), so that the nvidia build's longest compile is split (one
// file took 149 s of the H100 machine's 168 s backend build; as three units, one an op, the prefill's took 92 s of
// 111). Each unit defines its op's entry point and the non-template helpers only it uses; the templates it
// instantiates are its own (the decode fast path's plan, makeDecodeFast, is defined in the decode unit and called
// from the dense one: attention's decode-sized calls take it; the prefill's tiled kernels for bf16, flashPrefillBf16,
// are instantiated in their own unit: nvcc here, one job, 122 s for the prefill unit -> 72 s + 57 s).
// The general kernel (every dtype, head_dim, alibi; and rows too few for the tiled one) is split-K: a
// block takes one query row, the query heads that share one kv head, and one partition of the keys.
// Scores: each lane of a warp takes its own key row (the warp's 32 rows stay in L1 while it reads them 16
// bytes at a time) and dots it with the group's queries held as floats in shared memory; softmax within
// the partition; values: threads split head_dim into 16-byte chunks and the tokens into groups.
// Partitions are merged by a second kernel (log-sum-exp) when there are several (or, for the tensor-core
// decode kernel with little work, inside a cluster of their blocks). Decode (one row a sequence) has its
// flash-decoding kernels (CUDA cores, or tensor cores for grouped heads); prefill and attention with 16+
// rows in fp16/bf16 a tiled tensor-core kernel (flashKernel, at the end).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>

#include "common.cuh"

#if !defined(INFINI_ATTN_DECODE) && !defined(INFINI_ATTN_PREFILL) && !defined(INFINI_ATTN_PREFILL_BF16) && !defined(INFINI_ATTN_DENSE)
#error "attention.cuh: define INFINI_ATTN_DECODE, INFINI_ATTN_PREFILL, INFINI_ATTN_PREFILL_BF16 or INFINI_ATTN_DENSE before including it"
#endif

namespace infini::nvidia::ops {

struct AttnParams {
    // query and output rows: element offset of (row, head) = row * s_row + head * s_head
    long long q_row, q_head, o_row, o_head;
    long long rows, heads, kv_heads, group, d;
    float scale;
    // keys and values: dense [kv_heads, max_seq, d] (k_s0: head, k_s1: token) or paged
    // [blocks, kv_heads, block_size, d] (k_s0: block, k_s1: head, k_s2: row)
    long long k_s0, k_s1, k_s2, v_s0, v_s1, v_s2;
    long long block_size, num_blocks, bt_s0, bt_s1, max_tokens;
    bool bt64, len64, cu64;
    long long len_s0, cu_s0;
    long long pos;  // dense: where the new rows start
    long long seqs; // paged
    long long kv_seq;  // the tiled prefill's gathered keys and values: elements between sequences
    long long alibi_s0;
    int parts, part_len, gc;  // partitions, tokens per partition, heads per pass
    int hpasses;              // decode fast path: blocks per kv head (G query heads each)
    int block_shift;          // paged: log2(block_size) for a power of two, else -1
    int self_tiles;           // tiled prefill: which tiles a block takes (kTilesList ..., flashOwnTile)
    int op;
};

// The decode fast path's plan, or false when the shape or dtype is not one it takes. Defined in the decode unit
// (external linkage, as AttnParams has) and called by the dense one too: attention's decode-sized calls take it.
bool makeDecodeFast(AttnParams p, infiniDtype_t dtype, bool has_alibi, Made *made);

// A tiled-kernel plan (makeFlash): the call's params, the gathered form's (pg), where the gathered keys and values
// lie in the workspace, the gathered slots, the row tiles' cap, the form (0 paged, 1 gathered, 2 split), the
// grouping G4 and the rows a block.
struct FlashPlan {
    AttnParams p, pg;
    size_t g_off, g_bytes;
    long long slots, cap;
    int form, G4, rb;
};

// The tiled prefill's launch for fp16 and for bf16: each dtype's kernels in their own unit (attention_prefill.cu,
// attention_prefill_bf16.cu), so that the build's longest compile is split two ways.
infiniStatus_t flashPrefillF16(const FlashPlan &f, const LaunchArgs &a);
infiniStatus_t flashPrefillBf16(const FlashPlan &f, const LaunchArgs &a);

namespace {

constexpr int kThreads = 128;
constexpr int kSmemBytes = 48 * 1024;

enum class Mode { kDense, kDecode, kPrefill };


struct RowMeta {
    long long seq, n, qpos;  // n keys visible; qpos the query's position
};

// A decode row's key count from its seq_lens entry n: 0 where n is outside [0, max_tokens] (reported if `report`).
__device__ __forceinline__ long long decodeLength(const AttnParams &p, long long row, long long n, DeviceError *err, bool report) {
    if (n < 0 || n > p.max_tokens) {
        if (report) reportError(err, kErrSeqLen, p.op, kArgSeqLens, row, n, 0, p.max_tokens);
        return 0;
    }
    return n;
}

template <Mode M>
__device__ RowMeta rowMeta(const AttnParams &p, long long row, const void *lens, const void *cu, DeviceError *err,
                           bool report) {
    RowMeta r{0, 0, 0};
    if constexpr (M == Mode::kDense) {
        r.n = p.pos + row + 1;
        r.qpos = p.pos + row;
    } else if constexpr (M == Mode::kDecode) {
        r.seq = row;
        const long long n = decodeLength(p, row, readIndex(lens, p.len64, row * p.len_s0), err, report);
        r.n = n;
        r.qpos = n - 1;
    } else {
        long long lo = 0, hi = p.seqs;  // the s with cu[s] <= row < cu[s + 1]
        while (hi - lo > 1) {
            long long mid = (lo + hi) / 2;
            if (readIndex(cu, p.cu64, mid * p.cu_s0) <= row) lo = mid; else hi = mid;
        }
        long long start = readIndex(cu, p.cu64, lo * p.cu_s0), stop = readIndex(cu, p.cu64, (lo + 1) * p.cu_s0);
        long long n = readIndex(lens, p.len64, lo * p.len_s0);
        r.seq = lo;
        if (n < stop - start || n > p.max_tokens || row < start || row >= stop) {
            r.n = 0;  // the check kernel reports it
            r.qpos = -1;
        } else {
            r.qpos = n - (stop - start) + (row - start);
            r.n = r.qpos + 1;
        }
    }
    return r;
}

// Key/value row of token t (kv head g) for the row's sequence; nullptr when its block id is bad.
template <Mode M, typename T>
__device__ __forceinline__ const T *kvRow(const AttnParams &p, const T *base, long long s0, long long s1, long long s2,
                                          const void *bt, long long seq, long long g, long long t, DeviceError *err) {
    if constexpr (M == Mode::kDense) {
        return base + g * s0 + t * s1;
    } else {
        long long blk = readIndex(bt, p.bt64, seq * p.bt_s0 + (t / p.block_size) * p.bt_s1);
        if (blk < 0 || blk >= p.num_blocks) {
            reportError(err, kErrIndex, p.op, kArgBlockTables, blk, p.num_blocks);
            return nullptr;
        }
        return base + blk * s0 + g * s1 + (t % p.block_size) * s2;
    }
}

// grid: (parts, kv_heads, rows). Writes the normalized output when parts == 1, else the partition's
// unnormalized sums, max and denominator into the workspace.
template <Mode M, typename T, int VEC, int GC>
__global__ void __launch_bounds__(kThreads) attendKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc,
                                                          const void *bt, const void *lens, const void *cu,
                                                          const float *alibi, float *part_out, float *part_ml,
                                                          DeviceError *err) {
    extern __shared__ float smem[];
    long long part = blockIdx.x, g = blockIdx.y, row = blockIdx.z;
    RowMeta meta = rowMeta<M>(p, row, lens, cu, err, part == 0 && g == 0 && threadIdx.x == 0);
    long long t0 = part * p.part_len, t1 = min(meta.n, t0 + p.part_len);
    long long d = p.d;
    int ntok = t1 > t0 ? static_cast<int>(t1 - t0) : 0;
    float *scores = smem;                         // [GC][part_len]
    float *qs = scores + GC * p.part_len;         // [GC][d]
    float *acc = qs + GC * d;                     // [GC][d]
    __shared__ float red[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int h0 = 0; h0 < p.group; h0 += GC) {
        int hc = min(GC, static_cast<int>(p.group - h0));
        long long head0 = g * p.group + h0;
        // queries of this pass, as floats
        for (long long i = threadIdx.x; i < GC * d; i += kThreads) {
            int hh = static_cast<int>(i / d);
            long long e = i % d;
            qs[i] = hh < hc ? toF(q[row * p.q_row + (head0 + hh) * p.q_head + e]) : 0.0f;
            acc[i] = 0.0f;
        }
        __syncthreads();
        // scores: a lane per token
        for (int j = threadIdx.x; j < ntok; j += kThreads) {
            long long t = t0 + j;
            const T *kr = kvRow<M>(p, kc, p.k_s0, p.k_s1, p.k_s2, bt, meta.seq, g, t, err);
            float dot[GC];
#pragma unroll
            for (int hh = 0; hh < GC; ++hh) dot[hh] = 0.0f;
            if (kr != nullptr) {
                for (long long e = 0; e < d; e += VEC) {
                    float kv[VEC];
                    if constexpr (VEC > 1) {
                        loadF<T, VEC>(kr + e, kv);
                    } else {
                        kv[0] = toF(kr[e]);
                    }
#pragma unroll
                    for (int hh = 0; hh < GC; ++hh) {
#pragma unroll
                        for (int v = 0; v < VEC; ++v) dot[hh] += kv[v] * qs[hh * d + e + v];
                    }
                }
            }
#pragma unroll
            for (int hh = 0; hh < GC; ++hh) {
                float sc = kr != nullptr ? dot[hh] * p.scale : -INFINITY;
                if (alibi != nullptr && hh < hc) sc += alibi[(head0 + hh) * p.alibi_s0] * static_cast<float>(t - meta.qpos);
                scores[hh * p.part_len + j] = sc;
            }
        }
        __syncthreads();
        // softmax within the partition: a warp per head
        for (int hh = warp; hh < hc; hh += kThreads / 32) {
            float m = -INFINITY;
            for (int j = lane; j < ntok; j += 32) m = fmaxf(m, scores[hh * p.part_len + j]);
            m = warpMax(m);
            float s = 0.0f;
            for (int j = lane; j < ntok; j += 32) {
                float e = m == -INFINITY ? 0.0f : __expf(scores[hh * p.part_len + j] - m);
                scores[hh * p.part_len + j] = e;
                s += e;
            }
            s = warpSum(s);
            if (lane == 0) {
                red[hh * 2 % 32] = m;  // kept per head below (GC <= 8: 16 slots)
                red[(hh * 2 + 1) % 32] = s;
            }
        }
        __syncthreads();
        // values: thread = (chunk c of head_dim, token group tg)
        long long chunks = d / VEC;
        int cht = static_cast<int>(chunks < kThreads ? chunks : kThreads);
        int groups = kThreads / cht;
        int c0 = threadIdx.x % cht, tg = threadIdx.x / cht;
        if (tg < groups) {
            for (long long c = c0; c < chunks; c += cht) {
                float a[GC][VEC];
#pragma unroll
                for (int hh = 0; hh < GC; ++hh) {
#pragma unroll
                    for (int v = 0; v < VEC; ++v) a[hh][v] = 0.0f;
                }
                for (int j = tg; j < ntok; j += groups) {
                    const T *vr = kvRow<M>(p, vc, p.v_s0, p.v_s1, p.v_s2, bt, meta.seq, g, t0 + j, err);
                    if (vr == nullptr) continue;
                    float vv[VEC];
                    if constexpr (VEC > 1) {
                        loadF<T, VEC>(vr + c * VEC, vv);
                    } else {
                        vv[0] = toF(vr[c]);
                    }
#pragma unroll
                    for (int hh = 0; hh < GC; ++hh) {
                        float w = scores[hh * p.part_len + j];
#pragma unroll
                        for (int v = 0; v < VEC; ++v) a[hh][v] += w * vv[v];
                    }
                }
#pragma unroll
                for (int hh = 0; hh < GC; ++hh) {
#pragma unroll
                    for (int v = 0; v < VEC; ++v) atomicAdd(&acc[hh * d + c * VEC + v], a[hh][v]);
                }
            }
        }
        __syncthreads();
        // write
        for (long long i = threadIdx.x; i < hc * d; i += kThreads) {
            int hh = static_cast<int>(i / d);
            long long e = i % d, head = head0 + hh;
            float m = red[hh * 2 % 32], s = red[(hh * 2 + 1) % 32];
            if (p.parts == 1) {
                out[row * p.o_row + head * p.o_head + e] = fromF<T>(s > 0.0f ? acc[i] / s : 0.0f);
            } else {
                long long slot = (row * p.heads + head) * p.parts + part;
                part_out[slot * d + e] = acc[i];
                if (e == 0) {
                    part_ml[slot * 2] = m;
                    part_ml[slot * 2 + 1] = s;
                }
            }
        }
        __syncthreads();
    }
}

// The log-sum-exp merge of partial results at one output element: from each part i its maximum and
// exp-sum ml(i) = (m_i, l_i) and its unnormalized output val(i), gives mm = max m_i, ll = sum l_i e^(m_i - mm)
// and returns o = sum val(i) e^(m_i - mm); a part that saw no token (m_i = -inf) adds nothing. ALL: every
// part's output was written (finite), so all are read and an empty part is weighted by 0 (a select, no branch
// between the loads: H100, bf16, the cluster merge's kernel at 8x512x32/8x128 14.54 us against 15.07 with the
// branch, 16x1024 32.47 against 33.02); else an empty part's output is not read (a workspace slot its block
// may not have written). N > 0: n = N, unrolled. Serves the warps of a block (mergeWarps, mergeCluster), the
// blocks of a cluster (mergeCluster) and the partitions in the workspace (combineKernel).
template <int N, bool ALL, typename ML, typename Val>
__device__ __forceinline__ float lseMerge(int n, ML ml, Val val, float &mm, float &ll) {
    const int cnt = N > 0 ? N : n;
    mm = -INFINITY;
#pragma unroll
    for (int i = 0; i < cnt; ++i) mm = fmaxf(mm, ml(i).x);
    ll = 0.0f;
    float o = 0.0f;
#pragma unroll
    for (int i = 0; i < cnt; ++i) {
        const float2 mi = ml(i);
        if (!ALL && mi.x == -INFINITY) continue;
        const float f = ALL && mi.x == -INFINITY ? 0.0f : __expf(mi.x - mm);
        ll += mi.y * f;
        o += val(i) * f;
    }
    return o;
}

// Merges the partitions of (row, head): grid (heads, rows).
template <typename T>
__global__ void combineKernel(AttnParams p, T *out, const float *part_out, const float *part_ml) {
    waitForPrerequisites();  // (launched early after the paged decode kernels)
    long long head = blockIdx.x, row = blockIdx.y;
    long long base = (row * p.heads + head) * p.parts;
    auto ml = [&](int i) { return make_float2(part_ml[(base + i) * 2], part_ml[(base + i) * 2 + 1]); };
    for (long long e = threadIdx.x; e < p.d; e += blockDim.x) {
        float m, l;
        float s = lseMerge<0, false>(p.parts, ml, [&](int i) { return part_out[(base + i) * p.d + e]; }, m, l);
        out[row * p.o_row + head * p.o_head + e] = fromF<T>(l > 0.0f ? s / l : 0.0f);
    }
}

// Where the tiled prefill's blocks take their row tiles (AttnParams::self_tiles): flashTilesKernel's list, or the
// blocks find their own (flashOwnTile); kTilesGathered: the gather of a call split by sequence (flashSplitKernel).
constexpr int kTilesList = 0, kTilesOwn = 1, kTilesGathered = 2;

// Whether a sequence of nq query rows has its keys and values gathered for the tiled prefill's decoupled form
// (rows: the call's query rows, L: the block table's tokens): the gather's gain grows with the sequence's query
// rows (each key is read by nq / 32 blocks), its cost with the keys. H100, bf16, 32/8 heads of 128, blocks of 16,
// seqs x nq / keys, paged -> gathered, us (38th session, prefill_hist.py): 1 x 4096 / 4096 410.1 -> 325.8,
// 8 x 2048 / 2048 908.7 -> 734.1, 16 x 1024 / 1024 570.0 -> 485.9, 1 x 1024 / 1024 46.6 -> 44.8, 1 x 512 / 8192
// 199.2 -> 179.5, 8 x 512 / 512 109.2 -> 103.1, 1 x 512 / 1024 38.2 -> 37.9; and not: 1 x 768 / 768 34.8 -> 35.2,
// 2 x 512 / 512 35.1 -> 36.7, 4 x 256 / 2048 112.4 -> 112.6, 8 x 128 / 4096 207.8 -> 249.6, 16 x 32 / 2048 75.0 ->
// 161.6, 4 x 64 / 64 15.6 -> 18.9. At least kFlashGatherRows rows.
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

// Prefill: the blocks' row tiles of rb rows, sequence by sequence (one block of 256 threads, a thread a
// sequence, an exclusive scan of the tile counts per 256 sequences). tiles[0].x: how many; at most cap (none
// where tiles is null: the general kernel's path, which launches it for the checks alone).
// It checks cu_seqlens_q (rising from 0 to the rows) and seq_lens (each at least its sequence's rows, at most the
// block table's tokens) and reports the first error in sequence order: each sequence's check is its own, so
// the threads' keys (s + 1) * 2 + (a length error) meet in a minimum (0: cu_seqlens_q[0] is not 0).
__global__ void __launch_bounds__(256) flashTilesKernel(AttnParams p, const void *lens, const void *cu, int rb, int cap, int4 *tiles,
                                                        DeviceError *err) {
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
        if (q.cu_bad || q.len_bad) atomicMin(&first_bad, static_cast<unsigned long long>(s + 1) * 2 + (q.cu_bad ? 0 : 1));
        int total;
        const int off = blockScan256(prefillTileCount(q.lo, q.hi, rb), warp_tot, total);
        c_off[threadIdx.x] = off;
        c_lo[threadIdx.x] = static_cast<int>(q.lo);
        c_hi[threadIdx.x] = static_cast<int>(q.hi);
        c_q[threadIdx.x] = q.ok ? q.qstart : LLONG_MIN;
        __syncthreads();
        // the chunk's tiles written by the whole block (tile i: the last sequence whose first tile is at or
        // before i; one sequence's 128 tiles written by one thread took 4.8 us at 1 x 4096, H100)
        for (int i = threadIdx.x; i < total && base + i < cap; i += 256) {
            int a = 0, b = 255;
            while (a < b) {
                const int m = (a + b + 1) / 2;
                if (c_off[m] <= i) a = m;
                else b = m - 1;
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
                reportError(err, kErrSeqLen, p.op, kArgSeqLens, s, readIndex(lens, p.len64, s * p.len_s0), -1, p.max_tokens);
            }
        } else if (last != p.rows) {
            reportError(err, kErrCuSeqlens, p.op, kArgCuSeqlens, p.rows, last);
        }
    }
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
// takes that list), so that the tiled kernel need not wait for the list (4 x 64: 14.62 -> 13.25 us, 1 x 512
// 25.36 -> 24.02, H100): {sequence, first row, rows, first row's position (-1: a bad sequence)}, or x = -1 where
// y (the block's row tile: blockIdx.y, or a persistent block's) is past the tiles. split (a call split by sequence,
// flashSplitKernel): the tiles of the sequences not gathered first, then those of the gathered ones
// (flashSeqGathered), so that the latter are taken first; gathered: the tile's, whose x is then the sequence's
// gathered slot (its rank among them; a slot past flashSplitSlots, from a bad cu_seqlens_q, makes the tile a bad
// sequence's). Block-uniform; every thread calls it.
__device__ __forceinline__ int4 flashOwnTile(const AttnParams &p, const void *lens, const void *cu, int rb, int y, bool split,
                                             bool &gathered) {
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
        found = prefillTile(g ? (ok ? slot : 0) : tid, static_cast<int>(q.lo), static_cast<int>(q.hi), ok ? q.qstart : LLONG_MIN,
                            target - start, rb);
        found_g = g;
    }
    __syncthreads();
    gathered = found.x >= 0 && found_g;
    return found;
}

// flashGatherKernel's copy of sequence s into slot z (its block's pieces of kv head blockIdx.y).
template <int D>
__device__ __forceinline__ void gatherSequence(const AttnParams &p, const uint16_t *kc, const uint16_t *vc, const void *bt,
                                               const void *lens, const void *cu, long long L, uint16_t *kg, uint16_t *vg,
                                               DeviceError *err, long long s, long long z) {
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
// thus cost a wave of blocks that only scan: slots a block, with ~2048 blocks, took 10-13 us more a call at 16 x
// 128 / 2048 than none, H100).
template <int D>
__global__ void __launch_bounds__(256) flashGatherKernel(AttnParams p, const uint16_t *kc, const uint16_t *vc, const void *bt,
                                                         const void *lens, const void *cu, long long L, uint16_t *kg,
                                                         uint16_t *vg, DeviceError *err) {
    dependentsMayLaunch();   // (the tiled kernel after it may be placed)
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

// attention: writes k, v [kv_heads, seq, d] into the caches at rows [pos, pos + seq).
template <typename T>
__global__ void appendKernel(T *kc, T *vc, const T *k, const T *v, long long kv_heads, long long seq, long long d,
                             long long pos, long long kc_s0, long long kc_s1, long long vc_s0, long long vc_s1,
                             long long k_s0, long long k_s1, long long v_s0, long long v_s1) {
    opEntry();
    long long total = kv_heads * seq * d;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long e = i % d, r = i / d, t = r % seq, h = r / seq;
        kc[h * kc_s0 + (pos + t) * kc_s1 + e] = k[h * k_s0 + t * k_s1 + e];
        vc[h * vc_s0 + (pos + t) * vc_s1 + e] = v[h * v_s0 + t * v_s1 + e];
    }
}

#ifdef INFINI_ATTN_DENSE
// The same 16 bytes a thread (rows of cpr 16-byte pieces; strides in bytes, multiples of 16; grid (x, kv_heads)),
// the key and value pieces of two rows loaded before they are stored. H100, bf16, 8 kv heads of 128: 4096 rows
// 33.2 us by appendKernel (torch's two copies: 7.5), 2048 18.4, 1024 11.4.
__global__ void __launch_bounds__(256) appendKernel16(char *kc, char *vc, const char *k, const char *v, int seq, int cpr, long long pos,
                                                      long long kc_s0, long long kc_s1, long long vc_s0, long long vc_s1,
                                                      long long k_s0, long long k_s1, long long v_s0, long long v_s1) {
    opEntry();  // (the tiled kernel after it may be placed)
    const long long h = blockIdx.y;
    const int n = seq * cpr, step = static_cast<int>(gridDim.x) * 256;
    const char *kh = k + h * k_s0, *vh = v + h * v_s0;
    char *kch = kc + h * kc_s0 + pos * kc_s1, *vch = vc + h * vc_s0 + pos * vc_s1;
    for (int i = static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x); i < n; i += 2 * step) {
        const int j = i + step;
        const int t0 = i / cpr, c0 = i - t0 * cpr, t1 = j / cpr, c1 = j - t1 * cpr;
        const uint4 k0 = *reinterpret_cast<const uint4 *>(kh + t0 * k_s1 + c0 * 16);
        const uint4 v0 = *reinterpret_cast<const uint4 *>(vh + t0 * v_s1 + c0 * 16);
        uint4 k1 = k0, v1 = v0;
        if (j < n) {
            k1 = *reinterpret_cast<const uint4 *>(kh + t1 * k_s1 + c1 * 16);
            v1 = *reinterpret_cast<const uint4 *>(vh + t1 * v_s1 + c1 * 16);
        }
        *reinterpret_cast<uint4 *>(kch + t0 * kc_s1 + c0 * 16) = k0;
        *reinterpret_cast<uint4 *>(vch + t0 * vc_s1 + c0 * 16) = v0;
        if (j < n) {
            *reinterpret_cast<uint4 *>(kch + t1 * kc_s1 + c1 * 16) = k1;
            *reinterpret_cast<uint4 *>(vch + t1 * vc_s1 + c1 * 16) = v1;
        }
    }
}
#endif

// Chooses heads per pass and partition length, the workspace, and returns the launch.
template <Mode M>
infiniStatus_t planAndMake(const char *op, AttnParams p, infiniDtype_t dtype, long long max_keys, int q_index,
                           int kc_index, int vc_index, int bt_index, int lens_index, int cu_index, int alibi_index,
                           bool row_aligned, Made *made) {
    int gc = p.group >= 8 ? 8 : (p.group >= 4 ? 4 : (p.group >= 2 ? 2 : 1));
    long long fixed = 2LL * gc * p.d * 4;  // qs + acc
    long long part_len = (kSmemBytes - fixed) / (gc * 4);
    part_len = part_len / 32 * 32;
    if (part_len > 512) part_len = 512;
    if (part_len < 32) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: head_dim %lld is too large", op, p.d);
    // few rows x kv heads: split the keys further so that the GPU has blocks to run
    if (p.rows * p.kv_heads < 132 * 4 && part_len > 256) part_len = 256;
    p.gc = gc;
    p.part_len = static_cast<int>(part_len);
    long long parts = max_keys <= 0 ? 1 : (max_keys + part_len - 1) / part_len;
    if (parts > 65535) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: too many keys", op);
    p.parts = static_cast<int>(parts);
    size_t smem = static_cast<size_t>(gc * part_len + 2 * gc * p.d) * sizeof(float);
    size_t ws = parts > 1 ? static_cast<size_t>(p.rows * p.heads * parts) * (p.d + 2) * sizeof(float) : 0;
    made->workspace = ws;
    if (p.rows > 65535 || p.kv_heads > 65535) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: too many rows", op);
    return INFINI_NV_DISPATCH_FLOAT(dtype, op, {
        constexpr int V = kVec16<T>;
        bool vec = row_aligned && p.d % V == 0;
        made->launch = [=](const LaunchArgs &a) {
            if (p.rows == 0 || p.heads == 0) return INFINI_STATUS_SUCCESS;
            T *out = static_cast<T *>(a.data[0]);
            const T *q = static_cast<const T *>(a.data[q_index]);
            const T *kc = static_cast<const T *>(a.data[kc_index]);
            const T *vc = static_cast<const T *>(a.data[vc_index]);
            const void *bt = bt_index >= 0 ? a.data[bt_index] : nullptr;
            const void *lens = lens_index >= 0 ? a.data[lens_index] : nullptr;
            const void *cu = cu_index >= 0 ? a.data[cu_index] : nullptr;
            const float *alibi = alibi_index >= 0 ? static_cast<const float *>(a.data[alibi_index]) : nullptr;
            float *part_out = static_cast<float *>(a.workspace);
            float *part_ml = part_out ? part_out + p.rows * p.heads * p.parts * p.d : nullptr;
            bool v = vec && ((reinterpret_cast<uintptr_t>(kc) | reinterpret_cast<uintptr_t>(vc)) & 15) == 0;
            // prefill: cu_seqlens_q and seq_lens checked (flashTilesKernel with no tile list)
            if constexpr (M == Mode::kPrefill) flashTilesKernel<<<1, 256, 0, a.stream>>>(p, lens, cu, 1, 0, nullptr, a.err);
            dim3 grid(static_cast<unsigned>(p.parts), static_cast<unsigned>(p.kv_heads), static_cast<unsigned>(p.rows));
            auto go = [&](auto vtag, auto gtag) {
                constexpr int VV = decltype(vtag)::value, GG = decltype(gtag)::value;
                auto kern = attendKernel<M, T, VV, GG>;
                static SmemAllowance allowance;  // the most shared memory any plan uses
                allowance.ensure(kern, kSmemBytes);  // (if refused, the launch reports it)
                kern<<<grid, kThreads, smem, a.stream>>>(p, out, q, kc, vc, bt, lens, cu, alibi, part_out, part_ml, a.err);
            };
            auto byGroup = [&](auto vtag) {
                switch (p.gc) {
                    case 8: go(vtag, std::integral_constant<int, 8>{}); break;
                    case 4: go(vtag, std::integral_constant<int, 4>{}); break;
                    case 2: go(vtag, std::integral_constant<int, 2>{}); break;
                    default: go(vtag, std::integral_constant<int, 1>{}); break;
                }
            };
            if (v) byGroup(std::integral_constant<int, V>{}); else byGroup(std::integral_constant<int, 1>{});
            if (p.parts > 1) {
                combineKernel<T><<<dim3(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.rows)), 128, 0, a.stream>>>(
                    p, out, part_out, part_ml);
            }
            return launched(op);
        };
    });
}

AttnParams pagedParams(const Layout &out, const Layout &q, const Layout &kc, const Layout &vc, const Layout &bt,
                       const Layout &lens, const Layout &alibi, bool has_alibi, float scale, int op) {
    AttnParams p{};
    p.q_row = q.strides[0];
    p.q_head = q.strides[1];
    p.o_row = out.strides[0];
    p.o_head = out.strides[1];
    p.rows = q.shape[0];
    p.heads = q.shape[1];
    p.kv_heads = kc.shape[1];
    p.group = p.heads / p.kv_heads;
    p.d = q.shape[2];
    p.scale = scale;
    p.k_s0 = kc.strides[0];
    p.k_s1 = kc.strides[1];
    p.k_s2 = kc.strides[2];
    p.v_s0 = vc.strides[0];
    p.v_s1 = vc.strides[1];
    p.v_s2 = vc.strides[2];
    p.block_size = kc.shape[2];
    p.block_shift = p.block_size > 0 && (p.block_size & (p.block_size - 1)) == 0 ? __builtin_ctzll(p.block_size) : -1;
    p.num_blocks = kc.shape[0];
    p.bt_s0 = bt.strides[0];
    p.bt_s1 = bt.strides[1];
    p.max_tokens = static_cast<long long>(bt.shape[1] * kc.shape[2]);
    p.bt64 = bt.dtype == INFINI_DTYPE_I64;
    p.len64 = lens.dtype == INFINI_DTYPE_I64;
    p.len_s0 = lens.strides[0];
    p.seqs = bt.shape[0];
    p.alibi_s0 = has_alibi ? alibi.strides[0] : 0;
    p.op = op;
    return p;
}

bool alignedRows(std::initializer_list<long long> strides, int vec) {
    for (long long s : strides) {
        if (s % vec != 0) return false;
    }
    return true;
}

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
__device__ __forceinline__ float blockWarpsAt(const float (&sm_acc)[W][R][D], const float (&sm_ml)[W][R][2],
                                              int h, int e, float &mm, float &ll) {
    return lseMerge<W, ALL>(W, [&](int w) { return make_float2(sm_ml[w][h][0], sm_ml[w][h][1]); },
                               [&](int w) { return sm_acc[w][h][e]; }, mm, ll);
}

// The cluster's merge (CL), one barrier: each block merges its warps for its heads h < hc and stores the
// result straight into the shared memory of the head's owner (rank h % parts; stores to another block's
// shared memory need no reply), then after the cluster barrier each owner merges its heads from its own
// shared memory. (Reading the other blocks' shared memory after the barrier waited on a round trip per
// rank and head, and needed a second barrier before any block could leave.) The kernel arrived
// (clusterArriveRelaxed) when it started; the wait before the stores makes sure every owner has started
// (racecheck, 54th session: without it, "Potential invalid __shared__ write ... in a block that might not
// have entered yet"); by the merge every block has long arrived, so it returns at once.
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
        const float o = lseMerge<0, true>(nr, [&](int r) { return make_float2(rcv_ml[k * nr + r][0], rcv_ml[k * nr + r][1]); },
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
            const float o = blockWarpsAt<false>(sm_acc, sm_ml, h, e, mm, ll);  // (as measured before the helper)
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

// The blocks an SM that decodeKernel's registers must allow: 4 with one query head a block (128
// registers, 56 bytes spilled; H200, MHA 64x2048: 540.1 us at the compiler's own choice (3 blocks),
// 515.8 at 4, 834.9 at 5 (96 registers, 416 bytes spilled), 666.5 at "1" (195 registers, 2 blocks));
// no bound (0) with 2 or 4 heads, which spill hundreds of bytes at 128 registers.
constexpr int decodeMinBlocks(int G) { return G == 1 ? 4 : 0; }

template <typename T, int D, int G>
__global__ void __launch_bounds__(kDecWarps * 32, decodeMinBlocks(G)) decodeKernel(AttnParams p, T *out, const T *q, const T *kc,
                                                                const T *vc, const void *bt, const void *lens,
                                                                const float *alibi, float *part_out, float *part_ml,
                                                                DeviceError *err) {
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
            if (mn == -INFINITY) continue;  // nothing visible yet
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
// Queries sit in shared memory (reread each step: 168 registers, 3 blocks an SM). H100, bf16, 64
// sequences x 2048 tokens, 32/8 heads: 268.5 -> 211.4 us (SDPA 191.0); 16x1024 70.7 -> 51.6. Values read
// by whole lines (before: 32 bytes a lane, each load half of every sector): 206.4 -> 203.6 (SDPA 188.2),
// 16x1024 39.8 -> 38.6, 8x512 18.3 -> 17.1.
constexpr int kTcRows = 8;

// The head_dim index of column n of the value n-tile nt (see above).
__device__ __forceinline__ int vDim(int nt, int n) { return 64 * (nt / 8) + 8 * n + nt % 8; }

// mma.m16n8k16 with f32 accumulators: d (rows g: d[0..1], g + 8: d[2..3]) += A B.
template <typename T>
__device__ __forceinline__ void mma16816x4(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
}

// The same with rows 8-15 zero in and discarded out (the decode kernels use 8 of the 16 rows).
template <typename T>
__device__ __forceinline__ void mma16816(float (&d)[2], uint32_t a0, uint32_t a2, uint32_t b0, uint32_t b1) {
    float t[4] = {d[0], d[1], 0.0f, 0.0f};
    mma16816x4<T>(t, a0, 0u, a2, 0u, b0, b1);
    d[0] = t[0];
    d[1] = t[1];
}

template <typename T>
__device__ __forceinline__ uint32_t packPair(float lo, float hi) {
    uint32_t r;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        r = *reinterpret_cast<uint32_t *>(&v);
    } else {
        __half2 v = __floats2half2_rn(lo, hi);
        r = *reinterpret_cast<uint32_t *>(&v);
    }
    return r;
}

// A key/value piece, the L2 asked to fetch the 256 bytes around it (a token's row: GQA 64x2048 kernel
// 207.5 -> 206.2 us on the H100); NA: not kept in L1 either (nothing is read twice), which pays with
// little work (one wave of blocks: 16x1024 38.5 -> 33.4 us, 8x512 16.9 -> 15.9) but not with much
// (GQA 64x2048 202.7 -> 205.6; with only the keys not kept: 204.6).
template <bool NA>
__device__ __forceinline__ uint4 loadKV(const void *p) {
    uint4 r;
    if constexpr (NA) {
        asm("ld.global.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
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
__device__ __forceinline__ void tcQueryLoad(uint4 (&qw)[KP], const AttnParams &p, const T *q, long long seq, long long head0, int hc) {
    const int lane = threadIdx.x % 32, g = lane / 4, c = lane % 4;
#pragma unroll
    for (int jj = 0; jj < KP; ++jj) {
        qw[jj] = threadIdx.x / 32 == 0 && g < hc ? *reinterpret_cast<const uint4 *>(q + seq * p.q_row + (head0 + g) * p.q_head + 32 * jj + 8 * c)
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
__device__ __forceinline__ void tcQuery(uint4 (&sm_q)[KP][32], const AttnParams &p, const T *q, long long seq, long long head0,
                                        int hc) {
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
__device__ __forceinline__ void tcUpdate(float (&sc)[2][2], unsigned vis, float scale, const uint4 (&vr)[4][VP], float &m, float &l,
                                         float (&acc)[NT][2]) {
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
// against the length once it is in (H100, bf16, kernel us, one read after the other -> together: 8x512x32/8x128
// 14.96 -> 14.73, 16x1024 33.36 -> 33.03, attention 1 + 2047 keys 27.82 -> 27.16). Each warp walks steps of 16
// tokens, a step's loads all issued before any is used (two steps' loads at once, 242 registers, measured slower:
// H100 8x512 14.50 -> 15.15 us at 8 warps).
template <int W>
constexpr int tcMinBlocks() { return W == 4 ? 3 : 1; }
template <typename T, int D, bool CL, bool NA, int W = kDecWarps>
__global__ void __launch_bounds__(W * 32, tcMinBlocks<W>()) decodeTcKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc,
                                                                          const void *bt, const void *lens, float *part_out,
                                                                          float *part_ml, DeviceError *err) {
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
            for (int e = 0; e < 2; ++e) vis |= (s0 + tile * 8 + 2 * c + e < t1 && !(tile ? badb : bada)) ? 1u << (2 * tile + e) : 0u;
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
// requests (H200, bf16, GQA 64 x 2048 tokens, 32/8 heads: kernel 156.7 -> 149.2 us, SDPA 133.3; copying a
// row a lane, 256-byte copies into rows padded against bank conflicts: 162.2; 3 slots (2 blocks an SM):
// 150.8; 4: 208.0; with little work the register kernel stays: 16x1024 26.2 against 28.6). A tile's block
// id is read a step before its copy is issued. Value rows not copied (past the sequence's end, or a bad
// block id) are zeroed (their probability is 0, and 0 times stale bits may be NaN); key rows need not be:
// their scores are replaced. The ring is reused for the warps' merge. Rows must be packed (row stride
// head_dim), so that a tile is one span.
constexpr int kBulkSlots = 2;

template <typename T, int D>
constexpr int kBulkRing = kDecWarps * kBulkSlots * 32 * D * static_cast<int>(sizeof(T));

template <typename T, int D>
__global__ void __launch_bounds__(kDecWarps * 32) decodeBulkKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc,
                                                                  const void *bt, const void *lens, float *part_out,
                                                                  float *part_ml, DeviceError *err) {
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
            for (int i = copied * ROW / 16; i < 8 * ROW / 16; ++i) reinterpret_cast<uint4 *>(dst)[i] = make_uint4(0, 0, 0, 0);
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
                vr[u][i] = *reinterpret_cast<const uint4 *>(vs + ((u >> 1) * 8 + 2 * c + (u & 1)) * ROW + (64 * i + 8 * g) * sizeof(T));
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

template <typename T>
struct TypeTag {
    using type = T;
};

#ifdef INFINI_ATTN_DECODE
}  // namespace

bool makeDecodeFast(AttnParams p, infiniDtype_t dtype, bool has_alibi, Made *made) {
    if (dtype != INFINI_DTYPE_F16 && dtype != INFINI_DTYPE_BF16) return false;
    if (p.d != 64 && p.d != 128 && p.d != 256) return false;
    if (!alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2, p.q_row, p.q_head}, 8)) return false;
    if (p.rows > 65535 || p.rows == 0 || p.max_tokens > (1LL << 30) || p.block_size <= 0) return false;
    // 4+ query heads per kv head: the tensor-core kernel, 8 heads a block
    bool tc = !has_alibi && p.num_blocks < (1LL << 31) && p.group >= 4 && (p.d == 64 || p.d == 128) && p.block_shift >= 3;
    // else query heads per block: 4 (GQA 32/8 on H100: 282 us against 323 with 2 and 545 with 1)
    int G = tc ? kTcRows : (p.group >= 4 ? 4 : (p.group >= 2 ? 2 : 1));
    p.hpasses = static_cast<int>((p.group + G - 1) / G);
    if (p.kv_heads * p.hpasses > 65535) return false;
    long long S = tc ? 16 : (G == 4 ? 4 : 8) * (32 / (p.d / 8)), unit = kDecWarps * S;
    long long pairs = p.rows * p.kv_heads * p.hpasses;
    // blocks to aim for: 16 per SM of an H100; the tensor-core kernel wants fewer, longer partitions: 4
    // per SM with much work (GQA 64x2048: 215.6 us with 16, 212.3 with 8, 211.0 with 4, 216.6 with 3),
    // 1 with little (8x512: 28.7 with 4, 22.0 with 1; 16x1024: 51.6 with 4, 43.9 with 1); its bulk-copy
    // form (below) 8 (H200, GQA 64x2048 by partitions: 1 168.0 us, 2 148.7, 3 147.4, 4 151.3, 6 148.6;
    // the tool end to end: 2 152.5, 3 150.4; 3 blocks an SM, so 3.9 waves of blocks rather than 2.6)
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
    // fewer ranks), where that still gives 64+ blocks (H200, bf16, kernel us, 4 warps -> 8: 8x512x32/8x128 13.41
    // -> 12.43 (SDPA 10.56), 16x1024 25.85 -> 24.96 (26.01); H100 14.73 -> 14.50, 33.03 -> 32.34. attention, one
    // row after 2047 keys, 8 kv heads, H100: 16 partitions of 4 warps and combineKernel 27.06 us -> 8 of 8 warps
    // 13.15 (compile 13.93); after 511 keys, 32 blocks of 8 warps against 64 of 4: 8.20 -> 8.76 on the H200, so
    // not there)
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
    // cluster, with no second kernel (H100: 8x512 18.7 -> 18.3 us, 16x1024 40.1 -> 39.8; by stores into the
    // owner's shared memory rather than reads of every rank's, kernel 16.13 -> 14.66, 33.52 -> 32.58). The
    // partitions stay at one block an SM (at two, 8x512 in 4 partitions of 128 tokens: 14.58 / 32.48). Not with much
    // work: a block that finishes first holds its SM while it waits for its cluster (GQA 64x2048 206.2 ->
    // 207.2, MHA 732 -> 748). Else combineKernel merges them, launched as a programmatic dependent of the
    // decode kernel (its blocks are placed while the decode's last blocks run, then wait for them; H200,
    // the tool end to end: GQA 64x2048 153.8 -> 152.4 us). (The last partition of
    // each (sequence, kv head) to finish merging them instead, counting arrivals with a fence and an
    // atomic in every block, was slower: GQA 149.3 -> 155.6 us kernel time, MHA 542.9 -> 557.3.)
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
        unsigned gp = static_cast<unsigned>(p.parts), gk = static_cast<unsigned>(p.kv_heads * p.hpasses), gs = static_cast<unsigned>(p.rows);
        dim3 grid(gp, gk, gs);
        // the tensor-core kernel: with much work (bulk) by bulk copies; with little its loads skip L1 and,
        // where cl, the partitions of (sequence, kv head) are one cluster that merges them
        auto runTc = [&](auto dtag) {
            constexpr int DD = decltype(dtag)::value;
            static SmemAllowance ring_smem;
            if (bulk && ring_smem.ensure(decodeBulkKernel<T, DD>, kBulkRing<T, DD>)) {
                launchEx(decodeBulkKernel<T, DD>, grid, kDecWarps * 32, kBulkRing<T, DD>, a.stream, 0, opsDependent(), p, out, q, kc, vc, a.data[4],
                         a.data[5], part_out, part_ml, a.err);
            } else {  // (if the ring's shared memory is refused: the register kernel)
                auto kern = warps == 8 ? (cl ? decodeTcKernel<T, DD, true, true, 8> : decodeTcKernel<T, DD, false, true, 8>)
                            : cl       ? decodeTcKernel<T, DD, true, true>
                            : little   ? decodeTcKernel<T, DD, false, true>
                                       : decodeTcKernel<T, DD, false, false>;
                launchEx(kern, grid, warps * 32, 0, a.stream, cl ? static_cast<int>(gp) : 0, opsDependent(), p, out, q, kc, vc, a.data[4],
                         a.data[5], part_out, part_ml, a.err);
            }
        };
        auto go = [&](auto dtag, auto gtag) {
            constexpr int DD = decltype(dtag)::value, GG = decltype(gtag)::value;
            launchOp(decodeKernel<T, DD, GG>, grid, kDecWarps * 32, 0, a.stream, p, out, q, kc, vc, a.data[4], a.data[5], alibi,
                     part_out, part_ml, a.err);
        };
        auto byD = [&](auto gtag) {
            if (p.d == 64) go(std::integral_constant<int, 64>{}, gtag);
            else if (p.d == 128) go(std::integral_constant<int, 128>{}, gtag);
            else go(std::integral_constant<int, 256>{}, gtag);
        };
        if (tc) {
            if (p.d == 64) runTc(std::integral_constant<int, 64>{});
            else runTc(std::integral_constant<int, 128>{});
        } else if (G == 4) byD(std::integral_constant<int, 4>{});
        else if (G == 2) byD(std::integral_constant<int, 2>{});
        else byD(std::integral_constant<int, 1>{});
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

namespace {
#endif


// ---- wgmma (Hopper, the sm_90a target): a warpgroup's D[64 x N] (+)= A[64 x 16] B[16 x N] ----
// A from registers (each warp its 16 rows, fragments as mma.m16n8k16's), B from shared memory by its
// descriptor, f32 accumulators laid out as mma.m16n8k16's C over N / 8 column tiles (d[4 j .. 4 j + 3]).
// A shared-memory operand under the 128-byte swizzle: rows of 128 bytes in 8-row, 1024-byte-aligned atoms, the
// 16-byte piece i of row r stored at piece i ^ (r % 8); sbo: the stride between 8-row groups, lbo: between
// 64-element atoms along M/N (N-major; unused for K-major).
__device__ __forceinline__ uint64_t wgmmaDesc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) | (static_cast<uint64_t>(sbo >> 4) << 32) |
           (1ull << 62);
}
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmmaWait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// Orders this thread's earlier shared-memory writes (cp.async's too) before later reads by the tensor cores.
__device__ __forceinline__ void fenceProxyAsync() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
#else
__device__ __forceinline__ void wgmmaFence() {}
__device__ __forceinline__ void wgmmaCommit() {}
template <int N>
__device__ __forceinline__ void wgmmaWait() {}
__device__ __forceinline__ void fenceProxyAsync() {}
#endif
// Keeps the compiler from moving reads of x before a wait, or reusing its register while a wgmma reads it (at the
// PTX level: ptxas allocates and schedules on its own, and serializes the wgmma where it cannot prove them safe).
template <typename V>
__device__ __forceinline__ void wgmmaHold(V &x) {
    if constexpr (std::is_same_v<V, float>) asm volatile("" : "+f"(x)::"memory");
    else if constexpr (std::is_same_v<V, uint64_t>) asm volatile("" : "+l"(x)::"memory");
    else asm volatile("" : "+r"(x)::"memory");
}

// The asm of wgmmaN: its text for N = 64 / 128 and dtype TY, its accumulator operands with constraint C ("=f":
// outputs only, "+f": in and out) and its inputs.
#define INFINI_WG64_TEXT(TY)                                                                            \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, " \
    "{%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
#define INFINI_WG128_TEXT(TY)                                                                            \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, " \
    "{%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
#define INFINI_WG_D32(C)                                                                                    \
    C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), \
    C(d[8]), C(d[9]), C(d[10]), C(d[11]), C(d[12]), C(d[13]), C(d[14]), C(d[15]), \
    C(d[16]), C(d[17]), C(d[18]), C(d[19]), C(d[20]), C(d[21]), C(d[22]), C(d[23]), \
    C(d[24]), C(d[25]), C(d[26]), C(d[27]), C(d[28]), C(d[29]), C(d[30]), C(d[31])
#define INFINI_WG_D64(C)                                                                                    \
    INFINI_WG_D32(C), \
    C(d[32]), C(d[33]), C(d[34]), C(d[35]), C(d[36]), C(d[37]), C(d[38]), C(d[39]), \
    C(d[40]), C(d[41]), C(d[42]), C(d[43]), C(d[44]), C(d[45]), C(d[46]), C(d[47]), \
    C(d[48]), C(d[49]), C(d[50]), C(d[51]), C(d[52]), C(d[53]), C(d[54]), C(d[55]), \
    C(d[56]), C(d[57]), C(d[58]), C(d[59]), C(d[60]), C(d[61]), C(d[62]), C(d[63])
#define INFINI_WG_IN "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(ZERO ? 0 : 1), "n"(TB)

// D[64 x N] (+)= A B for N = 64 or 128; TB: B is N-major (its N index contiguous in a core matrix row) rather
// than K-major; ZERO: D = A B (D's registers are outputs only: what they held before does not hold the wgmma back).
template <typename T, int TB, bool ZERO, int N>
__device__ __forceinline__ void wgmmaN(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr bool bf = std::is_same_v<T, __nv_bfloat16>;
    if constexpr (N == 64 && bf && ZERO) asm volatile(INFINI_WG64_TEXT("bf16") : INFINI_WG_D32("=f") : INFINI_WG_IN);
    else if constexpr (N == 64 && bf) asm volatile(INFINI_WG64_TEXT("bf16") : INFINI_WG_D32("+f") : INFINI_WG_IN);
    else if constexpr (N == 64 && ZERO) asm volatile(INFINI_WG64_TEXT("f16") : INFINI_WG_D32("=f") : INFINI_WG_IN);
    else if constexpr (N == 64) asm volatile(INFINI_WG64_TEXT("f16") : INFINI_WG_D32("+f") : INFINI_WG_IN);
    else if constexpr (bf && ZERO) asm volatile(INFINI_WG128_TEXT("bf16") : INFINI_WG_D64("=f") : INFINI_WG_IN);
    else if constexpr (bf) asm volatile(INFINI_WG128_TEXT("bf16") : INFINI_WG_D64("+f") : INFINI_WG_IN);
    else if constexpr (ZERO) asm volatile(INFINI_WG128_TEXT("f16") : INFINI_WG_D64("=f") : INFINI_WG_IN);
    else asm volatile(INFINI_WG128_TEXT("f16") : INFINI_WG_D64("+f") : INFINI_WG_IN);
#else
    __trap();  // (launched only where the build has sm_90a: flashWgmma)
#endif
}
#undef INFINI_WG64_TEXT
#undef INFINI_WG128_TEXT
#undef INFINI_WG_D32
#undef INFINI_WG_D64
#undef INFINI_WG_IN

// ---- paged_attention_prefill and attention on tensor cores: a tiled (flash) kernel ----
// fp16/bf16, head_dim 64/128, no alibi, a scale >= 0, rows and bases on 16 bytes. A block is 8 warps; warp
// w takes 16 consecutive query rows of one query head: G4 heads of one kv head (4, 2 or 1, dividing the
// group) times 8 / G4 row tiles, so that every warp of the block reads the same keys. The block walks the
// keys its rows see (positions 0 .. its last row's) in tiles of 64 tokens brought into shared memory by
// cp.async, the next tile copied while the current one is computed (two stages). Each warp: S = Q K^T by
// mma.m16n8k16 for the tile's 64 keys (its queries held in registers as fragments, the reduction axis
// permuted alike in both operands as in the decode kernels, so that a key fragment is one 16-byte read),
// the causal mask on the tiles that reach its rows' positions, one online-softmax update per row and tile,
// then O += P V a 16-token step at a time with P from S's registers and the values' fragments by
// ldmatrix.trans. Rows in shared memory are padded so that the reads are conflict-free: keys D * 2 + 64
// bytes (the two rows a quarter-warp reads sit 16 banks apart), values D * 2 + 16 (the eight rows of an
// ldmatrix phase sit 4 banks apart). Blocks whose rows see the most keys are placed first. H200, bf16,
// 32/8 heads of 128, causal, against the split-K kernel before it: attention 2048 tokens 3742.5 ->
// 192.0 us, paged_attention_prefill 4 x 1024 4682.2 -> 249.2 (SDPA 97.5 and 88.9).
// On Hopper (a build with sm_90a) the same blocks take their products by wgmma (WG): a warpgroup's four warps (64
// rows) multiply together, Q from registers, keys and values read by the tensor cores from shared memory under the
// 128-byte swizzle, software-pipelined (S_j issued, then P_(j-1) V_(j-1), tile j's softmax while the latter runs),
// blocks of two warpgroups, four stages, the copies two tiles ahead. Paged (WG 1): the warpgroups in lockstep, a
// __syncthreads a tile. Dense, and the prefill whose keys and values are first gathered out of the pages into the
// workspace (flashGatherKernel; see makeFlash) (WG 2): the warpgroups decoupled, each stage's copies
// tracked by a "full" mbarrier (every thread's cp.async arrives on it), its reuse by an "empty" one (every thread
// arrives once its warpgroup's products reading the stage have landed), so that the one's softmax runs under the
// other's products. H100, bf16,
// 32/8 heads of 128, timed as the tool times, the mma.sync form -> WG with 16-byte token columns unswizzled (34th
// session) -> swizzled (L2 tag requests 81% -> 25%: a copy's 16 lanes take a token's whole row) -> the mask only
// where it reaches the rows, copy addresses and descriptors by increments -> (dense) one warpgroup a block:
// attention 4096 607.3 -> 414.4 -> 373.6 -> 349.6 us (SDPA 282.5), 2048 180.2 -> 130.5 -> 120.9 -> 114.5 (99.4),
// 1024 63.9 -> 49.7 -> 47.8 -> 45.0 (43.8); paged_attention_prefill 1 x 4096 767.4 -> 630.8 -> 603.3 (SDPA 265.4;
// one warpgroup a block: 869.4), 4 x 1024 242.2 -> 204.9 -> 198.9 (90.1; 286.0). The paged copies then took their
// rows' offsets from a table in shared memory that 64 threads write a tile ahead (each copying thread had read the
// block table and made 64-bit addresses itself): H200, 1 x 4096 606.0 -> 408.4 us, 2 x 2048 331.8 -> 236.2, 4 x
// 1024 196.0 -> 152.4 (SDPA 263.9, 150.4, 89.6); one warpgroup a block with the table: 507.3, 278.6, 165.4. Dense,
// one warpgroup a block (two blocks an SM, which read every tile twice from L2) -> two decoupled (37th session,
// H100): attention 4096 351.9 -> 334.7 us (SDPA 282.1), 2048 115.2 -> 111.4 (100.1), 1024 45.6 -> 45.2 (44.2); the
// paged prefill decoupled (its offset table a warpgroup's own, behind a named barrier) lost: 1 x 4096 411.7 ->
// 448.1, 4 x 1024 151.9 -> 160.2, and without the table (a warp's 8 rows' offsets made by 8 of its lanes, taken by
// shuffles) also lost: 404.1 -> 428.8, 152.0 -> 158.0; with FA3's ping-pong (the warpgroups taking turns to issue
// their products) both lost (437.2; attention 4096 348.7); dense with the copies three tiles ahead: 333.8 ->
// 338.4. The paged tiles by TMA (thread 0 issuing a page's boxes from 4-d tensor maps, the block table by its
// cp.async; 38th session, H100) lost in lockstep and decoupled: 1 x 4096 411.5 -> 591.4 / 627.7, 4 x 1024 151.0
// -> 188.3 / 191.7. The prefill gathered and run decoupled (H100, 38th session): 1 x 4096 411.0 -> 326.5, 2 x
// 2048 238.7 -> 199.4, 4 x 1024 153.1 -> 134.6 (SDPA 262.8, 150.5, 88.5); its cost at few rows a sequence in
// flashGathers. A call mixing long and short sequences is split by sequence (flashSplitKernel, flashSplitPays).
// (40th session, H100) The query rows in and the output rows out through a warp's buffer in shared memory
// (kFlashRowsBuf): attention 1024 37.2 -> 33.3 us, 4096 312.9 -> 302.4, prefill 4 x 1024 131.7 -> 118.6; and the
// decoupled form persistent for dense attention and one-sequence prefills (flashKernel, FlashRun): attention 4096
// 302.4 -> 286.8, prefill 1 x 4096 309.2 -> 297.1.
constexpr int kFlashWarps = 8, kFlashKeys = 64;

template <int D>
constexpr int kFlashKRow = D * 2 + 64;
template <int D>
constexpr int kFlashVRow = D * 2 + 16;
// WG (the wgmma form): a tile's keys, and its values, as D / 64 halves of 64 tokens x 128 bytes (head_dim
// elements 64 h .. 64 h + 63 of token t at h * kFlashHalf + 128 t), each 16-byte piece i of a row stored at
// piece i ^ (t % 8) (the 128-byte swizzle, on 1024-byte-aligned atoms of 8 tokens); a copy's consecutive
// lanes take a token's row.
constexpr int kFlashHalf = kFlashKeys * 128;
template <int D, int WG>
constexpr int kFlashStage = WG ? 2 * (D / 64) * kFlashHalf : kFlashKeys * (kFlashKRow<D> + kFlashVRow<D>);
// tiles the copies run ahead (WG 1, H200, 34th session: 3 ahead, attention 4096 564.9 -> 598.1 us) and
// stages (WG: tiles j - 1 .. j + PF), shared memory (WG: 1024 more to align it; WG 2: its mbarriers)
template <int WG>
constexpr int kFlashPF = WG ? 2 : 1;
template <int WG>
constexpr int kFlashNST = WG ? kFlashPF<WG> + 2 : kFlashPF<WG> + 1;
// paged: the copies' offset table (two tiles of 64 tokens, a key and a value offset each), after the stages
constexpr int kFlashOffs = 2 * kFlashKeys * 16;
// WG: each warp's 16 query rows (cp.async'd with the first tile, then read as fragments by ldmatrix) and later its
// 16 output rows (written as fragments by stmatrix, then stored 16 bytes a lane), D * 2 bytes a row, 16-byte piece i
// of row r at i ^ (r % 8) (conflict-free for both); after the stages and kFlashOffs (the paged offsets' table, or
// WG 2's mbarriers). They had been read and written 4 bytes a lane straight from and into the fragments (8 rows an
// instruction): per-block stamps (probe/flash_stamps.py, H100, 40th session) put the first tile's products at 1.9
// us against 1.0 for a whole later tile (the query's arrival) and the stores at 1.5 us; now 1.05 and 0.83, the gap
// between an SM's blocks 0.5 -> 0.26. The tool, us (SDPA): attention 1024 37.2 -> 33.3 (43.4), 2048 98.9 -> 92.4
// (99.4), 4096 312.9 -> 302.4 (278.1); prefill 4 x 64 13.2 -> 11.0 (10.7), 1 x 512 24.2 -> 22.3 (16.5), 4 x 1024
// 131.7 -> 118.6 (89.2), 2 x 2048 197.4 -> 182.0 (149.9), 1 x 4096 319.2 -> 309.2 (263.6).
template <int D>
constexpr int kFlashRowsBuf = kFlashWarps * 16 * D * 2;
template <Mode M, int D, int WG>
constexpr int kFlashSmem = WG ? kFlashNST<WG> * kFlashStage<D, WG> + 1024 + kFlashOffs + (WG == 2 ? 2 : 1) * kFlashRowsBuf<D>
                              : kFlashNST<WG> * kFlashStage<D, WG> + (M == Mode::kPrefill ? kFlashOffs : 0);
static_assert(2 * kFlashNST<2> * 8 <= kFlashOffs, "WG 2's mbarriers fit before the rows' buffer");

// 2^x by the special-function unit, subnormal results flushed (exp2f adds their handling): 2^-inf = 0.
__device__ __forceinline__ float fastExp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ void cpAsync16(uint32_t dst, const void *src, bool ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Four 8 x 8 matrices of 16-bit elements from shared memory (lanes 8 i .. 8 i + 7: the row addresses of matrix i),
// as mma's fragments: register i holds row lane / 4, elements 2 (lane % 4) and + 1, of matrix i; and the reverse.
__device__ __forceinline__ void ldMatrix4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void stMatrix4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2),
                 "r"(r3)
                 : "memory");
#else
    __trap();  // (its callers, the wgmma forms, run only where the build has sm_90a code: flashWgmma)
#endif
}
template <int N>
__device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

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
__device__ __forceinline__ bool flashTileAt(const AttnParams &p, const int4 *tiles, int cnt, const void *lens, const void *cu,
                                            int rb, long long gy, int y, FlashTile &t) {
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

// A block's running state over the tiles of rows it takes in turn (WG 2: flashKernel's blocks are persistent): the
// key tiles its earlier tiles of rows took (the stages' ring and its mbarriers' phases run on across them), how many
// of the current one's first key tiles the previous one issued, and how many tiles of rows came before (the rows'
// buffer alternates); the next tile of rows and its block of heads (has_next), whose query rows and first key tiles
// the current one issues in its last iterations. Zero-initialized: one tile of rows, nothing ahead.
struct FlashRun {
    int gbase, ahead, k;
    FlashTile next;
    int next_hb;
    bool has_next;
};

// The tiled kernel's work for one tile of rows (tl) and one block of heads (hb): flashKernel's, and that of
// flashSplitKernel's two forms.
template <Mode M, typename T, int D, int G4, int WG>
__device__ __forceinline__ void flashBody(const AttnParams &p, T *out, const T *q, const T *kc, const T *vc, const void *bt,
                                          DeviceError *err, const FlashTile tl, int hb, FlashRun &run) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int W = kFlashWarps, KP = D / 32, NT = D / 8, CPR = D / 8, KR = kFlashKRow<D>, VR = kFlashVRow<D>;
    constexpr int NI = kFlashKeys * CPR / (W * 32);    // 16-byte pieces a thread copies a tile (each of keys, values)
    constexpr int NS = kFlashKeys / 16;                // 16-token steps a tile
    constexpr float kLog2e = 1.4426950408889634f;
    constexpr int KT = WG ? (D / 64) * kFlashHalf : kFlashKeys * KR, VT = WG ? KT : kFlashKeys * VR;  // bytes a stage
    constexpr int PF = kFlashPF<WG>, NST = kFlashNST<WG>;
    extern __shared__ __align__(128) unsigned char fsm[];
    // [stage][64 rows], or WG [stage][64-element half][64 tokens, swizzled] (its atoms on 1024 bytes)
    unsigned char *ks = fsm + (WG ? (1024 - (smemAddr(fsm) & 1023)) & 1023 : 0), *vs = ks + NST * KT;
    // WG 2: the stages' full and empty mbarriers, after the stages; the prefill's keys and values then come
    // gathered (flashGatherKernel: [seqs][kv_heads][tokens][d], addressed as dense attention's cache)
    constexpr bool kMB = WG == 2;
    constexpr bool kPaged = M == Mode::kPrefill && !kMB;
    const uint32_t full0 = smemAddr(vs + NST * VT), empty0 = full0 + 8 * NST;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, c = lane % 4;
    const int hpb = static_cast<int>(p.group) / G4;
    const long long kvh = hb / hpb, head = kvh * p.group + (hb % hpb) * G4 + warp % G4;
    const int wr0 = 16 * (warp / G4), wn = max(0, min(16, tl.nr - wr0));  // the warp's rows in the tile
    const int key_end = tl.qpos0 >= 0 ? tl.qpos0 + tl.nr : 0, ntiles = (key_end + kFlashKeys - 1) / kFlashKeys;
    // Paged: the copies read their rows' offsets from a table in shared memory (two tiles' worth, alternating),
    // written by threads 0..63 a token each (block * s0 + row within the block * s2 for keys and values; -1 past
    // key_end or for a bad block, which the thread reports) from the block-table entry it read a tile before;
    // each table is written after a barrier that follows the last copy reading its buffer, and read after a
    // barrier that follows its writing. (With the entries read and the 64-bit addresses made by every copying
    // thread, blocks of one warpgroup were 45% slower than of two: 869 vs 601 us at 1 x 4096, H100.)
    const long long bt_row = static_cast<long long>(tl.seq) * p.bt_s0;
    const int tid = static_cast<int>(threadIdx.x);
    const int ch = tid % CPR, row0 = tid / CPR;
    constexpr int RS = W * 32 / CPR;  // rows between a thread's pieces
    longlong2 *offs = reinterpret_cast<longlong2 *>(vs + NST * VT);  // (paged only: kFlashSmem reserves it there)
    long long blk_next = -1;
    auto loadId = [&](int j) {  // the block-table entry of token j * 64 + tid (threads 0..63)
        if constexpr (kPaged) {
            const int t = j * kFlashKeys + tid;
            if (tid < kFlashKeys && t < key_end) {
                const long long pg = pageOf(p, t);
                blk_next = readIndex(bt, p.bt64, bt_row + pg * p.bt_s1);
            }
        }
    };
    auto writeOffs = [&](int j) {  // tile j's table from loadId(j)'s entry
        if constexpr (kPaged) {
            const int t = j * kFlashKeys + tid;
            if (tid < kFlashKeys) {
                long long ko = -1, vo = -1;
                if (t < key_end) {
                    if (blk_next < 0 || blk_next >= p.num_blocks) {
                        reportError(err, kErrIndex, p.op, kArgBlockTables, blk_next, p.num_blocks);
                    } else {
                        const long long within = rowInPage(p, t);
                        ko = blk_next * p.k_s0 + within * p.k_s2;
                        vo = blk_next * p.v_s0 + within * p.v_s2;
                    }
                }
                offs[(j & 1) * kFlashKeys + tid] = make_longlong2(ko, vo);
            }
        }
    };
    // tile j's keys and values of tokens [64 j, 64 j + 64) into stage st; past key_end or a bad block: zeros.
    // The thread's pieces: rows row0 + RS i, 16 bytes at element 8 ch (dense: its first piece's addresses in
    // tile 0, stepped by pointer increments; paged: its head's and piece's part, plus the row's offsets)
    const long long sq = M == Mode::kPrefill ? tl.seq * p.kv_seq : 0;  // (gathered prefill: the sequence's part)
    const T *kb = !kPaged ? kc + sq + kvh * p.k_s0 + row0 * p.k_s1 + ch * 8 : kc + kvh * p.k_s1 + ch * 8;
    const T *vb = !kPaged ? vc + sq + kvh * p.v_s0 + row0 * p.v_s1 + ch * 8 : vc + kvh * p.v_s1 + ch * 8;
    const long long k_step = RS * p.k_s1, v_step = RS * p.v_s1;
    // WG 2: the next tile of rows' keys (its first nahead key tiles issued by this one), as kb / vb / key_end
    // (made where used: nothing of the next tile is live in the main loop)
    auto nextKeyEnd = [&]() { return kMB && run.has_next && run.next.qpos0 >= 0 ? run.next.qpos0 + run.next.nr : 0; };
    auto nextAhead = [&]() { return min(PF, (nextKeyEnd() + kFlashKeys - 1) / kFlashKeys); };
    auto issueFrom = [&](const T *kbase, const T *vbase, int kend, int j, int st) {
        const T *kj = kbase + static_cast<long long>(j * kFlashKeys) * p.k_s1, *vj = vbase + static_cast<long long>(j * kFlashKeys) * p.v_s1;
#pragma unroll
        for (int i = 0; i < NI; ++i) {
            const int row = row0 + i * RS;
            bool ok;
            const T *kp, *vp;
            if constexpr (!kPaged) {
                ok = j * kFlashKeys + row < kend;
                kp = ok ? kj : kc;
                vp = ok ? vj : vc;
                kj += k_step;
                vj += v_step;
            } else {
                const longlong2 o = offs[(j & 1) * kFlashKeys + row];
                ok = o.x >= 0;
                kp = ok ? kb + o.x : kc;
                vp = ok ? vb + o.y : vc;
            }
            if constexpr (WG != 0) {
                const int off = (ch / 8) * kFlashHalf + row * 128 + (((ch & 7) ^ (row & 7)) << 4);
                cpAsync16(smemAddr(ks + st * KT + off), kp, ok);
                cpAsync16(smemAddr(vs + st * VT + off), vp, ok);
            } else {
                cpAsync16(smemAddr(ks + (st * kFlashKeys + row) * KR + ch * 16), kp, ok);
                cpAsync16(smemAddr(vs + (st * kFlashKeys + row) * VR + ch * 16), vp, ok);
            }
        }
    };
    auto issue = [&](int j, int st) { issueFrom(kb, vb, key_end, j, st); };
    // WG: the warp's query rows into its part of the rows' buffer, with (before) the first tile's copies: in its
    // cp.async group (WG 1), under its full mbarrier (WG 2); zeros past the warp's rows
    unsigned char *rbufs = vs + NST * VT + kFlashOffs + warp * (16 * D * 2), *rbuf = rbufs + (run.k & 1) * kFlashRowsBuf<D>;
    constexpr int RPP = 32 / CPR;  // rows a pass of the warp over a buffer of 16 rows
    // (WG 2: a tile of rows' query rows are issued with its first key tile, by the tile before it where that
    // issued it: the next one's into the other buffer)
    auto issueQ = [&](const FlashTile &t, long long hd, unsigned char *buf) {
        const int n = max(0, min(16, t.nr - wr0));
        const T *qr = q + static_cast<long long>(t.r0 + wr0) * p.q_row + hd * p.q_head + (lane % CPR) * 8;
#pragma unroll
        for (int i = 0; i < 16 / RPP; ++i) {
            const int r = lane / CPR + RPP * i;
            cpAsync16(smemAddr(buf + r * (D * 2) + (((lane % CPR) ^ (r & 7)) << 4)), r < n ? qr + r * p.q_row : q, r < n);
        }
    };
    if (WG != 0 && run.ahead == 0 && ntiles > 0) issueQ(tl, head, rbuf);
    // WG 2: a stage's reuse waits for its last tile's release (global key tile X: the ring's X - NST)
    auto waitEmpty = [&](int X) {
        if (X >= NST) {
            mbarWait(empty0 + 8 * (X % NST), (X / NST - 1) & 1);
            fenceProxyAsync();  // (the tensor cores' reads, then these writes)
        }
    };
    // WG 2, the main loop's: key tile x < ntiles of this tile of rows
    auto issueOwn = [&](int x) {
        const int X = run.gbase + x;
        waitEmpty(X);
        issue(x, X % NST);
        cpAsyncArrive(full0 + 8 * (X % NST));
    };
    // WG 2: key tile x of the ring from this tile of rows (x - ntiles of the next where past its tiles)
    auto issueRing = [&](int x) {
        const int X = run.gbase + x;
        if (x < ntiles) {
            issueOwn(x);
        } else if (x - ntiles < nextAhead()) {
            const FlashTile &nx = run.next;
            const long long nkvh = run.next_hb / hpb, nsq = M == Mode::kPrefill ? nx.seq * p.kv_seq : 0;
            waitEmpty(X);
            if (x == ntiles) {
                issueQ(nx, nkvh * p.group + (run.next_hb % hpb) * G4 + warp % G4, rbufs + ((run.k + 1) & 1) * kFlashRowsBuf<D>);
            }
            issueFrom(kc + nsq + nkvh * p.k_s0 + row0 * p.k_s1 + ch * 8, vc + nsq + nkvh * p.v_s0 + row0 * p.v_s1 + ch * 8, nextKeyEnd(),
                      x - ntiles, X % NST);
            cpAsyncArrive(full0 + 8 * (X % NST));
        }
    };
    // the first PF tiles' copies (paged: each after its table and a barrier; the table of tile PF written, and
    // a barrier, before the loop, whose first iteration may copy it before any barrier of its own)
    if constexpr (kMB) {  // (each phase: one arrival by every thread; once a block)
        if (run.k == 0) {
            if (tid == 0) {
                for (int i = 0; i < NST; ++i) {
                    mbarInitCount<W * 32>(full0 + 8 * i);
                    mbarInitCount<W * 32>(empty0 + 8 * i);
                }
                mbarInitFence();
            }
            __syncthreads();
        }
    }
    if (kPaged) loadId(0);
#pragma unroll
    for (int t = 0; t < PF; ++t) {
        if (kPaged) {
            if (ntiles > t) writeOffs(t);
            __syncthreads();
        }
        if constexpr (kMB) {
            if (t >= run.ahead) issueRing(t);
        } else {
            if (ntiles > t) issue(t, t);
            cpAsyncCommit();
        }
        if (kPaged && ntiles > t + 1) loadId(t + 1);
    }
    if (kPaged) {
        if (ntiles > PF) writeOffs(PF);
        if (ntiles > PF + 1) loadId(PF + 1);
        __syncthreads();
    }
    // the warp's query fragments (rows g and g + 8; pieces at d = 32 jj + 8 c), zeros past its rows; WG: as
    // stored, qf[k-step][rows g, g + 8 at d = 16 ks + 2 c; the same at d + 8]
    uint4 qa[KP], qb[KP];
    uint32_t qf[D / 16][4];  // (WG: read from the rows' buffer once the first tile is in)
    if constexpr (WG == 0) {
        const T *qr = q + static_cast<long long>(tl.r0 + wr0) * p.q_row + head * p.q_head + 8 * c;
#pragma unroll
        for (int jj = 0; jj < KP; ++jj) {
            qa[jj] = g < wn ? *reinterpret_cast<const uint4 *>(qr + g * p.q_row + 32 * jj) : make_uint4(0, 0, 0, 0);
            qb[jj] = g + 8 < wn ? *reinterpret_cast<const uint4 *>(qr + (g + 8) * p.q_row + 32 * jj) : make_uint4(0, 0, 0, 0);
        }
    }
    const int pa = tl.qpos0 + wr0 + g, pb = pa + 8;            // positions of the lane's rows
    const int wfirst = tl.qpos0 + wr0;                         // the warp's first row's position
    const int wlast = wn > 0 ? tl.qpos0 + wr0 + wn - 1 : -1;  // and its last's
    const float sl2 = p.scale * kLog2e;
    float acc[NT][4];
#pragma unroll
    for (int i = 0; i < NT; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;
    // The causal mask where the tile at kb0 reaches the warp's rows (token t seen by the row at position r
    // when t <= r), the rows' maxima (scores as computed: the scale, >= 0, is applied in the exponent) and
    // the online-softmax step: al (the factors for the accumulators), b (the exponents' offsets).
    // (MASK false: the caller knows that every row of the block sees every key of the tile)
    auto softmaxStep = [&](float (&sc)[NS][2][4], int kb0, float &al0, float &al1, float &b0, float &b1, auto mask) {
        const bool diag = decltype(mask)::value && kb0 + kFlashKeys - 1 > wfirst;
        float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
        for (int st = 0; st < NS; ++st) {
#pragma unroll
            for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if (diag) {
                        const int t = kb0 + st * 16 + tile * 8 + 2 * c + e;
                        sc[st][tile][e] = t <= pa ? sc[st][tile][e] : -INFINITY;
                        sc[st][tile][2 + e] = t <= pb ? sc[st][tile][2 + e] : -INFINITY;
                    }
                    mx0 = fmaxf(mx0, sc[st][tile][e]);
                    mx1 = fmaxf(mx1, sc[st][tile][2 + e]);
                }
            }
        }
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
        const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
        al0 = n0 == -INFINITY ? 1.0f : fastExp2((m0 - n0) * sl2);
        al1 = n1 == -INFINITY ? 1.0f : fastExp2((m1 - n1) * sl2);
        // p = 2^(s sl2 - n sl2): one fused multiply-add a score (exp2(-inf) = 0 for masked ones)
        b0 = n0 == -INFINITY ? 0.0f : n0 * sl2;
        b1 = n1 == -INFINITY ? 0.0f : n1 * sl2;
        m0 = n0;
        m1 = n1;
        l0 *= al0;
        l1 *= al1;
    };
    // (WG: always; accumulators written in a branch make the compiler serialize the wgmma)
    auto rescale = [&](float al0, float al1) {
        if (WG || __any_sync(0xffffffffu, al0 != 1.0f || al1 != 1.0f)) {  // (no row's maximum grew: nothing to rescale)
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                acc[nt][0] *= al0;
                acc[nt][1] *= al0;
                acc[nt][2] *= al1;
                acc[nt][3] *= al1;
            }
        }
    };
    // step st's probabilities as A fragments (tokens 16 st + 2 c, + 1 and + 8, + 9 of rows g, g + 8), added to l
    auto probs = [&](const float (&sc)[NS][2][4], int st, float b0, float b1, uint32_t (&a)[4]) {
        float pr[2][4];
#pragma unroll
        for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                pr[tile][e] = fastExp2(fmaf(sc[st][tile][e], sl2, -b0));
                pr[tile][2 + e] = fastExp2(fmaf(sc[st][tile][2 + e], sl2, -b1));
            }
        }
        l0 += pr[0][0] + pr[0][1] + pr[1][0] + pr[1][1];
        l1 += pr[0][2] + pr[0][3] + pr[1][2] + pr[1][3];
        a[0] = packPair<T>(pr[0][0], pr[0][1]);
        a[1] = packPair<T>(pr[0][2], pr[0][3]);
        a[2] = packPair<T>(pr[1][0], pr[1][1]);
        a[3] = packPair<T>(pr[1][2], pr[1][3]);
    };
    // the next tile's copies (into the stage read NST - 1 tiles ago) and the wait for tile j's; WG: the wait
    // first, then the copies of tile j + PF (so that the one barrier a tile also covers the stage they
    // overwrite, whose values were last read by iteration j - 1's wgmma); WG 2: the wait for tile j by its
    // full mbarrier, the copies of tile x = j + PF once every thread has released the stage's last tile
    // (x - NST, released in iteration x - NST + 1 = j - 1: a warpgroup runs at most an iteration ahead)
    // (TAIL false: j + PF < ntiles, the main loop's; true: any j, the next tile of rows' copies past this one's)
    auto nextTile = [&](int j, auto tail) {
        if constexpr (kMB) {
            const int J = run.gbase + j;
            mbarWait(full0 + 8 * (J % NST), (J / NST) & 1);  // tile j is in
            fenceProxyAsync();                                // (the tensor cores read it next)
            if constexpr (decltype(tail)::value) issueRing(j + PF);
            else issueOwn(j + PF);
        } else if constexpr (WG != 0) {
            cpAsyncWait<PF - 1>();  // tile j is in (later ones may not be)
            fenceProxyAsync();      // (the tensor cores read it next)
            __syncthreads();
            if (j + PF < ntiles) issue(j + PF, (j + PF) % NST);
            cpAsyncCommit();
            if (j + PF + 1 < ntiles) writeOffs(j + PF + 1);
            if (j + PF + 2 < ntiles) loadId(j + PF + 2);
        } else {
            if (j + 1 < ntiles) issue(j + 1, (j + 1) % NST);
            cpAsyncCommit();
            if (j + 2 < ntiles) writeOffs(j + 2);
            if (j + 3 < ntiles) loadId(j + 3);
            cpAsyncWait<1>();  // tile j is in
            __syncthreads();
        }
    };
    if constexpr (WG != 0) {
        // wgmma, software-pipelined: in iteration j the warpgroup issues S_j = Q K_j^T, then O += P_(j-1) V_(j-1),
        // and runs tile j's softmax while the latter is on the tensor cores; O is rescaled once it lands.
        // Stages: V_(j-1), K_j / V_j and the copies of tiles j + 1 .. j + PF. Every warpgroup takes every
        // tile of the block (masked where past its rows): a wgmma in a branch is serialized by the compiler
        // (so is one whose descriptor or accumulators were written in a branch within its pipeline; without
        // that, the form was slower than mma.sync: 737 us at attention 4096).
        float(&accf)[NT * 4] = reinterpret_cast<float(&)[NT * 4]>(acc);
        uint32_t pf[NS][4];  // the pending P's fragments
        // the descriptors of tile j's keys (a k-step each) and values (16 tokens each), all made before the first
        // wgmma and kept until the last lands
        uint64_t dk[D / 16], dv[NS];
        auto descs = [&](int jk, int jv) {
            const uint32_t kt = smemAddr(ks + ((run.gbase + jk) % NST) * KT), vt = smemAddr(vs + ((run.gbase + jv) % NST) * VT);
            // (an offset added to the start address field: shared addresses stay under its 256 KiB)
            const uint64_t kd = wgmmaDesc(kt, 16, 1024), vd = wgmmaDesc(vt, kFlashHalf, 1024);
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                dk[kk] = kd + ((kk / 4 * kFlashHalf + kk % 4 * 32) >> 4);  // (k-step kk: 32 bytes into a row)
                wgmmaHold(dk[kk]);
            }
#pragma unroll
            for (int st = 0; st < NS; ++st) {
                dv[st] = vd + ((st * 16 * 128) >> 4);
                wgmmaHold(dv[st]);
            }
        };
        auto issueS = [&](float (&scf)[NS * 8]) {  // the warpgroup's 64 x 64 scores, 16 of head_dim a wgmma
            wgmmaN<T, 0, true, 64>(scf, qf[0], dk[0]);
#pragma unroll
            for (int kk = 1; kk < D / 16; ++kk) wgmmaN<T, 0, false, 64>(scf, qf[kk], dk[kk]);
            wgmmaCommit();
        };
        auto issuePV = [&]() {  // O += P V, 16 tokens a wgmma (the values' tile N-major: head_dim contiguous)
#pragma unroll
            for (int st = 0; st < NS; ++st) wgmmaN<T, 1, false, D>(accf, pf[st], dv[st]);
            wgmmaCommit();
        };
        auto landPV = [&]() {
            wgmmaWait<0>();
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) wgmmaHold(dk[kk]);
#pragma unroll
            for (int st = 0; st < NS; ++st) wgmmaHold(dv[st]);
#pragma unroll
            for (int i = 0; i < NT * 4; ++i) wgmmaHold(accf[i]);
#pragma unroll
            for (int st = 0; st < NS; ++st) {
#pragma unroll
                for (int i = 0; i < 4; ++i) wgmmaHold(pf[st][i]);
            }
        };
        // tile j's softmax once S_j has landed: its probabilities into pn, the accumulators' factors
        auto softmaxTile = [&](float (&sc)[NS][2][4], int j, uint32_t (&pn)[NS][4], float &al0, float &al1, auto mask) {
            float(&scf)[NS * 8] = reinterpret_cast<float(&)[NS * 8]>(sc);
#pragma unroll
            for (int i = 0; i < NS * 8; ++i) wgmmaHold(scf[i]);
            float b0, b1;
            softmaxStep(sc, j * kFlashKeys, al0, al1, b0, b1, mask);
#pragma unroll
            for (int st = 0; st < NS; ++st) probs(sc, st, b0, b1, pn[st]);
        };
        if (ntiles > 0) {
            nextTile(0, std::true_type{});  // (the query rows are in too)
            {
                // qf[k-step kk]: matrices (rows 0-7, 8-15) x (elements 16 kk .. + 7, + 8 .. + 15)
                const int mat = lane >> 3, r = (lane & 7) + 8 * (mat & 1);
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) {
                    ldMatrix4(qf[kk], smemAddr(rbuf + r * (D * 2) + (((2 * kk + (mat >> 1)) ^ (r & 7)) << 4)));
                }
            }
            {
                float sc[NS][2][4], al0, al1;
                descs(0, 0);
                wgmmaFence();
                issueS(reinterpret_cast<float(&)[NS * 8]>(sc));
                wgmmaWait<0>();
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) wgmmaHold(dk[kk]);
                softmaxTile(sc, 0, pf, al0, al1, std::true_type{});  // (the accumulators are zeros: nothing to rescale)
            }
            auto iteration = [&](int j, auto mask, auto tail) {
                nextTile(j, tail);
                float sc[NS][2][4], al0, al1;
                uint32_t pn[NS][4];
                descs(j, j - 1);
                wgmmaFence();
                issueS(reinterpret_cast<float(&)[NS * 8]>(sc));
                issuePV();
                wgmmaWait<1>();  // S_j has landed
                softmaxTile(sc, j, pn, al0, al1, mask);
                landPV();
                if constexpr (kMB) mbarArrive(empty0 + 8 * ((run.gbase + j - 1) % NST));  // (done with tile j - 1's stage)
                rescale(al0, al1);
#pragma unroll
                for (int st = 0; st < NS; ++st) {
#pragma unroll
                    for (int i = 0; i < 4; ++i) pf[st][i] = pn[st][i];
                }
            };
            // the tiles every row of the block sees whole (no mask), then the rest (a loop each: block-uniform,
            // no wgmma in a branch)
            // (WG 2: the last PF iterations, which may issue the next tile of rows' copies, apart: the main loop's
            // copies as before it was persistent; the tail's masked where the tile reaches the rows)
            const int jm = min(ntiles, max(1, (tl.qpos0 + 1) / kFlashKeys)), jp = kMB ? max(1, ntiles - PF) : ntiles;
            for (int j = 1; j < min(jm, jp); ++j) iteration(j, std::false_type{}, std::false_type{});
            for (int j = min(jm, jp); j < jp; ++j) iteration(j, std::true_type{}, std::false_type{});
            if constexpr (kMB) {
                for (int j = jp; j < ntiles; ++j) iteration(j, std::true_type{}, std::true_type{});
            }
            descs(ntiles - 1, ntiles - 1);
            wgmmaFence();
            issuePV();
            landPV();
            if constexpr (kMB) mbarArrive(empty0 + 8 * ((run.gbase + ntiles - 1) % NST));  // (the ring runs on)
        }
    } else {
        for (int j = 0; j < ntiles; ++j) {
            nextTile(j, std::true_type{});
            const int kb0 = j * kFlashKeys;
            if (kb0 <= wlast) {  // (warp-uniform) some row of the warp sees keys of this tile
                const unsigned char *kt = ks + (j % NST) * KT, *vt = vs + (j % NST) * VT;
                // S for the tile's 64 keys: sc[step][8-token tile][rows g: 0-1, g + 8: 2-3]; steps past the warp's
                // last row are -inf
                float sc[NS][2][4];
#pragma unroll
                for (int st = 0; st < NS; ++st) {
#pragma unroll
                    for (int tile = 0; tile < 2; ++tile) sc[st][tile][0] = sc[st][tile][1] = sc[st][tile][2] = sc[st][tile][3] = 0.0f;
                    if (kb0 + st * 16 <= wlast) {
#pragma unroll
                        for (int tile = 0; tile < 2; ++tile) {
#pragma unroll
                            for (int jj = 0; jj < KP; ++jj) {
                                const uint4 kw = *reinterpret_cast<const uint4 *>(kt + (st * 16 + tile * 8 + g) * KR + jj * 64 + c * 16);
                                mma16816x4<T>(sc[st][tile], qa[jj].x, qb[jj].x, qa[jj].y, qb[jj].y, kw.x, kw.y);
                                mma16816x4<T>(sc[st][tile], qa[jj].z, qb[jj].z, qa[jj].w, qb[jj].w, kw.z, kw.w);
                            }
                        }
                    }
                }
                float al0, al1, b0, b1;
                softmaxStep(sc, kb0, al0, al1, b0, b1, std::true_type{});
                rescale(al0, al1);
                // O += P V a step at a time; the values' B fragments by ldmatrix.trans: matrix mat = lane / 8 of a
                // pair of n-tiles is tokens 8 (mat & 1) + 0..7 at d = 8 (2 m + (mat >> 1)) + 0..7
                const unsigned char *vrow = vt + ((lane >> 3 & 1) * 8 + (lane & 7)) * VR + (lane >> 4) * 16;
#pragma unroll
                for (int st = 0; st < NS; ++st) {
                    if (kb0 + st * 16 > wlast) break;
                    uint32_t a[4];
                    probs(sc, st, b0, b1, a);
#pragma unroll
                    for (int m = 0; m < NT / 2; ++m) {
                        uint32_t v0, v1, v2, v3;
                        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                                     : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                                     : "r"(smemAddr(vrow + st * 16 * VR + m * 32)));
                        mma16816x4<T>(acc[2 * m], a[0], a[1], a[2], a[3], v0, v1);
                        mma16816x4<T>(acc[2 * m + 1], a[0], a[1], a[2], a[3], v2, v3);
                    }
                }
            }
            __syncthreads();  // every warp is done with the stage the next issue overwrites
        }
    }
    if constexpr (!kMB) cpAsyncWait<0>();  // (WG 2: every copy is a key tile's, waited for by its full mbarrier)
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    // the lane's outputs of a row: d = 8 nt + 2 c, 8 nt + 2 c + 1 from acc[nt][e], acc[nt][e + 1]
    auto store = [&](int r, int e, float l) {
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        T *o = out + static_cast<long long>(tl.r0 + wr0 + r) * p.o_row + head * p.o_head + 2 * c;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) *reinterpret_cast<uint32_t *>(o + 8 * nt) = packPair<T>(acc[nt][e] * inv, acc[nt][e + 1] * inv);
    };
    if constexpr (WG != 0) {
        // the rows through the warp's buffer (its query rows were read long before): fragments by stmatrix, then
        // 16 bytes a lane, a row's 256 (D 128) consecutive (4-byte stores straight from the fragments, 8 rows a
        // store instruction, took ~1.5 us a block)
        const float i0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, i1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
        const int mat = lane >> 3, r = (lane & 7) + 8 * (mat & 1);
#pragma unroll
        for (int nt = 0; nt < NT; nt += 2) {
            stMatrix4(smemAddr(rbuf + r * (D * 2) + (((nt + (mat >> 1)) ^ (r & 7)) << 4)), packPair<T>(acc[nt][0] * i0, acc[nt][1] * i0),
                      packPair<T>(acc[nt][2] * i1, acc[nt][3] * i1), packPair<T>(acc[nt + 1][0] * i0, acc[nt + 1][1] * i0),
                      packPair<T>(acc[nt + 1][2] * i1, acc[nt + 1][3] * i1));
        }
        __syncwarp();
        T *orow = out + static_cast<long long>(tl.r0 + wr0) * p.o_row + head * p.o_head + (lane % CPR) * 8;
#pragma unroll
        for (int i = 0; i < 16 / RPP; ++i) {
            const int rr = lane / CPR + RPP * i;
            if (rr < wn) {
                *reinterpret_cast<uint4 *>(orow + rr * p.o_row) =
                    *reinterpret_cast<const uint4 *>(rbuf + rr * (D * 2) + (((lane % CPR) ^ (rr & 7)) << 4));
            }
        }
    } else {
        if (g < wn) store(g, 0, l0);
        if (g + 8 < wn) store(g + 8, 2, l1);
    }
    run.gbase += ntiles;
    run.ahead = nextAhead();
    run.k += 1;
#endif
}

template <Mode M, typename T, int D, int G4, int WG>
__global__ void __launch_bounds__(kFlashWarps * 32, 1) flashKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc,
                                                                  const void *bt, const int4 *tiles, DeviceError *err,
                                                                  const void *lens, const void *cu) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // (launched as a dependent on Hopper: launchEx. A prefill whose blocks find their own tiles reads nothing the
    // check kernel before it (launched plainly) writes; its gathered form waits for the gather once it has its tile)
    if (!(M == Mode::kPrefill && p.self_tiles != kTilesList)) waitForPrerequisites();
    constexpr int RB = 16 * (kFlashWarps / G4);  // rows a block
    const int cnt = M == Mode::kPrefill && p.self_tiles == kTilesList ? tiles[0].x : 0;  // (after the wait above)
    if constexpr (WG == 2) {
        // Persistent (grid: at most one block an SM): the (heads / G4) x (row tiles) tiles in the order the hardware
        // would place them (blocks of heads fastest; the last row tiles, the most keys, first), block b taking tile
        // k P + b in even rounds and k P + P - 1 - b in odd ones (P blocks; a long tile of one round and a short one
        // of the next), so that each tile's query rows and first key tiles are issued in its predecessor's last
        // iterations (FlashRun). Per-tile stamps (H100, 40th session, probe/flash_stamps.py, attention 4096): the
        // first key tile's wait 1.50 -> 0.58 us, the gap between an SM's tiles 0.26 -> 0.06; with the next tile's
        // copies in the main loop its tiles took 1.056 -> 1.147 us each (the last PF iterations are now apart).
        // The tool, a block a tile -> persistent, us (SDPA): attention 2048 92.4 (99.4) -> 88.8 (99.5), 4096 302.4
        // (278.1) -> 286.8 (280.0); prefill 1 x 4096 309.2 (263.6) -> 297.1 (264.5). With P equal to the tiles (the
        // launch's choice elsewhere) each block takes one tile, in the hardware's order.
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
// empty one cost 3-5 us): a call all of one form costs what that form's kernel did (H100, without the gather: 16 x
// 128 / 2048 217.39 vs 217.38 us, 64 x 32 / 2048 250.64 vs 249.82).
template <typename T, int D, int G4>
__global__ void __launch_bounds__(kFlashWarps * 32, 1) flashSplitKernel(AttnParams p, AttnParams pg, T *out, const T *q, const T *kc,
                                                                       const T *vc, const T *kg, const T *vg, const void *bt,
                                                                       DeviceError *err, const void *lens, const void *cu) {
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
// and costs ~4-8 us where none does (the gather's blocks only scan, then the tiled kernel starts). H100, bf16, 32/8
// heads of 128, blocks of 16, seqs x query rows / keys, all paged -> split, us (39th session, calls 8-9): 1 x 4096
// / 4096 + 31 x 1 / 4096 611.6 -> 536.4, 2 x 1024 / 3072 + 62 x 1 / 2048 469.2 -> 431.8, 1 x 2048 / 2048 + 63 x 1
// / 2048 335.5 -> 325.4, 1 x 1024 / 1024 + 31 x 32 / 1024 114.9 -> 114.4; and none gathered: 16 x 128 / 2048
// 221.7 -> 227.6, 64 x 32 / 2048 249.8 -> 257.2, 8 x 256 / 2048 211.9 -> 217.9, 16 x 128 / 4096 403.2 -> 407.7;
// with tables of 1024 tokens (left out): 4 x 512 / 512 + 60 x 1 / 1024 167.8 -> 175.5, 32 x 64 / 1024 135.2 ->
// 144.1.
inline bool flashSplitPays(const AttnParams &p) {
    return !flashGatherPays(p) && p.rows >= 2048 && p.max_tokens >= 2048;
}

// The tiled kernel's plan for paged_attention_prefill (M = kPrefill) and attention (kDense), or false
// when the dtype, head_dim, alibi or strides are not its own; ws: the tile list's bytes (prefill).
// The tiled kernel's launch for dtype TT under plan f (makeFlash): the prefill's checks and tile list, its gather
// where the plan has one, then the kernel of the plan's form.
template <Mode M, typename TT>
infiniStatus_t flashRun(const FlashPlan &f, const LaunchArgs &a) {
    const AttnParams &p = f.p, &pg = f.pg;
    const size_t g_off = f.g_off, g_bytes = f.g_bytes;
    const long long slots = f.slots, cap = f.cap;
    const int form = f.form, G4 = f.G4, rb = f.rb;
    // (Hopper: the tiled kernel, and the gather, launched as programmatic dependents of the kernel before
    // them, H100, 38th session: prefill 4 x 64 15.9 -> 14.7 us, 1 x 512 25.7 -> 24.8, 4 x 1024 133.1 -> 130.8;
    // attention 1024 38.8 -> 37.7, 2048 101.0 -> 99.9; and with the kernels before them letting them be placed
    // at their start (dependentsMayLaunch): 4 x 64 15.15 -> 14.70, 1 x 512 25.14 -> 24.83, attention 1024
    // 38.03 -> 37.41, 2048 100.19 -> 99.46; INFINI_PDL=0 turns it off, as for every kernel: opsDependent)
    const bool wg = flashWgmma(), pdl = wg && opsDependent();
    const bool pre = M == Mode::kPrefill;
    const void *q = a.data[pre ? 1 : 3], *kc = a.data[pre ? 2 : 1], *vc = a.data[pre ? 3 : 2], *bt = pre ? a.data[4] : nullptr;
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
        // sequence, which the hardware's placement balances and a fixed round-robin did not: 4 x 1024 118.6 ->
        // 157.8 us); see flashKernel)
        const long long items = p.heads / GG * cap;
        const bool persist = WW == 2 && (M == Mode::kDense || p.seqs == 1);
        dim3 grid = WW == 2 ? dim3(static_cast<unsigned>(persist ? std::min<long long>(items, smCount()) : items), 1)
                            : dim3(static_cast<unsigned>(p.heads / GG), static_cast<unsigned>(cap));
        launchEx(kern, grid, kFlashWarps * 32, kFlashSmem<M, DD, WW>, a.stream, 0, pdl, pk, static_cast<T *>(a.data[0]),
                 static_cast<const T *>(q), static_cast<const T *>(k), static_cast<const T *>(v), bt, tiles, a.err, lens, cu);
    };
    auto byW = [&](auto ttag, auto dtag, auto gtag) {
        using I0 = std::integral_constant<int, 0>;
        using I1 = std::integral_constant<int, 1>;
        using I2 = std::integral_constant<int, 2>;
        if constexpr (M == Mode::kDense) {
            if (!wg) flash(ttag, dtag, gtag, I0{}, p, kc, vc);
            else flash(ttag, dtag, gtag, I2{}, p, kc, vc);
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
                dim3 ggrid(static_cast<unsigned>(gx), static_cast<unsigned>(p.kv_heads), static_cast<unsigned>(form == 2 ? 1 : slots));
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
                    // the gather ran, it took 3-5 us more where nothing is gathered: 16 x 128 / 2048 230.9 vs
                    // 227.6, 64 x 32 / 2048 262.2 vs 257.2; and at most 2.3 us less where some is, H100)
                    launchEx(kern, grid, kFlashWarps * 32, smem, a.stream, 0, false, p, pg, static_cast<T *>(a.data[0]),
                             static_cast<const T *>(q), static_cast<const T *>(kc), static_cast<const T *>(vc),
                             reinterpret_cast<const T *>(gk), reinterpret_cast<const T *>(gv), bt, a.err, lens, cu);
                }
            }
        }
    };
    auto byG = [&](auto ttag, auto dtag) {
        if (G4 == 4) byW(ttag, dtag, std::integral_constant<int, 4>{});
        else if (G4 == 2) byW(ttag, dtag, std::integral_constant<int, 2>{});
        else byW(ttag, dtag, std::integral_constant<int, 1>{});
    };
    if (p.d == 64) byG(TypeTag<TT>{}, std::integral_constant<int, 64>{});
    else byG(TypeTag<TT>{}, std::integral_constant<int, 128>{});
    return launched(M == Mode::kPrefill ? "paged_attention_prefill" : "attention");
}

template <Mode M>
bool makeFlash(AttnParams p, infiniDtype_t dtype, bool has_alibi, Launch *launch, size_t *ws) {
    if (dtype != INFINI_DTYPE_F16 && dtype != INFINI_DTYPE_BF16) return false;
    if ((p.d != 64 && p.d != 128) || has_alibi || p.rows < 16 || !(p.scale >= 0.0f && p.scale < INFINITY)) return false;
    if (!alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2, p.q_row, p.q_head, p.o_row, p.o_head}, 8)) return false;
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
        const double total = 2.0 * static_cast<double>(slots) * static_cast<double>(p.kv_heads) * static_cast<double>(L) * p.d * 2.0;
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
    if constexpr (M == Mode::kPrefill) {  // (each dtype's kernels in their own unit)
        *launch = [f, bf](const LaunchArgs &a) { return bf ? flashPrefillBf16(f, a) : flashPrefillF16(f, a); };
    } else {
        *launch = [f, bf](const LaunchArgs &a) { return bf ? flashRun<M, __nv_bfloat16>(f, a) : flashRun<M, __half>(f, a); };
    }
    return true;
}

// The tiled kernel where the call's tensors 0-3 (out, q and the caches, in either op's order) start on 16
// bytes, else the general one (checked per call: the plan is made for shapes and strides only).
Launch flashOr(Launch flash, Launch generic) {
    return [flash = std::move(flash), generic = std::move(generic)](const LaunchArgs &a) {
        const bool al = aligned16(a.data[0]) && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[3]);
        return al ? flash(a) : generic(a);
    };
}

#ifdef INFINI_ATTN_DENSE
// Decode-sized attention calls (under 16 rows: the tiled kernel does not take them) run the paged decode
// fast path over the dense cache viewed as pages of B = 16 (or 8) rows with the identity as block table,
// row r a sequence of pos + r + 1 tokens (its length read off the same table: kIota, 0, 1, 2, ... in device
// memory). H200, bf16, 32/8 heads of 128, one row after 2047: the general kernel took 54.9 us (SDPA 21.6).
constexpr int kIotaCount = 1 << 16;
struct Iota {
    int v[kIotaCount];
    constexpr Iota() : v() {
        for (int i = 0; i < kIotaCount; ++i) v[i] = i;
    }
};
__device__ const Iota kIota{};

// The table's address on device dev (asked once a device; nullptr if it cannot be had).
const int *iotaOn(int dev) {
    static std::atomic<const int *> cache[64];
    if (dev < 0 || dev >= 64) return nullptr;
    const int *p = cache[dev].load(std::memory_order_relaxed);
    if (!p) {
        void *addr = nullptr;
        if (cudaGetSymbolAddress(&addr, kIota) != cudaSuccess) {
            cudaGetLastError();
            return nullptr;
        }
        p = static_cast<const int *>(addr);
        cache[dev].store(p, std::memory_order_relaxed);
    }
    return p;
}

// The plan for attention's params p (dense cache kc / vc), or false where the fast path does not take it.
bool makeDenseDecode(AttnParams p, const Layout &kc, const Layout &vc, infiniDtype_t dtype, Made *made) {
    const long long max_seq = static_cast<long long>(kc.shape[1]);
    // pages of 16 or 8 tokens along the cache's rows: the kernel reads whole pages, so those the call reads
    // (its keys [0, pos + rows) rounded up to a page) must lie inside them
    auto fits = [&](long long b) { return (p.pos + p.rows + b - 1) / b * b <= max_seq; };
    const int B = fits(16) ? 16 : (fits(8) ? 8 : 0);
    if (B == 0 || p.rows >= 16 || p.rows == 0 || p.pos + p.rows + 1 > kIotaCount || max_seq / B > kIotaCount) return false;
    p.k_s0 = B * kc.strides[1];
    p.k_s1 = kc.strides[0];
    p.k_s2 = kc.strides[1];
    p.v_s0 = B * vc.strides[1];
    p.v_s1 = vc.strides[0];
    p.v_s2 = vc.strides[1];
    p.block_size = B;
    p.block_shift = B == 16 ? 4 : 3;
    p.num_blocks = max_seq / B;
    p.bt_s0 = 0;
    p.bt_s1 = 1;
    p.bt64 = p.len64 = false;
    p.len_s0 = 1;
    p.max_tokens = p.pos + p.rows;
    p.seqs = p.rows;
    return makeDecodeFast(p, dtype, false, made);
}

// The decode plan where out, q and the caches start on 16 bytes (checked per call), else other.
Launch denseDecodeOr(Launch dec, Launch other, long long pos) {
    return [dec = std::move(dec), other = std::move(other), pos](const LaunchArgs &a) -> infiniStatus_t {
        const int *iota = iotaOn(a.device);
        const bool al = aligned16(a.data[0]) && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[3]);
        if (!iota || !al) return other(a);
        // paged_attention's tensors: out, q, k_cache, v_cache, block_tables, seq_lens, alibi
        void *data[7] = {a.data[0], a.data[3], a.data[1], a.data[2], const_cast<int *>(iota), const_cast<int *>(iota + pos + 1), nullptr};
        LaunchArgs b = a;
        b.data = data;
        return dec(b);
    };
}
#endif  // INFINI_ATTN_DENSE

}  // namespace

#ifdef INFINI_ATTN_DECODE  // paged_attention: the general kernel and the decode fast path
infiniStatus_t makePagedAttention(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "paged_attention";
    Layout out = layoutOf(prm.tensors[0]), q = layoutOf(prm.tensors[1]), kc = layoutOf(prm.tensors[2]), vc = layoutOf(prm.tensors[3]),
           bt = layoutOf(prm.tensors[4]), lens = layoutOf(prm.tensors[5]), alibi = layoutOf(prm.tensors[6]);
    bool has_alibi = prm.tensors[6] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedDecode(out, q, kc, vc, bt, lens, alibi, has_alibi));
    AttnParams p = pagedParams(out, q, kc, vc, bt, lens, alibi, has_alibi, static_cast<float>(prm.f[0]), INFINIOP_OP_PAGED_ATTENTION);
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2}, 8);
    Made generic, fast;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kDecode>(op, p, q.dtype, p.max_tokens, 1, 2, 3, 4, 5, -1, has_alibi ? 6 : -1,
                                                      aligned, &generic));
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
#endif  // INFINI_ATTN_DECODE

#ifdef INFINI_ATTN_PREFILL
infiniStatus_t flashPrefillF16(const FlashPlan &f, const LaunchArgs &a) { return flashRun<Mode::kPrefill, __half>(f, a); }
#endif
#ifdef INFINI_ATTN_PREFILL_BF16
infiniStatus_t flashPrefillBf16(const FlashPlan &f, const LaunchArgs &a) { return flashRun<Mode::kPrefill, __nv_bfloat16>(f, a); }
#endif

#ifdef INFINI_ATTN_PREFILL  // paged_attention_prefill: the general kernel and the tiled one's paged forms
infiniStatus_t makePagedAttentionPrefill(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "paged_attention_prefill";
    Layout out = layoutOf(prm.tensors[0]), q = layoutOf(prm.tensors[1]), kc = layoutOf(prm.tensors[2]), vc = layoutOf(prm.tensors[3]),
           bt = layoutOf(prm.tensors[4]), lens = layoutOf(prm.tensors[5]), cu = layoutOf(prm.tensors[6]), alibi = layoutOf(prm.tensors[7]);
    bool has_alibi = prm.tensors[7] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedPrefill(out, q, kc, vc, bt, lens, cu, alibi, has_alibi));
    size_t seqs = bt.shape[0];
    AttnParams p = pagedParams(out, q, kc, vc, bt, lens, alibi, has_alibi, static_cast<float>(prm.f[0]),
                               INFINIOP_OP_PAGED_ATTENTION_PREFILL);
    p.cu64 = cu.dtype == INFINI_DTYPE_I64;
    p.cu_s0 = cu.strides[0];
    if (seqs == 0 && p.rows > 0) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: q has rows but there are no sequences", op);
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.k_s2, p.v_s0, p.v_s1, p.v_s2}, 8);
    Made generic;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kPrefill>(op, p, q.dtype, p.max_tokens, 1, 2, 3, 4, 5, 6, has_alibi ? 7 : -1, aligned,
                                                       &generic));
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
#endif  // INFINI_ATTN_PREFILL

#ifdef INFINI_ATTN_DENSE  // attention (and its decode-sized calls' use of the decode fast path)
infiniStatus_t makeAttention(const infiniopOpParams_t &prm, int, Made *m) {
    const char *op = "attention";
    Layout out = layoutOf(prm.tensors[0]), kc = layoutOf(prm.tensors[1]), vc = layoutOf(prm.tensors[2]), q = layoutOf(prm.tensors[3]),
           k = layoutOf(prm.tensors[4]), v = layoutOf(prm.tensors[5]);
    long long pos = prm.i[0];
    INFINI_RETURN_IF_ERROR(checks::attention(out, kc, vc, q, k, v, pos));
    size_t heads = q.shape[0], seq = q.shape[1], d = q.shape[2];
    AttnParams p{};
    p.q_row = q.strides[1];
    p.q_head = q.strides[0];
    p.o_row = out.strides[1];
    p.o_head = out.strides[0];
    p.rows = seq;
    p.heads = heads;
    p.kv_heads = k.shape[0];
    p.group = heads / k.shape[0];
    p.d = d;
    p.scale = 1.0f / sqrtf(static_cast<float>(d));
    p.k_s0 = kc.strides[0];
    p.k_s1 = kc.strides[1];
    p.v_s0 = vc.strides[0];
    p.v_s1 = vc.strides[1];
    p.pos = pos;
    p.op = INFINIOP_OP_ATTENTION;
    bool aligned = alignedRows({p.k_s0, p.k_s1, p.v_s0, p.v_s1}, 8);
    Made attend;
    INFINI_RETURN_IF_ERROR(planAndMake<Mode::kDense>(op, p, q.dtype, pos + static_cast<long long>(seq), 3, 1, 2, -1, -1, -1, -1,
                                                     aligned, &attend));
    long long kvh = k.shape[0], nseq = seq, dd = d;
    auto ks = k.strides, vs = v.strides, kcs = kc.strides, vcs = vc.strides;
    Launch run_attend = attend.launch, flash;
    size_t flash_ws = 0;
    if (makeFlash<Mode::kDense>(p, q.dtype, false, &flash, &flash_ws)) run_attend = flashOr(std::move(flash), std::move(run_attend));
    m->workspace = attend.workspace;
    Made dec;
    if (makeDenseDecode(p, kc, vc, q.dtype, &dec)) {
        run_attend = denseDecodeOr(std::move(dec.launch), std::move(run_attend), pos);
        m->workspace = std::max(m->workspace, dec.workspace);
    }
    return INFINI_NV_DISPATCH_FLOAT(q.dtype, op, {
        // the 16-byte append where rows are whole pieces and every stride a multiple of one (checked here) and
        // the four tensors start on 16 bytes (checked per call)
        const long long es = sizeof(T), cpr = dd * es / 16;
        bool vec = dd * es % 16 == 0 && nseq * cpr < (1LL << 30) && kvh <= 65535;
        for (long long st : {ks[0], ks[1], vs[0], vs[1], kcs[0], kcs[1], vcs[0], vcs[1]}) vec = vec && st * es % 16 == 0;
        m->launch = [=](const LaunchArgs &a) {
            long long total = kvh * nseq * dd;
            if (total > 0 && vec && aligned16(a.data[1]) && aligned16(a.data[2]) && aligned16(a.data[4]) && aligned16(a.data[5])) {
                const long long n = nseq * cpr;
                dim3 grid(static_cast<unsigned>(std::min((n + 511) / 512, 4096LL)), static_cast<unsigned>(kvh));
                launchOp(appendKernel16, grid, 256, 0, a.stream, static_cast<char *>(a.data[1]), static_cast<char *>(a.data[2]),
                         static_cast<const char *>(a.data[4]), static_cast<const char *>(a.data[5]),
                         static_cast<int>(nseq), static_cast<int>(cpr), pos, kcs[0] * es, kcs[1] * es,
                         vcs[0] * es, vcs[1] * es, ks[0] * es, ks[1] * es, vs[0] * es, vs[1] * es);
                INFINI_RETURN_IF_ERROR(launched(op));
            } else if (total > 0) {
                launchOp(appendKernel<T>, blocksFor(total, 256, 132LL * 16), 256, 0, a.stream,
                    static_cast<T *>(a.data[1]), static_cast<T *>(a.data[2]), static_cast<const T *>(a.data[4]),
                    static_cast<const T *>(a.data[5]), kvh, nseq, dd, pos, kcs[0], kcs[1], vcs[0], vcs[1], ks[0], ks[1], vs[0], vs[1]);
                INFINI_RETURN_IF_ERROR(launched(op));
            }
            return run_attend(a);
        };
    });
}
#endif  // INFINI_ATTN_DENSE

}  // namespace infini::nvidia::ops
