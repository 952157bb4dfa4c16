// ops.h: the nvidia backend's operators. Each factory checks its params (messages name the op and the
// tensor) and returns a Launch that queues the op's kernels on a stream; ops.cpp wraps it in a
// descriptor. Kernels are in the .cu files next to this header; none of this includes torch.
#pragma once

#include <cuda_runtime.h>

#include <functional>

#include "../../common/layout.h"
#include "../../common/op_checks.h"
#include "../nvidia.h"

namespace infini::nvidia::ops {

namespace checks = ::infini::checks;

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);

// Up to 8 dims of sizes and strides (elements), for strided index math in kernels.
constexpr int kMaxDims = 8;
struct Dims {
    int ndim;
    long long shape[kMaxDims];
    long long strides[kMaxDims];
};

// Dims of a layout without its last `drop` dimensions (row offsets of a row-wise op).
inline bool dimsOf(const Layout &l, Dims *out, size_t drop = 0) {
    if (l.ndim() - drop > static_cast<size_t>(kMaxDims)) return false;
    out->ndim = static_cast<int>(l.ndim() - drop);
    for (int k = 0; k < out->ndim; ++k) {
        out->shape[k] = static_cast<long long>(l.shape[k]);
        out->strides[k] = static_cast<long long>(l.strides[k]);
    }
    return true;
}

// d with size-1 dimensions dropped and dimensions that are contiguous with each other merged: the
// same offsets for every linear index, usually one dimension (a row-major batch of rows).
inline void collapse(Dims *d) {
    int m = 0;
    for (int k = 0; k < d->ndim; ++k) {
        if (d->shape[k] == 1) continue;
        if (m > 0 && d->strides[m - 1] == d->shape[k] * d->strides[k]) {
            d->shape[m - 1] *= d->shape[k];
            d->strides[m - 1] = d->strides[k];
        } else {
            d->shape[m] = d->shape[k];
            d->strides[m] = d->strides[k];
            ++m;
        }
    }
    d->ndim = m;
}

// What a launch gets: the data pointers in the op's tensor order, its workspace, the stream, the
// device's error record (for data-dependent checks in kernels) and the device id.
struct LaunchArgs {
    void *const *data;
    void *workspace;
    size_t workspace_size;
    cudaStream_t stream;
    DeviceError *err;
    int device;
};

using Launch = std::function<infiniStatus_t(const LaunchArgs &)>;

struct Made {
    Launch launch;
    size_t workspace = 0;
};

using Factory = infiniStatus_t (*)(const infiniopOpParams_t &p, int device, Made *made);

// One factory per operator (make<CName>, from ops/list.h), each in the op's .cu file.
#define INFINI_NVIDIA_FACTORY(E, C) infiniStatus_t make##C(const infiniopOpParams_t &p, int device, Made *m);
INFINIOP_FOR_EACH_OP(INFINI_NVIDIA_FACTORY)
#undef INFINI_NVIDIA_FACTORY

// dst[i] = src ? scale * src[i] : 0 over n elements of a float dtype, both addressed through Dims
// (elementwise.cu): gemm's c_in and its K = 0 case.
infiniStatus_t launchScaleCopy(infiniDtype_t dtype, void *dst, const Dims &ddst, const void *src, const Dims &dsrc,
                               long long n, float scale, cudaStream_t stream);

// gemm with 1 to kGemvMaxRows rows of A (gemv.cu): C[m, n] = alpha * sum_k A[m, k] B[k, n] + beta * C[m, n]
// (beta 0: C is not read), A row-major, B row-major (b_rows: B[k, n] at b[k * ldb + n]) or column-major
// (B[k, n] at b[n * ldb + k]), C row-major; batches at the bs* strides (elements). gemvFits: whether the
// kernels take these sizes and strides (the pointers must then be 16-byte aligned).
constexpr long long kGemvMaxRows = 4;
struct GemvArgs {
    long long M, N, K, batch;
    const void *a;
    long long lda, bsa;
    const void *b;
    long long ldb, bsb;
    bool b_rows;
    void *c;
    long long ldc, bsc;
    float alpha, beta;
};
bool gemvFits(const GemvArgs &p, int elem);
infiniStatus_t launchGemv(infiniDtype_t dtype, const GemvArgs &p, cudaStream_t stream);

// A launch's status: the launch error, if any, as a status naming the op.
infiniStatus_t launched(const char *op);

// Calls f(T{}) for a float dtype (float, __half, __nv_bfloat16), else fails naming the op.
#define INFINI_NV_DISPATCH_FLOAT(dtype, op, ...)                                                                    \
    [&]() -> infiniStatus_t {                                                                                       \
        switch (dtype) {                                                                                            \
            case INFINI_DTYPE_F32: {                                                                                \
                using T = float;                                                                                    \
                __VA_ARGS__;                                                                                        \
                return INFINI_STATUS_SUCCESS;                                                                       \
            }                                                                                                       \
            case INFINI_DTYPE_F16: {                                                                                \
                using T = __half;                                                                                   \
                __VA_ARGS__;                                                                                        \
                return INFINI_STATUS_SUCCESS;                                                                       \
            }                                                                                                       \
            case INFINI_DTYPE_BF16: {                                                                               \
                using T = __nv_bfloat16;                                                                            \
                __VA_ARGS__;                                                                                        \
                return INFINI_STATUS_SUCCESS;                                                                       \
            }                                                                                                       \
            default:                                                                                                \
                return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: dtype %d is not float32, float16 or bfloat16", op, \
                            static_cast<int>(dtype));                                                               \
        }                                                                                                           \
    }()

}  // namespace infini::nvidia::ops
