// convert.h: the 16-bit storage dtypes and their scalar conversions to and from float.
//
// Kernels compute in float32 whatever the storage dtype (float32, float16, bfloat16). The conversions
// are branch-free so that loops calling them vectorize; simd.h has the vector forms.
#pragma once

#include <cstdint>
#include <cstring>

#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};

inline float bitsToFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint32_t floatToBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float toFloat(float v) { return v; }
// IEEE half to float without branches (so loops vectorize): rebias normals and subnormals with one
// multiply by 2^112, and give inf/nan the all-ones exponent.
inline float toFloat(f16 v) {
    uint32_t h = v.bits, sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    float f = bitsToFloat(em << 13) * 5.192296858534828e+33f;  // 2^112
    uint32_t bits = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : floatToBits(f);
    return bitsToFloat(bits | sign);
}
inline float toFloat(bf16 v) {
    uint32_t u = static_cast<uint32_t>(v.bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

template <typename T>
inline T fromFloat(float v);
template <>
inline float fromFloat<float>(float v) {
    return v;
}
// float to IEEE half, round to nearest even, without branches (all three cases are computed).
template <>
inline f16 fromFloat<f16>(float v) {
    uint32_t f = floatToBits(v), sign = f & 0x80000000u;
    f ^= sign;
    uint32_t special = f > 0x7f800000u ? 0x7e00u : 0x7c00u;  // nan, or overflow to inf
    const uint32_t denorm_magic = ((127 - 15) + (23 - 10) + 1) << 23;
    uint32_t sub = floatToBits(bitsToFloat(f) + bitsToFloat(denorm_magic)) - denorm_magic;  // subnormal or 0
    uint32_t normal = (f + ((15u - 127u) << 23) + 0xfffu + ((f >> 13) & 1u)) >> 13;
    uint32_t o = f >= 0x47800000u ? special : (f < 0x38800000u ? sub : normal);
    return f16{static_cast<uint16_t>(o | (sign >> 16))};
}
template <>
inline bf16 fromFloat<bf16>(float v) {  // round to nearest even; NaN stays NaN (branch-free: vectorizes)
    uint32_t u;
    std::memcpy(&u, &v, 4);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;
    return bf16{static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded)};
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
