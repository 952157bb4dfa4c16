// strided.cuh: what the nvidia families share: typed loads and stores of every family dtype into a compute type,
// the host's view of an iteration space (coalesced dims, byte strides) and the device's offset calculator over it,
// with 32-bit index math where the extents allow.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "../ops/common.cuh"
#include "family.h"

namespace infini::nvidia::families {

using ops::fromF;
using ops::launchOp;
using ops::opEntry;
using ops::reportError;
using ops::smCount;
using ops::toF;
using ops::Vec;

constexpr int kMaxDims = INFINIOP_MAX_DIMS;
constexpr int kMaxOps = INFINIOP_MAX_OPERANDS;

// ---- dtypes ----

// The dtypes every family takes (families.h).
inline bool familyDtype(infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F32:
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16:
        case INFINI_DTYPE_F64:
        case INFINI_DTYPE_I8:
        case INFINI_DTYPE_I16:
        case INFINI_DTYPE_I32:
        case INFINI_DTYPE_I64:
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BYTE:
        case INFINI_DTYPE_BOOL: return true;
        default: return false;
    }
}

__host__ __device__ inline bool floatDtype(infiniDtype_t t) {
    return t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16 || t == INFINI_DTYPE_F64;
}

// Bytes of one element of a family dtype.
__host__ __device__ inline int elemSize(infiniDtype_t t) {
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

// A float value as an integer the way the cpu backend converts it: the C cast, except that NaN and values beyond
// int64's range give INT64_MIN (x86's result) instead of being undefined.
template <class F>
__device__ __forceinline__ int64_t floatToInt(F v) {
    if (!(v >= F(-9.2e18) && v <= F(9.2e18))) return INT64_MIN;
    return static_cast<int64_t>(v);
}

// v (any arithmetic type) as C, float-to-integer conversions as floatToInt.
template <class C, class V>
__device__ __forceinline__ C castTo(V v) {
    if constexpr (std::is_integral_v<C> && !std::is_integral_v<V>) {
        return static_cast<C>(floatToInt(v));
    } else {
        return static_cast<C>(v);
    }
}

// The element at p (of dtype t) as C.
template <class C>
__device__ __forceinline__ C loadAs(const void *p, infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F32: return castTo<C>(*static_cast<const float *>(p));
        case INFINI_DTYPE_F16: return castTo<C>(__half2float(*static_cast<const __half *>(p)));
        case INFINI_DTYPE_BF16: return castTo<C>(__bfloat162float(*static_cast<const __nv_bfloat16 *>(p)));
        case INFINI_DTYPE_F64: return castTo<C>(*static_cast<const double *>(p));
        case INFINI_DTYPE_I64: return static_cast<C>(*static_cast<const int64_t *>(p));
        case INFINI_DTYPE_I32: return static_cast<C>(*static_cast<const int32_t *>(p));
        case INFINI_DTYPE_I16: return static_cast<C>(*static_cast<const int16_t *>(p));
        case INFINI_DTYPE_I8: return static_cast<C>(*static_cast<const int8_t *>(p));
        case INFINI_DTYPE_BOOL: return static_cast<C>(*static_cast<const uint8_t *>(p) != 0 ? 1 : 0);
        default: return static_cast<C>(*static_cast<const uint8_t *>(p));  // U8, BYTE
    }
}

// Stores v (a C) at p as dtype t: floats through float for the 16-bit types (as the cpu backend rounds), a truth
// value as 0 / 1, integers by floatToInt then truncation to the width.
template <class C>
__device__ __forceinline__ void storeAs(void *p, infiniDtype_t t, C v) {
    switch (t) {
        case INFINI_DTYPE_F32: *static_cast<float *>(p) = static_cast<float>(v); return;
        case INFINI_DTYPE_F16: *static_cast<__half *>(p) = __float2half_rn(static_cast<float>(v)); return;
        case INFINI_DTYPE_BF16: *static_cast<__nv_bfloat16 *>(p) = __float2bfloat16_rn(static_cast<float>(v)); return;
        case INFINI_DTYPE_F64: *static_cast<double *>(p) = static_cast<double>(v); return;
        case INFINI_DTYPE_BOOL: *static_cast<uint8_t *>(p) = v != C(0) ? 1 : 0; return;
        default: break;
    }
    const int64_t i = castTo<int64_t>(v);
    switch (t) {
        case INFINI_DTYPE_I64: *static_cast<int64_t *>(p) = i; return;
        case INFINI_DTYPE_I32: *static_cast<int32_t *>(p) = static_cast<int32_t>(i); return;
        case INFINI_DTYPE_I16: *static_cast<int16_t *>(p) = static_cast<int16_t>(i); return;
        case INFINI_DTYPE_I8: *static_cast<int8_t *>(p) = static_cast<int8_t>(i); return;
        default: *static_cast<uint8_t *>(p) = static_cast<uint8_t>(i); return;  // U8, BYTE
    }
}

// Copies one element of `bytes` bytes (1, 2, 4 or 8; both addresses aligned to it).
__device__ __forceinline__ void copyElement(void *dst, const void *src, int bytes) {
    switch (bytes) {
        case 8: *static_cast<uint64_t *>(dst) = *static_cast<const uint64_t *>(src); return;
        case 4: *static_cast<uint32_t *>(dst) = *static_cast<const uint32_t *>(src); return;
        case 2: *static_cast<uint16_t *>(dst) = *static_cast<const uint16_t *>(src); return;
        default: *static_cast<uint8_t *>(dst) = *static_cast<const uint8_t *>(src); return;
    }
}

// The index at p, an element of an I32 or I64 index operand.
__device__ __forceinline__ int64_t loadIndex(const char *p, bool i64) {
    return i64 ? *reinterpret_cast<const int64_t *>(p) : *reinterpret_cast<const int32_t *>(p);
}

// ---- division by a fixed divisor ----

// n / d for n < 2^31 and 1 <= d <= 2^31 through a multiply-high and a shift (the divisor's magic number found on the
// host): a 32-bit division is a long instruction sequence, this is two instructions.
struct FastDiv {
    uint32_t d = 1, m = 1, s = 0;
    FastDiv() = default;
    explicit FastDiv(uint32_t divisor) : d(divisor) {
        for (s = 0; s < 32; ++s) {
            if ((1ull << s) >= divisor) break;
        }
        const uint64_t magic = ((uint64_t(1) << 32) * ((uint64_t(1) << s) - divisor)) / divisor + 1;
        m = static_cast<uint32_t>(magic);
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const { return (__umulhi(n, m) + n) >> s; }
};

// ---- iteration spaces ----

// The host's view of an iteration space: extents (dim 0 fastest) and per operand its byte strides.
struct Space {
    int ndim = 0;
    int nops = 0;
    int64_t shape[kMaxDims] = {};
    int64_t stride[kMaxOps][kMaxDims] = {};  // bytes
    int64_t numel() const {
        int64_t n = 1;
        for (int d = 0; d < ndim; ++d) n *= shape[d];
        return n;
    }
};

// The space of iter with byte strides (a constant operand, data NULL, gets stride 0).
inline Space spaceOf(const infiniopIter_t &it) {
    Space s;
    s.ndim = it.ndim;
    s.nops = it.noperands;
    for (int d = 0; d < it.ndim; ++d) s.shape[d] = it.shape[d];
    for (int k = 0; k < it.noperands; ++k) {
        const int64_t e = elemSize(it.dtype[k]);
        for (int d = 0; d < it.ndim; ++d) s.stride[k][d] = it.data[k] ? it.strides[k][d] * e : 0;
    }
    return s;
}

// Drops extent-1 dims and merges neighbours that every operand walks as one (stride[d + 1] = shape[d] * stride[d]):
// the same byte offsets for every linear index, in fewer dims.
inline void coalesce(Space &s) {
    int m = 0;
    for (int d = 0; d < s.ndim; ++d) {
        if (s.shape[d] == 1) continue;
        bool merge = m > 0;
        for (int k = 0; merge && k < s.nops; ++k) merge = s.stride[k][d] == s.shape[m - 1] * s.stride[k][m - 1];
        if (merge) {
            s.shape[m - 1] *= s.shape[d];
            continue;
        }
        s.shape[m] = s.shape[d];
        for (int k = 0; k < s.nops; ++k) s.stride[k][m] = s.stride[k][d];
        ++m;
    }
    s.ndim = m;
}

// Whether every byte offset of every operand and the element count fit in 31 bits (32-bit index math).
inline bool fits32(const Space &s) {
    if (s.numel() >= (int64_t(1) << 31)) return false;
    for (int k = 0; k < s.nops; ++k) {
        int64_t span = 0;
        for (int d = 0; d < s.ndim; ++d)
            span += (s.shape[d] - 1) * (s.stride[k][d] < 0 ? -s.stride[k][d] : s.stride[k][d]);
        if (span >= (int64_t(1) << 31)) return false;
    }
    return true;
}

// The device's copy of a space for NOPS operands: linear index -> byte offsets.
template <int NOPS>
struct Geo {
    int ndim;
    FastDiv div[kMaxDims];
    int64_t shape[kMaxDims];
    int64_t stride[kMaxDims][NOPS];
};

// The geometry of operands first .. first + NOPS - 1 of s (operands past nops get stride 0).
template <int NOPS>
inline Geo<NOPS> geoOf(const Space &s, int first = 0) {
    Geo<NOPS> g{};
    g.ndim = s.ndim;
    for (int d = 0; d < s.ndim; ++d) {
        g.shape[d] = s.shape[d];
        g.div[d] = FastDiv(static_cast<uint32_t>(s.shape[d] < (int64_t(1) << 31) ? s.shape[d] : 1));
        for (int k = 0; k < NOPS; ++k) g.stride[d][k] = first + k < s.nops ? s.stride[first + k][d] : 0;
    }
    return g;
}

// The byte offsets of linear index i (dim 0 fastest). WIDE: 64-bit math; else every offset and i fit in 31 bits.
template <bool WIDE>
using Off = std::conditional_t<WIDE, int64_t, int32_t>;

template <bool WIDE, int NOPS>
__device__ __forceinline__ void offsetsOf(const Geo<NOPS> &g, int64_t i, Off<WIDE> (&off)[NOPS]) {
    using I = Off<WIDE>;
#pragma unroll
    for (int k = 0; k < NOPS; ++k) off[k] = 0;
    I rest = static_cast<I>(i);
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
        if (d >= g.ndim) break;
        I c;
        if (d == g.ndim - 1) {
            c = rest;  // the outermost dim needs no division (i < numel)
        } else if constexpr (WIDE) {
            long long r;
            rest = ops::divMod(rest, g.shape[d], &r);
            c = r;
        } else {
            const I q = static_cast<I>(g.div[d].div(static_cast<uint32_t>(rest)));
            c = rest - q * static_cast<I>(g.div[d].d);
            rest = q;
        }
#pragma unroll
        for (int k = 0; k < NOPS; ++k) off[k] += c * static_cast<I>(g.stride[d][k]);
    }
}

// Blocks for a grid-stride loop over n items of `threads` each: enough to fill the device a few times over.
inline unsigned gridFor(int64_t n, int threads, int per_sm = 32) {
    int64_t b = (n + threads - 1) / threads;
    const int64_t cap = static_cast<int64_t>(smCount()) * per_sm;
    if (b > cap) b = cap;
    return static_cast<unsigned>(b < 1 ? 1 : b);
}

// Checks that operand k of iter has a family dtype.
inline infiniStatus_t checkDtypes(const char *family, const infiniopIter_t &it) {
    for (int k = 0; k < it.noperands; ++k) {
        if (!familyDtype(it.dtype[k])) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: operand %d has dtype %d, which no family takes", family, k,
                        static_cast<int>(it.dtype[k]));
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// A launch's status as the family's.
inline infiniStatus_t launchStatus(cudaError_t err, const char *family) {
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
        cudaGetLastError();
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: kernel launch failed: %s", family, cudaGetErrorString(err));
    }
    return INFINI_STATUS_SUCCESS;
}

// Device scratch memory ordered on the stream: allocated before the kernels that use it, freed after them.
class Scratch {
   public:
    explicit Scratch(cudaStream_t stream) : stream_(stream) {}
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    ~Scratch() {
        if (p_) cudaFreeAsync(p_, stream_);
    }
    infiniStatus_t alloc(size_t bytes, const char *family) {
        retainPoolMemory();
        cudaError_t err = cudaMallocAsync(&p_, bytes < 16 ? 16 : bytes, stream_);
        if (err != cudaSuccess) {
            p_ = nullptr;
            cudaGetLastError();
            return fail(err == cudaErrorMemoryAllocation ? INFINI_STATUS_OUT_OF_MEMORY : INFINI_STATUS_INTERNAL_ERROR,
                        "%s: %zu bytes of scratch memory: %s", family, bytes, cudaGetErrorString(err));
        }
        return INFINI_STATUS_SUCCESS;
    }
    template <class T>
    T *as() const {
        return static_cast<T *>(p_);
    }

   private:
    cudaStream_t stream_;
    void *p_ = nullptr;
};

}  // namespace infini::nvidia::families
