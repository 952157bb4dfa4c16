// random.cpp: the random family on the cpu backend. The generator and the transforms are common/random_math.h;
// this file walks output 0 of the iteration space. Element k (dim 0 fastest) takes block offset + k of the stream
// whichever thread draws it, so results do not depend on the thread count. Values are made kBlock at a time: the
// Philox blocks in AVX2 registers, then the transforms (no libm call for float outputs: that loop
// vectorizes) into a local buffer, then stored in the output's dtype.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "../../common/error.h"
#include "../../common/random_math.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

constexpr int kBlock = 64;

struct Plan {
    infiniopRandomArgs_t a;
    uint64_t threshold = 0;  // BERNOULLI
    uint64_t range = 0;      // RANDINT: i1 - i0 modulo 2^64 (0: all 2^64 values)
    double log1m_p = 0;      // GEOMETRIC
};

// Philox4x32-10 on 8 * G counters at once (rnd::philox's rounds, with AVX2's 32x32->64-bit products on even and
// odd lanes): blocks n0 .. n0 + 8G - 1 into lanes j.. of w[0..3]. G groups of eight run interleaved, so one
// group's multiplies hide another's latency. The caller keeps n0's low word from wrapping inside them.
template <int G>
inline void philoxLanes(uint64_t seed, uint64_t n0, uint32_t (*w)[kBlock], int j) {
    const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
    const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
    __m256i c0[G], c1[G], c2[G], c3[G];
    for (int g = 0; g < G; ++g) {
        c0[g] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(n0) + 8 * g)),
                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        c1[g] = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(n0 >> 32)));
        c2[g] = _mm256_setzero_si256();
        c3[g] = _mm256_setzero_si256();
    }
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        const __m256i kk0 = _mm256_set1_epi32(static_cast<int>(k0)), kk1 = _mm256_set1_epi32(static_cast<int>(k1));
        for (int g = 0; g < G; ++g) {
            const __m256i e0 = _mm256_mul_epu32(c0[g], m0), o0 = _mm256_mul_epu32(_mm256_srli_epi64(c0[g], 32), m0);
            const __m256i e1 = _mm256_mul_epu32(c2[g], m1), o1 = _mm256_mul_epu32(_mm256_srli_epi64(c2[g], 32), m1);
            const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);
            const __m256i lo0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);
            const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);
            const __m256i lo1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);
            c0[g] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[g]), kk0);
            c2[g] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[g]), kk1);
            c1[g] = lo1;
            c3[g] = lo0;
        }
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    for (int g = 0; g < G; ++g) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(&w[0][j + 8 * g]), c0[g]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(&w[1][j + 8 * g]), c1[g]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(&w[2][j + 8 * g]), c2[g]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(&w[3][j + 8 * g]), c3[g]);
    }
}

// The words of blocks n0 .. n0 + cnt - 1.
void blocks(uint64_t seed, uint64_t n0, int cnt, uint32_t (*w)[kBlock]) {
    int j = 0;
    for (; j + 16 <= cnt && static_cast<uint32_t>(n0 + j) <= 0xFFFFFFFFu - 15; j += 16) {
        philoxLanes<2>(seed, n0 + j, w, j);
    }
    for (; j + 8 <= cnt && static_cast<uint32_t>(n0 + j) <= 0xFFFFFFFFu - 7; j += 8) {
        philoxLanes<1>(seed, n0 + j, w, j);
    }
    for (; j < cnt; ++j) {  // the tail, and blocks whose counter's low word wraps
        uint32_t v[4];
        rnd::philox(seed, n0 + static_cast<uint64_t>(j), v);
        for (int k = 0; k < 4; ++k) w[k][j] = v[k];
    }
}

// The values of stream positions [n0, n0 + cnt) as V. p / ps / pt: the BERNOULLI_TENSOR probabilities (their
// address at the first position, byte stride, dtype).
template <int OP, class V>
void make(const Plan &plan, uint64_t n0, int cnt, V *buf, const char *p, int64_t ps, infiniDtype_t pt) {
    const infiniopRandomArgs_t &a = plan.a;
    uint32_t words[4][kBlock];
    blocks(a.seed, n0, cnt, words);
    const float ff0 = static_cast<float>(a.f[0]), ff1 = static_cast<float>(a.f[1]);
    const float fspan = static_cast<float>(a.f[1] - a.f[0]);
    for (int j = 0; j < cnt; ++j) {
        const uint32_t w[4] = {words[0][j], words[1][j], words[2][j], words[3][j]};
        if constexpr (OP == INFINIOP_RANDOM_UNIFORM) {
            if constexpr (sizeof(V) == 4) {
                buf[j] = ff0 + rnd::u24(w[0]) * fspan;
            } else {
                buf[j] = a.f[0] + rnd::u53(w[0], w[1]) * (a.f[1] - a.f[0]);
            }
        } else if constexpr (OP == INFINIOP_RANDOM_NORMAL) {
            if constexpr (sizeof(V) == 4) {
                buf[j] = ff0 + ff1 * rnd::normalF(w);
            } else {
                buf[j] = a.f[0] + a.f[1] * rnd::normalD(w);
            }
        } else if constexpr (OP == INFINIOP_RANDOM_LOG_NORMAL) {
            buf[j] = std::exp(a.f[0] + a.f[1] * rnd::normalD(w));
        } else if constexpr (OP == INFINIOP_RANDOM_BERNOULLI) {
            buf[j] = rnd::bernoulli(w, plan.threshold) ? 1 : 0;
        } else if constexpr (OP == INFINIOP_RANDOM_BERNOULLI_TENSOR) {
            buf[j] = rnd::u53(w[0], w[1]) < load<double>(p + j * ps, pt) ? 1 : 0;
        } else if constexpr (OP == INFINIOP_RANDOM_EXPONENTIAL) {
            buf[j] = rnd::exponential(w, a.f[0]);
        } else if constexpr (OP == INFINIOP_RANDOM_RANDINT) {
            buf[j] = static_cast<int64_t>(static_cast<uint64_t>(a.i[0]) + rnd::randintOffset(w, plan.range));
        } else if constexpr (OP == INFINIOP_RANDOM_GEOMETRIC) {
            buf[j] = rnd::geometric(w, plan.log1m_p);
        } else if constexpr (OP == INFINIOP_RANDOM_CAUCHY) {
            buf[j] = rnd::cauchy(w, a.f[0], a.f[1]);
        }
    }
}

// Stores cnt values at out (byte stride os) as dtype t. kUniform: a value that rounded up to the upper bound
// f1 becomes f0 (the range is half-open; torch's CUDA kernel does the same).
template <class V, bool kUniform>
void put(char *out, int64_t os, infiniDtype_t t, const V *buf, int cnt, double f0, double f1) {
    auto typed = [&](auto tag) {
        using T = decltype(tag);
        for (int j = 0; j < cnt; ++j) {
            T x;
            if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
                x = fromFloat<T>(static_cast<float>(buf[j]));
                if constexpr (kUniform) {
                    if (static_cast<double>(toFloat(x)) >= f1 && f1 > f0) x = fromFloat<T>(static_cast<float>(f0));
                }
            } else {
                x = static_cast<T>(buf[j]);
                if constexpr (kUniform) {
                    if (static_cast<double>(x) >= f1 && f1 > f0) x = static_cast<T>(f0);
                }
            }
            *reinterpret_cast<T *>(out + j * os) = x;
        }
    };
    switch (t) {
        case INFINI_DTYPE_F32: typed(float{}); return;
        case INFINI_DTYPE_F64: typed(double{}); return;
        case INFINI_DTYPE_F16: typed(f16{}); return;
        case INFINI_DTYPE_BF16: typed(bf16{}); return;
        default: break;
    }
    for (int j = 0; j < cnt; ++j) store<V>(out + j * os, t, buf[j]);  // integer and bool outputs
}

template <int OP, class V>
void fill(const Plan &plan) {
    const infiniopIter_t &it = plan.a.iter;
    const int64_t n = numel(it);
    constexpr int64_t kGrain = 4096;  // elements a piece
    const int64_t pieces = (n + kGrain - 1) / kGrain;
    const size_t cost = (OP == INFINIOP_RANDOM_UNIFORM || OP == INFINIOP_RANDOM_BERNOULLI) ? 8 : 32;
    constexpr bool kUniform = OP == INFINIOP_RANDOM_UNIFORM;
    const infiniDtype_t pt = it.noperands > 1 ? it.dtype[1] : INFINI_DTYPE_INVALID;
    parallelFor(static_cast<size_t>(pieces), cost * kGrain, [&](size_t b, size_t e) {
        int64_t pos = static_cast<int64_t>(b) * kGrain;
        const int64_t end = std::min<int64_t>(n, static_cast<int64_t>(e) * kGrain);
        V buf[kBlock];
        forEachRun(it, pos, end, [&](char **ptrs, const int64_t *s0, int64_t len) {
            for (int64_t j = 0; j < len; j += kBlock) {
                const int cnt = static_cast<int>(std::min<int64_t>(kBlock, len - j));
                const char *p = it.noperands > 1 ? ptrs[1] + j * s0[1] : nullptr;
                make<OP, V>(plan, plan.a.offset + static_cast<uint64_t>(pos + j), cnt, buf, p,
                            it.noperands > 1 ? s0[1] : 0, pt);
                put<V, kUniform>(ptrs[0] + j * s0[0], s0[0], it.dtype[0], buf, cnt, plan.a.f[0], plan.a.f[1]);
            }
            pos += len;
        });
    });
}

void run(const Plan &plan) {
    const bool f64 = plan.a.iter.dtype[0] == INFINI_DTYPE_F64;
    switch (plan.a.op) {
        case INFINIOP_RANDOM_UNIFORM:
            if (f64) {
                fill<INFINIOP_RANDOM_UNIFORM, double>(plan);
            } else {
                fill<INFINIOP_RANDOM_UNIFORM, float>(plan);
            }
            return;
        case INFINIOP_RANDOM_NORMAL:
            if (f64) {
                fill<INFINIOP_RANDOM_NORMAL, double>(plan);
            } else {
                fill<INFINIOP_RANDOM_NORMAL, float>(plan);
            }
            return;
        case INFINIOP_RANDOM_BERNOULLI: fill<INFINIOP_RANDOM_BERNOULLI, uint8_t>(plan); return;
        case INFINIOP_RANDOM_BERNOULLI_TENSOR: fill<INFINIOP_RANDOM_BERNOULLI_TENSOR, uint8_t>(plan); return;
        case INFINIOP_RANDOM_EXPONENTIAL: fill<INFINIOP_RANDOM_EXPONENTIAL, double>(plan); return;
        case INFINIOP_RANDOM_RANDINT: fill<INFINIOP_RANDOM_RANDINT, int64_t>(plan); return;
        case INFINIOP_RANDOM_GEOMETRIC: fill<INFINIOP_RANDOM_GEOMETRIC, double>(plan); return;
        case INFINIOP_RANDOM_CAUCHY: fill<INFINIOP_RANDOM_CAUCHY, double>(plan); return;
        case INFINIOP_RANDOM_LOG_NORMAL: fill<INFINIOP_RANDOM_LOG_NORMAL, double>(plan); return;
        default: return;
    }
}

}  // namespace

infiniStatus_t random(const infiniopRandomArgs_t &a, infinirtStream_t stream) {
    const int expected = a.op == INFINIOP_RANDOM_BERNOULLI_TENSOR ? 2 : 1;
    if (a.iter.noperands != expected) {
        return fail(INFINI_STATUS_BAD_PARAM, "random op %d: %d operands (expected %d)", a.op, a.iter.noperands,
                    expected);
    }
    if (a.op == INFINIOP_RANDOM_BERNOULLI_TENSOR) {
        const infiniDtype_t t = a.iter.dtype[1];
        if (t != INFINI_DTYPE_F32 && t != INFINI_DTYPE_F64 && t != INFINI_DTYPE_F16 && t != INFINI_DTYPE_BF16) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "random BERNOULLI_TENSOR: probabilities of dtype %d", t);
        }
    }
    if (numel(a.iter) == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    plan->threshold = rnd::bernoulliThreshold(a.f[0]);
    plan->range = static_cast<uint64_t>(a.i[1]) - static_cast<uint64_t>(a.i[0]);
    plan->log1m_p = std::log1p(-a.f[0]);
    return submit(stream, [plan] { run(*plan); });
}

}  // namespace infini::cpu::families
