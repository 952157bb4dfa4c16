// index.cpp: the index family on the cpu backend: gathers and scatters through index operands (families.h).
//
// Work items: when every index operand is constant along iteration dim 0 (index_select, embedding rows, row
// scatters), an item is a whole dim-0 row moved with one offset; otherwise an item is one element. Items are
// enumerated by walking the iteration space (without dim 0 for rows), which gives each item's destination and
// source addresses.
//
// GATHER and SCATTER run items in parallel (SCATTER's duplicate destinations: one of the values wins). The
// accumulating scatters must never let two threads update one destination: below kSerialWork elements one thread
// runs them all; above, their items are bucketed by destination address, one bucket per thread, keeping item
// order inside a bucket. Either way each destination sees its updates in iteration order (that of torch's CPU
// scatter kernels), whatever the thread count. Rows of a non-overlapping destination either coincide or are
// disjoint, so bucketing rows by their first address is safe.
//
// An index out of range skips its item; the task throws once all items ran, and the stream reports it at the
// next synchronization.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {

using ops::avx2::parallelism;

namespace {

struct Plan {
    infiniopIndexArgs_t a;
    infiniopIter_t walk;  // the space items are enumerated over: a.iter, without dim 0 in row mode
    int64_t items = 0;
    int64_t row_len = 1;  // elements an item
    int64_t row_dst = 0;  // byte strides along dim 0 inside a row (dst, src)
    int64_t row_src = 0;
    int target = 0;  // the operand the offset applies to: 1 for GATHER (src), 0 for the scatters (dst)
    int64_t target_esize = 1;
};

// The first index found out of range (any one of them, when several threads find some).
struct BadIndex {
    std::atomic<bool> any{false};
    int64_t value = 0, size = 0;
    void note(int64_t v, int64_t s) {
        bool expected = false;
        if (any.compare_exchange_strong(expected, true)) {
            value = v;
            size = s;
        }
    }
    void raise() const {
        if (!any.load()) return;
        char msg[160];
        snprintf(msg, sizeof(msg), "index out of range: index %lld is out of bounds for a dimension of size %lld",
                 static_cast<long long>(value), static_cast<long long>(size));
        throw std::runtime_error(msg);
    }
};

Plan makePlan(const infiniopIndexArgs_t &a) {
    Plan p;
    p.a = a;
    const infiniopIter_t &it = a.iter;
    p.walk = it;
    p.target = a.op == INFINIOP_INDEX_GATHER ? 1 : 0;
    p.target_esize = elementSize(it.dtype[p.target]);
    bool rows = it.ndim > 0;
    for (int k = 0; rows && k < a.nindices; ++k) rows = it.strides[2 + k][0] == 0 || it.shape[0] == 1;
    if (rows) {
        p.row_len = it.shape[0];
        p.row_dst = it.strides[0][0] * elementSize(it.dtype[0]);
        p.row_src = it.strides[1][0] * elementSize(it.dtype[1]);
        infiniopIter_t &w = p.walk;
        w.ndim = it.ndim - 1;
        for (int d = 0; d < w.ndim; ++d) {
            w.shape[d] = it.shape[d + 1];
            for (int k = 0; k < it.noperands; ++k) w.strides[k][d] = it.strides[k][d + 1];
        }
    }
    p.items = numel(p.walk);
    return p;
}

// One index operand of index type I (the common case: its loop has no per-element dtype test or inner loop).
template <class I, class F>
void walkOne(const Plan &p, int64_t b, int64_t e, BadIndex &bad, F &&f) {
    const infiniopIndexArgs_t &a = p.a;
    const int64_t size = a.index_size[0], step = a.index_stride[0] * p.target_esize;
    const bool wrap = a.wrap_negative != 0, gather = p.target == 1;
    forEachRun(p.walk, b, e, [&](char **ptrs, const int64_t *s0, int64_t n) {
        char *d = ptrs[0], *s = ptrs[1];
        const char *ip = ptrs[2];
        const int64_t ds = s0[0], ss = s0[1], is = s0[2];
        for (int64_t j = 0; j < n; ++j) {
            const int64_t v = *reinterpret_cast<const I *>(ip + j * is);
            const int64_t w = v < 0 && wrap ? v + size : v;
            if (static_cast<uint64_t>(w) >= static_cast<uint64_t>(size)) {
                bad.note(v, size);
                f(static_cast<char *>(nullptr), static_cast<char *>(nullptr));
                continue;
            }
            const int64_t off = w * step;
            f(d + j * ds + (gather ? 0 : off), s + j * ss + (gather ? off : 0));
        }
    });
}

// Calls f(dst, src) for items [b, e) in order: the first element's addresses of each item, or (NULL, NULL) for an
// item whose index is out of range (noted in bad).
template <class F>
void walkItems(const Plan &p, int64_t b, int64_t e, BadIndex &bad, F &&f) {
    const infiniopIndexArgs_t &a = p.a;
    const int nidx = a.nindices, target = p.target;
    if (nidx == 1) {
        if (a.iter.dtype[2] == INFINI_DTYPE_I32) {
            walkOne<int32_t>(p, b, e, bad, f);
        } else {
            walkOne<int64_t>(p, b, e, bad, f);
        }
        return;
    }
    const int64_t tes = p.target_esize;
    forEachRun(p.walk, b, e, [&](char **ptrs, const int64_t *s0, int64_t n) {
        for (int64_t j = 0; j < n; ++j) {
            int64_t off = 0;
            bool ok = true;
            for (int k = 0; k < nidx; ++k) {
                const char *ip = ptrs[2 + k] + j * s0[2 + k];
                const int64_t v = a.iter.dtype[2 + k] == INFINI_DTYPE_I32 ? *reinterpret_cast<const int32_t *>(ip)
                                                                          : *reinterpret_cast<const int64_t *>(ip);
                const int64_t size = a.index_size[k];
                const int64_t w = v < 0 && a.wrap_negative ? v + size : v;
                if (w < 0 || w >= size) {
                    bad.note(v, size);
                    ok = false;
                    break;
                }
                off += w * a.index_stride[k];
            }
            if (!ok) {
                f(static_cast<char *>(nullptr), static_cast<char *>(nullptr));
                continue;
            }
            char *d = ptrs[0] + j * s0[0];
            char *s = ptrs[1] + j * s0[1];
            if (target == 0) {
                d += off * tes;
            } else {
                s += off * tes;
            }
            f(d, s);
        }
    });
}

// ---- element operations ----

struct Bool8 {};  // BOOL storage: one byte, nonzero is true

// Storage type T as its compute type A: float for 16/32-bit floats, double, int64_t for integers and bool.
template <class T>
struct Slot {
    using A = int64_t;
    static A ld(const char *p) { return static_cast<A>(*reinterpret_cast<const T *>(p)); }
    static void st(char *p, A v) { *reinterpret_cast<T *>(p) = static_cast<T>(v); }
};
template <>
struct Slot<float> {
    using A = float;
    static A ld(const char *p) { return *reinterpret_cast<const float *>(p); }
    static void st(char *p, A v) { *reinterpret_cast<float *>(p) = v; }
};
template <>
struct Slot<double> {
    using A = double;
    static A ld(const char *p) { return *reinterpret_cast<const double *>(p); }
    static void st(char *p, A v) { *reinterpret_cast<double *>(p) = v; }
};
template <>
struct Slot<f16> {
    using A = float;
    static A ld(const char *p) { return toFloat(*reinterpret_cast<const f16 *>(p)); }
    static void st(char *p, A v) { *reinterpret_cast<f16 *>(p) = fromFloat<f16>(v); }
};
template <>
struct Slot<bf16> {
    using A = float;
    static A ld(const char *p) { return toFloat(*reinterpret_cast<const bf16 *>(p)); }
    static void st(char *p, A v) { *reinterpret_cast<bf16 *>(p) = fromFloat<bf16>(v); }
};
template <>
struct Slot<Bool8> {
    using A = int64_t;
    static A ld(const char *p) { return *reinterpret_cast<const uint8_t *>(p) != 0 ? 1 : 0; }
    static void st(char *p, A v) { *reinterpret_cast<uint8_t *>(p) = v != 0 ? 1 : 0; }
};

// d op= s. Integers wrap (two's complement, as torch's integer kernels); AMAX / AMIN propagate NaN as torch's
// scatter_reduce (a NaN source wins; a NaN destination stays).
template <int OP, class A>
inline A combine(A d, A s) {
    if constexpr (OP == INFINIOP_INDEX_SCATTER_ADD) {
        if constexpr (std::is_integral_v<A>) {
            return static_cast<A>(static_cast<uint64_t>(d) + static_cast<uint64_t>(s));
        } else {
            return d + s;
        }
    } else if constexpr (OP == INFINIOP_INDEX_SCATTER_MUL) {
        if constexpr (std::is_integral_v<A>) {
            return static_cast<A>(static_cast<uint64_t>(d) * static_cast<uint64_t>(s));
        } else {
            return d * s;
        }
    } else if constexpr (OP == INFINIOP_INDEX_SCATTER_AMAX) {
        return s != s ? s : (d < s ? s : d);
    } else {
        return s != s ? s : (s < d ? s : d);
    }
}

// Copies n elements of one dtype (U: an unsigned type of its size).
template <class U>
void copyRow(char *d, const char *s, int64_t n, int64_t sd, int64_t ss) {
    if (n == 1) {
        *reinterpret_cast<U *>(d) = *reinterpret_cast<const U *>(s);
        return;
    }
    if (sd == static_cast<int64_t>(sizeof(U)) && ss == static_cast<int64_t>(sizeof(U))) {
        std::memcpy(d, s, static_cast<size_t>(n) * sizeof(U));
        return;
    }
    for (int64_t j = 0; j < n; ++j) *reinterpret_cast<U *>(d + j * sd) = *reinterpret_cast<const U *>(s + j * ss);
}

// ---- the runs ----

// GATHER / SCATTER of single elements of one dtype (U: an unsigned type of its size) through one index of type I:
// the typed loop of the element-wise case (gather or scatter along a tensor's last dim, take, put_).
template <class U, class I, bool kGather>
void copyElements(const Plan &p, BadIndex &bad) {
    const infiniopIndexArgs_t &a = p.a;
    const int64_t size = a.index_size[0], stride = a.index_stride[0];
    const bool wrap = a.wrap_negative != 0;
    parallelFor(static_cast<size_t>(p.items), 4, [&](size_t b, size_t e) {
        forEachRun(p.walk, static_cast<int64_t>(b), static_cast<int64_t>(e),
                   [&](char **ptrs, const int64_t *s0, int64_t n) {
                       U *d = reinterpret_cast<U *>(ptrs[0]);
                       const U *s = reinterpret_cast<const U *>(ptrs[1]);
                       const I *ip = reinterpret_cast<const I *>(ptrs[2]);
                       const int64_t ds = s0[0] / static_cast<int64_t>(sizeof(U)),
                                     ss = s0[1] / static_cast<int64_t>(sizeof(U));
                       const int64_t is = s0[2] / static_cast<int64_t>(sizeof(I));
                       for (int64_t j = 0; j < n; ++j) {
                           const int64_t v = ip[j * is];
                           const int64_t w = v < 0 && wrap ? v + size : v;
                           if (static_cast<uint64_t>(w) >= static_cast<uint64_t>(size)) {
                               bad.note(v, size);
                               continue;
                           }
                           if constexpr (kGather) {
                               d[j * ds] = s[j * ss + w * stride];
                           } else {
                               d[j * ds + w * stride] = s[j * ss];
                           }
                       }
                   });
    });
}

template <class U>
void copyElementsTyped(const Plan &p, BadIndex &bad) {
    const bool i32 = p.a.iter.dtype[2] == INFINI_DTYPE_I32, gather = p.target == 1;
    if (i32) {
        gather ? copyElements<U, int32_t, true>(p, bad) : copyElements<U, int32_t, false>(p, bad);
    } else {
        gather ? copyElements<U, int64_t, true>(p, bad) : copyElements<U, int64_t, false>(p, bad);
    }
}

void runCopy(const Plan &p, BadIndex &bad) {
    const infiniopIter_t &it = p.a.iter;
    const infiniDtype_t dt = it.dtype[0], st = it.dtype[1];
    const int64_t n = p.row_len, sd = p.row_dst, ss = p.row_src;
    const size_t cost = static_cast<size_t>(n + p.a.nindices + 1);
    if (dt == st && n == 1 && p.a.nindices == 1) {
        switch (elementSize(dt)) {
            case 8: copyElementsTyped<uint64_t>(p, bad); return;
            case 4: copyElementsTyped<uint32_t>(p, bad); return;
            case 2: copyElementsTyped<uint16_t>(p, bad); return;
            default: copyElementsTyped<uint8_t>(p, bad); return;
        }
    }
    auto each = [&](auto move) {
        parallelFor(static_cast<size_t>(p.items), cost, [&](size_t b, size_t e) {
            walkItems(p, static_cast<int64_t>(b), static_cast<int64_t>(e), bad, [=](char *d, char *s) {
                if (d != nullptr) move(d, s);
            });
        });
    };
    if (dt == st) {
        switch (elementSize(dt)) {
            case 8: each([=](char *d, char *s) { copyRow<uint64_t>(d, s, n, sd, ss); }); return;
            case 4: each([=](char *d, char *s) { copyRow<uint32_t>(d, s, n, sd, ss); }); return;
            case 2: each([=](char *d, char *s) { copyRow<uint16_t>(d, s, n, sd, ss); }); return;
            default: each([=](char *d, char *s) { copyRow<uint8_t>(d, s, n, sd, ss); }); return;
        }
    }
    const bool float_src =
        st == INFINI_DTYPE_F32 || st == INFINI_DTYPE_F64 || st == INFINI_DTYPE_F16 || st == INFINI_DTYPE_BF16;
    if (float_src) {
        each([=](char *d, char *s) {
            for (int64_t j = 0; j < n; ++j) store<double>(d + j * sd, dt, load<double>(s + j * ss, st));
        });
    } else {
        each([=](char *d, char *s) {
            for (int64_t j = 0; j < n; ++j) store<int64_t>(d + j * sd, dt, load<int64_t>(s + j * ss, st));
        });
    }
}

// The accumulating scatters of single elements through one index of type I, on one thread (the typed loop of the
// serial case).
template <int OP, class T, class I>
void accumulateElements(const Plan &p, BadIndex &bad) {
    using S = Slot<T>;
    using A = typename S::A;
    const infiniopIndexArgs_t &a = p.a;
    const int64_t size = a.index_size[0], step = a.index_stride[0] * p.target_esize;
    const bool wrap = a.wrap_negative != 0;
    forEachRun(p.walk, 0, p.items, [&](char **ptrs, const int64_t *s0, int64_t n) {
        char *d = ptrs[0];
        const char *s = ptrs[1];
        const I *ip = reinterpret_cast<const I *>(ptrs[2]);
        const int64_t ds = s0[0], ss = s0[1], is = s0[2] / static_cast<int64_t>(sizeof(I));
        for (int64_t j = 0; j < n; ++j) {
            const int64_t v = ip[j * is];
            const int64_t w = v < 0 && wrap ? v + size : v;
            if (static_cast<uint64_t>(w) >= static_cast<uint64_t>(size)) {
                bad.note(v, size);
                continue;
            }
            char *t = d + j * ds + w * step;
            S::st(t, combine<OP, A>(S::ld(t), S::ld(s + j * ss)));
        }
    });
}

// The accumulating scatters, typed: op OP on storage T.
template <int OP, class T>
void runAccumulate(const Plan &p, BadIndex &bad) {
    using S = Slot<T>;
    using A = typename S::A;
    const int64_t n = p.row_len, sd = p.row_dst, ss = p.row_src;
    auto apply = [=](char *d, const char *s) {
        for (int64_t j = 0; j < n; ++j) S::st(d + j * sd, combine<OP, A>(S::ld(d + j * sd), S::ld(s + j * ss)));
    };
    const int64_t m_all = p.items;
    const int threads = static_cast<int>(parallelism());
    constexpr int64_t kSerialWork = 32768;  // elements: below this one thread does it all
    if (threads <= 1 || m_all < 2 || m_all * n < kSerialWork) {
        if (n == 1 && p.a.nindices == 1) {
            if (p.a.iter.dtype[2] == INFINI_DTYPE_I32) {
                accumulateElements<OP, T, int32_t>(p, bad);
            } else {
                accumulateElements<OP, T, int64_t>(p, bad);
            }
            return;
        }
        walkItems(p, 0, m_all, bad, [=](char *d, char *s) {
            if (d != nullptr) apply(d, s);
        });
        return;
    }
    const int parts = threads, buckets = threads;
    const size_t cost = static_cast<size_t>(n + p.a.nindices + 1);
    constexpr int64_t kChunk = int64_t(1) << 18;  // items bucketed at a time (bounds the scratch memory)
    std::vector<char *> dst, src;
    std::vector<int32_t> order;
    std::vector<int64_t> counts(static_cast<size_t>(parts) * buckets);
    std::vector<uintptr_t> lo(parts), hi(parts);
    for (int64_t c0 = 0; c0 < m_all; c0 += kChunk) {
        const int64_t m = std::min(kChunk, m_all - c0);
        dst.resize(m);
        src.resize(m);
        order.resize(m);
        auto part = [&](int t, int64_t *b, int64_t *e) {
            *b = m * t / parts;
            *e = m * (t + 1) / parts;
        };
        // 1: the items' addresses and each part's address range
        parallelFor(static_cast<size_t>(parts), cost * static_cast<size_t>(m / parts + 1), [&](size_t tb, size_t te) {
            for (size_t t = tb; t < te; ++t) {
                int64_t b, e;
                part(static_cast<int>(t), &b, &e);
                int64_t k = b;
                uintptr_t l = UINTPTR_MAX, h = 0;
                walkItems(p, c0 + b, c0 + e, bad, [&](char *d, char *s) {
                    dst[k] = d;
                    src[k] = s;
                    ++k;
                    if (d != nullptr) {
                        const uintptr_t u = reinterpret_cast<uintptr_t>(d);
                        l = std::min(l, u);
                        h = std::max(h, u);
                    }
                });
                lo[t] = l;
                hi[t] = h;
            }
        });
        const uintptr_t l = *std::min_element(lo.begin(), lo.end());
        const uintptr_t h = *std::max_element(hi.begin(), hi.end());
        if (l > h) continue;  // every index of the chunk was out of range
        const uintptr_t width = (h - l) / static_cast<uintptr_t>(buckets) + 1;
        auto bucketOf = [&](const char *d) { return static_cast<int>((reinterpret_cast<uintptr_t>(d) - l) / width); };
        // 2: a histogram per part, then each part writes its items to their buckets, in order
        parallelFor(static_cast<size_t>(parts), static_cast<size_t>(m / parts + 1), [&](size_t tb, size_t te) {
            for (size_t t = tb; t < te; ++t) {
                int64_t b, e;
                part(static_cast<int>(t), &b, &e);
                int64_t *c = &counts[t * buckets];
                std::fill(c, c + buckets, 0);
                for (int64_t k = b; k < e; ++k) {
                    if (dst[k] != nullptr) ++c[bucketOf(dst[k])];
                }
            }
        });
        std::vector<int64_t> start(buckets + 1, 0);
        for (int q = 0; q < buckets; ++q) {
            int64_t total = 0;
            for (int t = 0; t < parts; ++t) {
                int64_t &c = counts[static_cast<size_t>(t) * buckets + q];
                const int64_t before = total;
                total += c;
                c = before;  // from here on: where part t's items of bucket q begin, relative to the bucket
            }
            start[q + 1] = start[q] + total;
        }
        parallelFor(static_cast<size_t>(parts), static_cast<size_t>(m / parts + 1), [&](size_t tb, size_t te) {
            for (size_t t = tb; t < te; ++t) {
                int64_t b, e;
                part(static_cast<int>(t), &b, &e);
                int64_t *c = &counts[t * buckets];
                for (int64_t k = b; k < e; ++k) {
                    if (dst[k] == nullptr) continue;
                    const int q = bucketOf(dst[k]);
                    order[start[q] + c[q]++] = static_cast<int32_t>(k);
                }
            }
        });
        // 3: one bucket a thread
        const size_t bucket_cost = cost * static_cast<size_t>(m / buckets + 1);
        parallelFor(static_cast<size_t>(buckets), bucket_cost, [&](size_t qb, size_t qe) {
            for (size_t q = qb; q < qe; ++q) {
                for (int64_t i = start[q]; i < start[q + 1]; ++i) apply(dst[order[i]], src[order[i]]);
            }
        });
    }
}

template <int OP>
void accumulateTyped(const Plan &p, BadIndex &bad) {
    switch (p.a.iter.dtype[0]) {
        case INFINI_DTYPE_F32: runAccumulate<OP, float>(p, bad); return;
        case INFINI_DTYPE_F16: runAccumulate<OP, f16>(p, bad); return;
        case INFINI_DTYPE_BF16: runAccumulate<OP, bf16>(p, bad); return;
        case INFINI_DTYPE_F64: runAccumulate<OP, double>(p, bad); return;
        case INFINI_DTYPE_I64: runAccumulate<OP, int64_t>(p, bad); return;
        case INFINI_DTYPE_I32: runAccumulate<OP, int32_t>(p, bad); return;
        case INFINI_DTYPE_I16: runAccumulate<OP, int16_t>(p, bad); return;
        case INFINI_DTYPE_I8: runAccumulate<OP, int8_t>(p, bad); return;
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BYTE: runAccumulate<OP, uint8_t>(p, bad); return;
        case INFINI_DTYPE_BOOL: runAccumulate<OP, Bool8>(p, bad); return;
        default: return;
    }
}

void run(const Plan &p) {
    BadIndex bad;
    switch (p.a.op) {
        case INFINIOP_INDEX_GATHER:
        case INFINIOP_INDEX_SCATTER: runCopy(p, bad); break;
        case INFINIOP_INDEX_SCATTER_ADD: accumulateTyped<INFINIOP_INDEX_SCATTER_ADD>(p, bad); break;
        case INFINIOP_INDEX_SCATTER_MUL: accumulateTyped<INFINIOP_INDEX_SCATTER_MUL>(p, bad); break;
        case INFINIOP_INDEX_SCATTER_AMAX: accumulateTyped<INFINIOP_INDEX_SCATTER_AMAX>(p, bad); break;
        case INFINIOP_INDEX_SCATTER_AMIN: accumulateTyped<INFINIOP_INDEX_SCATTER_AMIN>(p, bad); break;
        default: break;
    }
    bad.raise();
}

bool knownStorage(infiniDtype_t t) {
    switch (t) {
        case INFINI_DTYPE_F32:
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16:
        case INFINI_DTYPE_F64:
        case INFINI_DTYPE_I64:
        case INFINI_DTYPE_I32:
        case INFINI_DTYPE_I16:
        case INFINI_DTYPE_I8:
        case INFINI_DTYPE_U8:
        case INFINI_DTYPE_BYTE:
        case INFINI_DTYPE_BOOL: return true;
        default: return false;
    }
}

}  // namespace

infiniStatus_t index(const infiniopIndexArgs_t &a, infinirtStream_t stream) {
    const infiniopIter_t &it = a.iter;
    if (!knownStorage(it.dtype[0]) || !knownStorage(it.dtype[1])) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "index: dst dtype %d / src dtype %d", it.dtype[0], it.dtype[1]);
    }
    if (a.op != INFINIOP_INDEX_GATHER && a.op != INFINIOP_INDEX_SCATTER && it.dtype[0] != it.dtype[1]) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "index op %d: dst dtype %d differs from src dtype %d", a.op,
                    it.dtype[0], it.dtype[1]);
    }
    for (int k = 0; k < a.nindices; ++k) {
        if (a.index_size[k] < 0) {
            return fail(INFINI_STATUS_BAD_PARAM, "index: index %d has size %lld", k,
                        static_cast<long long>(a.index_size[k]));
        }
    }
    if (numel(it) == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>(makePlan(a));
    return submit(stream, [plan] { run(*plan); });
}

}  // namespace infini::cpu::families
