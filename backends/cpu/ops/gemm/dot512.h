// dot512.h: C = alpha A B + beta Cin where B's k is contiguous (linear's weight [N, K]), as dot products
// along k read in place, in the AVX-512 build: float32 (fused multiply-adds, 16 of k a step) and bfloat16
// (vdpbf16ps, 32 of k a step: pairs of products into each float lane). A tile is MR rows of A against NR
// rows of B, MR x NR accumulators of 16 lanes (4 x 6: 24, 6 of B and 1 of A, 31 of the 32 registers),
// running down all of k; the last partial step by masked loads after the loop (a mask in every step costs
// 6-10%). Each thread takes groups of NR rows of B (48 KiB of bfloat16 at k = 4096), kept in the caches
// while every tile of A passes over it.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "../convert.h"
#include "../isa.h"
#include "../simd.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

#ifdef __AVX512F__

// What a step multiplies and adds, for float32 and (where there is AVX512-BF16) bfloat16.
struct DotF32 {
    using E = float;
    static constexpr size_t kStep = 16;
    static __m512 load(const float *p) { return _mm512_loadu_ps(p); }
    static __m512 loadTail(const float *p, size_t left) { return _mm512_maskz_loadu_ps(tailMask(left), p); }
    static __m512 madd(__m512 acc, __m512 a, __m512 b) { return _mm512_fmadd_ps(a, b, acc); }
};
#ifdef __AVX512BF16__
struct DotBf16 {
    using E = bf16;
    static constexpr size_t kStep = 32;
    static __m512bh load(const bf16 *p) { return (__m512bh)_mm512_loadu_si512(p); }
    static __m512bh loadTail(const bf16 *p, size_t left) {
        return (__m512bh)_mm512_maskz_loadu_epi16(static_cast<__mmask32>((1ULL << left) - 1), p);
    }
    static __m512 madd(__m512 acc, __m512bh a, __m512bh b) { return _mm512_dpbf16_ps(acc, a, b); }
};
#endif

// out[m][r] = A row m . B row r for the tile's MR rows of A (lda apart) and NR rows of B.
template <typename Op, int MR, int NR>
inline void dotTile512(const typename Op::E *a, size_t lda, size_t K, const typename Op::E *const *b,
                       float (*out)[NR]) {
    __m512 acc[MR][NR];
    for (int m = 0; m < MR; ++m)
        for (int r = 0; r < NR; ++r) acc[m][r] = _mm512_setzero_ps();
    auto step = [&](size_t k, auto load) {
        decltype(load(b[0])) bv[NR];
        for (int r = 0; r < NR; ++r) bv[r] = load(b[r] + k);
        for (int m = 0; m < MR; ++m) {
            const auto av = load(a + m * lda + k);
            for (int r = 0; r < NR; ++r) acc[m][r] = Op::madd(acc[m][r], av, bv[r]);
        }
    };
    size_t k = 0;
    for (; k + Op::kStep <= K; k += Op::kStep) step(k, [](const typename Op::E *p) { return Op::load(p); });
    if (k < K) {
        const size_t left = K - k;
        step(k, [left](const typename Op::E *p) { return Op::loadTail(p, left); });
    }
    for (int m = 0; m < MR; ++m)
        for (int r = 0; r < NR; ++r) out[m][r] = _mm512_reduce_add_ps(acc[m][r]);
}

// dotTile512<Op, mr, NR> for a run-time mr in [1, MR].
template <typename Op, int MR, int NR>
inline void dotRows512(size_t mr, const typename Op::E *a, size_t lda, size_t K, const typename Op::E *const *b,
                       float (*out)[NR]) {
    if constexpr (MR > 1) {
        if (mr < MR) return dotRows512<Op, MR - 1, NR>(mr, a, lda, K, b, out);
    }
    dotTile512<Op, MR, NR>(a, lda, K, b, out);
}

// All M rows of A against B's rows [NR t0, NR t1) (b_sj apart; N in all): write(i, m, j, nr) takes row m's
// sums for columns j .. j + nr from the tile's row out[i].
template <typename Op, int MR, int NR, typename Write>
void dotPart512(size_t t0, size_t t1, size_t M, size_t N, size_t K, const typename Op::E *a, size_t lda,
                const typename Op::E *B, ptrdiff_t b_sj, Write write) {
    for (size_t t = t0; t < t1; ++t) {
        const size_t j = NR * t, nr = std::min<size_t>(NR, N - j);
        const typename Op::E *rows[NR];
        for (size_t r = 0; r < NR; ++r) rows[r] = B + static_cast<ptrdiff_t>(j + std::min(r, nr - 1)) * b_sj;
        for (size_t m0 = 0; m0 < M; m0 += MR) {
            const size_t mr = std::min<size_t>(MR, M - m0);
            float out[MR][NR];
            dotRows512<Op, MR, NR>(mr, a + m0 * lda, lda, K, rows, out);
            for (size_t i = 0; i < mr; ++i) write(out[i], m0 + i, j, nr);
        }
    }
}

#endif  // __AVX512F__

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
