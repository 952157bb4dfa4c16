// window.cpp: the window family on the cpu backend: im2col / col2im, max, average and adaptive average pooling,
// nearest and bilinear upsampling, each with its backward, over contiguous NCHW images (families.h). Work is split
// over the n*c planes: a plane's output depends only on its own input plane, so no two threads write one element.
// The index arithmetic is common/window_math.h. Sums run in float (double for F64); the backward ops of 16-bit
// dtypes accumulate a plane in a float buffer and round once.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../../common/error.h"
#include "../../common/window_math.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

namespace wm = ::infini::window;

template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
inline Acc<T> get(T v) {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
        return v;
    } else {
        return toFloat(v);
    }
}
template <class T>
inline T put(Acc<T> v) {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
        return v;
    } else {
        return fromFloat<T>(v);
    }
}

// Runs body(plane) for every plane of n*c, split over the kernel threads (cost: rough work of one plane).
template <class Body>
void forPlanes(const infiniopWindowArgs_t &a, int64_t cost, Body &&body) {
    const int64_t planes = a.n * a.c;
    parallelFor(static_cast<size_t>(planes), static_cast<size_t>(std::max<int64_t>(cost, 1)), [&](size_t b, size_t e) {
        for (size_t p = b; p < e; ++p) body(static_cast<int64_t>(p));
    });
}

// A plane of the image accumulated in Acc, stored as T once all its terms are in (the backward ops and col2im);
// one per thread.
template <class T>
struct PlaneSum {
    std::vector<Acc<T>> buf;
    Acc<T> *begin(T *out, int64_t size) {
        if constexpr (std::is_same_v<Acc<T>, T>) {
            std::fill(out, out + size, T(0));
            return out;
        } else {
            buf.assign(static_cast<size_t>(size), Acc<T>(0));
            return buf.data();
        }
    }
    void end(T *out, int64_t size) {
        if constexpr (!std::is_same_v<Acc<T>, T>) {
            for (int64_t i = 0; i < size; ++i) out[i] = put<T>(buf[static_cast<size_t>(i)]);
        }
    }
};

// forPlanes for the accumulating ops: body(plane, sum) with a PlaneSum of the calling thread.
template <class T, class Body>
void forPlanesSum(const infiniopWindowArgs_t &a, int64_t cost, Body &&body) {
    const int64_t planes = a.n * a.c;
    parallelFor(static_cast<size_t>(planes), static_cast<size_t>(std::max<int64_t>(cost, 1)), [&](size_t b, size_t e) {
        PlaneSum<T> sum;
        for (size_t p = b; p < e; ++p) body(static_cast<int64_t>(p), sum);
    });
}

// ---- im2col / col2im: column row (ki * kw + kj) of a plane holds x[oy * sh - ph + ki * dh][ox * sw - pw + kj * dw]

// The output columns [lo, hi) whose input column ox * s + off lies inside [0, w).
inline void validRange(int64_t off, int64_t w, int s, int64_t ow, int64_t *lo, int64_t *hi) {
    int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t h = w - 1 - off < 0 ? 0 : (w - 1 - off) / s + 1;
    *lo = std::min(l, ow);
    *hi = std::max(*lo, std::min(h, ow));
}

template <class T>
void im2col(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow, L = oh * ow;
    forPlanes(a, a.kh * a.kw * L, [&](int64_t p) {
        const T *x = in + p * h * w;
        T *rows = out + p * a.kh * a.kw * L;
        for (int ki = 0; ki < a.kh; ++ki) {
            for (int kj = 0; kj < a.kw; ++kj) {
                T *row = rows + (ki * a.kw + kj) * L;
                const int64_t xoff = static_cast<int64_t>(kj) * a.dw - a.pw;
                int64_t lo, hi;
                validRange(xoff, w, a.sw, ow, &lo, &hi);
                for (int64_t oy = 0; oy < oh; ++oy) {
                    T *r = row + oy * ow;
                    const int64_t iy = oy * a.sh - a.ph + static_cast<int64_t>(ki) * a.dh;
                    if (iy < 0 || iy >= h) {
                        std::fill(r, r + ow, T{});
                        continue;
                    }
                    const T *src = x + iy * w;  // column ox reads src[ox * sw + xoff]
                    std::fill(r, r + lo, T{});
                    if (a.sw == 1) {
                        std::copy(src + (lo + xoff), src + (hi + xoff), r + lo);
                    } else {
                        for (int64_t ox = lo; ox < hi; ++ox) r[ox] = src[ox * a.sw + xoff];
                    }
                    std::fill(r + hi, r + ow, T{});
                }
            }
        }
    });
}

template <class T>
void col2im(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow, L = oh * ow;
    forPlanesSum<T>(a, a.kh * a.kw * L + h * w, [&](int64_t p, PlaneSum<T> &sum) {
        T *dst = out + p * h * w;
        Acc<T> *acc = sum.begin(dst, h * w);
        const T *rows = in + p * a.kh * a.kw * L;
        for (int ki = 0; ki < a.kh; ++ki) {
            for (int kj = 0; kj < a.kw; ++kj) {
                const T *row = rows + (ki * a.kw + kj) * L;
                const int64_t xoff = static_cast<int64_t>(kj) * a.dw - a.pw;
                int64_t lo, hi;
                validRange(xoff, w, a.sw, ow, &lo, &hi);
                for (int64_t oy = 0; oy < oh; ++oy) {
                    const int64_t iy = oy * a.sh - a.ph + static_cast<int64_t>(ki) * a.dh;
                    if (iy < 0 || iy >= h) continue;
                    const T *r = row + oy * ow;
                    Acc<T> *d = acc + iy * w;
                    if (a.sw == 1) {
                        for (int64_t ox = lo; ox < hi; ++ox) d[ox + xoff] += get(r[ox]);
                    } else {
                        for (int64_t ox = lo; ox < hi; ++ox) d[ox * a.sw + xoff] += get(r[ox]);
                    }
                }
            }
        }
        sum.end(dst, h * w);
    });
}

// ---- pooling windows along one dim, computed once for all planes

struct Span {
    int64_t begin, end, padded;  // rows [begin, end) (max pooling: every d-th); padded: avg pooling's extent
};

std::vector<Span> maxPoolSpans(int64_t out, int64_t in, int k, int s, int p, int d) {
    std::vector<Span> v(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
        Span &sp = v[static_cast<size_t>(o)];
        wm::maxPoolSpan(o, in, k, s, p, d, &sp.begin, &sp.end);
        sp.padded = 0;
    }
    return v;
}

std::vector<Span> avgPoolSpans(int64_t out, int64_t in, int k, int s, int p) {
    std::vector<Span> v(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
        Span &sp = v[static_cast<size_t>(o)];
        sp.padded = wm::avgPoolSpan(o, in, k, s, p, &sp.begin, &sp.end);
    }
    return v;
}

// ---- max pooling: the first maximum of a window, or its last NaN (torch's CPU order); -inf windows give the first
// position. A row of outputs is computed together: for each window row and column offset, one loop over the
// outputs that vectorizes (each output still sees its window's elements in torch's order).

template <class T>
void maxPool(const infiniopWindowArgs_t &a) {
    using A = Acc<T>;
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    int64_t *indices = static_cast<int64_t *>(a.indices);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const auto rows = maxPoolSpans(oh, h, a.kh, a.sh, a.ph, a.dh);
    const auto cols = maxPoolSpans(ow, w, a.kw, a.sw, a.pw, a.dw);
    forPlanes(a, oh * ow * a.kh * a.kw, [&](int64_t p) {
        thread_local std::vector<A> m;
        m.resize(static_cast<size_t>(ow));
        const T *x = in + p * h * w;
        T *y = out + p * oh * ow;
        int64_t *ind = indices + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const Span ry = rows[static_cast<size_t>(oy)];
            int64_t *best = ind + oy * ow;
            A *mv = m.data();
            for (int64_t ox = 0; ox < ow; ++ox) {
                mv[ox] = -std::numeric_limits<A>::infinity();
                best[ox] = ry.begin * w + cols[static_cast<size_t>(ox)].begin;
            }
            for (int64_t iy = ry.begin; iy < ry.end; iy += a.dh) {
                for (int kj = 0; kj < a.kw; ++kj) {
                    const int64_t off = static_cast<int64_t>(kj) * a.dw - a.pw;
                    int64_t lo, hi;
                    validRange(off, w, a.sw, ow, &lo, &hi);
                    const T *src = x + iy * w;
                    const int64_t base = iy * w + off, sw = a.sw;
                    for (int64_t ox = lo; ox < hi; ++ox) {
                        const A v = get(src[ox * sw + off]);
                        const bool take = (v > mv[ox]) | (v != v);
                        mv[ox] = take ? v : mv[ox];
                        best[ox] = take ? base + ox * sw : best[ox];
                    }
                }
            }
            T *r = y + oy * ow;
            for (int64_t ox = 0; ox < ow; ++ox) r[ox] = put<T>(mv[ox]);
        }
    });
}

template <class T>
void maxPoolBackward(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    const int64_t *indices = static_cast<const int64_t *>(a.indices);
    T *out = static_cast<T *>(a.out);
    const int64_t hw = a.h * a.w, ohw = a.oh * a.ow;
    std::atomic<bool> bad{false};
    forPlanesSum<T>(a, ohw + hw, [&](int64_t p, PlaneSum<T> &sum) {
        T *dx = out + p * hw;
        Acc<T> *acc = sum.begin(dx, hw);
        const T *dy = in + p * ohw;
        const int64_t *ind = indices + p * ohw;
        for (int64_t k = 0; k < ohw; ++k) {
            const int64_t i = ind[k];
            if (i < 0 || i >= hw) {
                bad.store(true, std::memory_order_relaxed);
                continue;
            }
            acc[i] += get(dy[k]);
        }
        sum.end(dx, hw);
    });
    if (bad.load()) throw std::runtime_error("max_pool backward: index out of range");
}

// ---- average pooling (torch's divisors: see window_math.h)

template <class T>
void avgPool(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const auto rows = avgPoolSpans(oh, h, a.kh, a.sh, a.ph);
    const auto cols = avgPoolSpans(ow, w, a.kw, a.sw, a.pw);
    forPlanes(a, oh * ow * a.kh * a.kw, [&](int64_t p) {
        const T *x = in + p * h * w;
        T *y = out + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const Span &ry = rows[static_cast<size_t>(oy)];
            const int64_t y0 = ry.begin, y1 = ry.end, ph = ry.padded;
            for (int64_t ox = 0; ox < ow; ++ox) {
                const Span &rx = cols[static_cast<size_t>(ox)];
                const int64_t x0 = rx.begin, x1 = rx.end, pw = rx.padded;
                if (y0 >= y1 || x0 >= x1) {
                    y[oy * ow + ox] = T{};
                    continue;
                }
                Acc<T> s = 0;
                for (int64_t iy = y0; iy < y1; ++iy) {
                    for (int64_t ix = x0; ix < x1; ++ix) s += get(x[iy * w + ix]);
                }
                const int64_t div =
                    wm::avgPoolDivisor(ph, pw, y1 - y0, x1 - x0, a.count_include_pad, a.divisor_override);
                y[oy * ow + ox] = put<T>(s / static_cast<Acc<T>>(div));
            }
        }
    });
}

template <class T>
void avgPoolBackward(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const auto rows = avgPoolSpans(oh, h, a.kh, a.sh, a.ph);
    const auto cols = avgPoolSpans(ow, w, a.kw, a.sw, a.pw);
    forPlanesSum<T>(a, oh * ow * a.kh * a.kw + h * w, [&](int64_t p, PlaneSum<T> &sum) {
        T *dx = out + p * h * w;
        Acc<T> *acc = sum.begin(dx, h * w);
        const T *dy = in + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const Span &ry = rows[static_cast<size_t>(oy)];
            const int64_t y0 = ry.begin, y1 = ry.end, ph = ry.padded;
            for (int64_t ox = 0; ox < ow; ++ox) {
                const Span &rx = cols[static_cast<size_t>(ox)];
                const int64_t x0 = rx.begin, x1 = rx.end, pw = rx.padded;
                if (y0 >= y1 || x0 >= x1) continue;
                const int64_t div =
                    wm::avgPoolDivisor(ph, pw, y1 - y0, x1 - x0, a.count_include_pad, a.divisor_override);
                const Acc<T> g = get(dy[oy * ow + ox]) / static_cast<Acc<T>>(div);
                for (int64_t iy = y0; iy < y1; ++iy) {
                    for (int64_t ix = x0; ix < x1; ++ix) acc[iy * w + ix] += g;
                }
            }
        }
        sum.end(dx, h * w);
    });
}

// ---- adaptive average pooling: divides by the window's rows, then by its columns, as torch does

template <class T>
void adaptiveAvgPool(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const int64_t cost = h * w + oh * ow;
    forPlanes(a, cost, [&](int64_t p) {
        const T *x = in + p * h * w;
        T *y = out + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = wm::adaptiveBegin(oy, oh, h), y1 = wm::adaptiveEnd(oy, oh, h);
            for (int64_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = wm::adaptiveBegin(ox, ow, w), x1 = wm::adaptiveEnd(ox, ow, w);
                Acc<T> s = 0;
                for (int64_t iy = y0; iy < y1; ++iy) {
                    for (int64_t ix = x0; ix < x1; ++ix) s += get(x[iy * w + ix]);
                }
                y[oy * ow + ox] = put<T>(s / static_cast<Acc<T>>(y1 - y0) / static_cast<Acc<T>>(x1 - x0));
            }
        }
    });
}

template <class T>
void adaptiveAvgPoolBackward(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    forPlanesSum<T>(a, 2 * h * w + oh * ow, [&](int64_t p, PlaneSum<T> &sum) {
        T *dx = out + p * h * w;
        Acc<T> *acc = sum.begin(dx, h * w);
        const T *dy = in + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = wm::adaptiveBegin(oy, oh, h), y1 = wm::adaptiveEnd(oy, oh, h);
            for (int64_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = wm::adaptiveBegin(ox, ow, w), x1 = wm::adaptiveEnd(ox, ow, w);
                const Acc<T> g = get(dy[oy * ow + ox]) / static_cast<Acc<T>>(y1 - y0) / static_cast<Acc<T>>(x1 - x0);
                for (int64_t iy = y0; iy < y1; ++iy) {
                    for (int64_t ix = x0; ix < x1; ++ix) acc[iy * w + ix] += g;
                }
            }
        }
        sum.end(dx, h * w);
    });
}

// ---- nearest upsampling: the source of each output row and column, computed once for all planes

std::vector<int64_t> nearestSources(int64_t in, int64_t out, double ratio) {
    std::vector<int64_t> src(static_cast<size_t>(out));
    const float scale = wm::nearestScale(in, out, ratio);
    for (int64_t o = 0; o < out; ++o) src[static_cast<size_t>(o)] = wm::nearestSource(o, in, out, scale);
    return src;
}

template <class T>
void upsampleNearest(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const std::vector<int64_t> sy = nearestSources(h, oh, a.scale_h), sx = nearestSources(w, ow, a.scale_w);
    forPlanes(a, oh * ow, [&](int64_t p) {
        const T *x = in + p * h * w;
        T *y = out + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const T *row = x + sy[static_cast<size_t>(oy)] * w;
            T *r = y + oy * ow;
            for (int64_t ox = 0; ox < ow; ++ox) r[ox] = row[sx[static_cast<size_t>(ox)]];
        }
    });
}

template <class T>
void upsampleNearestBackward(const infiniopWindowArgs_t &a) {
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const std::vector<int64_t> sy = nearestSources(h, oh, a.scale_h), sx = nearestSources(w, ow, a.scale_w);
    forPlanesSum<T>(a, oh * ow + h * w, [&](int64_t p, PlaneSum<T> &sum) {
        T *dx = out + p * h * w;
        Acc<T> *acc = sum.begin(dx, h * w);
        const T *dy = in + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            Acc<T> *row = acc + sy[static_cast<size_t>(oy)] * w;
            const T *g = dy + oy * ow;
            for (int64_t ox = 0; ox < ow; ++ox) row[sx[static_cast<size_t>(ox)]] += get(g[ox]);
        }
        sum.end(dx, h * w);
    });
}

// ---- bilinear upsampling: two sources and weights per output row and column, computed once for all planes

template <class A>
struct LinearTaps {
    std::vector<int64_t> i0, i1;
    std::vector<A> l0, l1;
};

// The weights of a 16-bit forward are rounded to T, as torch's CPU kernel stores them in the input's dtype.
template <class T>
LinearTaps<Acc<T>> linearTaps(int64_t in, int64_t out, int align_corners, double ratio, bool round_to_t) {
    using A = Acc<T>;
    LinearTaps<A> t;
    const auto n = static_cast<size_t>(out);
    t.i0.resize(n);
    t.i1.resize(n);
    t.l0.resize(n);
    t.l1.resize(n);
    const A scale = wm::linearScale<A>(in, out, align_corners, ratio);
    for (size_t o = 0; o < n; ++o) {
        wm::linearSource<A>(static_cast<int64_t>(o), in, out, scale, align_corners, &t.i0[o], &t.i1[o], &t.l0[o],
                            &t.l1[o]);
        if (round_to_t) {
            t.l0[o] = get(put<T>(t.l0[o]));
            t.l1[o] = get(put<T>(t.l1[o]));
        }
    }
    return t;
}

template <class T>
void upsampleBilinear(const infiniopWindowArgs_t &a) {
    using A = Acc<T>;
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const bool narrow = !std::is_same_v<A, T>;
    const auto ty = linearTaps<T>(h, oh, a.align_corners, a.scale_h, narrow);
    const auto tx = linearTaps<T>(w, ow, a.align_corners, a.scale_w, narrow);
    forPlanes(a, 4 * oh * ow, [&](int64_t p) {
        const T *x = in + p * h * w;
        T *y = out + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const auto j = static_cast<size_t>(oy);
            const T *r0 = x + ty.i0[j] * w, *r1 = x + ty.i1[j] * w;
            const A h0 = ty.l0[j], h1 = ty.l1[j];
            T *r = y + oy * ow;
            for (int64_t ox = 0; ox < ow; ++ox) {
                const auto k = static_cast<size_t>(ox);
                const int64_t c0 = tx.i0[k], c1 = tx.i1[k];
                const A w0 = tx.l0[k], w1 = tx.l1[k];
                const A top = get(r0[c0]) * w0 + get(r0[c1]) * w1;
                const A bottom = get(r1[c0]) * w0 + get(r1[c1]) * w1;
                r[ox] = put<T>(top * h0 + bottom * h1);
            }
        }
    });
}

template <class T>
void upsampleBilinearBackward(const infiniopWindowArgs_t &a) {
    using A = Acc<T>;
    const T *in = static_cast<const T *>(a.in);
    T *out = static_cast<T *>(a.out);
    const int64_t h = a.h, w = a.w, oh = a.oh, ow = a.ow;
    const auto ty = linearTaps<T>(h, oh, a.align_corners, a.scale_h, false);
    const auto tx = linearTaps<T>(w, ow, a.align_corners, a.scale_w, false);
    forPlanesSum<T>(a, 4 * oh * ow + h * w, [&](int64_t p, PlaneSum<T> &sum) {
        T *dx = out + p * h * w;
        A *acc = sum.begin(dx, h * w);
        const T *dy = in + p * oh * ow;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const auto j = static_cast<size_t>(oy);
            A *r0 = acc + ty.i0[j] * w, *r1 = acc + ty.i1[j] * w;
            const A h0 = ty.l0[j], h1 = ty.l1[j];
            const T *g = dy + oy * ow;
            for (int64_t ox = 0; ox < ow; ++ox) {
                const auto k = static_cast<size_t>(ox);
                const int64_t c0 = tx.i0[k], c1 = tx.i1[k];
                const A w0 = tx.l0[k], w1 = tx.l1[k], v = get(g[ox]);
                r0[c0] += h0 * w0 * v;
                r0[c1] += h0 * w1 * v;
                r1[c0] += h1 * w0 * v;
                r1[c1] += h1 * w1 * v;
            }
        }
        sum.end(dx, h * w);
    });
}

template <class T>
void run(const infiniopWindowArgs_t &a) {
    switch (a.op) {
        case INFINIOP_WINDOW_IM2COL: im2col<T>(a); return;
        case INFINIOP_WINDOW_COL2IM: col2im<T>(a); return;
        case INFINIOP_WINDOW_MAX_POOL: maxPool<T>(a); return;
        case INFINIOP_WINDOW_MAX_POOL_BWD: maxPoolBackward<T>(a); return;
        case INFINIOP_WINDOW_AVG_POOL: avgPool<T>(a); return;
        case INFINIOP_WINDOW_AVG_POOL_BWD: avgPoolBackward<T>(a); return;
        case INFINIOP_WINDOW_UPSAMPLE_NEAREST: upsampleNearest<T>(a); return;
        case INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD: upsampleNearestBackward<T>(a); return;
        case INFINIOP_WINDOW_UPSAMPLE_BILINEAR: upsampleBilinear<T>(a); return;
        case INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD: upsampleBilinearBackward<T>(a); return;
        case INFINIOP_WINDOW_ADAPTIVE_AVG_POOL: adaptiveAvgPool<T>(a); return;
        case INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD: adaptiveAvgPoolBackward<T>(a); return;
        default: return;
    }
}

bool usesKernel(infiniopWindowOp_t op) {
    return op == INFINIOP_WINDOW_IM2COL || op == INFINIOP_WINDOW_COL2IM || op == INFINIOP_WINDOW_MAX_POOL ||
           op == INFINIOP_WINDOW_MAX_POOL_BWD || op == INFINIOP_WINDOW_AVG_POOL || op == INFINIOP_WINDOW_AVG_POOL_BWD;
}

// Elements the op writes: the image for col2im and the backward ops, else the output grid (im2col: its columns).
int64_t outputElements(const infiniopWindowArgs_t &a) {
    switch (a.op) {
        case INFINIOP_WINDOW_IM2COL: return a.n * a.c * a.kh * a.kw * a.oh * a.ow;
        case INFINIOP_WINDOW_COL2IM:
        case INFINIOP_WINDOW_MAX_POOL_BWD:
        case INFINIOP_WINDOW_AVG_POOL_BWD:
        case INFINIOP_WINDOW_UPSAMPLE_NEAREST_BWD:
        case INFINIOP_WINDOW_UPSAMPLE_BILINEAR_BWD:
        case INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD: return a.n * a.c * a.h * a.w;
        default: return a.n * a.c * a.oh * a.ow;
    }
}

// Elements the op reads from `in`.
int64_t inputElements(const infiniopWindowArgs_t &a) {
    switch (a.op) {
        case INFINIOP_WINDOW_IM2COL:
        case INFINIOP_WINDOW_MAX_POOL:
        case INFINIOP_WINDOW_AVG_POOL:
        case INFINIOP_WINDOW_UPSAMPLE_NEAREST:
        case INFINIOP_WINDOW_UPSAMPLE_BILINEAR:
        case INFINIOP_WINDOW_ADAPTIVE_AVG_POOL: return a.n * a.c * a.h * a.w;
        case INFINIOP_WINDOW_COL2IM: return a.n * a.c * a.kh * a.kw * a.oh * a.ow;
        default: return a.n * a.c * a.oh * a.ow;
    }
}

infiniStatus_t check(const infiniopWindowArgs_t &a) {
    if (a.dtype != INFINI_DTYPE_F32 && a.dtype != INFINI_DTYPE_F16 && a.dtype != INFINI_DTYPE_BF16 &&
        a.dtype != INFINI_DTYPE_F64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "window: dtype %d is not F16, BF16, F32 or F64", a.dtype);
    }
    if (a.n < 0 || a.c < 0 || a.h < 0 || a.w < 0 || a.oh < 0 || a.ow < 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "window: negative extent");
    }
    if (usesKernel(a.op)) {
        if (a.kh < 1 || a.kw < 1 || a.sh < 1 || a.sw < 1 || a.dh < 1 || a.dw < 1 || a.ph < 0 || a.pw < 0) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "window: kernel %dx%d, stride %dx%d, dilation %dx%d must be positive and padding %dx%d "
                        "not negative",
                        a.kh, a.kw, a.sh, a.sw, a.dh, a.dw, a.ph, a.pw);
        }
    }
    const bool pooled = a.op == INFINIOP_WINDOW_ADAPTIVE_AVG_POOL || a.op == INFINIOP_WINDOW_ADAPTIVE_AVG_POOL_BWD;
    if (pooled && a.n * a.c > 0 && ((a.oh > 0 && a.h == 0) || (a.ow > 0 && a.w == 0))) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "window: adaptive pooling of an empty image");
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

infiniStatus_t window(const infiniopWindowArgs_t &a, infinirtStream_t stream) {
    if (a.op < 0 || a.op >= INFINIOP_WINDOW_OP_END) return fail(INFINI_STATUS_BAD_PARAM, "window: op %d", a.op);
    INFINI_RETURN_IF_ERROR(check(a));
    if (outputElements(a) == 0) return INFINI_STATUS_SUCCESS;
    const int64_t grid = a.n * a.c * a.oh * a.ow;
    if (a.out == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "window: out is NULL");
    if (a.in == nullptr && inputElements(a) > 0) return fail(INFINI_STATUS_NULL_POINTER, "window: in is NULL");
    if ((a.op == INFINIOP_WINDOW_MAX_POOL || a.op == INFINIOP_WINDOW_MAX_POOL_BWD) && grid > 0 &&
        a.indices == nullptr) {
        return fail(INFINI_STATUS_NULL_POINTER, "window: max pooling needs indices");
    }
    auto args = std::make_shared<infiniopWindowArgs_t>(a);
    return submit(stream, [args] {
        switch (args->dtype) {
            case INFINI_DTYPE_F32: run<float>(*args); break;
            case INFINI_DTYPE_F16: run<f16>(*args); break;
            case INFINI_DTYPE_BF16: run<bf16>(*args); break;
            default: run<double>(*args); break;
        }
    });
}

}  // namespace infini::cpu::families
