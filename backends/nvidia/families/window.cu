// families/window.cu: the window family (families.h): im2col / col2im, max, average and adaptive average pooling,
// nearest and bilinear upsampling, and their backwards, over contiguous NCHW images (1-d forms: h = 1). One kernel
// (per math type: float, double for F64) with the op a runtime switch: a thread an element of the op's output,
// grid-stride. The backwards gather (a thread an image element sums what reaches it, in a fixed order:
// deterministic, no atomics; the output written whole, which is the "zeroed first" of col2im and the backwards).
// The index arithmetic is torch's CPU kernels', shared with the cpu backend (common/window_math.h); the backwards
// find the outputs that reach an image element by the same functions (ranges by arithmetic where the windows are
// regular, by a binary search over the monotone source index otherwise). Max pooling takes the first maximum in
// window order, a NaN (the last one) winning; its index is the h * w-flat position.
#include <algorithm>

#include "../../common/window_math.h"
#include "elems.cuh"

namespace infini::nvidia::families {
namespace {

struct WinParams {
    int op;
    infiniDtype_t dtype;
    long long n, c, h, w, oh, ow;
    int kh, kw, sh, sw, ph, pw, dh, dw;
    int count_include_pad, align_corners;
    long long divisor_override;
    double scale_h, scale_w;
};

__device__ __forceinline__ long long floorDiv(long long a, long long b) {  // b > 0
    const long long q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}
__device__ __forceinline__ long long ceilDiv(long long a, long long b) { return -floorDiv(-a, b); }

namespace wm = ::infini::window;

constexpr int kAdaptiveAvgPool = INFINIOP_WINDOW_ADAPTIVE_AVG_POOL;
constexpr int kAdaptiveAvgPoolBwd = INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD;

// Bilinear source of output o (wm::linearSource).
template <typename A>
struct Lerp {
    long long i0, i1;
    A l0, l1;
};
template <typename A>
__device__ __forceinline__ Lerp<A> lerpAt(long long o, long long in, long long out, int align, A scale) {
    int64_t i0, i1;
    A l0, l1;
    wm::linearSource<A>(o, in, out, scale, align, &i0, &i1, &l0, &l1);
    return Lerp<A>{i0, i1, l0, l1};
}

// The first o in [0, out) whose source index src(o) (monotone in o) is >= target; out if none.
template <typename F>
__device__ __forceinline__ long long firstAtLeast(long long out, long long target, F src) {
    long long lo = 0, hi = out;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (src(mid) >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

template <typename A>
__global__ void __launch_bounds__(256) windowKernel(WinParams p, void *out, const void *in, long long *idx_out,
                                                    const long long *idx_in, DeviceError *err, long long total) {
    const infiniDtype_t dt = p.dtype;
    const long long HW = p.h * p.w, OHW = p.oh * p.ow;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        switch (p.op) {
            case INFINIOP_WINDOW_IM2COL: {  // out [n, c * kh * kw, oh * ow]
                const long long col = e % OHW, r = e / OHW, K = static_cast<long long>(p.kh) * p.kw;
                const long long kk = r % (p.c * K), b = r / (p.c * K);
                const long long ci = kk / K, i = (kk / p.kw) % p.kh, j = kk % p.kw;
                const long long y = (col / p.ow) * p.sh - p.ph + i * p.dh, x = (col % p.ow) * p.sw - p.pw + j * p.dw;
                const A v =
                    y >= 0 && y < p.h && x >= 0 && x < p.w ? ldAs<A>(in, dt, (b * p.c + ci) * HW + y * p.w + x) : A(0);
                stAs<A>(out, dt, e, v);
                break;
            }
            case INFINIOP_WINDOW_COL2IM: {  // out [n, c, h, w] from cols [n, c * kh * kw, oh * ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW, ci = plane % p.c, b = plane / p.c;
                const long long K = static_cast<long long>(p.kh) * p.kw;
                A s = A(0);
                for (int i = 0; i < p.kh; ++i) {
                    const long long ty = y + p.ph - static_cast<long long>(i) * p.dh;
                    if (ty < 0 || ty % p.sh != 0 || ty / p.sh >= p.oh) continue;
                    for (int j = 0; j < p.kw; ++j) {
                        const long long tx = x + p.pw - static_cast<long long>(j) * p.dw;
                        if (tx < 0 || tx % p.sw != 0 || tx / p.sw >= p.ow) continue;
                        const long long row = b * p.c * K + ci * K + static_cast<long long>(i) * p.kw + j;
                        s += ldAs<A>(in, dt, row * OHW + (ty / p.sh) * p.ow + tx / p.sw);
                    }
                }
                stAs<A>(out, dt, e, s);
                break;
            }
            case INFINIOP_WINDOW_MAX_POOL: {  // out, indices [n, c, oh, ow]
                const long long ox = e % p.ow, oy = (e / p.ow) % p.oh, plane = e / OHW;
                int64_t ih0, ih1, iw0, iw1;
                wm::maxPoolSpan(oy, p.h, p.kh, p.sh, p.ph, p.dh, &ih0, &ih1);
                wm::maxPoolSpan(ox, p.w, p.kw, p.sw, p.pw, p.dw, &iw0, &iw1);
                long long best = ih0 * p.w + iw0;
                A m = A(-INFINITY);
                for (long long ih = ih0; ih < ih1; ih += p.dh) {
                    for (long long iw = iw0; iw < iw1; iw += p.dw) {
                        const A v = ldAs<A>(in, dt, plane * HW + ih * p.w + iw);
                        if (v > m || v != v) {
                            m = v;
                            best = ih * p.w + iw;
                        }
                    }
                }
                stAs<A>(out, dt, e, m);
                idx_out[e] = best;
                break;
            }
            case INFINIOP_WINDOW_MAX_POOL_BWD: {  // out [n, c, h, w] from dy and indices [n, c, oh, ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW, pos = y * p.w + x;
                const long long oy0 = max(0LL, ceilDiv(y + p.ph - static_cast<long long>(p.kh - 1) * p.dh, p.sh));
                const long long oy1 = min(p.oh - 1, floorDiv(y + p.ph, p.sh));
                const long long ox0 = max(0LL, ceilDiv(x + p.pw - static_cast<long long>(p.kw - 1) * p.dw, p.sw));
                const long long ox1 = min(p.ow - 1, floorDiv(x + p.pw, p.sw));
                A s = A(0);
                for (long long oy = oy0; oy <= oy1; ++oy) {
                    for (long long ox = ox0; ox <= ox1; ++ox) {
                        const long long o = plane * OHW + oy * p.ow + ox, k = idx_in[o];
                        if (k == pos)
                            s += ldAs<A>(in, dt, o);
                        else if (k < 0 || k >= HW)
                            reportError(err, kErrFamilyIndex, kFamilyOpBase + INFINIOP_FAMILY_WINDOW, 0, k, HW);
                    }
                }
                stAs<A>(out, dt, e, s);
                break;
            }
            case INFINIOP_WINDOW_AVG_POOL: {  // out [n, c, oh, ow]
                const long long ox = e % p.ow, oy = (e / p.ow) % p.oh, plane = e / OHW;
                int64_t h0, h1, w0, w1;
                const int64_t ph_ = wm::avgPoolSpan(oy, p.h, p.kh, p.sh, p.ph, &h0, &h1);
                const int64_t pw_ = wm::avgPoolSpan(ox, p.w, p.kw, p.sw, p.pw, &w0, &w1);
                A v = A(0);
                if (h0 < h1 && w0 < w1) {
                    A s = A(0);
                    for (long long ih = h0; ih < h1; ++ih) {
                        for (long long iw = w0; iw < w1; ++iw) s += ldAs<A>(in, dt, plane * HW + ih * p.w + iw);
                    }
                    v = s / static_cast<A>(wm::avgPoolDivisor(ph_, pw_, h1 - h0, w1 - w0, p.count_include_pad,
                                                              p.divisor_override));
                }
                stAs<A>(out, dt, e, v);
                break;
            }
            case INFINIOP_WINDOW_AVG_POOL_BWD: {  // out [n, c, h, w] from dy [n, c, oh, ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW;
                const long long oy0 = max(0LL, ceilDiv(y + p.ph - p.kh + 1, p.sh)),
                                oy1 = min(p.oh - 1, floorDiv(y + p.ph, p.sh));
                const long long ox0 = max(0LL, ceilDiv(x + p.pw - p.kw + 1, p.sw)),
                                ox1 = min(p.ow - 1, floorDiv(x + p.pw, p.sw));
                A s = A(0);
                for (long long oy = oy0; oy <= oy1; ++oy) {
                    int64_t h0, h1;
                    const int64_t ph_ = wm::avgPoolSpan(oy, p.h, p.kh, p.sh, p.ph, &h0, &h1);
                    for (long long ox = ox0; ox <= ox1; ++ox) {
                        int64_t w0, w1;
                        const int64_t pw_ = wm::avgPoolSpan(ox, p.w, p.kw, p.sw, p.pw, &w0, &w1);
                        if (y < h0 || y >= h1 || x < w0 || x >= w1) continue;
                        const int64_t div =
                            wm::avgPoolDivisor(ph_, pw_, h1 - h0, w1 - w0, p.count_include_pad, p.divisor_override);
                        s += ldAs<A>(in, dt, plane * OHW + oy * p.ow + ox) / static_cast<A>(div);
                    }
                }
                stAs<A>(out, dt, e, s);
                break;
            }
            case kAdaptiveAvgPool: {  // out [n, c, oh, ow]: the window's sum / its rows / its columns
                const long long ox = e % p.ow, oy = (e / p.ow) % p.oh, plane = e / OHW;
                const long long y0 = wm::adaptiveBegin(oy, p.oh, p.h), y1 = wm::adaptiveEnd(oy, p.oh, p.h);
                const long long x0 = wm::adaptiveBegin(ox, p.ow, p.w), x1 = wm::adaptiveEnd(ox, p.ow, p.w);
                A s = A(0);
                for (long long iy = y0; iy < y1; ++iy) {
                    for (long long ix = x0; ix < x1; ++ix) s += ldAs<A>(in, dt, plane * HW + iy * p.w + ix);
                }
                stAs<A>(out, dt, e, s / static_cast<A>(y1 - y0) / static_cast<A>(x1 - x0));
                break;
            }
            case kAdaptiveAvgPoolBwd: {  // out [n, c, h, w] from dy [n, c, oh, ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW;
                // the outputs whose windows hold y: end > y (monotone in the output) from the first, while begin <= y
                auto endY = [&](long long o) { return static_cast<long long>(wm::adaptiveEnd(o, p.oh, p.h)); };
                auto endX = [&](long long o) { return static_cast<long long>(wm::adaptiveEnd(o, p.ow, p.w)); };
                A s = A(0);
                for (long long oy = firstAtLeast(p.oh, y + 1, endY); oy < p.oh && wm::adaptiveBegin(oy, p.oh, p.h) <= y;
                     ++oy) {
                    const A ry = static_cast<A>(wm::adaptiveEnd(oy, p.oh, p.h) - wm::adaptiveBegin(oy, p.oh, p.h));
                    for (long long ox = firstAtLeast(p.ow, x + 1, endX);
                         ox < p.ow && wm::adaptiveBegin(ox, p.ow, p.w) <= x; ++ox) {
                        const A rx = static_cast<A>(wm::adaptiveEnd(ox, p.ow, p.w) - wm::adaptiveBegin(ox, p.ow, p.w));
                        s += ldAs<A>(in, dt, plane * OHW + oy * p.ow + ox) / ry / rx;
                    }
                }
                stAs<A>(out, dt, e, s);
                break;
            }
            case INFINIOP_WINDOW_UPSAMPLE_NEAREST: {  // out [n, c, oh, ow]
                const long long ox = e % p.ow, oy = (e / p.ow) % p.oh, plane = e / OHW;
                const long long sy = wm::nearestSource(oy, p.h, p.oh, wm::nearestScale(p.h, p.oh, p.scale_h));
                const long long sx = wm::nearestSource(ox, p.w, p.ow, wm::nearestScale(p.w, p.ow, p.scale_w));
                stAs<A>(out, dt, e, ldAs<A>(in, dt, plane * HW + sy * p.w + sx));
                break;
            }
            case INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD: {  // out [n, c, h, w] from dy [n, c, oh, ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW;
                const float fy = wm::nearestScale(p.h, p.oh, p.scale_h), fx = wm::nearestScale(p.w, p.ow, p.scale_w);
                auto srcY = [&](long long o) { return static_cast<long long>(wm::nearestSource(o, p.h, p.oh, fy)); };
                auto srcX = [&](long long o) { return static_cast<long long>(wm::nearestSource(o, p.w, p.ow, fx)); };
                const long long oy0 = firstAtLeast(p.oh, y, srcY), ox0 = firstAtLeast(p.ow, x, srcX);
                A s = A(0);
                for (long long oy = oy0; oy < p.oh && srcY(oy) == y; ++oy) {
                    for (long long ox = ox0; ox < p.ow && srcX(ox) == x; ++ox)
                        s += ldAs<A>(in, dt, plane * OHW + oy * p.ow + ox);
                }
                stAs<A>(out, dt, e, s);
                break;
            }
            case INFINIOP_WINDOW_UPSAMPLE_BILINEAR: {  // out [n, c, oh, ow]
                const long long ox = e % p.ow, oy = (e / p.ow) % p.oh, plane = e / OHW;
                const Lerp<A> ly = lerpAt<A>(oy, p.h, p.oh, p.align_corners,
                                             wm::linearScale<A>(p.h, p.oh, p.align_corners, p.scale_h));
                const Lerp<A> lx = lerpAt<A>(ox, p.w, p.ow, p.align_corners,
                                             wm::linearScale<A>(p.w, p.ow, p.align_corners, p.scale_w));
                const long long b = plane * HW;
                const A v = ly.l0 * (lx.l0 * ldAs<A>(in, dt, b + ly.i0 * p.w + lx.i0) +
                                     lx.l1 * ldAs<A>(in, dt, b + ly.i0 * p.w + lx.i1)) +
                            ly.l1 * (lx.l0 * ldAs<A>(in, dt, b + ly.i1 * p.w + lx.i0) +
                                     lx.l1 * ldAs<A>(in, dt, b + ly.i1 * p.w + lx.i1));
                stAs<A>(out, dt, e, v);
                break;
            }
            default: {  // UPSAMPLE_BILINEAR_BWD: out [n, c, h, w] from dy [n, c, oh, ow]
                const long long x = e % p.w, y = (e / p.w) % p.h, plane = e / HW;
                const int al = p.align_corners;
                const A ry = wm::linearScale<A>(p.h, p.oh, al, p.scale_h),
                        rx = wm::linearScale<A>(p.w, p.ow, al, p.scale_w);
                // the outputs whose first source index is y - 1 or y (the second is the first or the next)
                auto srcY = [&](long long o) { return lerpAt<A>(o, p.h, p.oh, al, ry).i0; };
                auto srcX = [&](long long o) { return lerpAt<A>(o, p.w, p.ow, al, rx).i0; };
                const long long oy0 = firstAtLeast(p.oh, y - 1, srcY), ox0 = firstAtLeast(p.ow, x - 1, srcX);
                A s = A(0);
                for (long long oy = oy0; oy < p.oh; ++oy) {
                    const Lerp<A> ly = lerpAt<A>(oy, p.h, p.oh, al, ry);
                    if (ly.i0 > y) break;
                    const A wy = (ly.i0 == y ? ly.l0 : A(0)) + (ly.i1 == y ? ly.l1 : A(0));
                    if (wy == A(0)) continue;
                    for (long long ox = ox0; ox < p.ow; ++ox) {
                        const Lerp<A> lx = lerpAt<A>(ox, p.w, p.ow, al, rx);
                        if (lx.i0 > x) break;
                        const A wx = (lx.i0 == x ? lx.l0 : A(0)) + (lx.i1 == x ? lx.l1 : A(0));
                        if (wx != A(0)) s += ldAs<A>(in, dt, plane * OHW + oy * p.ow + ox) * wy * wx;
                    }
                }
                stAs<A>(out, dt, e, s);
                break;
            }
        }
    }
}

}  // namespace

infiniStatus_t window(const infiniopWindowArgs_t &a, const Ctx &q) {
    if (!isFloatDtype(a.dtype)) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopWindow: dtype %d (float16, bfloat16, float32 or float64)",
                    a.dtype);
    }
    if (a.n < 0 || a.c < 0 || a.h < 0 || a.w < 0 || a.oh < 0 || a.ow < 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopWindow: negative extent");
    }
    const int op = a.op;
    if (op < 0 || op >= INFINIOP_WINDOW_OP_END) return fail(INFINI_STATUS_BAD_PARAM, "infiniopWindow: op %d", op);
    const bool kernel =
        op <= INFINIOP_WINDOW_AVG_POOL_BWD;  // (im2col, col2im and the poolings take the window's shape)
    if (kernel && (a.kh < 1 || a.kw < 1 || a.sh < 1 || a.sw < 1 || a.dh < 1 || a.dw < 1 || a.ph < 0 || a.pw < 0)) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infiniopWindow: kernel %dx%d, stride %dx%d, padding %dx%d, dilation %dx%d", a.kh, a.kw, a.sh, a.sw,
                    a.ph, a.pw, a.dh, a.dw);
    }
    const bool adaptive = op == kAdaptiveAvgPool || op == kAdaptiveAvgPoolBwd;
    const bool upsample = op >= INFINIOP_WINDOW_UPSAMPLE_NEAREST && !adaptive;
    if ((adaptive || upsample) && a.n * a.c > 0 && ((a.oh > 0 && a.h == 0) || (a.ow > 0 && a.w == 0))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopWindow: an empty image pooled or upsampled into %lldx%lld",
                    static_cast<long long>(a.oh), static_cast<long long>(a.ow));
    }
    // the op's output: the image (col2im, the backwards) or the grid
    const bool to_image = op == INFINIOP_WINDOW_COL2IM || op == INFINIOP_WINDOW_MAX_POOL_BWD ||
                          op == INFINIOP_WINDOW_AVG_POOL_BWD || op == INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD ||
                          op == INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD || op == kAdaptiveAvgPoolBwd;
    const long long grid_elems = a.n * a.c * a.oh * a.ow;
    const long long total =
        to_image ? a.n * a.c * a.h * a.w : (op == INFINIOP_WINDOW_IM2COL ? grid_elems * a.kh * a.kw : grid_elems);
    if (total == 0) return INFINI_STATUS_SUCCESS;
    const long long in_elems =
        to_image ? (op == INFINIOP_WINDOW_COL2IM ? grid_elems * a.kh * a.kw : grid_elems) : a.n * a.c * a.h * a.w;
    if (a.out == nullptr || (in_elems > 0 && a.in == nullptr))
        return fail(INFINI_STATUS_NULL_POINTER, "infiniopWindow: out or in is NULL");
    const bool pool_idx = op == INFINIOP_WINDOW_MAX_POOL || (op == INFINIOP_WINDOW_MAX_POOL_BWD && grid_elems > 0);
    if (pool_idx && a.indices == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "infiniopWindow: indices is NULL");
    const WinParams p{op,
                      a.dtype,
                      a.n,
                      a.c,
                      a.h,
                      a.w,
                      a.oh,
                      a.ow,
                      a.kh,
                      a.kw,
                      a.sh,
                      a.sw,
                      a.ph,
                      a.pw,
                      a.dh,
                      a.dw,
                      a.count_include_pad,
                      a.align_corners,
                      a.divisor_override,
                      a.scale_h,
                      a.scale_w};
    long long *idx_out = op == INFINIOP_WINDOW_MAX_POOL ? static_cast<long long *>(a.indices) : nullptr;
    const long long *idx_in = op == INFINIOP_WINDOW_MAX_POOL_BWD ? static_cast<const long long *>(a.indices) : nullptr;
    const unsigned grid = blocksFor(total, 256, 1LL << 20);
    if (a.dtype == INFINI_DTYPE_F64) {
        windowKernel<double><<<grid, 256, 0, q.stream>>>(p, a.out, a.in, idx_out, idx_in, q.err, total);
    } else {
        windowKernel<float><<<grid, 256, 0, q.stream>>>(p, a.out, a.in, idx_out, idx_in, q.err, total);
    }
    return launched("infiniopWindow");
}

}  // namespace infini::nvidia::families
