// norm.cpp: rms_norm, add_rms_norm and layer_norm over the last dimension, one row per iteration,
// rows split across threads; sums use eight partial accumulators so that the loop vectorizes.
#include <immintrin.h>

#include <algorithm>
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

template <typename T, typename W>
inline void rmsRow(T *__restrict y, const T *__restrict x, const W *__restrict w, size_t n, float eps) {
#ifdef __AVX512BF16__
    if constexpr (!std::is_same_v<T, float>) {  // 16-bit rows converted in registers, as layer_norm's
        float ss = 0.0f, unused;
        shiftedMoments(x, 0.0f, n, &unused, &ss);
        const __m512 vs = _mm512_set1_ps(1.0f / std::sqrt(ss / static_cast<float>(n) + eps));
        for (size_t q = 0; q < n; q += 16) {
            const __mmask16 k = tailMask(n - q);
            store16f(y + q, _mm512_mul_ps(_mm512_mul_ps(load16f(x + q, k), vs), load16f(w + q, k)), k);
        }
        return;
    }
#endif
    constexpr size_t kBlock = 256;
    alignas(64) float xf[kBlock], wf[kBlock];
    float ss = 0.0f, unused;
    if constexpr (std::is_same_v<T, float>) {
        shiftedMoments(x, 0.0f, n, &unused, &ss);
    } else {
        for (size_t b = 0; b < n; b += kBlock) {
            size_t m = std::min(kBlock, n - b);
            float part;
            loadRow(xf, x + b, m);
            shiftedMoments(xf, 0.0f, m, &unused, &part);
            ss += part;
        }
    }
    float scale = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
    for (size_t b = 0; b < n; b += kBlock) {  // y = x * scale * w, a block of floats at a time
        size_t m = std::min(kBlock, n - b);
        const float *xs, *ws;
        if constexpr (std::is_same_v<T, float>) {
            xs = x + b;
        } else {
            loadRow(xf, x + b, m);
            xs = xf;
        }
        if constexpr (std::is_same_v<W, float>) {
            ws = w + b;
        } else {
            loadRow(wf, w + b, m);
            ws = wf;
        }
        alignas(64) float out[kBlock];
        for (size_t j = 0; j < m; ++j) out[j] = xs[j] * scale * ws[j];
        storeRow(y + b, out, m);
    }
}

// Calls f(T{}, W{}) for x's dtype T and the weight's dtype W (T or float).
template <typename F>
infiniStatus_t dispatchWithWeight(const char *op, infiniDtype_t x, infiniDtype_t w, F &&f) {
    return dispatchFloat(x, op, [&](auto t) {
        if (w == INFINI_DTYPE_F32) {
            f(t, float{});
        } else {
            f(t, t);
        }
    });
}

}  // namespace

infiniStatus_t makeRMSNorm(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "rms_norm";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    float eps = static_cast<float>(p.f[0]);
    INFINI_RETURN_IF_ERROR(checks::rmsNorm(y, x, w));
    return dispatchWithWeight(op, x.dtype, w.dtype, [&](auto t, auto wt) {
        using T = decltype(t);
        using W = decltype(wt);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            const W *pw = static_cast<const W *>(data[2]);
            size_t n = x.last();
            parallelFor(x.rows(), n * 3, [&](size_t begin, size_t end) {
                for (size_t r = begin; r < end; ++r) rmsRow(py + y.rowOffset(r), px + x.rowOffset(r), pw, n, eps);
            });
        };
    });
}

infiniStatus_t makeAddRMSNorm(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "add_rms_norm";
    Layout y = layoutOf(p.tensors[0]), res = layoutOf(p.tensors[1]), a = layoutOf(p.tensors[2]),
           b = layoutOf(p.tensors[3]), w = layoutOf(p.tensors[4]);
    float eps = static_cast<float>(p.f[0]);
    INFINI_RETURN_IF_ERROR(checks::addRmsNorm(y, res, a, b, w));
    return dispatchWithWeight(op, a.dtype, w.dtype, [&](auto t, auto wt) {
        using T = decltype(t);
        using W = decltype(wt);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            T *pr = static_cast<T *>(data[1]);
            const T *pa = static_cast<const T *>(data[2]);
            const T *pb = static_cast<const T *>(data[3]);
            const W *pw = static_cast<const W *>(data[4]);
            size_t n = a.last();
            parallelFor(a.rows(), n * 5, [&](size_t begin, size_t end) {
                for (size_t r = begin; r < end; ++r) {
                    const T *ra = pa + a.rowOffset(r);
                    const T *rb = pb + b.rowOffset(r);
                    T *rr = pr + res.rowOffset(r);
                    T *ry = py + y.rowOffset(r);
                    // the residual is rounded to T first, as torch computes a + b in T
#ifdef __AVX512BF16__
                    if constexpr (!std::is_same_v<T, float>) {  // converted in registers
                        for (size_t q = 0; q < n; q += 16) {
                            const __mmask16 k = tailMask(n - q);
                            store16f(rr + q, _mm512_add_ps(load16f(ra + q, k), load16f(rb + q, k)), k);
                        }
                    } else
#endif
                        for (size_t j = 0; j < n; ++j) rr[j] = fromFloat<T>(toFloat(ra[j]) + toFloat(rb[j]));
                    rmsRow(ry, rr, pw, n, eps);
                }
            });
        };
    });
}

infiniStatus_t makeLayerNorm(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "layer_norm";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    bool has_bias = p.tensors[3] != nullptr;
    Layout bias = layoutOf(p.tensors[3]);
    float eps = static_cast<float>(p.f[0]);
    INFINI_RETURN_IF_ERROR(checks::layerNorm(y, x, w, bias, has_bias));
    return dispatchWithWeight(op, x.dtype, w.dtype, [&](auto t, auto wt) {
        using T = decltype(t);
        using W = decltype(wt);
        *k = [=](void *const *data) {
            T *py = static_cast<T *>(data[0]);
            const T *px = static_cast<const T *>(data[1]);
            const W *pw = static_cast<const W *>(data[2]);
            const W *pb = has_bias ? static_cast<const W *>(data[3]) : nullptr;
            size_t n = x.last();
            // weight and bias as float (converted by each thread for itself, unless they are float
            // already: a copy converted by the caller makes every other thread pull it across cores,
            // which costs more than the whole row work at 16 rows); a row takes one pass for both
            // moments and one output pass, over x itself when it is float, else over a float copy
            parallelFor(x.rows(), n * 4, [&](size_t begin, size_t end) {
#ifdef __AVX512BF16__
                // 16-bit rows converted in registers where they are read and written (the weight and bias
                // too, as stored): no float copy of anything (the copies cost 15-25% more)
                constexpr bool kInRegs = !std::is_same_v<T, float>;
#else
                constexpr bool kInRegs = false;
#endif
                constexpr bool kCopy = !std::is_same_v<T, float> && !kInRegs;  // rows through a float copy
                thread_local std::vector<float> wbuf, bbuf, heap_buf;
                const float *w32 = nullptr, *b32 = nullptr;
                if constexpr (std::is_same_v<W, float>) {
                    w32 = pw;
                    b32 = pb;
                } else if constexpr (!kInRegs) {
                    if (wbuf.size() < n) wbuf.resize(n);
                    loadRow(wbuf.data(), pw, n);
                    w32 = wbuf.data();
                    if (has_bias) {
                        if (bbuf.size() < n) bbuf.resize(n);
                        loadRow(bbuf.data(), pb, n);
                        b32 = bbuf.data();
                    }
                }
                constexpr size_t kStack = 8192;  // rows up to this long convert into a stack buffer
                alignas(64) float stack_buf[kCopy ? kStack : 1];
                if (kCopy && n > kStack && heap_buf.size() < n) heap_buf.resize(n);
                float *row_buf = n > kStack ? heap_buf.data() : stack_buf;
                // mean and 1/std of a row: one pass for both moments, shifted by the row's first value
                auto stats = [&](const auto *f, float *mean, float *rstd) {
                    float s1, s2, c = n ? toFloat(f[0]) : 0.0f, inv_n = 1.0f / static_cast<float>(n);
                    shiftedMoments(f, c, n, &s1, &s2);
                    float dm = s1 * inv_n, var = std::max(s2 * inv_n - dm * dm, 0.0f);
                    *mean = c + dm;
                    *rstd = 1.0f / std::sqrt(var + eps);
                };
                for (size_t r = begin; r < end; ++r) {
#ifdef __AVX512BF16__
                    if constexpr (kInRegs) {
                        const T *xr = px + x.rowOffset(r);
                        T *yr = py + y.rowOffset(r);
                        float mean, rstd;
                        stats(xr, &mean, &rstd);
                        const __m512 vm = _mm512_set1_ps(mean), vr = _mm512_set1_ps(rstd);
                        for (size_t q = 0; q < n; q += 16) {
                            const __mmask16 k = tailMask(n - q);
                            __m512 v = _mm512_mul_ps(_mm512_sub_ps(load16f(xr + q, k), vm), vr);
                            v = pb != nullptr ? _mm512_fmadd_ps(v, load16f(pw + q, k), load16f(pb + q, k))
                                              : _mm512_mul_ps(v, load16f(pw + q, k));
                            store16f(yr + q, v, k);
                        }
                        continue;
                    }
#endif
                    const float *f;
                    float *out;
                    if constexpr (std::is_same_v<T, float>) {
                        f = px + x.rowOffset(r);
                        out = py + y.rowOffset(r);
                    } else {
                        loadRow(row_buf, px + x.rowOffset(r), n);
                        f = out = row_buf;
                    }
                    float mean, rstd;
                    stats(f, &mean, &rstd);
                    if (b32 != nullptr) {
                        for (size_t q = 0; q < n; ++q) out[q] = (f[q] - mean) * rstd * w32[q] + b32[q];
                    } else {
                        for (size_t q = 0; q < n; ++q) out[q] = (f[q] - mean) * rstd * w32[q];
                    }
                    if constexpr (!std::is_same_v<T, float>) storeRow(py + y.rowOffset(r), out, n);
                }
            });
        };
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
