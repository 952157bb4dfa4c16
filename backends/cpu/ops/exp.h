// exp.h: e^x in float, scalar (expf_fast) and in vectors (exp512, exp256), all on one polynomial and
// none calling libm, so that loops calling them vectorize; and silu on top of it.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "convert.h"
#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

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
// e^x for 16 lanes (same polynomial as expf_fast): 2^n by vscalefps, which also gives 0 for very
// negative x and inf for very positive x; NaN stays NaN.
inline __m512 exp512(__m512 x) {
    // below -104 e^x is 0 in float; keeps -inf out of r. max returns its second operand where it is NaN,
    // hence x second: NaN stays NaN (the other order would make a NaN e^-104 = 0, lost by softmax)
    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
    // above 100 e^x is inf in float (by the scalef below, from 88.73 on); keeps x * log2(e) small enough that
    // x - n ln 2 stays in [-ln2/2, ln2/2] (at x = 7e10, gelu's tanh form at x = 1e4, rounding would leave r
    // near -1600, the polynomial negative and e^x -inf). min gives x when it is NaN.
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
    __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
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

inline float siluf(float x) { return x / (1.0f + expf_fast(-x)); }

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
