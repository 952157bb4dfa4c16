// simd.h: vector loads and stores of each storage dtype, converting to and from float in registers
// (8 lanes with AVX2/F16C, 16 with AVX-512), and whole rows converted with them (loadRow/storeRow).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

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
    __m256i is_nan =
        _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
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
            _mm256_storeu_si256(
                reinterpret_cast<__m256i *>(dst + i),
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

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
