// scan.cpp: the scan family on the cpu backend (infiniopScan): cumulative sum, product, max / min (with indices)
// and log-sum-exp along one dim.
//
// The lines (every coordinate but the scanned dim's) run in parallel. Where a dim other than the scanned one is
// contiguous in the input and the values output (a scan over an outer dim), blocks of kLanes neighbouring lines
// advance together, one contiguous vector a step. Accumulation as torch's CPU kernels: double for float32 and
// float64 data, float for 16-bit floats, int64 (wrapping) for integers; CUMMAX / CUMMIN keep the last index of
// ties, and a NaN, once met, stays (each later NaN takes the index).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "../../common/error.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

constexpr int64_t kLanes = 64;  // lines a block of the lanes walk advances together

struct Plan {
    infiniopScanArgs_t a;
    int nout = 1;
    int64_t esize[3] = {};  // values out, [indices out,] input
    int lane_dim = -1;      // a dim contiguous in the input and the values output (the lanes walk), or -1
};

// Byte offsets of line q (coordinates over every dim but the scanned one, dim 0 fastest) for each operand.
void lineOffsets(const Plan &p, int64_t q, int skip, int64_t *off) {
    const infiniopIter_t &it = p.a.iter;
    for (int k = 0; k < it.noperands; ++k) off[k] = 0;
    for (int d = 0; d < it.ndim && q > 0; ++d) {
        if (d == p.a.dim || d == skip) continue;
        const int64_t c = q % it.shape[d];
        q /= it.shape[d];
        for (int k = 0; k < it.noperands; ++k) off[k] += c * it.strides[k][d] * p.esize[k];
    }
}

template <class A>
inline bool nanOf(A x) {
    if constexpr (std::is_floating_point_v<A>) {
        return x != x;
    } else {
        return false;
    }
}

// torch's _log_add_exp_helper: log(e^x + e^y), NaN propagating, equal infinities kept.
template <class A>
inline A logAddExp(A x, A y) {
    const A mn = nanOf(y) ? y : std::min(x, y), mx = nanOf(y) ? y : std::max(x, y);
    if (mn != mx || std::isfinite(mn)) return std::log1p(std::exp(mn - mx)) + mx;
    return x;
}

template <class A>
inline A combine(int op, A acc, A x) {
    switch (op) {
        case INFINIOP_SCAN_CUMSUM:
            if constexpr (std::is_integral_v<A>) {
                return static_cast<A>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
            } else {
                return acc + x;
            }
        case INFINIOP_SCAN_CUMPROD:
            if constexpr (std::is_integral_v<A>) {
                return static_cast<A>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(x));
            } else {
                return acc * x;
            }
        default:
            if constexpr (std::is_floating_point_v<A>) return logAddExp(x, acc);
            return acc;
    }
}

template <class A>
inline A identity(int op) {
    if (op == INFINIOP_SCAN_CUMPROD) return A(1);
    if constexpr (std::is_floating_point_v<A>) {
        if (op == INFINIOP_SCAN_LOGCUMSUMEXP) return -std::numeric_limits<A>::infinity();
    }
    return A(0);
}

// Typed access where the input and the values output share dtype T; dynamic otherwise.
template <class T>
struct Same {
    template <class A>
    A get(const char *p) const {
        if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
            return static_cast<A>(toFloat(*reinterpret_cast<const T *>(p)));
        } else {
            return static_cast<A>(*reinterpret_cast<const T *>(p));
        }
    }
    template <class A>
    void put(char *p, A v) const {
        if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
            *reinterpret_cast<T *>(p) = fromFloat<T>(static_cast<float>(v));
        } else {
            *reinterpret_cast<T *>(p) = static_cast<T>(v);
        }
    }
};
struct Any {
    infiniDtype_t tin, tout;
    template <class A>
    A get(const char *p) const {
        return load<A>(p, tin);
    }
    template <class A>
    void put(char *p, A v) const {
        store<A>(p, tout, v);
    }
};

// One line: n elements, byte strides s[k] along the scanned dim.
template <class A, class Io>
void scanLine(const Plan &p, const Io &io, char *const *base, const int64_t *s, int64_t n) {
    const int op = p.a.op;
    const int in = p.nout;
    if (op == INFINIOP_SCAN_CUMMAX || op == INFINIOP_SCAN_CUMMIN) {
        const bool is_max = op == INFINIOP_SCAN_CUMMAX;
        A best = io.template get<A>(base[in]);
        int64_t at = 0;
        for (int64_t i = 0; i < n; ++i) {  // branch-free: a take is as likely as not on unsorted data
            const A x = io.template get<A>(base[in] + i * s[in]);
            const bool take = nanOf(x) || (!nanOf(best) && (is_max ? x >= best : x <= best));
            best = take ? x : best;
            at = take ? i : at;
            io.put(base[0] + i * s[0], best);
            *reinterpret_cast<int64_t *>(base[1] + i * s[1]) = at;
        }
        return;
    }
    A acc = identity<A>(op);
    for (int64_t i = 0; i < n; ++i) {
        acc = combine(op, acc, io.template get<A>(base[in] + i * s[in]));
        io.put(base[0] + i * s[0], acc);
    }
}

// w neighbouring lines together: the element of line l at step i is at base + i * s + l * ls.
template <class A, class Io>
void scanLanes(const Plan &p, const Io &io, char *const *base, const int64_t *s, const int64_t *ls, int64_t n,
               int64_t w) {
    const int op = p.a.op;
    const int in = p.nout;
    A acc[kLanes];
    for (int64_t l = 0; l < w; ++l) acc[l] = identity<A>(op);
    for (int64_t i = 0; i < n; ++i) {
        const char *x = base[in] + i * s[in];
        char *y = base[0] + i * s[0];
        if (op == INFINIOP_SCAN_CUMSUM) {  // the common case, in a loop that vectorizes
            for (int64_t l = 0; l < w; ++l) {
                acc[l] = combine(INFINIOP_SCAN_CUMSUM, acc[l], io.template get<A>(x + l * ls[in]));
                io.put(y + l * ls[0], acc[l]);
            }
        } else {
            for (int64_t l = 0; l < w; ++l) {
                acc[l] = combine(op, acc[l], io.template get<A>(x + l * ls[in]));
                io.put(y + l * ls[0], acc[l]);
            }
        }
    }
}

template <class A, class Io>
void runWith(const Plan &p, const Io &io) {
    const infiniopIter_t &it = p.a.iter;
    const int sd = p.a.dim, nops = it.noperands;
    const int64_t n = it.ndim > 0 ? it.shape[sd] : 1;
    int64_t s[3] = {};
    for (int k = 0; k < nops; ++k) s[k] = it.ndim > 0 ? it.strides[k][sd] * p.esize[k] : 0;
    const int64_t lines = numel(it) / n;
    if (p.lane_dim < 0) {
        parallelFor(static_cast<size_t>(lines), static_cast<size_t>(n) * 4, [&](size_t b, size_t e) {
            for (size_t q = b; q < e; ++q) {
                int64_t off[3];
                lineOffsets(p, static_cast<int64_t>(q), -1, off);
                char *base[3];
                for (int k = 0; k < nops; ++k) base[k] = static_cast<char *>(it.data[k]) + off[k];
                scanLine<A>(p, io, base, s, n);
            }
        });
        return;
    }
    const int ld = p.lane_dim;
    const int64_t width = it.shape[ld], blocks = (width + kLanes - 1) / kLanes, rest = lines / width;
    int64_t ls[3] = {};
    for (int k = 0; k < nops; ++k) ls[k] = it.strides[k][ld] * p.esize[k];
    parallelFor(static_cast<size_t>(blocks * rest), static_cast<size_t>(n * std::min(width, kLanes)) * 2,
                [&](size_t b, size_t e) {
                    for (size_t t = b; t < e; ++t) {
                        const int64_t blk = static_cast<int64_t>(t) % blocks, q = static_cast<int64_t>(t) / blocks;
                        int64_t off[3];
                        lineOffsets(p, q, ld, off);
                        char *base[3];
                        for (int k = 0; k < nops; ++k) {
                            base[k] = static_cast<char *>(it.data[k]) + off[k] + blk * kLanes * ls[k];
                        }
                        scanLanes<A>(p, io, base, s, ls, n, std::min(kLanes, width - blk * kLanes));
                    }
                });
}

// The accumulation type: double for float32 / float64 data, float for 16-bit floats, int64 for integers.
template <class Io>
void runTyped(const Plan &p, const Io &io, infiniDtype_t tin) {
    if (p.a.compute == INFINI_DTYPE_I64) return runWith<int64_t>(p, io);
    if (tin == INFINI_DTYPE_F16 || tin == INFINI_DTYPE_BF16) return runWith<float>(p, io);
    runWith<double>(p, io);
}

void run(const Plan &p) {
    const infiniopIter_t &it = p.a.iter;
    const infiniDtype_t tin = it.dtype[p.nout], tout = it.dtype[0];
    if (tin == tout) {
        switch (tin) {
            case INFINI_DTYPE_F32: return runTyped(p, Same<float>{}, tin);
            case INFINI_DTYPE_F16: return runTyped(p, Same<f16>{}, tin);
            case INFINI_DTYPE_BF16: return runTyped(p, Same<bf16>{}, tin);
            case INFINI_DTYPE_F64: return runTyped(p, Same<double>{}, tin);
            case INFINI_DTYPE_I64: return runTyped(p, Same<int64_t>{}, tin);
            case INFINI_DTYPE_I32: return runTyped(p, Same<int32_t>{}, tin);
            default: break;
        }
    }
    runTyped(p, Any{tin, tout}, tin);
}

}  // namespace

infiniStatus_t scan(const infiniopScanArgs_t &a, infinirtStream_t stream) {
    const infiniopIter_t &it = a.iter;
    const bool indexed = a.op == INFINIOP_SCAN_CUMMAX || a.op == INFINIOP_SCAN_CUMMIN;
    const int nout = indexed ? 2 : 1;
    if (a.noutputs != nout || it.noperands != nout + 1) {
        return fail(INFINI_STATUS_BAD_PARAM, "scan op %d: %d outputs and %d operands (expected %d and %d)", a.op,
                    a.noutputs, it.noperands, nout, nout + 1);
    }
    if (a.compute != INFINI_DTYPE_F32 && a.compute != INFINI_DTYPE_F64 && a.compute != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "scan: compute dtype %d is not F32, F64 or I64", a.compute);
    }
    if (a.op == INFINIOP_SCAN_LOGCUMSUMEXP && a.compute == INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "scan LOGCUMSUMEXP takes a float compute dtype");
    }
    if (indexed && it.dtype[1] != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "scan op %d: index output dtype %d is not I64", a.op, it.dtype[1]);
    }
    if (numel(it) == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    plan->nout = nout;
    for (int k = 0; k < it.noperands; ++k) plan->esize[k] = elementSize(it.dtype[k]);
    if (!indexed) {
        for (int d = 0; d < it.ndim; ++d) {
            if (d == a.dim || it.shape[d] < 2) continue;
            const bool unit = it.strides[0][d] == 1 && it.strides[1][d] == 1;
            if (unit && (it.strides[1][a.dim] != 1 || it.shape[a.dim] == 1)) plan->lane_dim = d;
        }
    }
    return submit(stream, [plan] { run(*plan); });
}

}  // namespace infini::cpu::families
