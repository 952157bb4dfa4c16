// sampling.cu: topk_softmax (a warp per row, k rounds of a warp arg-max) and random_sample (a cluster of
// blocks or a block per row, no full sort: radix selection over order-preserving 32-bit keys finds the
// k-th best logit, the few candidates at or above it are sorted, and the position where the cumulative
// probability crosses the threshold is read off; with many candidates - top-p alone - a radix search by
// probability mass finds the crossing key directly; see OPS.md). A block keeps its slice of the row in shared
// memory where it fits, so only the first pass reads global memory.
#include <cooperative_groups.h>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

// ---- topk_softmax ---------------------------------------------------------------------------------
// (p, i) ranks before (q, j) when p > q, or p == q and i < j.
__device__ __forceinline__ bool ranksBefore(float p, long long i, float q, long long j) {
    return p > q || (p == q && i < j);
}

template <typename T>
__global__ void topkSoftmaxKernel(float *w, long long *idx, const T *x, long long rows, long long experts, int k,
                                  bool renormalize, long long xs0, long long ws0, long long is0) {
    opEntry();
    int lane = threadIdx.x % 32;
    long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const T *xr = x + row * xs0;
    float m = -INFINITY;
    for (long long j = lane; j < experts; j += 32) m = fmaxf(m, toF(xr[j]));
    m = warpMax(m);
    float total = 0.0f;
    for (long long j = lane; j < experts; j += 32) total += __expf(toF(xr[j]) - m);
    total = warpSum(total);
    float inv = 1.0f / total;
    float prev_p = INFINITY, picked = 0.0f;
    long long prev_i = -1;
    for (int r = 0; r < k; ++r) {
        float best_p = -1.0f;
        long long best_i = experts;
        for (long long j = lane; j < experts; j += 32) {
            float p = __expf(toF(xr[j]) - m) * inv;
            if (ranksBefore(prev_p, prev_i, p, j) && ranksBefore(p, j, best_p, best_i)) {
                best_p = p;
                best_i = j;
            }
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            float op = __shfl_xor_sync(0xffffffffu, best_p, o);
            long long oi = __shfl_xor_sync(0xffffffffu, best_i, o);
            if (ranksBefore(op, oi, best_p, best_i)) {
                best_p = op;
                best_i = oi;
            }
        }
        if (lane == 0) {
            w[row * ws0 + r] = best_p;
            idx[row * is0 + r] = best_i;
        }
        picked += best_p;
        prev_p = best_p;
        prev_i = best_i;
    }
    if (renormalize) {
        __syncwarp();
        for (int r = lane; r < k; r += 32) w[row * ws0 + r] /= picked;
    }
}

// ---- random_sample --------------------------------------------------------------------------------
__device__ __forceinline__ unsigned keyOf(float f) {
    unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// The float whose key keyOf gives (every element with one key has the same value).
__device__ __forceinline__ float valueOfKey(unsigned key) {
    return __uint_as_float((key & 0x80000000u) ? (key & 0x7fffffffu) : ~key);
}

// Inclusive prefix sum over the block in thread order; warp_tot: 32 entries of shared memory (free
// again after the next __syncthreads).
template <typename V>
__device__ __forceinline__ V blockInclusiveScan(V x, V *warp_tot) {
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        V v = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += v;
    }
    if (lane == 31) warp_tot[warp] = x;
    __syncthreads();
    V before = 0;
    for (int w = 0; w < warp; ++w) before += warp_tot[w];
    return before + x;
}

constexpr int kSampleThreads = 1024;

// Finds, over the elements with key matching `prefix` in the bits above `shift + 8`, the digit
// (bits shift..shift+7) where a running total from the top (largest keys first) first exceeds (count
// mode: reaches) `target`. counts/mass: 256-bin histograms in shared memory.
struct RadixState {
    unsigned prefix, mask;  // the key bits fixed so far
    long long above_count;  // elements strictly above the current prefix range
    float above_mass;       // their probability mass
    long long key_count;    // after the last digit: elements with exactly the key found
};

// Calls f(j, value, ok) for every element j of a row; every thread makes the same number of calls (ok
// false pads), so f may use warp-wide intrinsics. A row aligned to 16 bytes is read in 16-byte
// pieces, four in flight per thread: with one block per row the passes are bound by loads in flight.
template <typename T, typename F>
__device__ __forceinline__ void visitVocab(const T *xr, long long vocab, F &&f) {
    constexpr int V = kVec16<T>;
    constexpr int U = 4;  // 16-byte pieces in flight per thread
    long long done = 0;
    if ((reinterpret_cast<uintptr_t>(xr) & 15u) == 0) {
        const long long nvec = vocab / V;
        for (long long base = 0; base < nvec; base += U * static_cast<long long>(blockDim.x)) {
            float x[U][V];
            bool ok[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long q = base + threadIdx.x + u * static_cast<long long>(blockDim.x);
                ok[u] = q < nvec;
                if (ok[u]) {
                    loadF<T, V>(xr + q * V, x[u]);
                } else {
#pragma unroll
                    for (int e = 0; e < V; ++e) x[u][e] = 0.0f;
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long q = base + threadIdx.x + u * static_cast<long long>(blockDim.x);
#pragma unroll
                for (int e = 0; e < V; ++e) f(q * V + e, x[u][e], ok[u]);
            }
        }
        done = nvec * V;
    }
    for (long long base = done; base < vocab; base += blockDim.x) {
        const long long j = base + threadIdx.x;
        const bool ok = j < vocab;
        f(j, ok ? toF(xr[j]) : 0.0f, ok);
    }
}

// Calls f(j, value, ok) for j over [0, n) of a row slice held in shared memory, with visitVocab's contract
// (every thread makes the same number of calls; ok false pads).
template <typename F>
__device__ __forceinline__ void visitCached(const float *s, long long n, F &&f) {
    constexpr int U = 4;
    for (long long base = 0; base < n; base += U * static_cast<long long>(blockDim.x)) {
        float v[U];
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long j = base + threadIdx.x + u * static_cast<long long>(blockDim.x);
            ok[u] = j < n;
            v[u] = ok[u] ? s[j] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) f(base + threadIdx.x + u * static_cast<long long>(blockDim.x), v[u], ok[u]);
    }
}

// The slice of a row each of a cluster's C blocks takes: whole 64-element pieces (C = 1: the row).
__host__ __device__ __forceinline__ long long sampleSlice(long long vocab, int C) {
    return C == 1 ? vocab : ((vocab + C - 1) / C + 63) / 64 * 64;
}

// The most shared memory a block keeps its row slice in (as float), and so the longest slice kept.
constexpr int kResidentBytes = 176 * 1024;

// A row over a cluster of C blocks (C = 1: one block): each block takes a slice of the row (whole 64-element
// pieces, in index order), and the blocks merge what they found through distributed shared memory; every block
// then takes the same decisions from the same merged values (summed in rank order). With `resident` the first
// pass (arg-max and normalizer) also keeps the slice in dynamic shared memory as float and every later pass
// reads it there; else each pass reads the row again. The passes: the radix digits of the k-th key (count
// search), then either (few candidates: at most kSampleThreads keys at or above a prefix) the candidates,
// gathered in rank 0's shared memory, sorted there and their probabilities scanned as the reference does; or
// (many candidates: top-p over most of the row, or many ties) the radix digits of the crossing key by
// probability mass and the tie at it, in index order, over the cluster.
template <typename T, int C>
__global__ void __launch_bounds__(kSampleThreads)
    randomSampleKernel(long long *out, const T *x, const float *rv, long long vocab, long long xs0, long long rs0,
                       long long os0, long long kk, float topp, float temp, bool sample, bool resident) {
    namespace cg = cooperative_groups;
    waitForPrerequisites();            // a dependent that waits only (launchOp's note)
    extern __shared__ float cached[];  // (resident) the block's slice
    __shared__ float smem[32];
    __shared__ unsigned counts[256];
    __shared__ float mass[256];
    __shared__ unsigned all_counts[256];  // (C > 1: the cluster's histogram)
    __shared__ float all_mass[256];
    constexpr int G = 8;  // mass mode: the block's warps add into G histograms (warp w into w % G), then folded
    __shared__ unsigned g_counts[G][256];
    __shared__ float g_mass[G][256];
    __shared__ RadixState st;
    __shared__ unsigned long long best_pack;
    __shared__ float pub_max, pub_sum;  // this block's maximum and normalizer, read by the cluster
    __shared__ unsigned cand_key[kSampleThreads];
    __shared__ int cand_idx[kSampleThreads];
    __shared__ float cand_cum[kSampleThreads];
    __shared__ int n_cand, pick;
    __shared__ unsigned warp_tot[32];
    __shared__ long long found, win_total;
    const long long row = blockIdx.x / C;
    const int rank = static_cast<int>(blockIdx.x % C);  // (clusters of C blocks along x: the block's rank)
    const int lane = static_cast<int>(threadIdx.x % 32);
    const T *xr = x + row * xs0;
    // the block's slice [lo, lo + n) of the row
    const long long per = sampleSlice(vocab, C);
    const long long lo = C == 1 ? 0 : min(vocab, rank * per), n = C == 1 ? vocab : min(vocab, lo + per) - lo;
    const T *xs = xr + lo;
    // sync: the cluster's barrier (every block's shared memory writes before it are seen after it); at(p, r):
    // p's counterpart in rank r's shared memory
    auto sync = [] {
        if constexpr (C > 1)
            cg::this_cluster().sync();
        else
            __syncthreads();
    };
    auto at = [](auto *p, int r) {
        if constexpr (C > 1)
            return cg::this_cluster().map_shared_rank(p, r);
        else
            return p;
    };
    // every pass after the first: over the cached slice, or the slice in global memory
    auto visit = [&](auto &&f) {
        if (resident)
            visitCached(cached, n, f);
        else
            visitVocab(xs, n, f);
    };
    // arg-max (ties: lower index) and the softmax normalizer, in one pass: each thread keeps its
    // running max and its sum of exp((v - max) / temperature), rescaled when the max rises
    const float inv_t = 1.0f / temp;
    float m = -INFINITY, s = 0.0f;
    long long arg = vocab;
    const bool keep = resident && sample;
    visitVocab(xs, n, [&](long long j, float v, bool ok) {
        if (!ok) return;
        if (keep) cached[j] = v;
        if (v > m) {
            if (sample) s = s * __expf((m - v) * inv_t) + 1.0f;
            m = v;
            arg = lo + j;
        } else if (sample && v != -INFINITY) {
            s += __expf((v - m) * inv_t);
        }
    });
    float bm = blockMax(m, smem);
    if constexpr (C > 1) {
        if (threadIdx.x == 0) pub_max = bm;
        sync();
        for (int r = 0; r < C; ++r) bm = fmaxf(bm, *at(&pub_max, r));
    }
    if (threadIdx.x == 0) best_pack = ~0ull;
    __syncthreads();
    if (m == bm && arg < vocab) atomicMin(&best_pack, static_cast<unsigned long long>(arg));
    __syncthreads();
    float total = sample ? blockSum(m == -INFINITY ? 0.0f : s * __expf((m - bm) * inv_t), smem) : 0.0f;
    unsigned long long best = best_pack;
    if constexpr (C > 1) {
        if (threadIdx.x == 0) pub_sum = total;
        sync();
        total = 0.0f;
        for (int r = 0; r < C; ++r) {
            total += *at(&pub_sum, r);
            best = min(best, *at(&best_pack, r));
        }
    }
    const long long argmax = best == ~0ull ? 0 : static_cast<long long>(best);
    if (!sample) {
        if (threadIdx.x == 0 && rank == 0) out[row * os0] = argmax;
        if constexpr (C > 1) sync();  // no block leaves while another may read its shared memory
        return;
    }
    float inv_total = 1.0f / total;
    auto probOf = [&](float v) { return __expf((v - bm) * inv_t) * inv_total; };

    // Radix search from the top. count mode: the kk-th largest key; mass mode: the key where the mass
    // from the top first exceeds target. Returns in st: prefix = that key, above_* = what lies above it.
    // count_only: counts without mass, warp-aggregated (lanes with the same digit add once)
    auto search = [&](bool count_mode, double target, bool count_only, long long stop_at) {
        // every thread has read the state the last search left (the candidates' count after the first: without
        // this barrier thread 0 could reset it first, and a late thread then take the candidates' path alone -
        // the block's threads at different barriers, which compute-sanitizer's racecheck and synccheck report)
        __syncthreads();
        if (threadIdx.x == 0) st = RadixState{0u, 0u, 0, 0.0f, 0};
        __syncthreads();
        for (int shift = 24; shift >= 0; shift -= 8) {
            for (int b = threadIdx.x; b < 256; b += blockDim.x) {
                counts[b] = 0;
                mass[b] = 0.0f;
            }
            __syncthreads();
            unsigned prefix = st.prefix, mask = st.mask;
            if (count_only) {  // lanes of a warp with the same digit add once
                visit([&](long long, float v, bool ok) {
                    int digit = 256;
                    if (ok) {
                        unsigned key = keyOf(v);
                        if ((key & mask) == prefix) digit = static_cast<int>((key >> shift) & 255u);
                    }
                    // after the first digit few elements still match: skip warps with none
                    if (!__any_sync(0xffffffffu, digit < 256)) return;
                    unsigned peers = __match_any_sync(0xffffffffu, digit);
                    if (digit < 256 && lane == __ffs(peers) - 1) {
                        atomicAdd(&counts[digit], static_cast<unsigned>(__popc(peers)));
                    }
                });
            } else {  // a thread sums a run of elements that share a digit before touching shared memory; the
                      // runs go to one of G histograms (the first digit's few bins would serialize one's atomics)
                for (int b = threadIdx.x; b < G * 256; b += blockDim.x) {
                    g_counts[b / 256][b % 256] = 0;
                    g_mass[b / 256][b % 256] = 0.0f;
                }
                __syncthreads();
                const int g = static_cast<int>(threadIdx.x / 32) % G;
                int run_digit = -1;
                unsigned run_count = 0;
                float run_mass = 0.0f;
                auto flush = [&] {
                    if (run_digit >= 0) {
                        atomicAdd(&g_counts[g][run_digit], run_count);
                        atomicAdd(&g_mass[g][run_digit], run_mass);
                    }
                };
                visit([&](long long, float v, bool ok) {
                    if (!ok) return;
                    unsigned key = keyOf(v);
                    if ((key & mask) != prefix) return;
                    int digit = static_cast<int>((key >> shift) & 255u);
                    if (digit != run_digit) {
                        flush();
                        run_digit = digit;
                        run_count = 0;
                        run_mass = 0.0f;
                    }
                    ++run_count;
                    run_mass += probOf(v);
                });
                flush();
                __syncthreads();
                for (int b = threadIdx.x; b < 256; b += blockDim.x) {  // folded in a fixed order
                    unsigned c = 0;
                    float v = 0.0f;
#pragma unroll
                    for (int h = 0; h < G; ++h) {
                        c += g_counts[h][b];
                        v += g_mass[h][b];
                    }
                    counts[b] = c;
                    mass[b] = v;
                }
            }
            sync();       // every block's histogram is complete
            if (C > 1) {  // the cluster's histogram: bin b summed over the ranks in rank order, a thread a bin
                for (int b = threadIdx.x; b < 256; b += blockDim.x) {
                    unsigned c = 0;
                    float v = 0.0f;
#pragma unroll
                    for (int r = 0; r < C; ++r) {
                        c += *at(&counts[b], r);
                        if (!count_only) v += *at(&mass[b], r);
                    }
                    all_counts[b] = c;
                    all_mass[b] = v;
                }
                __syncthreads();
            }
            const unsigned *hc = C == 1 ? counts : all_counts;
            const float *hm = C == 1 ? mass : all_mass;
            if (threadIdx.x < 32) {  // warp 0: lane l sums bins 255 - 8l .. 248 - 8l, then a scan from the top
                long long lc = 0;
                float lm = 0.0f;
                unsigned bc[8];  // (32 bits, as the bins: the host keeps vocab < 2^31)
                float bms[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    bc[i] = hc[255 - 8 * lane - i];
                    bms[i] = count_only ? 0.0f : hm[255 - 8 * lane - i];
                    lc += bc[i];
                    lm += bms[i];
                }
                long long ic = lc;
                float im = lm;
#pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    long long uc = __shfl_up_sync(0xffffffffu, ic, o);
                    float um = __shfl_up_sync(0xffffffffu, im, o);
                    if (lane >= o) {
                        ic += uc;
                        im += um;
                    }
                }
                long long base_c = st.above_count;
                float base_m = st.above_mass;
                bool hit = count_mode ? (base_c + ic >= static_cast<long long>(target))
                                      : (static_cast<double>(base_m + im) > target);
                unsigned ballot = __ballot_sync(0xffffffffu, hit);
                int first = ballot ? __ffs(ballot) - 1 : 31;
                __syncwarp();  // every lane has read st before lane `first` writes it (racecheck's warp-level WAR)
                if (lane == first) {
                    long long c = base_c + ic - lc;
                    float ms = base_m + im - lm;
                    int pick_bin = 0;
                    long long pick_count = 0;
                    for (int i = 0; i < 8; ++i) {
                        int b = 255 - 8 * lane - i;
                        bool h = count_mode ? (c + bc[i] >= static_cast<long long>(target))
                                            : (static_cast<double>(ms) + bms[i] > target);
                        if (h || b == 0) {
                            pick_bin = b;
                            pick_count = bc[i];
                            break;
                        }
                        c += bc[i];
                        ms += bms[i];
                    }
                    st.above_count = c;
                    st.above_mass = ms;
                    st.key_count = pick_count;
                    st.prefix |= static_cast<unsigned>(pick_bin) << shift;
                    st.mask |= 255u << shift;
                }
            }
            sync();  // (cluster: no block clears its histogram while another may still read it)
            // stop_at: enough digits once at most stop_at elements lie at or above the prefix (the
            // candidates are sorted afterwards, so the k-th key itself need not be pinned down)
            if (stop_at > 0 && st.above_count + st.key_count <= stop_at) break;
        }
    };

    // 1. the kk-th largest key, or a prefix at or above which few elements lie (with the slice in shared memory
    // a digit pass costs less than sorting more candidates: stop at about 2 kk)
    if (kk < vocab || vocab <= kSampleThreads) {
        const long long stop_at =
            resident ? min(static_cast<long long>(kSampleThreads), max(2 * kk, 128LL)) : kSampleThreads;
        search(true, static_cast<double>(kk), true, stop_at);
        unsigned kth0 = st.prefix;
        long long n_all = st.above_count + st.key_count;
        if (n_all <= kSampleThreads && blockDim.x == kSampleThreads) {
            int t = threadIdx.x;
            if (rank == 0) {
                cand_key[t] = 0u;  // sorts last
                cand_idx[t] = 0x7fffffff;
                if (t == 0) {
                    n_cand = 0;
                    pick = static_cast<int>(kk - 1);
                }
            }
            sync();  // rank 0's arrays are ready
            unsigned *ck = at(&cand_key[0], 0);
            int *ci = at(&cand_idx[0], 0), *nc = at(&n_cand, 0);
            visit([&](long long j, float v, bool ok) {  // a slot range per warp: one atomic a warp
                unsigned key = keyOf(v);
                bool take = ok && key >= kth0;
                unsigned ballot = __ballot_sync(0xffffffffu, take);
                if (!ballot) return;
                int leader = __ffs(ballot) - 1, slot0 = 0;
                if (lane == leader) slot0 = atomicAdd(nc, __popc(ballot));
                slot0 = __shfl_sync(0xffffffffu, slot0, leader);
                if (take) {
                    int slot = slot0 + __popc(ballot & ((1u << lane) - 1u));
                    if (slot < kSampleThreads) {
                        ck[slot] = key;
                        ci[slot] = static_cast<int>(lo + j);
                    }
                }
            });
            sync();  // every candidate is in rank 0's shared memory
            if (rank != 0) return;
            auto before = [&](int a, int b) {
                return cand_key[a] > cand_key[b] || (cand_key[a] == cand_key[b] && cand_idx[a] < cand_idx[b]);
            };
            // bitonic sort, "before" first, of the first len slots (a power of two at or above the candidates'
            // count; the slots past it hold the sentinel, already last)
            int len = 1;
            while (len < min(n_cand, kSampleThreads)) len <<= 1;
            for (int k2 = 2; k2 <= len; k2 <<= 1) {
                for (int j2 = k2 >> 1; j2 > 0; j2 >>= 1) {
                    int o = t ^ j2;
                    if (o > t && t < len) {
                        bool first_half = (t & k2) == 0;
                        bool swap = first_half ? before(o, t) : before(t, o);
                        if (swap) {
                            unsigned kt = cand_key[t];
                            cand_key[t] = cand_key[o];
                            cand_key[o] = kt;
                            int it = cand_idx[t];
                            cand_idx[t] = cand_idx[o];
                            cand_idx[o] = it;
                        }
                    }
                    __syncthreads();
                }
            }
            float pr = 0.0f;
            if (t < kk) pr = probOf(valueOfKey(cand_key[t]));
            cand_cum[t] = blockInclusiveScan(pr, smem);
            __syncthreads();
            float thr = fminf(cand_cum[kk - 1], topp) * rv[row * rs0];
            if (t < kk && cand_cum[t] > thr) atomicMin(&pick, t);
            __syncthreads();
            if (t == 0) out[row * os0] = cand_idx[pick];
            return;
        }
    }
    // 2. many candidates, over the cluster. The kk best's mass (all of it when kk covers the row), the
    // threshold, and the key where the mass from the top first exceeds it
    unsigned kth = 0u;
    long long gt_count = 0;
    float top_mass = 1.0f;
    if (kk < vocab) {
        search(true, static_cast<double>(kk), false, 0);  // with the mass this time
        kth = st.prefix;
        gt_count = st.above_count;
        // (every element with the kth key has the same value and probability)
        top_mass = st.above_mass + static_cast<float>(kk - gt_count) * probOf(valueOfKey(kth));
    }
    const float threshold = fminf(top_mass, topp) * rv[row * rs0];
    search(false, static_cast<double>(threshold), false, 0);  // (its first barrier orders the reads of st above)
    unsigned cross = st.prefix;
    long long cross_above = st.above_count;
    float cross_mass = st.above_mass;
    long long cross_count = st.key_count;
    float cross_p = probOf(valueOfKey(cross));
    // which of the ties at `cross` (in index order): the first whose running mass exceeds the threshold
    long long tie = cross_p > 0.0f ? static_cast<long long>(floorf((threshold - cross_mass) / cross_p)) : 0;
    if (tie < 0) tie = 0;
    if (tie >= cross_count) tie = cross_count > 0 ? cross_count - 1 : 0;
    unsigned want_key = cross;
    if (cross < kth || cross_above + tie >= kk) {  // past the kk best (rounding): the last of them
        want_key = kth;
        tie = kk - 1 - gt_count;
    }
    // 3. the tie-th element (in index order) with key want_key: each block counts its slice's ties and keeps the
    // first kSampleThreads of their indices; the block whose ties hold the tie-th picks it by rank among them
    // (or, with more ties than it kept, by an ordered scan of its slice); rank 0 writes it
    __syncthreads();  // every thread has read st
    if (threadIdx.x == 0) {
        n_cand = 0;
        found = -1;
    }
    sync();
    visit([&](long long j, float v, bool ok) {
        bool take = ok && keyOf(v) == want_key;
        unsigned ballot = __ballot_sync(0xffffffffu, take);
        if (!ballot) return;
        int leader = __ffs(ballot) - 1, slot0 = 0;
        if (lane == leader) slot0 = atomicAdd(&n_cand, __popc(ballot));
        slot0 = __shfl_sync(0xffffffffu, slot0, leader);
        int slot = slot0 + __popc(ballot & ((1u << lane) - 1u));
        if (take && slot < kSampleThreads) cand_idx[slot] = static_cast<int>(j);
    });
    sync();  // every block's count is final
    long long before_me = 0;
    for (int r = 0; r < rank; ++r) before_me += *at(&n_cand, r);
    const long long mine = n_cand;
    long long *found0 = at(&found, 0);
    if (before_me <= tie && tie < before_me + mine) {  // (the same for every thread of the block)
        const long long need = tie - before_me;
        if (mine <= kSampleThreads) {
            for (int t = threadIdx.x; t < mine; t += blockDim.x) {
                int below = 0;
                for (int u = 0; u < mine; ++u) below += cand_idx[u] < cand_idx[t];
                if (below == need) *found0 = lo + cand_idx[t];
            }
        } else {
            long long seen = 0;
            for (long long base = 0; base < n && seen <= need; base += blockDim.x) {
                const long long j = base + threadIdx.x;
                unsigned f = 0;
                if (j < n) f = keyOf(resident ? cached[j] : toF(xs[j])) == want_key;
                unsigned inc = blockInclusiveScan(f, warp_tot);
                if (f && seen + inc - 1 == need) *found0 = lo + j;
                if (threadIdx.x == blockDim.x - 1) win_total = inc;
                __syncthreads();
                seen += win_total;
                __syncthreads();  // every thread has read win_total before the next window writes it
            }
        }
    }
    sync();  // the pick is in rank 0's shared memory
    if (rank == 0 && threadIdx.x == 0) out[row * os0] = found >= 0 ? found : argmax;
}

// The clusters of C > 1 blocks of randomSampleKernel<T, C> with `smem` bytes of dynamic shared memory each that
// can run at once on the current device (0 if it cannot tell).
template <typename T, int C>
int sampleClusters(size_t smem) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(C * smCount()));
    cfg.blockDim = dim3(kSampleThreads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = C;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int k = 0;
    if (cudaOccupancyMaxActiveClusters(&k, randomSampleKernel<T, C>, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return k;
}

// Lets randomSampleKernel<T, C> take kResidentBytes of dynamic shared memory (once); false if it cannot.
template <typename T, int C>
bool sampleResidentReady() {
    static const bool ok = [] {
        if (cudaFuncSetAttribute(randomSampleKernel<T, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 kResidentBytes) != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        return true;
    }();
    return ok;
}

}  // namespace

infiniStatus_t makeTopkSoftmax(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "topk_softmax";
    Layout w = layoutOf(p.tensors[0]), idx = layoutOf(p.tensors[1]), x = layoutOf(p.tensors[2]);
    long long topk = p.i[0];
    bool renormalize = p.i[1] != 0;
    INFINI_RETURN_IF_ERROR(checks::topkSoftmax(w, idx, x, topk));
    long long tokens = x.shape[0], experts = x.shape[1];
    long long xs0 = x.strides[0], ws0 = w.strides[0], is0 = idx.strides[0];
    int k = static_cast<int>(topk);
    return INFINI_NV_DISPATCH_FLOAT(x.dtype, op, {
        m->launch = [=](const LaunchArgs &a) {
            if (tokens == 0) return INFINI_STATUS_SUCCESS;
            unsigned grid = static_cast<unsigned>((tokens + 7) / 8);
            launchOp(topkSoftmaxKernel<T>, grid, 256, 0, a.stream, static_cast<float *>(a.data[0]),
                     static_cast<long long *>(a.data[1]), static_cast<const T *>(a.data[2]), tokens, experts, k,
                     renormalize, xs0, ws0, is0);
            return launched(op);
        };
    });
}

infiniStatus_t makeRandomSample(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "random_sample";
    Layout out = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), rv = layoutOf(p.tensors[2]);
    float topp = static_cast<float>(p.f[0]), temperature = static_cast<float>(p.f[1]);
    long long topk = p.i[0];
    INFINI_RETURN_IF_ERROR(checks::randomSample(out, x, rv, temperature));
    long long batch = x.ndim() == 2 ? x.shape[0] : 1, vocab = x.last();
    // (the kernel's bins and candidate indices are 32-bit)
    if (vocab > 0x7fffffffLL)
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: a vocabulary of %lld exceeds 2^31 - 1", op, vocab);
    bool sample = topk > 1 && topp > 0;
    long long kk = std::min<long long>(std::max<long long>(topk, 1), vocab);
    long long xs0 = x.ndim() == 2 ? x.strides[0] : 0, rs0 = rv.ndim() ? rv.strides[0] : 0,
              os0 = out.ndim() ? out.strides[0] : 0;
    return INFINI_NV_DISPATCH_FLOAT(x.dtype, op, {
        // a row over a cluster of C blocks: the most of 8, 4, 2 whose clusters for every row run at once and that
        // leaves every block at least 4096 elements, else a block a row; with the block's slice in shared memory
        // where it fits (and, for C > 1, every row's cluster still runs at once), else read from global memory
        // at each pass (chosen here, once)
        const bool cl = clustersAvailable();
        auto resident = [&](int c) { return sample && sampleSlice(vocab, c) * 4 <= kResidentBytes; };
        int C = 1;
        size_t bytes = 0;
        auto tryC = [&](int c, bool ready, int (*clusters)(size_t)) {
            if (C != 1 || !cl || vocab < 4096LL * c) return;
            size_t b = static_cast<size_t>(sampleSlice(vocab, c)) * 4;
            if (resident(c) && ready && batch <= clusters(b)) {
                C = c;
                bytes = b;
            } else if (batch <= clusters(0)) {
                C = c;
            }
        };
        tryC(8, resident(8) && sampleResidentReady<T, 8>(), sampleClusters<T, 8>);
        tryC(4, resident(4) && sampleResidentReady<T, 4>(), sampleClusters<T, 4>);
        tryC(2, resident(2) && sampleResidentReady<T, 2>(), sampleClusters<T, 2>);
        if (C == 1 && resident(1) && sampleResidentReady<T, 1>()) bytes = static_cast<size_t>(vocab) * 4;
        auto kern = C == 8   ? randomSampleKernel<T, 8>
                    : C == 4 ? randomSampleKernel<T, 4>
                    : C == 2 ? randomSampleKernel<T, 2>
                             : randomSampleKernel<T, 1>;
        const bool res = bytes > 0;
        m->launch = [=](const LaunchArgs &a) {
            if (batch == 0) return INFINI_STATUS_SUCCESS;
            launchEx(kern, dim3(static_cast<unsigned>(batch * C)), kSampleThreads, bytes, a.stream, C > 1 ? C : 0,
                     opsDependent(), static_cast<long long *>(a.data[0]), static_cast<const T *>(a.data[1]),
                     static_cast<const float *>(a.data[2]), vocab, xs0, rs0, os0, kk, topp, temperature, sample, res);
            return launched(op);
        };
    });
}

}  // namespace infini::nvidia::ops
