// nonzero.cu: the nonzero family on the nvidia backend, in three kernels without a host synchronization: each block
// counts the nonzero elements of its tile of kTile elements (row-major order), one block turns the counts into the
// tiles' first output rows (an exclusive scan), and each tile writes the coordinates of its nonzero elements at its
// row plus their rank in the tile. Rows past the caller's `count` are not written.
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kThreads = 256;
constexpr int kPer = 8;  // consecutive elements a thread
constexpr int64_t kTile = int64_t(kThreads) * kPer;

struct NzParams {
    const char *in;
    infiniDtype_t dtype;
    int ndim;
    int64_t shape[kMaxDims];
    int64_t stride[kMaxDims];  // bytes
    int64_t n;
    int64_t *out;
    int64_t count;
    int64_t *tile_counts;  // [tiles]
    int64_t *tile_first;   // [tiles]
    int64_t tiles;
};

// Whether element e (row-major) is nonzero; its coordinates in c.
__device__ __forceinline__ bool nonzeroAt(const NzParams &p, int64_t e, int64_t (&c)[kMaxDims]) {
    int64_t off = 0;
    for (int d = p.ndim - 1; d >= 0; --d) {
        long long r = e;
        if (d > 0) e = ops::divMod(e, p.shape[d], &r);
        c[d] = r;
        off += r * p.stride[d];
    }
    const char *q = p.in + off;
    return floatDtype(p.dtype) ? loadAs<double>(q, p.dtype) != 0.0 : loadAs<int64_t>(q, p.dtype) != 0;
}

// The exclusive prefix of v over the block (kThreads threads), and the block's total.
__device__ __forceinline__ int64_t blockExclusive(int64_t v, int64_t *total) {
    __shared__ int64_t warps[kThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t x = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int64_t o = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += o;
    }
    if (lane == 31) warps[warp] = x;
    __syncthreads();
    int64_t before = 0, sum = 0;
    for (int w = 0; w < kThreads / 32; ++w) {
        if (w < warp) before += warps[w];
        sum += warps[w];
    }
    __syncthreads();  // warps[] may be written again by the caller's next call
    *total = sum;
    return before + x - v;
}

__global__ void __launch_bounds__(kThreads) countTiles(NzParams p) {
    opEntry();
    for (int64_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        const int64_t first = tile * kTile + threadIdx.x * kPer;
        int64_t mine = 0;
        int64_t c[kMaxDims];
        for (int j = 0; j < kPer; ++j) {
            if (first + j < p.n && nonzeroAt(p, first + j, c)) ++mine;
        }
        int64_t total;
        blockExclusive(mine, &total);
        if (threadIdx.x == 0) p.tile_counts[tile] = total;
    }
}

// One block: tile_first = the exclusive scan of tile_counts.
__global__ void __launch_bounds__(kThreads) scanTiles(NzParams p) {
    opEntry();
    int64_t carry = 0;
    for (int64_t base = 0; base < p.tiles; base += kThreads) {
        const int64_t t = base + threadIdx.x;
        const int64_t v = t < p.tiles ? p.tile_counts[t] : 0;
        int64_t total;
        const int64_t ex = blockExclusive(v, &total);
        if (t < p.tiles) p.tile_first[t] = carry + ex;
        carry += total;
    }
}

__global__ void __launch_bounds__(kThreads) writeTiles(NzParams p) {
    opEntry();
    for (int64_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
        const int64_t first = tile * kTile + threadIdx.x * kPer;
        int64_t mine = 0;
        int64_t c[kMaxDims];
        for (int j = 0; j < kPer; ++j) {
            if (first + j < p.n && nonzeroAt(p, first + j, c)) ++mine;
        }
        int64_t total;
        int64_t row = p.tile_first[tile] + blockExclusive(mine, &total);
        for (int j = 0; j < kPer && mine > 0; ++j) {
            if (first + j < p.n && nonzeroAt(p, first + j, c)) {
                if (row < p.count) {
                    for (int d = 0; d < p.ndim; ++d) p.out[row * p.ndim + d] = c[d];
                }
                ++row;
                --mine;
            }
        }
    }
}

const char *const kName = "nonzero";

}  // namespace

infiniStatus_t nonzero(const infiniopNonzeroArgs_t &a, const Ctx &ctx) {
    const infiniopTensor_t &in = a.in;
    if (!familyDtype(in.dtype)) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "nonzero: input dtype %d", in.dtype);
    NzParams p{};
    p.in = static_cast<const char *>(in.data);
    p.dtype = in.dtype;
    p.ndim = in.ndim;
    p.n = 1;
    for (int d = 0; d < in.ndim; ++d) {
        p.shape[d] = in.shape[d];
        p.stride[d] = in.strides[d] * elemSize(in.dtype);
        p.n *= in.shape[d];
    }
    if (p.n == 0 || a.count == 0 || in.ndim == 0) return INFINI_STATUS_SUCCESS;  // (0-d: rows of no columns)
    p.out = a.out;
    p.count = a.count;
    p.tiles = (p.n + kTile - 1) / kTile;
    Scratch scratch(ctx.stream);
    INFINI_RETURN_IF_ERROR(scratch.alloc(2 * sizeof(int64_t) * static_cast<size_t>(p.tiles), kName));
    p.tile_counts = scratch.as<int64_t>();
    p.tile_first = p.tile_counts + p.tiles;
    const unsigned grid = static_cast<unsigned>(p.tiles < (int64_t(1) << 20) ? p.tiles : (int64_t(1) << 20));
    INFINI_RETURN_IF_ERROR(launchStatus(launchOp(countTiles, dim3(grid), dim3(kThreads), 0, ctx.stream, p), kName));
    INFINI_RETURN_IF_ERROR(launchStatus(launchOp(scanTiles, dim3(1), dim3(kThreads), 0, ctx.stream, p), kName));
    return launchStatus(launchOp(writeTiles, dim3(grid), dim3(kThreads), 0, ctx.stream, p), kName);
}

}  // namespace infini::nvidia::families
