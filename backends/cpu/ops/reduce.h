// reduce.h: reductions in float: the lane sums of vectors (hsum256, reduceAdd8, reduceAdd16) and of
// rows (dotRow, shiftedMoments, maxRow, and expSubRow, softmax's exponentials with their sum).
//
// The row loops keep two vector accumulators and reduce across lanes once at the end, in explicit
// vectors: the compiler's own vectorization of such sums reduces across lanes every iteration.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "exp.h"
#include "isa.h"
#include "simd.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

#ifdef __AVX2__
// The sum of a vector's eight lanes.
inline float hsum256(__m256 v) {
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}

// The lane sums of eight vectors, as one vector (lane j: the sum of a[j]'s lanes).
inline __m256 reduceAdd8(const __m256 *a) {
    __m256 h01 = _mm256_hadd_ps(a[0], a[1]), h23 = _mm256_hadd_ps(a[2], a[3]);
    __m256 h45 = _mm256_hadd_ps(a[4], a[5]), h67 = _mm256_hadd_ps(a[6], a[7]);
    __m256 lo = _mm256_hadd_ps(h01, h23), hi = _mm256_hadd_ps(h45, h67);  // [0..3 | 0..3], [4..7 | 4..7] halves
    return _mm256_add_ps(_mm256_permute2f128_ps(lo, hi, 0x20), _mm256_permute2f128_ps(lo, hi, 0x31));
}
#endif

// sum_i a[i] * b[i] in float.
inline float dotRow(const float *__restrict a, const float *__restrict b, size_t n) {
    size_t i = 0;
    float s = 0.0f;
#ifdef __AVX512F__
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
        acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
    }
    for (; i + 16 <= n; i += 16) acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
    if (i < n) {  // the last partial vector under a mask
        __mmask16 k = tailMask(n - i);
        acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i), acc1);
        i = n;
    }
    s = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
#else
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
    }
    for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    s = hsum256(_mm256_add_ps(acc0, acc1));
#endif
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
}

// sum_i (a[i] - c) and sum_i (a[i] - c)^2 in one pass (c near the values keeps the variance
// E[(a - c)^2] - E[a - c]^2 free of cancellation). With AVX-512, a may also be float16 or bfloat16, each
// converted in registers as it is read.
template <typename T = float>
inline void shiftedMoments(const T *__restrict a, float c, size_t n, float *s1, float *s2) {
    size_t i = 0;
    float t1 = 0.0f, t2 = 0.0f;
#ifdef __AVX512F__
    __m512 vc = _mm512_set1_ps(c), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps();
    __m512 b1 = _mm512_setzero_ps(), b2 = _mm512_setzero_ps();
    for (; i + 32 <= n; i += 32) {
        __m512 d0 = _mm512_sub_ps(load16f(a + i), vc), d1 = _mm512_sub_ps(load16f(a + i + 16), vc);
        a1 = _mm512_add_ps(a1, d0);
        b1 = _mm512_add_ps(b1, d1);
        a2 = _mm512_fmadd_ps(d0, d0, a2);
        b2 = _mm512_fmadd_ps(d1, d1, b2);
    }
    for (; i < n; i += 16) {
        __mmask16 k = tailMask(n - i);
        __m512 d = _mm512_maskz_sub_ps(k, load16f(a + i, k), vc);
        a1 = _mm512_add_ps(a1, d);
        a2 = _mm512_fmadd_ps(d, d, a2);
    }
    t1 = _mm512_reduce_add_ps(_mm512_add_ps(a1, b1));
    t2 = _mm512_reduce_add_ps(_mm512_add_ps(a2, b2));
#else
    static_assert(std::is_same_v<T, float>, "16-bit rows: AVX-512 only");
    __m256 vc = _mm256_set1_ps(c), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps();
    __m256 b1 = _mm256_setzero_ps(), b2 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), vc), d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), vc);
        a1 = _mm256_add_ps(a1, d0);
        b1 = _mm256_add_ps(b1, d1);
        a2 = _mm256_fmadd_ps(d0, d0, a2);
        b2 = _mm256_fmadd_ps(d1, d1, b2);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), vc);
        a1 = _mm256_add_ps(a1, d);
        a2 = _mm256_fmadd_ps(d, d, a2);
    }
    t1 = hsum256(_mm256_add_ps(a1, b1));
    t2 = hsum256(_mm256_add_ps(a2, b2));
    for (; i < n; ++i) {
        float d = a[i] - c;
        t1 += d;
        t2 += d * d;
    }
#endif
    *s1 = t1;
    *s2 = t2;
}

#ifdef __AVX512F__
// The lane sums of 16 vectors at once: out[j] = sum of acc[j]'s lanes (a transpose-and-add tree,
// 45 instructions instead of 16 separate reductions). The tree leaves the sums in a fixed order of
// lanes, found once by running it on known inputs.
inline __m512 reduceAdd16Tree(const __m512 *acc) {
    __m512 t[8], u[4], v[2];
    for (int j = 0; j < 8; ++j) {
        t[j] = _mm512_add_ps(_mm512_shuffle_f32x4(acc[j], acc[j + 8], 0x44),
                             _mm512_shuffle_f32x4(acc[j], acc[j + 8], 0xEE));
    }
    for (int j = 0; j < 4; ++j) {
        u[j] = _mm512_add_ps(_mm512_shuffle_f32x4(t[j], t[j + 4], 0x88), _mm512_shuffle_f32x4(t[j], t[j + 4], 0xDD));
    }
    for (int j = 0; j < 2; ++j)
        u[j] = _mm512_add_ps(_mm512_unpacklo_ps(u[j], u[j + 2]), _mm512_unpackhi_ps(u[j], u[j + 2]));
    v[0] = u[0];
    v[1] = u[1];
    return _mm512_add_ps(_mm512_shuffle_ps(v[0], v[1], 0x44), _mm512_shuffle_ps(v[0], v[1], 0xEE));
}

inline __m512i reduceAdd16Order() {
    alignas(64) int idx[16];
    __m512 acc[16];
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, reduceAdd16Tree(acc));
    for (int l = 0; l < 16; ++l) idx[static_cast<int>(lanes[l] / 16.0f + 0.5f)] = l;  // lane l holds 16 * j
    return _mm512_load_si512(idx);
}

inline __m512 reduceAdd16(const __m512 *acc) {
    static const __m512i order = reduceAdd16Order();
    return _mm512_permutexvar_ps(order, reduceAdd16Tree(acc));
}
#endif

// max_i a[i] (-inf for n == 0).
inline float maxRow(const float *__restrict a, size_t n) {
    size_t i = 0;
    float m = -INFINITY;
#ifdef __AVX512F__
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    for (; i + 32 <= n; i += 32) {
        m0 = _mm512_max_ps(m0, _mm512_loadu_ps(a + i));
        m1 = _mm512_max_ps(m1, _mm512_loadu_ps(a + i + 16));
    }
    for (; i < n; i += 16) {
        __mmask16 k = tailMask(n - i);
        m0 = _mm512_max_ps(m0, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, a + i));
    }
    m = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
#else
    __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0;
    for (; i + 16 <= n; i += 16) {
        m0 = _mm256_max_ps(m0, _mm256_loadu_ps(a + i));
        m1 = _mm256_max_ps(m1, _mm256_loadu_ps(a + i + 8));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, _mm256_max_ps(m0, m1));
    for (float v : lanes) m = v > m ? v : m;
#endif
    for (; i < n; ++i) m = a[i] > m ? a[i] : m;
    return m;
}

// dst[i] = e^(src[i] - c) for every i (dst may be src); returns their sum.
inline float expSubRow(float *dst, const float *src, float c, size_t n) {
    size_t i = 0;
    float s = 0.0f;
#ifdef __AVX512F__
    __m512 vc = _mm512_set1_ps(c), acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    for (; i + 32 <= n; i += 32) {
        __m512 e0 = exp512(_mm512_sub_ps(_mm512_loadu_ps(src + i), vc));
        __m512 e1 = exp512(_mm512_sub_ps(_mm512_loadu_ps(src + i + 16), vc));
        _mm512_storeu_ps(dst + i, e0);
        _mm512_storeu_ps(dst + i + 16, e1);
        acc0 = _mm512_add_ps(acc0, e0);
        acc1 = _mm512_add_ps(acc1, e1);
    }
    for (; i < n; i += 16) {
        __mmask16 k = tailMask(n - i);
        __m512 e = _mm512_maskz_mov_ps(k, exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, src + i), vc)));
        _mm512_mask_storeu_ps(dst + i, k, e);
        acc0 = _mm512_add_ps(acc0, e);
    }
    s = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
#else
    __m256 vc = _mm256_set1_ps(c), acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        __m256 e0 = exp256(_mm256_sub_ps(_mm256_loadu_ps(src + i), vc));
        __m256 e1 = exp256(_mm256_sub_ps(_mm256_loadu_ps(src + i + 8), vc));
        _mm256_storeu_ps(dst + i, e0);
        _mm256_storeu_ps(dst + i + 8, e1);
        acc0 = _mm256_add_ps(acc0, e0);
        acc1 = _mm256_add_ps(acc1, e1);
    }
    s = hsum256(_mm256_add_ps(acc0, acc1));
#endif
    for (; i < n; ++i) {
        dst[i] = expf_fast(src[i] - c);
        s += dst[i];
    }
    return s;
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
