// amx.cpp: bfloat16 matrix multiplication on Intel AMX (tdpbf16ps), for gemm and linear.
//
// C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * Cin(i, j), float32 accumulation in the tiles,
// rounded to bfloat16 once. Tiles: C 16x16 float, A 16 rows x 32 k, B 16 k-pairs x 16 columns
// ("VNNI": the two k of a pair side by side). The micro-kernel keeps a 32x32 block of C in four
// tile registers for the whole k loop; A rows are loaded straight from memory when k is contiguous
// (zero copies: the caller puts the operand with contiguous k, and the larger one, on the A side),
// and B is packed into VNNI panels of 32 columns.
//
// Two schedules: when A has few rows (decode), threads split the B panels and each packs its own
// panel once, so B is read from memory exactly once; otherwise B is packed once for everyone and
// threads split A into chunks of rows that stay in L2 while every panel streams past them.
//
// Only the AVX-512 build (INFINI_CPU_ISA=avx512, compiled with -mamx-tile -mamx-bf16) has it; it
// runs only where CPUID reports AMX-BF16 and the kernel grants the tile state (arch_prctl).
#include "common.h"

#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
#include <cpuid.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#endif

namespace infini::cpu::ops::INFINI_CPU_ISA {

#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
namespace {

constexpr size_t kTile = 512;  // bf16 elements in one 16 x 64-byte tile

struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

// Every tile is 16 rows of 64 bytes; edges are zero-padded in the packed operands instead.
void configureTiles() {
    TileConfig cfg;
    for (int t = 0; t < 8; ++t) {
        cfg.colsb[t] = 64;
        cfg.rows[t] = 16;
    }
    _tile_loadconfig(&cfg);
}

// The A side of one m-tile pair: row pointers and the byte stride between rows; k step s starts
// 32 elements further on.
struct ATiles {
    const uint16_t *a0, *a1;
    size_t stride;
};

// C block (32 x 32 floats, row stride 32) += A rows [a0: 16, a1: 16] x B panel, over ksteps.
template <int MT>
inline void micro(const ATiles &a, const uint16_t *bp, size_t ksteps, float *c) {
    _tile_zero(0);
    _tile_zero(1);
    if (MT == 2) {
        _tile_zero(2);
        _tile_zero(3);
    }
    for (size_t s = 0; s < ksteps; ++s) {
        const uint16_t *b = bp + s * 2 * kTile;
        _tile_loadd(6, b, 64);
        _tile_loadd(7, b + kTile, 64);
        _tile_loadd(4, a.a0 + s * 32, a.stride);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        if (MT == 2) {
            _tile_loadd(5, a.a1 + s * 32, a.stride);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, c, 128);
    _tile_stored(1, c + 16, 128);
    if (MT == 2) {
        _tile_stored(2, c + 16 * 32, 128);
        _tile_stored(3, c + 16 * 32 + 16, 128);
    }
}

struct Problem {
    size_t M, N, K, ksteps;
    const uint16_t *A;
    ptrdiff_t a_si, a_sk;
    const uint16_t *B;
    ptrdiff_t b_sk, b_sj;
    uint16_t *C;
    ptrdiff_t c_si, c_sj;
    const uint16_t *Cin;
    ptrdiff_t in_si, in_sj;
    float alpha, beta;
    bool a_direct;  // k contiguous and K a multiple of 32: full m-tiles load from A itself
};

// Packs columns [n0, n0 + 32) of B into one VNNI panel: [ksteps][2 tiles][16 k-pairs][16 cols x 2].
void packPanel(const Problem &p, size_t n0, uint16_t *bp) {
    size_t w = std::min<size_t>(32, p.N - n0);
    const uint16_t *B = p.B;
    if (p.b_sj == 1 && w == 32) {  // rows of B contiguous: interleave rows k and k + 1
        const __m512i lo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6, 37, 5,
                                            36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
        const __m512i hi = _mm512_set_epi16(63, 31, 62, 30, 61, 29, 60, 28, 59, 27, 58, 26, 57, 25, 56, 24, 55, 23, 54, 22,
                                            53, 21, 52, 20, 51, 19, 50, 18, 49, 17, 48, 16);
        for (size_t s = 0; s < p.ksteps; ++s) {
            for (size_t kp = 0; kp < 16; ++kp) {
                size_t k = s * 32 + 2 * kp;
                __m512i r0 = k < p.K ? _mm512_loadu_si512(B + k * p.b_sk + n0) : _mm512_setzero_si512();
                __m512i r1 = k + 1 < p.K ? _mm512_loadu_si512(B + (k + 1) * p.b_sk + n0) : _mm512_setzero_si512();
                uint16_t *row = bp + s * 2 * kTile + kp * 32;
                _mm512_storeu_si512(row, _mm512_permutex2var_epi16(r0, lo, r1));
                _mm512_storeu_si512(row + kTile, _mm512_permutex2var_epi16(r0, hi, r1));
            }
        }
        return;
    }
    if (p.b_sk == 1) {  // columns of B contiguous (B is a transposed row-major matrix): k pairs are words
        std::fill(bp, bp + p.ksteps * 2 * kTile, uint16_t{0});
        size_t kfull = p.K / 2;
        for (size_t j = 0; j < w; ++j) {
            const uint16_t *col = B + (n0 + j) * p.b_sj;
            uint32_t *dst = reinterpret_cast<uint32_t *>(bp) + (j / 16) * (kTile / 2) + (j % 16);
            for (size_t q = 0; q < kfull; ++q) {  // pair q: k step q / 16, row q % 16
                uint32_t v;
                std::memcpy(&v, col + 2 * q, 4);
                dst[(q / 16) * kTile + (q % 16) * 16] = v;
            }
            if (p.K % 2) dst[(kfull / 16) * kTile + (kfull % 16) * 16] = col[p.K - 1];
        }
        return;
    }
    for (size_t s = 0; s < p.ksteps; ++s) {  // any strides, and the edges
        for (size_t kp = 0; kp < 16; ++kp) {
            for (size_t j = 0; j < 32; ++j) {
                for (size_t e = 0; e < 2; ++e) {
                    size_t k = s * 32 + 2 * kp + e;
                    uint16_t v = (j < w && k < p.K) ? B[k * p.b_sk + (n0 + j) * p.b_sj] : 0;
                    bp[s * 2 * kTile + (j / 16) * kTile + kp * 32 + (j % 16) * 2 + e] = v;
                }
            }
        }
    }
}

// Rows [m0, m0 + 16) of A (zero-padded past M and K) as a row-major [16][ksteps * 32] block.
void packRows(const Problem &p, size_t m0, uint16_t *dst) {
    size_t kp = p.ksteps * 32;
    for (size_t r = 0; r < 16; ++r) {
        uint16_t *row = dst + r * kp;
        if (m0 + r >= p.M) {
            std::fill(row, row + kp, uint16_t{0});
            continue;
        }
        const uint16_t *src = p.A + (m0 + r) * p.a_si;
        if (p.a_sk == 1) {
            std::memcpy(row, src, p.K * 2);
        } else {
            for (size_t k = 0; k < p.K; ++k) row[k] = src[k * p.a_sk];
        }
        std::fill(row + p.K, row + kp, uint16_t{0});
    }
}

// Writes rows [m0, m0 + rows) (at most 32) of one 32x32 float block at (m0, n0): alpha * acc + beta * Cin, as bf16.
void storeBlock(const Problem &p, size_t m0, size_t rows, size_t n0, const float *acc) {
    size_t cols = std::min<size_t>(32, p.N - n0);
    for (size_t i = 0; i < rows; ++i) {
        const float *src = acc + i * 32;
        uint16_t *out = p.C + (m0 + i) * p.c_si + n0 * p.c_sj;
        const uint16_t *in = p.Cin ? p.Cin + (m0 + i) * p.in_si + n0 * p.in_sj : nullptr;
        if (p.c_sj == 1 && cols == 32 && in == nullptr) {
            __m512 s = _mm512_set1_ps(p.alpha);
            __m256bh lo = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(src), s));
            __m256bh hi = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(src + 16), s));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), reinterpret_cast<__m256i &>(lo));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + 16), reinterpret_cast<__m256i &>(hi));
            continue;
        }
        for (size_t j = 0; j < cols; ++j) {
            float v = p.alpha * src[j];
            if (in != nullptr && p.beta != 0.0f) v += p.beta * toFloat(bf16{in[j * p.in_sj]});
            out[j * p.c_sj] = fromFloat<bf16>(v).bits;
        }
    }
}

// All m-tile pairs of rows [m_begin, m_end) against one packed panel at column n0.
void runRows(const Problem &p, size_t m_begin, size_t m_end, size_t n0, const uint16_t *bp, uint16_t *edge, float *acc) {
    size_t kpad = p.ksteps * 32;
    for (size_t m0 = m_begin; m0 < m_end; m0 += 32) {
        size_t rows = std::min<size_t>(32, m_end - m0);
        ATiles a;
        if (p.a_direct && rows == 32) {
            a = {p.A + m0 * p.a_si, p.A + (m0 + 16) * p.a_si, static_cast<size_t>(p.a_si) * 2};
        } else if (p.a_direct && rows == 16) {
            a = {p.A + m0 * p.a_si, nullptr, static_cast<size_t>(p.a_si) * 2};
        } else {  // a partial tile, or A without contiguous k: this pair goes through `edge`
            packRows(p, m0, edge);
            if (rows > 16) packRows(p, m0 + 16, edge + 16 * kpad);
            a = {edge, edge + 16 * kpad, kpad * 2};
        }
        if (rows > 16) {
            micro<2>(a, bp, p.ksteps, acc);
        } else {
            micro<1>(a, bp, p.ksteps, acc);
        }
        storeBlock(p, m0, rows, n0, acc);
    }
}

}  // namespace

bool amxAvailable() {
    static const bool ok = [] {
        const char *env = std::getenv("INFINI_CPU_AMX");
        if (env != nullptr && env[0] == '0') return false;
        unsigned a, b, c, d;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
        bool tile = d & (1u << 24), bf16 = d & (1u << 22);
        if (!tile || !bf16) return false;
        constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
    }();
    return ok;
}

void amxGemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                 ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                 ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta) {
    Problem p{M, N, K, (K + 31) / 32, reinterpret_cast<const uint16_t *>(A), a_si, a_sk,
              reinterpret_cast<const uint16_t *>(B), b_sk, b_sj, reinterpret_cast<uint16_t *>(C), c_si, c_sj,
              reinterpret_cast<const uint16_t *>(Cin), in_si, in_sj, alpha, beta, a_sk == 1 && K % 32 == 0};
    size_t panels = (N + 31) / 32, panel_elems = p.ksteps * 2 * kTile, kpad = p.ksteps * 32;
    int threads = omp_get_max_threads();
    // rows of A per chunk: about 1 MiB of A, so that it stays in L2 while the panels stream past
    size_t chunk = std::max<size_t>(32, (size_t{1} << 19) / std::max<size_t>(kpad, 1) / 32 * 32);
    if (M <= chunk) {
        // few rows: threads split the panels; each panel is packed once, by its thread
        parallelFor(panels, M * K / 8 + K * 32, [&](size_t b0, size_t b1) {
            configureTiles();
            std::vector<uint16_t> bp(panel_elems), edge(32 * kpad);
            alignas(64) float acc[32 * 32];
            for (size_t b = b0; b < b1; ++b) {
                packPanel(p, b * 32, bp.data());
                runRows(p, 0, M, b * 32, bp.data(), edge.data(), acc);
            }
            _tile_release();
        });
        return;
    }
    // many rows: pack every panel once, then threads split the rows in L2-sized chunks
    std::vector<uint16_t> packed(panels * panel_elems);
    parallelFor(panels, K * 32, [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b) packPanel(p, b * 32, packed.data() + b * panel_elems);
    });
    size_t chunks = (M + chunk - 1) / chunk;
    if (chunks < static_cast<size_t>(threads) * 2) chunk = std::max<size_t>(32, (M / (threads * 2) + 31) / 32 * 32);
    chunks = (M + chunk - 1) / chunk;
    parallelFor(chunks, chunk * N * K / 16, [&](size_t c0, size_t c1) {
        configureTiles();
        std::vector<uint16_t> edge(32 * kpad);
        alignas(64) float acc[32 * 32];
        for (size_t c = c0; c < c1; ++c) {
            size_t m0 = c * chunk, m1 = std::min(M, m0 + chunk);
            for (size_t b = 0; b < panels; ++b) runRows(p, m0, m1, b * 32, packed.data() + b * panel_elems, edge.data(), acc);
        }
        _tile_release();
    });
}

#else

bool amxAvailable() { return false; }

void amxGemmBf16(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, bf16 *,
                 ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float) {
    std::abort();  // unreachable: amxAvailable() is false in this build
}

#endif

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
