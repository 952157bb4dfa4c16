// attention/flash_primitives.cuh: the tiled kernel's instruction wrappers: cp.async copies into shared memory,
// ldmatrix / stmatrix fragment moves, and the special-function unit's 2^x.
#pragma once

#include "flash_layout.cuh"

namespace infini::nvidia::ops::attn {

// 2^x by the special-function unit, subnormal results flushed (exp2f adds their handling): 2^-inf = 0.
__device__ __forceinline__ float fastExp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ void cpAsync16(uint32_t dst, const void *src, bool ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Four 8 x 8 matrices of 16-bit elements from shared memory (lanes 8 i .. 8 i + 7: the row addresses of matrix i),
// as mma's fragments: register i holds row lane / 4, elements 2 (lane % 4) and + 1, of matrix i; and the reverse.
__device__ __forceinline__ void ldMatrix4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void stMatrix4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
#else
    __trap();  // (its callers, the wgmma forms, run only where the build has sm_90a code: flashWgmma)
#endif
}
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace infini::nvidia::ops::attn
