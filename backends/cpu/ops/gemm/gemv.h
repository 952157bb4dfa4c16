// gemv.h: gemm with few rows of A (decode), for every float dtype (gemv.cpp).
#pragma once

#include <cstddef>

#include "../convert.h"
#include "../isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// gemm with M <= 16 rows and B's columns contiguous (only when gemvShape(M, N, dtype is float32)):
// C[m, :] = alpha * A[m, :] @ B + beta * Cin[m, :], C's columns contiguous.
bool gemvShape(size_t M, size_t N, bool f32);
template <typename T>
void gemvRowMajorB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sk,
                   T *C, ptrdiff_t c_si, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha, float beta);

// gemm with few rows of A and B's k contiguous (B = W^T for linear's weight W [N, K]; only when
// gemvDotShape(M, f32)): C[m, j] = alpha * A[m, :] . B[:, j] + beta * Cin[m, j], B read in place in its
// own dtype: up to 16 rows, and float32 in the AVX-512 build up to 128 rows (4 x 6 tiles of 16-lane
// accumulators, A read in place). The bound 128: past it OpenBLAS's sgemm of a transposed B
// (gemm.cpp parallelSgemm) is faster on many-core CPUs.
constexpr size_t kGemvDotMaxRows = 16, kGemvDotMaxRowsF32 = 128;
bool gemvDotShape(size_t M, bool f32);
template <typename T>
void gemvDotB(size_t M, size_t N, size_t K, const T *A, ptrdiff_t a_si, ptrdiff_t a_sk, const T *B, ptrdiff_t b_sj,
              T *C, ptrdiff_t c_si, ptrdiff_t c_sj, const T *Cin, ptrdiff_t in_si, ptrdiff_t in_sj, float alpha,
              float beta);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
