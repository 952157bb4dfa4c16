// reduce.cpp: the reduce family on the cpu backend (infiniopReduce).
//
// Geometry: the iteration space splits into kept dims (output 0 has a stride there) and reduced dims (stride 0,
// extent > 1); dims of extent 1 drop out. Each of the M outputs combines N input elements. Two walks:
// - inner: per output, runs along the reduced dim of smallest input stride (row sums: one contiguous run);
// - outer: where a kept dim has the smallest input stride (column sums), blocks of up to kLanes outputs along it
//   advance together through the reduced space, one contiguous row of lanes a step (so the input streams).
// Work splits over outputs when there are enough of them, else the reduced space splits into chunks whose
// partial results merge in chunk order (so a result never depends on timing).
//
// Accuracy: float sums are pairwise within a run and cascade across runs and lane blocks (Sum below), so the
// error grows with the logarithm of N; 16-bit floats accumulate in float32, integers in int64. VAR / STD are
// two-pass (the mean, then the sums of the deviations and of their squares, which corrects the mean's error).
// Max / min propagate NaN; ARG ops keep the first index of ties and the first NaN.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "../../common/error.h"
#include "../ops/reduce.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

using ops::avx2::exp256;
using ops::avx2::hsum256;
using ops::avx2::load8;
using ops::avx2::parallelism;

constexpr int64_t kLanes = 8192;   // outputs an outer-walk block advances together: whole rows, so the input
                                   // streams (a narrower block jumps a page every step, bound by latency)
constexpr int64_t kBlock = 64;     // reduced steps the outer walk adds into a lane partial before it cascades
constexpr int64_t kGrain = 16384;  // input elements a chunk of a split reduction holds at least

// ---- geometry ----

struct Axis {
    int64_t size = 1;
    int64_t in = 0;       // input byte stride
    int64_t out[2] = {};  // kept dims: output byte strides
    int64_t index = 0;    // reduced dims: the step of the ARG index along the dim
};

struct Geometry {
    int nk = 0, nr = 0;
    Axis k[INFINIOP_MAX_DIMS], r[INFINIOP_MAX_DIMS];  // each sorted by |input stride|, smallest first
    int64_t M = 1, N = 1;
    bool outer = false;
    const char *in = nullptr;
    char *out[2] = {};
};

// The ARG index is the coordinate along the reduced dims in iteration order (dim 0 fastest): with one reduced
// dim, the coordinate along it.
Geometry geometryOf(const infiniopIter_t &it, int nout) {
    Geometry g;
    const int64_t ein = elementSize(it.dtype[nout]);
    int64_t step = 1;
    for (int d = 0; d < it.ndim; ++d) {
        if (it.shape[d] == 1) continue;
        Axis a;
        a.size = it.shape[d];
        a.in = it.strides[nout][d] * ein;
        if (it.strides[0][d] == 0) {
            a.index = step;
            step *= a.size;
            g.r[g.nr++] = a;
        } else {
            for (int k = 0; k < nout; ++k) a.out[k] = it.strides[k][d] * elementSize(it.dtype[k]);
            g.k[g.nk++] = a;
        }
    }
    auto byStride = [](const Axis &x, const Axis &y) { return std::llabs(x.in) < std::llabs(y.in); };
    std::stable_sort(g.k, g.k + g.nk, byStride);
    std::stable_sort(g.r, g.r + g.nr, byStride);
    const bool reduces = g.nr > 0;
    if (!reduces) g.r[g.nr++] = Axis{};  // one element an output
    for (int d = 0; d < g.nk; ++d) g.M *= g.k[d].size;
    for (int d = 0; d < g.nr; ++d) g.N *= g.r[d].size;
    g.outer = g.nk > 0 && (!reduces || std::llabs(g.k[0].in) < std::llabs(g.r[0].in));
    g.in = static_cast<const char *>(it.data[nout]);
    g.out[0] = static_cast<char *>(it.data[0]);
    g.out[1] = nout > 1 ? static_cast<char *>(it.data[1]) : nullptr;
    return g;
}

// Byte offsets of output o (kept dims, k[0] fastest).
struct Kept {
    int64_t in = 0, out[2] = {};
};

Kept keptAt(const Geometry &g, int64_t o) {
    Kept p;
    for (int d = 0; d < g.nk && o > 0; ++d) {
        const int64_t c = o % g.k[d].size;
        o /= g.k[d].size;
        p.in += c * g.k[d].in;
        p.out[0] += c * g.k[d].out[0];
        p.out[1] += c * g.k[d].out[1];
    }
    return p;
}

// Calls fn(offset, n, index) for each run along r[0] of the reduced range [begin, end) (linear, r[0] fastest):
// offset is the input byte offset of the run's first element, index its ARG index.
template <class Fn>
void forEachReducedRun(const Geometry &g, int64_t begin, int64_t end, Fn &&fn) {
    int64_t idx[INFINIOP_MAX_DIMS] = {};
    int64_t rest = begin;
    for (int d = 0; d < g.nr; ++d) {
        idx[d] = rest % g.r[d].size;
        rest /= g.r[d].size;
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t off = 0, ai = 0;
        for (int d = 0; d < g.nr; ++d) {
            off += idx[d] * g.r[d].in;
            ai += idx[d] * g.r[d].index;
        }
        const int64_t n = std::min(g.r[0].size - idx[0], end - pos);
        fn(off, n, ai);
        pos += n;
        idx[0] += n;
        for (int d = 0; d + 1 < g.nr && idx[d] >= g.r[d].size; ++d) {
            idx[d] = 0;
            ++idx[d + 1];
        }
    }
}

// ---- loads ----

struct Bool8 {
    uint8_t v;
};

template <class C, class T>
inline C convert(T v) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        return static_cast<C>(toFloat(v));
    } else if constexpr (std::is_same_v<T, Bool8>) {
        return static_cast<C>(v.v != 0);
    } else {
        return static_cast<C>(v);
    }
}

// A load of storage type T into compute type C.
template <class T, class C>
struct Typed {
    using Storage = T;
    using Compute = C;
    static constexpr bool kTyped = true;
    C operator()(const char *p) const { return convert<C>(*reinterpret_cast<const T *>(p)); }
};

// A load by the dtype known at run time (the combinations no typed loop covers).
template <class C>
struct Dynamic {
    using Storage = void;
    using Compute = C;
    static constexpr bool kTyped = false;
    infiniDtype_t t;
    C operator()(const char *p) const { return load<C>(p, t); }
};

// True for the loads with 8-lane AVX2 loops: float, float16 or bfloat16 into float.
template <class Ld>
constexpr bool kVec8 = Ld::kTyped && std::is_same_v<typename Ld::Compute, float> &&
                       (std::is_same_v<typename Ld::Storage, float> || std::is_same_v<typename Ld::Storage, f16> ||
                        std::is_same_v<typename Ld::Storage, bf16>);

template <class Ld>
constexpr int64_t storageSize() {
    if constexpr (Ld::kTyped) {
        return sizeof(typename Ld::Storage);
    } else {
        return 0;
    }
}

template <class C>
inline bool isNan(C x) {
    if constexpr (std::is_floating_point_v<C>) {
        return x != x;
    } else {
        return false;
    }
}

// Calls body(load) with the load for input dtype t into compute type C.
template <class C, class Body>
void withLoad(infiniDtype_t t, Body &&body) {
    if constexpr (std::is_same_v<C, float>) {
        switch (t) {
            case INFINI_DTYPE_F32: return body(Typed<float, float>{});
            case INFINI_DTYPE_F16: return body(Typed<f16, float>{});
            case INFINI_DTYPE_BF16: return body(Typed<bf16, float>{});
            default: return body(Dynamic<float>{t});
        }
    } else if constexpr (std::is_same_v<C, double>) {
        if (t == INFINI_DTYPE_F64) return body(Typed<double, double>{});
        return body(Dynamic<double>{t});
    } else {
        switch (t) {
            case INFINI_DTYPE_I64: return body(Typed<int64_t, int64_t>{});
            case INFINI_DTYPE_I32: return body(Typed<int32_t, int64_t>{});
            case INFINI_DTYPE_I16: return body(Typed<int16_t, int64_t>{});
            case INFINI_DTYPE_I8: return body(Typed<int8_t, int64_t>{});
            case INFINI_DTYPE_U8: return body(Typed<uint8_t, int64_t>{});
            case INFINI_DTYPE_BOOL: return body(Typed<Bool8, int64_t>{});
            default: return body(Dynamic<int64_t>{t});
        }
    }
}

// ---- sums ----

// A sum over many terms: terms add into level 0; every kFan additions a level carries into the next, so each
// addition meets partial sums of similar size (the error grows with the logarithm of the count of terms).
template <class C>
struct Sum {
    static constexpr int kLevels = 8, kFan = 16;
    C level[kLevels] = {};
    int count[kLevels] = {};
    void add(C v) {
        level[0] += v;
        for (int i = 0; ++count[i] == kFan && i + 1 < kLevels; ++i) {
            level[i + 1] += level[i];
            level[i] = C(0);
            count[i] = 0;
        }
    }
    C total() const {
        C s = level[0];
        for (int i = 1; i < kLevels; ++i) s += level[i];
        return s;
    }
};
template <>
struct Sum<int64_t> {  // exact (wrapping), as torch's int64 sums
    int64_t v = 0;
    void add(int64_t x) { v = static_cast<int64_t>(static_cast<uint64_t>(v) + static_cast<uint64_t>(x)); }
    int64_t total() const { return v; }
};

// The terms of the sum-like reductions: term(x, local) with a global parameter (NORM's p) and a per-output one
// (LOGSUMEXP's max); vec is the 8-lane float form where there is one.
template <class C>
struct TermId {
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C) const { return x; }
    __m256 vec(__m256 x, __m256) const { return x; }
};
template <class C>
struct TermNanZero {
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C) const { return isNan(x) ? C(0) : x; }
    __m256 vec(__m256 x, __m256) const { return _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q)); }
};
template <class C>
struct TermAbs {
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C) const { return x < C(0) ? -x : x; }
    __m256 vec(__m256 x, __m256) const { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
};
template <class C>
struct TermSquare {
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C) const { return x * x; }
    __m256 vec(__m256 x, __m256) const { return _mm256_mul_ps(x, x); }
};
template <class C>
struct TermNonZero {  // 1 where x != 0 (NaN counts)
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C) const { return x != C(0) ? C(1) : C(0); }
    __m256 vec(__m256 x, __m256) const {
        return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NEQ_UQ), _mm256_set1_ps(1.0f));
    }
};
template <class C>
struct TermPowAbs {  // |x|^p
    C global;
    static constexpr bool kVec = false;
    C operator()(C x, C) const { return std::pow(std::fabs(x), global); }
    __m256 vec(__m256 x, __m256) const { return x; }
};
template <class C>
struct TermExp {  // e^(x - local)
    C global;
    static constexpr bool kVec = true;
    C operator()(C x, C local) const { return std::exp(x - local); }
    __m256 vec(__m256 x, __m256 local) const { return exp256(_mm256_sub_ps(x, local)); }
};

// sum of term(x) over a contiguous run of 16/32-bit floats: four vector accumulators, pairwise above 4096.
template <class T, class Term>
float sumVec(const T *p, int64_t n, const Term &term, float local) {
    if (n > 4096) {
        const int64_t h = (n / 2) & ~int64_t(31);
        return sumVec(p, h, term, local) + sumVec(p + h, n - h, term, local);
    }
    const __m256 vl = _mm256_set1_ps(local);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm256_add_ps(a0, term.vec(load8(p + i), vl));
        a1 = _mm256_add_ps(a1, term.vec(load8(p + i + 8), vl));
        a2 = _mm256_add_ps(a2, term.vec(load8(p + i + 16), vl));
        a3 = _mm256_add_ps(a3, term.vec(load8(p + i + 24), vl));
    }
    for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, term.vec(load8(p + i), vl));
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; i < n; ++i) s += term(convert<float>(p[i]), local);
    return s;
}

// sum of term(x) over a strided run, any load: pairwise for floats, exact for integers.
template <class Ld, class Term, class C>
C sumRun(const Ld &ld, const Term &term, const char *p, int64_t s, int64_t n, C local) {
    if constexpr (std::is_integral_v<C>) {
        uint64_t acc = 0;  // wraps as torch's int64 sums do
        if constexpr (Ld::kTyped) {
            if (s == storageSize<Ld>()) {
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                for (int64_t j = 0; j < n; ++j) acc += static_cast<uint64_t>(term(convert<C>(q[j]), local));
                return static_cast<C>(acc);
            }
        }
        for (int64_t j = 0; j < n; ++j) acc += static_cast<uint64_t>(term(ld(p + j * s), local));
        return static_cast<C>(acc);
    } else {
        if (n > 1024) {
            const int64_t h = n / 2;
            return sumRun(ld, term, p, s, h, local) + sumRun(ld, term, p + h * s, s, n - h, local);
        }
        C a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        int64_t j = 0;
        for (; j + 4 <= n; j += 4) {
            a0 += term(ld(p + j * s), local);
            a1 += term(ld(p + (j + 1) * s), local);
            a2 += term(ld(p + (j + 2) * s), local);
            a3 += term(ld(p + (j + 3) * s), local);
        }
        for (; j < n; ++j) a0 += term(ld(p + j * s), local);
        return (a0 + a1) + (a2 + a3);
    }
}

// ---- policies: how the elements of one output combine ----
// Each has Acc (one output's accumulator) and:
//   init(acc, o)                       a fresh accumulator for output o;
//   run(acc, p, stride, n, index, step) the inner walk: n elements from p (byte stride), ARG indices index + j * step;
//   lanesBegin / lanesStep / lanesEnd  the outer walk over fresh accumulators, with its Lanes state: a step adds one
//                                      element to each of w neighbouring outputs;
//   merge(acc, later)                  a split reduction: the partial of the next chunk of the reduced range;
//   finish(acc, o, out0, out1)         stores the result(s).

// How a sum becomes its output.
enum class Fin { kSum, kMean, kSqrt, kRoot, kLse };

template <class Ld, template <class> class TermT>
struct SumPolicy {
    using C = typename Ld::Compute;
    using Term = TermT<C>;
    struct Acc {
        Sum<C> s;
        C local = C(0);
    };
    struct Lanes {
        C part[kLanes];
        C local[kLanes];
        int steps;
    };
    Ld ld;
    Term term;
    Fin fin;
    int64_t n;  // elements an output
    infiniDtype_t tout;
    const C *locals;  // per-output parameter (NULL: none)
    C *sink;          // when set, results go here (by output) instead of to output 0

    void init(Acc &a, int64_t o) const {
        a = Acc{};
        if (locals) a.local = locals[o];
    }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        if constexpr (kVec8<Ld> && Term::kVec) {
            if (s == storageSize<Ld>()) {
                a.s.add(sumVec(reinterpret_cast<const typename Ld::Storage *>(p), cnt, term, a.local));
                return;
            }
        }
        a.s.add(sumRun(ld, term, p, s, cnt, a.local));
    }
    void merge(Acc &a, const Acc &b) const { a.s.add(b.s.total()); }
    void lanesBegin(Lanes &L, const Acc *accs, int64_t w) const {
        for (int64_t l = 0; l < w; ++l) {
            L.part[l] = C(0);
            L.local[l] = accs[l].local;
        }
        L.steps = 0;
    }
    void lanesStep(Lanes &L, Acc *accs, const char *p, int64_t ls, int64_t w, int64_t) const {
        int64_t l = 0;
        if constexpr (kVec8<Ld> && Term::kVec) {
            if (ls == storageSize<Ld>()) {
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                for (; l + 8 <= w; l += 8) {
                    __m256 v = term.vec(load8(q + l), _mm256_loadu_ps(L.local + l));
                    _mm256_storeu_ps(L.part + l, _mm256_add_ps(_mm256_loadu_ps(L.part + l), v));
                }
            }
        }
        for (; l < w; ++l) L.part[l] += term(ld(p + l * ls), L.local[l]);
        if (++L.steps == kBlock) lanesEnd(L, accs, w);
    }
    void lanesEnd(Lanes &L, Acc *accs, int64_t w) const {
        if (L.steps == 0) return;
        for (int64_t l = 0; l < w; ++l) {
            accs[l].s.add(L.part[l]);
            L.part[l] = C(0);
        }
        L.steps = 0;
    }
    C value(const Acc &a) const {
        const C t = a.s.total();
        switch (fin) {
            case Fin::kMean: return t / static_cast<C>(n);
            case Fin::kSqrt: return static_cast<C>(std::sqrt(t));
            case Fin::kRoot: return static_cast<C>(std::pow(t, C(1) / term.global));
            case Fin::kLse: return static_cast<C>(std::log(t)) + a.local;
            default: return t;
        }
    }
    void finish(const Acc &a, int64_t o, char *o0, char *) const {
        if (sink) {
            sink[o] = value(a);
        } else {
            store<C>(o0, tout, value(a));
        }
    }
};

// VAR / STD after the mean mu: sums of d = x - mu and of d^2; var = (sum d^2 - (sum d)^2 / n) / (n - correction).
template <class Ld>
struct MomentsPolicy {
    using C = typename Ld::Compute;
    struct Acc {
        Sum<C> s1, s2;
        C mu = C(0);
    };
    struct Lanes {
        C p1[kLanes], p2[kLanes], mu[kLanes];
        int steps;
    };
    Ld ld;
    const C *means;
    double correction;
    bool take_sqrt;
    int64_t n;
    infiniDtype_t t0, t1;  // t1: INVALID when there is no mean output

    void init(Acc &a, int64_t o) const {
        a = Acc{};
        a.mu = means[o];
    }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        if constexpr (kVec8<Ld>) {
            if (s == storageSize<Ld>()) {
                runVec(a, reinterpret_cast<const typename Ld::Storage *>(p), cnt);
                return;
            }
        }
        for (int64_t j0 = 0; j0 < cnt; j0 += 1024) {  // blocks of 1024 cascade
            C b1 = 0, b2 = 0;
            for (int64_t j = j0; j < std::min(cnt, j0 + 1024); ++j) {
                const C d = ld(p + j * s) - a.mu;
                b1 += d;
                b2 += d * d;
            }
            a.s1.add(b1);
            a.s2.add(b2);
        }
    }
    template <class T>
    void runVec(Acc &a, const T *p, int64_t cnt) const {
        const __m256 vm = _mm256_set1_ps(static_cast<float>(a.mu));
        int64_t i = 0;
        while (i < cnt) {
            const int64_t end = std::min(cnt, i + 2048);
            __m256 s1 = _mm256_setzero_ps(), s2 = s1, t1 = s1, t2 = s1;
            for (; i + 16 <= end; i += 16) {
                __m256 d0 = _mm256_sub_ps(load8(p + i), vm), d1 = _mm256_sub_ps(load8(p + i + 8), vm);
                s1 = _mm256_add_ps(s1, d0);
                s2 = _mm256_fmadd_ps(d0, d0, s2);
                t1 = _mm256_add_ps(t1, d1);
                t2 = _mm256_fmadd_ps(d1, d1, t2);
            }
            float b1 = hsum256(_mm256_add_ps(s1, t1)), b2 = hsum256(_mm256_add_ps(s2, t2));
            for (; i < end; ++i) {
                const float d = convert<float>(p[i]) - static_cast<float>(a.mu);
                b1 += d;
                b2 += d * d;
            }
            a.s1.add(b1);
            a.s2.add(b2);
        }
    }
    void merge(Acc &a, const Acc &b) const {
        a.s1.add(b.s1.total());
        a.s2.add(b.s2.total());
    }
    void lanesBegin(Lanes &L, const Acc *accs, int64_t w) const {
        for (int64_t l = 0; l < w; ++l) {
            L.p1[l] = L.p2[l] = C(0);
            L.mu[l] = accs[l].mu;
        }
        L.steps = 0;
    }
    void lanesStep(Lanes &L, Acc *accs, const char *p, int64_t ls, int64_t w, int64_t) const {
        int64_t l = 0;
        if constexpr (kVec8<Ld>) {
            if (ls == storageSize<Ld>()) {
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                for (; l + 8 <= w; l += 8) {
                    const __m256 d = _mm256_sub_ps(load8(q + l), _mm256_loadu_ps(L.mu + l));
                    _mm256_storeu_ps(L.p1 + l, _mm256_add_ps(_mm256_loadu_ps(L.p1 + l), d));
                    _mm256_storeu_ps(L.p2 + l, _mm256_fmadd_ps(d, d, _mm256_loadu_ps(L.p2 + l)));
                }
            }
        }
        for (; l < w; ++l) {
            const C d = ld(p + l * ls) - L.mu[l];
            L.p1[l] += d;
            L.p2[l] += d * d;
        }
        if (++L.steps == kBlock) lanesEnd(L, accs, w);
    }
    void lanesEnd(Lanes &L, Acc *accs, int64_t w) const {
        if (L.steps == 0) return;
        for (int64_t l = 0; l < w; ++l) {
            accs[l].s1.add(L.p1[l]);
            accs[l].s2.add(L.p2[l]);
            L.p1[l] = L.p2[l] = C(0);
        }
        L.steps = 0;
    }
    void finish(const Acc &a, int64_t, char *o0, char *o1) const {
        const C s1 = a.s1.total(), s2 = a.s2.total(), cnt = static_cast<C>(n);
        C m2 = s2 - s1 * s1 / cnt;
        if (m2 < C(0)) m2 = C(0);  // rounding only; NaN passes
        const C dof = std::max(C(0), static_cast<C>(static_cast<double>(n) - correction));
        const C var = m2 / dof;
        store<C>(o0, t0, take_sqrt ? static_cast<C>(std::sqrt(var)) : var);
        if (t1 != INFINI_DTYPE_INVALID) store<C>(o1, t1, a.mu + s1 / cnt);
    }
};

// ---- the other combinations ----

// The outer walk of policies that combine each element straight into its output's accumulator:
// Self::step(acc, x, index) for lane after lane.
template <class Self>
struct ScalarLanes {
    struct Lanes {};
    template <class Acc>
    void lanesBegin(Lanes &, const Acc *, int64_t) const {}
    template <class Acc>
    void lanesStep(Lanes &, Acc *accs, const char *p, int64_t ls, int64_t w, int64_t index) const {
        const Self &self = static_cast<const Self &>(*this);
        for (int64_t l = 0; l < w; ++l) self.step(accs[l], self.ld(p + l * ls), index);
    }
    template <class Acc>
    void lanesEnd(Lanes &, Acc *, int64_t) const {}
};

template <class Ld>
struct ProdPolicy : ScalarLanes<ProdPolicy<Ld>> {
    using C = typename Ld::Compute;
    using Acc = C;
    Ld ld;
    infiniDtype_t tout;
    void init(Acc &a, int64_t) const { a = C(1); }
    static void step(Acc &a, C x, int64_t) {
        if constexpr (std::is_integral_v<C>) {
            a = static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(x));  // wraps as torch's do
        } else {
            a *= x;
        }
    }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        int64_t j = 0;
        if constexpr (kVec8<Ld>) {
            if (s == storageSize<Ld>() && cnt >= 16) {  // eight lanes of products (torch's vector loop, alike)
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                __m256 p0 = _mm256_set1_ps(1.0f), p1 = p0;
                for (; j + 16 <= cnt; j += 16) {
                    p0 = _mm256_mul_ps(p0, load8(q + j));
                    p1 = _mm256_mul_ps(p1, load8(q + j + 8));
                }
                alignas(32) float lanes[8];
                _mm256_store_ps(lanes, _mm256_mul_ps(p0, p1));
                for (float v : lanes) a *= v;
            }
        }
        for (; j < cnt; ++j) step(a, ld(p + j * s), 0);
    }
    void merge(Acc &a, const Acc &b) const { step(a, b, 0); }
    void finish(const Acc &a, int64_t, char *o0, char *) const { store<C>(o0, tout, a); }
};

// Max / min of x (or of |x|): NaN wins.
template <class Ld, bool kMax, bool kAbs>
struct MinMaxPolicy {
    using C = typename Ld::Compute;
    struct Acc {
        C v;
        bool nan;
    };
    struct Lanes {  // the accumulators as arrays, so the lanes loop vectorizes
        C v[kLanes];
        uint8_t nan[kLanes];
    };
    Ld ld;
    infiniDtype_t tout;
    C *sink;

    static C identity() {
        if constexpr (std::is_floating_point_v<C>) {
            return kMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
        } else {
            return kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
        }
    }
    static C term(C x) {
        if constexpr (kAbs) return x < C(0) ? -x : x;
        return x;
    }
    static void take(Acc &a, C x) {
        a.nan = a.nan || isNan(x);
        a.v = kMax ? (x > a.v ? x : a.v) : (x < a.v ? x : a.v);
    }
    void init(Acc &a, int64_t) const {
        a.v = identity();
        a.nan = false;
    }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        if constexpr (kVec8<Ld>) {
            if (s == storageSize<Ld>()) {
                runVec(a, reinterpret_cast<const typename Ld::Storage *>(p), cnt);
                return;
            }
        }
        for (int64_t j = 0; j < cnt; ++j) take(a, term(ld(p + j * s)));
    }
    template <class T>
    static void runVec(Acc &a, const T *p, int64_t cnt) {
        int64_t i = 0;
        if (cnt >= 16) {
            __m256 m0 = _mm256_set1_ps(identity()), m1 = m0, bad = _mm256_setzero_ps();
            for (; i + 16 <= cnt; i += 16) {
                __m256 x0 = load8(p + i), x1 = load8(p + i + 8);
                if constexpr (kAbs) {
                    x0 = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x0);
                    x1 = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x1);
                }
                bad = _mm256_or_ps(bad, _mm256_cmp_ps(x0, x1, _CMP_UNORD_Q));
                m0 = kMax ? _mm256_max_ps(m0, x0) : _mm256_min_ps(m0, x0);
                m1 = kMax ? _mm256_max_ps(m1, x1) : _mm256_min_ps(m1, x1);
            }
            alignas(32) float lanes[16];
            _mm256_store_ps(lanes, m0);
            _mm256_store_ps(lanes + 8, m1);
            for (float v : lanes) take(a, v);
            a.nan = a.nan || _mm256_movemask_ps(bad) != 0;
        }
        for (; i < cnt; ++i) take(a, term(convert<float>(p[i])));
    }
    void merge(Acc &a, const Acc &b) const {
        take(a, b.v);
        a.nan = a.nan || b.nan;
    }
    void lanesBegin(Lanes &L, const Acc *accs, int64_t w) const {
        for (int64_t l = 0; l < w; ++l) {
            L.v[l] = accs[l].v;
            L.nan[l] = accs[l].nan;
        }
    }
    void lanesStep(Lanes &L, Acc *, const char *p, int64_t ls, int64_t w, int64_t) const {
        if constexpr (Ld::kTyped) {
            if (ls == storageSize<Ld>()) {
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                for (int64_t l = 0; l < w; ++l) lane(L, l, term(convert<C>(q[l])));
                return;
            }
        }
        for (int64_t l = 0; l < w; ++l) lane(L, l, term(ld(p + l * ls)));
    }
    static void lane(Lanes &L, int64_t l, C x) {
        L.nan[l] |= isNan(x) ? 1 : 0;
        L.v[l] = kMax ? (x > L.v[l] ? x : L.v[l]) : (x < L.v[l] ? x : L.v[l]);
    }
    void lanesEnd(Lanes &L, Acc *accs, int64_t w) const {
        for (int64_t l = 0; l < w; ++l) accs[l] = Acc{L.v[l], L.nan[l] != 0};
    }
    C value(const Acc &a) const {
        if constexpr (std::is_floating_point_v<C>) {
            if (a.nan) return std::numeric_limits<C>::quiet_NaN();
        }
        return a.v;
    }
    void finish(const Acc &a, int64_t o, char *o0, char *) const {
        if (sink) {
            sink[o] = value(a);
        } else {
            store<C>(o0, tout, value(a));
        }
    }
};

// ARGMAX / ARGMIN (and the value too): the first index of the best value; a NaN beats every number.
template <class Ld, bool kMax>
struct ArgPolicy {
    using C = typename Ld::Compute;
    struct Acc {
        C v;
        int64_t i;
        bool set;
    };
    struct Lanes {  // the accumulators as arrays (from the first step on), so the lanes loop vectorizes
        C v[kLanes];
        int64_t i[kLanes];
        bool started;
    };
    Ld ld;
    bool with_value;  // outputs: value, index (else index)
    infiniDtype_t t0;

    static bool better(C x, const Acc &a) {
        if (!a.set) return true;
        if (isNan(a.v)) return false;
        if (isNan(x)) return true;
        return kMax ? x > a.v : x < a.v;
    }
    void init(Acc &a, int64_t) const {
        a.v = C(0);
        a.i = 0;
        a.set = false;
    }
    static void step(Acc &a, C x, int64_t index) {
        if (better(x, a)) a = Acc{x, index, true};
    }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t index, int64_t index_step) const {
        if constexpr (kVec8<Ld>) {
            if (s == storageSize<Ld>() && cnt >= 64) {
                runVec(a, reinterpret_cast<const typename Ld::Storage *>(p), cnt, index, index_step);
                return;
            }
        }
        for (int64_t j = 0; j < cnt; ++j) {
            if (a.set && isNan(a.v)) return;
            step(a, ld(p + j * s), index + j * index_step);
        }
    }
    // Two vector passes: the best value of the run (NaN first), then the first position holding it.
    template <class T>
    static void runVec(Acc &a, const T *p, int64_t cnt, int64_t index, int64_t index_step) {
        typename MinMaxPolicy<Ld, kMax, false>::Acc m{MinMaxPolicy<Ld, kMax, false>::identity(), false};
        MinMaxPolicy<Ld, kMax, false>::runVec(m, p, cnt);
        int64_t j = 0;
        if (m.nan) {
            while (!isNan(convert<float>(p[j]))) ++j;
        } else {
            const __m256 target = _mm256_set1_ps(m.v);
            for (; j + 8 <= cnt; j += 8) {
                const int mask = _mm256_movemask_ps(_mm256_cmp_ps(load8(p + j), target, _CMP_EQ_OQ));
                if (mask != 0) {
                    j += __builtin_ctz(static_cast<unsigned>(mask));
                    break;
                }
            }
            while (j < cnt && convert<float>(p[j]) != m.v) ++j;
        }
        const float v = convert<float>(p[j]);
        if (better(v, a)) a = Acc{v, index + j * index_step, true};
    }
    void merge(Acc &a, const Acc &b) const {
        if (b.set && better(b.v, a)) a = b;
    }
    // The outer walk starts on fresh accumulators: the first step takes its elements as they are.
    void lanesBegin(Lanes &L, const Acc *, int64_t) const { L.started = false; }
    void lanesStep(Lanes &L, Acc *, const char *p, int64_t ls, int64_t w, int64_t index) const {
        if constexpr (Ld::kTyped) {
            if (ls == storageSize<Ld>()) {
                const auto *q = reinterpret_cast<const typename Ld::Storage *>(p);
                lanesOf(L, w, index, [q](int64_t l) { return convert<C>(q[l]); });
                return;
            }
        }
        lanesOf(L, w, index, [&](int64_t l) { return ld(p + l * ls); });
    }
    template <class Get>
    static void lanesOf(Lanes &L, int64_t w, int64_t index, const Get &get) {
        if (!L.started) {
            for (int64_t l = 0; l < w; ++l) {
                L.v[l] = get(l);
                L.i[l] = index;
            }
            L.started = true;
            return;
        }
        for (int64_t l = 0; l < w; ++l) {  // x replaces v where it is better: larger (smaller), or the first NaN
            const C x = get(l), v = L.v[l];
            const bool take = (kMax ? x > v : x < v) || (isNan(x) && !isNan(v));
            L.v[l] = take ? x : v;
            L.i[l] = take ? index : L.i[l];
        }
    }
    void lanesEnd(Lanes &L, Acc *accs, int64_t w) const {
        if (!L.started) return;
        for (int64_t l = 0; l < w; ++l) accs[l] = Acc{L.v[l], L.i[l], true};
    }
    void finish(const Acc &a, int64_t, char *o0, char *o1) const {
        if (with_value) {
            store<C>(o0, t0, a.v);
            *reinterpret_cast<int64_t *>(o1) = a.i;
        } else {
            *reinterpret_cast<int64_t *>(o0) = a.i;
        }
    }
};

template <class Ld, bool kAll>
struct AnyAllPolicy : ScalarLanes<AnyAllPolicy<Ld, kAll>> {
    using C = typename Ld::Compute;
    using Acc = bool;
    Ld ld;
    infiniDtype_t tout;
    void init(Acc &a, int64_t) const { a = kAll; }
    static void step(Acc &a, C x, int64_t) { a = kAll ? (a && x != C(0)) : (a || x != C(0)); }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        if (a != kAll) return;  // decided
        for (int64_t j = 0; j < cnt; ++j) {
            if ((ld(p + j * s) != C(0)) != kAll) {
                a = !kAll;
                return;
            }
        }
    }
    void merge(Acc &a, const Acc &b) const { a = kAll ? (a && b) : (a || b); }
    void finish(const Acc &a, int64_t, char *o0, char *) const { store<int64_t>(o0, tout, a ? 1 : 0); }
};

template <class Ld>
struct CountPolicy : ScalarLanes<CountPolicy<Ld>> {
    using C = typename Ld::Compute;
    using Acc = int64_t;
    Ld ld;
    infiniDtype_t tout;
    void init(Acc &a, int64_t) const { a = 0; }
    static void step(Acc &a, C x, int64_t) { a += x != C(0) ? 1 : 0; }
    void run(Acc &a, const char *p, int64_t s, int64_t cnt, int64_t, int64_t) const {
        int64_t c = 0;
        for (int64_t j = 0; j < cnt; ++j) c += ld(p + j * s) != C(0) ? 1 : 0;
        a += c;
    }
    void merge(Acc &a, const Acc &b) const { a += b; }
    void finish(const Acc &a, int64_t, char *o0, char *) const { store<int64_t>(o0, tout, a); }
};

// ---- the walk ----

template <class P>
void reduceWith(const Geometry &g, const P &pol) {
    using Acc = typename P::Acc;
    const int64_t N = g.N;
    const int64_t k0 = g.outer ? g.k[0].size : 1;
    const int64_t nblocks = g.outer ? (k0 + kLanes - 1) / kLanes : 1;
    const int64_t tasks = g.outer ? nblocks * (g.M / k0) : g.M;
    const int64_t width = g.outer ? std::min(k0, kLanes) : 1;  // outputs a task holds, at most

    auto outputsOf = [&](int64_t t, int64_t &o0, int64_t &w) {
        if (!g.outer) {
            o0 = t;
            w = 1;
            return;
        }
        const int64_t b = t % nblocks;
        o0 = (t / nblocks) * k0 + b * kLanes;
        w = std::min(kLanes, k0 - b * kLanes);
    };
    // Adds the reduced range [r0, r1) of the outputs o0 .. o0 + w - 1 into accs.
    auto accumulate = [&](int64_t o0, int64_t w, Acc *accs, int64_t r0, int64_t r1) {
        const char *base = g.in + keptAt(g, o0).in;
        const Axis &r = g.r[0];
        if (!g.outer) {
            forEachReducedRun(g, r0, r1, [&](int64_t off, int64_t n, int64_t ai) {
                pol.run(accs[0], base + off, r.in, n, ai, r.index);
            });
            return;
        }
        std::unique_ptr<typename P::Lanes> lanes(new typename P::Lanes);  // up to kLanes partials, left uninitialised
        pol.lanesBegin(*lanes, accs, w);
        forEachReducedRun(g, r0, r1, [&](int64_t off, int64_t n, int64_t ai) {
            for (int64_t j = 0; j < n; ++j) {
                pol.lanesStep(*lanes, accs, base + off + j * r.in, g.k[0].in, w, ai + j * r.index);
            }
        });
        pol.lanesEnd(*lanes, accs, w);
    };
    auto finish = [&](int64_t o0, int64_t w, const Acc *accs) {
        const Kept kp = keptAt(g, o0);
        for (int64_t l = 0; l < w; ++l) {
            char *p0 = g.out[0] + kp.out[0] + l * g.k[0].out[0];
            char *p1 = g.out[1] ? g.out[1] + kp.out[1] + l * g.k[0].out[1] : nullptr;
            pol.finish(accs[l], o0 + l, p0, p1);
        }
    };

    const int64_t threads = static_cast<int64_t>(parallelism());
    const bool split = threads > 1 && tasks < 2 * threads && N * width >= 2 * kGrain;
    if (!split) {
        parallelFor(static_cast<size_t>(tasks), static_cast<size_t>(N * width), [&](size_t b, size_t e) {
            std::unique_ptr<Acc[]> held(new Acc[static_cast<size_t>(width)]);
            Acc *accs = held.get();
            for (size_t t = b; t < e; ++t) {
                int64_t o0, w;
                outputsOf(static_cast<int64_t>(t), o0, w);
                for (int64_t l = 0; l < w; ++l) pol.init(accs[l], o0 + l);
                accumulate(o0, w, accs, 0, N);
                finish(o0, w, accs);
            }
        });
        return;
    }
    // Few outputs, long reductions: chunk c of every task covers reduced range [N*c/chunks, N*(c+1)/chunks); about
    // one unit (task, chunk) a thread, so the partials (units * width accumulators) stay few.
    const int64_t chunks = std::max<int64_t>(2, std::min((threads + tasks - 1) / tasks, N * width / kGrain));
    const int64_t units = chunks * tasks;
    std::unique_ptr<Acc[]> part(new Acc[static_cast<size_t>(units * width)]);  // (Acc may be bool)
    parallelFor(static_cast<size_t>(units), static_cast<size_t>(N * width / chunks), [&](size_t b, size_t e) {
        for (size_t u = b; u < e; ++u) {
            const int64_t t = static_cast<int64_t>(u) / chunks, c = static_cast<int64_t>(u) % chunks;
            int64_t o0, w;
            outputsOf(t, o0, w);
            Acc *accs = part.get() + u * width;
            for (int64_t l = 0; l < w; ++l) pol.init(accs[l], o0 + l);
            accumulate(o0, w, accs, N * c / chunks, N * (c + 1) / chunks);
        }
    });
    for (int64_t t = 0; t < tasks; ++t) {
        int64_t o0, w;
        outputsOf(t, o0, w);
        Acc *first = part.get() + t * chunks * width;
        for (int64_t c = 1; c < chunks; ++c) {
            for (int64_t l = 0; l < w; ++l) pol.merge(first[l], first[c * width + l]);
        }
        finish(o0, w, first);
    }
}

// ---- the ops ----

struct Plan {
    infiniopReduceArgs_t a;
    Geometry g;
};

template <template <class> class Term, class Ld>
void sumOp(const Geometry &g, const Ld &ld, Fin fin, double global, infiniDtype_t tout,
           const typename Ld::Compute *locals = nullptr, typename Ld::Compute *sink = nullptr) {
    using C = typename Ld::Compute;
    SumPolicy<Ld, Term> pol{ld, Term<C>{static_cast<C>(global)}, fin, g.N, tout, locals, sink};
    reduceWith(g, pol);
}

template <class Ld, bool kMax>
void argOp(const Geometry &g, const Ld &ld, bool with_value, infiniDtype_t t0) {
    ArgPolicy<Ld, kMax> pol;
    pol.ld = ld;
    pol.with_value = with_value;
    pol.t0 = t0;
    reduceWith(g, pol);
}

template <class Ld, bool kMax, bool kAbs>
void minMaxOp(const Geometry &g, const Ld &ld, infiniDtype_t tout, typename Ld::Compute *sink = nullptr) {
    MinMaxPolicy<Ld, kMax, kAbs> pol;
    pol.ld = ld;
    pol.tout = tout;
    pol.sink = sink;
    reduceWith(g, pol);
}

template <class Ld>
void floatOnlyOp(const Plan &plan, const Ld &ld) {
    using C = typename Ld::Compute;
    const infiniopReduceArgs_t &a = plan.a;
    const Geometry &g = plan.g;
    const infiniDtype_t t0 = a.iter.dtype[0];
    switch (a.op) {
        case INFINIOP_REDUCE_NORM: {
            const double p = a.f[0];
            if (std::isinf(p)) {
                if (p > 0) {
                    minMaxOp<Ld, true, true>(g, ld, t0);
                } else {
                    minMaxOp<Ld, false, true>(g, ld, t0);
                }
            } else if (p == 0.0) {
                sumOp<TermNonZero>(g, ld, Fin::kSum, p, t0);
            } else if (p == 1.0) {
                sumOp<TermAbs>(g, ld, Fin::kSum, p, t0);
            } else if (p == 2.0) {
                sumOp<TermSquare>(g, ld, Fin::kSqrt, p, t0);
            } else {
                sumOp<TermPowAbs>(g, ld, Fin::kRoot, p, t0);
            }
            return;
        }
        case INFINIOP_REDUCE_VAR:
        case INFINIOP_REDUCE_STD: {
            std::vector<C> mean(static_cast<size_t>(g.M));
            sumOp<TermId>(g, ld, Fin::kMean, 0.0, INFINI_DTYPE_INVALID, nullptr, mean.data());
            MomentsPolicy<Ld> pol{ld,
                                  mean.data(),
                                  a.f[0],
                                  a.op == INFINIOP_REDUCE_STD,
                                  g.N,
                                  t0,
                                  a.noutputs > 1 ? a.iter.dtype[1] : INFINI_DTYPE_INVALID};
            reduceWith(g, pol);
            return;
        }
        case INFINIOP_REDUCE_LOGSUMEXP: {
            // log(sum(e^(x - m))) + m with m the max, or 0 where the max is infinite (as torch: an all -inf
            // slice gives -inf, a slice holding +inf gives +inf, NaN propagates)
            std::vector<C> m(static_cast<size_t>(g.M));
            minMaxOp<Ld, true, false>(g, ld, INFINI_DTYPE_INVALID, m.data());
            for (C &v : m) v = std::isinf(v) ? C(0) : v;
            sumOp<TermExp>(g, ld, Fin::kLse, 0.0, t0, m.data());
            return;
        }
        default: return;
    }
}

template <class C>
void runOp(const Plan &plan) {
    const infiniopReduceArgs_t &a = plan.a;
    const Geometry &g = plan.g;
    const infiniDtype_t t0 = a.iter.dtype[0];
    withLoad<C>(a.iter.dtype[a.noutputs], [&](auto ld) {
        using Ld = decltype(ld);
        switch (a.op) {
            case INFINIOP_REDUCE_SUM: return sumOp<TermId>(g, ld, Fin::kSum, 0.0, t0);
            case INFINIOP_REDUCE_NANSUM: return sumOp<TermNanZero>(g, ld, Fin::kSum, 0.0, t0);
            case INFINIOP_REDUCE_MEAN: return sumOp<TermId>(g, ld, Fin::kMean, 0.0, t0);
            case INFINIOP_REDUCE_PROD: {
                ProdPolicy<Ld> pol;
                pol.ld = ld;
                pol.tout = t0;
                return reduceWith(g, pol);
            }
            case INFINIOP_REDUCE_MAX: return minMaxOp<Ld, true, false>(g, ld, t0);
            case INFINIOP_REDUCE_MIN: return minMaxOp<Ld, false, false>(g, ld, t0);
            case INFINIOP_REDUCE_ARGMAX: return argOp<Ld, true>(g, ld, false, t0);
            case INFINIOP_REDUCE_ARGMIN: return argOp<Ld, false>(g, ld, false, t0);
            case INFINIOP_REDUCE_MAX_INDEX: return argOp<Ld, true>(g, ld, true, t0);
            case INFINIOP_REDUCE_MIN_INDEX: return argOp<Ld, false>(g, ld, true, t0);
            case INFINIOP_REDUCE_ANY: {
                AnyAllPolicy<Ld, false> pol;
                pol.ld = ld;
                pol.tout = t0;
                return reduceWith(g, pol);
            }
            case INFINIOP_REDUCE_ALL: {
                AnyAllPolicy<Ld, true> pol;
                pol.ld = ld;
                pol.tout = t0;
                return reduceWith(g, pol);
            }
            case INFINIOP_REDUCE_COUNT_NONZERO: {
                CountPolicy<Ld> pol;
                pol.ld = ld;
                pol.tout = t0;
                return reduceWith(g, pol);
            }
            default:
                if constexpr (std::is_floating_point_v<C>) floatOnlyOp(plan, ld);
                return;
        }
    });
}

bool floatOnly(infiniopReduceOp_t op) {
    return op == INFINIOP_REDUCE_NORM || op == INFINIOP_REDUCE_VAR || op == INFINIOP_REDUCE_STD ||
           op == INFINIOP_REDUCE_LOGSUMEXP;
}

infiniStatus_t checkArgs(const infiniopReduceArgs_t &a) {
    const infiniopIter_t &it = a.iter;
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    if (floatOnly(a.op) && a.compute == INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce op %d takes a float compute dtype", a.op);
    }
    int want = 1;
    if (a.op == INFINIOP_REDUCE_MAX_INDEX || a.op == INFINIOP_REDUCE_MIN_INDEX) want = 2;
    if ((a.op == INFINIOP_REDUCE_VAR || a.op == INFINIOP_REDUCE_STD) && a.noutputs == 2) want = 2;
    if (a.noutputs != want) {
        return fail(INFINI_STATUS_BAD_PARAM, "reduce op %d: %d outputs (expected %d)", a.op, a.noutputs, want);
    }
    const bool index_out =
        a.op == INFINIOP_REDUCE_ARGMAX || a.op == INFINIOP_REDUCE_ARGMIN || a.op == INFINIOP_REDUCE_COUNT_NONZERO;
    if (index_out && it.dtype[0] != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce op %d: output dtype %d is not I64", a.op, it.dtype[0]);
    }
    if (want == 2 && a.op != INFINIOP_REDUCE_VAR && a.op != INFINIOP_REDUCE_STD && it.dtype[1] != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce op %d: index output dtype %d is not I64", a.op,
                    it.dtype[1]);
    }
    if ((a.op == INFINIOP_REDUCE_ANY || a.op == INFINIOP_REDUCE_ALL) && it.dtype[0] != INFINI_DTYPE_BOOL &&
        it.dtype[0] != INFINI_DTYPE_U8) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce ANY/ALL: output dtype %d is not BOOL or U8", it.dtype[0]);
    }
    return INFINI_STATUS_SUCCESS;
}

}  // namespace

infiniStatus_t reduce(const infiniopReduceArgs_t &a, infinirtStream_t stream) {
    INFINI_RETURN_IF_ERROR(checkArgs(a));
    if (numel(a.iter) == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    plan->g = geometryOf(a.iter, a.noutputs);
    return submit(stream, [plan] {
        switch (plan->a.compute) {
            case INFINI_DTYPE_F32: runOp<float>(*plan); break;
            case INFINI_DTYPE_F64: runOp<double>(*plan); break;
            default: runOp<int64_t>(*plan); break;
        }
    });
}

}  // namespace infini::cpu::families
