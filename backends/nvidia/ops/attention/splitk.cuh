// attention/splitk.cuh: the general attention kernel (every dtype, head_dim and alibi, every mode; the calls the
// decode and tiled kernels do not take), split-K: a block takes one query row, the query heads that share one kv
// head, and one partition of the keys. Scores: each lane of a warp takes its own key row (the warp's 32 rows stay
// in L1 while it reads them 16 bytes at a time) and dots it with the group's queries held as floats in shared
// memory; softmax within the partition; values: threads split head_dim into 16-byte chunks and the tokens into
// groups. Partitions are merged by a second kernel (log-sum-exp, combineKernel) when there are several.
#pragma once

#include "params.cuh"

namespace infini::nvidia::ops::attn {

constexpr int kThreads = 128;
constexpr int kSmemBytes = 48 * 1024;

struct RowMeta {
    long long seq, n, qpos;  // n keys visible; qpos the query's position
};

// A decode row's key count from its seq_lens entry n: 0 where n is outside [0, max_tokens] (reported if `report`).
__device__ __forceinline__ long long decodeLength(const AttnParams &p, long long row, long long n, DeviceError *err,
                                                  bool report) {
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
            if (readIndex(cu, p.cu64, mid * p.cu_s0) <= row)
                lo = mid;
            else
                hi = mid;
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
__global__ void __launch_bounds__(kThreads)
    attendKernel(AttnParams p, T *out, const T *q, const T *kc, const T *vc, const void *bt, const void *lens,
                 const void *cu, const float *alibi, float *part_out, float *part_ml, DeviceError *err) {
    extern __shared__ float smem[];
    long long part = blockIdx.x, g = blockIdx.y, row = blockIdx.z;
    RowMeta meta = rowMeta<M>(p, row, lens, cu, err, part == 0 && g == 0 && threadIdx.x == 0);
    long long t0 = part * p.part_len, t1 = min(meta.n, t0 + p.part_len);
    long long d = p.d;
    int ntok = t1 > t0 ? static_cast<int>(t1 - t0) : 0;
    float *scores = smem;                  // [GC][part_len]
    float *qs = scores + GC * p.part_len;  // [GC][d]
    float *acc = qs + GC * d;              // [GC][d]
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
                if (alibi != nullptr && hh < hc)
                    sc += alibi[(head0 + hh) * p.alibi_s0] * static_cast<float>(t - meta.qpos);
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
// between the loads, which measured faster); else an empty part's output is not read (a workspace slot its block
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

// Chooses heads per pass and partition length, the workspace, and returns the launch. Each mode's instantiation is
// made by its op's unit alone (its SmemAllowance statics are that unit's kernels').
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
            if constexpr (M == Mode::kPrefill)
                flashTilesKernel<<<1, 256, 0, a.stream>>>(p, lens, cu, 1, 0, nullptr, a.err);
            dim3 grid(static_cast<unsigned>(p.parts), static_cast<unsigned>(p.kv_heads), static_cast<unsigned>(p.rows));
            auto go = [&](auto vtag, auto gtag) {
                constexpr int VV = decltype(vtag)::value, GG = decltype(gtag)::value;
                auto kern = attendKernel<M, T, VV, GG>;
                static SmemAllowance allowance;      // the most shared memory any plan uses
                allowance.ensure(kern, kSmemBytes);  // (if refused, the launch reports it)
                kern<<<grid, kThreads, smem, a.stream>>>(p, out, q, kc, vc, bt, lens, cu, alibi, part_out, part_ml,
                                                         a.err);
            };
            auto byGroup = [&](auto vtag) {
                switch (p.gc) {
                    case 8: go(vtag, std::integral_constant<int, 8>{}); break;
                    case 4: go(vtag, std::integral_constant<int, 4>{}); break;
                    case 2: go(vtag, std::integral_constant<int, 2>{}); break;
                    default: go(vtag, std::integral_constant<int, 1>{}); break;
                }
            };
            if (v)
                byGroup(std::integral_constant<int, V>{});
            else
                byGroup(std::integral_constant<int, 1>{});
            if (p.parts > 1) {
                combineKernel<T>
                    <<<dim3(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.rows)), 128, 0, a.stream>>>(
                        p, out, part_out, part_ml);
            }
            return launched(op);
        };
    });
}

}  // namespace infini::nvidia::ops::attn
