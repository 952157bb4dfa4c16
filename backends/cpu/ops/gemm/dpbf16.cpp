// dpbf16.cpp: bfloat16 gemm on AVX512-BF16 (vdpbf16ps) where there is no AMX: C = alpha A B + beta Cin,
// every matrix given by its element strides.
//
// vdpbf16ps adds to each float lane the two products of a bf16 pair: lane n of B's vector holds
// (B[2p][n], B[2p + 1][n]) and A's pair (A[m][2p], A[m][2p + 1]) is broadcast, so one instruction does
// 16 columns x one pair of k for a row. dpbf16GemmBf16 packs A once into blocks of rows (14, or 16 where
// that leaves fewer rows unused: 9-16 rows, 32, 64, ...), pair by pair; each thread takes panels of 32
// columns of B, packs a panel (all of k, pair-interleaved: 64 KiB per 1024 of k, kept in L2; linear's
// weight by 16 x 16 transposes) and runs every block of A over it, the block's sums
// in registers for all of k, so C is written once, rounded once. With at most 64 rows and a row-major B
// it packs a block of 64 pairs at a time across all the thread's panels instead (B's rows read in order;
// a panel of all k reads 64 bytes of each row), the sums kept in memory between blocks. Rows past M and
// the pair past an odd K are zero in the packed copies. dpbf16DotBf16 (B's k contiguous: linear's weight,
// up to kDpbf16DotMaxRows rows) reads B in place as dot products along k, no packing.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../convert.h"
#include "../isa.h"
#include "../parallel.h"
#include "dot512.h"
#include "dpbf16.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

#if defined(__AVX512BF16__)

namespace {

constexpr int kRows = 14;   // rows of A a micro-kernel takes: 14 x 2 accumulators + 2 of B + 1 of A
constexpr int kPanel = 32;  // columns of B a panel holds (two vectors of 16 lanes)

inline uint32_t pairOf(bf16 lo, bf16 hi) {
    return static_cast<uint32_t>(lo.bits) | (static_cast<uint32_t>(hi.bits) << 16);
}

// ap[blk][p][r] = (A[blk R + r][2p], A[..][2p + 1]), zero past M and K.
void packA(const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, size_t M, size_t K, size_t P, size_t R, uint32_t *ap) {
    const size_t blocks = (M + R - 1) / R;
    parallelFor(blocks, P * R, [&](size_t b0, size_t b1) {
        const bf16 zero{0};
        for (size_t blk = b0; blk < b1; ++blk) {
            uint32_t *dst = ap + blk * P * R;
            for (size_t r = 0; r < R; ++r) {
                const size_t m = blk * R + r;
                if (m >= M) {
                    for (size_t p = 0; p < P; ++p) dst[p * R + r] = 0;
                    continue;
                }
                const bf16 *row = A + static_cast<ptrdiff_t>(m) * a_si;
                for (size_t p = 0; p < P; ++p) {
                    const size_t k = 2 * p;
                    const bf16 lo = row[static_cast<ptrdiff_t>(k) * a_sk];
                    const bf16 hi = k + 1 < K ? row[static_cast<ptrdiff_t>(k + 1) * a_sk] : zero;
                    dst[p * R + r] = pairOf(lo, hi);
                }
            }
        }
    });
}

// A row-major B's pairs [p0, p0 + pc) for the `np` panels from column j0 (the last may be partial, N
// ends it): kp[panel][p - p0][n], reading each pair of rows across all the panels in turn (sequential).
void packRows(const bf16 *B, ptrdiff_t b_sk, size_t K, size_t N, size_t p0, size_t pc, size_t j0, size_t np,
              uint32_t *kp, size_t pstride) {
    const __m512i lo =
        _mm512_setr_epi32(0x200000, 0x210001, 0x220002, 0x230003, 0x240004, 0x250005, 0x260006, 0x270007, 0x280008,
                          0x290009, 0x2a000a, 0x2b000b, 0x2c000c, 0x2d000d, 0x2e000e, 0x2f000f);
    const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
    const bf16 zero{0};
    for (size_t p = p0; p < p0 + pc; ++p) {
        const size_t k = 2 * p;
        const bf16 *r0 = B + static_cast<ptrdiff_t>(k) * b_sk,
                   *r1 = k + 1 < K ? B + static_cast<ptrdiff_t>(k + 1) * b_sk : nullptr;
        for (size_t q = 0; q < np; ++q) {
            const size_t j = j0 + q * kPanel, cols = std::min<size_t>(kPanel, N - j);
            uint32_t *dst = kp + q * pstride + (p - p0) * kPanel;
            if (cols == kPanel) {
                const __m512i v0 = _mm512_loadu_si512(r0 + j),
                              v1 = r1 != nullptr ? _mm512_loadu_si512(r1 + j) : _mm512_setzero_si512();
                _mm512_storeu_si512(dst, _mm512_permutex2var_epi16(v0, lo, v1));
                _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi16(v0, hi, v1));
            } else {
                for (size_t n = 0; n < kPanel; ++n)
                    dst[n] = n < cols ? pairOf(r0[j + n], r1 != nullptr ? r1[j + n] : zero) : 0;
            }
        }
    }
}

// 16 rows (ld elements apart) x 16 32-bit words from src, transposed: dst[w * ldd + r] = word w of row r.
inline void transpose16(const bf16 *src, ptrdiff_t ld, uint32_t *dst, size_t ldd) {
    __m512i r[16], a[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(src + i * ld);
    for (int i = 0; i < 8; ++i) {  // a[2i], a[2i + 1]: words of rows 2i, 2i + 1 interleaved, per 128-bit lane
        a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {  // r[4i + c], lane L: word 4L + c of rows 4i .. 4i + 3
        r[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
        r[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
        r[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
        r[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
    }
    for (int c = 0; c < 4; ++c) {  // the 4 x 4 lanes of r[c], r[4 + c], r[8 + c], r[12 + c] transposed: words 4L + c
        const __m512i u0 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0x44), u1 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0xee);
        const __m512i u2 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0x44),
                      u3 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0xee);
        _mm512_storeu_si512(dst + (0 + c) * ldd, _mm512_shuffle_i32x4(u0, u2, 0x88));
        _mm512_storeu_si512(dst + (4 + c) * ldd, _mm512_shuffle_i32x4(u0, u2, 0xdd));
        _mm512_storeu_si512(dst + (8 + c) * ldd, _mm512_shuffle_i32x4(u1, u3, 0x88));
        _mm512_storeu_si512(dst + (12 + c) * ldd, _mm512_shuffle_i32x4(u1, u3, 0xdd));
    }
}

// bp[p][n] = (B[2p][j0 + n], B[2p + 1][j0 + n]) for the panel's `cols` columns, zero past them and K.
void packPanel(const bf16 *B, ptrdiff_t b_sk, ptrdiff_t b_sj, size_t K, size_t P, size_t j0, size_t cols,
               uint32_t *bp) {
    const bf16 zero{0};
    if (cols == kPanel && b_sk == 1 && b_sj > 0 &&
        b_sj < (1 << 25)) {  // linear's weight [N, K]: a pair is one 32-bit word of a row
        const __m512i rows = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                _mm512_set1_epi32(static_cast<int>(b_sj)));
        const bf16 *base0 = B + static_cast<ptrdiff_t>(j0) * b_sj, *base1 = base0 + 16 * b_sj;
        const size_t full = K / 2;
        size_t p = 0;
        // 16 pairs of 16 rows at a time by an in-register transpose, the rest by gathers (gathers alone
        // are about 12% slower on linear 512x4096->4096)
        for (; p + 16 <= full; p += 16) {
            transpose16(base0 + 2 * p, b_sj, bp + p * kPanel, kPanel);
            transpose16(base1 + 2 * p, b_sj, bp + p * kPanel + 16, kPanel);
        }
        for (; p < full; ++p) {
            _mm512_storeu_si512(bp + p * kPanel, _mm512_i32gather_epi32(rows, base0 + 2 * p, 2));
            _mm512_storeu_si512(bp + p * kPanel + 16, _mm512_i32gather_epi32(rows, base1 + 2 * p, 2));
        }
        if (full < P) {
            for (size_t n = 0; n < kPanel; ++n)
                bp[full * kPanel + n] = pairOf(B[static_cast<ptrdiff_t>(j0 + n) * b_sj + (K - 1)], zero);
        }
        return;
    }
    if (b_sj == 1) {  // B row-major: two rows interleaved element by element
        packRows(B, b_sk, K, j0 + cols, 0, P, j0, 1, bp, P * kPanel);
        return;
    }
    for (size_t p = 0; p < P; ++p) {
        const size_t k = 2 * p;
        for (size_t n = 0; n < kPanel; ++n) {
            if (n >= cols) {
                bp[p * kPanel + n] = 0;
                continue;
            }
            const bf16 *col = B + static_cast<ptrdiff_t>(j0 + n) * b_sj;
            bp[p * kPanel + n] = pairOf(col[static_cast<ptrdiff_t>(k) * b_sk],
                                        k + 1 < K ? col[static_cast<ptrdiff_t>(k + 1) * b_sk] : zero);
        }
    }
}

// out[n c_sj] = alpha sums[n] + beta in[n in_sj] (in may be null), rounded to bf16 once, for n < w.
void writeRow(const float *sums, size_t w, float alpha, const bf16 *in, ptrdiff_t in_sj, float beta, bf16 *out,
              ptrdiff_t c_sj) {
    size_t n = 0;
    if (c_sj == 1 && in == nullptr) {
        const __m512 va = _mm512_set1_ps(alpha);
        for (; n + 16 <= w; n += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + n),
                                (__m256i)_mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(sums + n), va)));
    }
    for (; n < w; ++n) {
        float v = alpha * sums[n];
        if (in != nullptr) v += beta * toFloat(in[static_cast<ptrdiff_t>(n) * in_sj]);
        out[static_cast<ptrdiff_t>(n) * c_sj] = fromFloat<bf16>(v);
    }
}

// acc[r][v] += the R rows of a packed block of A times NB vectors of 16 columns of a packed panel
// (bp: its first column), over P pairs. R x NB accumulators: 14 x 2, or 16 x 1 (each half of the panel
// in turn) where blocks of 16 leave fewer rows unused.
template <int R, int NB>
inline void sums(size_t P, const uint32_t *ap, const uint32_t *bp, __m512 (&acc)[R][NB]) {
    for (size_t p = 0; p < P; ++p) {
        __m512bh b[NB];
        for (int v = 0; v < NB; ++v) b[v] = (__m512bh)_mm512_loadu_si512(bp + p * kPanel + 16 * v);
        const uint32_t *a = ap + p * R;
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r]));
            for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, b[v]);
        }
    }
}

// The same for P pairs added to float sums kept in memory (acc: R rows of ld floats).
template <int R, int NB>
void microAdd(size_t P, const uint32_t *ap, const uint32_t *bp, float *accm, size_t ld) {
    __m512 acc[R][NB];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_loadu_ps(accm + r * ld + 16 * v);
    sums<R, NB>(P, ap, bp, acc);
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < NB; ++v) _mm512_storeu_ps(accm + r * ld + 16 * v, acc[r][v]);
}

// The block's rows x the columns from bp over all P pairs, C written (writeRow) for `rows` x `cols`.
template <int R, int NB>
void micro(size_t P, const uint32_t *ap, const uint32_t *bp, size_t rows, size_t cols, bf16 *C, ptrdiff_t c_si,
           ptrdiff_t c_sj, const bf16 *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta) {
    __m512 acc[R][NB];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_setzero_ps();
    sums<R, NB>(P, ap, bp, acc);
    for (size_t r = 0; r < rows; ++r) {
        float v[16 * NB];
        for (int q = 0; q < NB; ++q) _mm512_storeu_ps(v + 16 * q, acc[r][q]);
        writeRow(v, cols, alpha, Cin == nullptr ? nullptr : Cin + static_cast<ptrdiff_t>(r) * in_si, in_sj, beta,
                 C + static_cast<ptrdiff_t>(r) * c_si, c_sj);
    }
}

}  // namespace

void dpbf16DotBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                   ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin, ptrdiff_t in_si,
                   ptrdiff_t in_sj, float alpha, float beta) {
    if (M == 0 || N == 0) return;
    if (beta == 0.0f) Cin = nullptr;
    // A read in place where its k is contiguous (the tiles' last step loads by a mask), else copied
    // row by row (K apart)
    const bf16 *a = A;
    size_t lda = static_cast<size_t>(a_si);
    if (a_sk != 1) {
        thread_local std::vector<bf16> acopy;
        acopy.resize(M * K);
        for (size_t m = 0; m < M; ++m)
            for (size_t k = 0; k < K; ++k)
                acopy[m * K + k] = A[static_cast<ptrdiff_t>(m) * a_si + static_cast<ptrdiff_t>(k) * a_sk];
        a = acopy.data();
        lda = K;
    }
    constexpr size_t MR = 4, NR = 6;  // (dot512.h)
    parallelFor((N + NR - 1) / NR, NR * M * K, [&](size_t t0, size_t t1) {
        dotPart512<DotBf16, MR, NR>(
            t0, t1, M, N, K, a, lda, B, b_sj, [&](const float *sums, size_t m, size_t j, size_t nr) {
                const bf16 *in = Cin == nullptr
                                     ? nullptr
                                     : Cin + static_cast<ptrdiff_t>(m) * in_si + static_cast<ptrdiff_t>(j) * in_sj;
                writeRow(sums, nr, alpha, in, in_sj, beta,
                         C + static_cast<ptrdiff_t>(m) * c_si + static_cast<ptrdiff_t>(j) * c_sj, c_sj);
            });
    });
}

bool dpbf16Available() { return true; }

void dpbf16GemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                    ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                    ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta) {
    if (M == 0 || N == 0) return;
    // blocks of 16 rows (each half panel in turn) where they leave fewer rows unused than blocks of 14
    // (5-7% faster at 32-128 rows)
    const bool sixteen = M > 8 && (M + 15) / 16 * 16 < (M + 13) / 14 * 14;
    const size_t R = sixteen ? 16 : kRows;
    const size_t P = (K + 1) / 2, blocks = (M + R - 1) / R, panels = (N + kPanel - 1) / kPanel;
    if (beta == 0.0f) Cin = nullptr;
    thread_local std::vector<uint32_t> apack;
    apack.resize(blocks * P * R);
    packA(A, a_si, a_sk, M, K, P, R, apack.data());
    const uint32_t *ap = apack.data();
    if (b_sj == 1 && M <= 64) {
        // few rows, B row-major: B packed a block of pairs at a time across the thread's columns, so that
        // its rows are read in order (a panel of all k reads 64 bytes of each row: 1.3-2x slower below 64
        // rows; past 64 the panels below are faster), the sums kept in memory between blocks
        constexpr size_t kPairs = 64;
        parallelFor(panels, blocks * R * P * kPanel, [&](size_t q0, size_t q1) {
            const size_t np = q1 - q0, ld = np * kPanel, j0 = q0 * kPanel;
            thread_local std::vector<uint32_t> kpack;
            thread_local std::vector<float> accm;
            kpack.resize(np * kPairs * kPanel);
            accm.assign(blocks * R * ld, 0.0f);
            for (size_t p0 = 0; p0 < P; p0 += kPairs) {
                const size_t pc = std::min(kPairs, P - p0);
                packRows(B, b_sk, K, N, p0, pc, j0, np, kpack.data(), kPairs * kPanel);
                for (size_t q = 0; q < np; ++q) {
                    for (size_t blk = 0; blk < blocks; ++blk) {
                        const uint32_t *a = ap + blk * P * R + p0 * R, *b = kpack.data() + q * kPairs * kPanel;
                        float *acc = accm.data() + blk * R * ld + q * kPanel;
                        if (sixteen) {
                            microAdd<16, 1>(pc, a, b, acc, ld);
                            microAdd<16, 1>(pc, a, b + 16, acc + 16, ld);
                        } else {
                            microAdd<kRows, 2>(pc, a, b, acc, ld);
                        }
                    }
                }
            }
            const size_t w = std::min(N, q1 * kPanel) - j0;
            for (size_t m = 0; m < M; ++m) {  // (row m's sums: accm + m ld, the blocks being R rows of ld each)
                const bf16 *in = Cin == nullptr
                                     ? nullptr
                                     : Cin + static_cast<ptrdiff_t>(m) * in_si + static_cast<ptrdiff_t>(j0) * in_sj;
                writeRow(accm.data() + m * ld, w, alpha, in, in_sj, beta,
                         C + static_cast<ptrdiff_t>(m) * c_si + static_cast<ptrdiff_t>(j0) * c_sj, c_sj);
            }
        });
        return;
    }
    parallelFor(panels, blocks * R * P * kPanel, [&](size_t q0, size_t q1) {
        thread_local std::vector<uint32_t> bpack;
        bpack.resize(P * kPanel);
        for (size_t q = q0; q < q1; ++q) {
            const size_t j0 = q * kPanel, cols = std::min<size_t>(kPanel, N - j0);
            packPanel(B, b_sk, b_sj, K, P, j0, cols, bpack.data());
            for (size_t blk = 0; blk < blocks; ++blk) {
                const size_t m0 = blk * R, rows = std::min<size_t>(R, M - m0);
                const uint32_t *a = ap + blk * P * R;
                bf16 *c = C + static_cast<ptrdiff_t>(m0) * c_si + static_cast<ptrdiff_t>(j0) * c_sj;
                const bf16 *in = Cin == nullptr
                                     ? nullptr
                                     : Cin + static_cast<ptrdiff_t>(m0) * in_si + static_cast<ptrdiff_t>(j0) * in_sj;
                if (sixteen) {
                    for (size_t h = 0; h < 2 && 16 * h < cols; ++h) {
                        micro<16, 1>(P, a, bpack.data() + 16 * h, rows, std::min<size_t>(16, cols - 16 * h),
                                     c + static_cast<ptrdiff_t>(16 * h) * c_sj, c_si, c_sj,
                                     in == nullptr ? nullptr : in + static_cast<ptrdiff_t>(16 * h) * in_sj, in_si,
                                     in_sj, alpha, beta);
                    }
                } else {
                    micro<kRows, 2>(P, a, bpack.data(), rows, cols, c, c_si, c_sj, in, in_si, in_sj, alpha, beta);
                }
            }
        }
    });
}

#else  // no AVX512-BF16 in this build

bool dpbf16Available() { return false; }

void dpbf16DotBf16(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, bf16 *,
                   ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float) {
    std::abort();  // unreachable: dpbf16Available() is false in this build
}

void dpbf16GemmBf16(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t,
                    bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float) {
    std::abort();  // unreachable: dpbf16Available() is false in this build
}

#endif

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
