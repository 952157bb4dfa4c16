// common.h: what every CPU operator shares: dtypes and their float conversions, a vectorizable
// exp, tensor-descriptor checks, row addressing, parallel loops, and the descriptor base class.
//
// Kernels compute in float32 whatever the storage dtype (float32, float16, bfloat16), split work
// across threads by rows (OpenMP, only when there is enough work to pay for it), and keep the
// innermost loop contiguous so that the compiler vectorizes it (AVX2/FMA/F16C, see CMakeLists.txt).
#pragma once

#include <infini/backend.h>

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "../../common/error.h"
#include "../../common/layout.h"
#include "../../common/op_checks.h"

// Every file of ops/ is compiled twice (CMakeLists.txt): for x86-64-v3 (AVX2, FMA, F16C) in
// namespace avx2, and for AVX-512 with BF16 and AMX in namespace avx512; dispatch.cpp picks one
// at run time. Each build lives in its own namespace so that no inline function compiled for one
// instruction set can be linked into the other.
#ifndef INFINI_CPU_ISA
#error "ops/ sources are built with INFINI_CPU_ISA=avx2 or avx512 (see backends/CMakeLists.txt)"
#endif

namespace infini::cpu::ops::INFINI_CPU_ISA {

struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};

inline float bitsToFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint32_t floatToBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float toFloat(float v) { return v; }
// IEEE half to float without branches (so loops vectorize): rebias normals and subnormals with one
// multiply by 2^112, and give inf/nan the all-ones exponent.
inline float toFloat(f16 v) {
    uint32_t h = v.bits, sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    float f = bitsToFloat(em << 13) * 5.192296858534828e+33f;  // 2^112
    uint32_t bits = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : floatToBits(f);
    return bitsToFloat(bits | sign);
}
inline float toFloat(bf16 v) {
    uint32_t u = static_cast<uint32_t>(v.bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

template <typename T>
inline T fromFloat(float v);
template <>
inline float fromFloat<float>(float v) { return v; }
// float to IEEE half, round to nearest even, without branches (all three cases are computed).
template <>
inline f16 fromFloat<f16>(float v) {
    uint32_t f = floatToBits(v), sign = f & 0x80000000u;
    f ^= sign;
    uint32_t special = f > 0x7f800000u ? 0x7e00u : 0x7c00u;                        // nan, or overflow to inf
    const uint32_t denorm_magic = ((127 - 15) + (23 - 10) + 1) << 23;
    uint32_t sub = floatToBits(bitsToFloat(f) + bitsToFloat(denorm_magic)) - denorm_magic;  // subnormal or 0
    uint32_t normal = (f + ((15u - 127u) << 23) + 0xfffu + ((f >> 13) & 1u)) >> 13;
    uint32_t o = f >= 0x47800000u ? special : (f < 0x38800000u ? sub : normal);
    return f16{static_cast<uint16_t>(o | (sign >> 16))};
}
template <>
inline bf16 fromFloat<bf16>(float v) {  // round to nearest even; NaN stays NaN (branch-free: vectorizes)
    uint32_t u;
    std::memcpy(&u, &v, 4);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;
    return bf16{static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded)};
}

#ifdef __AVX512F__
// The lanes of the last (partial) vector of a loop with `left` elements to go.
inline __mmask16 tailMask(size_t left) {
    return left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1);
}
// Sixteen elements of a storage dtype to/from sixteen floats in a register (k: only the lanes it sets are
// read or written; the lanes it leaves are read as 0). bfloat16 stores by vcvtneps2bf16 (AVX512-BF16).
inline __m512 load16f(const float *p, __mmask16 k = 0xffff) { return _mm512_maskz_loadu_ps(k, p); }
inline __m512 load16f(const f16 *p, __mmask16 k = 0xffff) { return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, p)); }
inline __m512 load16f(const bf16 *p, __mmask16 k = 0xffff) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, p)), 16));
}
inline void store16f(float *p, __m512 v, __mmask16 k = 0xffff) { _mm512_mask_storeu_ps(p, k, v); }
inline void store16f(f16 *p, __m512 v, __mmask16 k = 0xffff) {
    _mm256_mask_storeu_epi16(p, k, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
#ifdef __AVX512BF16__
inline void store16f(bf16 *p, __m512 v, __mmask16 k = 0xffff) {
    __m256bh h = _mm512_cvtneps_pbh(v);
    _mm256_mask_storeu_epi16(p, k, reinterpret_cast<__m256i &>(h));
}
#endif
#endif

#ifdef __AVX2__
// Eight elements of a storage dtype to/from eight floats in a register (bfloat16 rounds to nearest
// even and keeps NaN a NaN, exactly as fromFloat).
inline __m256 load8(const float *p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const f16 *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }
inline __m256 load8(const bf16 *p) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
inline void store8(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
inline __m128i pack8(f16 *, __m256 v) { return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); }
// Eight floats to bfloat16 bits in the low half of each 32-bit lane (the high half zero).
inline __m256i bf16Lanes(__m256 v) {
    __m256i u = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
    __m256i nan = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    return _mm256_blendv_epi8(rounded, nan, is_nan);  // every lane < 2^16: packus keeps it
}
// (With AVX512-BF16 one vcvtneps2bf16, which like storeRow's flushes bfloat16 denormals to zero.)
inline __m128i pack8(bf16 *, __m256 v) {
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
    __m128bh h = _mm256_cvtneps_pbh(v);
    return reinterpret_cast<__m128i &>(h);
#else
    __m256i o = bf16Lanes(v);
    return _mm_packus_epi32(_mm256_castsi256_si128(o), _mm256_extracti128_si256(o, 1));
#endif
}
// Sixteen bfloat16 as two float vectors with no cross-lane moves: lo holds elements 0-3 and 8-11, hi
// 4-7 and 12-15 (unpack against zero puts each value in the high half of a 32-bit lane); pack16 undoes
// it (packus interleaves the same way, lane by lane).
inline void load16(const bf16 *p, __m256 &lo, __m256 &hi) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), x));
    hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), x));
}
inline __m256i pack16(bf16 *, __m256 lo, __m256 hi) { return _mm256_packus_epi32(bf16Lanes(lo), bf16Lanes(hi)); }
inline void store8(f16 *p, __m256 v) { _mm_storeu_si128(reinterpret_cast<__m128i *>(p), pack8(p, v)); }
inline void store8(bf16 *p, __m256 v) { _mm_storeu_si128(reinterpret_cast<__m128i *>(p), pack8(p, v)); }
// The same with a streaming store (p on 16 bytes).
inline void stream8(f16 *p, __m256 v) { _mm_stream_si128(reinterpret_cast<__m128i *>(p), pack8(p, v)); }
inline void stream8(bf16 *p, __m256 v) { _mm_stream_si128(reinterpret_cast<__m128i *>(p), pack8(p, v)); }
#endif

// Whole rows between a storage dtype and float: dst[i] = toFloat(src[i]) / dst[i] = fromFloat<T>(src[i]),
// with the instruction set's own conversions where it has them (F16C for float16; AVX512-BF16 for
// bfloat16, round to nearest even as fromFloat).
template <typename T>
inline void loadRow(float *__restrict dst, const T *__restrict src, size_t n) {
    size_t i = 0;
    if constexpr (std::is_same_v<T, float>) {
        std::memcpy(dst, src, n * sizeof(float));
        return;
    } else if constexpr (std::is_same_v<T, f16>) {
#ifdef __AVX512F__
        for (; i + 16 <= n; i += 16) {
            _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i))));
        }
#endif
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, load8(src + i));
    } else {
#ifdef __AVX512F__
        for (; i + 16 <= n; i += 16) {
            __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i)));
            _mm512_storeu_ps(dst + i, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
        }
        if (i < n) {
            __mmask16 k = tailMask(n - i);
            __m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, src + i));
            _mm512_mask_storeu_ps(dst + i, k, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
            i = n;
        }
#endif
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, load8(src + i));
    }
    for (; i < n; ++i) dst[i] = toFloat(src[i]);
}

template <typename T>
inline void storeRow(T *__restrict dst, const float *__restrict src, size_t n) {
    size_t i = 0;
    if constexpr (std::is_same_v<T, float>) {
        std::memcpy(dst, src, n * sizeof(float));
        return;
    } else if constexpr (std::is_same_v<T, f16>) {
#ifdef __AVX512F__
        for (; i + 16 <= n; i += 16) {
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                                _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
#endif
        for (; i + 8 <= n; i += 8) store8(dst + i, _mm256_loadu_ps(src + i));
    } else {
#ifdef __AVX512BF16__
        for (; i + 16 <= n; i += 16) {
            __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), reinterpret_cast<__m256i &>(h));
        }
        if (i < n) {
            __mmask16 k = tailMask(n - i);
            __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(k, src + i));
            _mm256_mask_storeu_epi16(dst + i, k, reinterpret_cast<__m256i &>(h));
            i = n;
        }
#endif
        for (; i + 8 <= n; i += 8) store8(dst + i, _mm256_loadu_ps(src + i));
    }
    for (; i < n; ++i) dst[i] = fromFloat<T>(src[i]);
}

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
    // explicit vectors: the compiler's own vectorization of eight partial sums reduced them across
    // lanes every iteration here (2x slower layer_norm than torch on an AVX2-only CPU)
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

// e^x in float, to about 2 ulp, written so that loops calling it vectorize (no libm call).
// Very negative x gives 0; very positive x gives +inf.
inline float expf_fast(float x) {
    const float hi = 88.3762626647949f, lo = -87.3365478515625f;
    float xc = x > hi ? hi : (x < lo ? lo : x);
    const float round_magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    float n = (xc * 1.44269504088896341f + round_magic) - round_magic;
    float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t e = static_cast<int32_t>(n) + 127;
    float y = p * bitsToFloat(static_cast<uint32_t>(e) << 23);
    y = x < lo ? 0.0f : y;
    return x > hi ? INFINITY : y;
}

#ifdef __AVX512F__
// The lane sums of 16 vectors at once: out[j] = sum of acc[j]'s lanes (a transpose-and-add tree,
// 45 instructions instead of 16 separate reductions). The tree leaves the sums in a fixed order of
// lanes, found once by running it on known inputs.
inline __m512 reduceAdd16Tree(const __m512 *acc) {
    __m512 t[8], u[4], v[2];
    for (int j = 0; j < 8; ++j) {
        t[j] = _mm512_add_ps(_mm512_shuffle_f32x4(acc[j], acc[j + 8], 0x44), _mm512_shuffle_f32x4(acc[j], acc[j + 8], 0xEE));
    }
    for (int j = 0; j < 4; ++j) {
        u[j] = _mm512_add_ps(_mm512_shuffle_f32x4(t[j], t[j + 4], 0x88), _mm512_shuffle_f32x4(t[j], t[j + 4], 0xDD));
    }
    for (int j = 0; j < 2; ++j) u[j] = _mm512_add_ps(_mm512_unpacklo_ps(u[j], u[j + 2]), _mm512_unpackhi_ps(u[j], u[j + 2]));
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

#ifdef __AVX512F__
// e^x for 16 lanes (same polynomial as expf_fast): 2^n by vscalefps, which also gives 0 for very
// negative x and inf for very positive x; NaN stays NaN.
inline __m512 exp512(__m512 x) {
    // below -104 e^x is 0 in float; keeps -inf out of r. (max returns its second operand, x, where it is
    // NaN: NaN stays NaN - with the operands the other way round a NaN became e^-104 = 0 and softmax lost it)
    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
    // above 100 e^x is inf in float (by the scalef below, from 88.73 on); keeps x * log2(e) small enough that
    // x - n ln 2 stays in [-ln2/2, ln2/2]: at x = 7e10 (gelu's tanh form at x = 1e4) its rounding left r near
    // -1600, the polynomial negative and e^x -inf (NaN downstream). min gives x when it is NaN.
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), x);
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(p, n);
}
#endif

#if defined(__AVX2__) && !defined(__AVX512F__)
// e^x for 8 lanes (same polynomial as expf_fast): 2^n built in the exponent bits; 0 below, inf above
// float's range; NaN stays NaN (max/min return their second operand, x, when it is NaN).
inline __m256 exp256(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.3365478515625f), hi = _mm256_set1_ps(88.3762626647949f);
    __m256 xc = _mm256_min_ps(hi, _mm256_max_ps(lo, x));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
    return _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
}
#endif

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
    // explicit vectors (the compiler's vectorization of eight partial sums was slower than torch's softmax)
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

inline float siluf(float x) { return x / (1.0f + expf_fast(-x)); }

// Dispatches f<T>() on a float dtype, or returns BAD_TENSOR_DTYPE.
template <typename F>
infiniStatus_t dispatchFloat(infiniDtype_t dtype, const char *op, F &&f) {
    switch (dtype) {
        case INFINI_DTYPE_F32: f(float{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_F16: f(f16{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_BF16: f(bf16{}); return INFINI_STATUS_SUCCESS;
        default:
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: dtype %d is not float32, float16 or bfloat16", op, dtype);
    }
}

// Layouts and their checks: shared with the other backends (common/layout.h).
using ::infini::expectLastContiguous;
using ::infini::expectSameDtype;
using ::infini::expectSameShape;
using ::infini::Layout;
using ::infini::isIndexType;
using ::infini::layoutOf;
namespace checks = ::infini::checks;

// Threads parallelFor can use (the backend's thread pool, caller included).
size_t parallelism();

// Runs body(begin, end) over [0, n) items, in parallel when n * cost_per_item is large enough.
void parallelFor(size_t n, size_t cost_per_item, const std::function<void(size_t, size_t)> &body);

// The ops that write each output byte once from inputs they read once write their output with
// non-temporal (streaming) stores where the bytes they move (inputs read and output written) reach
// this many. A quarter of the last-level cache, the threshold glibc's memcpy takes for its own streaming
// stores (2.38+): traffic that large mostly evicts what is still to be read, and the output goes to
// memory anyway; streaming stores skip reading each destination line before it is written (a quarter
// less traffic for add). Counting the inputs too
// brings 16-bit add/mul of 2M elements (12 MiB moved, 4 MiB written) in: float16 [512, 4096] add/mul
// 0.92-1.01 -> 0.83-0.91 of torch, bfloat16 0.81-0.95 -> 0.77-0.86 (Zen 3, 3 and 2 runs). (embedding
// counts its output alone against 4x this: gather.cpp.)
// The size is the L3 of cpu0 as sysfs gives it (32 MiB here: 8 MiB), else sysconf's, else 32 MiB.
size_t streamingStoreBytes();

// Copies n bytes to dst with streaming stores (any alignment; a store fence at the end).
void streamCopy(void *dst, const void *src, size_t n);

// The computation of one op instance, on the data pointers in the order of the op's tensors.
using Kernel = std::function<void(void *const *data)>;

// Each op checks its params and returns its kernel (capturing what it needs by value), or a status.
using OpFactory = infiniStatus_t (*)(const infiniopOpParams_t &p, Kernel *kernel);

infiniStatus_t makeAdd(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeMul(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSilu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRelu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeGelu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSwiGLU(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSiluAndMul(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRMSNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeAddRMSNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeLayerNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeCausalSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeEmbedding(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRoPE(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeTopkSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRandomSample(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedCaching(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeGemm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeAttention(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedAttention(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedAttentionPrefill(const infiniopOpParams_t &p, Kernel *k);

// bfloat16 C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * Cin(i, j) on AMX (amx.cpp), every
// matrix given by its element strides; Cin may be null. Only when amxAvailable().
bool amxAvailable();
void amxGemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                 ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                 ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);

// The same on AVX512-BF16 (dpbf16.cpp; vdpbf16ps), where there is no AMX. Only when dpbf16Available()
// (the AVX-512 build, which requires AVX512-BF16).
bool dpbf16Available();
constexpr size_t kDpbf16DotMaxRows = 256;
void dpbf16GemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                    ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                    ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);
// The same with B's k contiguous (linear's weight: B read in place as dot products, no packing), for up
// to kDpbf16DotMaxRows rows of A: past it the packed product is as fast or faster (Zen 4, 2 threads, bf16
// [M, 4096] x [4096, 4096]^T, ms, dot / packed / torch: M = 24 3.11 / 9.44 (gathered panels; 7.99 at 64
// with transposed ones) / 3.11, 64 6.2 / 8.0 / 6.2, 128 11.0 / 14.4 / 11.1, 256 24.5 / 23.9 / 20.8, 384
// 33.0 / 33.2 / 31.6, 512 47.5 / 41.4-42.5 / 39.4-40.2).
void dpbf16DotBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B, ptrdiff_t b_sj,
                   bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha,
                   float beta);

// Attention scores on AMX (amx.cpp; only when amxAvailable(), between amxBegin() and amxEnd() on
// the calling thread): amxPackQ packs up to 16 query rows (bf16, head_dim d a multiple of 32) as
// d/32 B tiles; amxScores16 gives out[j][g] = k_j . q_g (float, 16 x 16, row stride 16) for the 16
// key rows at krows (row stride ldk elements).
void amxBegin();
void amxEnd();
void amxPackQ(const bf16 *q, ptrdiff_t qs, size_t G, size_t d, uint16_t *qpack);
void amxScores16(const bf16 *krows, size_t ldk, const uint16_t *qpack, size_t d, float *out);

// gemm with M <= 16 rows and B's columns contiguous (gemv.cpp; only when gemvShape(M, N, dtype is float32)):
// C[m, :] = alpha * A[m, :] @ B + beta * Cin[m, :], C's columns contiguous.
bool gemvShape(size_t M, size_t N, bool f32);
template <typename T>
void gemvRowMajorB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sk,
                   T *C, ptrdiff_t c_si, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);

// gemm with few rows of A and B's k contiguous (B = W^T for linear's weight W [N, K]; gemv.cpp, when
// gemvDotShape(M, f32)): C[m, j] = alpha * A[m, :] . B[:, j] + beta * Cin[m, j], B read in place in its
// own dtype: up to 16 rows, and float32 in the AVX-512 build up to 128 rows (4 x 6 tiles of 16-lane
// accumulators, A read in place). Against OpenBLAS's sgemm of a transposed B (gemm.cpp parallelSgemm),
// [M, 4096] x [4096, 4096]^T float32, ms, ours / OpenBLAS / torch: Zen 4, 2 threads: M = 1 2.08 / 6.21 /
// 3.25, 16 3.74 / 7.98 / 7.98, 64 10.9-12.3 / 15.4-17.4 / 15.8-19.9, 128 20.7-23.7 / 25.4-26.2 / 27-37,
// 256 45.4-46.6 / 46.6-47.1 / 51-58, 512 82-85 / 85-87 / 96-101; the GPU machine's 16-core Xeon: 16 0.77 /
// 0.63 / 1.7-2.6, 64 2.88 / 3.08 / 3.9-4.1, 256 12.4 / 9.1 / 9.0, 512 24.0 / 18.6 / 14.5-17.4, hence the
// bound. The AVX2 build's 2 x 4 tiles of 8 lanes (Zen 4): M = 1 2.17 / 6.11, 16 5.97 / 8.14.
constexpr size_t kGemvDotMaxRows = 16, kGemvDotMaxRowsF32 = 128;
bool gemvDotShape(size_t M, bool f32);
template <typename T>
void gemvDotB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sj,
              T *C, ptrdiff_t c_si, ptrdiff_t c_sj, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha,
              float beta);

// The backend's create_op: makes a descriptor whose run() executes the kernel now
// (INFINIRT_STREAM_CALLER) or queues it on a stream of the handle's device.
infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
