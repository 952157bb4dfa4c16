// window_math.h: the index arithmetic of the window family (families.h), once for every backend (host C++ and
// CUDA): the input rows a pooling window covers and its divisor, torch's adaptive windows, the nearest-neighbour
// source of an output pixel and the two bilinear sources with their weights. Each function follows PyTorch's CPU
// kernels to the rounding: float scales where torch computes in float, the same clamping of edge windows.
// A function works on one dim; a 2-d op applies it to h and w.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define INFINI_WHD __host__ __device__ __forceinline__
#else
#define INFINI_WHD inline
#endif

namespace infini::window {

INFINI_WHD int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
INFINI_WHD int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

// Max pooling: output o's window holds the rows begin, begin + d, ... below end, all inside [0, in).
INFINI_WHD void maxPoolSpan(int64_t o, int64_t in, int k, int s, int p, int d, int64_t *begin, int64_t *end) {
    int64_t start = o * s - p;
    *end = imin(start + static_cast<int64_t>(k - 1) * d + 1, in);
    while (start < 0) start += d;
    *begin = start;
}

// Average pooling: output o's window clipped to [0, in) is [begin, end); returns the window's extent clipped only
// to the padded input [-p, in + p) (the count_include_pad divisor's factor).
INFINI_WHD int64_t avgPoolSpan(int64_t o, int64_t in, int k, int s, int p, int64_t *begin, int64_t *end) {
    int64_t start = o * s - p;
    int64_t stop = imin(start + k, in + p);
    *begin = imax(start, 0);
    *end = imin(stop, in);
    return stop - start;
}

// The divisor of one average-pooling window (h and w extents as avgPoolSpan gives them).
INFINI_WHD int64_t avgPoolDivisor(int64_t padded_h, int64_t padded_w, int64_t rows, int64_t cols, int count_include_pad,
                                  int64_t divisor_override) {
    if (divisor_override != 0) return divisor_override;  // (torch rejects 0 itself; a negative one divides too)
    return count_include_pad ? padded_h * padded_w : rows * cols;
}

// Adaptive pooling: output o of `out` covers input rows [floor(o * in / out), ceil((o + 1) * in / out)).
INFINI_WHD int64_t adaptiveBegin(int64_t o, int64_t out, int64_t in) { return (o / out) * in + ((o % out) * in) / out; }
INFINI_WHD int64_t adaptiveEnd(int64_t o, int64_t out, int64_t in) { return 1 + ((o + 1) * in - 1) / out; }

// Nearest: the float ratio torch uses (ratio > 0: given as input / output, else derived from the sizes).
INFINI_WHD float nearestScale(int64_t in, int64_t out, double ratio) {
    return ratio > 0 ? static_cast<float>(ratio) : static_cast<float>(in) / static_cast<float>(out);
}
INFINI_WHD int64_t nearestSource(int64_t o, int64_t in, int64_t out, float scale) {
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    return imin(static_cast<int64_t>(floorf(static_cast<float>(o) * scale)), in - 1);
}

// Bilinear (A: float, or double for F64): the ratio, then the sources i0, i1 of output o with weights l0, l1.
template <class A>
INFINI_WHD A linearScale(int64_t in, int64_t out, int align_corners, double ratio) {
    if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
    return ratio > 0 ? static_cast<A>(ratio) : static_cast<A>(in) / static_cast<A>(out);
}
template <class A>
INFINI_WHD void linearSource(int64_t o, int64_t in, int64_t out, A scale, int align_corners, int64_t *i0, int64_t *i1,
                             A *l0, A *l1) {
    if (out == in) {  // torch copies: both sources the same row, all weight on the first
        *i0 = *i1 = o;
        *l0 = A(1);
        *l1 = A(0);
        return;
    }
    A real = align_corners ? scale * static_cast<A>(o) : scale * (static_cast<A>(o) + A(0.5)) - A(0.5);
    if (real < A(0)) real = A(0);
    *i0 = imin(static_cast<int64_t>(floorf(static_cast<float>(real))), in - 1);
    A lambda = real - static_cast<A>(*i0);
    *l1 = lambda < A(0) ? A(0) : lambda > A(1) ? A(1) : lambda;
    *i1 = *i0 + (*i0 < in - 1 ? 1 : 0);
    *l0 = A(1) - *l1;
}

}  // namespace infini::window
