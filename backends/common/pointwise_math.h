// pointwise_math.h: the arithmetic of every op of the pointwise family (families.h), once, for every backend:
// host C++ (the cpu backend) and CUDA (the nvidia backend) include it. Values are in the compute type C
// (float, double or int64_t); loading operands into C and storing results from it is the backend's part.
// Semantics follow PyTorch's CPU kernels (NaN propagation, Python-style floor division and remainder, integer
// division by zero giving 0 instead of trapping).
#pragma once

#include <infini/families.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define INFINI_HD __host__ __device__ __forceinline__
#else
#define INFINI_HD inline
#endif

namespace infini::pw {

template <class C>
constexpr bool kIsInt = std::is_integral_v<C>;

// ---- float math in C's own precision (float or double), on host and device alike ----
namespace fm {
#define INFINI_PW_FN(name)                                 \
    INFINI_HD float name(float x) { return ::name##f(x); } \
    INFINI_HD double name(double x) { return ::name(x); }
INFINI_PW_FN(exp)
INFINI_PW_FN(exp2)
INFINI_PW_FN(expm1)
INFINI_PW_FN(log)
INFINI_PW_FN(log2)
INFINI_PW_FN(log10)
INFINI_PW_FN(log1p)
INFINI_PW_FN(sqrt)
INFINI_PW_FN(sin)
INFINI_PW_FN(cos)
INFINI_PW_FN(tan)
INFINI_PW_FN(asin)
INFINI_PW_FN(acos)
INFINI_PW_FN(atan)
INFINI_PW_FN(sinh)
INFINI_PW_FN(cosh)
INFINI_PW_FN(tanh)
INFINI_PW_FN(asinh)
INFINI_PW_FN(acosh)
INFINI_PW_FN(atanh)
INFINI_PW_FN(erf)
INFINI_PW_FN(erfc)
INFINI_PW_FN(lgamma)
INFINI_PW_FN(floor)
INFINI_PW_FN(ceil)
INFINI_PW_FN(trunc)
INFINI_PW_FN(rint)
INFINI_PW_FN(fabs)
#undef INFINI_PW_FN
#define INFINI_PW_FN2(name)                                            \
    INFINI_HD float name(float x, float y) { return ::name##f(x, y); } \
    INFINI_HD double name(double x, double y) { return ::name(x, y); }
INFINI_PW_FN2(pow)
INFINI_PW_FN2(fmod)
INFINI_PW_FN2(atan2)
INFINI_PW_FN2(hypot)
INFINI_PW_FN2(copysign)
INFINI_PW_FN2(fmax)
INFINI_PW_FN2(fmin)
#undef INFINI_PW_FN2

template <class C>
INFINI_HD bool isnan(C x) {
    return x != x;
}
template <class C>
INFINI_HD bool isinf(C x) {
    return x == std::numeric_limits<C>::infinity() || x == -std::numeric_limits<C>::infinity();
}

// Inverse error function: a central rational approximation refined by two Newton steps (accurate to a few ulps
// in float and double), as the host has no erfinv.
template <class C>
INFINI_HD C erfinv(C y) {
    if (isnan(y) || y < C(-1) || y > C(1)) return std::numeric_limits<C>::quiet_NaN();
    if (y == C(1)) return std::numeric_limits<C>::infinity();
    if (y == C(-1)) return -std::numeric_limits<C>::infinity();
    // Giles' single-precision approximation as the starting point
    double w = -::log((1.0 - double(y)) * (1.0 + double(y)));
    double x;
    if (w < 5.0) {
        w -= 2.5;
        double p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
        x = p * double(y);
    } else {
        w = ::sqrt(w) - 3.0;
        double p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
        x = p * double(y);
    }
    const double k = 1.1283791670955126;  // 2 / sqrt(pi)
    for (int i = 0; i < 2; ++i) x -= (::erf(x) - double(y)) / (k * ::exp(-x * x));
    return C(x);
}

// Digamma (psi) by reflection, recurrence to x >= 10 and the asymptotic series, as PyTorch computes it.
template <class C>
INFINI_HD C digamma(C xin) {
    double x = double(xin);
    const double pi = 3.14159265358979323846;
    if (x == 0) return fm::copysign(std::numeric_limits<C>::infinity(), -xin);
    if (x < 0) {
        if (x == ::trunc(x)) return std::numeric_limits<C>::quiet_NaN();
        double q = x - ::floor(x);
        return C(digamma<double>(1 - x) - pi / ::tan(pi * q));
    }
    double result = 0;
    while (x < 10) {
        result -= 1 / x;
        x += 1;
    }
    if (x == 10) return C(result + 2.25175258906672110764);
    double y = 0;
    if (x < 1.0e17) {
        double z = 1.0 / (x * x);
        y = z * (8.33333333333333333333E-2 +
                 z * (-8.33333333333333333333E-3 +
                      z * (3.96825396825396825397E-3 +
                           z * (-4.16666666666666666667E-3 +
                                z * (7.57575757575757575758E-3 +
                                     z * (-2.10927960927960927961E-2 + z * 8.33333333333333333333E-2))))));
    }
    return C(result + ::log(x) - (0.5 / x) - y);
}
}  // namespace fm

// Rounding half to even at `decimals` digits (decimals 0: plain round), as torch.round.
template <class C>
INFINI_HD C roundDecimals(C x, int64_t decimals) {
    if (decimals == 0) return fm::rint(x);
    bool neg = decimals < 0;
    C ten = fm::pow(C(10), C(neg ? -decimals : decimals));
    return neg ? fm::rint(x / ten) * ten : fm::rint(x * ten) / ten;
}

template <class C>
INFINI_HD C sigmoid(C x) {
    return C(1) / (C(1) + fm::exp(-x));
}

template <class C>
INFINI_HD C clampNan(C x, C lo, C hi, int flags) {
    if constexpr (!kIsInt<C>) {
        if (fm::isnan(x)) return x;
        if ((flags & 1) && fm::isnan(lo)) return lo;
        if ((flags & 2) && fm::isnan(hi)) return hi;
    }
    if ((flags & 1) && x < lo) x = lo;
    if ((flags & 2) && x > hi) x = hi;
    return x;
}

// ---- integer helpers (no traps: division by zero gives 0) ----
INFINI_HD int64_t idivTrunc(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return int64_t(0) - static_cast<int64_t>(static_cast<uint64_t>(a));  // INT64_MIN / -1 wraps
    return a / b;
}
INFINI_HD int64_t idivFloor(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
INFINI_HD int64_t imod(int64_t a, int64_t b) { return (b == 0 || b == -1) ? 0 : a % b; }
INFINI_HD int64_t iremainder(int64_t a, int64_t b) {
    int64_t r = imod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
INFINI_HD int64_t ipow(int64_t base, int64_t exp) {
    if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return 0;
    }
    uint64_t result = 1, b = static_cast<uint64_t>(base);
    while (exp) {
        if (exp & 1) result *= b;
        b *= b;
        exp >>= 1;
    }
    return static_cast<int64_t>(result);
}

template <class C>
INFINI_HD C floorDivide(C a, C b) {
    if constexpr (kIsInt<C>) {
        return idivFloor(a, b);
    } else {
        if (b == 0) return a / b;
        C mod = fm::fmod(a, b);
        C div = (a - mod) / b;
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= C(1);
        if (div != 0) {
            C f = fm::floor(div);
            return (div - f > C(0.5)) ? f + C(1) : f;
        }
        return fm::copysign(C(0), a / b);
    }
}

template <class C>
INFINI_HD C remainder(C a, C b) {
    if constexpr (kIsInt<C>) {
        return iremainder(a, b);
    } else {
        C mod = fm::fmod(a, b);
        if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
        return mod;
    }
}

template <class C>
INFINI_HD C powScalarExp(C x, C e) {
    if constexpr (kIsInt<C>) {
        return ipow(x, e);
    } else {
        if (e == C(2)) return x * x;
        if (e == C(3)) return x * x * x;
        if (e == C(0.5)) return fm::sqrt(x);
        if (e == C(-0.5)) return C(1) / fm::sqrt(x);
        if (e == C(-1)) return C(1) / x;
        if (e == C(-2)) return C(1) / (x * x);
        return fm::pow(x, e);
    }
}

// ---- the ops ----

// Unary ops (one input x), scalars s[0..3] in C.
template <class C>
INFINI_HD C unary(int op, C x, const C *s, const int64_t *si) {
    switch (op) {
        case INFINIOP_PW_COPY: return x;
        case INFINIOP_PW_NEG: return -x;
        case INFINIOP_PW_ABS:
            if constexpr (kIsInt<C>) {
                return x < 0 ? -x : x;
            } else {
                return fm::fabs(x);
            }
        case INFINIOP_PW_SIGN: return x > 0 ? C(1) : (x < 0 ? C(-1) : C(0));  // NaN gives 0, as torch's CPU kernel
        case INFINIOP_PW_SQUARE: return x * x;
        case INFINIOP_PW_RELU:
            if constexpr (!kIsInt<C>) {
                if (fm::isnan(x)) return x;
            }
            return x > 0 ? x : C(0);
        case INFINIOP_PW_LOGICAL_NOT: return x == 0 ? C(1) : C(0);
        case INFINIOP_PW_FILL: return s[0];
        case INFINIOP_PW_ADD_SCALAR: return x + s[0];
        case INFINIOP_PW_MUL_SCALAR: return x * s[0];
        case INFINIOP_PW_POW_SCALAR: return powScalarExp(x, s[0]);
        case INFINIOP_PW_CLAMP: return clampNan(x, s[0], s[1], static_cast<int>(si[2]));
        default: break;
    }
    if constexpr (kIsInt<C>) {
        switch (op) {
            case INFINIOP_PW_BITWISE_NOT: return ~x;
            case INFINIOP_PW_RPOW_SCALAR: return ipow(s[0], x);
            case INFINIOP_PW_ISNAN:
            case INFINIOP_PW_ISINF:
            case INFINIOP_PW_ISPOSINF:
            case INFINIOP_PW_ISNEGINF: return C(0);  // integers are finite
            case INFINIOP_PW_ISFINITE: return C(1);
            case INFINIOP_PW_SIGNBIT: return x < 0 ? C(1) : C(0);
            default: return x;
        }
    } else {
        switch (op) {
            case INFINIOP_PW_RECIPROCAL: return C(1) / x;
            case INFINIOP_PW_SQRT: return fm::sqrt(x);
            case INFINIOP_PW_RSQRT: return C(1) / fm::sqrt(x);
            case INFINIOP_PW_EXP: return fm::exp(x);
            case INFINIOP_PW_EXP2: return fm::exp2(x);
            case INFINIOP_PW_EXPM1: return fm::expm1(x);
            case INFINIOP_PW_LOG: return fm::log(x);
            case INFINIOP_PW_LOG2: return fm::log2(x);
            case INFINIOP_PW_LOG10: return fm::log10(x);
            case INFINIOP_PW_LOG1P: return fm::log1p(x);
            case INFINIOP_PW_SIN: return fm::sin(x);
            case INFINIOP_PW_COS: return fm::cos(x);
            case INFINIOP_PW_TAN: return fm::tan(x);
            case INFINIOP_PW_ASIN: return fm::asin(x);
            case INFINIOP_PW_ACOS: return fm::acos(x);
            case INFINIOP_PW_ATAN: return fm::atan(x);
            case INFINIOP_PW_SINH: return fm::sinh(x);
            case INFINIOP_PW_COSH: return fm::cosh(x);
            case INFINIOP_PW_TANH: return fm::tanh(x);
            case INFINIOP_PW_ASINH: return fm::asinh(x);
            case INFINIOP_PW_ACOSH: return fm::acosh(x);
            case INFINIOP_PW_ATANH: return fm::atanh(x);
            case INFINIOP_PW_SIGMOID: return sigmoid(x);
            case INFINIOP_PW_ERF: return fm::erf(x);
            case INFINIOP_PW_ERFC: return fm::erfc(x);
            case INFINIOP_PW_ERFINV: return fm::erfinv(x);
            case INFINIOP_PW_LGAMMA: return fm::lgamma(x);
            case INFINIOP_PW_DIGAMMA: return fm::digamma(x);
            case INFINIOP_PW_FLOOR: return fm::floor(x);
            case INFINIOP_PW_CEIL: return fm::ceil(x);
            case INFINIOP_PW_ROUND: return roundDecimals(x, si[0]);
            case INFINIOP_PW_TRUNC: return fm::trunc(x);
            case INFINIOP_PW_FRAC: return x - fm::trunc(x);
            case INFINIOP_PW_GELU:
                if (si[0] == 1) {
                    const C k = C(0.7978845608028654), kappa = C(0.044715);
                    return C(0.5) * x * (C(1) + fm::tanh(k * (x + kappa * x * x * x)));
                }
                return x * C(0.5) * (C(1) + fm::erf(x * C(0.7071067811865476)));
            case INFINIOP_PW_SILU: return x / (C(1) + fm::exp(-x));
            case INFINIOP_PW_MISH: return x * fm::tanh(fm::log1p(fm::exp(x)));
            case INFINIOP_PW_SOFTPLUS: return x * s[0] > s[1] ? x : fm::log1p(fm::exp(x * s[0])) / s[0];
            case INFINIOP_PW_ELU: return x <= 0 ? fm::expm1(x * s[2]) * (s[0] * s[1]) : x * s[1];
            case INFINIOP_PW_LEAKY_RELU: return x > 0 ? x : x * s[0];
            case INFINIOP_PW_HARDSIGMOID: {
                C t = x + C(3);
                t = t < 0 ? C(0) : (t > C(6) ? C(6) : t);
                return t / C(6);
            }
            case INFINIOP_PW_HARDSWISH: {
                C t = x + C(3);
                t = t < 0 ? C(0) : (t > C(6) ? C(6) : t);
                return x * t / C(6);
            }
            case INFINIOP_PW_LOGIT: {
                C z = x;
                if (s[0] >= 0) z = z < s[0] ? s[0] : (z > C(1) - s[0] ? C(1) - s[0] : z);
                return fm::log(z / (C(1) - z));
            }
            case INFINIOP_PW_ISNAN: return fm::isnan(x) ? C(1) : C(0);
            case INFINIOP_PW_ISINF: return fm::isinf(x) ? C(1) : C(0);
            case INFINIOP_PW_ISPOSINF: return x == std::numeric_limits<C>::infinity() ? C(1) : C(0);
            case INFINIOP_PW_ISNEGINF: return x == -std::numeric_limits<C>::infinity() ? C(1) : C(0);
            case INFINIOP_PW_ISFINITE: return (!fm::isnan(x) && !fm::isinf(x)) ? C(1) : C(0);
            case INFINIOP_PW_SIGNBIT: return fm::copysign(C(1), x) < 0 ? C(1) : C(0);
            case INFINIOP_PW_NAN_TO_NUM:
                if (fm::isnan(x)) return s[0];
                if (x == std::numeric_limits<C>::infinity()) return s[1];
                if (x == -std::numeric_limits<C>::infinity()) return s[2];
                return x;
            case INFINIOP_PW_RPOW_SCALAR: return fm::pow(s[0], x);
            default: return x;
        }
    }
}

// Binary ops (inputs x, y).
template <class C>
INFINI_HD C binary(int op, C x, C y, const C *s, const int64_t *si) {
    switch (op) {
        case INFINIOP_PW_ADD: return x + s[0] * y;
        case INFINIOP_PW_SUB: return x - s[0] * y;
        case INFINIOP_PW_MUL: return x * y;
        case INFINIOP_PW_DIV_FLOOR: return floorDivide(x, y);
        case INFINIOP_PW_REMAINDER: return remainder(x, y);
        case INFINIOP_PW_EQ: return x == y ? C(1) : C(0);
        case INFINIOP_PW_NE: return x != y ? C(1) : C(0);
        case INFINIOP_PW_LT: return x < y ? C(1) : C(0);
        case INFINIOP_PW_LE: return x <= y ? C(1) : C(0);
        case INFINIOP_PW_GT: return x > y ? C(1) : C(0);
        case INFINIOP_PW_GE: return x >= y ? C(1) : C(0);
        case INFINIOP_PW_LOGICAL_AND: return (x != 0 && y != 0) ? C(1) : C(0);
        case INFINIOP_PW_LOGICAL_OR: return (x != 0 || y != 0) ? C(1) : C(0);
        case INFINIOP_PW_LOGICAL_XOR: return ((x != 0) != (y != 0)) ? C(1) : C(0);
        case INFINIOP_PW_MAXIMUM:
            if constexpr (!kIsInt<C>) {
                if (fm::isnan(x) || fm::isnan(y)) return std::numeric_limits<C>::quiet_NaN();
            }
            return x > y ? x : y;
        case INFINIOP_PW_MINIMUM:
            if constexpr (!kIsInt<C>) {
                if (fm::isnan(x) || fm::isnan(y)) return std::numeric_limits<C>::quiet_NaN();
            }
            return x < y ? x : y;
        case INFINIOP_PW_THRESHOLD: return x <= s[0] ? s[1] : y;
        case INFINIOP_PW_LERP_SCALAR: {
            const C w = s[0];
            if constexpr (kIsInt<C>) {
                return x + w * (y - x);
            } else {
                return (fm::fabs(w) < C(0.5)) ? x + w * (y - x) : y - (y - x) * (C(1) - w);
            }
        }
        case INFINIOP_PW_HARDTANH_BWD: return (y <= s[0] || y >= s[1]) ? C(0) : x;
        case INFINIOP_PW_CLAMP_TENSOR: {  // one bound (args.i[2] says which)
            const int flags = static_cast<int>(si[2]);
            return clampNan(x, y, y, flags);
        }
        default: break;
    }
    if constexpr (kIsInt<C>) {
        switch (op) {
            case INFINIOP_PW_DIV_TRUNC: return idivTrunc(x, y);
            case INFINIOP_PW_FMOD: return imod(x, y);
            case INFINIOP_PW_POW: return ipow(x, y);
            case INFINIOP_PW_FMAX: return x > y ? x : y;
            case INFINIOP_PW_FMIN: return x < y ? x : y;
            case INFINIOP_PW_BITWISE_AND: return x & y;
            case INFINIOP_PW_BITWISE_OR: return x | y;
            case INFINIOP_PW_BITWISE_XOR: return x ^ y;
            case INFINIOP_PW_LSHIFT: return (y < 0 || y >= 64) ? C(0) : static_cast<C>(static_cast<uint64_t>(x) << y);
            case INFINIOP_PW_RSHIFT: return (y < 0 || y >= 64) ? (x >> 63) : (x >> y);
            case INFINIOP_PW_DIV: return idivTrunc(x, y);
            default: return x;
        }
    } else {
        switch (op) {
            case INFINIOP_PW_DIV: return x / y;
            case INFINIOP_PW_DIV_TRUNC: return fm::trunc(x / y);
            case INFINIOP_PW_FMOD: return fm::fmod(x, y);
            case INFINIOP_PW_POW: return fm::pow(x, y);
            case INFINIOP_PW_ATAN2: return fm::atan2(x, y);
            case INFINIOP_PW_HYPOT: return fm::hypot(x, y);
            case INFINIOP_PW_COPYSIGN: return fm::copysign(x, y);
            case INFINIOP_PW_XLOGY:
                if (fm::isnan(y)) return y;
                if (x == 0) return C(0);
                return x * fm::log(y);
            case INFINIOP_PW_FMAX: return fm::fmax(x, y);
            case INFINIOP_PW_FMIN: return fm::fmin(x, y);
            case INFINIOP_PW_SILU_BWD: {
                const C sg = sigmoid(y);
                return x * sg * (C(1) + y * (C(1) - sg));
            }
            case INFINIOP_PW_GELU_BWD:
                if (si[0] == 1) {
                    const C kBeta = C(0.7978845608028654), kKappa = C(0.044715);
                    const C x_sq = y * y, inner = kBeta * (y + kKappa * x_sq * y), t = fm::tanh(inner);
                    const C left = C(0.5) * y, right = C(1) + t;
                    const C dleft = C(0.5) * right;
                    const C dright = left * (C(1) - t * t) * kBeta * (C(1) + C(3) * kKappa * x_sq);
                    return x * (dleft + dright);
                } else {
                    const C cdf = C(0.5) * (C(1) + fm::erf(y * C(0.7071067811865476)));
                    const C pdf = fm::exp(C(-0.5) * y * y) * C(0.3989422804014327);
                    return x * (cdf + y * pdf);
                }
            case INFINIOP_PW_SIGMOID_BWD: return x * (C(1) - y) * y;
            case INFINIOP_PW_TANH_BWD: return x * (C(1) - y * y);
            case INFINIOP_PW_LEAKY_RELU_BWD: return x > 0 ? y : y * s[0];
            case INFINIOP_PW_ELU_BWD: {
                const C negcoef = s[0] * s[1], poscoef = s[1], negiptcoef = s[2];
                if (si[3] == 1) return y <= 0 ? x * negiptcoef * (y + negcoef) : x * poscoef;
                return y <= 0 ? x * negiptcoef * negcoef * fm::exp(y * negiptcoef) : x * poscoef;
            }
            case INFINIOP_PW_SOFTPLUS_BWD: {
                const C z = fm::exp(y * s[0]);
                return (y * s[0]) > s[1] ? x : x * z / (z + C(1));
            }
            case INFINIOP_PW_HARDSIGMOID_BWD: return (y > C(-3) && y < C(3)) ? x / C(6) : C(0);
            case INFINIOP_PW_HARDSWISH_BWD:
                if (y < C(-3)) return C(0);
                if (y <= C(3)) return x * ((y / C(3)) + C(0.5));
                return x;
            case INFINIOP_PW_MISH_BWD: {
                const C sg = sigmoid(y), tsp = fm::tanh(fm::log1p(fm::exp(y)));
                return x * (tsp + y * sg * (C(1) - tsp * tsp));
            }
            case INFINIOP_PW_LOGIT_BWD:
                if (s[0] < 0) {
                    return (y < 0 || y > C(1)) ? std::numeric_limits<C>::quiet_NaN() : x / (y * (C(1) - y));
                }
                return (y < s[0] || y > C(1) - s[0]) ? C(0) : x / (y * (C(1) - y));
            default: return x;
        }
    }
}

// Ternary ops (inputs x, y, z).
template <class C>
INFINI_HD C ternary(int op, C x, C y, C z, const C *s, const int64_t *si) {
    switch (op) {
        case INFINIOP_PW_WHERE: return x != 0 ? y : z;
        case INFINIOP_PW_LERP:
            if constexpr (kIsInt<C>) {
                return x + z * (y - x);
            } else {
                return (fm::fabs(z) < C(0.5)) ? x + z * (y - x) : y - (y - x) * (C(1) - z);
            }
        case INFINIOP_PW_ADDCMUL: return x + s[0] * y * z;
        case INFINIOP_PW_ADDCDIV:
            if constexpr (kIsInt<C>) {
                return x + s[0] * idivTrunc(y, z);
            } else {
                return x + s[0] * (y / z);
            }
        case INFINIOP_PW_CLAMP_TENSOR: return clampNan(x, y, z, 3);
        default: return x;
    }
}

// The number of inputs an op reads (the optimizer steps are handled apart).
INFINI_HD int arity(int op, int64_t clamp_flags) {
    if (op == INFINIOP_PW_FILL || op == INFINIOP_PW_IOTA) return 0;
    if (op < 100) return 1;
    if (op == INFINIOP_PW_LERP_SCALAR || op == INFINIOP_PW_HARDTANH_BWD) return 2;
    if (op == INFINIOP_PW_CLAMP_TENSOR) return clamp_flags == 3 ? 3 : 2;
    if (op < 200) return 2;
    if (op < 300) return 3;
    return -1;
}

// True for the ops whose result is a truth value (stored as 0 / 1).
INFINI_HD bool isPredicate(int op) {
    switch (op) {
        case INFINIOP_PW_ISNAN:
        case INFINIOP_PW_ISINF:
        case INFINIOP_PW_ISPOSINF:
        case INFINIOP_PW_ISNEGINF:
        case INFINIOP_PW_ISFINITE:
        case INFINIOP_PW_SIGNBIT:
        case INFINIOP_PW_LOGICAL_NOT:
        case INFINIOP_PW_EQ:
        case INFINIOP_PW_NE:
        case INFINIOP_PW_LT:
        case INFINIOP_PW_LE:
        case INFINIOP_PW_GT:
        case INFINIOP_PW_GE:
        case INFINIOP_PW_LOGICAL_AND:
        case INFINIOP_PW_LOGICAL_OR:
        case INFINIOP_PW_LOGICAL_XOR: return true;
        default: return false;
    }
}

// One AdamW / Adam step on one element (torch's _fused_adamw_ / _fused_adam_ formulas). p, m, v (and vmax when
// amsgrad) are updated in place; g is the gradient, step the step count after its increment.
template <class C>
INFINI_HD void adamStep(C &p, C &m, C &v, C &vmax, C g, C step, double lr, double beta1, double beta2, double eps,
                        double wd, int flags) {
    const bool amsgrad = flags & 1, maximize = flags & 2, decoupled = flags & 4;
    if (maximize) g = -g;
    if (wd != 0) {
        if (decoupled) {
            p -= C(lr * wd) * p;
        } else {
            g += C(wd) * p;
        }
    }
    m = C(beta1) * m + (C(1) - C(beta1)) * g;
    v = C(beta2) * v + (C(1) - C(beta2)) * g * g;
    const C bc1 = C(1) - fm::pow(C(beta1), step);
    const C bc2 = C(1) - fm::pow(C(beta2), step);
    const C step_size = C(lr) / bc1;
    const C bc2_sqrt = fm::sqrt(bc2);
    C denom;
    if (amsgrad) {
        vmax = v > vmax ? v : vmax;
        denom = fm::sqrt(vmax) / bc2_sqrt + C(eps);
    } else {
        denom = fm::sqrt(v) / bc2_sqrt + C(eps);
    }
    p -= step_size * m / denom;
}

}  // namespace infini::pw
