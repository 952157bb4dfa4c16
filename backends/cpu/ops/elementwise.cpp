// elementwise.cpp: add, mul, silu, relu, gelu, swiglu (binary, any strides incl. broadcast zeros)
// and silu_and_mul. Contiguous tensors take one flat loop split across threads; others go row by
// row over the last dimension.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "../../common/erf_fit.h"
#include "convert.h"
#include "exp.h"
#include "nontemporal.h"
#include "op_base.h"
#include "parallel.h"
#include "simd.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {
namespace {

// One contiguous run: y[i] = f(a[i], b[i]) (b ignored when unary). float runs go straight through
// (restrict pointers and a compile-time arity let the compiler vectorize); float16/bfloat16 runs are
// converted in blocks with the instruction set's conversions (simd.h loadRow/storeRow) and
// computed on float blocks in between.
// A functor may also have `vec(a, b)` on whole vectors: `__m512 vec(__m512, __m512)` runs 16 lanes at a
// time in the AVX-512 build (explicit code where the compiler's own vectorization of the scalar form is
// slow: divisions become a reciprocal and one Newton step, exp uses vscalefps); `__m256 vec(__m256,
// __m256)` runs 8 lanes: the plain streaming ops (add, mul, relu), which are ~10% slower with 512-bit
// vectors (bandwidth-bound).
// (function templates: a vector type as a class template argument draws -Wignored-attributes)
template <typename F, typename V>
constexpr auto hasVec(int) -> decltype(std::declval<const F &>().vec(std::declval<V>(), std::declval<V>()), true) {
    return true;
}
template <typename F, typename V>
constexpr bool hasVec(long) {
    return false;
}

// What an op's functor says of itself (each derives from OpTraits and overrides what holds):
// kStreaming, a plain streaming op (add, mul, relu) that costs about one copy per element (the thread
// split counts the others as four) and writes large outputs with streaming stores; kBits16, an op exact
// on float16/bfloat16 as stored (relu), with `bits<T>(__m256i)` on 16 lanes of raw bits, which skips
// the conversion to float and back.
struct OpTraits {
    static constexpr bool kStreaming = false;
    static constexpr bool kBits16 = false;
};

#ifdef __AVX2__
// A 16-bit output 16 lanes (32 bytes) a step: step(i) gives y[i .. i + 16) as raw bits, one(i) computes
// y[i] alone. NT: streaming stores after a scalar head to 32-byte alignment, fenced. Returns where the
// steps stopped (fewer than 16 left).
template <bool NT, typename T, typename Step, typename One>
inline size_t run16(T *y, size_t n, Step step, One one) {
    size_t i = 0;
    if constexpr (NT) {
        for (; i < n && (reinterpret_cast<uintptr_t>(y + i) & 31) != 0; ++i) one(i);
    }
    for (; i + 16 <= n; i += 16) {
        __m256i r = step(i);
        if constexpr (NT)
            _mm256_stream_si256(reinterpret_cast<__m256i *>(y + i), r);
        else
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i), r);
    }
    if constexpr (NT) _mm_sfence();
    return i;
}
#endif

// NT: the 8-lane loop writes with streaming stores (after a scalar head to 32-byte alignment), fenced.
template <bool Binary, bool NT = false, typename F>
inline void applyFloat(float *__restrict y, const float *__restrict a, const float *__restrict b, size_t n, F f) {
    size_t i = 0;
#ifdef __AVX512F__
    if constexpr (hasVec<F, __m512>(0)) {
        for (; i + 16 <= n; i += 16) {
            __m512 va = _mm512_loadu_ps(a + i), vb = Binary ? _mm512_loadu_ps(b + i) : _mm512_setzero_ps();
            _mm512_storeu_ps(y + i, f.vec(va, vb));
        }
    }
#endif
#ifdef __AVX2__
    if constexpr (hasVec<F, __m256>(0)) {
        if constexpr (NT) {
            for (; i < n && (reinterpret_cast<uintptr_t>(y + i) & 31) != 0; ++i) y[i] = f(a[i], Binary ? b[i] : 0.0f);
        }
        for (; i + 8 <= n; i += 8) {
            __m256 va = _mm256_loadu_ps(a + i), vb = Binary ? _mm256_loadu_ps(b + i) : _mm256_setzero_ps();
            if constexpr (NT)
                _mm256_stream_ps(y + i, f.vec(va, vb));
            else
                _mm256_storeu_ps(y + i, f.vec(va, vb));
        }
        if constexpr (NT) _mm_sfence();
    }
#endif
    for (; i < n; ++i) y[i] = f(a[i], Binary ? b[i] : 0.0f);
}

// NT: streaming stores where the run is written 8 lanes at a time (float32, and 16-bit types with an
// 8-lane functor). float16/bfloat16 in the AVX-512 build (which has AVX512-BF16): converted in registers
// both ways (vcvtph2ps/vcvtps2ph, a shift/vcvtneps2bf16), 8 lanes for a __m256 functor and 16 for a
// __m512 one, where a block of 256 through float buffers (loadRow/storeRow) costs ~1.5x for add/mul.
template <typename T, bool Binary, bool NT = false, typename F>
inline void applyRun(T *__restrict y, const T *__restrict a, const T *__restrict b, size_t n, F f) {
    auto one = [&](size_t i) { y[i] = fromFloat<T>(f(toFloat(a[i]), Binary ? toFloat(b[i]) : 0.0f)); };
    if constexpr (std::is_same_v<T, float>) {
        applyFloat<Binary, NT>(y, a, b, n, f);
#ifdef __AVX2__
    } else if constexpr (!Binary && F::kBits16) {  // 16 lanes as stored, no conversion
        size_t i = run16<NT>(
            y, n,
            [&](size_t j) { return f.template bits<T>(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + j))); },
            one);
        for (; i < n; ++i) one(i);
#endif
#ifdef __AVX2__
    } else if constexpr (hasVec<F, __m256>(0)) {  // converted in registers, no float block
        size_t i = 0;
#ifndef __AVX512BF16__
        if constexpr (std::is_same_v<T, bf16>) {
            // AVX2 bfloat16: 16 elements a step, unpacked and packed lane by lane (simd.h load16/pack16):
            // about a third fewer instructions than 8 at a time with cross-lane moves, which bound this
            // loop. With AVX512-BF16, 8 at a time (pack8 is one vcvtneps2bf16) below.
            i = run16<NT>(
                y, n,
                [&](size_t j) {
                    __m256 alo, ahi, blo = _mm256_setzero_ps(), bhi = _mm256_setzero_ps();
                    load16(a + j, alo, ahi);
                    if constexpr (Binary) load16(b + j, blo, bhi);
                    return pack16(y, f.vec(alo, blo), f.vec(ahi, bhi));
                },
                one);
        } else
#endif
            if constexpr (NT) {
            for (; i < n && (reinterpret_cast<uintptr_t>(y + i) & 15) != 0; ++i) one(i);
            for (; i + 8 <= n; i += 8) stream8(y + i, f.vec(load8(a + i), Binary ? load8(b + i) : _mm256_setzero_ps()));
            _mm_sfence();
        }
        for (; i + 8 <= n; i += 8) store8(y + i, f.vec(load8(a + i), Binary ? load8(b + i) : _mm256_setzero_ps()));
        for (; i < n; ++i) one(i);
#endif
#ifdef __AVX512BF16__
    } else if constexpr (hasVec<F, __m512>(0)) {  // 16 lanes converted in registers, the tail masked
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            store16f(y + i, f.vec(load16f(a + i), Binary ? load16f(b + i) : _mm512_setzero_ps()));
        if (i < n) {
            const __mmask16 k = tailMask(n - i);
            store16f(y + i, f.vec(load16f(a + i, k), Binary ? load16f(b + i, k) : _mm512_setzero_ps()), k);
        }
#endif
    } else {  // converted in blocks of 256 through float buffers
        constexpr size_t kBlock = 256;
        alignas(64) float fa[kBlock], fb[kBlock], fy[kBlock];
        for (size_t base = 0; base < n; base += kBlock) {
            size_t m = std::min(kBlock, n - base);
            loadRow(fa, a + base, m);
            if (Binary) loadRow(fb, b + base, m);
            applyFloat<Binary>(fy, fa, fb, m, f);
            storeRow(y + base, fy, m);
        }
    }
}

template <typename T, bool Binary, typename F>
inline void applyStrided(T *y, ptrdiff_t sy, const T *a, ptrdiff_t sa, const T *b, ptrdiff_t sb, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) y[i * sy] = fromFloat<T>(f(toFloat(a[i * sa]), Binary ? toFloat(b[i * sb]) : 0.0f));
}

// Applies y = f(a, b) (or f(a)) over same-shaped tensors. The thread split (parallelFor) counts a
// float32 element of a plain streaming op (kStreaming) as 1 and any other as 4: the plain ones
// take a second thread only from 64K elements (as torch's grain of 32K).
template <typename T, bool Binary, typename F>
Kernel elementwiseKernel(Layout y, Layout a, Layout b, F f) {
    constexpr size_t cost = F::kStreaming && (std::is_same_v<T, float> || F::kBits16) ? 1 : 4;
    bool flat = y.contiguous() && a.contiguous() && (!Binary || b.contiguous());
    bool stream = false;
    // streaming stores where the bytes moved (inputs read and the output written) are many (nontemporal.h)
    if constexpr (F::kStreaming) stream = flat && y.numel() * sizeof(T) * (Binary ? 3 : 2) >= streamingStoreBytes();
    return [=](void *const *data) {
        T *py = static_cast<T *>(data[0]);
        const T *pa = static_cast<const T *>(data[1]);
        const T *pb = Binary ? static_cast<const T *>(data[2]) : nullptr;
        if (flat) {
            parallelFor(y.numel(), cost, [&](size_t begin, size_t end) {
                if constexpr (F::kStreaming) {
                    if (stream) {
                        applyRun<T, Binary, true>(py + begin, pa + begin, Binary ? pb + begin : nullptr, end - begin,
                                                  f);
                        return;
                    }
                }
                applyRun<T, Binary>(py + begin, pa + begin, Binary ? pb + begin : nullptr, end - begin, f);
            });
            return;
        }
        size_t n = y.last();
        ptrdiff_t sy = y.ndim() ? y.strides.back() : 1, sa = a.ndim() ? a.strides.back() : 1;
        ptrdiff_t sb = Binary && b.ndim() ? b.strides.back() : 1;
        parallelFor(y.rows(), n * cost, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
                T *ry = py + y.rowOffset(r);
                const T *ra = pa + a.rowOffset(r);
                const T *rb = Binary ? pb + b.rowOffset(r) : nullptr;
                if (sy == 1 && sa == 1 && (!Binary || sb == 1)) {
                    applyRun<T, Binary>(ry, ra, rb, n, f);
                } else {
                    applyStrided<T, Binary>(ry, sy, ra, sa, rb, sb, n, f);
                }
            }
        });
    };
}

template <typename F>
infiniStatus_t makeElementwise(const char *name, const infiniopOpParams_t &p, bool binary, Kernel *k, F f) {
    Layout y = layoutOf(p.tensors[0]), a = layoutOf(p.tensors[1]);
    Layout b = binary ? layoutOf(p.tensors[2]) : Layout{};
    INFINI_RETURN_IF_ERROR(expectSameShape(name, "input", a, y, "output"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(name, "input", a, y, "output"));
    if (binary) {
        INFINI_RETURN_IF_ERROR(expectSameShape(name, "second input", b, y, "output"));
        INFINI_RETURN_IF_ERROR(expectSameDtype(name, "second input", b, y, "output"));
    }
    return dispatchFloat(y.dtype, name, [&](auto t) {
        using T = decltype(t);
        *k = binary ? elementwiseKernel<T, true>(y, a, b, f) : elementwiseKernel<T, false>(y, a, b, f);
    });
}

// erf in float32 by backends/common/erf_fit.h's fit (the nvidia backend's too): within ~1.1 ulp of float64's,
// plus the 2^r below (7.9e-8 relative on erfc <= 0.16: under 0.25 ulp of erf): float32 gelu's. (Abramowitz
// & Stegun's, which float16/bfloat16 keep, put float32 gelu 1.5e-6 of itself off at x = -0.53, 13 ulps;
// torch's CPU gelu is within 4.6 float32 ulps of |x|, this one 1.8.) NaN stays NaN; +-inf give +-1.
// 2^r for r in erf's range [-27, -2] (normal values, no clamps): 2^n (n = round(r), in the exponent bits)
// times 2^f for f = r - n in [-0.5, 0.5] by a polynomial of degree 6 (our least-squares fit: 7.9e-8
// relative). NaN gives NaN.
constexpr float kExp2F[7] = {
    1.0f, 6.931471825e-01f, 2.402264625e-01f, 5.550329015e-02f, 9.618519805e-03f, 1.339986455e-03f, 1.533758041e-04f};
inline float exp2Erfc(float r) {
    float n = std::nearbyint(r), f = r - n;
    float p = kExp2F[6];
    for (int k = 5; k >= 0; --k) p = std::fma(p, f, kExp2F[k]);
    return std::ldexp(p, static_cast<int>(n));
}
inline float erfFit(float x) {  // (the scalar form: the vector loops' tails; one range evaluated)
    using namespace erf_fit;
    const float ax = std::fabs(x);
    if (ax < kErfSplit) {
        const float u = x * x;
        float q = erfQ(kQTerms - 1);
        for (int k = kQTerms - 2; k >= 0; --k) q = std::fma(q, u, erfQ(k));
        return std::fma(x, q, x);
    }
    if (ax != ax) return x;  // NaN
    const float t = ax > kErfClamp ? kErfClamp : ax;
    float r = erfR(kRTerms - 1);
    for (int k = kRTerms - 2; k >= 0; --k) r = std::fma(r, t, erfR(k));
    return std::copysign(1.0f - exp2Erfc(r), x);
}
#ifdef __AVX512F__
inline __m512 exp2Erfc512(__m512 r) {
    __m512 n = _mm512_roundscale_ps(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), f = _mm512_sub_ps(r, n);
    __m512 p = _mm512_set1_ps(kExp2F[6]);
    for (int k = 5; k >= 0; --k) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2F[k]));
    return _mm512_scalef_ps(p, n);
}
#elif defined(__AVX2__)
inline __m256 exp2Erfc256(__m256 r) {
    __m256 n = _mm256_round_ps(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), f = _mm256_sub_ps(r, n);
    __m256 p = _mm256_set1_ps(kExp2F[6]);
    for (int k = 5; k >= 0; --k) p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kExp2F[k]));
    // (NaN: p is NaN, and so is p times whatever n's conversion gave)
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23)));
}
#endif

// erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7), with the vectorizable exp.
inline float erfApprox(float x) {
    float ax = x < 0 ? -x : x;
    float t = 1.0f / (1.0f + 0.3275911f * ax);
    float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    float y = 1.0f - poly * expf_fast(-ax * ax);
    return x < 0 ? -y : y;
}

#ifdef __AVX512F__
// 1 / d to about 1 ulp: the 14-bit reciprocal estimate and one Newton step.
inline __m512 recip512(__m512 d) {
    __m512 r = _mm512_rcp14_ps(d);
    r = _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(2.0f)));
    // 1 / inf is 0: the Newton step alone makes it 0 * inf = NaN, which would make gelu's tanh form NaN from
    // x ~ 10 on, silu below x ~ -88 and the 16-bit erf gelu at +inf (silu(-inf) stays NaN, as torch's)
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(d, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), _mm512_setzero_ps());
}
inline __m512 silu512(__m512 x) {
    return _mm512_mul_ps(x,
                         recip512(_mm512_add_ps(_mm512_set1_ps(1.0f), exp512(_mm512_sub_ps(_mm512_setzero_ps(), x)))));
}
#endif

struct AddF : OpTraits {
    static constexpr bool kStreaming = true;
    float operator()(float a, float b) const { return a + b; }
#ifdef __AVX2__
    __m256 vec(__m256 a, __m256 b) const { return _mm256_add_ps(a, b); }
#endif
};

struct MulF : OpTraits {
    static constexpr bool kStreaming = true;
    float operator()(float a, float b) const { return a * b; }
#ifdef __AVX2__
    __m256 vec(__m256 a, __m256 b) const { return _mm256_mul_ps(a, b); }
#endif
};

struct ReluF : OpTraits {  // max(a, 0); NaN stays NaN, -0 stays -0 (as torch)
    static constexpr bool kStreaming = true;
    float operator()(float a, float) const { return a < 0.0f ? 0.0f : a; }  // -0 and NaN stay, as torch
#ifdef __AVX2__
    __m256 vec(__m256 a, __m256) const {
        return _mm256_max_ps(_mm256_setzero_ps(), a);  // maxps gives its second operand (a) when either is NaN
    }
    // float16/bfloat16 bits: a lane below zero becomes +0, as signed 16-bit integers those from -0
    // (0x8000) exclusive to -inf (0xff80 / 0xfc00) inclusive; -0 and NaN stay. Exact, so no conversion.
    static constexpr bool kBits16 = true;
    template <typename T>
    __m256i bits(__m256i x) const {
        const short past_inf = std::is_same_v<T, bf16> ? -127 : -1023;  // -inf's bits + 1
        __m256i below = _mm256_and_si256(_mm256_cmpgt_epi16(x, _mm256_set1_epi16(-32768)),
                                         _mm256_cmpgt_epi16(_mm256_set1_epi16(past_inf), x));
        return _mm256_andnot_si256(below, x);
    }
#endif
};

struct Silu : OpTraits {
    float operator()(float a, float) const { return siluf(a); }
#ifdef __AVX512F__
    __m512 vec(__m512 a, __m512) const { return silu512(a); }
#endif
};

struct SwiGLU : OpTraits {  // a * silu(b)
    float operator()(float a, float b) const { return a * siluf(b); }
#ifdef __AVX512F__
    __m512 vec(__m512 a, __m512 b) const { return _mm512_mul_ps(a, silu512(b)); }
#endif
};

struct SiluMul : OpTraits {  // silu(a) * b
    float operator()(float a, float b) const { return siluf(a) * b; }
#ifdef __AVX512F__
    __m512 vec(__m512 a, __m512 b) const { return _mm512_mul_ps(silu512(a), b); }
#endif
};

struct GeluErf : OpTraits {
    float operator()(float x, float) const { return 0.5f * x * (1.0f + erfFit(x * 0.70710678118654752f)); }
#ifdef __AVX512F__
    __m512 vec(__m512 x, __m512) const {
        using namespace erf_fit;
        __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f));
        __m512 az = _mm512_abs_ps(z), u = _mm512_mul_ps(z, z);
        __m512 q = _mm512_set1_ps(erfQ(kQTerms - 1));
        for (int k = kQTerms - 2; k >= 0; --k) q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(erfQ(k)));
        __m512 t = _mm512_min_ps(_mm512_set1_ps(kErfClamp), az);  // (min gives its second operand, az, when NaN)
        __m512 r = _mm512_set1_ps(erfR(kRTerms - 1));
        for (int k = kRTerms - 2; k >= 0; --k) r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(erfR(k)));
        __m512 big = _mm512_sub_ps(_mm512_set1_ps(1.0f), exp2Erfc512(r));
        big = _mm512_castsi512_ps(
            _mm512_or_si512(_mm512_castps_si512(big),  // z's sign onto 1 - erfc
                            _mm512_and_si512(_mm512_castps_si512(z), _mm512_set1_epi32(INT32_MIN))));
        __m512 erf = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(az, _mm512_set1_ps(kErfSplit), _CMP_LT_OQ), big,
                                          _mm512_fmadd_ps(z, q, z));
        return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), _mm512_add_ps(_mm512_set1_ps(1.0f), erf));
    }
#elif defined(__AVX2__)
    __m256 vec(__m256 x, __m256) const {  // the same in 8 lanes
        using namespace erf_fit;
        __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f));
        __m256 sign = _mm256_and_ps(z, _mm256_set1_ps(-0.0f));
        __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z), u = _mm256_mul_ps(z, z);
        __m256 q = _mm256_set1_ps(erfQ(kQTerms - 1));
        for (int k = kQTerms - 2; k >= 0; --k) q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(erfQ(k)));
        __m256 t = _mm256_min_ps(_mm256_set1_ps(kErfClamp), az);  // (min gives its second operand, az, when NaN)
        __m256 r = _mm256_set1_ps(erfR(kRTerms - 1));
        for (int k = kRTerms - 2; k >= 0; --k) r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(erfR(k)));
        __m256 big = _mm256_or_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), exp2Erfc256(r)), sign);
        __m256 erf =
            _mm256_blendv_ps(big, _mm256_fmadd_ps(z, q, z), _mm256_cmp_ps(az, _mm256_set1_ps(kErfSplit), _CMP_LT_OQ));
        return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), _mm256_add_ps(_mm256_set1_ps(1.0f), erf));
    }
#endif
};

// gelu for float16/bfloat16 outputs: erf by Abramowitz & Stegun (absolute error up to 3e-7, far under those
// types' rounding, 2^-9 / 2^-12 of a value: no output unlike the float32 form's but at rounding ties), 1.6x
// cheaper than erfFit.
struct GeluErfHalf : OpTraits {
    float operator()(float x, float) const { return 0.5f * x * (1.0f + erfApprox(x * 0.70710678118654752f)); }
#ifdef __AVX512F__
    // erf by Abramowitz & Stegun 7.1.28, which needs no exp: erf(z) = 1 - (1 + a1 z + ... + a6 z^6)^-16
    // for z >= 0 (absolute error 3e-7, which is what gelu's 1 + erf sees).
    __m512 vec(__m512 x, __m512) const {
        __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f));
        __m512 az = _mm512_abs_ps(z);
        __m512 p = _mm512_fmadd_ps(az, _mm512_set1_ps(0.0000430638f), _mm512_set1_ps(0.0002765672f));
        p = _mm512_fmadd_ps(p, az, _mm512_set1_ps(0.0001520143f));
        p = _mm512_fmadd_ps(p, az, _mm512_set1_ps(0.0092705272f));
        p = _mm512_fmadd_ps(p, az, _mm512_set1_ps(0.0422820123f));
        p = _mm512_fmadd_ps(p, az, _mm512_set1_ps(0.0705230784f));
        p = _mm512_fmadd_ps(p, az, _mm512_set1_ps(1.0f));
        p = _mm512_mul_ps(p, p);  // ^2
        p = _mm512_mul_ps(p, p);  // ^4
        p = _mm512_mul_ps(p, p);  // ^8
        p = _mm512_mul_ps(p, p);  // ^16 (inf for large |z|: its reciprocal is 0, erf 1)
        __m512 erf_abs = _mm512_sub_ps(_mm512_set1_ps(1.0f), recip512(p));
        // erf(z) carries z's sign: copy the sign bit of z onto |erf|
        __m512 erf = _mm512_castsi512_ps(_mm512_or_si512(
            _mm512_castps_si512(erf_abs), _mm512_and_si512(_mm512_castps_si512(z), _mm512_set1_epi32(INT32_MIN))));
        return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), _mm512_add_ps(_mm512_set1_ps(1.0f), erf));
    }
#elif defined(__AVX2__)
    __m256 vec(__m256 x, __m256) const {  // the same formula in 8 lanes, with an exact division
        __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f));
        __m256 sign = _mm256_and_ps(z, _mm256_set1_ps(-0.0f));
        __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
        __m256 p = _mm256_fmadd_ps(az, _mm256_set1_ps(0.0000430638f), _mm256_set1_ps(0.0002765672f));
        p = _mm256_fmadd_ps(p, az, _mm256_set1_ps(0.0001520143f));
        p = _mm256_fmadd_ps(p, az, _mm256_set1_ps(0.0092705272f));
        p = _mm256_fmadd_ps(p, az, _mm256_set1_ps(0.0422820123f));
        p = _mm256_fmadd_ps(p, az, _mm256_set1_ps(0.0705230784f));
        p = _mm256_fmadd_ps(p, az, _mm256_set1_ps(1.0f));
        p = _mm256_mul_ps(p, p);
        p = _mm256_mul_ps(p, p);
        p = _mm256_mul_ps(p, p);
        p = _mm256_mul_ps(p, p);  // ^16 (inf for large |z|: 1 / inf is 0, erf 1)
        __m256 erf = _mm256_or_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_div_ps(_mm256_set1_ps(1.0f), p)), sign);
        return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), _mm256_add_ps(_mm256_set1_ps(1.0f), erf));
    }
#endif
};

struct GeluTanh : OpTraits {
    float operator()(float x, float) const {
        float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        // tanh(u) = 1 - 2 / (exp(2u) + 1), with the vectorizable exp
        float t = 1.0f - 2.0f / (expf_fast(2.0f * u) + 1.0f);
        return 0.5f * x * (1.0f + t);
    }
#ifdef __AVX512F__
    __m512 vec(__m512 x, __m512) const {
        __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
        __m512 u =
            _mm512_mul_ps(_mm512_set1_ps(0.79788456080286536f), _mm512_fmadd_ps(x3, _mm512_set1_ps(0.044715f), x));
        __m512 d = _mm512_add_ps(exp512(_mm512_add_ps(u, u)), _mm512_set1_ps(1.0f));
        __m512 t = _mm512_fnmadd_ps(_mm512_set1_ps(2.0f), recip512(d), _mm512_set1_ps(1.0f));
        return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), _mm512_add_ps(_mm512_set1_ps(1.0f), t));
    }
#endif
};

}  // namespace

infiniStatus_t makeAdd(const infiniopOpParams_t &p, Kernel *k) { return makeElementwise("add", p, true, k, AddF{}); }
infiniStatus_t makeMul(const infiniopOpParams_t &p, Kernel *k) { return makeElementwise("mul", p, true, k, MulF{}); }
infiniStatus_t makeSwiGLU(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("swiglu", p, true, k, SwiGLU{});
}
infiniStatus_t makeSilu(const infiniopOpParams_t &p, Kernel *k) { return makeElementwise("silu", p, false, k, Silu{}); }
infiniStatus_t makeRelu(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("relu", p, false, k, ReluF{});
}
infiniStatus_t makeGelu(const infiniopOpParams_t &p, Kernel *k) {
    if (p.i[0] == 1) return makeElementwise("gelu", p, false, k, GeluTanh{});
    if (p.i[0] != 0) return fail(INFINI_STATUS_BAD_PARAM, "gelu: approximate must be 0 (none) or 1 (tanh)");
    if (layoutOf(p.tensors[0]).dtype == INFINI_DTYPE_F32) return makeElementwise("gelu", p, false, k, GeluErf{});
    return makeElementwise("gelu", p, false, k, GeluErfHalf{});
}

infiniStatus_t makeSiluAndMul(const infiniopOpParams_t &p, Kernel *k) {
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    const char *op = "silu_and_mul";
    INFINI_RETURN_IF_ERROR(checks::siluAndMul(y, x));
    return dispatchFloat(y.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            size_t d = y.last();
            parallelFor(y.rows(), d * 8, [&](size_t begin, size_t end) {
                for (size_t r = begin; r < end; ++r) {
                    const T *rx = px + x.rowOffset(r);
                    applyRun<T, true>(py + y.rowOffset(r), rx, rx + d, d, SiluMul{});
                }
            });
        };
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
