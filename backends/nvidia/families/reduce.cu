// reduce.cu: the reduce family on the nvidia backend. The host splits the coalesced iteration space into kept dims
// (the outputs, M elements) and reduced dims (R elements each) and picks one of two layouts:
// - rows (reduceRow): the fastest dim is reduced: a warp per output, its lanes strided over the reduced elements;
// - columns (reduceCol): the fastest dim is kept: a thread per output (adjacent threads on adjacent outputs, so the
//   loads coalesce), blockDim.y threads splitting the reduced elements, combined in shared memory.
// When the outputs are too few to fill the device, the reduced elements are split over gridDim.y as well: each
// block writes a partial state to scratch memory and reduceFinish combines them (a warp per output), in a fixed
// order (results do not depend on timing). SUM and MEAN of F32 / F16 / BF16 inputs whose reduced (rows) or kept
// (columns) dim is contiguous and aligned load 16-byte pieces (V elements); every other case loads element by
// element through the dtype. Each op is one of five reducers, whose state is {a, b, n} in the compute type.
#include "../../common/pointwise_math.h"
#include "strided.cuh"

namespace infini::nvidia::families {
namespace {

template <class C>
struct State {
    C a;
    C b;
    int64_t n;
};

template <class C>
struct RedParams {
    const char *in;
    char *out0;
    char *out1;
    infiniDtype_t din, d0, d1;
    int op;
    int kind;    // the reducer's element transform (see each reducer)
    int is_min;  // ExtR: the least wins
    C init;      // ExtR: the value of an empty state
    double p;    // NORM's order
    double correction;
    int64_t M, R, chunk;  // outputs, reduced elements, reduced elements a split
    int S;                // splits (gridDim.y); > 1: partial states in `partial`, [S][M]
    int nk;
    int64_t kshape[kMaxDims];
    int64_t kstride[kMaxDims][3];  // bytes: in, out0, out1
    int nr;
    int64_t rshape[kMaxDims];
    int64_t rstride[kMaxDims];  // bytes, in
    State<C> *partial;
};

template <class C>
__device__ __forceinline__ bool isNan(C x) {
    if constexpr (std::is_integral_v<C>) {
        return false;
    } else {
        return x != x;
    }
}

template <class C>
__device__ __forceinline__ C absOf(C x) {
    return x < C(0) ? -x : x;  // (NaN stays NaN)
}

// SUM, MEAN, NANSUM, NORM (finite order), COUNT_NONZERO: a is the sum, n the count of nonzero elements.
// kind 0: x; 1: NaN as 0; 2: |x|; 3: x^2; 4: |x|^p; 5: count x != 0. PLAIN: kind 0 known at compile time.
template <class C, bool PLAIN = false>
struct SumR {
    enum { kPlain = 0, kNanAsZero, kAbs, kSquare, kPow, kCount };
    __device__ static void init(State<C> &s, const RedParams<C> &) { s = State<C>{C(0), C(0), 0}; }
    __device__ static void addValue(State<C> &s, C v) {
        if constexpr (std::is_integral_v<C>) {
            s.a = static_cast<C>(static_cast<uint64_t>(s.a) + static_cast<uint64_t>(v));  // wraps, as torch's
        } else {
            s.a += v;
        }
    }
    __device__ static void add(State<C> &s, C x, int64_t, const RedParams<C> &p) {
        if constexpr (PLAIN) {
            s.a += x;
        } else {
            switch (p.kind) {
                case kNanAsZero: addValue(s, isNan(x) ? C(0) : x); break;
                case kAbs: addValue(s, absOf(x)); break;
                case kSquare: addValue(s, x * x); break;
                case kPow:
                    if constexpr (!std::is_integral_v<C>) addValue(s, pw::fm::pow(absOf(x), static_cast<C>(p.p)));
                    break;
                case kCount: s.n += x != C(0) ? 1 : 0; break;
                default: addValue(s, x); break;
            }
        }
    }
    __device__ static void combine(State<C> &s, const State<C> &o, const RedParams<C> &) {
        addValue(s, o.a);
        s.n += o.n;
    }
    __device__ static void finish(const State<C> &s, const RedParams<C> &p, char *o0, char *) {
        if (p.op == INFINIOP_REDUCE_COUNT_NONZERO) return storeAs<int64_t>(o0, p.d0, s.n);
        if constexpr (!std::is_integral_v<C>) {
            if (p.op == INFINIOP_REDUCE_MEAN) return storeAs<C>(o0, p.d0, s.a / static_cast<C>(p.R));
            if (p.op == INFINIOP_REDUCE_NORM) {
                C r = s.a;
                if (p.p == 0.0) {
                    r = static_cast<C>(s.n);
                } else if (p.p == 2.0) {
                    r = pw::fm::sqrt(s.a);
                } else if (p.p != 1.0) {
                    r = pw::fm::pow(s.a, static_cast<C>(1.0 / p.p));
                }
                return storeAs<C>(o0, p.d0, r);
            }
        }
        storeAs<C>(o0, p.d0, s.a);
    }
};

// PROD.
template <class C>
struct ProdR {
    __device__ static void init(State<C> &s, const RedParams<C> &) { s = State<C>{C(1), C(0), 0}; }
    __device__ static void mul(State<C> &s, C v) {
        if constexpr (std::is_integral_v<C>) {
            s.a = static_cast<C>(static_cast<uint64_t>(s.a) * static_cast<uint64_t>(v));
        } else {
            s.a *= v;
        }
    }
    __device__ static void add(State<C> &s, C x, int64_t, const RedParams<C> &) { mul(s, x); }
    __device__ static void combine(State<C> &s, const State<C> &o, const RedParams<C> &) { mul(s, o.a); }
    __device__ static void finish(const State<C> &s, const RedParams<C> &p, char *o0, char *) {
        storeAs<C>(o0, p.d0, s.a);
    }
};

// MAX, MIN, ARGMAX, ARGMIN, MAX_INDEX, MIN_INDEX, ANY, ALL, NORM (order +-inf): a is the value, n its position in
// the reduced elements. The greatest (least with is_min) wins; a NaN beats every number; ties and NaNs go to the
// first position. kind 0: x; 1: x != 0 (ANY, ALL); 2: |x| (NORM).
template <class C>
struct ExtR {
    __device__ static void init(State<C> &s, const RedParams<C> &p) { s = State<C>{p.init, C(0), INT64_MAX}; }
    // Whether (v, i) replaces (w, j).
    __device__ static bool better(C v, int64_t i, C w, int64_t j, bool is_min) {
        if (isNan(w)) return isNan(v) && i < j;
        if (isNan(v)) return true;
        if (v == w) return i < j;
        return is_min ? v < w : v > w;
    }
    __device__ static void add(State<C> &s, C x, int64_t r, const RedParams<C> &p) {
        const C v = p.kind == 1 ? (x != C(0) ? C(1) : C(0)) : (p.kind == 2 ? absOf(x) : x);
        if (better(v, r, s.a, s.n, p.is_min)) {
            s.a = v;
            s.n = r;
        }
    }
    __device__ static void combine(State<C> &s, const State<C> &o, const RedParams<C> &p) {
        if (better(o.a, o.n, s.a, s.n, p.is_min)) {
            s.a = o.a;
            s.n = o.n;
        }
    }
    __device__ static void finish(const State<C> &s, const RedParams<C> &p, char *o0, char *o1) {
        switch (p.op) {
            case INFINIOP_REDUCE_ARGMAX:
            case INFINIOP_REDUCE_ARGMIN: return storeAs<int64_t>(o0, p.d0, s.n);
            case INFINIOP_REDUCE_MAX_INDEX:
            case INFINIOP_REDUCE_MIN_INDEX: storeAs<C>(o0, p.d0, s.a); return storeAs<int64_t>(o1, p.d1, s.n);
            default: return storeAs<C>(o0, p.d0, s.a);
        }
    }
};

// VAR, STD (Welford): a the mean, b the sum of squared deviations, n the count.
template <class C>
struct WelfordR {
    __device__ static void init(State<C> &s, const RedParams<C> &) { s = State<C>{C(0), C(0), 0}; }
    __device__ static void add(State<C> &s, C x, int64_t, const RedParams<C> &) {
        s.n += 1;
        const C delta = x - s.a;
        s.a += delta / static_cast<C>(s.n);
        s.b += delta * (x - s.a);
    }
    __device__ static void combine(State<C> &s, const State<C> &o, const RedParams<C> &) {
        if (o.n == 0) return;
        if (s.n == 0) {
            s = o;
            return;
        }
        const C na = static_cast<C>(s.n), nb = static_cast<C>(o.n), n = na + nb;
        const C delta = o.a - s.a;
        s.a += delta * (nb / n);
        s.b += o.b + delta * delta * (na * nb / n);
        s.n += o.n;
    }
    __device__ static void finish(const State<C> &s, const RedParams<C> &p, char *o0, char *o1) {
        const C nan = std::numeric_limits<C>::quiet_NaN();
        const C nf = static_cast<C>(s.n), corr = static_cast<C>(p.correction);
        const C divisor = nf > corr ? nf - corr : C(0);
        C var = s.n == 0 ? nan : s.b / divisor;  // (divisor 0: inf, or NaN when b is 0, as torch's)
        if (p.op == INFINIOP_REDUCE_STD) var = pw::fm::sqrt(var);
        storeAs<C>(o0, p.d0, var);
        if (o1) storeAs<C>(o1, p.d1, s.n == 0 ? nan : s.a);
    }
};

// LOGSUMEXP: a the running maximum, b the sum of exp(x - a).
template <class C>
struct LseR {
    __device__ static void init(State<C> &s, const RedParams<C> &) {
        s = State<C>{-std::numeric_limits<C>::infinity(), C(0), 0};
    }
    __device__ static void merge(State<C> &s, C m2, C s2) {
        if (isNan(s.a) || isNan(m2)) {
            s.a = std::numeric_limits<C>::quiet_NaN();
            return;
        }
        if (m2 == -std::numeric_limits<C>::infinity()) return;
        if (s.a == -std::numeric_limits<C>::infinity()) {
            s.a = m2;
            s.b = s2;
        } else if (s.a == m2) {
            s.b += s2;
        } else if (s.a > m2) {
            s.b += s2 * pw::fm::exp(m2 - s.a);
        } else {
            s.b = s.b * pw::fm::exp(s.a - m2) + s2;
            s.a = m2;
        }
    }
    __device__ static void add(State<C> &s, C x, int64_t, const RedParams<C> &) { merge(s, x, C(1)); }
    __device__ static void combine(State<C> &s, const State<C> &o, const RedParams<C> &) { merge(s, o.a, o.b); }
    __device__ static void finish(const State<C> &s, const RedParams<C> &p, char *o0, char *) {
        const C r = s.a == -std::numeric_limits<C>::infinity() ? s.a : s.a + pw::fm::log(s.b);
        storeAs<C>(o0, p.d0, r);
    }
};

// The byte offsets of output o in the input and the outputs.
template <class C>
__device__ __forceinline__ void keptOffsets(const RedParams<C> &p, int64_t o, int64_t (&off)[3]) {
    off[0] = off[1] = off[2] = 0;
    for (int d = 0; d < p.nk; ++d) {
        long long c = o;
        if (d + 1 < p.nk) o = ops::divMod(o, p.kshape[d], &c);
#pragma unroll
        for (int k = 0; k < 3; ++k) off[k] += c * p.kstride[d][k];
    }
}

// The byte offset of reduced element r in the input (from the output's base).
template <class C>
__device__ __forceinline__ int64_t redOffset(const RedParams<C> &p, int64_t r) {
    if (p.nr == 1) return r * p.rstride[0];
    int64_t off = 0;
    for (int d = 0; d < p.nr; ++d) {
        long long c = r;
        if (d + 1 < p.nr) r = ops::divMod(r, p.rshape[d], &c);
        off += c * p.rstride[d];
    }
    return off;
}

// The element at ptr as C: T the storage type, or void: the dtype decides.
template <class T, class C>
__device__ __forceinline__ C ld(const char *ptr, infiniDtype_t dt) {
    if constexpr (std::is_void_v<T>) {
        return loadAs<C>(ptr, dt);
    } else {
        return static_cast<C>(toF(*reinterpret_cast<const T *>(ptr)));
    }
}

template <class C, class Red>
__device__ __forceinline__ void warpCombine(State<C> &s, const RedParams<C> &p) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        State<C> o;
        o.a = __shfl_down_sync(0xffffffffu, s.a, d);
        o.b = __shfl_down_sync(0xffffffffu, s.b, d);
        o.n = __shfl_down_sync(0xffffffffu, s.n, d);
        Red::combine(s, o, p);
    }
}

// The result for output o (split y): its outputs, or its partial state.
template <class C, class Red>
__device__ __forceinline__ void emit(const RedParams<C> &p, const State<C> &s, int64_t o, const int64_t (&off)[3],
                                     int y) {
    if (p.S == 1) {
        Red::finish(s, p, p.out0 + off[1], p.out1 ? p.out1 + off[2] : nullptr);
    } else {
        p.partial[static_cast<int64_t>(y) * p.M + o] = s;
    }
}

constexpr int kRowWarps = 4;
constexpr int kIn = 4;  // loads a thread issues before it uses them

// A warp per output (blockIdx.x * kRowWarps + warp), its reduced elements [y * chunk, (y + 1) * chunk).
// V > 1: one reduced dim, contiguous, every row start and chunk aligned to pieces of V elements.
template <class T, class C, class Red, int V>
__global__ void __launch_bounds__(32 * kRowWarps) reduceRow(RedParams<C> p) {
    opEntry();
    const int lane = threadIdx.x;
    const int64_t o = static_cast<int64_t>(blockIdx.x) * kRowWarps + threadIdx.y;
    if (o >= p.M) return;  // (the whole warp: nothing below synchronizes the block)
    const int64_t r0 = static_cast<int64_t>(blockIdx.y) * p.chunk;
    const int64_t r1 = p.R < r0 + p.chunk ? p.R : r0 + p.chunk;
    int64_t off[3];
    keptOffsets(p, o, off);
    const char *in = p.in + off[0];
    State<C> s;
    Red::init(s, p);
    if constexpr (V > 1) {
        const T *row = reinterpret_cast<const T *>(in);
        const int64_t nv = (r1 - r0) / V;
#pragma unroll 4
        for (int64_t j = lane; j < nv; j += 32) {
            const int64_t r = r0 + j * V;
            const Vec<T, V> v = *reinterpret_cast<const Vec<T, V> *>(row + r);
#pragma unroll
            for (int e = 0; e < V; ++e) Red::add(s, static_cast<C>(toF(v.v[e])), r + e, p);
        }
        for (int64_t r = r0 + nv * V + lane; r < r1; r += 32) Red::add(s, static_cast<C>(toF(row[r])), r, p);
    } else if (p.nr <= 1) {  // one reduced dim: a pointer step, kIn loads in flight
        const int64_t rs = p.nr == 1 ? p.rstride[0] : 0;
        int64_t r = r0 + lane;
        for (; r + (kIn - 1) * 32 < r1; r += kIn * 32) {
            C x[kIn];
#pragma unroll
            for (int q = 0; q < kIn; ++q) x[q] = ld<T, C>(in + (r + q * 32) * rs, p.din);
#pragma unroll
            for (int q = 0; q < kIn; ++q) Red::add(s, x[q], r + q * 32, p);
        }
        for (; r < r1; r += 32) Red::add(s, ld<T, C>(in + r * rs, p.din), r, p);
    } else {
        for (int64_t r = r0 + lane; r < r1; r += 32) Red::add(s, ld<T, C>(in + redOffset(p, r), p.din), r, p);
    }
    warpCombine<C, Red>(s, p);
    if (lane == 0) emit<C, Red>(p, s, o, off, blockIdx.y);
}

// A thread per V adjacent outputs (blockIdx.x * blockDim.x + x), blockDim.y threads over the reduced elements of
// split y, combined in shared memory in the order of y. V > 1: kept dim 0 contiguous, its extent a multiple of V,
// every piece aligned.
template <class T, class C, class Red, int V>
__global__ void __launch_bounds__(256) reduceCol(RedParams<C> p) {
    opEntry();
    __shared__ State<C> sm[256];
    const int tx = threadIdx.x, ty = threadIdx.y, TX = blockDim.x, TY = blockDim.y;
    const int64_t o0 = (static_cast<int64_t>(blockIdx.x) * TX + tx) * V;
    const bool active = o0 < p.M;
    const int64_t r0 = static_cast<int64_t>(blockIdx.y) * p.chunk;
    const int64_t r1 = p.R < r0 + p.chunk ? p.R : r0 + p.chunk;
    int64_t off[3] = {0, 0, 0};
    if (active) keptOffsets(p, o0, off);
    State<C> s[V];
#pragma unroll
    for (int e = 0; e < V; ++e) Red::init(s[e], p);
    if (active && p.nr <= 1) {  // one reduced dim: a pointer step, kIn loads in flight
        const int64_t rs = p.nr == 1 ? p.rstride[0] : 0;
        const char *base = p.in + off[0];
        int64_t r = r0 + ty;
        for (; r + (kIn - 1) * TY < r1; r += kIn * TY) {
            if constexpr (V > 1) {
                Vec<T, V> v[kIn];
#pragma unroll
                for (int q = 0; q < kIn; ++q) v[q] = *reinterpret_cast<const Vec<T, V> *>(base + (r + q * TY) * rs);
#pragma unroll
                for (int q = 0; q < kIn; ++q) {
#pragma unroll
                    for (int e = 0; e < V; ++e) Red::add(s[e], static_cast<C>(toF(v[q].v[e])), r + q * TY, p);
                }
            } else {
                C x[kIn];
#pragma unroll
                for (int q = 0; q < kIn; ++q) x[q] = ld<T, C>(base + (r + q * TY) * rs, p.din);
#pragma unroll
                for (int q = 0; q < kIn; ++q) Red::add(s[0], x[q], r + q * TY, p);
            }
        }
        for (; r < r1; r += TY) {
            if constexpr (V > 1) {
                const Vec<T, V> v = *reinterpret_cast<const Vec<T, V> *>(base + r * rs);
#pragma unroll
                for (int e = 0; e < V; ++e) Red::add(s[e], static_cast<C>(toF(v.v[e])), r, p);
            } else {
                Red::add(s[0], ld<T, C>(base + r * rs, p.din), r, p);
            }
        }
    } else if (active) {
        for (int64_t r = r0 + ty; r < r1; r += TY) {
            const char *ptr = p.in + off[0] + redOffset(p, r);
            if constexpr (V > 1) {
                const Vec<T, V> v = *reinterpret_cast<const Vec<T, V> *>(ptr);
#pragma unroll
                for (int e = 0; e < V; ++e) Red::add(s[e], static_cast<C>(toF(v.v[e])), r, p);
            } else {
                Red::add(s[0], ld<T, C>(ptr, p.din), r, p);
            }
        }
    }
#pragma unroll
    for (int e = 0; e < V; ++e) {
        sm[ty * TX + tx] = s[e];
        __syncthreads();
        if (ty == 0 && active) {
            State<C> t = sm[tx];
            for (int k = 1; k < TY; ++k) Red::combine(t, sm[k * TX + tx], p);
            int64_t oe[3] = {off[0], off[1] + e * p.kstride[0][1], off[2] + e * p.kstride[0][2]};
            emit<C, Red>(p, t, o0 + e, oe, blockIdx.y);
        }
        __syncthreads();
    }
}

// Combines the S partial states of each output: a block of 32 outputs (adjacent outputs' states are adjacent) by 8
// lanes over the splits, whose results are combined in the order of the lanes in shared memory; then finishes it.
constexpr int kFinishLanes = 8;

template <class C, class Red>
__global__ void __launch_bounds__(32 * kFinishLanes) reduceFinish(RedParams<C> p) {
    opEntry();
    __shared__ State<C> sm[kFinishLanes][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t o = static_cast<int64_t>(blockIdx.x) * 32 + tx;
    State<C> s;
    Red::init(s, p);
    if (o < p.M) {
        for (int y = ty; y < p.S; y += kFinishLanes) Red::combine(s, p.partial[static_cast<int64_t>(y) * p.M + o], p);
    }
    sm[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && o < p.M) {
        for (int k = 1; k < kFinishLanes; ++k) Red::combine(s, sm[k][tx], p);
        int64_t off[3];
        keptOffsets(p, o, off);
        Red::finish(s, p, p.out0 + off[1], p.out1 ? p.out1 + off[2] : nullptr);
    }
}

// ---- host ----

const char *const kName = "reduce";

enum class Layout { kRows, kCols };

struct Plan {
    Layout layout;
    int V = 1;        // elements a piece (typed paths)
    int TY = 1;       // columns: threads over the reduced elements
    unsigned gx = 1;  // blocks along x
};

template <class T, class C, class Red, int V>
infiniStatus_t launchMain(RedParams<C> &p, const Plan &plan, cudaStream_t stream) {
    cudaError_t err;
    if (plan.layout == Layout::kRows) {
        err = launchOp(reduceRow<T, C, Red, V>, dim3(plan.gx, p.S), dim3(32, kRowWarps), 0, stream, p);
    } else {
        err = launchOp(reduceCol<T, C, Red, V>, dim3(plan.gx, p.S), dim3(256 / plan.TY, plan.TY), 0, stream, p);
    }
    INFINI_RETURN_IF_ERROR(launchStatus(err, kName));
    if (p.S > 1) {
        const unsigned g = static_cast<unsigned>((p.M + 31) / 32);
        err = launchOp(reduceFinish<C, Red>, dim3(g), dim3(32, kFinishLanes), 0, stream, p);
        INFINI_RETURN_IF_ERROR(launchStatus(err, kName));
    }
    return INFINI_STATUS_SUCCESS;
}

// Splits of the reduced elements: enough blocks to fill the device (`want` work units over `units` already there),
// each split at least `min_chunk` elements, chunks a multiple of `align`.
void chooseSplit(int64_t R, int64_t units, int64_t want, int64_t min_chunk, int64_t align, int64_t &chunk, int &S) {
    int64_t s = 1;
    if (units < want && R > min_chunk) {
        s = (want + units - 1) / units;
        const int64_t most = R / min_chunk;
        if (s > most) s = most;
        if (s > 65535) s = 65535;
        if (s < 1) s = 1;
    }
    chunk = (R + s - 1) / s;
    chunk = (chunk + align - 1) / align * align;
    if (chunk < 1) chunk = 1;
    S = static_cast<int>((R + chunk - 1) / chunk);
    if (S < 1) S = 1;
}

template <class C, class Red, class T = void>
infiniStatus_t run(RedParams<C> p, Plan plan, const Ctx &ctx) {
    const int64_t sms = smCount();
    if (plan.layout == Layout::kRows) {
        plan.gx = static_cast<unsigned>((p.M + kRowWarps - 1) / kRowWarps);
        chooseSplit(p.R, p.M, sms * 16, 1024, plan.V, p.chunk, p.S);  // 16 warps an SM: enough loads in flight
    } else {
        const int64_t tile = (256 / plan.TY) * plan.V;
        const int64_t tiles = (p.M + tile - 1) / tile;
        plan.gx = static_cast<unsigned>(tiles);
        chooseSplit(p.R, tiles, sms * 4, static_cast<int64_t>(plan.TY) * 8, 1, p.chunk, p.S);
    }
    if (p.R == 0) p.S = 1;
    Scratch scratch(ctx.stream);
    if (p.S > 1) {
        INFINI_RETURN_IF_ERROR(scratch.alloc(sizeof(State<C>) * static_cast<size_t>(p.S) * p.M, kName));
        p.partial = scratch.as<State<C>>();
    }
    if constexpr (!std::is_void_v<T>) {
        constexpr int NV = 16 / sizeof(T);
        return launchMain<T, C, Red, NV>(p, plan, ctx.stream);
    } else {
        return launchMain<void, C, Red, 1>(p, plan, ctx.stream);
    }
}

// The reducer of an op, for compute type C.
template <class C>
infiniStatus_t dispatchOp(RedParams<C> &p, const Plan &plan, const Ctx &ctx) {
    switch (p.op) {
        case INFINIOP_REDUCE_PROD: return run<C, ProdR<C>>(p, plan, ctx);
        case INFINIOP_REDUCE_MAX:
        case INFINIOP_REDUCE_MIN:
        case INFINIOP_REDUCE_ARGMAX:
        case INFINIOP_REDUCE_ARGMIN:
        case INFINIOP_REDUCE_MAX_INDEX:
        case INFINIOP_REDUCE_MIN_INDEX:
        case INFINIOP_REDUCE_ANY:
        case INFINIOP_REDUCE_ALL: return run<C, ExtR<C>>(p, plan, ctx);
        case INFINIOP_REDUCE_NORM:
            if (pw::fm::isinf(p.p)) return run<C, ExtR<C>>(p, plan, ctx);
            return run<C, SumR<C>>(p, plan, ctx);
        case INFINIOP_REDUCE_VAR:
        case INFINIOP_REDUCE_STD:
            if constexpr (!std::is_integral_v<C>) return run<C, WelfordR<C>>(p, plan, ctx);
            break;
        case INFINIOP_REDUCE_LOGSUMEXP:
            if constexpr (!std::is_integral_v<C>) return run<C, LseR<C>>(p, plan, ctx);
            break;
        default: return run<C, SumR<C>>(p, plan, ctx);
    }
    return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce op %d needs a float compute dtype", p.op);
}

// The op's reducer options (kind, is_min, init) in p.
template <class C>
void setOptions(RedParams<C> &p) {
    C hi, lo, inf;
    if constexpr (std::is_integral_v<C>) {
        hi = std::numeric_limits<C>::max();
        lo = std::numeric_limits<C>::min();
        inf = hi;
    } else {
        inf = std::numeric_limits<C>::infinity();
        hi = inf;
        lo = -inf;
    }
    p.kind = 0;
    p.is_min = 0;
    p.init = C(0);
    switch (p.op) {
        case INFINIOP_REDUCE_MAX:
        case INFINIOP_REDUCE_ARGMAX:
        case INFINIOP_REDUCE_MAX_INDEX: p.init = lo; break;
        case INFINIOP_REDUCE_MIN:
        case INFINIOP_REDUCE_ARGMIN:
        case INFINIOP_REDUCE_MIN_INDEX:
            p.init = hi;
            p.is_min = 1;
            break;
        case INFINIOP_REDUCE_ANY:
            p.kind = 1;
            p.init = C(0);
            break;
        case INFINIOP_REDUCE_ALL:
            p.kind = 1;
            p.init = C(1);
            p.is_min = 1;
            break;
        case INFINIOP_REDUCE_NANSUM: p.kind = SumR<C>::kNanAsZero; break;
        case INFINIOP_REDUCE_COUNT_NONZERO: p.kind = SumR<C>::kCount; break;
        case INFINIOP_REDUCE_NORM:
            if (pw::fm::isinf(p.p)) {  // max |x| (init 0) or min |x| (init inf)
                p.kind = 2;
                p.is_min = p.p < 0;
                p.init = p.p < 0 ? inf : C(0);
            } else if (p.p == 0.0) {
                p.kind = SumR<C>::kCount;
            } else if (p.p == 1.0) {
                p.kind = SumR<C>::kAbs;
            } else if (p.p == 2.0) {
                p.kind = SumR<C>::kSquare;
            } else {
                p.kind = SumR<C>::kPow;
            }
            break;
        default: break;
    }
}

template <class C>
infiniStatus_t runCompute(const infiniopReduceArgs_t &a, const Space &sp, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const int nout = a.noutputs, in = nout;  // operand index of the input
    RedParams<C> p{};
    p.in = static_cast<const char *>(it.data[in]);
    p.out0 = static_cast<char *>(it.data[0]);
    p.out1 = nout > 1 ? static_cast<char *>(it.data[1]) : nullptr;
    p.din = it.dtype[in];
    p.d0 = it.dtype[0];
    p.d1 = nout > 1 ? it.dtype[1] : INFINI_DTYPE_I64;
    p.op = a.op;
    p.p = a.f[0];
    p.correction = a.f[0];
    setOptions(p);
    p.M = 1;
    p.R = 1;
    bool dim0_reduced = false;
    for (int d = 0; d < sp.ndim; ++d) {
        if (sp.stride[0][d] == 0) {  // (extent > 1: coalescing dropped the extent-1 dims)
            p.rshape[p.nr] = sp.shape[d];
            p.rstride[p.nr] = sp.stride[in][d];
            ++p.nr;
            p.R *= sp.shape[d];
            dim0_reduced = dim0_reduced || d == 0;
        } else {
            p.kshape[p.nk] = sp.shape[d];
            p.kstride[p.nk][0] = sp.stride[in][d];
            p.kstride[p.nk][1] = sp.stride[0][d];
            p.kstride[p.nk][2] = nout > 1 ? sp.stride[1][d] : 0;
            ++p.nk;
            p.M *= sp.shape[d];
        }
    }
    Plan plan;
    // rows where the first reduced dim is the input's innermost; where a kept dim is (sum over dim 0 of a
    // contiguous matrix: the iterator orders the reduced dim first by the output's strides), columns
    const bool kept_inner = p.nk > 0 && p.nr > 0 && llabs(p.kstride[0][0]) < llabs(p.rstride[0]);
    plan.layout = dim0_reduced && p.R >= 32 && !kept_inner ? Layout::kRows : Layout::kCols;
    if (plan.layout == Layout::kCols) {
        plan.TY = p.R >= 8 ? 8 : (p.R >= 4 ? 4 : (p.R >= 2 ? 2 : 1));
    }
    // SUM / MEAN of 16/32-bit floats in 16-byte pieces where the layout allows
    if constexpr (std::is_same_v<C, float>) {
        const infiniDtype_t t = p.din;
        const bool plain = a.op == INFINIOP_REDUCE_SUM || a.op == INFINIOP_REDUCE_MEAN;
        if (plain && (t == INFINI_DTYPE_F32 || t == INFINI_DTYPE_F16 || t == INFINI_DTYPE_BF16) &&
            reinterpret_cast<uintptr_t>(p.in) % 16 == 0) {
            const int64_t e = elemSize(t), nv = 16 / e;
            bool fits = true;
            if (plan.layout == Layout::kRows) {
                fits = p.nr == 1 && p.rstride[0] == e;
                for (int d = 0; d < p.nk; ++d) fits = fits && p.kstride[d][0] % 16 == 0;
            } else {
                fits = p.nk > 0 && p.kstride[0][0] == e && p.kshape[0] % nv == 0;
                for (int d = 1; d < p.nk; ++d) fits = fits && p.kstride[d][0] % 16 == 0;
                for (int d = 0; d < p.nr; ++d) fits = fits && p.rstride[d] % 16 == 0;
                if (fits) plan.TY = 8;
            }
            if (fits) {
                plan.V = static_cast<int>(nv);
                switch (t) {
                    case INFINI_DTYPE_F32: return run<float, SumR<float, true>, float>(p, plan, ctx);
                    case INFINI_DTYPE_F16: return run<float, SumR<float, true>, __half>(p, plan, ctx);
                    default: return run<float, SumR<float, true>, __nv_bfloat16>(p, plan, ctx);
                }
            }
        }
    }
    return dispatchOp<C>(p, plan, ctx);
}

}  // namespace

infiniStatus_t reduce(const infiniopReduceArgs_t &a, const Ctx &ctx) {
    const infiniopIter_t &it = a.iter;
    const int want = (a.op == INFINIOP_REDUCE_MAX_INDEX || a.op == INFINIOP_REDUCE_MIN_INDEX) ? 2 : 1;
    const bool var = a.op == INFINIOP_REDUCE_VAR || a.op == INFINIOP_REDUCE_STD;
    if (!(a.noutputs == want || (var && a.noutputs == 2))) {
        return fail(INFINI_STATUS_BAD_PARAM, "reduce op %d: %d outputs", a.op, a.noutputs);
    }
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "reduce: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    INFINI_RETURN_IF_ERROR(checkDtypes(kName, it));
    Space sp = spaceOf(it);
    if (sp.numel() == 0) return INFINI_STATUS_SUCCESS;  // (families.h: an empty space queues nothing)
    coalesce(sp);
    // var / std of float data in double, as torch's CPU kernels: a float Welford mean loses the small deviations of
    // data far from zero (1e4 + 1e-2 * noise: 2% off)
    if (var && a.compute == INFINI_DTYPE_F32) return runCompute<double>(a, sp, ctx);
    switch (a.compute) {
        case INFINI_DTYPE_F32: return runCompute<float>(a, sp, ctx);
        case INFINI_DTYPE_F64: return runCompute<double>(a, sp, ctx);
        default: return runCompute<int64_t>(a, sp, ctx);
    }
}

}  // namespace infini::nvidia::families
