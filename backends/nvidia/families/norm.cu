// families/norm.cu: the norm family: layer_norm and rms_norm over the last `cols` elements of contiguous rows, and
// their backwards (families.h). Kernels:
// - normFwd / normBwd (typed: x's dtype T and the weights' W in {(f32, f32), (f16, f16), (bf16, bf16), (f16, f32),
//   (bf16, f32)}, every operand on 16 bytes, cols a multiple of x's 16-byte piece): a block a row (grid-stride),
//   the row held in registers as floats where the block holds it, else read again each pass. The backward's
//   held form also adds its rows' dw / db terms into per-block F32 partials (a thread owns fixed columns), so that
//   dy and x are read once; normFinish sums the partials over the blocks into dw / db.
// - normAnyFwd / normAnyBwd: any float dtypes and alignment, an element at a time, in float (double for F64);
//   normColParts then makes the backward's dw / db partials by columns (thread a column, rows split over blocks).
// Statistics in float (double for F64): layer_norm's mean, then its biased variance from the held values
// (two passes where not held), rstd = 1 / sqrt(var + eps); rms_norm's rstd = 1 / sqrt(mean(x^2) + eps). mean and
// rstd are stored F32 (F64 for F64 rows); rows of no columns have NaN statistics (0 / 0).
// Backward, with g = dy * w (dy without weights) and xhat = (x - mean) * rstd (rms_norm: x * rstd):
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))   (rms_norm: without mean(g)),
//   dw = sum over rows of dy * xhat, db = sum over rows of dy.
#include <algorithm>

#include "elems.cuh"

namespace infini::nvidia::families {
namespace {

constexpr int kVecs = 4;  // 16-byte pieces of x a thread holds

struct NormParams {
    int op;
    long long rows, cols;
    double eps;  // (as float for float math, as torch's kernels take it)
    bool has_w, has_b;
    bool want_dw, want_db;  // (backward)
    bool stat64;            // mean / rstd are F64 (F64 rows), else F32
};

// Row r's mean / rstd as A, and their stores, in the statistics' dtype.
template <typename A>
__device__ __forceinline__ A loadStat(const NormParams &p, const void *s, long long r) {
    return p.stat64 ? static_cast<A>(static_cast<const double *>(s)[r])
                    : static_cast<A>(static_cast<const float *>(s)[r]);
}
template <typename A>
__device__ __forceinline__ void storeStat(const NormParams &p, void *s, long long r, A v) {
    if (p.stat64)
        static_cast<double *>(s)[r] = static_cast<double>(v);
    else
        static_cast<float *>(s)[r] = static_cast<float>(v);
}

__device__ __forceinline__ bool isLayer(int op) {
    return op == INFINIOP_NORM_LAYER_NORM || op == INFINIOP_NORM_LAYER_NORM_BWD;
}

// ---- forward, typed. N = 16 / sizeof(T) elements a piece; CACHED: the host checked nv <= kVecs * blockDim.x.
template <typename T, typename W, bool CACHED>
__global__ void normFwd(NormParams p, T *y, float *mean, float *rstd, const T *x, const W *w, const W *b) {
    constexpr int N = 16 / sizeof(T), P = kVecs;
    __shared__ float smem[32];
    const bool layer = isLayer(p.op);
    const long long nv = p.cols / N, bd = blockDim.x, t = threadIdx.x;
    const float inv_n = 1.0f / static_cast<float>(p.cols);
    for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const T *xr = x + row * p.cols;
        T *yr = y + row * p.cols;
        float xs[P][N];
        float mu = 0.0f, r;
        if constexpr (CACHED) {
            float s = 0.0f;
#pragma unroll
            for (int i = 0; i < P; ++i) {
                if (t + i * bd < nv) {
                    loadN<T, N>(xr + (t + i * bd) * N, xs[i]);
#pragma unroll
                    for (int e = 0; e < N; ++e) s += layer ? xs[i][e] : xs[i][e] * xs[i][e];
                }
            }
            s = blockSumA(s, smem);
            if (layer) {
                mu = s * inv_n;
                float s2 = 0.0f;
#pragma unroll
                for (int i = 0; i < P; ++i) {
                    if (t + i * bd < nv) {
#pragma unroll
                        for (int e = 0; e < N; ++e) s2 += (xs[i][e] - mu) * (xs[i][e] - mu);
                    }
                }
                r = 1.0f / sqrtf(blockSumA(s2, smem) * inv_n + static_cast<float>(p.eps));
            } else {
                r = 1.0f / sqrtf(s * inv_n + static_cast<float>(p.eps));
            }
        } else {
            float s = 0.0f;
            for (long long v = t; v < nv; v += bd) {
                float f[N];
                loadN<T, N>(xr + v * N, f);
#pragma unroll
                for (int e = 0; e < N; ++e) s += layer ? f[e] : f[e] * f[e];
            }
            s = blockSumA(s, smem);
            if (layer) {
                mu = s * inv_n;
                float s2 = 0.0f;
                for (long long v = t; v < nv; v += bd) {
                    float f[N];
                    loadN<T, N>(xr + v * N, f);
#pragma unroll
                    for (int e = 0; e < N; ++e) s2 += (f[e] - mu) * (f[e] - mu);
                }
                r = 1.0f / sqrtf(blockSumA(s2, smem) * inv_n + static_cast<float>(p.eps));
            } else {
                r = 1.0f / sqrtf(s * inv_n + static_cast<float>(p.eps));
            }
        }
        if (t == 0) {
            if (mean != nullptr && layer) mean[row] = mu;
            if (rstd != nullptr) rstd[row] = r;
        }
        auto write = [&](long long v, const float (&f)[N]) {
            float wv[N], bv[N], o[N];
            if (p.has_w) loadN<W, N>(w + v * N, wv);
            if (p.has_b) loadN<W, N>(b + v * N, bv);
#pragma unroll
            for (int e = 0; e < N; ++e) {
                float z = (f[e] - mu) * r;
                if (p.has_w) z *= wv[e];
                if (p.has_b) z += bv[e];
                o[e] = z;
            }
            storeN<T, N>(yr + v * N, o);
        };
        if constexpr (CACHED) {
#pragma unroll
            for (int i = 0; i < P; ++i) {
                if (t + i * bd < nv) write(t + i * bd, xs[i]);
            }
        } else {
            for (long long v = t; v < nv; v += bd) {
                float f[N];
                loadN<T, N>(xr + v * N, f);
                write(v, f);
            }
        }
    }
}

// ---- backward, typed. dx may be NULL; part (CACHED only, may be NULL): [2][gridDim.x][cols] F32 partials of
// dw (first) and db, this block's rows' sums (the halves asked for: want_dw, want_db; every column written).
template <typename T, typename W, bool CACHED>
__global__ void normBwd(NormParams p, T *dx, float *part, const T *dy, const T *x, const float *mean, const float *rstd,
                        const W *w) {
    constexpr int N = 16 / sizeof(T), P = kVecs;
    __shared__ float smem[32];
    const bool layer = isLayer(p.op);
    const long long nv = p.cols / N, bd = blockDim.x, t = threadIdx.x;
    const float inv_n = 1.0f / static_cast<float>(p.cols);
    float pw[P][N], pb[P][N];  // (CACHED with part: this thread's columns' partials)
    if constexpr (CACHED) {
#pragma unroll
        for (int i = 0; i < P; ++i) {
#pragma unroll
            for (int e = 0; e < N; ++e) pw[i][e] = pb[i][e] = 0.0f;
        }
    }
    for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const T *xr = x + row * p.cols, *dyr = dy + row * p.cols;
        const float mu = layer ? mean[row] : 0.0f, r = rstd[row];
        // the row's sums of g and g * xhat
        float sg = 0.0f, sgx = 0.0f;
        auto terms = [&](long long v, const float (&xf)[N], const float (&dyf)[N], float (&g)[N], float (&xh)[N]) {
            float wv[N];
            if (p.has_w) loadN<W, N>(w + v * N, wv);
#pragma unroll
            for (int e = 0; e < N; ++e) {
                xh[e] = (xf[e] - mu) * r;
                g[e] = p.has_w ? dyf[e] * wv[e] : dyf[e];
            }
        };
        float xs[P][N], dys[P][N];
        if constexpr (CACHED) {
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long v = t + i * bd;
                if (v < nv) {
                    loadN<T, N>(xr + v * N, xs[i]);
                    loadN<T, N>(dyr + v * N, dys[i]);
                }
            }
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long v = t + i * bd;
                if (v < nv) {
                    float g[N], xh[N];
                    terms(v, xs[i], dys[i], g, xh);
#pragma unroll
                    for (int e = 0; e < N; ++e) {
                        sg += g[e];
                        sgx += g[e] * xh[e];
                        pw[i][e] += dys[i][e] * xh[e];
                        pb[i][e] += dys[i][e];
                    }
                }
            }
        } else {
            for (long long v = t; v < nv; v += bd) {
                float xf[N], dyf[N], g[N], xh[N];
                loadN<T, N>(xr + v * N, xf);
                loadN<T, N>(dyr + v * N, dyf);
                terms(v, xf, dyf, g, xh);
#pragma unroll
                for (int e = 0; e < N; ++e) {
                    sg += g[e];
                    sgx += g[e] * xh[e];
                }
            }
        }
        if (dx == nullptr) continue;  // (block-uniform: only the partials were wanted)
        const float c1 = blockSumA(sgx, smem) * inv_n;
        const float c2 = layer ? blockSumA(sg, smem) * inv_n : 0.0f;
        T *dxr = dx + row * p.cols;
        auto write = [&](long long v, const float (&xf)[N], const float (&dyf)[N]) {
            float g[N], xh[N], o[N];
            terms(v, xf, dyf, g, xh);
#pragma unroll
            for (int e = 0; e < N; ++e) o[e] = r * (g[e] - c2 - xh[e] * c1);
            storeN<T, N>(dxr + v * N, o);
        };
        if constexpr (CACHED) {
#pragma unroll
            for (int i = 0; i < P; ++i) {
                if (t + i * bd < nv) write(t + i * bd, xs[i], dys[i]);
            }
        } else {
            for (long long v = t; v < nv; v += bd) {
                float xf[N], dyf[N];
                loadN<T, N>(xr + v * N, xf);
                loadN<T, N>(dyr + v * N, dyf);
                write(v, xf, dyf);
            }
        }
    }
    if constexpr (CACHED) {
        if (part != nullptr) {
            float *pwr = part + static_cast<long long>(blockIdx.x) * p.cols;
            float *pbr = part + (static_cast<long long>(gridDim.x) + blockIdx.x) * p.cols;
#pragma unroll
            for (int i = 0; i < P; ++i) {
                const long long v = t + i * bd;
                if (v < nv) {
#pragma unroll
                    for (int e = 0; e < N; ++e) {
                        if (p.want_dw) pwr[v * N + e] = pw[i][e];
                        if (p.want_db) pbr[v * N + e] = pb[i][e];
                    }
                }
            }
        }
    }
}

// ---- any dtypes and alignment: a block a row (grid-stride), an element at a time, in A.
template <typename A>
__global__ void __launch_bounds__(256) normAnyFwd(NormParams p, void *y, infiniDtype_t dt, void *mean, void *rstd,
                                                  const void *x, const void *w, const void *b, infiniDtype_t wt) {
    __shared__ A smem[32];
    const bool layer = isLayer(p.op);
    const A n = static_cast<A>(p.cols);
    for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const long long base = row * p.cols;
        A s = A(0);
        for (long long j = threadIdx.x; j < p.cols; j += blockDim.x) {
            const A v = ldAs<A>(x, dt, base + j);
            s += layer ? v : v * v;
        }
        s = blockSumA(s, smem);
        A mu = A(0), r;
        if (layer) {
            mu = s / n;
            A s2 = A(0);
            for (long long j = threadIdx.x; j < p.cols; j += blockDim.x) {
                const A v = ldAs<A>(x, dt, base + j) - mu;
                s2 += v * v;
            }
            r = A(1) / sqrt(blockSumA(s2, smem) / n + static_cast<A>(p.eps));
        } else {
            r = A(1) / sqrt(s / n + static_cast<A>(p.eps));
        }
        if (p.cols == 0) mu = r = A(NAN);  // (statistics of no values: 0 / 0)
        if (threadIdx.x == 0) {
            if (mean != nullptr && layer) storeStat(p, mean, row, mu);
            if (rstd != nullptr) storeStat(p, rstd, row, r);
        }
        for (long long j = threadIdx.x; j < p.cols; j += blockDim.x) {
            A z = (ldAs<A>(x, dt, base + j) - mu) * r;
            if (p.has_w) z *= ldAs<A>(w, wt, j);
            if (p.has_b) z += ldAs<A>(b, wt, j);
            stAs<A>(y, dt, base + j, z);
        }
    }
}

template <typename A>
__global__ void __launch_bounds__(256)
    normAnyBwd(NormParams p, void *dx, infiniDtype_t dt, const void *dy, const void *x, const void *mean,
               const void *rstd, const void *w, infiniDtype_t wt) {
    __shared__ A smem[32];
    const bool layer = isLayer(p.op);
    const A n = static_cast<A>(p.cols);
    for (long long row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const long long base = row * p.cols;
        const A mu = layer ? loadStat<A>(p, mean, row) : A(0), r = loadStat<A>(p, rstd, row);
        A sg = A(0), sgx = A(0);
        for (long long j = threadIdx.x; j < p.cols; j += blockDim.x) {
            const A xh = (ldAs<A>(x, dt, base + j) - mu) * r;
            A g = ldAs<A>(dy, dt, base + j);
            if (p.has_w) g *= ldAs<A>(w, wt, j);
            sg += g;
            sgx += g * xh;
        }
        const A c1 = blockSumA(sgx, smem) / n;
        const A c2 = layer ? blockSumA(sg, smem) / n : A(0);
        for (long long j = threadIdx.x; j < p.cols; j += blockDim.x) {
            const A xh = (ldAs<A>(x, dt, base + j) - mu) * r;
            A g = ldAs<A>(dy, dt, base + j);
            if (p.has_w) g *= ldAs<A>(w, wt, j);
            stAs<A>(dx, dt, base + j, r * (g - c2 - xh * c1));
        }
    }
}

// dw / db partials by columns: part[k][c] (k < gridDim.y) = sum over rows r = k, k + gridDim.y, ... of dy * xhat
// (first half) and of dy (second half); grid-stride over columns along x.
template <typename A>
__global__ void __launch_bounds__(256) normColParts(NormParams p, A *part, const void *dy, const void *x,
                                                    infiniDtype_t dt, const void *mean, const void *rstd) {
    const bool layer = isLayer(p.op);
    const long long G = gridDim.y, k = blockIdx.y;
    for (long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; c < p.cols;
         c += static_cast<long long>(gridDim.x) * blockDim.x) {
        A sw = A(0), sb = A(0);
        for (long long row = k; row < p.rows; row += G) {
            const A d = ldAs<A>(dy, dt, row * p.cols + c);
            const A xh = (ldAs<A>(x, dt, row * p.cols + c) - (layer ? loadStat<A>(p, mean, row) : A(0))) *
                         loadStat<A>(p, rstd, row);
            sw += d * xh;
            sb += d;
        }
        part[k * p.cols + c] = sw;
        part[(G + k) * p.cols + c] = sb;
    }
}

// dw[c] / db[c] (either may be NULL) = the sum of the G partials of column c. Block (32, 8): 32 columns (grid-stride),
// the partials split over the 8 threads of a column, combined in a fixed order.
template <typename A>
__global__ void __launch_bounds__(256)
    normFinish(long long cols, long long G, const A *part, void *dw, void *db, infiniDtype_t wt) {
    __shared__ A sw_[8][32], sb_[8][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (long long cb = static_cast<long long>(blockIdx.x) * 32; cb < cols;
         cb += static_cast<long long>(gridDim.x) * 32) {
        const long long c = cb + tx;
        A sw = A(0), sb = A(0);
        if (c < cols) {
            for (long long k = ty; k < G; k += 8) {
                if (dw != nullptr) sw += part[k * cols + c];
                if (db != nullptr) sb += part[(G + k) * cols + c];
            }
        }
        __syncthreads();  // (the previous columns' sums were read)
        sw_[ty][tx] = sw;
        sb_[ty][tx] = sb;
        __syncthreads();
        if (ty == 0 && c < cols) {
            for (int k = 1; k < 8; ++k) {
                sw += sw_[k][tx];
                sb += sb_[k][tx];
            }
            if (dw != nullptr) stAs<A>(dw, wt, c, sw);
            if (db != nullptr) stAs<A>(db, wt, c, sb);
        }
    }
}

// The typed kernels for x's dtype T and the weights' W.
template <typename T, typename W>
infiniStatus_t launchTyped(const infiniopNormArgs_t &a, const NormParams &p, const Ctx &q) {
    constexpr int N = 16 / sizeof(T);
    const long long nv = a.cols / N;
    const bool fwd = a.op == INFINIOP_NORM_LAYER_NORM || a.op == INFINIOP_NORM_RMS_NORM;
    const unsigned grid = gridX(a.rows);
    if (fwd) {
        const int threads = threadsFor(nv, kVecs, threadCap<normFwd<T, W, true>>());
        if (nv <= static_cast<long long>(kVecs) * threads) {
            normFwd<T, W, true><<<grid, threads, 0, q.stream>>>(
                p, static_cast<T *>(a.y), static_cast<float *>(a.mean), static_cast<float *>(a.rstd),
                static_cast<const T *>(a.x), static_cast<const W *>(a.w), static_cast<const W *>(a.b));
        } else {
            normFwd<T, W, false><<<grid, threadCap<normFwd<T, W, false>>(), 0, q.stream>>>(
                p, static_cast<T *>(a.y), static_cast<float *>(a.mean), static_cast<float *>(a.rstd),
                static_cast<const T *>(a.x), static_cast<const W *>(a.w), static_cast<const W *>(a.b));
        }
        return launched("infiniopNorm");
    }
    const bool parts = a.dw != nullptr || a.db != nullptr;
    const int threads = threadsFor(nv, kVecs, threadCap<normBwd<T, W, true>>());
    StreamBuffer buf(q.stream);
    if (nv <= static_cast<long long>(kVecs) * threads) {
        // a block's rows take turns (its partials stay in registers): as many blocks as the SMs hold at once, at
        // most a block a row
        int per_sm = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normBwd<T, W, true>, threads, 0) != cudaSuccess) {
            cudaGetLastError();
            per_sm = 1;
        }
        const long long G = std::min<long long>(a.rows, static_cast<long long>(std::max(per_sm, 1)) * ops::smCount());
        if (parts) INFINI_RETURN_IF_ERROR(buf.alloc(static_cast<size_t>(2 * G * a.cols) * sizeof(float)));
        normBwd<T, W, true><<<static_cast<unsigned>(G), threads, 0, q.stream>>>(
            p, static_cast<T *>(a.y), parts ? buf.as<float>() : nullptr, static_cast<const T *>(a.dy),
            static_cast<const T *>(a.x), static_cast<const float *>(a.mean), static_cast<const float *>(a.rstd),
            static_cast<const W *>(a.w));
        INFINI_RETURN_IF_ERROR(launched("infiniopNorm"));
        if (parts) {
            normFinish<float><<<gridX((a.cols + 31) / 32), dim3(32, 8), 0, q.stream>>>(a.cols, G, buf.as<float>(), a.dw,
                                                                                       a.db, a.w_dtype);
        }
        return launched("infiniopNorm");
    }
    if (a.y != nullptr) {
        normBwd<T, W, false><<<grid, threadCap<normBwd<T, W, false>>(), 0, q.stream>>>(
            p, static_cast<T *>(a.y), nullptr, static_cast<const T *>(a.dy), static_cast<const T *>(a.x),
            static_cast<const float *>(a.mean), static_cast<const float *>(a.rstd), static_cast<const W *>(a.w));
        INFINI_RETURN_IF_ERROR(launched("infiniopNorm"));
    }
    if (parts) {
        const long long G = std::min<long long>(a.rows, 256);
        INFINI_RETURN_IF_ERROR(buf.alloc(static_cast<size_t>(2 * G * a.cols) * sizeof(float)));
        const dim3 cgrid(gridX(std::min<long long>((a.cols + 255) / 256, 65535)), static_cast<unsigned>(G));
        normColParts<float><<<cgrid, 256, 0, q.stream>>>(p, buf.as<float>(), a.dy, a.x, a.dtype, a.mean, a.rstd);
        INFINI_RETURN_IF_ERROR(launched("infiniopNorm"));
        normFinish<float><<<gridX((a.cols + 31) / 32), dim3(32, 8), 0, q.stream>>>(a.cols, G, buf.as<float>(), a.dw,
                                                                                   a.db, a.w_dtype);
    }
    return launched("infiniopNorm");
}

// The element-wise kernels in A.
template <typename A>
infiniStatus_t launchAny(const infiniopNormArgs_t &a, const NormParams &p, const Ctx &q) {
    const unsigned grid = gridX(a.rows);
    if (a.op == INFINIOP_NORM_LAYER_NORM || a.op == INFINIOP_NORM_RMS_NORM) {
        normAnyFwd<A><<<grid, 256, 0, q.stream>>>(p, a.y, a.dtype, a.mean, a.rstd, a.x, a.w, a.b, a.w_dtype);
        return launched("infiniopNorm");
    }
    if (a.y != nullptr) {
        normAnyBwd<A><<<grid, 256, 0, q.stream>>>(p, a.y, a.dtype, a.dy, a.x, a.mean, a.rstd, a.w, a.w_dtype);
        INFINI_RETURN_IF_ERROR(launched("infiniopNorm"));
    }
    if (a.dw != nullptr || a.db != nullptr) {
        const long long G = std::min<long long>(a.rows, 256);
        StreamBuffer buf(q.stream);
        INFINI_RETURN_IF_ERROR(buf.alloc(static_cast<size_t>(2 * G * a.cols) * sizeof(A)));
        const dim3 cgrid(gridX(std::min<long long>((a.cols + 255) / 256, 65535)), static_cast<unsigned>(G));
        normColParts<A><<<cgrid, 256, 0, q.stream>>>(p, buf.as<A>(), a.dy, a.x, a.dtype, a.mean, a.rstd);
        INFINI_RETURN_IF_ERROR(launched("infiniopNorm"));
        normFinish<A>
            <<<gridX((a.cols + 31) / 32), dim3(32, 8), 0, q.stream>>>(a.cols, G, buf.as<A>(), a.dw, a.db, a.w_dtype);
    }
    return launched("infiniopNorm");
}

}  // namespace

infiniStatus_t norm(const infiniopNormArgs_t &a, const Ctx &q) {
    const bool fwd = a.op == INFINIOP_NORM_LAYER_NORM || a.op == INFINIOP_NORM_RMS_NORM;
    const bool layer = a.op == INFINIOP_NORM_LAYER_NORM || a.op == INFINIOP_NORM_LAYER_NORM_BWD;
    const bool has_w = a.w != nullptr, has_b = fwd && layer && a.b != nullptr;
    if (!isFloatDtype(a.dtype) || ((has_w || has_b || a.dw || a.db) && !isFloatDtype(a.w_dtype))) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE,
                    "infiniopNorm: dtypes %d and %d (float16, bfloat16, float32 or float64)", a.dtype, a.w_dtype);
    }
    const long long n = a.rows * a.cols;
    if (fwd) {
        if (a.rows == 0) return INFINI_STATUS_SUCCESS;
        if (n > 0 && (a.x == nullptr || a.y == nullptr))
            return fail(INFINI_STATUS_NULL_POINTER, "infiniopNorm: x or y is NULL");
    } else {
        if (!layer && a.db != nullptr)
            return fail(INFINI_STATUS_BAD_PARAM, "infiniopNorm: rms_norm has no bias gradient");
        if (a.cols == 0 || (a.rows == 0 && a.dw == nullptr && a.db == nullptr)) return INFINI_STATUS_SUCCESS;
        if (a.rows == 0) {  // the weights' gradients of no rows: zeros
            const size_t bytes = static_cast<size_t>(a.cols) * dtypeSize(a.w_dtype);
            if (a.dw != nullptr) INFINI_CUDA_RETURN(cudaMemsetAsync(a.dw, 0, bytes, q.stream));
            if (a.db != nullptr) INFINI_CUDA_RETURN(cudaMemsetAsync(a.db, 0, bytes, q.stream));
            return INFINI_STATUS_SUCCESS;
        }
        if (a.x == nullptr || a.dy == nullptr || a.rstd == nullptr || (layer && a.mean == nullptr)) {
            return fail(INFINI_STATUS_NULL_POINTER, "infiniopNorm: the backward needs x, dy, rstd%s",
                        layer ? " and mean" : "");
        }
        if (a.dw != nullptr && !has_w) return fail(INFINI_STATUS_BAD_PARAM, "infiniopNorm: dw without w");
    }
    const NormParams p{a.op,
                       a.rows,
                       a.cols,
                       a.eps,
                       has_w,
                       has_b,
                       !fwd && a.dw != nullptr,
                       !fwd && a.db != nullptr,
                       a.dtype == INFINI_DTYPE_F64};
    const bool f64 = a.dtype == INFINI_DTYPE_F64 || ((has_w || has_b || a.dw || a.db) && a.w_dtype == INFINI_DTYPE_F64);
    if (f64) return launchAny<double>(a, p, q);
    // the typed kernels: x's dtype with the weights' in the same dtype or F32, every operand on 16 bytes
    const int piece = static_cast<int>(16 / dtypeSize(a.dtype));
    const bool wsame = a.w_dtype == a.dtype, wf32 = a.w_dtype == INFINI_DTYPE_F32;
    bool vec = a.cols > 0 && a.cols % piece == 0 && (wsame || wf32 || !(has_w || has_b));
    for (const void *ptr : {static_cast<const void *>(a.y), a.x, a.w, a.b, a.dy}) vec = vec && aligned16(ptr);
    if (vec) {
        const bool wt = has_w || has_b ? wf32 && !wsame : false;  // (no weights: either instantiation)
        switch (a.dtype) {
            case INFINI_DTYPE_F32: return launchTyped<float, float>(a, p, q);
            case INFINI_DTYPE_F16:
                return wt ? launchTyped<__half, float>(a, p, q) : launchTyped<__half, __half>(a, p, q);
            default:
                return wt ? launchTyped<__nv_bfloat16, float>(a, p, q)
                          : launchTyped<__nv_bfloat16, __nv_bfloat16>(a, p, q);
        }
    }
    return launchAny<float>(a, p, q);
}

}  // namespace infini::nvidia::families
