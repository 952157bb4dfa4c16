// attention/mma.cuh: the warp-level tensor-core products (mma.sync m16n8k16, f32 accumulators) and the
// fp16/bf16 packing of their A fragments, shared by the tensor-core decode kernels and the tiled kernel.
#pragma once

#include "params.cuh"

namespace infini::nvidia::ops::attn {

// mma.m16n8k16 with f32 accumulators: d (rows g: d[0..1], g + 8: d[2..3]) += A B.
template <typename T>
__device__ __forceinline__ void mma16816x4(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                           uint32_t b0, uint32_t b1) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
}

// The same with rows 8-15 zero in and discarded out (the decode kernels use 8 of the 16 rows).
template <typename T>
__device__ __forceinline__ void mma16816(float (&d)[2], uint32_t a0, uint32_t a2, uint32_t b0, uint32_t b1) {
    float t[4] = {d[0], d[1], 0.0f, 0.0f};
    mma16816x4<T>(t, a0, 0u, a2, 0u, b0, b1);
    d[0] = t[0];
    d[1] = t[1];
}

template <typename T>
__device__ __forceinline__ uint32_t packPair(float lo, float hi) {
    uint32_t r;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        r = *reinterpret_cast<uint32_t *>(&v);
    } else {
        __half2 v = __floats2half2_rn(lo, hi);
        r = *reinterpret_cast<uint32_t *>(&v);
    }
    return r;
}

}  // namespace infini::nvidia::ops::attn
