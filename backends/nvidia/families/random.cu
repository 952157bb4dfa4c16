// random.cu: the random family on the nvidia backend. The mapping from (seed, offset, element) to a value, which a
// backend that wants the same streams implements the same way:
//
//   Element k of the iteration space (linear index, dim 0 fastest) draws from v = offset + k.
//   Philox4x32-10 (Salmon et al. 2011; the constants of Random123 and curand): key (k0, k1) = (seed low 32 bits,
//   seed high 32 bits); a round maps counter (c0, c1, c2, c3) to
//     (mulhi(0xCD9E8D57, c2) ^ c1 ^ k0, 0xCD9E8D57 * c2, mulhi(0xD2511F53, c0) ^ c3 ^ k1, 0xD2511F53 * c0)
//   (products mod 2^32), and the key is bumped by (0x9E3779B9, 0xBB67AE85) between rounds: 10 rounds, 9 bumps.
//   w(v)  = word v % 4 of philox(key, (lo32(v / 4), hi32(v / 4), 0, 0))    (the first stream)
//   w2(v) = word v % 4 of philox(key, (lo32(v / 4), hi32(v / 4), 1, 0))    (the second stream)
//   u(v) = (w >> 8) * 2^-24 in [0, 1); uo(v) = ((w >> 8) + 0.5) * 2^-24 in (0, 1), from w = w(v); for an F64
//   output instead u = w * 2^-32 and uo = (w + 0.5) * 2^-32 (computed in double).
//   UNIFORM      f0 + (f1 - f0) * u, each operation rounded on its own (no fused multiply-add); a result that
//                rounds to f1 in the output dtype becomes f0
//   NORMAL       f0 + f1 * sqrt(-2 log(uo)) * cos(2 pi u'), u' = u of the second stream (Box-Muller)
//   BERNOULLI    u < f0 ? 1 : 0          BERNOULLI_TENSOR  u < p[k] ? 1 : 0
//   EXPONENTIAL  -log(uo) / f0
//   RANDINT      i0 + r, r = w mod (i1 - i0) when the range is at most 2^32, else ((w2 << 32) | w) mod range
//                (range 0, all 2^64 values: (w2 << 32) | w itself)
//   GEOMETRIC    max(1, ceil(log(uo) / log1p(-f0)))
//   CAUCHY       f0 + f1 * tan(pi * (u - 0.5))
//   LOG_NORMAL   exp(NORMAL's value)
// The arithmetic is in float for every output dtype but F64 (double).
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ uint4 philox(uint64_t seed, uint64_t block, uint32_t c2) {
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32), c3 = 0;
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        const uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        const uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0;
        c1 = lo1;
        c2 = n2;
        c3 = lo0;
        if (r < 9) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
    }
    return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ uint32_t word(uint64_t seed, uint64_t v, uint32_t stream) {
    const uint4 r = philox(seed, v >> 2, stream);
    switch (v & 3) {
        case 0: return r.x;
        case 1: return r.y;
        case 2: return r.z;
        default: return r.w;
    }
}

struct RandParams {
    Geo<2> geo;  // out, p
    char *out;
    const char *prob;
    infiniDtype_t dout, dprob;
    int op;
    uint64_t seed, offset;
    double f0, f1;
    int64_t i0, i1;
    int64_t n;
};

// a * b and a + b, each rounded to nearest on its own (the compiler does not fuse them): UNIFORM's values are then
// reproducible bit for bit by any backend.
__device__ __forceinline__ float mulRn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mulRn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float addRn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double addRn(double a, double b) { return __dadd_rn(a, b); }

// x as stored in dtype t and read back (the value a float result becomes).
template <class C>
__device__ __forceinline__ C rounded(C x, infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F16: return static_cast<C>(__half2float(__float2half_rn(static_cast<float>(x))));
        case INFINI_DTYPE_BF16: return static_cast<C>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(x))));
        case INFINI_DTYPE_F32: return static_cast<C>(static_cast<float>(x));
        default: return x;
    }
}

template <class C, bool WIDE>
__global__ void __launch_bounds__(kThreads) randomKernel(RandParams p) {
    opEntry();
    constexpr bool kDouble = std::is_same_v<C, double>;
    const C pi = C(3.14159265358979323846);
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step) {
        Off<WIDE> off[2];
        offsetsOf<WIDE>(p.geo, i, off);
        const uint64_t v = p.offset + static_cast<uint64_t>(i);
        const uint32_t w = word(p.seed, v, 0);
        const C u = kDouble ? C(double(w) * 0x1p-32) : C(float(w >> 8) * 0x1p-24f);
        const C uo = kDouble ? C((double(w) + 0.5) * 0x1p-32) : C((float(w >> 8) + 0.5f) * 0x1p-24f);
        char *o = p.out + off[0];
        const C f0 = static_cast<C>(p.f0), f1 = static_cast<C>(p.f1);
        C r = C(0);
        switch (p.op) {
            case INFINIOP_RANDOM_UNIFORM:
                r = addRn(f0, mulRn(f1 - f0, u));
                if (f1 > f0 && rounded(r, p.dout) >= f1) r = f0;
                break;
            case INFINIOP_RANDOM_NORMAL:
            case INFINIOP_RANDOM_LOG_NORMAL: {
                const uint32_t w2 = word(p.seed, v, 1);
                const C u2 = kDouble ? C(double(w2) * 0x1p-32) : C(float(w2 >> 8) * 0x1p-24f);
                r = f0 + f1 * (sqrt(C(-2) * log(uo)) * cos(C(2) * pi * u2));
                if (p.op == INFINIOP_RANDOM_LOG_NORMAL) r = exp(r);
                break;
            }
            case INFINIOP_RANDOM_BERNOULLI: r = u < f0 ? C(1) : C(0); break;
            case INFINIOP_RANDOM_BERNOULLI_TENSOR: r = u < loadAs<C>(p.prob + off[1], p.dprob) ? C(1) : C(0); break;
            case INFINIOP_RANDOM_EXPONENTIAL: r = -log(uo) / f0; break;
            case INFINIOP_RANDOM_RANDINT: {
                const uint64_t range = static_cast<uint64_t>(p.i1) - static_cast<uint64_t>(p.i0);
                uint64_t x = w;
                if (range == 0 || range > (uint64_t(1) << 32)) x |= static_cast<uint64_t>(word(p.seed, v, 1)) << 32;
                const uint64_t rr = range == 0 ? x : x % range;  // range 0: all 2^64 values
                storeAs<int64_t>(o, p.dout, static_cast<int64_t>(static_cast<uint64_t>(p.i0) + rr));
                continue;
            }
            case INFINIOP_RANDOM_GEOMETRIC:
                r = ceil(log(uo) / log1p(-f0));
                if (!(r >= C(1))) r = C(1);
                break;
            case INFINIOP_RANDOM_CAUCHY: r = f0 + f1 * tan(pi * (u - C(0.5))); break;
            default: break;
        }
        storeAs<C>(o, p.dout, r);
    }
}

const char *const kName = "random";

}  // namespace

infiniStatus_t random(const infiniopRandomArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const int want = a.op == INFINIOP_RANDOM_BERNOULLI_TENSOR ? 2 : 1;
    if (it.noperands != want) {
        return fail(INFINI_STATUS_BAD_PARAM, "random op %d: %d operands (expected %d)", a.op, it.noperands, want);
    }
    INFINI_RETURN_IF_ERROR(checkDtypes(kName, it));
    Space sp = spaceOf(it);
    RandParams p{};
    p.n = sp.numel();
    if (p.n == 0) return INFINI_STATUS_SUCCESS;
    coalesce(sp);  // (keeps every linear index's offsets: element k still draws v = offset + k)
    p.geo = geoOf<2>(sp);
    p.out = static_cast<char *>(it.data[0]);
    p.prob = want > 1 ? static_cast<const char *>(it.data[1]) : nullptr;
    p.dout = it.dtype[0];
    p.dprob = want > 1 ? it.dtype[1] : INFINI_DTYPE_F32;
    p.op = a.op;
    p.seed = a.seed;
    p.offset = a.offset;
    p.f0 = a.f[0];
    p.f1 = a.f[1];
    p.i0 = a.i[0];
    p.i1 = a.i[1];
    const unsigned grid = gridFor(p.n, kThreads);
    const bool small = fits32(sp);
    cudaError_t err;
    if (p.dout == INFINI_DTYPE_F64) {
        err = small ? launchOp(randomKernel<double, false>, dim3(grid), dim3(kThreads), 0, ctx.stream, p)
                    : launchOp(randomKernel<double, true>, dim3(grid), dim3(kThreads), 0, ctx.stream, p);
    } else {
        err = small ? launchOp(randomKernel<float, false>, dim3(grid), dim3(kThreads), 0, ctx.stream, p)
                    : launchOp(randomKernel<float, true>, dim3(grid), dim3(kThreads), 0, ctx.stream, p);
    }
    return launchStatus(err, kName);
}

}  // namespace infini::nvidia::families
