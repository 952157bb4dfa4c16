// sort.cu: the sort family (SORT and TOPK) on the nvidia backend. Every element gets a 64-bit key whose unsigned
// order is the sort's order (NaN above every number, -0 equal to +0, complemented for a descending sort) and its
// position in the line; pairs compare by (key, position), a total order, so every sort is stable and TOPK keeps the
// first of equal elements. A line of up to kChunk elements is sorted in shared memory by one block (a bitonic
// network); a longer line is sorted in chunks of kChunk, then merged pairwise in passes of doubling width (each
// element finds its place by a binary search in the other run) between two scratch buffers. TOPK sorts the whole
// line and keeps its first k. Values are copied from the input by position (bits kept).
#include <utility>

#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kChunk = 4096;  // elements a block sorts: 4096 * 12 bytes of shared memory, the 48 KiB default

struct SortParams {
    Geo<3> lines;  // byte offsets of the lines' first elements: in, values, indices
    int64_t nlines;
    int64_t L;        // elements a line
    int64_t k;        // elements kept a line
    int64_t step[3];  // byte strides along the sorted dim: in, values, indices
    const char *in;
    char *values;  // NULL: indices only
    char *indices;
    infiniDtype_t dtype;   // of in and values
    infiniDtype_t idtype;  // of indices
    int esize;
    int descending;
    int64_t nchunks;  // chunks a line (1: the chunk kernel writes the outputs)
    uint64_t *keys;   // scratch [nlines][L] (nchunks > 1)
    uint32_t *pos;
};

// The sort key of the element at p: unsigned order = the ascending order of the values.
__device__ __forceinline__ uint64_t keyOf(const char *p, infiniDtype_t t, bool descending) {
    uint64_t key;
    if (floatDtype(t)) {
        double v = loadAs<double>(p, t);
        if (v != v) {
            key = ~uint64_t(0);  // NaN: above every number, all NaNs equal
        } else {
            if (v == 0.0) v = 0.0;  // -0 sorts with +0
            const uint64_t bits = static_cast<uint64_t>(__double_as_longlong(v));
            key = (bits >> 63) ? ~bits : bits | (uint64_t(1) << 63);
        }
    } else {
        key = static_cast<uint64_t>(loadAs<int64_t>(p, t)) ^ (uint64_t(1) << 63);
    }
    return descending ? ~key : key;
}

__device__ __forceinline__ bool before(uint64_t ka, uint32_t pa, uint64_t kb, uint32_t pb) {
    return ka < kb || (ka == kb && pa < pb);
}

// Writes the kept elements of a sorted line: position j of the outputs gets the element at pos.
__device__ __forceinline__ void putSorted(const SortParams &p, const int64_t (&base)[3], int64_t j, uint32_t pos) {
    storeAs<int64_t>(p.indices + base[2] + j * p.step[2], p.idtype, static_cast<int64_t>(pos));
    if (p.values) copyElement(p.values + base[1] + j * p.step[1], p.in + base[0] + pos * p.step[0], p.esize);
}

// A block per (line, chunk): the chunk's keys sorted in shared memory (P a power of two, at most kChunk).
__global__ void __launch_bounds__(1024) sortChunks(SortParams p, int P) {
    opEntry();
    extern __shared__ uint64_t smem[];
    uint64_t *key = smem;
    uint32_t *pos = reinterpret_cast<uint32_t *>(smem + P);
    const int T = blockDim.x;
    const int64_t blocks = p.nlines * p.nchunks;
    for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
        const int64_t line = b / p.nchunks, chunk = b - line * p.nchunks;
        int64_t base[3];
        offsetsOf<true>(p.lines, line, base);
        const int64_t first = chunk * kChunk;
        const int64_t len = p.L - first < P ? p.L - first : P;
        for (int t = threadIdx.x; t < P; t += T) {
            if (t < len) {
                key[t] = keyOf(p.in + base[0] + (first + t) * p.step[0], p.dtype, p.descending);
                pos[t] = static_cast<uint32_t>(first + t);
            } else {
                key[t] = ~uint64_t(0);
                pos[t] = ~uint32_t(0);  // padding sorts after every element
            }
        }
        for (int size = 2; size <= P; size <<= 1) {
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                __syncthreads();
                for (int t = threadIdx.x; t < P / 2; t += T) {
                    const int i = 2 * t - (t & (stride - 1)), j = i + stride;
                    const bool up = (i & size) == 0;
                    const uint64_t ki = key[i], kj = key[j];
                    const uint32_t pi = pos[i], pj = pos[j];
                    if (before(kj, pj, ki, pi) == up) {
                        key[i] = kj;
                        key[j] = ki;
                        pos[i] = pj;
                        pos[j] = pi;
                    }
                }
            }
        }
        __syncthreads();
        if (p.nchunks == 1) {
            for (int t = threadIdx.x; t < len && t < p.k; t += T) putSorted(p, base, t, pos[t]);
        } else {
            uint64_t *kd = p.keys + line * p.L + first;
            uint32_t *pd = p.pos + line * p.L + first;
            for (int t = threadIdx.x; t < len; t += T) {
                kd[t] = key[t];
                pd[t] = pos[t];
            }
        }
        __syncthreads();  // the shared arrays are refilled for the next chunk
    }
}

// One merge pass: runs of w sorted elements (per line) merged pairwise from (ks, ps) into (kd, pd).
__global__ void __launch_bounds__(256) mergePass(const uint64_t *ks, const uint32_t *ps, uint64_t *kd, uint32_t *pd,
                                                 int64_t nlines, int64_t L, int64_t w) {
    opEntry();
    const int64_t n = nlines * L, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < n; g += stride) {
        const int64_t line = g / L, at = g - line * L, lb = line * L;
        const int64_t run = at / w, pair = (run & ~int64_t(1)) * w;
        const uint64_t key = ks[g];
        const uint32_t ps_g = ps[g];
        // the other run of the pair: [lo, hi)
        int64_t lo, hi, rank;
        if ((run & 1) == 0) {
            lo = pair + w;
            hi = pair + 2 * w < L ? pair + 2 * w : L;
            rank = at - pair;
        } else {
            lo = pair;
            hi = pair + w;
            rank = at - (pair + w);
        }
        if (lo > L) lo = L;
        // how many of the other run come before this element
        int64_t a = lo, b = hi;
        while (a < b) {
            const int64_t m = (a + b) >> 1;
            if (before(ks[lb + m], ps[lb + m], key, ps_g)) {
                a = m + 1;
            } else {
                b = m;
            }
        }
        const int64_t dst = lb + pair + rank + (a - lo);
        kd[dst] = key;
        pd[dst] = ps_g;
    }
}

// The kept elements of each sorted line (scratch, [nlines][L]) to the outputs.
__global__ void __launch_bounds__(256) writeSorted(SortParams p, const uint32_t *sorted) {
    opEntry();
    const int64_t n = p.nlines * p.k, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < n; g += stride) {
        const int64_t line = g / p.k, j = g - line * p.k;
        int64_t base[3];
        offsetsOf<true>(p.lines, line, base);
        putSorted(p, base, j, sorted[line * p.L + j]);
    }
}

const char *const kName = "sort";

}  // namespace

infiniStatus_t sort(const infiniopSortArgs_t &a, const Ctx &ctx) {
    const infiniopTensor_t &in = a.in, &vals = a.values, &idx = a.indices;
    const int dim = a.dim, nd = in.ndim;
    const int64_t L = nd > 0 ? in.shape[dim] : 1;
    const int64_t k = a.op == INFINIOP_SORT_SORT ? L : a.k;
    if (k < 0 || k > L)
        return fail(INFINI_STATUS_BAD_PARAM, "sort: k = %lld of %lld elements", (long long)k, (long long)L);
    if (!familyDtype(in.dtype)) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "sort: input dtype %d", in.dtype);
    if (idx.dtype != INFINI_DTYPE_I64 && idx.dtype != INFINI_DTYPE_I32) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "sort: indices dtype %d is not I64", idx.dtype);
    }
    const bool has_values = vals.data != nullptr;
    if (has_values && vals.dtype != in.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "sort: values dtype %d differs from the input's %d", vals.dtype,
                    in.dtype);
    }
    // the outputs: the input's shape with k along dim
    const infiniopTensor_t *outs[2] = {&idx, has_values ? &vals : nullptr};
    for (const infiniopTensor_t *t : outs) {
        if (t == nullptr) continue;
        bool same = t->ndim == nd;
        for (int d = 0; same && d < nd; ++d) same = t->shape[d] == (d == dim ? k : in.shape[d]);
        if (!same) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "sort: an output's shape does not match the input's");
    }
    if (L >= (int64_t(1) << 32)) return fail(INFINI_STATUS_NOT_IMPLEMENTED, "sort: lines of 2^32 elements or more");
    Space lines;
    lines.nops = 3;
    const infiniopTensor_t *ops3[3] = {&in, has_values ? &vals : nullptr, &idx};
    for (int d = nd - 1; d >= 0; --d) {  // the last dim fastest
        if (d == dim) continue;
        lines.shape[lines.ndim] = in.shape[d];
        for (int q = 0; q < 3; ++q) {
            lines.stride[q][lines.ndim] = ops3[q] ? ops3[q]->strides[d] * elemSize(ops3[q]->dtype) : 0;
        }
        ++lines.ndim;
    }
    SortParams p{};
    p.nlines = lines.numel();
    if (p.nlines == 0 || L == 0 || k == 0) return INFINI_STATUS_SUCCESS;
    coalesce(lines);
    p.lines = geoOf<3>(lines);
    p.L = L;
    p.k = k;
    for (int q = 0; q < 3; ++q) p.step[q] = ops3[q] && nd > 0 ? ops3[q]->strides[dim] * elemSize(ops3[q]->dtype) : 0;
    p.in = static_cast<const char *>(in.data);
    p.values = has_values ? static_cast<char *>(vals.data) : nullptr;
    p.indices = static_cast<char *>(idx.data);
    p.dtype = in.dtype;
    p.idtype = idx.dtype;
    p.esize = elemSize(in.dtype);
    p.descending = a.descending != 0;
    p.nchunks = (L + kChunk - 1) / kChunk;
    int P = 1;
    while (P < L && P < kChunk) P <<= 1;
    const int threads = P / 2 < 32 ? 32 : (P / 2 > 1024 ? 1024 : P / 2);
    const size_t smem = static_cast<size_t>(P) * (sizeof(uint64_t) + sizeof(uint32_t));
    const int64_t chunk_blocks = p.nlines * p.nchunks;
    const unsigned grid = static_cast<unsigned>(chunk_blocks < (int64_t(1) << 20) ? chunk_blocks : (int64_t(1) << 20));
    Scratch scratch(ctx.stream);
    if (p.nchunks > 1) {
        const size_t n = static_cast<size_t>(p.nlines * L);
        INFINI_RETURN_IF_ERROR(scratch.alloc(2 * n * (sizeof(uint64_t) + sizeof(uint32_t)), kName));
        p.keys = scratch.as<uint64_t>();
        p.pos = reinterpret_cast<uint32_t *>(p.keys + 2 * n);
    }
    INFINI_RETURN_IF_ERROR(
        launchStatus(launchOp(sortChunks, dim3(grid), dim3(threads), smem, ctx.stream, p, P), kName));
    if (p.nchunks == 1) return INFINI_STATUS_SUCCESS;
    const int64_t n = p.nlines * L;
    uint64_t *ka = p.keys, *kb = p.keys + n;
    uint32_t *pa = p.pos, *pb = p.pos + n;
    for (int64_t w = kChunk; w < L; w <<= 1) {
        INFINI_RETURN_IF_ERROR(launchStatus(
            launchOp(mergePass, dim3(gridFor(n, 256)), dim3(256), 0, ctx.stream, static_cast<const uint64_t *>(ka),
                     static_cast<const uint32_t *>(pa), kb, pb, p.nlines, L, w),
            kName));
        std::swap(ka, kb);
        std::swap(pa, pb);
    }
    return launchStatus(launchOp(writeSorted, dim3(gridFor(p.nlines * k, 256)), dim3(256), 0, ctx.stream, p,
                                 static_cast<const uint32_t *>(pa)),
                        kName);
}

}  // namespace infini::nvidia::families
