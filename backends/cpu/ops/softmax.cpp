// softmax.cpp: softmax along any dimension, and causal softmax over the last dimension.
#include <cmath>
#include <type_traits>
#include <vector>

#include "convert.h"
#include "op_base.h"
#include "parallel.h"
#include "reduce.h"
#include "simd.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {
namespace {

// softmax of n values at stride sx (x) into y (stride sy), in float; buf holds n floats.
template <typename T>
void softmaxLine(T *y, ptrdiff_t sy, const T *x, ptrdiff_t sx, size_t n, float *__restrict buf) {
    if constexpr (std::is_same_v<T, float>) {
        if (sx == 1 && sy == 1) {  // straight from x into y: no copies
            float m = maxRow(x, n);
            if (m == -INFINITY) m = 0;
            float inv = 1.0f / expSubRow(y, x, m, n);
            for (size_t q = 0; q < n; ++q) y[q] *= inv;
            return;
        }
    }
    if (sx == 1) {
        loadRow(buf, x, n);
    } else {
        for (size_t j = 0; j < n; ++j) buf[j] = toFloat(x[j * sx]);
    }
    float m = maxRow(buf, n);
    if (m == -INFINITY) m = 0;  // all -inf: every entry becomes 0/0 = nan, as torch
    float total = expSubRow(buf, buf, m, n);
    float inv = 1.0f / total;
    if (sy == 1) {
        for (size_t q = 0; q < n; ++q) buf[q] *= inv;
        storeRow(y, buf, n);
    } else {
        for (size_t q = 0; q < n; ++q) y[q * sy] = fromFloat<T>(buf[q] * inv);
    }
}

}  // namespace

infiniStatus_t makeSoftmax(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "softmax";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    int64_t dim;
    INFINI_RETURN_IF_ERROR(checks::softmaxDim(y, x, p.i[0], &dim));
    // Move dim last: the line loop walks it with its stride.
    Layout ym = y.movedLast(static_cast<size_t>(dim)),
           xm = x.movedLast(static_cast<size_t>(dim));  // lines along dim as rows
    return dispatchFloat(x.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            size_t n = xm.last();
            ptrdiff_t sx = xm.ndim() ? xm.strides.back() : 1, sy = ym.ndim() ? ym.strides.back() : 1;
            parallelFor(xm.rows(), n * 6, [&](size_t begin, size_t end) {
                std::vector<float> buf(n);
                for (size_t r = begin; r < end; ++r)
                    softmaxLine(py + ym.rowOffset(r), sy, px + xm.rowOffset(r), sx, n, buf.data());
            });
        };
    });
}

infiniStatus_t makeCausalSoftmax(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "causal_softmax";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]);
    INFINI_RETURN_IF_ERROR(checks::causalSoftmax(y, x));
    size_t q = x.shape[x.ndim() - 2], kv = x.last();
    return dispatchFloat(x.dtype, op, [&](auto t) {
        using T = decltype(t);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            ptrdiff_t sx = x.strides.back(), sy = y.strides.back();
            parallelFor(x.rows(), kv * 6 + 128, [&](size_t begin, size_t end) {  // + a row's fixed cost
                std::vector<float> buf(kv);
                for (size_t r = begin; r < end; ++r) {
                    size_t i = r % q, valid = i + kv - q + 1;  // entries [0, valid) take part
                    T *ry = py + y.rowOffset(r);
                    softmaxLine(ry, sy, px + x.rowOffset(r), sx, valid, buf.data());
                    for (size_t j = valid; j < kv; ++j) ry[j * sy] = fromFloat<T>(0.0f);
                }
            });
        };
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
