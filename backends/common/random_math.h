// random_math.h: the generator of the random family (families.h) and the transforms from its bits to each op's
// values, once for every backend: host C++ (the cpu backend) and CUDA (the nvidia backend) include it.
//
// The stream: value n of (seed, offset) comes from one Philox4x32-10 block (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11; the generator curand also implements) with key = seed and counter =
// (n low, n high, 0, 0), n = offset + k for the k-th element of the iteration space. Each op takes what it needs
// of the block's four 32-bit words, so a value depends on (seed, n) only: never on how the work is split.
//
// Uniforms: 24 bits for float math, 53 for double (one float or double step, never rounding up to 1 unless
// stated). The float transforms use polynomial log and cos (no libm call), so the cpu loops over them vectorize.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define INFINI_RND_HD __host__ __device__ __forceinline__
#else
#define INFINI_RND_HD inline
#endif

namespace infini::rnd {

// ---- Philox4x32-10 ----

INFINI_RND_HD void philox(uint64_t seed, uint64_t n, uint32_t w[4]) {
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    uint32_t c0 = static_cast<uint32_t>(n), c1 = static_cast<uint32_t>(n >> 32), c2 = 0, c3 = 0;
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
        const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
        const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
        c1 = static_cast<uint32_t>(p1);
        c3 = static_cast<uint32_t>(p0);
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    w[0] = c0;
    w[1] = c1;
    w[2] = c2;
    w[3] = c3;
}

// ---- uniforms from words ----

INFINI_RND_HD float u24(uint32_t a) { return static_cast<float>(a >> 8) * 0x1p-24f; }  // [0, 1)
INFINI_RND_HD uint64_t bits53(uint32_t a, uint32_t b) { return ((static_cast<uint64_t>(a) << 32) | b) >> 11; }
INFINI_RND_HD double u53(uint32_t a, uint32_t b) { return static_cast<double>(bits53(a, b)) * 0x1p-53; }  // [0, 1)
// (0, 1): never 0 or 1, so logs and tangents of it stay finite.
INFINI_RND_HD double u53open(uint32_t a, uint32_t b) { return (static_cast<double>(bits53(a, b)) + 0.5) * 0x1p-53; }
// (0, 1] with 32 bits, in float: the smallest value 2^-33 bounds a normal's tail at 6.8 sigma (as curand's).
INFINI_RND_HD float u32pos(uint32_t a) { return static_cast<float>(a) * 0x1p-32f + 0x1p-33f; }

// ---- float log and cos without libm (vectorizable; Cephes' logf polynomial, a Taylor cosine) ----

INFINI_RND_HD uint32_t floatBits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
#endif
}
INFINI_RND_HD float bitsFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float x;
    std::memcpy(&x, &u, 4);
    return x;
#endif
}

// log(x) for a positive normal float x (about 1 ulp).
INFINI_RND_HD float logPositive(float x) {
    const uint32_t ix = floatBits(x);
    int32_t e = static_cast<int32_t>(ix >> 23) - 126;  // x = m * 2^e, m in [0.5, 1)
    const float m = bitsFloat((ix & 0x007fffffu) | 0x3f000000u);
    const bool low = m < 0.707106781186547524f;
    e = low ? e - 1 : e;
    const float f = low ? m + m - 1.0f : m - 1.0f;  // in [sqrt(0.5) - 1, sqrt(2) - 1)
    const float z = f * f;
    float y = 7.0376836292e-2f;
    y = y * f - 1.1514610310e-1f;
    y = y * f + 1.1676998740e-1f;
    y = y * f - 1.2420140846e-1f;
    y = y * f + 1.4249322787e-1f;
    y = y * f - 1.6668057665e-1f;
    y = y * f + 2.0000714765e-1f;
    y = y * f - 2.4999993993e-1f;
    y = y * f + 3.3333331174e-1f;
    y = y * f * z;
    const float fe = static_cast<float>(e);
    y += -2.12194440e-4f * fe;
    y += -0.5f * z;
    return f + y + 0.693359375f * fe;
}

// cos(2 pi t) for t in [0, 1] (error below 1e-7).
INFINI_RND_HD float cos2pi(float t) {
    float y = t > 0.5f ? 1.0f - t : t;         // cos(2 pi t) = cos(2 pi (1 - t)); y in [0, 0.5]
    const bool flip = y > 0.25f;               // cos(2 pi y) = -cos(2 pi (0.5 - y))
    y = flip ? 0.5f - y : y;                   // [0, 0.25]
    const float x = y * 6.28318530717958648f;  // [0, pi / 2]
    const float x2 = x * x;
    float p = 2.08767569878680990e-9f;  // 1 / 12!
    p = p * x2 - 2.75573192239858907e-7f;
    p = p * x2 + 2.48015873015873016e-5f;
    p = p * x2 - 1.38888888888888889e-3f;
    p = p * x2 + 4.16666666666666667e-2f;
    p = p * x2 - 0.5f;
    p = p * x2 + 1.0f;
    return flip ? -p : p;
}

// ---- the ops' values from one block ----

// A standard normal by Box-Muller (the cosine branch): float from two words, double from four.
INFINI_RND_HD float normalF(const uint32_t w[4]) {
    return std::sqrt(-2.0f * logPositive(u32pos(w[0]))) * cos2pi(static_cast<float>(w[1]) * 0x1p-32f);
}
INFINI_RND_HD double normalD(const uint32_t w[4]) {
    const double u1 = (static_cast<double>(bits53(w[0], w[1])) + 1.0) * 0x1p-53;  // (0, 1]
    const double u2 = u53(w[2], w[3]);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586477 * u2);
}

// BERNOULLI: 1 with probability p, as u53 < p; `threshold` = ceil(p * 2^53) makes it one integer compare.
INFINI_RND_HD uint64_t bernoulliThreshold(double p) {
    if (!(p > 0.0)) return 0;
    if (p >= 1.0) return uint64_t(1) << 53;
    return static_cast<uint64_t>(std::ceil(p * 0x1p53));
}
INFINI_RND_HD bool bernoulli(const uint32_t w[4], uint64_t threshold) { return bits53(w[0], w[1]) < threshold; }

// RANDINT: an offset in [0, range) (range 0: the whole 64-bit range), by multiply-shift (Lemire), whose bias
// (range / 2^32 or range / 2^64) is that of a modulo.
INFINI_RND_HD uint64_t randintOffset(const uint32_t w[4], uint64_t range) {
    if (range == 0) return (static_cast<uint64_t>(w[0]) << 32) | w[1];
    if (range <= (uint64_t(1) << 32)) return (static_cast<uint64_t>(w[0]) * range) >> 32;
    const uint64_t r = (static_cast<uint64_t>(w[0]) << 32) | w[1];
#if defined(__CUDA_ARCH__)
    return __umul64hi(r, range);
#else
    return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * range) >> 64);
#endif
}

// EXPONENTIAL (rate lambda): -log(u) / lambda with u in (0, 1), so never 0 and never infinite.
INFINI_RND_HD double exponential(const uint32_t w[4], double lambda) { return -std::log(u53open(w[0], w[1])) / lambda; }
// GEOMETRIC (success probability p): ceil(log(u) / log(1 - p)), the number of trials, from 1.
INFINI_RND_HD double geometric(const uint32_t w[4], double log1m_p) {
    return std::ceil(std::log(u53open(w[0], w[1])) / log1m_p);
}
// CAUCHY: median + sigma * tan(pi (u - 1/2)).
INFINI_RND_HD double cauchy(const uint32_t w[4], double median, double sigma) {
    return median + sigma * std::tan(3.141592653589793238 * (u53open(w[0], w[1]) - 0.5));
}

}  // namespace infini::rnd
