// common.h: what every CPU operator shares: dtypes and their float conversions, a vectorizable
// exp, tensor-descriptor checks, row addressing, parallel loops, and the descriptor base class.
//
// Kernels compute in float32 whatever the storage dtype (float32, float16, bfloat16), split work
// across threads by rows (OpenMP, only when there is enough work to pay for it), and keep the
// innermost loop contiguous so that the compiler vectorizes it (AVX2/FMA/F16C, see CMakeLists.txt).
#pragma once

#include <infini/backend.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../common/error.h"

namespace infini::cpu::ops {

struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};

inline float bitsToFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint32_t floatToBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline float toFloat(float v) { return v; }
// IEEE half to float without branches (so loops vectorize): rebias normals and subnormals with one
// multiply by 2^112, and give inf/nan the all-ones exponent.
inline float toFloat(f16 v) {
    uint32_t h = v.bits, sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
    float f = bitsToFloat(em << 13) * 5.192296858534828e+33f;  // 2^112
    uint32_t bits = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : floatToBits(f);
    return bitsToFloat(bits | sign);
}
inline float toFloat(bf16 v) {
    uint32_t u = static_cast<uint32_t>(v.bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

template <typename T>
inline T fromFloat(float v);
template <>
inline float fromFloat<float>(float v) { return v; }
// float to IEEE half, round to nearest even, without branches (all three cases are computed).
template <>
inline f16 fromFloat<f16>(float v) {
    uint32_t f = floatToBits(v), sign = f & 0x80000000u;
    f ^= sign;
    uint32_t special = f > 0x7f800000u ? 0x7e00u : 0x7c00u;                        // nan, or overflow to inf
    const uint32_t denorm_magic = ((127 - 15) + (23 - 10) + 1) << 23;
    uint32_t sub = floatToBits(bitsToFloat(f) + bitsToFloat(denorm_magic)) - denorm_magic;  // subnormal or 0
    uint32_t normal = (f + ((15u - 127u) << 23) + 0xfffu + ((f >> 13) & 1u)) >> 13;
    uint32_t o = f >= 0x47800000u ? special : (f < 0x38800000u ? sub : normal);
    return f16{static_cast<uint16_t>(o | (sign >> 16))};
}
template <>
inline bf16 fromFloat<bf16>(float v) {  // round to nearest even; NaN stays NaN (branch-free: vectorizes)
    uint32_t u;
    std::memcpy(&u, &v, 4);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;
    return bf16{static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded)};
}

// e^x in float, to about 2 ulp, written so that loops calling it vectorize (no libm call).
// Very negative x gives 0; very positive x gives +inf.
inline float expf_fast(float x) {
    const float hi = 88.3762626647949f, lo = -87.3365478515625f;
    float xc = x > hi ? hi : (x < lo ? lo : x);
    const float round_magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    float n = (xc * 1.44269504088896341f + round_magic) - round_magic;
    float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t e = static_cast<int32_t>(n) + 127;
    float y = p * bitsToFloat(static_cast<uint32_t>(e) << 23);
    y = x < lo ? 0.0f : y;
    return x > hi ? INFINITY : y;
}

inline float siluf(float x) { return x / (1.0f + expf_fast(-x)); }

// Dispatches f<T>() on a float dtype, or returns BAD_TENSOR_DTYPE.
template <typename F>
infiniStatus_t dispatchFloat(infiniDtype_t dtype, const char *op, F &&f) {
    switch (dtype) {
        case INFINI_DTYPE_F32: f(float{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_F16: f(f16{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_BF16: f(bf16{}); return INFINI_STATUS_SUCCESS;
        default:
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: dtype %d is not float32, float16 or bfloat16", op, dtype);
    }
}

// A tensor's layout, copied out of its descriptor.
struct Layout {
    infiniDtype_t dtype = INFINI_DTYPE_INVALID;
    std::vector<size_t> shape;
    std::vector<ptrdiff_t> strides;
    size_t ndim() const { return shape.size(); }
    size_t numel() const {
        size_t n = 1;
        for (size_t s : shape) n *= s;
        return n;
    }
    size_t last() const { return shape.empty() ? 1 : shape.back(); }
    size_t rows() const { return last() == 0 ? 0 : numel() / last(); }
    bool lastContiguous() const { return shape.empty() || shape.back() <= 1 || strides.back() == 1; }
    bool contiguous() const;
    // Element offset of row r (all dims but the last, row-major).
    ptrdiff_t rowOffset(size_t r) const {
        ptrdiff_t off = 0;
        for (size_t d = ndim() - 1; d-- > 0;) {
            off += static_cast<ptrdiff_t>(r % shape[d]) * strides[d];
            r /= shape[d];
        }
        return off;
    }
    std::string str() const;
};

Layout layoutOf(infiniopTensorDescriptor_t t);

// Checks, each returning BAD_TENSOR_* with a message that names the op and the tensor.
infiniStatus_t expectSameShape(const char *op, const char *name, const Layout &t, const Layout &ref, const char *ref_name);
infiniStatus_t expectSameDtype(const char *op, const char *name, const Layout &t, const Layout &ref, const char *ref_name);
infiniStatus_t expectLastContiguous(const char *op, const char *name, const Layout &t);

// Runs body(begin, end) over [0, n) items, in parallel when n * cost_per_item is large enough.
void parallelFor(size_t n, size_t cost_per_item, const std::function<void(size_t, size_t)> &body);

// The computation of one op instance, on the data pointers in the order of the op's tensors.
using Kernel = std::function<void(void *const *data)>;

// Each op checks its params and returns its kernel (capturing what it needs by value), or a status.
using OpFactory = infiniStatus_t (*)(const infiniopOpParams_t &p, Kernel *kernel);

infiniStatus_t makeAdd(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeMul(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSilu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRelu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeGelu(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSwiGLU(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSiluAndMul(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRMSNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeAddRMSNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeLayerNorm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeCausalSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeEmbedding(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRoPE(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeTopkSoftmax(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeRandomSample(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedCaching(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeGemm(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makeAttention(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedAttention(const infiniopOpParams_t &p, Kernel *k);
infiniStatus_t makePagedAttentionPrefill(const infiniopOpParams_t &p, Kernel *k);

// The backend's create_op: makes a descriptor whose run() executes the kernel now
// (INFINIRT_STREAM_CALLER) or queues it on a stream of the handle's device.
infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);

}  // namespace infini::cpu::ops
