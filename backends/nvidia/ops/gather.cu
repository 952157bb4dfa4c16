// gather.cu: embedding, rope and paged_caching: row copies and rotations addressed through index
// tensors. An index out of range is recorded in the device's error record (reported at the next
// synchronization or operator call) and its row is skipped (embedding writes zeros).
#include <algorithm>
#include <type_traits>

#include "common.cuh"

namespace infini::nvidia::ops {
namespace {

// ---- embedding: y[t, :] = weight[idx[t], :]; a block per token, 16-byte pieces when they fit -----
template <int B>  // bytes per piece: 16 or the element size
__global__ void embeddingKernel(char *y, const char *w, const void *idx, bool i64, long long tokens,
                                long long row_bytes, long long w_row_bytes, long long vocab, Dims didx, Dims dy_rows,
                                long long elem, DeviceError *err) {
    opEntry();
    using P = Vec<char, B>;
    for (long long t = blockIdx.x; t < tokens; t += gridDim.x) {
        long long v = readIndex(idx, i64, offsetOf(didx, t));
        char *yr = y + offsetOf(dy_rows, t) * elem;
        bool ok = v >= 0 && v < vocab;
        if (!ok && threadIdx.x == 0) reportError(err, kErrIndex, INFINIOP_OP_EMBEDDING, kArgIndices, v, vocab);
        const char *wr = w + (ok ? v : 0) * w_row_bytes;
        for (long long j = threadIdx.x; j < row_bytes / B; j += blockDim.x) {
            P p;
            if (ok) {
                p = reinterpret_cast<const P *>(wr)[j];
            } else {
                for (int e = 0; e < B; ++e) p.v[e] = 0;
            }
            reinterpret_cast<P *>(yr)[j] = p;
        }
    }
}

// Rows of 16-byte pieces, indices one stride apart, output rows contiguous: a 128-thread block takes PER
// pieces a thread of one row's chunk (grid x: a row's chunks, y: tokens), the index and every piece loaded
// before any store, nothing branching before the first loads (grid y <= tokens). Faster than the
// block-a-token kernel (embeddingKernel) at every size; PER 1 for the fewest tokens, 2 for more, 4 no better
// than 2 anywhere.
template <typename I, int PER>
__global__ void __launch_bounds__(128)
    embeddingRowKernel(uint4 *y, const char *w, const I *idx, long long idx_stride, int pieces, long long w_row_bytes,
                       long long vocab, long long tokens, DeviceError *err) {
    opEntry();
    const int c0 = blockIdx.x * (128 * PER) + threadIdx.x;
    long long t = blockIdx.y;
    do {
        const long long v = static_cast<long long>(idx[t * idx_stride]);
        const bool ok = v >= 0 && v < vocab;
        const uint4 *wr = reinterpret_cast<const uint4 *>(w + (ok ? v : 0) * w_row_bytes);
        uint4 p[PER];
#pragma unroll
        for (int k = 0; k < PER; ++k) {
            const int c = c0 + k * 128;
            p[k] = ok && c < pieces ? wr[c] : make_uint4(0u, 0u, 0u, 0u);
        }
        if (!ok && blockIdx.x == 0 && threadIdx.x == 0)
            reportError(err, kErrIndex, INFINIOP_OP_EMBEDDING, kArgIndices, v, vocab);
        uint4 *yr = y + t * pieces;
#pragma unroll
        for (int k = 0; k < PER; ++k) {
            const int c = c0 + k * 128;
            if (c < pieces) yr[c] = p[k];
        }
        t += gridDim.y;
    } while (t < tokens);
}

// ---- rope: one thread per rotated pair (token, head, j < d / 2) -----------------------------------
// The position of token tok (pos_ids [seq] or [batch, seq]); -1 when out of range (reported once per
// row, by the thread that has `report`).
__device__ __forceinline__ long long ropePosition(const void *pos, bool i64, long long tok, long long seq,
                                                  long long pos_s0, long long pos_s1, bool pos_2d, long long max_pos,
                                                  bool report, DeviceError *err) {
    long long off = pos_2d ? (tok / seq) * pos_s0 + (tok % seq) * pos_s1 : tok * pos_s0;
    long long p = readIndex(pos, i64, off);
    if (p >= 0 && p < max_pos) return p;
    if (report) reportError(err, kErrIndex, INFINIOP_OP_ROPE, kArgPosIds, p, max_pos);
    return -1;
}

template <typename T, typename S>
__global__ void ropeKernel(T *y, const T *x, const void *pos, bool i64, const S *sin_t, const S *cos_t,
                           long long tokens, long long seq, long long heads, long long half, int algo,
                           long long max_pos, long long sin_row, long long cos_row, Dims dx, Dims dy, long long pos_s0,
                           long long pos_s1, bool pos_2d, DeviceError *err) {
    opEntry();
    long long total = tokens * heads * half;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long j = i % half, r = i / half;  // r: (token, head) row
        long long p = ropePosition(pos, i64, r / heads, seq, pos_s0, pos_s1, pos_2d, max_pos, j == 0, err);
        if (p < 0) continue;
        const T *xr = x + offsetOf(dx, r);
        T *yr = y + offsetOf(dy, r);
        float s = toF(sin_t[p * sin_row + j]), c = toF(cos_t[p * cos_row + j]);
        long long i0 = algo == 0 ? j : 2 * j, i1 = algo == 0 ? j + half : 2 * j + 1;
        float a = toF(xr[i0]), b = toF(xr[i1]);
        yr[i0] = fromF<T>(a * c - b * s);
        yr[i1] = fromF<T>(b * c + a * s);
    }
}

// gpt_j rotation of a thread's 2V interleaved values: pairs (lo[e], lo[e + 1]) take angle e / 2 and
// pairs (hi[e], hi[e + 1]) angle V / 2 + e / 2 of cs/sn.
template <int V>
__device__ __forceinline__ void rotateInterleaved(float (&lo)[V], float (&hi)[V], const float (&cs)[V],
                                                  const float (&sn)[V]) {
#pragma unroll
    for (int e = 0; e < V; e += 2) {
        float a = lo[e], b = lo[e + 1];
        lo[e] = a * cs[e / 2] - b * sn[e / 2];
        lo[e + 1] = b * cs[e / 2] + a * sn[e / 2];
        a = hi[e];
        b = hi[e + 1];
        hi[e] = a * cs[V / 2 + e / 2] - b * sn[V / 2 + e / 2];
        hi[e + 1] = b * cs[V / 2 + e / 2] + a * sn[V / 2 + e / 2];
    }
}

// The same with V pairs per thread (16-byte loads): half % V == 0 and rows aligned.
template <typename T, typename S, int V>
__global__ void ropeVecKernel(T *y, const T *x, const void *pos, bool i64, const S *sin_t, const S *cos_t,
                              long long tokens, long long seq, long long heads, long long half, int algo,
                              long long max_pos, long long sin_row, long long cos_row, Dims dx, Dims dy,
                              long long pos_s0, long long pos_s1, bool pos_2d, DeviceError *err) {
    opEntry();
    long long chunks = half / V;
    long long total = tokens * heads * chunks;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long c = i % chunks, r = i / chunks;
        long long p = ropePosition(pos, i64, r / heads, seq, pos_s0, pos_s1, pos_2d, max_pos, c == 0, err);
        if (p < 0) continue;
        const T *xr = x + offsetOf(dx, r);
        T *yr = y + offsetOf(dy, r);
        float sn[V], cs[V];
        loadWideF<S, V>(sin_t + p * sin_row + c * V, sn);
        loadWideF<S, V>(cos_t + p * cos_row + c * V, cs);
        if (algo == 0) {
            float a[V], b[V], o1[V], o2[V];
            loadF<T, V>(xr + c * V, a);
            loadF<T, V>(xr + half + c * V, b);
#pragma unroll
            for (int e = 0; e < V; ++e) {
                o1[e] = a[e] * cs[e] - b[e] * sn[e];
                o2[e] = b[e] * cs[e] + a[e] * sn[e];
            }
            storeF<T, V>(yr + c * V, o1);
            storeF<T, V>(yr + half + c * V, o2);
        } else {
            float lo[V], hi[V];
            loadF<T, V>(xr + 2 * c * V, lo);
            loadF<T, V>(xr + 2 * c * V + V, hi);
            rotateInterleaved(lo, hi, cs, sn);  // pairs (lo[e], lo[e + 1]) are pair c * V + e / 2
            storeF<T, V>(yr + 2 * c * V, lo);
            storeF<T, V>(yr + 2 * c * V + V, hi);
        }
    }
}

// The cache block and row of a token's slot (slot_mapping element `off`); false when the slot is negative
// (skipped) or past the cache's capacity (reported once, by the thread with `reporter` set).
__device__ __forceinline__ bool cacheRow(const void *slots, bool i64, long long off, long long block,
                                         long long capacity, bool reporter, DeviceError *err, long long *blk,
                                         long long *row) {
    const long long s = readIndex(slots, i64, off);
    if (s < 0) return false;
    if (s >= capacity) {
        if (reporter) reportError(err, kErrIndex, INFINIOP_OP_PAGED_CACHING, kArgSlotMapping, s, capacity);
        return false;
    }
    *blk = divMod(s, block, row);
    return true;
}

// paged_caching with 16-byte pieces: one thread per piece of a (token, head) row (P pieces a row).
__global__ void cachingVecKernel(char *kc, char *vc, const char *k, const char *v, const void *slots, bool i64,
                                 long long tokens, long long heads, long long pieces, long long block,
                                 long long capacity, long long slot_stride, long long k_s0, long long k_s1,
                                 long long v_s0, long long v_s1, long long kc_s0, long long kc_s1, long long kc_s2,
                                 long long vc_s0, long long vc_s1, long long vc_s2, DeviceError *err) {
    opEntry();
    using P = Vec<char, 16>;
    long long total = tokens * heads * pieces;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long q, h;
        const long long t = divMod(divMod(i, pieces, &q), heads, &h);
        long long blk, row;
        if (!cacheRow(slots, i64, t * slot_stride, block, capacity, q == 0 && h == 0, err, &blk, &row)) continue;
        // strides here are in bytes
        reinterpret_cast<P *>(kc + blk * kc_s0 + h * kc_s1 + row * kc_s2)[q] =
            reinterpret_cast<const P *>(k + t * k_s0 + h * k_s1)[q];
        reinterpret_cast<P *>(vc + blk * vc_s0 + h * vc_s1 + row * vc_s2)[q] =
            reinterpret_cast<const P *>(v + t * v_s0 + h * v_s1)[q];
    }
}

// paged_caching with 16-byte (P = uint4) or 8-byte (uint2) pieces, for tokens < 2^31, caches of fewer than
// 2^31 slots and rows of at most 256 pieces: a 2-D block of (pieces of a row, heads), a 2-D grid of
// (tokens, head groups) ((head groups, tokens) measured the same). No division for the thread's place, no
// loop and no branch between the loads and the stores: the slot's load first, then k's and v's pieces
// (they do not depend on it; a thread past the last head reads head 0's), then the stores, predicated on
// the slot being valid: one memory round trip (k and v through loadNow: ptxas sinks a plain load into
// the store's branch even here). The slot's block and row by a multiply-shift (bmul, bsh: block's
// magic numbers, exact for slots < 2^31). A slot past the capacity is reported after. The slot's type I
// fixed at compile time. (32-bit k/v offsets, 15 fewer instructions before the loads: no faster.) TZ > 1:
// tokens [blockIdx.x * TZ, +TZ) by each thread, every load before the first store (`tokens`: the count,
// for the last group's). KEEP: the cache rows stored evict_last (common.cuh's storeVec; 16-byte pieces).
template <typename P, typename I, int TZ = 1, bool KEEP = false>
__global__ void cachingRowKernel(char *kc, char *vc, const char *k, const char *v, const I *slots, int heads, int block,
                                 unsigned bmul, int bsh, int capacity, long long slot_stride, long long k_s0,
                                 long long k_s1, long long v_s0, long long v_s1, long long kc_s0, long long kc_s1,
                                 long long kc_s2, long long vc_s0, long long vc_s1, long long vc_s2, DeviceError *err,
                                 long long tokens) {
    opEntry();
    const int q = threadIdx.x, h = blockIdx.y * blockDim.y + threadIdx.y;
    const long long hr = h < heads ? h : 0;
    long long s[TZ];
    P kp[TZ], vp[TZ];
#pragma unroll
    for (int j = 0; j < TZ; ++j) {
        long long t = static_cast<long long>(blockIdx.x) * TZ + j;
        if (TZ > 1 && t >= tokens) t = tokens - 1;  // (its stores are skipped below)
        s[j] = slots[t * slot_stride];
        kp[j] = loadNow(reinterpret_cast<const P *>(k + (t * k_s0 + hr * k_s1)) + q);
        vp[j] = loadNow(reinterpret_cast<const P *>(v + (t * v_s0 + hr * v_s1)) + q);
    }
#pragma unroll
    for (int j = 0; j < TZ; ++j) {
        const bool live = TZ == 1 || static_cast<long long>(blockIdx.x) * TZ + j < tokens;
        const bool ok = live && h < heads && s[j] >= 0 && s[j] < capacity;
        const unsigned sc = ok ? static_cast<unsigned>(s[j]) : 0u, blk = (__umulhi(sc, bmul) + sc) >> bsh,
                       row = sc - blk * block;
        if (ok) {
            storeVec<KEEP>(reinterpret_cast<P *>(kc + blk * kc_s0 + h * kc_s1 + row * kc_s2) + q, kp[j]);
            storeVec<KEEP>(reinterpret_cast<P *>(vc + blk * vc_s0 + h * vc_s1 + row * vc_s2) + q, vp[j]);
        } else if (live && s[j] >= capacity && q == 0 && h == 0) {
            reportError(err, kErrIndex, INFINIOP_OP_PAGED_CACHING, kArgSlotMapping, s[j], capacity);
        }
    }
}

// ---- paged_caching: a block per (token, head) row pair of k and v ---------------------------------
template <typename T>
__global__ void cachingKernel(T *kc, T *vc, const T *k, const T *v, const void *slots, bool i64, long long tokens,
                              long long heads, long long d, long long block, long long capacity, long long slot_stride,
                              long long k_s0, long long k_s1, long long v_s0, long long v_s1, long long kc_s0,
                              long long kc_s1, long long kc_s2, long long vc_s0, long long vc_s1, long long vc_s2,
                              DeviceError *err) {
    opEntry();
    for (long long r = blockIdx.x; r < tokens * heads; r += gridDim.x) {
        long long h;
        const long long t = divMod(r, heads, &h);
        long long blk, row;
        if (!cacheRow(slots, i64, t * slot_stride, block, capacity, threadIdx.x == 0, err, &blk, &row)) continue;
        const T *ks = k + t * k_s0 + h * k_s1;
        const T *vs = v + t * v_s0 + h * v_s1;
        T *kd = kc + blk * kc_s0 + h * kc_s1 + row * kc_s2;
        T *vd = vc + blk * vc_s0 + h * vc_s1 + row * vc_s2;
        for (long long j = threadIdx.x; j < d; j += blockDim.x) {
            kd[j] = ks[j];
            vd[j] = vs[j];
        }
    }
}

// The rotation of a thread's two pieces (16 bytes each, as stored) written to yr and yr + hi_add:
// algo 0 (gpt_neox): lo holds pairs' first halves, hi their second halves; algo 1 (gpt_j): interleaved.
template <typename T, int V, bool KEEP = false>
__device__ __forceinline__ void rotateStore(T *yr, int hi_add, int algo, const Vec<T, V> &lo, const Vec<T, V> &hi,
                                            const float (&cs)[V], const float (&sn)[V]) {
    float a[V], b[V];
    unpackF(lo, a);
    unpackF(hi, b);
    if (algo == 0) {
        float o1[V], o2[V];
#pragma unroll
        for (int e = 0; e < V; ++e) {
            o1[e] = a[e] * cs[e] - b[e] * sn[e];
            o2[e] = b[e] * cs[e] + a[e] * sn[e];
        }
        storeF<T, V, KEEP>(yr, o1);
        storeF<T, V, KEEP>(yr + hi_add, o2);
    } else {  // (a[e], a[e + 1]) is pair c * V + e / 2, b the next V / 2
        rotateInterleaved(a, b, cs, sn);
        storeF<T, V, KEEP>(yr, a);
        storeF<T, V, KEEP>(yr + hi_add, b);
    }
}

// The common layout: rows addressed as token * s_tok + head * s_head (x [tokens, heads, d], or a batch
// whose tokens are evenly spaced). A block per token (grid-stride), P pieces of V pairs a thread, 32-bit
// index math. x's pieces are loaded before the position is read (they do not depend on it), then the
// tables' rows: two memory round trips per token. At most 64 registers: 8 blocks of 128 threads an SM.
template <typename T, typename S, int V, int P>
__global__ void __launch_bounds__(256, 4)
    ropeTokenKernel(T *y, const T *x, const void *pos, bool i64, const S *sin_t, const S *cos_t, int tokens, int seq,
                    int heads, int half, int algo, long long max_pos, long long sin_row, long long cos_row,
                    long long xs_tok, long long xs_head, long long ys_tok, long long ys_head, long long pos_s0,
                    long long pos_s1, bool pos_2d, DeviceError *err) {
    opEntry();
    using VT = Vec<T, V>;
    const int chunks = half / V, per_tok = heads * chunks;
    // piece offsets within a row: (first, second) = (c, half + c) pieces (gpt_neox) or (2c, 2c + 1) (gpt_j)
    const int lo_mul = algo == 0 ? 1 : 2, hi_add = algo == 0 ? half : V;
    for (int tok = blockIdx.x; tok < tokens; tok += gridDim.x) {
        for (int base = 0; base < per_tok; base += P * blockDim.x) {
            VT lo[P], hi[P];
#pragma unroll
            for (int k = 0; k < P; ++k) {
                int t = base + threadIdx.x + k * blockDim.x;
                if (t < per_tok) {
                    int h = t / chunks, c = t - h * chunks;
                    const T *xr = x + tok * xs_tok + h * xs_head + lo_mul * c * V;
                    lo[k] = *reinterpret_cast<const VT *>(xr);
                    hi[k] = *reinterpret_cast<const VT *>(xr + hi_add);
                }
            }
            long long off =
                pos_2d ? static_cast<long long>(tok / seq) * pos_s0 + static_cast<long long>(tok % seq) * pos_s1
                       : static_cast<long long>(tok) * pos_s0;
            long long p = readIndex(pos, i64, off);
            if (p < 0 || p >= max_pos) {
                if (threadIdx.x == 0 && base == 0)
                    reportError(err, kErrIndex, INFINIOP_OP_ROPE, kArgPosIds, p, max_pos);
                break;
            }
            const S *sr = sin_t + p * sin_row, *cr = cos_t + p * cos_row;
#pragma unroll
            for (int k = 0; k < P; ++k) {
                int t = base + threadIdx.x + k * blockDim.x;
                if (t >= per_tok) continue;
                int h = t / chunks, c = t - h * chunks;
                float sn[V], cs[V];
                loadWideF<S, V>(sr + c * V, sn);
                loadWideF<S, V>(cr + c * V, cs);
                rotateStore(y + tok * ys_tok + h * ys_head + lo_mul * c * V, hi_add, algo, lo[k], hi[k], cs, sn);
            }
        }
    }
}

// A token a block row (grid = tokens x parts of a token), every piece of it in one pass: a 2-D block of
// (pieces of a head's row, heads), P heads a thread, V pairs a piece; the position read first, then x,
// then the table pieces (one a thread: all of a thread's pieces share their offset in the row), then the
// stores. No division and no branch before the loads: a thread's piece is threadIdx.x, its heads
// threadIdx.y + k * blockDim.y, token tok's position at tok * pos_s (the host passes 2-D positions only
// when they are one stride over the tokens). ALGO (0 gpt_neox, 1 gpt_j) and the index type I fixed at
// compile time, offsets in 32 bits (the host checks that they fit): a short kernel, for the latency of
// small batches.
template <typename T, typename S, int V, int P, int ALGO, typename I, bool KEEP>
__global__ void __launch_bounds__(256, 4)
    ropeRowKernel(T *y, const T *x, const I *pos, const S *sin_t, const S *cos_t, int heads, int max_pos, int sin_row,
                  int cos_row, int xs_tok, int xs_head, int ys_tok, int ys_head, int pos_s, DeviceError *err) {
    opEntry();
    using VT = Vec<T, V>;
    const int tok = blockIdx.x, c = threadIdx.x, h0 = blockIdx.y * blockDim.y * P + threadIdx.y;
    const long long p = pos[tok * pos_s];
    const int half = blockDim.x * V, hi_add = ALGO == 0 ? half : V, lo_mul = ALGO == 0 ? 1 : 2;
    VT lo[P], hi[P];
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const int h = h0 + k * blockDim.y;
        if (h < heads) {
            const T *xr = x + (tok * xs_tok + h * xs_head + lo_mul * c * V);
            lo[k] = *reinterpret_cast<const VT *>(xr);
            hi[k] = *reinterpret_cast<const VT *>(xr + hi_add);
        }
    }
    if (p < 0 || p >= max_pos) {
        if (c == 0 && threadIdx.y == 0) reportError(err, kErrIndex, INFINIOP_OP_ROPE, kArgPosIds, p, max_pos);
        return;
    }
    const int pi = static_cast<int>(p);
    float sn[V], cs[V];
    loadWideF<S, V>(sin_t + (pi * sin_row + c * V), sn);
    loadWideF<S, V>(cos_t + (pi * cos_row + c * V), cs);
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const int h = h0 + k * blockDim.y;
        if (h < heads)
            rotateStore<T, V, KEEP>(y + (h * ys_head + tok * ys_tok + lo_mul * c * V), hi_add, ALGO, lo[k], hi[k], cs,
                                    sn);
    }
}

// Whether the row dims (tokens..., heads) are two strides: token * s_tok + head * s_head.
bool tokenHeadStrides(const Dims &d, long long *s_tok, long long *s_head) {
    if (d.ndim == 2) {
        *s_tok = d.strides[0];
        *s_head = d.strides[1];
        return true;
    }
    if (d.ndim == 3 && (d.shape[0] == 1 || d.strides[0] == d.shape[1] * d.strides[1])) {
        *s_tok = d.strides[1];
        *s_head = d.strides[2];
        return true;
    }
    return false;
}

}  // namespace

infiniStatus_t makeEmbedding(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "embedding";
    Layout y = layoutOf(p.tensors[0]), idx = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    INFINI_RETURN_IF_ERROR(checks::embedding(y, idx, w));
    Dims didx{}, dy{};
    if (!dimsOf(idx, &didx) || !dimsOf(y, &dy, 1))
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: at most %d dimensions", op, kMaxDims);
    long long elem = static_cast<long long>(dtypeSize(w.dtype));
    long long tokens = static_cast<long long>(idx.numel()), dim = static_cast<long long>(w.shape[1]);
    long long row_bytes = dim * elem, w_row_bytes = static_cast<long long>(w.strides[0]) * elem;
    long long vocab = static_cast<long long>(w.shape[0]);
    bool i64 = idx.dtype == INFINI_DTYPE_I64;
    bool vec = row_bytes % 16 == 0 && w_row_bytes % 16 == 0;
    for (int k = 0; k < dy.ndim; ++k) vec = vec && (dy.strides[k] * elem) % 16 == 0;
    // the row kernel: indices one stride apart, output rows contiguous, a row's pieces and the token count in int
    Dims ci = didx, cy = dy;
    collapse(&ci);
    collapse(&cy);
    const bool rows_flat =
        ci.ndim <= 1 && (cy.ndim == 0 || (cy.ndim == 1 && cy.strides[0] == dim)) && row_bytes / 16 < (1LL << 30);
    const long long idx_stride = ci.ndim == 1 ? ci.strides[0] : 0;
    // the row kernel's geometry: one piece a thread while that gives at most two blocks an SM, else two
    const unsigned grid =
        static_cast<unsigned>(tokens < 65535 ? tokens : 65535);  // (a block takes several tokens past it)
    const int pieces = static_cast<int>(std::min<long long>(row_bytes / 16, 1LL << 30));
    const bool one = static_cast<long long>(grid) * ((pieces + 127) / 128) <= 2LL * smCount();
    const dim3 row_blocks(static_cast<unsigned>((pieces + 128 * (one ? 1 : 2) - 1) / (128 * (one ? 1 : 2))), grid);
    m->launch = [=](const LaunchArgs &a) {
        if (tokens == 0 || dim == 0) return INFINI_STATUS_SUCCESS;
        char *py = static_cast<char *>(a.data[0]);
        const char *pw = static_cast<const char *>(a.data[2]);
        bool v = vec && ((reinterpret_cast<uintptr_t>(py) | reinterpret_cast<uintptr_t>(pw)) & 15) == 0;
        if (v && rows_flat) {
            auto go = [&](auto itag) {
                using I = decltype(itag);
                auto kern = one ? embeddingRowKernel<I, 1> : embeddingRowKernel<I, 2>;
                launchOp(kern, row_blocks, 128, 0, a.stream, static_cast<uint4 *>(a.data[0]), pw,
                         static_cast<const I *>(a.data[1]), idx_stride, pieces, w_row_bytes, vocab, tokens, a.err);
            };
            if (i64)
                go(static_cast<long long>(0));
            else
                go(0);
            return launched(op);
        }
        if (v) {
            int threads = static_cast<int>(std::min<long long>(256, std::max<long long>(32, row_bytes / 16)));
            launchOp(embeddingKernel<16>, grid, threads, 0, a.stream, py, pw, a.data[1], i64, tokens, row_bytes,
                     w_row_bytes, vocab, didx, dy, elem, a.err);
        } else if (elem == 4) {
            launchOp(embeddingKernel<4>, grid, 256, 0, a.stream, py, pw, a.data[1], i64, tokens, row_bytes, w_row_bytes,
                     vocab, didx, dy, elem, a.err);
        } else {
            launchOp(embeddingKernel<2>, grid, 256, 0, a.stream, py, pw, a.data[1], i64, tokens, row_bytes, w_row_bytes,
                     vocab, didx, dy, elem, a.err);
        }
        return launched(op);
    };
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t makeRoPE(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "rope";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), pos = layoutOf(p.tensors[2]),
           sin = layoutOf(p.tensors[3]), cos = layoutOf(p.tensors[4]);
    int algo = static_cast<int>(p.i[0]);
    INFINI_RETURN_IF_ERROR(checks::rope(y, x, pos, sin, cos, algo));
    size_t d = x.last(), heads = x.shape[x.ndim() - 2], seq = x.shape[x.ndim() - 3];
    size_t batch = x.ndim() == 4 ? x.shape[0] : 1;
    Dims dx{}, dy{};
    if (!dimsOf(x, &dx, 1) || !dimsOf(y, &dy, 1)) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: bad rank", op);
    long long tokens = static_cast<long long>(batch * seq), half = static_cast<long long>(d / 2);
    long long max_pos = static_cast<long long>(sin.shape[0]);
    long long sin_row = sin.strides[0], cos_row = cos.strides[0];
    long long pos_s0 = pos.strides[0], pos_s1 = pos.ndim() == 2 ? pos.strides[1] : 0;
    bool pos_2d = pos.ndim() == 2, i64 = pos.dtype == INFINI_DTYPE_I64, s32 = sin.dtype == INFINI_DTYPE_F32;
    // table rows and x/y rows 16-byte aligned for either dtype
    bool vec = sin_row % 8 == 0 && cos_row % 8 == 0 && rowsAligned(dx, 8) && rowsAligned(dy, 8);
    long long nheads = static_cast<long long>(heads), nseq = static_cast<long long>(seq);
    long long xs_tok = 0, xs_head = 0, ys_tok = 0, ys_head = 0;
    bool fast = tokenHeadStrides(dx, &xs_tok, &xs_head) && tokenHeadStrides(dy, &ys_tok, &ys_head) &&
                tokens < (1LL << 31) && nseq > 0 && nheads * half < (1LL << 31);
    // The row kernel takes the positions as one stride over the tokens (1-D, or 2-D [batch, seq] with the
    // batch stride seq rows), and every element offset it forms fits in 32 bits.
    bool pos_flat = !pos_2d || nseq == 1 || tokens == nseq || pos_s0 == nseq * pos_s1;
    long long pos_flat_s = !pos_2d || nseq == 1 ? pos_s0 : pos_s1;
    auto span = [](long long n, long long stride) { return n > 0 ? (n - 1) * stride : 0; };
    const long long lim = 1LL << 31;
    bool row_ok = fast && pos_flat && span(max_pos, sin_row) + half < lim && span(max_pos, cos_row) + half < lim &&
                  max_pos < lim && span(tokens, xs_tok) + span(nheads, xs_head) + 2 * half < lim &&
                  span(tokens, ys_tok) + span(nheads, ys_head) + 2 * half < lim && span(tokens, pos_flat_s) < lim;
    return INFINI_NV_DISPATCH_FLOAT(x.dtype, op, {
        m->launch = [=](const LaunchArgs &a) {
            long long total = tokens * nheads * half;
            if (total == 0) return INFINI_STATUS_SUCCESS;
            T *py = static_cast<T *>(a.data[0]);
            const T *px = static_cast<const T *>(a.data[1]);
            constexpr int V = kVec16<T>;
            bool v = vec && half % V == 0 &&
                     ((reinterpret_cast<uintptr_t>(py) | reinterpret_cast<uintptr_t>(px) |
                       reinterpret_cast<uintptr_t>(a.data[3]) | reinterpret_cast<uintptr_t>(a.data[4])) &
                      15) == 0;
            if (v && fast) {
                // The row kernel where a block row covers a token (P heads a thread) and row_ok: 1 head a
                // thread below 512 tokens, else 2 (faster than the token kernel at every size); else the
                // grid-stride token kernel. At most 64 tokens: a token over 4 blocks, in 8-byte pieces up to 4
                // tokens, else 16-byte ones (each the faster there).
                auto row = [&](auto stag, auto ptag, auto vtag) {
                    using S = decltype(stag);
                    constexpr int P = decltype(ptag)::value, VV = decltype(vtag)::value;
                    if (half % VV != 0) return false;
                    const long long chunks = half / VV;
                    // at most 64 tokens: a token's heads over 4 blocks (more SMs for the few rows)
                    const long long split = P == 1 && tokens <= 64 ? 4 : 1;
                    const long long hb = std::min<long long>((nheads + P * split - 1) / (P * split), 256 / chunks);
                    if (!row_ok || hb < 1) return false;
                    dim3 block(static_cast<unsigned>(chunks), static_cast<unsigned>(hb));
                    dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>((nheads + P * hb - 1) / (P * hb)));
                    auto launch = [&](auto itag) {
                        using I = decltype(itag);
                        // 512+ tokens (P == 2, the form `go` takes there): the outputs stored evict_last (common.cuh's
                        // storeVec)
                        constexpr bool K = P == 2;
                        auto kern =
                            algo == 0 ? ropeRowKernel<T, S, VV, P, 0, I, K> : ropeRowKernel<T, S, VV, P, 1, I, K>;
                        launchOp(kern, grid, block, 0, a.stream, py, px, static_cast<const I *>(a.data[2]),
                                 static_cast<const S *>(a.data[3]), static_cast<const S *>(a.data[4]),
                                 static_cast<int>(nheads), static_cast<int>(max_pos), static_cast<int>(sin_row),
                                 static_cast<int>(cos_row), static_cast<int>(xs_tok), static_cast<int>(xs_head),
                                 static_cast<int>(ys_tok), static_cast<int>(ys_head), static_cast<int>(pos_flat_s),
                                 a.err);
                    };
                    if (i64)
                        launch(static_cast<long long>(0));
                    else
                        launch(0);
                    return true;
                };
                constexpr int P = 2;  // the token kernel: pieces a thread
                int threads =
                    static_cast<int>(std::min<long long>(256, ((nheads * (half / V) + P - 1) / P + 31) / 32 * 32));
                unsigned grid = static_cast<unsigned>(std::min<long long>(tokens, 132LL * 16));
                auto go = [&](auto stag) {
                    using S = decltype(stag);
                    using One = std::integral_constant<int, 1>;
                    if (tokens <= 4 && row(stag, One{}, std::integral_constant<int, V / 2>{})) return;
                    if (tokens < 512 && row(stag, One{}, std::integral_constant<int, V>{})) return;
                    if (row(stag, std::integral_constant<int, 2>{}, std::integral_constant<int, V>{})) return;
                    launchOp(ropeTokenKernel<T, S, V, P>, grid, threads, 0, a.stream, py, px, a.data[2], i64,
                             static_cast<const S *>(a.data[3]), static_cast<const S *>(a.data[4]),
                             static_cast<int>(tokens), static_cast<int>(nseq), static_cast<int>(nheads),
                             static_cast<int>(half), algo, max_pos, sin_row, cos_row, xs_tok, xs_head, ys_tok, ys_head,
                             pos_s0, pos_s1, pos_2d, a.err);
                };
                if (s32)
                    go(float{});
                else
                    go(T{});
                return launched(op);
            }
            if (v) {
                unsigned vgrid = blocksFor(total / V, 256, 132LL * 32);
                if (s32) {
                    launchOp(ropeVecKernel<T, float, V>, vgrid, 256, 0, a.stream, py, px, a.data[2], i64,
                             static_cast<const float *>(a.data[3]), static_cast<const float *>(a.data[4]), tokens, nseq,
                             nheads, half, algo, max_pos, sin_row, cos_row, dx, dy, pos_s0, pos_s1, pos_2d, a.err);
                } else {
                    launchOp(ropeVecKernel<T, T, V>, vgrid, 256, 0, a.stream, py, px, a.data[2], i64,
                             static_cast<const T *>(a.data[3]), static_cast<const T *>(a.data[4]), tokens, nseq, nheads,
                             half, algo, max_pos, sin_row, cos_row, dx, dy, pos_s0, pos_s1, pos_2d, a.err);
                }
                return launched(op);
            }
            unsigned grid = blocksFor(total, 256, 132LL * 32);
            if (s32) {
                launchOp(ropeKernel<T, float>, grid, 256, 0, a.stream, py, px, a.data[2], i64,
                         static_cast<const float *>(a.data[3]), static_cast<const float *>(a.data[4]), tokens, nseq,
                         nheads, half, algo, max_pos, sin_row, cos_row, dx, dy, pos_s0, pos_s1, pos_2d, a.err);
            } else {
                launchOp(ropeKernel<T, T>, grid, 256, 0, a.stream, py, px, a.data[2], i64,
                         static_cast<const T *>(a.data[3]), static_cast<const T *>(a.data[4]), tokens, nseq, nheads,
                         half, algo, max_pos, sin_row, cos_row, dx, dy, pos_s0, pos_s1, pos_2d, a.err);
            }
            return launched(op);
        };
    });
}

infiniStatus_t makePagedCaching(const infiniopOpParams_t &p, int, Made *m) {
    const char *op = "paged_caching";
    Layout kc = layoutOf(p.tensors[0]), vc = layoutOf(p.tensors[1]), kk = layoutOf(p.tensors[2]),
           vv = layoutOf(p.tensors[3]), slots = layoutOf(p.tensors[4]);
    INFINI_RETURN_IF_ERROR(checks::pagedCaching(kc, vc, kk, vv, slots));
    long long tokens = kk.shape[0], heads = kk.shape[1], d = kk.shape[2], block = kc.shape[2];
    long long capacity = static_cast<long long>(kc.shape[0]) * block;
    bool i64 = slots.dtype == INFINI_DTYPE_I64;
    long long ss = slots.strides[0];
    auto ks = kk.strides, vs = vv.strides, kcs = kc.strides, vcs = vc.strides;
    // block's magic numbers for the row kernel: slot / block = (umulhi(slot, bmul) + slot) >> bsh
    int bsh = 0;
    while (bsh < 31 && (1LL << bsh) < block) ++bsh;
    const unsigned bmul =
        block > 0 ? static_cast<unsigned>((((1ULL << 32) * static_cast<unsigned long long>((1LL << bsh) - block)) /
                                           static_cast<unsigned long long>(block)) +
                                          1)
                  : 0u;
    auto launchT = [=](auto tag, const LaunchArgs &a) {
        using T = decltype(tag);
        long long rows = tokens * heads;
        unsigned grid = static_cast<unsigned>(rows < 65535 * 4 ? rows : 65535 * 4);
        int threads = static_cast<int>(std::min<long long>(256, std::max<long long>(32, (d + 31) / 32 * 32)));
        launchOp(cachingKernel<T>, grid, threads, 0, a.stream, static_cast<T *>(a.data[0]), static_cast<T *>(a.data[1]),
                 static_cast<const T *>(a.data[2]), static_cast<const T *>(a.data[3]), a.data[4], i64, tokens, heads, d,
                 block, capacity, ss, ks[0], ks[1], vs[0], vs[1], kcs[0], kcs[1], kcs[2], vcs[0], vcs[1], vcs[2],
                 a.err);
        return launched(op);
    };
    size_t elem = dtypeSize(kk.dtype);
    if (elem != 2 && elem != 4)
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: k must be a 16- or 32-bit float type", op);
    long long e = static_cast<long long>(elem);
    bool vec = (d * e) % 16 == 0;
    for (long long st : {ks[0], ks[1], vs[0], vs[1], kcs[0], kcs[1], kcs[2], vcs[0], vcs[1], vcs[2]})
        vec = vec && (st * e) % 16 == 0;
    m->launch = [=](const LaunchArgs &a) {
        if (tokens == 0 || heads == 0 || d == 0) return INFINI_STATUS_SUCCESS;
        bool v = vec && ((reinterpret_cast<uintptr_t>(a.data[0]) | reinterpret_cast<uintptr_t>(a.data[1]) |
                          reinterpret_cast<uintptr_t>(a.data[2]) | reinterpret_cast<uintptr_t>(a.data[3])) &
                         15) == 0;
        if (v) {
            long long pieces = d * e / 16, total = tokens * heads * pieces;
            if (pieces <= 256 && tokens < (1LL << 31) && heads < (1LL << 31) && capacity < (1LL << 31)) {
                // at most 8 tokens: 8-byte pieces, twice the threads, a token's heads over two blocks (more SMs
                // for the few rows); predicated stores, loads before them. From 9 tokens a block a token's heads in
                // 16-byte pieces, as inductor's (each the faster form there)
                auto go = [&](auto ptag, long long per_row) {
                    using P = decltype(ptag);
                    const long long most = sizeof(P) == 8 ? 128 : 256;  // threads a block
                    unsigned hb =
                        static_cast<unsigned>(std::max<long long>(1, std::min<long long>(heads, most / per_row)));
                    unsigned groups = static_cast<unsigned>((heads + hb - 1) / hb);
                    dim3 blk(static_cast<unsigned>(per_row), hb);
                    // 16-byte pieces, between one and four waves of blocks a token: 4 tokens a thread, their loads
                    // before any store, in one wave (faster there than 1 or 2 a thread; not with one wave of blocks
                    // or more than four)
                    const long long resident = static_cast<long long>(smCount()) *
                                               std::min<long long>(32, 2048 / (per_row * hb)),
                                    rows = tokens * groups;
                    const int tz = sizeof(P) == 16 && rows > resident && rows <= 4 * resident ? 4 : 1;
                    dim3 grid(static_cast<unsigned>((tokens + tz - 1) / tz), groups);
                    auto launch = [&](auto itag) {
                        using I = decltype(itag);
                        // more rows than fit at once: the cache rows kept in the L2 for the attention that reads
                        // them (16-byte pieces; common.cuh's storeVec)
                        constexpr bool kKeep = sizeof(P) == 16;
                        auto kern = tz == 4           ? cachingRowKernel<P, I, 4, kKeep>
                                    : rows > resident ? cachingRowKernel<P, I, 1, kKeep>
                                                      : cachingRowKernel<P, I, 1>;
                        launchOp(kern, grid, blk, 0, a.stream, static_cast<char *>(a.data[0]),
                                 static_cast<char *>(a.data[1]), static_cast<const char *>(a.data[2]),
                                 static_cast<const char *>(a.data[3]), static_cast<const I *>(a.data[4]),
                                 static_cast<int>(heads), static_cast<int>(block), bmul, bsh,
                                 static_cast<int>(capacity), ss, ks[0] * e, ks[1] * e, vs[0] * e, vs[1] * e, kcs[0] * e,
                                 kcs[1] * e, kcs[2] * e, vcs[0] * e, vcs[1] * e, vcs[2] * e, a.err, tokens);
                    };
                    if (i64)
                        launch(static_cast<long long>(0));
                    else
                        launch(0);
                };
                if (tokens <= 8 && pieces <= 64)
                    go(uint2{}, 2 * pieces);
                else
                    go(uint4{}, pieces);
                return launched(op);
            }
            launchOp(cachingVecKernel, blocksFor(total, 256, 132LL * 32), 256, 0, a.stream,
                     static_cast<char *>(a.data[0]), static_cast<char *>(a.data[1]),
                     static_cast<const char *>(a.data[2]), static_cast<const char *>(a.data[3]), a.data[4], i64, tokens,
                     heads, pieces, block, capacity, ss, ks[0] * e, ks[1] * e, vs[0] * e, vs[1] * e, kcs[0] * e,
                     kcs[1] * e, kcs[2] * e, vcs[0] * e, vcs[1] * e, vcs[2] * e, a.err);
            return launched(op);
        }
        return elem == 4 ? launchT(float{}, a) : launchT(uint16_t{}, a);
    };
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::nvidia::ops
