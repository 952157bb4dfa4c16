// strided.h: what the cpu families share: typed loads and stores of any family dtype into a compute type, and the
// walk over an iteration space (infiniopIter_t) split into contiguous inner runs for the kernel threads.
#pragma once

#include <infini/families.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../ops/convert.h"
#include "../ops/parallel.h"

namespace infini::cpu::families {

using ops::avx2::bf16;
using ops::avx2::f16;
using ops::avx2::fromFloat;
using ops::avx2::parallelFor;
using ops::avx2::toFloat;

// The value at p (of dtype t) as C.
template <class C>
inline C load(const void *p, infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F32: return static_cast<C>(*static_cast<const float *>(p));
        case INFINI_DTYPE_F16: return static_cast<C>(toFloat(*static_cast<const f16 *>(p)));
        case INFINI_DTYPE_BF16: return static_cast<C>(toFloat(*static_cast<const bf16 *>(p)));
        case INFINI_DTYPE_F64: return static_cast<C>(*static_cast<const double *>(p));
        case INFINI_DTYPE_I64: return static_cast<C>(*static_cast<const int64_t *>(p));
        case INFINI_DTYPE_I32: return static_cast<C>(*static_cast<const int32_t *>(p));
        case INFINI_DTYPE_I16: return static_cast<C>(*static_cast<const int16_t *>(p));
        case INFINI_DTYPE_I8: return static_cast<C>(*static_cast<const int8_t *>(p));
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BYTE: return static_cast<C>(*static_cast<const uint8_t *>(p));
        case INFINI_DTYPE_BOOL: return static_cast<C>(*static_cast<const uint8_t *>(p) != 0 ? 1 : 0);
        default: return C(0);
    }
}

// A float value converted to an integer type as the C cast does, without the undefined behaviour of an
// out-of-range or NaN value (those give the type's lowest value, as x86's conversion does).
template <class I, class F>
inline I floatToInt(F v) {
    if (!(v >= F(-9.2e18) && v <= F(9.2e18))) return static_cast<I>(INT64_MIN);
    return static_cast<I>(static_cast<int64_t>(v));
}

// Stores v (a C) at p as dtype t.
template <class C>
inline void store(void *p, infiniDtype_t t, C v) {
    switch (t) {
        case INFINI_DTYPE_F32: *static_cast<float *>(p) = static_cast<float>(v); return;
        case INFINI_DTYPE_F16: *static_cast<f16 *>(p) = fromFloat<f16>(static_cast<float>(v)); return;
        case INFINI_DTYPE_BF16: *static_cast<bf16 *>(p) = fromFloat<bf16>(static_cast<float>(v)); return;
        case INFINI_DTYPE_F64: *static_cast<double *>(p) = static_cast<double>(v); return;
        case INFINI_DTYPE_BOOL: *static_cast<uint8_t *>(p) = v != C(0) ? 1 : 0; return;
        default: break;
    }
    int64_t i;
    if constexpr (std::is_integral_v<C>) {
        i = static_cast<int64_t>(v);
    } else {
        i = floatToInt<int64_t>(v);
    }
    switch (t) {
        case INFINI_DTYPE_I64: *static_cast<int64_t *>(p) = i; return;
        case INFINI_DTYPE_I32: *static_cast<int32_t *>(p) = static_cast<int32_t>(i); return;
        case INFINI_DTYPE_I16: *static_cast<int16_t *>(p) = static_cast<int16_t>(i); return;
        case INFINI_DTYPE_I8: *static_cast<int8_t *>(p) = static_cast<int8_t>(i); return;
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BYTE: *static_cast<uint8_t *>(p) = static_cast<uint8_t>(i); return;
        default: return;
    }
}

// Bytes of one element of a family dtype.
inline int64_t elementSize(infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F64:
        case INFINI_DTYPE_I64: return 8;
        case INFINI_DTYPE_F32:
        case INFINI_DTYPE_I32: return 4;
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16:
        case INFINI_DTYPE_I16: return 2;
        default: return 1;
    }
}

// Elements of an iteration space.
inline int64_t numel(const infiniopIter_t &it) {
    int64_t n = 1;
    for (int d = 0; d < it.ndim; ++d) n *= it.shape[d];
    return n;
}

// Calls run(ptrs, strides0, n) for each contiguous inner run of dim 0 in [begin, end) (linear indices, dim 0
// fastest): ptrs[k] is operand k's address at the run's first element (bytes; NULL for a constant operand),
// strides0[k] its byte stride along dim 0.
template <class Run>
void forEachRun(const infiniopIter_t &it, int64_t begin, int64_t end, Run &&run) {
    const int nd = it.ndim, nops = it.noperands;
    if (nd == 0) {
        char *ptrs[INFINIOP_MAX_OPERANDS];
        int64_t s0[INFINIOP_MAX_OPERANDS] = {};
        for (int k = 0; k < nops; ++k) ptrs[k] = static_cast<char *>(it.data[k]);
        if (begin < end) run(ptrs, s0, int64_t(1));
        return;
    }
    int64_t esize[INFINIOP_MAX_OPERANDS], s0[INFINIOP_MAX_OPERANDS];
    for (int k = 0; k < nops; ++k) {
        esize[k] = elementSize(it.dtype[k]);
        s0[k] = it.data[k] ? it.strides[k][0] * esize[k] : 0;
    }
    int64_t idx[INFINIOP_MAX_DIMS] = {};
    int64_t rest = begin;
    for (int d = 0; d < nd; ++d) {
        idx[d] = rest % it.shape[d];
        rest /= it.shape[d];
    }
    int64_t pos = begin;
    while (pos < end) {
        char *ptrs[INFINIOP_MAX_OPERANDS];
        for (int k = 0; k < nops; ++k) {
            if (it.data[k] == nullptr) {
                ptrs[k] = nullptr;
                continue;
            }
            int64_t off = 0;
            for (int d = 0; d < nd; ++d) off += idx[d] * it.strides[k][d];
            ptrs[k] = static_cast<char *>(it.data[k]) + off * esize[k];
        }
        int64_t n = it.shape[0] - idx[0];
        if (n > end - pos) n = end - pos;
        run(ptrs, s0, n);
        pos += n;
        idx[0] += n;
        for (int d = 0; d + 1 < nd && idx[d] >= it.shape[d]; ++d) {
            idx[d] = 0;
            idx[d + 1] += 1;
        }
    }
}

// forEachRun over the whole space, split over the kernel threads (cost: rough work per element).
template <class Run>
void parallelRuns(const infiniopIter_t &it, size_t cost, Run &&run) {
    const int64_t n = numel(it);
    if (n == 0) return;
    constexpr int64_t kGrain = 4096;  // elements a piece at least, so a piece's setup stays small
    const int64_t pieces = (n + kGrain - 1) / kGrain;
    parallelFor(static_cast<size_t>(pieces), cost * kGrain, [&](size_t b, size_t e) {
        forEachRun(it, static_cast<int64_t>(b) * kGrain, std::min<int64_t>(n, static_cast<int64_t>(e) * kGrain), run);
    });
}

}  // namespace infini::cpu::families
