// attention.cpp: attention over a contiguous KV cache (with the cache write), paged decode attention
// and paged prefill attention. One row kernel serves all three: scores q.k * scale (+ ALiBi), a
// softmax in float32, and the weighted sum of values; the ops differ only in where key t lives and
// how many keys a query row sees. Work is split across threads by (sequence, head, query row).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../common/dtype.h"
#include "convert.h"
#include "gemm/amx.h"
#include "op_base.h"
#include "parallel.h"
#include "reduce.h"
#include "simd.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {
namespace {

// For the G query heads of one GQA group (rows q[g * qs], outputs out[g * os]), over the same n keys:
// out_g = softmax_t(scale * q_g.k_t + slope_g * (t - qpos)) @ v_t. Each key and value row is read once
// for the whole group; kv(t) gives the key and value rows of key t. Scratch: qf [G*d], scores [G*n],
// acc [G*d] floats.
#ifdef __AVX512F__
// out_g = sum_t p[g, t] v_t for head_dim D, 16 value rows at a time (converted to float once, in L1)
// while each head's D-float accumulator stays in registers across them.
template <size_t D, typename T, typename KV>
void weightedValues(T *out, ptrdiff_t os, size_t G, size_t n, const float *scores, KV kv, float *acc) {
    constexpr size_t kV = D / 16;
    alignas(64) float vb[16][D];
    for (size_t t0 = 0; t0 < n; t0 += 16) {
        size_t tn = std::min<size_t>(16, n - t0);
        for (size_t j = 0; j < tn; ++j) loadRow(vb[j], kv(t0 + j).second, D);
        for (size_t g = 0; g < G; ++g) {
            __m512 a[kV];
            for (size_t v = 0; v < kV; ++v) a[v] = _mm512_loadu_ps(acc + g * D + 16 * v);
            const float *sg = scores + g * n + t0;
            for (size_t j = 0; j < tn; ++j) {
                __m512 p = _mm512_set1_ps(sg[j]);
                for (size_t v = 0; v < kV; ++v) a[v] = _mm512_fmadd_ps(p, _mm512_load_ps(vb[j] + 16 * v), a[v]);
            }
            for (size_t v = 0; v < kV; ++v) _mm512_storeu_ps(acc + g * D + 16 * v, a[v]);
        }
    }
    for (size_t g = 0; g < G; ++g) storeRow(out + g * os, acc + g * D, D);
}
#elif defined(__AVX2__)
// The same in 8 lanes: 16 value rows converted to float once (in L1), then per head 64 columns of
// the accumulator at a time in 8 registers across the 16 rows.
template <size_t D, typename T, typename KV>
void weightedValues(T *out, ptrdiff_t os, size_t G, size_t n, const float *scores, KV kv, float *acc) {
    alignas(32) float vb[16][D];
    for (size_t t0 = 0; t0 < n; t0 += 16) {
        size_t tn = std::min<size_t>(16, n - t0);
        for (size_t j = 0; j < tn; ++j) loadRow(vb[j], kv(t0 + j).second, D);
        for (size_t g = 0; g < G; ++g) {
            const float *sg = scores + g * n + t0;
            for (size_t c = 0; c < D; c += 64) {
                __m256 a[8];
                for (size_t v = 0; v < 8; ++v) a[v] = _mm256_loadu_ps(acc + g * D + c + 8 * v);
                for (size_t j = 0; j < tn; ++j) {
                    __m256 p = _mm256_set1_ps(sg[j]);
                    for (size_t v = 0; v < 8; ++v) a[v] = _mm256_fmadd_ps(p, _mm256_load_ps(vb[j] + c + 8 * v), a[v]);
                }
                for (size_t v = 0; v < 8; ++v) _mm256_storeu_ps(acc + g * D + c + 8 * v, a[v]);
            }
        }
    }
    for (size_t g = 0; g < G; ++g) storeRow(out + g * os, acc + g * D, D);
}

#endif

template <typename T, typename KV>
void attendGroup(T *out, ptrdiff_t os, const T *q, ptrdiff_t qs, size_t G, size_t d, size_t n, float scale,
                 const float *slopes, int64_t qpos, KV kv, float *qf, float *scores, float *acc) {
    for (size_t g = 0; g < G; ++g) {
        for (size_t i = 0; i < d; ++i) qf[g * d + i] = toFloat(q[g * qs + i]) * scale;
    }
    if (n == 0) {
        for (size_t g = 0; g < G; ++g) {
            for (size_t i = 0; i < d; ++i) out[g * os + i] = fromFloat<T>(0.0f);
        }
        return;
    }
    float kf[512];  // head_dim <= 512 (checked at creation)
    size_t t = 0;
    if constexpr (std::is_same_v<T, bf16>) {
        if (G <= 16 && d % 32 == 0 && n >= 16 && amxAvailable()) {
            // 16 keys at a time on AMX: one 16 x 16 tile of scores (keys x heads of the group)
            alignas(64) uint16_t qpack[16 * 512];
            alignas(64) float s16[16 * 16];
            alignas(64) bf16 kbuf[16 * 512];
            amxBegin();
            amxPackQ(q, qs, G, d, qpack);
            for (; t + 16 <= n; t += 16) {
                const bf16 *k0 = kv(t).first;
                bool contiguous = true;
                for (size_t j = 1; j < 16 && contiguous; ++j) contiguous = kv(t + j).first == k0 + j * d;
                if (!contiguous) {
                    for (size_t j = 0; j < 16; ++j) std::memcpy(kbuf + j * d, kv(t + j).first, d * sizeof(bf16));
                    k0 = kbuf;
                }
                amxScores16(k0, d, qpack, d, s16);
                for (size_t g = 0; g < G; ++g) {
                    for (size_t j = 0; j < 16; ++j) {
                        float sc = s16[j * 16 + g] * scale;
                        if (slopes) sc += slopes[g] * static_cast<float>(static_cast<int64_t>(t + j) - qpos);
                        scores[g * n + t + j] = sc;
                    }
                }
            }
            amxEnd();
        }
    }
#ifdef __AVX512F__
    if (d % 16 == 0 && d <= 256) {
        // 16 keys at a time: 16 dot products per head, their lane sums in one tree (reduce.h)
        alignas(64) float kb[16 * 256];
        size_t nv = d / 16;
        for (; t + 16 <= n; t += 16) {
            for (size_t j = 0; j < 16; ++j) loadRow(kb + j * d, kv(t + j).first, d);
            for (size_t g = 0; g < G; ++g) {
                const float *qg = qf + g * d;
                __m512 acc[16];
                for (size_t j = 0; j < 16; ++j) {
                    __m512 a = _mm512_mul_ps(_mm512_loadu_ps(qg), _mm512_load_ps(kb + j * d));
                    for (size_t v = 1; v < nv; ++v)
                        a = _mm512_fmadd_ps(_mm512_loadu_ps(qg + 16 * v), _mm512_load_ps(kb + j * d + 16 * v), a);
                    acc[j] = a;
                }
                __m512 sc = reduceAdd16(acc);
                if (slopes) {
                    __m512 pos = _mm512_add_ps(_mm512_set1_ps(static_cast<float>(static_cast<int64_t>(t) - qpos)),
                                               _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
                    sc = _mm512_fmadd_ps(_mm512_set1_ps(slopes[g]), pos, sc);
                }
                _mm512_storeu_ps(scores + g * n + t, sc);
            }
        }
    }
#elif defined(__AVX2__)
    if (d % 8 == 0 && d <= 256) {
        // 8 keys at a time (converted to float once, in L1): 8 dot products per head, summed in one tree
        // (reduce.h reduceAdd8)
        alignas(32) float kb[8 * 256];
        size_t nv = d / 8;
        for (; t + 8 <= n; t += 8) {
            for (size_t j = 0; j < 8; ++j) loadRow(kb + j * d, kv(t + j).first, d);
            for (size_t g = 0; g < G; ++g) {
                const float *qg = qf + g * d;
                __m256 acc8[8];
                for (size_t j = 0; j < 8; ++j) {
                    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(qg), _mm256_load_ps(kb + j * d));
                    for (size_t v = 1; v < nv; ++v)
                        a = _mm256_fmadd_ps(_mm256_loadu_ps(qg + 8 * v), _mm256_load_ps(kb + j * d + 8 * v), a);
                    acc8[j] = a;
                }
                __m256 sc = reduceAdd8(acc8);
                if (slopes) {
                    __m256 pos = _mm256_add_ps(_mm256_set1_ps(static_cast<float>(static_cast<int64_t>(t) - qpos)),
                                               _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7));
                    sc = _mm256_fmadd_ps(_mm256_set1_ps(slopes[g]), pos, sc);
                }
                _mm256_storeu_ps(scores + g * n + t, sc);
            }
        }
    }
#endif
    for (; t < n; ++t) {
        loadRow(kf, kv(t).first, d);
        for (size_t g = 0; g < G; ++g) {
            float s = dotRow(qf + g * d, kf, d);
            if (slopes) s += slopes[g] * static_cast<float>(static_cast<int64_t>(t) - qpos);
            scores[g * n + t] = s;
        }
    }
    for (size_t g = 0; g < G; ++g) {
        float *sg = scores + g * n;
        float m = maxRow(sg, n);
        float total = expSubRow(sg, sg, m, n);
        float inv = 1.0f / total;
        for (size_t t = 0; t < n; ++t) sg[t] *= inv;
    }
    std::fill(acc, acc + G * d, 0.0f);
#if defined(__AVX512F__) || defined(__AVX2__)
    if (d == 64) return weightedValues<64>(out, os, G, n, scores, kv, acc);
    if (d == 128) return weightedValues<128>(out, os, G, n, scores, kv, acc);
#endif
    for (size_t t = 0; t < n; ++t) {
        loadRow(kf, kv(t).second, d);
        for (size_t g = 0; g < G; ++g) {
            float p = scores[g * n + t];
            float *ag = acc + g * d;
            for (size_t i = 0; i < d; ++i) ag[i] += p * kf[i];
        }
    }
    for (size_t g = 0; g < G; ++g) storeRow(out + g * os, acc + g * d, d);
}

int64_t readIndex(const void *p, bool i64, ptrdiff_t off) {
    return i64 ? static_cast<const int64_t *>(p)[off] : static_cast<int64_t>(static_cast<const int32_t *>(p)[off]);
}

[[noreturn]] void bad(const char *op, const std::string &what) {
    throw std::runtime_error(std::string(op) + ": " + what);
}

// Checks shared by the paged ops: q [.., heads, d]; caches [blocks, kv_heads, block_size, d].
// Where the tokens of the paged ops live: block_tables[s, t / block_size], row t % block_size.
struct PagedCache {
    Layout kc, vc, bt;
    size_t block_size;
    int64_t num_blocks;
    bool bt64;

    PagedCache(const Layout &k, const Layout &v, const Layout &tables)
        : kc(k),
          vc(v),
          bt(tables),
          block_size(k.shape[2]),
          num_blocks(static_cast<int64_t>(k.shape[0])),
          bt64(tables.dtype == INFINI_DTYPE_I64) {}

    int64_t block(const void *pbt, size_t s, size_t b) const {
        return readIndex(pbt, bt64,
                         static_cast<ptrdiff_t>(s) * bt.strides[0] + static_cast<ptrdiff_t>(b) * bt.strides[1]);
    }

    // Raises unless every block holding sequence s's first n tokens is a valid block id.
    void checkBlocks(const char *op, const void *pbt, size_t s, int64_t n) const {
        for (size_t b = 0; static_cast<int64_t>(b * block_size) < n; ++b) {
            int64_t blk = block(pbt, s, b);
            if (blk < 0 || blk >= num_blocks) {
                bad(op, "index " + std::to_string(blk) + " in block_tables is out of range [0, " +
                            std::to_string(num_blocks) + ")");
            }
        }
    }

    // The key and value rows of token t of sequence s, kv head g.
    template <typename T>
    std::pair<const T *, const T *> rows(const T *pkc, const T *pvc, const void *pbt, size_t s, size_t g,
                                         size_t t) const {
        int64_t blk = block(pbt, s, t / block_size);
        ptrdiff_t row = static_cast<ptrdiff_t>(t % block_size), h = static_cast<ptrdiff_t>(g);
        return {pkc + blk * kc.strides[0] + h * kc.strides[1] + row * kc.strides[2],
                pvc + blk * vc.strides[0] + h * vc.strides[1] + row * vc.strides[2]};
    }
};

}  // namespace

infiniStatus_t makeAttention(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "attention";
    Layout out = layoutOf(p.tensors[0]), kc = layoutOf(p.tensors[1]), vc = layoutOf(p.tensors[2]),
           q = layoutOf(p.tensors[3]), kk = layoutOf(p.tensors[4]), vv = layoutOf(p.tensors[5]);
    int64_t pos = p.i[0];
    INFINI_RETURN_IF_ERROR(checks::attention(out, kc, vc, q, kk, vv, pos));
    size_t heads = q.shape[0], seq = q.shape[1], d = q.shape[2], kvh = kk.shape[0];
    float scale = 1.0f / std::sqrt(static_cast<float>(d));
    size_t group = heads / kvh, elem = dtypeSize(q.dtype);
    return dispatchFloat(q.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *po = static_cast<T *>(data[0]);
            T *pkc = static_cast<T *>(data[1]);
            T *pvc = static_cast<T *>(data[2]);
            const T *pq = static_cast<const T *>(data[3]);
            const T *pk = static_cast<const T *>(data[4]);
            const T *pv = static_cast<const T *>(data[5]);
            for (size_t h = 0; h < kvh; ++h) {  // the cache write comes first: the new tokens attend to themselves
                for (size_t s = 0; s < seq; ++s) {
                    ptrdiff_t row = static_cast<ptrdiff_t>(pos) + static_cast<ptrdiff_t>(s);
                    std::memcpy(pkc + h * kc.strides[0] + row * kc.strides[1],
                                pk + h * kk.strides[0] + s * kk.strides[1], d * elem);
                    std::memcpy(pvc + h * vc.strides[0] + row * vc.strides[1],
                                pv + h * vv.strides[0] + s * vv.strides[1], d * elem);
                }
            }
            parallelFor(kvh * seq, (pos + seq) * d * 2 * group, [&](size_t begin, size_t end) {
                std::vector<float> qf(group * d), scores(group * (pos + seq)), acc(group * d);
                for (size_t r = begin; r < end; ++r) {
                    size_t g = r / seq, j = r % seq;
                    int64_t qpos = pos + static_cast<int64_t>(j);
                    auto kv = [&](size_t t) {
                        return std::make_pair(pkc + g * kc.strides[0] + t * kc.strides[1],
                                              pvc + g * vc.strides[0] + t * vc.strides[1]);
                    };
                    size_t h0 = g * group;
                    attendGroup(po + h0 * out.strides[0] + j * out.strides[1], out.strides[0],
                                pq + h0 * q.strides[0] + j * q.strides[1], q.strides[0], group, d,
                                static_cast<size_t>(qpos + 1), scale, nullptr, qpos, kv, qf.data(), scores.data(),
                                acc.data());
                }
            });
        };
    });
}

infiniStatus_t makePagedAttention(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "paged_attention";
    Layout out = layoutOf(p.tensors[0]), q = layoutOf(p.tensors[1]), kc = layoutOf(p.tensors[2]),
           vc = layoutOf(p.tensors[3]), bt = layoutOf(p.tensors[4]), lens = layoutOf(p.tensors[5]),
           alibi = layoutOf(p.tensors[6]);
    bool has_alibi = p.tensors[6] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedDecode(out, q, kc, vc, bt, lens, alibi, has_alibi));
    float scale = static_cast<float>(p.f[0]);
    size_t seqs = q.shape[0], heads = q.shape[1], d = q.shape[2], group = heads / kc.shape[1];
    PagedCache cache(kc, vc, bt);
    int64_t max_tokens = static_cast<int64_t>(bt.shape[1] * cache.block_size);
    bool len64 = lens.dtype == INFINI_DTYPE_I64;
    return dispatchFloat(q.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *po = static_cast<T *>(data[0]);
            const T *pq = static_cast<const T *>(data[1]);
            const T *pkc = static_cast<const T *>(data[2]);
            const T *pvc = static_cast<const T *>(data[3]);
            const void *pbt = data[4];
            const void *plen = data[5];
            const float *pal = has_alibi ? static_cast<const float *>(data[6]) : nullptr;
            int64_t longest = 0;
            for (size_t s = 0; s < seqs; ++s) {  // check every index before touching anything
                int64_t n = readIndex(plen, len64, static_cast<ptrdiff_t>(s) * lens.strides[0]);
                if (n < 0 || n > max_tokens)
                    bad(op, "seq_lens[" + std::to_string(s) + "] = " + std::to_string(n) + " is out of range [0, " +
                                std::to_string(max_tokens) + "]");
                cache.checkBlocks(op, pbt, s, n);
                longest = std::max(longest, n);
            }
            size_t kv_heads = heads / group;
            parallelFor(seqs * kv_heads, static_cast<size_t>(longest) * d * 2 * group, [&](size_t begin, size_t end) {
                std::vector<float> qf(group * d), scores(group * longest), acc(group * d), slopes(group);
                for (size_t r = begin; r < end; ++r) {
                    size_t s = r / kv_heads, g = r % kv_heads, h0 = g * group;
                    int64_t n = readIndex(plen, len64, static_cast<ptrdiff_t>(s) * lens.strides[0]);
                    auto kv = [&](size_t tok) { return cache.rows(pkc, pvc, pbt, s, g, tok); };
                    for (size_t x = 0; pal && x < group; ++x) slopes[x] = pal[(h0 + x) * alibi.strides[0]];
                    attendGroup(po + s * out.strides[0] + h0 * out.strides[1], out.strides[1],
                                pq + s * q.strides[0] + h0 * q.strides[1], q.strides[1], group, d,
                                static_cast<size_t>(n), scale, pal ? slopes.data() : nullptr, n - 1, kv, qf.data(),
                                scores.data(), acc.data());
                }
            });
        };
    });
}

infiniStatus_t makePagedAttentionPrefill(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "paged_attention_prefill";
    Layout out = layoutOf(p.tensors[0]), q = layoutOf(p.tensors[1]), kc = layoutOf(p.tensors[2]),
           vc = layoutOf(p.tensors[3]), bt = layoutOf(p.tensors[4]), lens = layoutOf(p.tensors[5]),
           cu = layoutOf(p.tensors[6]), alibi = layoutOf(p.tensors[7]);
    bool has_alibi = p.tensors[7] != nullptr;
    INFINI_RETURN_IF_ERROR(checks::pagedPrefill(out, q, kc, vc, bt, lens, cu, alibi, has_alibi));
    size_t seqs = bt.shape[0];
    float scale = static_cast<float>(p.f[0]);
    size_t total_q = q.shape[0], heads = q.shape[1], d = q.shape[2], group = heads / kc.shape[1];
    PagedCache cache(kc, vc, bt);
    int64_t max_tokens = static_cast<int64_t>(bt.shape[1] * cache.block_size);
    bool len64 = lens.dtype == INFINI_DTYPE_I64, cu64 = cu.dtype == INFINI_DTYPE_I64;
    return dispatchFloat(q.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *po = static_cast<T *>(data[0]);
            const T *pq = static_cast<const T *>(data[1]);
            const T *pkc = static_cast<const T *>(data[2]);
            const T *pvc = static_cast<const T *>(data[3]);
            const void *pbt = data[4];
            const void *plen = data[5];
            const void *pcu = data[6];
            const float *pal = has_alibi ? static_cast<const float *>(data[7]) : nullptr;
            std::vector<int64_t> row_seq(total_q);
            int64_t longest = 0;
            int64_t prev = readIndex(pcu, cu64, 0);
            if (prev != 0) bad(op, "cu_seqlens_q[0] must be 0, got " + std::to_string(prev));
            for (size_t s = 0; s < seqs; ++s) {
                int64_t next = readIndex(pcu, cu64, static_cast<ptrdiff_t>(s + 1) * cu.strides[0]);
                int64_t n = readIndex(plen, len64, static_cast<ptrdiff_t>(s) * lens.strides[0]);
                if (next < prev || next > static_cast<int64_t>(total_q))
                    bad(op, "cu_seqlens_q must rise from 0 to " + std::to_string(total_q));
                if (n < next - prev || n > max_tokens)
                    bad(op, "seq_lens[" + std::to_string(s) + "] = " + std::to_string(n) + " is out of range [q_len, " +
                                std::to_string(max_tokens) + "]");
                cache.checkBlocks(op, pbt, s, n);
                for (int64_t r = prev; r < next; ++r) row_seq[r] = static_cast<int64_t>(s);
                longest = std::max(longest, n);
                prev = next;
            }
            if (prev != static_cast<int64_t>(total_q)) bad(op, "cu_seqlens_q must end at " + std::to_string(total_q));
            size_t kv_heads = heads / group;
            parallelFor(
                total_q * kv_heads, static_cast<size_t>(longest) * d * 2 * group, [&](size_t begin, size_t end) {
                    std::vector<float> qf(group * d), scores(group * longest), acc(group * d), slopes(group);
                    for (size_t r = begin; r < end; ++r) {
                        size_t row = r / kv_heads, g = r % kv_heads, h0 = g * group;
                        int64_t s = row_seq[row];
                        int64_t start = readIndex(pcu, cu64, static_cast<ptrdiff_t>(s) * cu.strides[0]);
                        int64_t stop = readIndex(pcu, cu64, static_cast<ptrdiff_t>(s + 1) * cu.strides[0]);
                        int64_t n = readIndex(plen, len64, static_cast<ptrdiff_t>(s) * lens.strides[0]);
                        int64_t qpos = n - (stop - start) + (static_cast<int64_t>(row) - start);
                        auto kv = [&](size_t tok) { return cache.rows(pkc, pvc, pbt, static_cast<size_t>(s), g, tok); };
                        for (size_t x = 0; pal && x < group; ++x) slopes[x] = pal[(h0 + x) * alibi.strides[0]];
                        attendGroup(po + row * out.strides[0] + h0 * out.strides[1], out.strides[1],
                                    pq + row * q.strides[0] + h0 * q.strides[1], q.strides[1], group, d,
                                    static_cast<size_t>(qpos + 1), scale, pal ? slopes.data() : nullptr, qpos, kv,
                                    qf.data(), scores.data(), acc.data());
                    }
                });
        };
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
