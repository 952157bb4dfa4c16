// index.cu: the index family on the nvidia backend (gathers and scatters through index operands). Two kernels:
// - indexRows<U>: GATHER or SCATTER between operands of one dtype whose dim 0 (after coalescing) is contiguous in
//   dst and src while every index operand is constant along it (index_select, embedding, index_copy, row
//   assignments): a group of lanes per row reads the row's indices once and moves the row in pieces of U bytes
//   (16 where every address and row offset is aligned to it).
// - indexElems<WIDE>: every op and layout, an element a thread; the scatters with reduction update dst atomically
//   (native atomics for addition in float, double, half, bfloat16, int32 and int64; a compare-and-swap loop on the
//   containing word for everything else).
// An index outside its range (after wrapping negatives, where asked) is skipped and recorded in the device's error
// record, reported at the next synchronization.
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxIdx = INFINIOP_MAX_INDICES;

struct IndexParams {
    Geo<kMaxOps> geo;  // byte offsets: dst, src, idx 0 .. nidx - 1
    char *dst;
    const char *src;
    const char *idx[kMaxIdx];
    int idx64[kMaxIdx];
    int nidx;
    int wrap;
    int op;
    infiniDtype_t ddst, dsrc;
    int esize;  // dst's element size
    int64_t isize[kMaxIdx];
    int64_t istep[kMaxIdx];  // bytes of the indexed operand per index unit
    int64_t n;
    DeviceError *err;
};

// The byte offset that the indices of one element add, or false (recorded) when one is out of range.
__device__ __forceinline__ bool indexOffset(const IndexParams &p, const char *const (&ip)[kMaxIdx], int64_t *extra,
                                            bool report) {
    int64_t off = 0;
    for (int k = 0; k < p.nidx; ++k) {
        const int64_t v = loadIndex(ip[k], p.idx64[k]);
        int64_t w = v;
        if (p.wrap && w < 0) w += p.isize[k];
        if (w < 0 || w >= p.isize[k]) {
            if (report)
                reportError(p.err, kErrFamilyIndex, kFamilyOpBase + INFINIOP_FAMILY_INDEX, 0, v, p.isize[k], k, p.wrap);
            return false;
        }
        off += w * p.istep[k];
    }
    *extra = off;
    return true;
}

// dst <- src across dtypes (the same dtype: the bits).
__device__ __forceinline__ void convertElement(char *dst, infiniDtype_t dd, const char *src, infiniDtype_t ds,
                                               int esize) {
    if (dd == ds) {
        copyElement(dst, src, esize);
    } else if (floatDtype(dd) || floatDtype(ds)) {
        storeAs<double>(dst, dd, loadAs<double>(src, ds));
    } else {
        storeAs<int64_t>(dst, dd, loadAs<int64_t>(src, ds));
    }
}

// ---- atomic updates of one dst element ----

template <class V>
__device__ __forceinline__ V reduceValues(int op, V cur, V v, bool truth) {
    switch (op) {
        case INFINIOP_INDEX_SCATTER_MUL:
            if constexpr (std::is_integral_v<V>) {
                return truth ? V(cur != 0 && v != 0)
                             : static_cast<V>(static_cast<uint64_t>(cur) * static_cast<uint64_t>(v));
            } else {
                return cur * v;
            }
        case INFINIOP_INDEX_SCATTER_AMAX:
        case INFINIOP_INDEX_SCATTER_AMIN: {  // a NaN on either side wins (as torch's scatter_reduce)
            if constexpr (!std::is_integral_v<V>) {
                if (v != v) return v;
                if (cur != cur) return cur;
            }
            const bool mx = op == INFINIOP_INDEX_SCATTER_AMAX;
            return (mx ? v > cur : v < cur) ? v : cur;
        }
        default:  // SCATTER_ADD (bool: or)
            if constexpr (std::is_integral_v<V>) {
                return truth ? V(cur != 0 || v != 0)
                             : static_cast<V>(static_cast<uint64_t>(cur) + static_cast<uint64_t>(v));
            } else {
                return cur + v;
            }
    }
}

// The element of dtype t held in the low bits of `bits`, updated by the op with v, as bits again.
__device__ __forceinline__ uint64_t updateBits(uint64_t bits, infiniDtype_t t, int op, const char *src) {
    union {
        uint64_t u;
        char c[8];
    } cur;
    cur.u = bits;  // (little-endian: the element's bytes come first)
    if (floatDtype(t)) {
        const double r = reduceValues<double>(op, loadAs<double>(cur.c, t), loadAs<double>(src, t), false);
        storeAs<double>(cur.c, t, r);
    } else {
        const int64_t r =
            reduceValues<int64_t>(op, loadAs<int64_t>(cur.c, t), loadAs<int64_t>(src, t), t == INFINI_DTYPE_BOOL);
        storeAs<int64_t>(cur.c, t, r);
    }
    return cur.u;
}

// dst (an element of dtype t, esize bytes) <- op(dst, *src), atomically.
__device__ __forceinline__ void atomicUpdate(char *dst, infiniDtype_t t, int esize, int op, const char *src) {
    if (op == INFINIOP_INDEX_SCATTER_ADD) {
        switch (t) {
            case INFINI_DTYPE_F32:
                atomicAdd(reinterpret_cast<float *>(dst), *reinterpret_cast<const float *>(src));
                return;
            case INFINI_DTYPE_F64:
                atomicAdd(reinterpret_cast<double *>(dst), *reinterpret_cast<const double *>(src));
                return;
            case INFINI_DTYPE_F16:
                atomicAdd(reinterpret_cast<__half *>(dst), *reinterpret_cast<const __half *>(src));
                return;
            case INFINI_DTYPE_BF16:
                atomicAdd(reinterpret_cast<__nv_bfloat16 *>(dst), *reinterpret_cast<const __nv_bfloat16 *>(src));
                return;
            case INFINI_DTYPE_I32: atomicAdd(reinterpret_cast<int *>(dst), *reinterpret_cast<const int *>(src)); return;
            case INFINI_DTYPE_I64:
                atomicAdd(reinterpret_cast<unsigned long long *>(dst),
                          *reinterpret_cast<const unsigned long long *>(src));
                return;
            default: break;
        }
    }
    if (esize == 8) {
        auto *w = reinterpret_cast<unsigned long long *>(dst);
        unsigned long long old = *w, seen;
        do {
            seen = old;
            old = atomicCAS(w, seen, static_cast<unsigned long long>(updateBits(seen, t, op, src)));
        } while (old != seen);
        return;
    }
    // 1, 2 or 4 bytes: the aligned 32-bit word holding the element
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
    auto *w = reinterpret_cast<unsigned int *>(a & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(a & 3) * 8;
    const unsigned mask = (esize == 4 ? 0xffffffffu : ((1u << (esize * 8)) - 1u)) << shift;
    unsigned old = *w, seen;
    do {
        seen = old;
        const uint64_t cur = (seen & mask) >> shift;
        const unsigned next = static_cast<unsigned>(updateBits(cur, t, op, src)) << shift;
        old = atomicCAS(w, seen, (seen & ~mask) | (next & mask));
    } while (old != seen);
}

template <bool WIDE>
__global__ void __launch_bounds__(kThreads) indexElems(IndexParams p) {
    opEntry();
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step) {
        Off<WIDE> off[kMaxOps];
        offsetsOf<WIDE>(p.geo, i, off);
        const char *ip[kMaxIdx];
#pragma unroll
        for (int k = 0; k < kMaxIdx; ++k) ip[k] = k < p.nidx ? p.idx[k] + off[2 + k] : nullptr;
        int64_t extra;
        if (!indexOffset(p, ip, &extra, true)) continue;
        char *d = p.dst + off[0];
        const char *s = p.src + off[1];
        switch (p.op) {
            case INFINIOP_INDEX_GATHER: convertElement(d, p.ddst, s + extra, p.dsrc, p.esize); break;
            case INFINIOP_INDEX_SCATTER: convertElement(d + extra, p.ddst, s, p.dsrc, p.esize); break;
            default: atomicUpdate(d + extra, p.ddst, p.esize, p.op, s); break;
        }
    }
}

// ---- rows ----

struct RowsParams {
    Geo<kMaxOps> geo;  // the outer dims: dst, src, idx 0 .. nidx - 1 (bytes)
    IndexParams ip;    // (its geo unused)
    int64_t rows;
    int64_t units;  // pieces a row
    int group;      // lanes a row: a power of two from 32 to kThreads
    int scatter;    // the indices address dst (else src)
};

template <class U>
__global__ void __launch_bounds__(kThreads) indexRows(RowsParams p) {
    opEntry();
    const int per_block = kThreads / p.group;
    const int lane = threadIdx.x % p.group;
    const int64_t step = static_cast<int64_t>(gridDim.x) * per_block;
    for (int64_t row = static_cast<int64_t>(blockIdx.x) * per_block + threadIdx.x / p.group; row < p.rows;
         row += step) {
        int64_t off[kMaxOps];
        offsetsOf<true>(p.geo, row, off);
        const char *ip[kMaxIdx];
#pragma unroll
        for (int k = 0; k < kMaxIdx; ++k) ip[k] = k < p.ip.nidx ? p.ip.idx[k] + off[2 + k] : nullptr;
        int64_t extra;
        if (!indexOffset(p.ip, ip, &extra, lane == 0)) continue;
        U *d = reinterpret_cast<U *>(p.ip.dst + off[0] + (p.scatter ? extra : 0));
        const U *s = reinterpret_cast<const U *>(p.ip.src + off[1] + (p.scatter ? 0 : extra));
        constexpr int kIn = 4;  // pieces a lane loads before it stores any (several loads in flight)
        for (int64_t j0 = lane; j0 < p.units; j0 += kIn * p.group) {
            U piece[kIn];
#pragma unroll
            for (int q = 0; q < kIn; ++q) {
                const int64_t j = j0 + q * p.group;
                if (j < p.units) piece[q] = s[j];
            }
#pragma unroll
            for (int q = 0; q < kIn; ++q) {
                const int64_t j = j0 + q * p.group;
                if (j < p.units) d[j] = piece[q];
            }
        }
    }
}

// The common case of the rows kernel: one index operand and one outer dim (index_select and embedding of
// contiguous rows, row assignments). Lean on registers, so that many blocks stay resident: blockIdx.y and threadIdx.y
// walk the rows, the x's two pieces of a row each. (At most 40 registers: six blocks an SM.)
struct Rows1Params {
    char *dst;
    const char *src;
    const char *idx;
    int idx64;
    int wrap;
    int scatter;  // the index addresses dst (else src)
    int64_t rows, units;
    int64_t dst_step, src_step, idx_step;  // bytes a row
    int64_t isize, istep;                  // the indexed dim's size, and its bytes per index unit
    DeviceError *err;
};

template <class U>
__global__ void __launch_bounds__(kThreads, 6) indexRows1(Rows1Params p) {
    opEntry();
    const int64_t lanes = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t row_step = static_cast<int64_t>(gridDim.y) * blockDim.y;
    for (int64_t row = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; row < p.rows; row += row_step) {
        const int64_t v = loadIndex(p.idx + row * p.idx_step, p.idx64);
        int64_t w = v;
        if (p.wrap && w < 0) w += p.isize;
        if (w < 0 || w >= p.isize) {
            if (first == 0)
                reportError(p.err, kErrFamilyIndex, kFamilyOpBase + INFINIOP_FAMILY_INDEX, 0, v, p.isize, 0, p.wrap);
            continue;
        }
        const U *s = reinterpret_cast<const U *>(p.src + row * p.src_step + (p.scatter ? 0 : w * p.istep));
        U *d = reinterpret_cast<U *>(p.dst + row * p.dst_step + (p.scatter ? w * p.istep : 0));
        for (int64_t j = first; j < p.units; j += 2 * lanes) {
            const int64_t j2 = j + lanes;
            const U a = s[j];
            U b;
            if (j2 < p.units) b = s[j2];
            d[j] = a;
            if (j2 < p.units) d[j2] = b;
        }
    }
}

template <class U>
cudaError_t launchRows1(Rows1Params &p, cudaStream_t stream) {
    int64_t bx = ((p.units + 1) / 2 + 31) / 32 * 32;  // two pieces a lane
    if (bx > kThreads) bx = kThreads;
    const int64_t by = kThreads / bx;
    int64_t gx = (p.units + 2 * bx - 1) / (2 * bx);
    int64_t gy = (p.rows + by - 1) / by;
    if (gy > 65535) gy = 65535;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy < 1 ? 1 : gy));
    return launchOp(indexRows1<U>, grid, dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)), 0, stream, p);
}

const char *const kName = "index";

bool alignedTo(int64_t v, int64_t u) { return v % u == 0; }

// The rows kernel, where the layout allows (false: not taken, nothing launched).
bool tryRows(const infiniopIndexArgs_t &a, const Space &sp, const IndexParams &ip, const Ctx &ctx,
             infiniStatus_t *status) {
    if (a.op != INFINIOP_INDEX_GATHER && a.op != INFINIOP_INDEX_SCATTER) return false;
    if (ip.ddst != ip.dsrc || sp.ndim < 1) return false;
    const int64_t e = ip.esize;
    if (sp.stride[0][0] != e || sp.stride[1][0] != e) return false;
    for (int k = 0; k < ip.nidx; ++k) {
        if (sp.stride[2 + k][0] != 0) return false;
    }
    const int64_t row_bytes = sp.shape[0] * e;
    // the widest piece every address, row offset and index offset is a multiple of
    int64_t u = 16;
    while (u > e) {
        bool ok = alignedTo(reinterpret_cast<uintptr_t>(ip.dst), u) &&
                  alignedTo(reinterpret_cast<uintptr_t>(ip.src), u) && alignedTo(row_bytes, u);
        for (int d = 1; ok && d < sp.ndim; ++d) ok = alignedTo(sp.stride[0][d], u) && alignedTo(sp.stride[1][d], u);
        for (int k = 0; ok && k < ip.nidx; ++k) ok = alignedTo(ip.istep[k], u);
        if (ok) break;
        u >>= 1;
    }
    if (ip.nidx == 1 && sp.ndim <= 2) {
        Rows1Params q{};
        q.dst = ip.dst;
        q.src = ip.src;
        q.idx = ip.idx[0];
        q.idx64 = ip.idx64[0];
        q.wrap = ip.wrap;
        q.scatter = a.op == INFINIOP_INDEX_SCATTER;
        q.rows = sp.ndim == 2 ? sp.shape[1] : 1;
        q.units = row_bytes / u;
        q.dst_step = sp.ndim == 2 ? sp.stride[0][1] : 0;
        q.src_step = sp.ndim == 2 ? sp.stride[1][1] : 0;
        q.idx_step = sp.ndim == 2 ? sp.stride[2][1] : 0;
        q.isize = ip.isize[0];
        q.istep = ip.istep[0];
        q.err = ip.err;
        cudaError_t err;
        switch (u) {
            case 16: err = launchRows1<uint4>(q, ctx.stream); break;
            case 8: err = launchRows1<uint2>(q, ctx.stream); break;
            case 4: err = launchRows1<uint32_t>(q, ctx.stream); break;
            case 2: err = launchRows1<uint16_t>(q, ctx.stream); break;
            default: err = launchRows1<uint8_t>(q, ctx.stream); break;
        }
        *status = launchStatus(err, kName);
        return true;
    }
    Space outer;
    outer.nops = sp.nops;
    for (int d = 1; d < sp.ndim; ++d) {
        outer.shape[outer.ndim] = sp.shape[d];
        for (int k = 0; k < sp.nops; ++k) outer.stride[k][outer.ndim] = sp.stride[k][d];
        ++outer.ndim;
    }
    RowsParams p{};
    p.geo = geoOf<kMaxOps>(outer);
    p.ip = ip;
    p.rows = outer.numel();
    p.units = row_bytes / u;
    // lanes a row: 32 .. kThreads (a power of two), about four pieces each (several loads in flight)
    p.group = kThreads;
    while (p.group > 32 && p.group * 4 > p.units) p.group >>= 1;
    p.scatter = a.op == INFINIOP_INDEX_SCATTER;
    const int64_t per_block = kThreads / p.group;
    int64_t blocks = (p.rows + per_block - 1) / per_block;
    const int64_t cap = int64_t(1) << 20;
    if (blocks > cap) blocks = cap;
    const dim3 grid(static_cast<unsigned>(blocks < 1 ? 1 : blocks));
    cudaError_t err;
    switch (u) {
        case 16: err = launchOp(indexRows<uint4>, grid, dim3(kThreads), 0, ctx.stream, p); break;
        case 8: err = launchOp(indexRows<uint2>, grid, dim3(kThreads), 0, ctx.stream, p); break;
        case 4: err = launchOp(indexRows<uint32_t>, grid, dim3(kThreads), 0, ctx.stream, p); break;
        case 2: err = launchOp(indexRows<uint16_t>, grid, dim3(kThreads), 0, ctx.stream, p); break;
        default: err = launchOp(indexRows<uint8_t>, grid, dim3(kThreads), 0, ctx.stream, p); break;
    }
    *status = launchStatus(err, kName);
    return true;
}

}  // namespace

infiniStatus_t index(const infiniopIndexArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    INFINI_RETURN_IF_ERROR(checkDtypes(kName, it));
    const bool cast_ok = a.op == INFINIOP_INDEX_GATHER || a.op == INFINIOP_INDEX_SCATTER;
    if (!cast_ok && it.dtype[0] != it.dtype[1]) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "index op %d: dst and src dtypes differ (%d, %d)", a.op,
                    it.dtype[0], it.dtype[1]);
    }
    if (it.data[0] == nullptr || it.data[1] == nullptr) {
        for (int d = 0; d < it.ndim; ++d) {
            if (it.shape[d] == 0) return INFINI_STATUS_SUCCESS;
        }
        return fail(INFINI_STATUS_NULL_POINTER, "index: dst or src is NULL");
    }
    for (int k = 0; k < a.nindices; ++k) {
        if (a.index_size[k] < 0) return fail(INFINI_STATUS_BAD_PARAM, "index: index_size[%d] is negative", k);
    }
    Space sp = spaceOf(it);
    if (sp.numel() == 0) return INFINI_STATUS_SUCCESS;
    coalesce(sp);
    IndexParams p{};
    p.dst = static_cast<char *>(it.data[0]);
    p.src = static_cast<const char *>(it.data[1]);
    p.nidx = a.nindices;
    p.wrap = a.wrap_negative != 0;
    p.op = a.op;
    p.ddst = it.dtype[0];
    p.dsrc = it.dtype[1];
    p.esize = elemSize(it.dtype[0]);
    // the indices offset src for GATHER, dst for the scatters
    const int64_t indexed = elemSize(a.op == INFINIOP_INDEX_GATHER ? it.dtype[1] : it.dtype[0]);
    for (int k = 0; k < a.nindices; ++k) {
        p.idx[k] = static_cast<const char *>(it.data[2 + k]);
        p.idx64[k] = it.dtype[2 + k] == INFINI_DTYPE_I64;
        p.isize[k] = a.index_size[k];
        p.istep[k] = a.index_stride[k] * indexed;
    }
    p.n = sp.numel();
    p.err = ctx.err;
    infiniStatus_t status;
    if (tryRows(a, sp, p, ctx, &status)) return status;
    p.geo = geoOf<kMaxOps>(sp);
    const bool small = fits32(sp);  // (the indices' part of an offset is always 64-bit)
    const unsigned grid = gridFor(p.n, kThreads);
    const cudaError_t err = small ? launchOp(indexElems<false>, dim3(grid), dim3(kThreads), 0, ctx.stream, p)
                                  : launchOp(indexElems<true>, dim3(grid), dim3(kThreads), 0, ctx.stream, p);
    return launchStatus(err, kName);
}

}  // namespace infini::nvidia::families
