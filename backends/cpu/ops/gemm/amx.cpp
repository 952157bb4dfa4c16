// amx.cpp: bfloat16 matrix multiplication on Intel AMX (tdpbf16ps), for gemm and linear.
//
// C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * Cin(i, j), float32 accumulation in the tiles,
// rounded to bfloat16 once. Tiles: C 16x16 float, A 16 rows x 32 k, B 16 k-pairs x 16 columns
// ("VNNI": the two k of a pair side by side). The micro-kernel keeps a 32x32 block of C in four
// tile registers for the whole k loop; A rows are loaded straight from memory when k is contiguous
// (zero copies: the caller puts the operand with contiguous k, and the larger one, on the A side),
// and B is packed into VNNI panels of 32 columns.
//
// Four schedules: when A has few rows (decode) and B is row-major, threads split B's columns and
// pack 256 of its rows at a time across all of them (B streams in long contiguous rows, read once);
// with more rows of an in-place A and a row-major B, k blocks of 2048 whose B slices stay in L2
// (runKBlocked); other decode shapes split the B panels, each thread packing its own panel group
// once; otherwise B is packed once for everyone and threads split A into chunks of rows that stay in
// L2 while every panel streams past them.
//
// Only the AVX-512 build (INFINI_CPU_ISA=avx512, compiled with -mamx-tile -mamx-bf16) has it; it
// runs only where CPUID reports AMX-BF16 and the kernel grants the tile state (arch_prctl).
#include <cstdlib>

#include "../convert.h"
#include "../isa.h"
#include "../parallel.h"
#include "amx.h"

#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
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

// Every tile is 16 rows of 64 bytes; edges are zero-padded in the packed operands instead. The
// configuration lives in a static object: built on the stack, GCC 12 treats its stores as dead
// (the ldtilecfg builtin does not tell it the memory is read) and loads rows = 0, columns = 0.
constexpr TileConfig makeConfig() {
    TileConfig cfg;
    for (int t = 0; t < 8; ++t) {
        cfg.colsb[t] = 64;
        cfg.rows[t] = 16;
    }
    return cfg;
}

// constexpr: constant-initialized data, no load-time initializer (this file is built for AVX-512,
// and a dynamic initializer would run AVX-512 code at library load on any CPU; CMakeLists.txt checks).
constexpr TileConfig kTileConfig = makeConfig();

void configureTiles() { _tile_loadconfig(&kTileConfig); }

// The A side of one m-tile pair: row pointers and the byte stride between rows; k step s starts
// 32 elements further on.
struct ATiles {
    const uint16_t *a0, *a1;
    size_t stride;  // bytes between rows
    size_t step;    // elements to the next k step
};

// A 32x32 block of C (floats, row stride ldc floats) over ksteps of 32 k: starts from zero when
// `first`, else from the block's current contents; A rows [a0: 16, a1: 16], B one panel slice.
template <int MT>
inline void micro(const ATiles &a, const uint16_t *bp, size_t ksteps, float *c, size_t ldc, bool first) {
    size_t ldb = ldc * 4;
    if (first) {
        _tile_zero(0);
        _tile_zero(1);
        if (MT == 2) {
            _tile_zero(2);
            _tile_zero(3);
        }
    } else {
        _tile_loadd(0, c, ldb);
        _tile_loadd(1, c + 16, ldb);
        if (MT == 2) {
            _tile_loadd(2, c + 16 * ldc, ldb);
            _tile_loadd(3, c + 16 * ldc + 16, ldb);
        }
    }
    for (size_t s = 0; s < ksteps; ++s) {
        const uint16_t *b = bp + s * 2 * kTile;
        _tile_loadd(6, b, 64);
        _tile_loadd(7, b + kTile, 64);
        _tile_loadd(4, a.a0 + s * a.step, a.stride);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        if (MT == 2) {
            _tile_loadd(5, a.a1 + s * a.step, a.stride);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, c, ldb);
    _tile_stored(1, c + 16, ldb);
    if (MT == 2) {
        _tile_stored(2, c + 16 * ldc, ldb);
        _tile_stored(3, c + 16 * ldc + 16, ldb);
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
};

// Rows k and k + 1 of 32 columns (x0, x1) as VNNI pairs: columns 0-15 into the tile row at `row`,
// columns 16-31 into the same row of the next tile.
inline void storePairs(uint16_t *row, __m512i x0, __m512i x1) {
    const __m512i lo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6, 37,
                                        5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
    const __m512i hi = _mm512_set_epi16(63, 31, 62, 30, 61, 29, 60, 28, 59, 27, 58, 26, 57, 25, 56, 24, 55, 23, 54, 22,
                                        53, 21, 52, 20, 51, 19, 50, 18, 49, 17, 48, 16);
    _mm512_storeu_si512(row, _mm512_permutex2var_epi16(x0, lo, x1));
    _mm512_storeu_si512(row + kTile, _mm512_permutex2var_epi16(x0, hi, x1));
}

// k steps [k0, k0 + ks) of panels [b0, b0 + count) of a row-major B (b_sj == 1) into VNNI slices
// ([ks][2 tiles][16 k-pairs][32], `slice` elements apart): each row of B is read as one contiguous
// piece across all the panels; a last panel narrower than 32 columns and rows past K are zeros.
void packSlice(const Problem &p, size_t k0, size_t ks, size_t b0, size_t count, uint16_t *bp, size_t slice) {
    size_t full = std::min(count, (p.N - b0 * 32) / 32);
    for (size_t s = 0; s < ks; ++s) {
        for (size_t kp = 0; kp < 16; ++kp) {
            size_t k = (k0 + s) * 32 + 2 * kp;
            const uint16_t *r0 = p.B + k * p.b_sk + b0 * 32, *r1 = r0 + p.b_sk;
            bool has0 = k < p.K, has1 = k + 1 < p.K;
            for (size_t g = 0; g < full; ++g) {
                __m512i x0 = has0 ? _mm512_loadu_si512(r0 + g * 32) : _mm512_setzero_si512();
                __m512i x1 = has1 ? _mm512_loadu_si512(r1 + g * 32) : _mm512_setzero_si512();
                storePairs(bp + g * slice + s * 2 * kTile + kp * 32, x0, x1);
            }
            if (full < count) {  // the last, partial panel
                size_t c0 = (b0 + full) * 32, w = p.N - c0;
                uint16_t *row = bp + full * slice + s * 2 * kTile + kp * 32;
                for (size_t j = 0; j < 32; ++j) {
                    row[(j / 16) * kTile + (j % 16) * 2] = has0 && j < w ? r0[full * 32 + j] : 0;
                    row[(j / 16) * kTile + (j % 16) * 2 + 1] = has1 && j < w ? r1[full * 32 + j] : 0;
                }
            }
        }
    }
}

// Packs `count` panels of B, columns [n0, n0 + 32 * count), into VNNI panels (each [ksteps][2 tiles]
// [16 k-pairs][16 cols x 2], panel_elems apart). Rows of B are read across the whole group at once
// (one page visit per row for the group, not per panel).
void packPanels(const Problem &p, size_t n0, size_t count, uint16_t *bp, size_t panel_elems) {
    const uint16_t *B = p.B;
    if (p.b_sj == 1) {  // rows of B contiguous: interleave rows k and k + 1, all of K at once
        packSlice(p, 0, p.ksteps, n0 / 32, count, bp, panel_elems);
        return;
    }
    for (size_t g = 0; g < count; ++g) {
        size_t c0 = n0 + g * 32, w = std::min<size_t>(32, p.N - c0);
        uint16_t *panel = bp + g * panel_elems;
        if (p.b_sk == 1) {  // columns of B contiguous (a transposed row-major matrix): k pairs are words
            std::fill(panel, panel + panel_elems, uint16_t{0});
            size_t kfull = p.K / 2;
            for (size_t j = 0; j < w; ++j) {
                const uint16_t *col = B + (c0 + j) * p.b_sj;
                uint32_t *dst = reinterpret_cast<uint32_t *>(panel) + (j / 16) * (kTile / 2) + (j % 16);
                for (size_t q = 0; q < kfull; ++q) {  // pair q: k step q / 16, row q % 16
                    uint32_t v;
                    std::memcpy(&v, col + 2 * q, 4);
                    dst[(q / 16) * kTile + (q % 16) * 16] = v;
                }
                if (p.K % 2) dst[(kfull / 16) * kTile + (kfull % 16) * 16] = col[p.K - 1];
            }
            continue;
        }
        for (size_t s = 0; s < p.ksteps; ++s) {  // any other strides
            for (size_t kp = 0; kp < 16; ++kp) {
                for (size_t j = 0; j < 32; ++j) {
                    for (size_t e = 0; e < 2; ++e) {
                        size_t k = s * 32 + 2 * kp + e;
                        uint16_t v = (j < w && k < p.K) ? B[k * p.b_sk + (c0 + j) * p.b_sj] : 0;
                        panel[s * 2 * kTile + (j / 16) * kTile + kp * 32 + (j % 16) * 2 + e] = v;
                    }
                }
            }
        }
    }
}

// Writes rows [m0, m0 + rows) (at most 32) of one 32-column float block (row stride ldc) at (m0, n0): alpha * acc + beta * Cin, as bf16.
void storeBlock(const Problem &p, size_t m0, size_t rows, size_t n0, const float *acc, size_t ldc) {
    size_t cols = std::min<size_t>(32, p.N - n0);
    if (p.Cin == nullptr && p.c_si == 1 && rows == 32) {
        // C^T in this frame (c = b^T a^T): a column of the block is a contiguous run of C
        const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                               _mm512_set1_epi32(static_cast<int>(ldc)));
        __m512 s = _mm512_set1_ps(p.alpha);
        for (size_t j = 0; j < cols; ++j) {
            __m256bh lo = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_i32gather_ps(idx, acc + j, 4), s));
            __m256bh hi = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_i32gather_ps(idx, acc + 16 * ldc + j, 4), s));
            uint16_t *out = p.C + m0 + (n0 + j) * p.c_sj;
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), reinterpret_cast<__m256i &>(lo));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + 16), reinterpret_cast<__m256i &>(hi));
        }
        return;
    }
    for (size_t i = 0; i < rows; ++i) {
        const float *src = acc + i * ldc;
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

// Grows v to at least n elements. Scratch vectors are thread_local and never shrink: a fresh
// allocation per call would cost a page fault per 4 KiB (tens of microseconds per MiB in a VM).
template <typename T>
T *atLeast(std::vector<T> &v, size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
}

// Where the A tiles of a row block are: pair q, half h (0/1), k step s starts at
// base + q * pair + h * half + s * step; rows are `stride` bytes apart.
struct ARows {
    const uint16_t *base;
    size_t pair, half, step, stride;
};

// Rows [m0, m1) of A as tiles: in place when k is contiguous, K a multiple of 32 and the rows fill
// whole tiles (faster than any packed layout, and no copy of a large weight); else packed, zero-padded
// to whole 32-row pairs and k steps, as [pairs][ksteps][2 tiles][16 rows][32 k]: a pair's k steps in the
// order the micro-kernel reads them.
ARows packRows(const Problem &p, size_t m0, size_t m1, std::vector<uint16_t> &buf) {
    if (p.a_sk == 1 && p.K % 32 == 0 && (m1 - m0) % 16 == 0) {  // whole tiles: read A in place, no copy
        size_t r = static_cast<size_t>(p.a_si);
        return {p.A + m0 * r, 32 * r, 16 * r, 32, 2 * r};
    }
    size_t pairs = (m1 - m0 + 31) / 32, pair_elems = p.ksteps * 2 * kTile;
    uint16_t *dst = atLeast(buf, pairs * pair_elems);
    // pair by pair, then k step by k step: each 2 KiB destination block is written whole, and the pair's
    // 32 rows are read as 32 sequential streams
    for (size_t q = 0; q < pairs; ++q) {
        for (size_t s = 0; s < p.ksteps; ++s) {
            uint16_t *blk = dst + q * pair_elems + s * 2 * kTile;
            size_t k0 = s * 32, nk = k0 >= p.K ? 0 : std::min<size_t>(32, p.K - k0);
            for (size_t r = 0; r < 32; ++r) {
                uint16_t *d = blk + (r / 16) * kTile + (r % 16) * 32;
                size_t m = m0 + q * 32 + r;
                const uint16_t *src = m < m1 ? p.A + m * p.a_si : nullptr;
                size_t n = src == nullptr ? 0 : nk;
                if (n == 32 && p.a_sk == 1) {
                    _mm512_storeu_si512(d, _mm512_loadu_si512(src + k0));
                } else {
                    for (size_t k = 0; k < 32; ++k) d[k] = k < n ? src[(k0 + k) * p.a_sk] : 0;
                }
            }
        }
    }
    return {dst, pair_elems, kTile, 2 * kTile, 64};
}

// C block rows [m0, m1) x panels [b0, b1) (packed, panel_elems apart) over all of K, accumulated in
// `acc` ([rows][32 * panels] floats) k block by k block (128 steps: for K <= 4096 the C tiles stay
// in registers over all of K, which is fastest; smaller blocks that keep a panel slice in L1 pay more
// in C reloads than they save); then written out.
void runBlock(const Problem &p, size_t m0, size_t m1, const ARows &a, size_t b0, size_t b1, const uint16_t *packed,
              size_t panel_elems, std::vector<float> &acc) {
    constexpr size_t kKc = 128;  // k steps per block: C stays in the tiles for K <= 4096
    size_t ldc = (b1 - b0) * 32, rows = m1 - m0;
    atLeast(acc, ((rows + 31) / 32 * 32) * ldc);
    for (size_t k0 = 0; k0 < p.ksteps; k0 += kKc) {
        size_t ks = std::min(kKc, p.ksteps - k0);
        for (size_t b = b0; b < b1; ++b) {
            const uint16_t *bp = packed + (b - b0) * panel_elems + k0 * 2 * kTile;
            for (size_t r = 0; r < rows; r += 32) {
                const uint16_t *a0 = a.base + (r / 32) * a.pair + k0 * a.step;
                ATiles t{a0, a0 + a.half, a.stride, a.step};
                float *c = acc.data() + r * ldc + (b - b0) * 32;
                if (rows - r > 16) {
                    micro<2>(t, bp, ks, c, ldc, k0 == 0);
                } else {
                    micro<1>(t, bp, ks, c, ldc, k0 == 0);
                }
            }
        }
    }
    for (size_t b = b0; b < b1; ++b) {
        for (size_t r = 0; r < rows; r += 32) {
            storeBlock(p, m0 + r, std::min<size_t>(32, rows - r), b * 32, acc.data() + r * ldc + (b - b0) * 32, ldc);
        }
    }
}

// Few rows of A and B row-major (decode against a [K, N] weight): B is packed a few k steps at a
// time across all of the thread's panels, so that each row of B is read as one long contiguous
// piece (packing panel by panel read 64-byte pieces at B's row stride: slow to stream); C waits in
// `acc` between k blocks.
void runRowMajorFew(const Problem &p, const ARows &a, size_t b0, size_t b1, std::vector<uint16_t> &bbuf,
                    std::vector<float> &acc) {
    constexpr size_t kKs = 8;  // k steps (256 rows of B) per block
    size_t panels = b1 - b0, ldc = panels * 32, slice = kKs * 2 * kTile;
    uint16_t *bp = atLeast(bbuf, panels * slice);
    atLeast(acc, ((p.M + 31) / 32 * 32) * ldc);
    for (size_t k0 = 0; k0 < p.ksteps; k0 += kKs) {
        size_t ks = std::min(kKs, p.ksteps - k0);
        packSlice(p, k0, ks, b0, panels, bp, slice);
        for (size_t g = 0; g < panels; ++g) {
            for (size_t r = 0; r < p.M; r += 32) {
                const uint16_t *a0 = a.base + (r / 32) * a.pair + k0 * a.step;
                ATiles t{a0, a0 + a.half, a.stride, a.step};
                float *c = acc.data() + r * ldc + g * 32;
                if (p.M - r > 16) {
                    micro<2>(t, bp + g * slice, ks, c, ldc, k0 == 0);
                } else {
                    micro<1>(t, bp + g * slice, ks, c, ldc, k0 == 0);
                }
            }
        }
    }
    for (size_t g = 0; g < panels; ++g) {
        for (size_t r = 0; r < p.M; r += 32) {
            storeBlock(p, r, std::min<size_t>(32, p.M - r), (b0 + g) * 32, acc.data() + r * ldc + g * 32, ldc);
        }
    }
}

// Many rows of an A read in place and a row-major B ([K, N], a weight given un-transposed): k blocks of
// 2048, so that B is packed a group slice at a time (8 panels x 2048 k, 1 MiB: it stays in L2 and every
// row chunk reuses it, each row of B read as one 512-byte piece) instead of a whole panel group going
// out to L3 and back; A stays in place, 64 rows a chunk (256 KiB of a k block); C waits in `acc`
// between k blocks (about 15% faster than the panel-group schedule at 512x4096x4096).
constexpr size_t kKbSteps = 64, kKbRows = 64, kKbGroup = 8;

void runKBlocked(const Problem &p) {
    size_t panels = (p.N + 31) / 32, ksteps = p.ksteps, kblocks = (ksteps + kKbSteps - 1) / kKbSteps;
    size_t chunks = (p.M + kKbRows - 1) / kKbRows, groups = (panels + kKbGroup - 1) / kKbGroup;
    size_t pairs = (p.M + 31) / 32, slice = kKbSteps * 2 * kTile;
    parallelFor(groups, p.M * kKbGroup * 32 * p.K / 16, [&](size_t g0, size_t g1) {
        configureTiles();
        thread_local std::vector<uint16_t> bbuf;
        thread_local std::vector<float> acc;
        uint16_t *bp = atLeast(bbuf, kKbGroup * slice);
        for (size_t g = g0; g < g1; ++g) {
            size_t b0 = g * kKbGroup, np = std::min(panels, b0 + kKbGroup) - b0, ldc = np * 32;
            float *cacc = atLeast(acc, pairs * 32 * ldc);
            for (size_t kb = 0; kb < kblocks; ++kb) {
                size_t s0 = kb * kKbSteps, ksb = std::min(kKbSteps, ksteps - s0);
                packSlice(p, s0, ksb, b0, np, bp, slice);
                for (size_t c = 0; c < chunks; ++c) {
                    size_t m0 = c * kKbRows, rows = std::min(kKbRows, p.M - m0);
                    for (size_t j = 0; j < np; ++j) {
                        for (size_t r = 0; r < rows; r += 32) {
                            const uint16_t *a0 = p.A + (m0 + r) * p.a_si + s0 * 32;
                            ATiles t{a0, a0 + 16 * p.a_si, static_cast<size_t>(2 * p.a_si), 32};
                            float *cb = cacc + (m0 + r) * ldc + j * 32;
                            if (rows - r > 16) {
                                micro<2>(t, bp + j * slice, ksb, cb, ldc, kb == 0);
                            } else {
                                micro<1>(t, bp + j * slice, ksb, cb, ldc, kb == 0);
                            }
                        }
                    }
                }
            }
            for (size_t j = 0; j < np; ++j) {
                for (size_t q = 0; q < pairs; ++q) {
                    storeBlock(p, q * 32, std::min<size_t>(32, p.M - q * 32), (b0 + j) * 32,
                               cacc + q * 32 * ldc + j * 32, ldc);
                }
            }
        }
        _tile_release();
    });
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
    Problem p{M,
              N,
              K,
              (K + 31) / 32,
              reinterpret_cast<const uint16_t *>(A),
              a_si,
              a_sk,
              reinterpret_cast<const uint16_t *>(B),
              b_sk,
              b_sj,
              reinterpret_cast<uint16_t *>(C),
              c_si,
              c_sj,
              reinterpret_cast<const uint16_t *>(Cin),
              in_si,
              in_sj,
              alpha,
              beta};
    size_t panels = (N + 31) / 32, panel_elems = p.ksteps * 2 * kTile, kpad = p.ksteps * 32;
    size_t threads = parallelism();
    constexpr size_t kGroup = 8;  // panels per block: 256 columns of C
    // rows of A per block: about 1 MiB of A, so that it stays in L2 while the panels stream past
    size_t chunk = std::max<size_t>(32, (size_t{1} << 19) / kpad / 32 * 32);
    if (M <= 32 && p.b_sj == 1 && N % 32 == 0) {
        // few rows, B row-major: threads split the columns; B is read row by row
        parallelFor(panels, M * K / 8 + K * 32, [&](size_t b0, size_t b1) {
            configureTiles();
            thread_local std::vector<uint16_t> bbuf, abuf;
            thread_local std::vector<float> acc;
            ARows a = packRows(p, 0, M, abuf);
            runRowMajorFew(p, a, b0, b1, bbuf, acc);
            _tile_release();
        });
        return;
    }
    bool few = M <= chunk || (N > M && M * kpad * 2 <= (size_t{16} << 20));
    if (few && p.b_sj == 1 && p.a_sk == 1 && K % 32 == 0 && M % 16 == 0) {
        // a row-major B with A in whole tiles, read in place: k-blocked (see runKBlocked)
        runKBlocked(p);
        return;
    }
    if (few) {
        // few rows (decode), or a B larger than A (which then stays in L3): threads split the panels,
        // packing each group of panels once, in L2, just before all of A's rows pass it
        // groups of 16 panels here (512 columns: longer pieces of B's rows per page visit)
        constexpr size_t few_group = 16;
        size_t groups = (panels + few_group - 1) / few_group;
        parallelFor(groups, few_group * 32 * K * (M / 16 + 2) / 4, [&](size_t g0, size_t g1) {
            configureTiles();
            thread_local std::vector<uint16_t> bp, abuf;
            thread_local std::vector<float> acc;
            atLeast(bp, few_group * panel_elems);
            ARows apacked = packRows(p, 0, M, abuf);
            for (size_t g = g0; g < g1; ++g) {
                size_t b0 = g * few_group, b1 = std::min(panels, b0 + few_group);
                packPanels(p, b0 * 32, b1 - b0, bp.data(), panel_elems);
                runBlock(p, 0, M, apacked, b0, b1, bp.data(), panel_elems, acc);
            }
            _tile_release();
        });
        return;
    }
    // many rows: pack every panel once, then threads take (row chunk, panel group) blocks
    thread_local std::vector<uint16_t> packed_buf;  // the calling thread's; shared with the workers below
    uint16_t *packed = atLeast(packed_buf, panels * panel_elems);
    size_t groups = (panels + kGroup - 1) / kGroup;
    parallelFor(groups, kGroup * 32 * K, [&](size_t g0, size_t g1) {
        for (size_t g = g0; g < g1; ++g) {
            size_t b0 = g * kGroup;
            packPanels(p, b0 * 32, std::min(panels, b0 + kGroup) - b0, packed + b0 * panel_elems, panel_elems);
        }
    });
    size_t chunks = (M + chunk - 1) / chunk;
    if (chunks * groups < threads * 2) {
        chunk = std::max<size_t>(32, (M / (threads * 2) + 31) / 32 * 32);
        chunks = (M + chunk - 1) / chunk;
    }
    parallelFor(chunks * groups, chunk * kGroup * 32 * K / 16, [&](size_t w0, size_t w1) {
        configureTiles();
        thread_local std::vector<uint16_t> abuf;
        thread_local std::vector<float> acc;
        size_t packed_chunk = SIZE_MAX;
        ARows apacked{};
        for (size_t w = w0; w < w1; ++w) {  // chunk-major: a thread packs its rows of A once per chunk
            size_t c = w / groups, g = w % groups;
            size_t m0 = c * chunk, m1 = std::min(M, m0 + chunk), b0 = g * kGroup, b1 = std::min(panels, b0 + kGroup);
            if (c != packed_chunk) {
                apacked = packRows(p, m0, m1, abuf);
                packed_chunk = c;
            }
            runBlock(p, m0, m1, apacked, b0, b1, packed + b0 * panel_elems, panel_elems, acc);
        }
        _tile_release();
    });
}

void amxBegin() { configureTiles(); }
void amxEnd() { _tile_release(); }

void amxPackQ(const bf16 *q, ptrdiff_t qs, size_t G, size_t d, uint16_t *qpack) {
    // Q^T as B tiles: step s, row kp (dims 32s + 2kp, +1), column g: (q[g][2kp'], q[g][2kp'+1])
    size_t steps = d / 32;
    std::fill(qpack, qpack + steps * kTile, uint16_t{0});
    for (size_t g = 0; g < G; ++g) {
        const uint16_t *row = reinterpret_cast<const uint16_t *>(q + g * qs);
        for (size_t i = 0; i < d; ++i) {
            size_t s = i / 32, kp = (i % 32) / 2, e = i % 2;
            qpack[s * kTile + kp * 32 + g * 2 + e] = row[i];
        }
    }
}

void amxScores16(const bf16 *krows, size_t ldk, const uint16_t *qpack, size_t d, float *out) {
    _tile_zero(0);
    const uint16_t *k = reinterpret_cast<const uint16_t *>(krows);
    for (size_t s = 0; s < d / 32; ++s) {
        _tile_loadd(4, k + s * 32, ldk * 2);
        _tile_loadd(6, qpack + s * kTile, 64);
        _tile_dpbf16ps(0, 4, 6);
    }
    _tile_stored(0, out, 64);
}

#else

bool amxAvailable() { return false; }
void amxBegin() { std::abort(); }
void amxEnd() { std::abort(); }
void amxPackQ(const bf16 *, ptrdiff_t, size_t, size_t, uint16_t *) { std::abort(); }
void amxScores16(const bf16 *, size_t, const uint16_t *, size_t, float *) { std::abort(); }

void amxGemmBf16(size_t, size_t, size_t, const bf16 *, ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, bf16 *,
                 ptrdiff_t, ptrdiff_t, const bf16 *, ptrdiff_t, ptrdiff_t, float, float) {
    std::abort();  // unreachable: amxAvailable() is false in this build
}

#endif

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
