// dpbf16.h: bfloat16 gemm on AVX512-BF16 (dpbf16.cpp; vdpbf16ps), for CPUs without AMX.
#pragma once

#include <cstddef>

#include "../convert.h"
#include "../isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// True in the AVX-512 build (which requires AVX512-BF16), false in the AVX2 build.
bool dpbf16Available();

// bfloat16 C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * Cin(i, j), every matrix given by its
// element strides; Cin may be null. Only when dpbf16Available().
void dpbf16GemmBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                    ptrdiff_t b_sk, ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin,
                    ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);

// The same with B's k contiguous (linear's weight: B read in place as dot products, no packing), for up
// to kDpbf16DotMaxRows rows of A: past it the packed product of dpbf16GemmBf16 is as fast or faster.
constexpr size_t kDpbf16DotMaxRows = 256;
void dpbf16DotBf16(size_t M, size_t N, size_t K, const bf16 *A, ptrdiff_t a_si, ptrdiff_t a_sk, const bf16 *B,
                   ptrdiff_t b_sj, bf16 *C, ptrdiff_t c_si, ptrdiff_t c_sj, const bf16 *Cin, ptrdiff_t in_si,
                   ptrdiff_t in_sj, float alpha, float beta);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
