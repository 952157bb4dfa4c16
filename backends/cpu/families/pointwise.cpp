// pointwise.cpp: the pointwise family on the cpu backend. The arithmetic is common/pointwise_math.h; this file
// walks the operands. Two loops: a typed one where every memory operand shares one float dtype and dim 0 is
// unit-stride or broadcast (the hot case: it vectorizes for the common ops), and a general one converting each
// operand by its dtype.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "../../common/error.h"
#include "../../common/pointwise_math.h"
#include "../ops/exp.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

using ops::avx2::expf_fast;

struct Plan {
    infiniopPointwiseArgs_t a;
    int nin = 0;
};

// Scalars of the compute type.
template <class C>
void scalarsOf(const infiniopPointwiseArgs_t &a, C s[4], C cval[INFINIOP_MAX_OPERANDS]) {
    for (int k = 0; k < 4; ++k) s[k] = std::is_integral_v<C> ? static_cast<C>(a.i[k]) : static_cast<C>(a.f[k]);
    for (int k = 0; k < INFINIOP_MAX_OPERANDS; ++k) {
        cval[k] = std::is_integral_v<C> ? static_cast<C>(a.ci[k]) : static_cast<C>(a.cf[k]);
    }
}

template <class C>
C apply(int op, int nin, const C *x, const C *s, const int64_t *si) {
    switch (nin) {
        case 0:
        case 1: return pw::unary<C>(op, x[0], s, si);
        case 2: return pw::binary<C>(op, x[0], x[1], s, si);
        default: return pw::ternary<C>(op, x[0], x[1], x[2], s, si);
    }
}

// The general loop: any dtypes, any strides.
template <class C>
void generalLoop(const Plan &plan) {
    const infiniopPointwiseArgs_t &a = plan.a;
    const infiniopIter_t &it = a.iter;
    C s[4], cval[INFINIOP_MAX_OPERANDS];
    scalarsOf(a, s, cval);
    const int op = a.op, nin = plan.nin, nout = a.noutputs;
    const bool iota = op == INFINIOP_PW_IOTA;
    const int64_t out_esize = elementSize(it.dtype[0]);
    parallelRuns(it, 8, [&](char **p, const int64_t *s0, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
            C x[4] = {};
            for (int k = 0; k < nin; ++k) {
                const int q = nout + k;
                x[k] = p[q] ? load<C>(p[q] + j * s0[q], it.dtype[q]) : cval[q];
            }
            C r;
            if (iota) {
                const int64_t stride = it.ndim > 0 ? it.strides[0][0] : 1;
                const int64_t base = (p[0] - static_cast<char *>(it.data[0])) / out_esize;
                const int64_t k = (stride != 0 ? base / stride : 0) + j;
                r = s[0] + static_cast<C>(k) * s[1];
            } else {
                r = apply<C>(op, nin, x, s, a.i);
            }
            store<C>(p[0] + j * s0[0], it.dtype[0], r);
        }
    });
}

// The typed loop: T storage, float math, one op known at compile time.
template <class T>
inline float ld(const char *p) {
    return toFloat(*reinterpret_cast<const T *>(p));
}
template <>
inline float ld<float>(const char *p) {
    return *reinterpret_cast<const float *>(p);
}
template <class T>
inline void st(char *p, float v) {
    *reinterpret_cast<T *>(p) = fromFloat<T>(v);
}

template <int OP>
inline float fastOp(const float *x, const float *s) {
    if constexpr (OP == INFINIOP_PW_COPY) return x[0];
    if constexpr (OP == INFINIOP_PW_ADD) return x[0] + s[0] * x[1];
    if constexpr (OP == INFINIOP_PW_SUB) return x[0] - s[0] * x[1];
    if constexpr (OP == INFINIOP_PW_MUL) return x[0] * x[1];
    if constexpr (OP == INFINIOP_PW_DIV) return x[0] / x[1];
    if constexpr (OP == INFINIOP_PW_NEG) return -x[0];
    if constexpr (OP == INFINIOP_PW_ADD_SCALAR) return x[0] + s[0];
    if constexpr (OP == INFINIOP_PW_MUL_SCALAR) return x[0] * s[0];
    if constexpr (OP == INFINIOP_PW_RSQRT) return 1.0f / std::sqrt(x[0]);
    if constexpr (OP == INFINIOP_PW_SQRT) return std::sqrt(x[0]);
    if constexpr (OP == INFINIOP_PW_RECIPROCAL) return 1.0f / x[0];
    if constexpr (OP == INFINIOP_PW_EXP) return expf_fast(x[0]);
    if constexpr (OP == INFINIOP_PW_SIGMOID) return 1.0f / (1.0f + expf_fast(-x[0]));
    if constexpr (OP == INFINIOP_PW_SILU) return x[0] / (1.0f + expf_fast(-x[0]));
    if constexpr (OP == INFINIOP_PW_RELU) return x[0] > 0.0f ? x[0] : (x[0] != x[0] ? x[0] : 0.0f);
    if constexpr (OP == INFINIOP_PW_SQUARE) return x[0] * x[0];
    if constexpr (OP == INFINIOP_PW_POW_SCALAR) return x[0] * x[0];  // only taken for exponent 2
    if constexpr (OP == INFINIOP_PW_ADDCMUL) return x[0] + s[0] * x[1] * x[2];
    if constexpr (OP == INFINIOP_PW_ADDCDIV) return x[0] + s[0] * (x[1] / x[2]);
    if constexpr (OP == INFINIOP_PW_LERP_SCALAR) {
        return std::fabs(s[0]) < 0.5f ? x[0] + s[0] * (x[1] - x[0]) : x[1] - (x[1] - x[0]) * (1.0f - s[0]);
    }
    return 0.0f;
}

// Elements of one block of the typed loop: the inputs are converted into float buffers, the op runs over the
// buffers and the result is converted back, each a unit-stride loop the compiler vectorizes (an operand's stride
// is only known at run time, which keeps a fused strided loop scalar).
constexpr int64_t kBlock = 256;

// Operand values [j0, j0 + m) of a run as float: a constant, a broadcast value (stride 0), contiguous or strided.
template <class T>
inline void loadBlock(float *__restrict x, const char *in, int64_t inc, float c, int64_t j0, int64_t m) {
    if (in == nullptr || inc == 0) {
        const float v = in == nullptr ? c : ld<T>(in);
        for (int64_t i = 0; i < m; ++i) x[i] = v;
    } else if (inc == static_cast<int64_t>(sizeof(T))) {
        const T *__restrict q = reinterpret_cast<const T *>(in) + j0;
        for (int64_t i = 0; i < m; ++i) x[i] = toFloat(q[i]);
    } else {
        for (int64_t i = 0; i < m; ++i) x[i] = ld<T>(in + (j0 + i) * inc);
    }
}

template <class T>
inline void storeBlock(char *out, int64_t oinc, const float *__restrict r, int64_t j0, int64_t m) {
    if (oinc == static_cast<int64_t>(sizeof(T))) {
        T *__restrict q = reinterpret_cast<T *>(out) + j0;
        for (int64_t i = 0; i < m; ++i) q[i] = fromFloat<T>(r[i]);
    } else {
        for (int64_t i = 0; i < m; ++i) st<T>(out + (j0 + i) * oinc, r[i]);
    }
}

template <int OP, int NIN>
inline void computeBlock(float *__restrict r, const float (*__restrict x)[kBlock], const float *s, int64_t m) {
    for (int64_t i = 0; i < m; ++i) {
        float v[3];
        for (int k = 0; k < NIN; ++k) v[k] = x[k][i];
        r[i] = fastOp<OP>(v, s);
    }
}

template <int OP, class T, int NIN>
void typedLoop(const Plan &plan) {
    const infiniopPointwiseArgs_t &a = plan.a;
    float s[4], cval[INFINIOP_MAX_OPERANDS];
    scalarsOf(a, s, cval);
    parallelRuns(a.iter, 2, [&](char **p, const int64_t *s0, int64_t n) {
        alignas(64) float x[3][kBlock];
        alignas(64) float r[kBlock];
        for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
            const int64_t m = std::min(kBlock, n - j0);
            for (int k = 0; k < NIN; ++k) loadBlock<T>(x[k], p[1 + k], s0[1 + k], cval[1 + k], j0, m);
            computeBlock<OP, NIN>(r, x, s, m);
            storeBlock<T>(p[0], s0[0], r, j0, m);
        }
    });
}

template <int OP, int NIN>
bool tryTyped(const Plan &plan, infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F32: typedLoop<OP, float, NIN>(plan); return true;
        case INFINI_DTYPE_BF16: typedLoop<OP, bf16, NIN>(plan); return true;
        case INFINI_DTYPE_F16: typedLoop<OP, f16, NIN>(plan); return true;
        default: return false;
    }
}

// A cast between two of float32 / float16 / bfloat16 (autocast's and norms' up- and down-casts).
template <class O, class I>
void castLoop(const Plan &plan) {
    parallelRuns(plan.a.iter, 1, [&](char **p, const int64_t *s0, int64_t n) {
        alignas(64) float x[kBlock];
        for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
            const int64_t m = std::min(kBlock, n - j0);
            loadBlock<I>(x, p[1], s0[1], 0.0f, j0, m);
            storeBlock<O>(p[0], s0[0], x, j0, m);
        }
    });
}

template <class O>
bool tryCastFrom(const Plan &plan, infiniDtype_t in) {
    switch (in) {
        case INFINI_DTYPE_F32: castLoop<O, float>(plan); return true;
        case INFINI_DTYPE_BF16: castLoop<O, bf16>(plan); return true;
        case INFINI_DTYPE_F16: castLoop<O, f16>(plan); return true;
        default: return false;
    }
}

bool floatCast(const Plan &plan) {
    const infiniopIter_t &it = plan.a.iter;
    if (plan.a.op != INFINIOP_PW_COPY || it.noperands != 2 || it.data[1] == nullptr) return false;
    switch (it.dtype[0]) {
        case INFINI_DTYPE_F32: return tryCastFrom<float>(plan, it.dtype[1]);
        case INFINI_DTYPE_BF16: return tryCastFrom<bf16>(plan, it.dtype[1]);
        case INFINI_DTYPE_F16: return tryCastFrom<f16>(plan, it.dtype[1]);
        default: return false;
    }
}

// The typed loop when every memory operand has one 16/32-bit float dtype and the op has a typed form.
bool typed(const Plan &plan) {
    const infiniopPointwiseArgs_t &a = plan.a;
    const infiniopIter_t &it = a.iter;
    if (a.noutputs != 1 || a.compute != INFINI_DTYPE_F32) return false;
    if (floatCast(plan)) return true;
    const infiniDtype_t t = it.dtype[0];
    for (int k = 1; k < it.noperands; ++k) {
        if (it.data[k] != nullptr && it.dtype[k] != t) return false;
    }
    switch (a.op) {
        case INFINIOP_PW_COPY: return tryTyped<INFINIOP_PW_COPY, 1>(plan, t);
        case INFINIOP_PW_ADD: return tryTyped<INFINIOP_PW_ADD, 2>(plan, t);
        case INFINIOP_PW_SUB: return tryTyped<INFINIOP_PW_SUB, 2>(plan, t);
        case INFINIOP_PW_MUL: return tryTyped<INFINIOP_PW_MUL, 2>(plan, t);
        case INFINIOP_PW_DIV: return tryTyped<INFINIOP_PW_DIV, 2>(plan, t);
        case INFINIOP_PW_NEG: return tryTyped<INFINIOP_PW_NEG, 1>(plan, t);
        case INFINIOP_PW_ADD_SCALAR: return tryTyped<INFINIOP_PW_ADD_SCALAR, 1>(plan, t);
        case INFINIOP_PW_MUL_SCALAR: return tryTyped<INFINIOP_PW_MUL_SCALAR, 1>(plan, t);
        case INFINIOP_PW_RSQRT: return tryTyped<INFINIOP_PW_RSQRT, 1>(plan, t);
        case INFINIOP_PW_SQRT: return tryTyped<INFINIOP_PW_SQRT, 1>(plan, t);
        case INFINIOP_PW_RECIPROCAL: return tryTyped<INFINIOP_PW_RECIPROCAL, 1>(plan, t);
        case INFINIOP_PW_EXP: return tryTyped<INFINIOP_PW_EXP, 1>(plan, t);
        case INFINIOP_PW_SIGMOID: return tryTyped<INFINIOP_PW_SIGMOID, 1>(plan, t);
        case INFINIOP_PW_SILU: return tryTyped<INFINIOP_PW_SILU, 1>(plan, t);
        case INFINIOP_PW_RELU: return tryTyped<INFINIOP_PW_RELU, 1>(plan, t);
        case INFINIOP_PW_SQUARE: return tryTyped<INFINIOP_PW_SQUARE, 1>(plan, t);
        case INFINIOP_PW_POW_SCALAR: return a.f[0] == 2.0 && tryTyped<INFINIOP_PW_POW_SCALAR, 1>(plan, t);
        case INFINIOP_PW_ADDCMUL: return tryTyped<INFINIOP_PW_ADDCMUL, 3>(plan, t);
        case INFINIOP_PW_ADDCDIV: return tryTyped<INFINIOP_PW_ADDCDIV, 3>(plan, t);
        case INFINIOP_PW_LERP_SCALAR: return tryTyped<INFINIOP_PW_LERP_SCALAR, 2>(plan, t);
        default: return false;
    }
}

// AdamW / Adam: outputs p, m, v[, vmax]; inputs p, m, v[, vmax], grad, step.
template <class C>
void adamLoop(const Plan &plan) {
    const infiniopPointwiseArgs_t &a = plan.a;
    const infiniopIter_t &it = a.iter;
    const int nout = a.noutputs;
    const bool ams = nout == 4;
    const int g = 2 * nout, st = 2 * nout + 1;
    parallelRuns(it, 16, [&](char **p, const int64_t *s0, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
            C pv = load<C>(p[0] + j * s0[0], it.dtype[0]);
            C m = load<C>(p[1] + j * s0[1], it.dtype[1]);
            C v = load<C>(p[2] + j * s0[2], it.dtype[2]);
            C vmax = ams ? load<C>(p[3] + j * s0[3], it.dtype[3]) : C(0);
            C grad = load<C>(p[g] + j * s0[g], it.dtype[g]);
            C step = load<C>(p[st] + j * s0[st], it.dtype[st]);
            pw::adamStep<C>(pv, m, v, vmax, grad, step, a.f[0], a.f[1], a.f[2], a.f[3], a.wd, a.flags);
            store<C>(p[0] + j * s0[0], it.dtype[0], pv);
            store<C>(p[1] + j * s0[1], it.dtype[1], m);
            store<C>(p[2] + j * s0[2], it.dtype[2], v);
            if (ams) store<C>(p[3] + j * s0[3], it.dtype[3], vmax);
        }
    });
}

}  // namespace

infiniStatus_t pointwise(const infiniopPointwiseArgs_t &a, infinirtStream_t stream) {
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    const int nops = a.iter.noperands;
    if (a.op == INFINIOP_PW_ADAMW) {
        if ((a.noutputs != 3 && a.noutputs != 4) || nops != 2 * a.noutputs + 2) {
            return fail(INFINI_STATUS_BAD_PARAM, "pointwise ADAMW: %d outputs and %d operands", a.noutputs, nops);
        }
        if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "pointwise ADAMW: compute dtype %d", a.compute);
        }
    } else {
        const int nin = pw::arity(a.op, a.i[2]);
        if (nin < 0 || a.noutputs != 1 || nops != 1 + nin) {
            return fail(INFINI_STATUS_BAD_PARAM, "pointwise op %d: %d outputs and %d operands (expected 1 and %d)",
                        a.op, a.noutputs, nops, 1 + nin);
        }
        plan->nin = nin;
    }
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "pointwise: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    if (numel(a.iter) == 0) return INFINI_STATUS_SUCCESS;
    return submit(stream, [plan] {
        const Plan &p = *plan;
        if (p.a.op == INFINIOP_PW_ADAMW) {
            if (p.a.compute == INFINI_DTYPE_F64) {
                adamLoop<double>(p);
            } else {
                adamLoop<float>(p);
            }
            return;
        }
        if (typed(p)) return;
        switch (p.a.compute) {
            case INFINI_DTYPE_F32: generalLoop<float>(p); break;
            case INFINI_DTYPE_F64: generalLoop<double>(p); break;
            default: generalLoop<int64_t>(p); break;
        }
    });
}

}  // namespace infini::cpu::families
