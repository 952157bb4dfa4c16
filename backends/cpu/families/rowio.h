// rowio.h: what the row-shaped families (rows, norm, nll_loss, sdpa) share: contiguous runs of any float dtype
// converted to and from a compute buffer (float or double), and the row sums the vector helpers of ops/reduce.h
// do not provide. The float forms use the avx2 build's vector conversions (ops/simd.h), so that a 16-bit row
// costs one pass.
#pragma once

#include <immintrin.h>

#include <infini/families.h>

#include <cmath>
#include <cstddef>
#include <cstring>

#include "../ops/reduce.h"
#include "../ops/simd.h"
#include "strided.h"

namespace infini::cpu::families {

// True for the dtypes the row families take (F16, BF16, F32, F64).
inline bool isRowDtype(infiniDtype_t t) {
    return t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16 || t == INFINI_DTYPE_F64;
}

// dst[0..n) = src[0..n) (of dtype t) as C.
template <class C>
inline void loadRun(C *__restrict dst, const void *src, infiniDtype_t t, size_t n) {
    if constexpr (sizeof(C) == sizeof(float)) {
        switch (t) {
            case INFINI_DTYPE_F32: std::memcpy(dst, src, n * sizeof(float)); return;
            case INFINI_DTYPE_F16: ops::avx2::loadRow(dst, static_cast<const f16 *>(src), n); return;
            case INFINI_DTYPE_BF16: ops::avx2::loadRow(dst, static_cast<const bf16 *>(src), n); return;
            default: break;
        }
    }
    switch (t) {
        case INFINI_DTYPE_F32: {
            const float *s = static_cast<const float *>(src);
            for (size_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
            return;
        }
        case INFINI_DTYPE_F64: {
            const double *s = static_cast<const double *>(src);
            for (size_t i = 0; i < n; ++i) dst[i] = static_cast<C>(s[i]);
            return;
        }
        case INFINI_DTYPE_F16: {
            const f16 *s = static_cast<const f16 *>(src);
            for (size_t i = 0; i < n; ++i) dst[i] = static_cast<C>(ops::avx2::toFloat(s[i]));
            return;
        }
        case INFINI_DTYPE_BF16: {
            const bf16 *s = static_cast<const bf16 *>(src);
            for (size_t i = 0; i < n; ++i) dst[i] = static_cast<C>(ops::avx2::toFloat(s[i]));
            return;
        }
        default: return;
    }
}

// dst[0..n) (of dtype t) = src[0..n), rounded once to t.
template <class C>
inline void storeRun(void *dst, infiniDtype_t t, const C *__restrict src, size_t n) {
    if constexpr (sizeof(C) == sizeof(float)) {
        switch (t) {
            case INFINI_DTYPE_F32: std::memcpy(dst, src, n * sizeof(float)); return;
            case INFINI_DTYPE_F16: ops::avx2::storeRow(static_cast<f16 *>(dst), src, n); return;
            case INFINI_DTYPE_BF16: ops::avx2::storeRow(static_cast<bf16 *>(dst), src, n); return;
            default: break;
        }
    }
    switch (t) {
        case INFINI_DTYPE_F32: {
            float *d = static_cast<float *>(dst);
            for (size_t i = 0; i < n; ++i) d[i] = static_cast<float>(src[i]);
            return;
        }
        case INFINI_DTYPE_F64: {
            double *d = static_cast<double *>(dst);
            for (size_t i = 0; i < n; ++i) d[i] = static_cast<double>(src[i]);
            return;
        }
        case INFINI_DTYPE_F16: {
            f16 *d = static_cast<f16 *>(dst);
            for (size_t i = 0; i < n; ++i) d[i] = ops::avx2::fromFloat<f16>(static_cast<float>(src[i]));
            return;
        }
        case INFINI_DTYPE_BF16: {
            bf16 *d = static_cast<bf16 *>(dst);
            for (size_t i = 0; i < n; ++i) d[i] = ops::avx2::fromFloat<bf16>(static_cast<float>(src[i]));
            return;
        }
        default: return;
    }
}

// The address of element k of a run of dtype t starting at p.
inline const void *at(const void *p, infiniDtype_t t, size_t k) {
    return static_cast<const char *>(p) + k * static_cast<size_t>(elementSize(t));
}
inline void *at(void *p, infiniDtype_t t, size_t k) {
    return static_cast<char *>(p) + k * static_cast<size_t>(elementSize(t));
}

// sum_i a[i], in C (float: two vector accumulators, reduced across lanes once).
template <class C>
inline C sumRun(const C *__restrict a, size_t n) {
    size_t i = 0;
    C s = 0;
    if constexpr (sizeof(C) == sizeof(float)) {
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        for (; i + 16 <= n; i += 16) {
            acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(a + i));
            acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(a + i + 8));
        }
        for (; i + 8 <= n; i += 8) acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(a + i));
        s = ops::avx2::hsum256(_mm256_add_ps(acc0, acc1));
    }
    for (; i < n; ++i) s += a[i];
    return s;
}

// sum_i a[i] * b[i], in C.
template <class C>
inline C dotRun(const C *__restrict a, const C *__restrict b, size_t n) {
    if constexpr (sizeof(C) == sizeof(float)) {
        return ops::avx2::dotRow(a, b, n);
    } else {
        C s = 0;
        for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
        return s;
    }
}

// max_i a[i] (-inf for n == 0; a NaN need not propagate: callers' sums of e^(a - max) do).
template <class C>
inline C maxRun(const C *__restrict a, size_t n) {
    if constexpr (sizeof(C) == sizeof(float)) {
        return ops::avx2::maxRow(a, n);
    } else {
        C m = -static_cast<C>(INFINITY);
        for (size_t i = 0; i < n; ++i) m = a[i] > m ? a[i] : m;
        return m;
    }
}

// dst[i] = e^(src[i] - c) (dst may be src); returns their sum.
template <class C>
inline C expSubRun(C *dst, const C *src, C c, size_t n) {
    if constexpr (sizeof(C) == sizeof(float)) {
        return ops::avx2::expSubRow(dst, src, c, n);
    } else {
        C s = 0;
        for (size_t i = 0; i < n; ++i) {
            dst[i] = std::exp(src[i] - c);
            s += dst[i];
        }
        return s;
    }
}

}  // namespace infini::cpu::families
