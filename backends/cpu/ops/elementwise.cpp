// elementwise.cpp: add, mul, silu, relu, gelu, swiglu (binary, any strides incl. broadcast zeros)
// and silu_and_mul. Contiguous tensors take one flat loop split across threads; others go row by
// row over the last dimension.
#include "common.h"

namespace infini::cpu::ops {
namespace {

// Applies y = f(a, b) (or f(a) with b absent) over same-shaped tensors.
template <typename T, typename F>
Kernel binaryKernel(Layout y, Layout a, Layout b, bool has_b, F f) {
    bool flat = y.contiguous() && a.contiguous() && (!has_b || b.contiguous());
    return [=](void *const *data) {
        T *py = static_cast<T *>(data[0]);
        const T *pa = static_cast<const T *>(data[1]);
        const T *pb = has_b ? static_cast<const T *>(data[2]) : nullptr;
        if (flat) {
            parallelFor(y.numel(), 4, [&](size_t begin, size_t end) {
                for (size_t i = begin; i < end; ++i) {
                    py[i] = fromFloat<T>(f(toFloat(pa[i]), has_b ? toFloat(pb[i]) : 0.0f));
                }
            });
            return;
        }
        size_t n = y.last();
        ptrdiff_t sy = y.ndim() ? y.strides.back() : 1, sa = a.ndim() ? a.strides.back() : 1;
        ptrdiff_t sb = has_b && b.ndim() ? b.strides.back() : 1;
        parallelFor(y.rows(), n * 4, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
                T *ry = py + y.rowOffset(r);
                const T *ra = pa + a.rowOffset(r);
                const T *rb = has_b ? pb + b.rowOffset(r) : nullptr;
                for (size_t j = 0; j < n; ++j) {
                    ry[j * sy] = fromFloat<T>(f(toFloat(ra[j * sa]), has_b ? toFloat(rb[j * sb]) : 0.0f));
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
        *k = binaryKernel<T>(y, a, b, binary, f);
    });
}

float geluErf(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }
float geluTanh(float x) {
    float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    // tanh(u) = 1 - 2 / (exp(2u) + 1), with the vectorizable exp
    float t = 1.0f - 2.0f / (expf_fast(2.0f * u) + 1.0f);
    return 0.5f * x * (1.0f + t);
}

}  // namespace

infiniStatus_t makeAdd(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("add", p, true, k, [](float a, float b) { return a + b; });
}
infiniStatus_t makeMul(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("mul", p, true, k, [](float a, float b) { return a * b; });
}
infiniStatus_t makeSwiGLU(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("swiglu", p, true, k, [](float a, float b) { return a * siluf(b); });
}
infiniStatus_t makeSilu(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("silu", p, false, k, [](float a, float) { return siluf(a); });
}
infiniStatus_t makeRelu(const infiniopOpParams_t &p, Kernel *k) {
    return makeElementwise("relu", p, false, k, [](float a, float) { return a > 0.0f ? a : (a == a ? 0.0f : a); });
}
infiniStatus_t makeGelu(const infiniopOpParams_t &p, Kernel *k) {
    if (p.i[0] == 1) return makeElementwise("gelu", p, false, k, [](float a, float) { return geluTanh(a); });
    if (p.i[0] != 0) return fail(INFINI_STATUS_BAD_PARAM, "gelu: approximate must be 0 (none) or 1 (tanh)");
    return makeElementwise("gelu", p, false, k, [](float a, float) { return geluErf(a); });
}

infiniStatus_t makeSiluAndMul(const infiniopOpParams_t &p, Kernel *k) {
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    const char *op = "silu_and_mul";
    if (x.ndim() == 0 || x.last() % 2 != 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: the last dimension of x must be even, got %s", op, x.str().c_str());
    }
    Layout half = x;
    half.shape.back() /= 2;
    INFINI_RETURN_IF_ERROR(expectSameShape(op, "y", y, half, "x with its last dimension halved"));
    INFINI_RETURN_IF_ERROR(expectSameDtype(op, "y", y, x, "x"));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "x", x));
    INFINI_RETURN_IF_ERROR(expectLastContiguous(op, "y", y));
    return dispatchFloat(y.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            size_t d = y.last();
            parallelFor(y.rows(), d * 8, [&](size_t begin, size_t end) {
                for (size_t r = begin; r < end; ++r) {
                    T *ry = py + y.rowOffset(r);
                    const T *rx = px + x.rowOffset(r);
                    for (size_t j = 0; j < d; ++j) ry[j] = fromFloat<T>(siluf(toFloat(rx[j])) * toFloat(rx[j + d]));
                }
            });
        };
    });
}

}  // namespace infini::cpu::ops
