// gemv.cpp: gemm with few rows (decode: M <= 16) and B row-major (its columns contiguous), for float16,
// bfloat16 where there is no AMX (AMX is faster; with AVX512-BF16 up to 8 rows, see gemm.cpp) and float32
// (AVX2: up to 4 rows, AVX-512: up to 8), with AVX-512 or AVX2; and gemm with few rows and B's k
// contiguous (linear's weight) for float16/bfloat16 and float32 (with AVX-512 up to 128 rows: gemv.h
// gemvDotShape).
//
// Such a product reads all of B once and does little arithmetic per element, so it is a question of
// streaming B well. Each thread takes a range of columns; a micro-kernel keeps the MR x 16 block of C
// in registers for a pass over 16 rows of k, every B vector feeding MR fused multiply-adds with A
// broadcast from a float copy (MR = M rounded up to 1, 2, 4, 8 or 16, the extra rows zero; AVX2 has
// registers for 4 rows, so more go through in groups of 4, each reusing the B tile from L1). A pass
// walks the 16 rows across the thread's columns side by side, so that B streams as 16 sequential
// reads (a pass down one column strip over many rows, at B's row stride, is 2-4x slower); rows are
// also prefetched a few ahead.
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "../convert.h"
#include "../parallel.h"
#include "../reduce.h"
#include "../simd.h"
#include "dot512.h"
#include "gemv.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

namespace {

// A's M rows (row stride a_si, column stride a_sk) as float, row-major [rows][K] in the calling thread's
// buffer, kept between calls (no allocation once grown); rows past M (up to `rows`) are zero. The
// parallel workers must reach it through the returned pointer: inside a parallel region the buffer's
// name would mean each worker's own thread_local copy.
template <typename T>
const float *widenRows(const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, size_t M, size_t K, size_t rows) {
    thread_local std::vector<float> a;
    a.assign(rows * K, 0.0f);
    for (size_t m = 0; m < M; ++m) {
        float *row = a.data() + m * K;
        const T *src = A + static_cast<ptrdiff_t>(m) * a_si;
        if (a_sk == 1) {
            loadRow(row, src, K);
        } else {
            for (size_t k = 0; k < K; ++k) row[k] = toFloat(src[static_cast<ptrdiff_t>(k) * a_sk]);
        }
    }
    return a.data();
}

}  // namespace

#if defined(__AVX512F__) || defined(__AVX2__)
namespace {

#ifdef __AVX512F__
constexpr int kMaxMR = 16;  // rows a micro-kernel keeps: MR x 16 columns in MR zmm registers

template <typename T>
inline __m512 load16(const T *p) {
    if constexpr (std::is_same_v<T, float>) {
        return _mm512_loadu_ps(p);
    } else if constexpr (std::is_same_v<T, f16>) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    } else {
        __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
    }
}

// acc[MR][16 columns at c] += A[MR][k0, k1) * B[k0, k1)[c .. c + 16)
template <int MR, typename T>
inline void micro(const float *a, size_t lda, const T *b, size_t ldb, size_t k0, size_t k1, float *acc, size_t ldacc) {
    __m512 c[MR];
    for (int m = 0; m < MR; ++m) c[m] = _mm512_loadu_ps(acc + m * ldacc);
    constexpr size_t kAhead = 8;
    for (size_t k = k0; k < k1; ++k) {
        _mm_prefetch(reinterpret_cast<const char *>(b + (k + kAhead) * ldb), _MM_HINT_T0);
        __m512 bv = load16(b + k * ldb);
        for (int m = 0; m < MR; ++m) c[m] = _mm512_fmadd_ps(_mm512_set1_ps(a[m * lda + k]), bv, c[m]);
    }
    for (int m = 0; m < MR; ++m) _mm512_storeu_ps(acc + m * ldacc, c[m]);
}
#else
constexpr int kMaxMR = 4;  // 16 ymm registers: 4 rows x 16 columns (8 accumulators), B's two vectors, A's broadcast

// The same with two 8-lane vectors a row (AVX2); more than 4 rows go through in groups of 4.
template <int MR, typename T>
inline void micro(const float *a, size_t lda, const T *b, size_t ldb, size_t k0, size_t k1, float *acc, size_t ldacc) {
    __m256 lo[MR], hi[MR];
    for (int m = 0; m < MR; ++m) {
        lo[m] = _mm256_loadu_ps(acc + m * ldacc);
        hi[m] = _mm256_loadu_ps(acc + m * ldacc + 8);
    }
    constexpr size_t kAhead = 8;
    for (size_t k = k0; k < k1; ++k) {
        _mm_prefetch(reinterpret_cast<const char *>(b + (k + kAhead) * ldb), _MM_HINT_T0);
        __m256 b0 = load8(b + k * ldb), b1 = load8(b + k * ldb + 8);
        for (int m = 0; m < MR; ++m) {
            __m256 av = _mm256_set1_ps(a[m * lda + k]);
            lo[m] = _mm256_fmadd_ps(av, b0, lo[m]);
            hi[m] = _mm256_fmadd_ps(av, b1, hi[m]);
        }
    }
    for (int m = 0; m < MR; ++m) {
        _mm256_storeu_ps(acc + m * ldacc, lo[m]);
        _mm256_storeu_ps(acc + m * ldacc + 8, hi[m]);
    }
}
#endif

// MR for a group of `rows` rows: the next of 1, 2, 4, 8, 16 (at most kMaxMR; the extra rows are zero).
inline int roundRows(size_t rows) { return rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16; }

template <typename T>
inline void microOf(int mr, const float *a, size_t lda, const T *b, size_t ldb, size_t k0, size_t k1, float *acc,
                    size_t ldacc) {
    switch (mr) {
        case 1: micro<1>(a, lda, b, ldb, k0, k1, acc, ldacc); break;
        case 2: micro<2>(a, lda, b, ldb, k0, k1, acc, ldacc); break;
        case 4: micro<4>(a, lda, b, ldb, k0, k1, acc, ldacc); break;
#ifdef __AVX512F__
        case 8: micro<8>(a, lda, b, ldb, k0, k1, acc, ldacc); break;
        case 16: micro<16>(a, lda, b, ldb, k0, k1, acc, ldacc); break;
#endif
        default: std::abort();
    }
}

// acc[rows][c1 - c0] (zeroed by the caller; rows: M padded as widenRows pads A) += A B[:, c0 .. c1): for
// each block of 16 rows of k, each 16-column strip, every group of kMaxMR rows in turn, so that the
// 16 x 16 tile of B is read from memory once and reused from L1 by the groups.
template <typename T>
void columns(const float *a, size_t M, size_t K, const T *b, size_t ldb, size_t c0, size_t c1, float *acc) {
    constexpr size_t kKb = 16;  // rows of B per pass: their 16 streams run side by side
    size_t w = c1 - c0;
    for (size_t k0 = 0; k0 < K; k0 += kKb) {
        size_t k1 = std::min(K, k0 + kKb);
        for (size_t c = c0; c < c1; c += 16) {
            for (size_t g0 = 0; g0 < M; g0 += kMaxMR) {
                int mr = roundRows(std::min<size_t>(kMaxMR, M - g0));
                microOf(mr, a + g0 * K, K, b + c, ldb, k0, k1, acc + g0 * w + (c - c0), w);
            }
        }
    }
}

}  // namespace

// float32 only while the rows fit one group: with more, the AVX2 build's groups make it compute-bound
// and OpenBLAS is faster. With AVX-512, float32 up to 8 rows (past them OpenBLAS is faster).
bool gemvShape(size_t M, size_t N, bool f32) {
#ifdef __AVX512F__
    constexpr size_t kF32Rows = 8;
#else
    constexpr size_t kF32Rows = kMaxMR;
#endif
    return M >= 1 && M <= (f32 ? kF32Rows : 16) && N >= 16;
}

template <typename T>
void gemvRowMajorB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sk,
                   T *C, ptrdiff_t c_si, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta) {
    // rows in groups of kMaxMR (one group with AVX-512); A widened with zero rows up to the last group's MR
    const size_t last0 = (M - 1) / kMaxMR * kMaxMR, rows = last0 + static_cast<size_t>(roundRows(M - last0));
    const float *af = widenRows(A, a_si, a_sk, M, K, rows);
    size_t full = N / 16 * 16;  // the last N % 16 columns go through the scalar loop below
    parallelFor(full / 16, K * 16 * 2 * (last0 / kMaxMR + 1), [&](size_t j0, size_t j1) {
        size_t c0 = j0 * 16, c1 = j1 * 16;
        thread_local std::vector<float> acc;
        acc.assign(rows * (c1 - c0), 0.0f);
        columns(af, M, K, B, static_cast<size_t>(b_sk), c0, c1, acc.data());
        for (size_t m = 0; m < M; ++m) {
            const float *src = acc.data() + m * (c1 - c0);
            T *out = C + m * c_si + c0;
            for (size_t j = 0; j < c1 - c0; ++j) {
                float v = alpha * src[j];
                if (Cin != nullptr) v += beta * toFloat(Cin[m * in_si + (c0 + j) * in_sj]);
                out[j] = fromFloat<T>(v);
            }
        }
    });
    for (size_t m = 0; m < M; ++m) {
        for (size_t j = full; j < N; ++j) {
            float s = 0.0f;
            for (size_t k = 0; k < K; ++k) s += af[m * K + k] * toFloat(B[k * b_sk + j]);
            float v = alpha * s;
            if (Cin != nullptr) v += beta * toFloat(Cin[m * in_si + j * in_sj]);
            C[m * c_si + j] = fromFloat<T>(v);
        }
    }
}

#else  // neither AVX-512 nor AVX2

bool gemvShape(size_t, size_t, bool) { return false; }

template <typename T>
void gemvRowMajorB(size_t, size_t, size_t, const T *, ptrdiff_t, ptrdiff_t, const T *, ptrdiff_t, T *, ptrdiff_t,
                   const T *, ptrdiff_t, ptrdiff_t, float, float) {
    std::abort();  // unreachable: gemvShape() is false in this build
}

#endif

// ---- B's rows along k contiguous (linear's weight [N, K]): dot products along k ----
// (float32 in the AVX-512 build: dot512.h.) Each thread takes a range of B's rows (C's columns); a tile
// is NR = 2 rows of B against MR <= 4 rows of A (a float copy), 8 accumulators of 8 lanes running down k together; B is converted in
// registers (no widened copy of the weight: that copy costs more than the product at decode sizes).
// The NR rows of B (2 x K elements) stay in L1 while the tile walks A's rows in fours.
namespace {

template <int MR, int NR, typename T>
inline void dotTile(const float *a, size_t K, const T *const *b, float (*out)[2]) {
    __m256 acc[MR][NR];
    for (int m = 0; m < MR; ++m)
        for (int r = 0; r < NR; ++r) acc[m][r] = _mm256_setzero_ps();
    size_t k = 0;
    for (; k + 8 <= K; k += 8) {
        __m256 bv[NR];
        for (int r = 0; r < NR; ++r) bv[r] = load8(b[r] + k);
        for (int m = 0; m < MR; ++m) {
            __m256 av = _mm256_loadu_ps(a + m * K + k);
            for (int r = 0; r < NR; ++r) acc[m][r] = _mm256_fmadd_ps(av, bv[r], acc[m][r]);
        }
    }
    for (int m = 0; m < MR; ++m) {
        for (int r = 0; r < NR; ++r) {
            float s = hsum256(acc[m][r]);
            for (size_t q = k; q < K; ++q) s += a[m * K + q] * toFloat(b[r][q]);
            out[m][r] = s;
        }
    }
}

template <int NR, typename T>
inline void dotRows(const float *a, size_t M, size_t K, const T *const *b, float (*out)[2]) {
    size_t m = 0;
    for (; m + 4 <= M; m += 4) dotTile<4, NR>(a + m * K, K, b, out + m);
    switch (M - m) {
        case 3: dotTile<3, NR>(a + m * K, K, b, out + m); break;
        case 2: dotTile<2, NR>(a + m * K, K, b, out + m); break;
        case 1: dotTile<1, NR>(a + m * K, K, b, out + m); break;
        default: break;
    }
}

}  // namespace

bool gemvDotShape(size_t M, bool f32) {
#ifdef __AVX512F__
    if (f32) return M >= 1 && M <= kGemvDotMaxRowsF32;
#endif
    return M >= 1 && M <= kGemvDotMaxRows;
}

template <typename T>
void gemvDotB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sj,
              T *C, ptrdiff_t c_si, ptrdiff_t c_sj, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha,
              float beta) {
#ifdef __AVX512F__
    if constexpr (std::is_same_v<T, float>) {
        const float *af = a_sk == 1 ? A : widenRows(A, a_si, a_sk, M, K, M);
        const size_t lda = a_sk == 1 ? static_cast<size_t>(a_si) : K;
        constexpr size_t MR = 4, NR = 6;  // (dot512.h)
        parallelFor((N + NR - 1) / NR, NR * M * K, [&](size_t t0, size_t t1) {
            dotPart512<DotF32, MR, NR>(
                t0, t1, M, N, K, af, lda, B, b_sj, [&](const float *sums, size_t m, size_t j, size_t nr) {
                    for (size_t r = 0; r < nr; ++r) {
                        float v = alpha * sums[r];
                        if (Cin != nullptr)
                            v += beta * Cin[static_cast<ptrdiff_t>(m) * in_si + static_cast<ptrdiff_t>(j + r) * in_sj];
                        C[static_cast<ptrdiff_t>(m) * c_si + static_cast<ptrdiff_t>(j + r) * c_sj] = v;
                    }
                });
        });
        return;
    }
#endif
    const float *af = widenRows(A, a_si, a_sk, M, K, M);
    parallelFor((N + 1) / 2, 2 * M * K, [&](size_t p0, size_t p1) {
        float out[kGemvDotMaxRows][2];
        for (size_t p = p0; p < p1; ++p) {
            size_t j = 2 * p, nr = std::min<size_t>(2, N - j);
            const T *rows[2] = {B + static_cast<ptrdiff_t>(j) * b_sj, B + static_cast<ptrdiff_t>(j + nr - 1) * b_sj};
            if (nr == 2) {
                dotRows<2>(af, M, K, rows, out);
            } else {
                dotRows<1>(af, M, K, rows, out);
            }
            for (size_t m = 0; m < M; ++m) {
                for (size_t r = 0; r < nr; ++r) {
                    float v = alpha * out[m][r];
                    if (Cin != nullptr)
                        v += beta *
                             toFloat(Cin[static_cast<ptrdiff_t>(m) * in_si + static_cast<ptrdiff_t>(j + r) * in_sj]);
                    C[static_cast<ptrdiff_t>(m) * c_si + static_cast<ptrdiff_t>(j + r) * c_sj] = fromFloat<T>(v);
                }
            }
        }
    });
}

template void gemvDotB<float>(size_t, size_t, size_t, const float *, ptrdiff_t, ptrdiff_t, const float *, ptrdiff_t,
                              float *, ptrdiff_t, ptrdiff_t, const float *, ptrdiff_t, ptrdiff_t, float, float);
template void gemvDotB<f16>(size_t, size_t, size_t, const f16 *, ptrdiff_t, ptrdiff_t, const f16 *, ptrdiff_t, f16 *,
                            ptrdiff_t, ptrdiff_t, const f16 *, ptrdiff_t, ptrdiff_t, float, float);
template void gemvDotB<bf16>(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t,
                             bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float);

template void gemvRowMajorB<float>(size_t, size_t, size_t, const float *, ptrdiff_t, ptrdiff_t, const float *,
                                   ptrdiff_t, float *, ptrdiff_t, const float *, ptrdiff_t, ptrdiff_t, float, float);
template void gemvRowMajorB<f16>(size_t, size_t, size_t, const f16 *, ptrdiff_t, ptrdiff_t, const f16 *, ptrdiff_t,
                                 f16 *, ptrdiff_t, const f16 *, ptrdiff_t, ptrdiff_t, float, float);
template void gemvRowMajorB<bf16>(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t,
                                  bf16 *, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
