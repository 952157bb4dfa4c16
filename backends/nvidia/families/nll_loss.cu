// families/nll_loss.cu: the nll_loss family (families.h): the negative log-likelihood of log-probabilities x
// [n, c, d] at targets [n, d], with optional class weights and ignore_index, as torch's CPU kernels define it:
// reduction none: out[i, k] = -w[t] x[i, t, k] (0 where ignored); mean: sum / total_weight (NaN for no target);
// sum: the sum; total_weight = the sum of w[t] over the targets not ignored (their count without weights).
// Backward: grad_input = 0 but at each target, -w[t] * (grad_out[i, k] for none, grad_out / total_weight for mean,
// grad_out for sum). A target outside [0, c) that is not ignore_index contributes nothing and is recorded as the
// device's data error ("nll_loss: index out of range: Target t is out of bounds (c classes)").
// Kernels: the forward's (grid-stride over the n * d targets; the reductions' per-block partials summed in a fixed
// order by one block: deterministic), the backward's (d == 1: a block a row of c, 16-byte stores of zeros around
// the target; else grid-stride over the elements). Sums in float (double for F64).
#include <algorithm>

#include "elems.cuh"

namespace infini::nvidia::families {
namespace {

struct NllParams {
    int reduction;
    long long n, c, d, ignore_index;
    infiniDtype_t dtype;
    bool t64;
};

__device__ __forceinline__ long long targetAt(const void *t, bool t64, long long k) {
    return t64 ? static_cast<const long long *>(t)[k] : static_cast<const int *>(t)[k];
}

// A target's class, or -1 where it is ignored or (reported) out of range.
__device__ __forceinline__ long long classOf(const NllParams &p, long long t, DeviceError *err) {
    if (t == p.ignore_index) return -1;
    if (t < 0 || t >= p.c) {
        reportError(err, kErrTarget, kFamilyOpBase + INFINIOP_FAMILY_NLL_LOSS, 0, t, p.c);
        return -1;
    }
    return t;
}

// Forward. none: out[e] for each target e; else this block's (loss, weight) sums into part[2 * blockIdx.x], or with
// one block (part NULL) the results into out and total_weight.
template <typename A>
__global__ void __launch_bounds__(256) nllForward(NllParams p, void *out, void *total_weight, A *part, const void *x,
                                                  const void *target, const void *weight, DeviceError *err) {
    __shared__ A smem[32];
    const long long total = p.n * p.d;
    A loss = A(0), wsum = A(0);
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long cls = classOf(p, targetAt(target, p.t64, e), err);
        A v = A(0);
        if (cls >= 0) {
            const long long i = e / p.d, k = e - i * p.d;
            const A w = weight != nullptr ? ldAs<A>(weight, p.dtype, cls) : A(1);
            v = -w * ldAs<A>(x, p.dtype, (i * p.c + cls) * p.d + k);
            wsum += w;
        }
        if (p.reduction == 0)
            stAs<A>(out, p.dtype, e, v);
        else
            loss += v;
    }
    if (p.reduction == 0) return;
    loss = blockSumA(loss, smem);
    wsum = blockSumA(wsum, smem);
    if (threadIdx.x == 0) {
        if (part != nullptr) {
            part[2 * blockIdx.x] = loss;
            part[2 * blockIdx.x + 1] = wsum;
        } else {
            stAs<A>(out, p.dtype, 0, p.reduction == 1 ? loss / wsum : loss);
            stAs<A>(total_weight, p.dtype, 0, wsum);
        }
    }
}

// The reductions' results from G partials (one block).
template <typename A>
__global__ void __launch_bounds__(256)
    nllFinish(NllParams p, void *out, void *total_weight, const A *part, long long G) {
    __shared__ A smem[32];
    A loss = A(0), wsum = A(0);
    for (long long b = threadIdx.x; b < G; b += blockDim.x) {
        loss += part[2 * b];
        wsum += part[2 * b + 1];
    }
    loss = blockSumA(loss, smem);
    wsum = blockSumA(wsum, smem);
    if (threadIdx.x == 0) {
        stAs<A>(out, p.dtype, 0, p.reduction == 1 ? loss / wsum : loss);
        stAs<A>(total_weight, p.dtype, 0, wsum);
    }
}

// The gradient at target e: -w[t] * grad (in A).
template <typename A>
__device__ __forceinline__ A gradAt(const NllParams &p, long long e, long long cls, const void *gout, const void *tw,
                                    const void *weight) {
    A g = p.reduction == 0 ? ldAs<A>(gout, p.dtype, e) : ldAs<A>(gout, p.dtype, 0);
    if (p.reduction == 1) g /= ldAs<A>(tw, p.dtype, 0);
    const A w = weight != nullptr ? ldAs<A>(weight, p.dtype, cls) : A(1);
    return -(w * g);
}

// Backward, d == 1: a block a row i (grid-stride), the row written whole: zeros and the target's gradient;
// VEC: 16-byte stores (the host checked c and the base).
template <typename T, bool VEC>
__global__ void __launch_bounds__(256) nllBackwardRows(NllParams p, T *gin, const void *gout, const void *target,
                                                       const void *tw, const void *weight, DeviceError *err) {
    using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
    constexpr int N = 16 / sizeof(T);
    for (long long i = blockIdx.x; i < p.n; i += gridDim.x) {
        const long long t = targetAt(target, p.t64, i);
        // (every thread reads the target; one reports it)
        const long long cls = t == p.ignore_index || t < 0 || t >= p.c ? -1 : t;
        if (threadIdx.x == 0) classOf(p, t, err);
        const T val = cls >= 0 ? cvtTo<T>(gradAt<A>(p, i, cls, gout, tw, weight)) : cvtTo<T>(A(0));
        T *row = gin + i * p.c;
        if constexpr (VEC) {
            const long long nv = p.c / N;
            for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
                Vec<T, N> z;
#pragma unroll
                for (int e = 0; e < N; ++e) z.v[e] = v * N + e == cls ? val : cvtTo<T>(A(0));
                *reinterpret_cast<Vec<T, N> *>(row + v * N) = z;
            }
        } else {
            for (long long j = threadIdx.x; j < p.c; j += blockDim.x) row[j] = j == cls ? val : cvtTo<T>(A(0));
        }
    }
}

// Backward, any d: grid-stride over the n * c * d elements of grad_input.
template <typename A>
__global__ void __launch_bounds__(256) nllBackwardAny(NllParams p, void *gin, const void *gout, const void *target,
                                                      const void *tw, const void *weight, DeviceError *err) {
    const long long total = p.n * p.c * p.d;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long k = e % p.d, r = e / p.d, j = r % p.c, i = r / p.c;
        const long long te = i * p.d + k, t = targetAt(target, p.t64, te);
        A v = A(0);
        if (t == j) {  // (the element at the target: the target is in range)
            if (t != p.ignore_index) v = gradAt<A>(p, te, t, gout, tw, weight);
        } else if (j == 0 && t != p.ignore_index && (t < 0 || t >= p.c)) {
            classOf(p, t, err);  // (reported once a target, by its row's first class)
        }
        stAs<A>(gin, p.dtype, e, v);
    }
}

template <typename A>
infiniStatus_t forward(const infiniopNllLossArgs_t &a, const NllParams &p, const Ctx &q) {
    const long long total = a.n * a.d;
    if (p.reduction == 0) {
        if (total == 0) return INFINI_STATUS_SUCCESS;
        nllForward<A><<<blocksFor(total, 256, 4096), 256, 0, q.stream>>>(p, a.out, nullptr, nullptr, a.x, a.target,
                                                                         a.weight, q.err);
        return launched("infiniopNllLoss");
    }
    const long long G = std::min<long long>((total + 1023) / 1024, 1024);
    if (G <= 1) {  // (no target: loss 0, weight 0: mean NaN, as torch)
        nllForward<A><<<1, 256, 0, q.stream>>>(p, a.out, a.total_weight, nullptr, a.x, a.target, a.weight, q.err);
        return launched("infiniopNllLoss");
    }
    StreamBuffer buf(q.stream);
    INFINI_RETURN_IF_ERROR(buf.alloc(static_cast<size_t>(2 * G) * sizeof(A)));
    nllForward<A><<<static_cast<unsigned>(G), 256, 0, q.stream>>>(p, a.out, a.total_weight, buf.as<A>(), a.x, a.target,
                                                                  a.weight, q.err);
    INFINI_RETURN_IF_ERROR(launched("infiniopNllLoss"));
    nllFinish<A><<<1, 256, 0, q.stream>>>(p, a.out, a.total_weight, buf.as<A>(), G);
    return launched("infiniopNllLoss");
}

template <typename T>
infiniStatus_t backwardRows(const infiniopNllLossArgs_t &a, const NllParams &p, const Ctx &q) {
    const bool vec = a.c % (16 / static_cast<long long>(sizeof(T))) == 0 && aligned16(a.out);
    const unsigned grid = gridX(std::min<long long>(a.n, 1LL << 20));
    if (vec) {
        nllBackwardRows<T, true>
            <<<grid, 256, 0, q.stream>>>(p, static_cast<T *>(a.out), a.x, a.target, a.total_weight_in, a.weight, q.err);
    } else {
        nllBackwardRows<T, false>
            <<<grid, 256, 0, q.stream>>>(p, static_cast<T *>(a.out), a.x, a.target, a.total_weight_in, a.weight, q.err);
    }
    return launched("infiniopNllLoss");
}

}  // namespace

infiniStatus_t nllLoss(const infiniopNllLossArgs_t &a, const Ctx &q) {
    if (!isFloatDtype(a.dtype)) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopNllLoss: dtype %d (float16, bfloat16, float32 or float64)",
                    a.dtype);
    }
    if (a.target_dtype != INFINI_DTYPE_I64 && a.target_dtype != INFINI_DTYPE_I32) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopNllLoss: target dtype %d (int64 or int32)",
                    a.target_dtype);
    }
    if (a.reduction < 0 || a.reduction > 2)
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopNllLoss: reduction %d", a.reduction);
    const NllParams p{a.reduction, a.n, a.c, a.d, a.ignore_index, a.dtype, a.target_dtype == INFINI_DTYPE_I64};
    const bool f64 = a.dtype == INFINI_DTYPE_F64;
    if (!a.backward) {
        if (a.reduction != 0 && (a.out == nullptr || a.total_weight == nullptr)) {
            return fail(INFINI_STATUS_NULL_POINTER, "infiniopNllLoss: out or total_weight is NULL");
        }
        if (a.n * a.d > 0 && (a.out == nullptr || a.x == nullptr || a.target == nullptr)) {
            return fail(INFINI_STATUS_NULL_POINTER, "infiniopNllLoss: an operand is NULL");
        }
        return f64 ? forward<double>(a, p, q) : forward<float>(a, p, q);
    }
    const long long total = a.n * a.c * a.d;
    if (total == 0) return INFINI_STATUS_SUCCESS;
    if (a.out == nullptr || a.x == nullptr || a.target == nullptr ||
        (a.reduction == 1 && a.total_weight_in == nullptr)) {
        return fail(INFINI_STATUS_NULL_POINTER, "infiniopNllLoss: an operand of the backward is NULL");
    }
    if (a.d == 1) {
        switch (a.dtype) {
            case INFINI_DTYPE_F32: return backwardRows<float>(a, p, q);
            case INFINI_DTYPE_F16: return backwardRows<__half>(a, p, q);
            case INFINI_DTYPE_BF16: return backwardRows<__nv_bfloat16>(a, p, q);
            default: return backwardRows<double>(a, p, q);
        }
    }
    const unsigned grid = blocksFor(total, 256, 8192);
    if (f64) {
        nllBackwardAny<double><<<grid, 256, 0, q.stream>>>(p, a.out, a.x, a.target, a.total_weight_in, a.weight, q.err);
    } else {
        nllBackwardAny<float><<<grid, 256, 0, q.stream>>>(p, a.out, a.x, a.target, a.total_weight_in, a.weight, q.err);
    }
    return launched("infiniopNllLoss");
}

}  // namespace infini::nvidia::families
