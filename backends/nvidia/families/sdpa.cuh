// families/sdpa.cuh: what the sdpa family's units share: the call's geometry as the kernels see it, and the entry
// points of the blocked kernels (sdpa_blocked.cu) that sdpa.cu plans and launches.
#pragma once

#include "elems.cuh"

namespace infini::nvidia::families {

// A call of scaled dot-product attention (families.h): q [b, hq, lq, d], k / v [b, hk, lk, d], out / dout / dq
// like q, dk / dv like k, lse F32 [b, hq, lq]. Strides in elements ([0] batch, [1] head, [2] row; the last dim's is
// 1); the mask's [b, h, row, key] (0 where broadcast).
struct SdpaGeom {
    long long b, hq, hk, lq, lk, d, group;
    float scale;
    bool causal;
    infiniDtype_t dtype, mask_dtype;  // mask_dtype INVALID: no mask
    long long q[3], k[3], v[3], o[3], lse[3], dout[3], dq[3], dk[3], dv[3];
    long long mask[4];
};

// The pointers of a call (NULL where the direction does not use them).
struct SdpaData {
    const void *q, *k, *v, *mask;
    void *out;
    float *lse;
    const void *dout, *o_in;
    const float *lse_in;
    void *dq, *dk, *dv;
};

// The blocked kernels take head_dim up to this.
constexpr long long kSdpaMaxHeadDim = 256;

// The forward by the blocked kernel (any mask, causal or not, F16 / BF16 / F32, head_dim <= kSdpaMaxHeadDim).
infiniStatus_t sdpaBlockedForward(const SdpaGeom &g, const SdpaData &x, const Ctx &q);
// The backward: dq, dk, dv from dout, out and lse (a recompute of the probabilities a key tile at a time).
infiniStatus_t sdpaBlockedBackward(const SdpaGeom &g, const SdpaData &x, const Ctx &q);
// The backwards' delta = rowsum(dout * out), F32 [b, hq, lq] contiguous (sdpa_blocked.cu).
infiniStatus_t sdpaBackwardDelta(const SdpaGeom &g, const SdpaData &x, float *delta, const Ctx &q);

// The backward on tensor cores (sdpa_mma.cu): whether it takes the call (fp16 / bf16, head_dim 64 or 128, no mask,
// strides multiples of 8, operands on 16 bytes; INFINI_SDPA_BACKWARD=blocked sends every call to the blocked
// kernels), and the call.
bool sdpaMmaTakes(const SdpaGeom &g, const SdpaData &x);
infiniStatus_t sdpaMmaBackward(const SdpaGeom &g, const SdpaData &x, const Ctx &q);

}  // namespace infini::nvidia::families
