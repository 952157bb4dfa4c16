// attention/wgmma.cuh: Hopper's warpgroup matrix multiply (wgmma) as the tiled kernel's wgmma forms use it: the
// shared-memory operand descriptor, the fences and waits, and the products for N = 64 and 128 in fp16/bf16.
// Their instructions exist only in sm_90a code (__CUDA_ARCH_FEAT_SM90_ALL); elsewhere they compile to nothing or a
// trap, and the host launches those forms only where the build has sm_90a (flashWgmma).
#pragma once

#include "params.cuh"

namespace infini::nvidia::ops::attn {

// ---- wgmma (Hopper, the sm_90a target): a warpgroup's D[64 x N] (+)= A[64 x 16] B[16 x N] ----
// A from registers (each warp its 16 rows, fragments as mma.m16n8k16's), B from shared memory by its
// descriptor, f32 accumulators laid out as mma.m16n8k16's C over N / 8 column tiles (d[4 j .. 4 j + 3]).
// A shared-memory operand under the 128-byte swizzle: rows of 128 bytes in 8-row, 1024-byte-aligned atoms, the
// 16-byte piece i of row r stored at piece i ^ (r % 8); sbo: the stride between 8-row groups, lbo: between
// 64-element atoms along M/N (N-major; unused for K-major).
__device__ __forceinline__ uint64_t wgmmaDesc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) |
           (static_cast<uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void wgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmmaCommit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmmaWait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Orders this thread's earlier shared-memory writes (cp.async's too) before later reads by the tensor cores.
__device__ __forceinline__ void fenceProxyAsync() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
#else
__device__ __forceinline__ void wgmmaFence() {}
__device__ __forceinline__ void wgmmaCommit() {}
template <int N>
__device__ __forceinline__ void wgmmaWait() {}
__device__ __forceinline__ void fenceProxyAsync() {}
#endif
// Keeps the compiler from moving reads of x before a wait, or reusing its register while a wgmma reads it (at the
// PTX level: ptxas allocates and schedules on its own, and serializes the wgmma where it cannot prove them safe).
template <typename V>
__device__ __forceinline__ void wgmmaHold(V &x) {
    if constexpr (std::is_same_v<V, float>)
        asm volatile("" : "+f"(x)::"memory");
    else if constexpr (std::is_same_v<V, uint64_t>)
        asm volatile("" : "+l"(x)::"memory");
    else
        asm volatile("" : "+r"(x)::"memory");
}

// The asm of wgmmaN: its text for N = 64 / 128 and dtype TY, its accumulator operands with constraint C ("=f":
// outputs only, "+f": in and out) and its inputs.
#define INFINI_WG64_TEXT(TY)                                                                          \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY \
    " {"                                                                                              \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                          \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "               \
    "{%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
#define INFINI_WG128_TEXT(TY)                                                                          \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY \
    " {"                                                                                               \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                           \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                 \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                 \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "                \
    "{%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
#define INFINI_WG_D32(C)                                                                                              \
    C(d[0]), C(d[1]), C(d[2]), C(d[3]), C(d[4]), C(d[5]), C(d[6]), C(d[7]), C(d[8]), C(d[9]), C(d[10]), C(d[11]),     \
        C(d[12]), C(d[13]), C(d[14]), C(d[15]), C(d[16]), C(d[17]), C(d[18]), C(d[19]), C(d[20]), C(d[21]), C(d[22]), \
        C(d[23]), C(d[24]), C(d[25]), C(d[26]), C(d[27]), C(d[28]), C(d[29]), C(d[30]), C(d[31])
#define INFINI_WG_D64(C)                                                                                              \
    INFINI_WG_D32(C), C(d[32]), C(d[33]), C(d[34]), C(d[35]), C(d[36]), C(d[37]), C(d[38]), C(d[39]), C(d[40]),       \
        C(d[41]), C(d[42]), C(d[43]), C(d[44]), C(d[45]), C(d[46]), C(d[47]), C(d[48]), C(d[49]), C(d[50]), C(d[51]), \
        C(d[52]), C(d[53]), C(d[54]), C(d[55]), C(d[56]), C(d[57]), C(d[58]), C(d[59]), C(d[60]), C(d[61]), C(d[62]), \
        C(d[63])
#define INFINI_WG_IN "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(ZERO ? 0 : 1), "n"(TB)

// D[64 x N] (+)= A B for N = 64 or 128; TB: B is N-major (its N index contiguous in a core matrix row) rather
// than K-major; ZERO: D = A B (D's registers are outputs only: what they held before does not hold the wgmma back).
template <typename T, int TB, bool ZERO, int N>
__device__ __forceinline__ void wgmmaN(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr bool bf = std::is_same_v<T, __nv_bfloat16>;
    if constexpr (N == 64 && bf && ZERO)
        asm volatile(INFINI_WG64_TEXT("bf16") : INFINI_WG_D32("=f") : INFINI_WG_IN);
    else if constexpr (N == 64 && bf)
        asm volatile(INFINI_WG64_TEXT("bf16") : INFINI_WG_D32("+f") : INFINI_WG_IN);
    else if constexpr (N == 64 && ZERO)
        asm volatile(INFINI_WG64_TEXT("f16") : INFINI_WG_D32("=f") : INFINI_WG_IN);
    else if constexpr (N == 64)
        asm volatile(INFINI_WG64_TEXT("f16") : INFINI_WG_D32("+f") : INFINI_WG_IN);
    else if constexpr (bf && ZERO)
        asm volatile(INFINI_WG128_TEXT("bf16") : INFINI_WG_D64("=f") : INFINI_WG_IN);
    else if constexpr (bf)
        asm volatile(INFINI_WG128_TEXT("bf16") : INFINI_WG_D64("+f") : INFINI_WG_IN);
    else if constexpr (ZERO)
        asm volatile(INFINI_WG128_TEXT("f16") : INFINI_WG_D64("=f") : INFINI_WG_IN);
    else
        asm volatile(INFINI_WG128_TEXT("f16") : INFINI_WG_D64("+f") : INFINI_WG_IN);
#else
    __trap();  // (launched only where the build has sm_90a: flashWgmma)
#endif
}
#undef INFINI_WG64_TEXT
#undef INFINI_WG128_TEXT
#undef INFINI_WG_D32
#undef INFINI_WG_D64
#undef INFINI_WG_IN

}  // namespace infini::nvidia::ops::attn
