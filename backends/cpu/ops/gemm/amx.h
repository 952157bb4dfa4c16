// amx.h: bfloat16 products on Intel AMX (amx.cpp): gemm, and the attention scores of attention.cpp.
// Only the AVX-512 build has them, and they run only where amxAvailable().
#pragma once

#include <cstddef>
#include <cstdint>

#include "../convert.h"
#include "../isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// True where CPUID reports AMX-BF16 and the kernel grants the tile state (arch_prctl), unless
// INFINI_CPU_AMX=0; always false in the AVX2 build.
bool amxAvailable();

// bfloat16 C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * Cin(i, j), every matrix given by its
// element strides; Cin may be null. Only when amxAvailable().
void amxGemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                 ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                 ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);

// Attention scores (only when amxAvailable(), between amxBegin() and amxEnd() on the calling thread):
// amxPackQ packs up to 16 query rows (bf16, head_dim d a multiple of 32) as d/32 B tiles; amxScores16
// gives out[j][g] = k_j . q_g (float, 16 x 16, row stride 16) for the 16 key rows at krows (row stride
// ldk elements).
void amxBegin();
void amxEnd();
void amxPackQ(const bf16 *q, ptrdiff_t qs, size_t G, size_t d, uint16_t *qpack);
void amxScores16(const bf16 *krows, size_t ldk, const uint16_t *qpack, size_t d, float *out);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
