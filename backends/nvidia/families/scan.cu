// scan.cu: the scan family on the nvidia backend. A line is the run of elements along the scanned dim; the other
// dims (coalesced) number the lines. Two kernels:
// - scanBlock: a block per line, the line in chunks of blockDim elements: each chunk is scanned across the block
//   (warp shuffles, then the warps' totals) and continues from the previous chunk's last value. Taken when the
//   scanned dim is the fastest one (the loads of a chunk coalesce) or the lines are few.
// - scanThread: a thread per line, sequential along it; adjacent threads take adjacent lines (the loads coalesce
//   where the lines are contiguous across the scanned dim).
// The running value is kept in the compute type (as torch's CPU kernels accumulate) and stored per element.
#include "../../common/pointwise_math.h"
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

// A running value and, for CUMMAX / CUMMIN, the position it came from.
template <class C>
struct SE {
    C v;
    int64_t i;
};

template <class C>
struct ScanParams {
    Geo<3> lines;  // byte offsets of the lines' first elements: values out, indices out, in
    int64_t nlines;
    int64_t L;
    int64_t step[3];  // byte strides along the scanned dim
    char *out;
    char *idx;  // NULL unless CUMMAX / CUMMIN
    const char *in;
    infiniDtype_t dout, didx, din;
    int op;
};

template <class C>
__device__ __forceinline__ bool nanOf(C x) {
    if constexpr (std::is_integral_v<C>) {
        return false;
    } else {
        return x != x;
    }
}

// The scan's operator: a the earlier part, b the later one.
template <class C>
__device__ __forceinline__ SE<C> combine(int op, const SE<C> &a, const SE<C> &b) {
    switch (op) {
        case INFINIOP_SCAN_CUMPROD:
            if constexpr (std::is_integral_v<C>) {
                return {static_cast<C>(static_cast<uint64_t>(a.v) * static_cast<uint64_t>(b.v)), b.i};
            } else {
                return {a.v * b.v, b.i};
            }
        case INFINIOP_SCAN_CUMMAX:  // the last of ties; a NaN wins, the latest NaN (as torch's cummax)
            return (nanOf(b.v) || (!nanOf(a.v) && b.v >= a.v)) ? b : a;
        case INFINIOP_SCAN_CUMMIN: return (nanOf(b.v) || (!nanOf(a.v) && b.v <= a.v)) ? b : a;
        case INFINIOP_SCAN_LOGCUMSUMEXP:
            if constexpr (!std::is_integral_v<C>) {  // log(exp(a) + exp(b)), as torch's _log_add_exp_helper
                if (nanOf(a.v) || nanOf(b.v)) return {std::numeric_limits<C>::quiet_NaN(), b.i};
                const C lo = a.v < b.v ? a.v : b.v, hi = a.v < b.v ? b.v : a.v;
                if (lo != hi ||
                    (lo != std::numeric_limits<C>::infinity() && lo != -std::numeric_limits<C>::infinity())) {
                    return {hi + pw::fm::log1p(pw::fm::exp(lo - hi)), b.i};
                }
                return {a.v, b.i};  // both the same infinity
            }
            return b;
        default:  // CUMSUM
            if constexpr (std::is_integral_v<C>) {
                return {static_cast<C>(static_cast<uint64_t>(a.v) + static_cast<uint64_t>(b.v)), b.i};
            } else {
                return {a.v + b.v, b.i};
            }
    }
}

template <class C>
__device__ __forceinline__ void put(const ScanParams<C> &p, const int64_t (&base)[3], int64_t j, const SE<C> &e) {
    storeAs<C>(p.out + base[0] + j * p.step[0], p.dout, e.v);
    if (p.idx) storeAs<int64_t>(p.idx + base[1] + j * p.step[1], p.didx, e.i);
}

template <class C>
__device__ __forceinline__ SE<C> shflUp(const SE<C> &e, int d) {
    return {__shfl_up_sync(0xffffffffu, e.v, d), __shfl_up_sync(0xffffffffu, e.i, d)};
}

template <class C>
__global__ void __launch_bounds__(1024) scanBlock(ScanParams<C> p) {
    opEntry();
    __shared__ C wv[32];
    __shared__ int64_t wi[32];
    __shared__ C cv;
    __shared__ int64_t ci;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nwarps = (blockDim.x + 31) >> 5;
    for (int64_t line = blockIdx.x; line < p.nlines; line += gridDim.x) {
        int64_t base[3];
        offsetsOf<true>(p.lines, line, base);
        for (int64_t c0 = 0; c0 < p.L; c0 += blockDim.x) {
            const int64_t j = c0 + t;
            SE<C> e{C(0), j};
            if (j < p.L) e.v = loadAs<C>(p.in + base[2] + j * p.step[2], p.din);
            // inclusive scan within the warp (a lane combines only with lanes before it: lanes past the line's end,
            // which come last, never reach a valid lane)
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const SE<C> o = shflUp(e, d);
                if (lane >= d) e = combine(p.op, o, e);
            }
            if (lane == 31) {
                wv[warp] = e.v;
                wi[warp] = e.i;
            }
            __syncthreads();
            if (warp == 0) {  // the warps' totals, scanned
                SE<C> w{lane < nwarps ? wv[lane] : C(0), lane < nwarps ? wi[lane] : 0};
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    const SE<C> o = shflUp(w, d);
                    if (lane >= d) w = combine(p.op, o, w);
                }
                if (lane < nwarps) {
                    wv[lane] = w.v;
                    wi[lane] = w.i;
                }
            }
            __syncthreads();
            if (warp > 0) e = combine(p.op, SE<C>{wv[warp - 1], wi[warp - 1]}, e);
            if (c0 > 0) e = combine(p.op, SE<C>{cv, ci}, e);
            if (j < p.L) put(p, base, j, e);
            __syncthreads();  // every thread has read the carry
            const int64_t last = (p.L - c0 < blockDim.x ? p.L - c0 : blockDim.x) - 1;
            if (t == last) {
                cv = e.v;
                ci = e.i;
            }
            __syncthreads();
        }
    }
}

template <class C>
__global__ void __launch_bounds__(256) scanThread(ScanParams<C> p) {
    opEntry();
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < p.nlines; line += stride) {
        int64_t base[3];
        offsetsOf<true>(p.lines, line, base);
        SE<C> acc{C(0), 0};
        for (int64_t j = 0; j < p.L; ++j) {
            const SE<C> e{loadAs<C>(p.in + base[2] + j * p.step[2], p.din), j};
            acc = j == 0 ? e : combine(p.op, acc, e);
            put(p, base, j, acc);
        }
    }
}

const char *const kName = "scan";

template <class C>
infiniStatus_t run(const infiniopScanArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const int nout = a.noutputs, in = nout;
    const int dim = a.dim;
    Space full = spaceOf(it);
    // the lines: every dim but the scanned one, coalesced; operands ordered out, idx, in
    Space lines;
    lines.nops = 3;
    const int order[3] = {0, nout > 1 ? 1 : -1, in};
    for (int d = 0; d < full.ndim; ++d) {
        if (d == dim) continue;
        lines.shape[lines.ndim] = full.shape[d];
        for (int k = 0; k < 3; ++k) lines.stride[k][lines.ndim] = order[k] >= 0 ? full.stride[order[k]][d] : 0;
        ++lines.ndim;
    }
    coalesce(lines);
    ScanParams<C> p{};
    p.lines = geoOf<3>(lines);
    p.nlines = lines.numel();
    p.L = it.ndim > 0 ? it.shape[dim] : 1;
    for (int k = 0; k < 3; ++k) p.step[k] = order[k] >= 0 && it.ndim > 0 ? full.stride[order[k]][dim] : 0;
    p.out = static_cast<char *>(it.data[0]);
    p.idx = nout > 1 ? static_cast<char *>(it.data[1]) : nullptr;
    p.in = static_cast<const char *>(it.data[in]);
    p.dout = it.dtype[0];
    p.didx = nout > 1 ? it.dtype[1] : INFINI_DTYPE_I64;
    p.din = it.dtype[in];
    p.op = a.op;
    cudaError_t err;
    // a thread per line where the lines are many and the scanned dim is not the fastest one
    if (dim != 0 && p.nlines >= 4096) {
        err = launchOp(scanThread<C>, dim3(gridFor(p.nlines, 256)), dim3(256), 0, ctx.stream, p);
    } else {
        int threads = static_cast<int>(p.L < 1024 ? (p.L + 31) / 32 * 32 : 1024);
        if (threads < 32) threads = 32;
        const int64_t blocks = p.nlines < (int64_t(1) << 20) ? p.nlines : (int64_t(1) << 20);
        err = launchOp(scanBlock<C>, dim3(static_cast<unsigned>(blocks)), dim3(threads), 0, ctx.stream, p);
    }
    return launchStatus(err, kName);
}

}  // namespace

infiniStatus_t scan(const infiniopScanArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const bool indexed = a.op == INFINIOP_SCAN_CUMMAX || a.op == INFINIOP_SCAN_CUMMIN;
    const int want = indexed ? 2 : 1;
    if (a.noutputs != want || it.noperands != want + 1) {
        return fail(INFINI_STATUS_BAD_PARAM, "scan op %d: %d outputs and %d operands (expected %d and %d)", a.op,
                    a.noutputs, it.noperands, want, want + 1);
    }
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "scan: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    if (a.op == INFINIOP_SCAN_LOGCUMSUMEXP && a.compute == INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "scan LOGCUMSUMEXP needs a float compute dtype");
    }
    INFINI_RETURN_IF_ERROR(checkDtypes(kName, it));
    int64_t n = 1;
    for (int d = 0; d < it.ndim; ++d) n *= it.shape[d];
    if (n == 0) return INFINI_STATUS_SUCCESS;
    switch (a.compute) {
        case INFINI_DTYPE_F32: return run<float>(a, ctx);
        case INFINI_DTYPE_F64: return run<double>(a, ctx);
        default: return run<int64_t>(a, ctx);
    }
}

}  // namespace infini::nvidia::families
