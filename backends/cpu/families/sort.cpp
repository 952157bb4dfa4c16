// sort.cpp: the sort family on the cpu backend (infiniopSort): sort and top-k along one dim.
//
// Each line (every coordinate but the sorted dim's) is read into (key, index) pairs and ordered by key, NaN above
// every number, equal keys by index: so SORT is stable whatever `stable` says (the order of a stable sort is one
// of those an unstable one may give), and TOPK picks and orders ties by index. TOPK keeps a heap of its best k
// where k is small beside the line (one pass), else selects its k (nth_element) and sorts only those. Values are written from the keys, which hold every value exactly (16-bit
// floats as float, integers as int64), so the outputs may alias the input. Lines run in parallel.
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

template <class K>
struct Item {
    K key;
    int64_t index;
};

template <class K>
inline bool nanKey(K x) {
    if constexpr (std::is_floating_point_v<K>) {
        return x != x;
    } else {
        return false;
    }
}

// Strict orders: ascending with NaN last, descending with NaN first; ties by index.
template <class K>
struct Ascending {
    bool operator()(const Item<K> &a, const Item<K> &b) const {
        const bool na = nanKey(a.key), nb = nanKey(b.key);
        if (na || nb) return na == nb ? a.index < b.index : nb;
        return a.key < b.key || (a.key == b.key && a.index < b.index);
    }
};
template <class K>
struct Descending {
    bool operator()(const Item<K> &a, const Item<K> &b) const {
        const bool na = nanKey(a.key), nb = nanKey(b.key);
        if (na || nb) return na == nb ? a.index < b.index : na;
        return a.key > b.key || (a.key == b.key && a.index < b.index);
    }
};

struct Plan {
    infiniopSortArgs_t a;
    int64_t n = 1, k = 1, lines = 1;
};

// Element offsets of line q in t (coordinates over every dim but `dim`, the last dim fastest).
int64_t lineOffset(const infiniopTensor_t &t, int dim, int64_t q) {
    int64_t off = 0;
    for (int d = t.ndim - 1; d >= 0 && q > 0; --d) {
        if (d == dim) continue;
        const int64_t c = q % t.shape[d];
        q /= t.shape[d];
        off += c * t.strides[d];
    }
    return off;
}

// The key of the element at p (storage T): float for 16/32-bit floats, double, int64 for integers and bool.
template <class T, class K>
inline K keyAt(const char *p) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
        return toFloat(*reinterpret_cast<const T *>(p));
    } else if constexpr (std::is_same_v<T, bool>) {
        return *reinterpret_cast<const uint8_t *>(p) != 0 ? 1 : 0;
    } else {
        return static_cast<K>(*reinterpret_cast<const T *>(p));
    }
}

template <class T, class K, class Order>
void sortLine(const Plan &p, std::vector<Item<K>> &buf, int64_t q) {
    const infiniopSortArgs_t &a = p.a;
    const int dim = a.dim;
    const int64_t n = p.n, k = p.k;
    const int64_t in_step = (a.in.ndim > 0 ? a.in.strides[dim] : 0) * static_cast<int64_t>(sizeof(T));
    const char *in = static_cast<const char *>(a.in.data) + lineOffset(a.in, dim, q) * static_cast<int64_t>(sizeof(T));
    Order order;
    if (a.op == INFINIOP_SORT_TOPK && k * 16 <= n) {
        // few of many: a heap of the best k so far, its top the worst of them; most elements lose to the top
        buf.resize(static_cast<size_t>(k));
        for (int64_t i = 0; i < k; ++i) buf[i] = Item<K>{keyAt<T, K>(in + i * in_step), i};
        std::make_heap(buf.begin(), buf.end(), order);
        for (int64_t i = k; i < n; ++i) {
            const Item<K> item{keyAt<T, K>(in + i * in_step), i};
            if (!order(item, buf.front())) continue;
            std::pop_heap(buf.begin(), buf.end(), order);
            buf.back() = item;
            std::push_heap(buf.begin(), buf.end(), order);
        }
        std::sort_heap(buf.begin(), buf.end(), order);
    } else {
        buf.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) buf[i] = Item<K>{keyAt<T, K>(in + i * in_step), i};
        if (a.op == INFINIOP_SORT_TOPK && k < n) {
            std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), order);
            std::sort(buf.begin(), buf.begin() + (k - 1), order);
        } else {
            std::sort(buf.begin(), buf.end(), order);
        }
    }
    if (a.values.data != nullptr) {
        const int64_t vs = a.values.ndim > 0 ? a.values.strides[dim] : 0, ve = elementSize(a.values.dtype);
        char *v = static_cast<char *>(a.values.data) + lineOffset(a.values, dim, q) * ve;
        for (int64_t i = 0; i < k; ++i) store<K>(v + i * vs * ve, a.values.dtype, buf[i].key);
    }
    const int64_t is = a.indices.ndim > 0 ? a.indices.strides[dim] : 0;
    int64_t *ix = static_cast<int64_t *>(a.indices.data) + lineOffset(a.indices, dim, q);
    for (int64_t i = 0; i < k; ++i) ix[i * is] = buf[i].index;
}

template <class T, class K>
void run(const Plan &p) {
    const bool first_large = p.a.descending != 0;  // SORT descending, TOPK largest
    const size_t cost = static_cast<size_t>(p.n) * static_cast<size_t>(4 + std::log2(static_cast<double>(p.n) + 1));
    parallelFor(static_cast<size_t>(p.lines), cost, [&](size_t b, size_t e) {
        std::vector<Item<K>> buf;
        for (size_t q = b; q < e; ++q) {
            if (first_large) {
                sortLine<T, K, Descending<K>>(p, buf, static_cast<int64_t>(q));
            } else {
                sortLine<T, K, Ascending<K>>(p, buf, static_cast<int64_t>(q));
            }
        }
    });
}

bool sameShapeBut(const infiniopTensor_t &x, const infiniopTensor_t &y, int dim) {
    if (x.ndim != y.ndim) return false;
    for (int d = 0; d < x.ndim; ++d) {
        if (d != dim && x.shape[d] != y.shape[d]) return false;
    }
    return true;
}

}  // namespace

infiniStatus_t sort(const infiniopSortArgs_t &a, infinirtStream_t stream) {
    if (a.indices.dtype != INFINI_DTYPE_I64) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "sort: indices dtype %d is not I64", a.indices.dtype);
    }
    const int dim = a.dim;
    const int64_t n = a.in.ndim > 0 ? a.in.shape[dim] : 1;
    const int64_t k = a.op == INFINIOP_SORT_TOPK ? a.k : n;
    if (k < 0 || k > n) return fail(INFINI_STATUS_BAD_PARAM, "sort: k = %lld of %lld", (long long)k, (long long)n);
    const bool has_values = a.values.data != nullptr;
    if (!sameShapeBut(a.in, a.indices, dim) || (has_values && !sameShapeBut(a.in, a.values, dim)) ||
        (a.indices.ndim > 0 && a.indices.shape[dim] != k) ||
        (has_values && a.values.ndim > 0 && a.values.shape[dim] != k)) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE,
                    "sort: values / indices do not have in's shape with %lld along dim %d", (long long)k, dim);
    }
    if (has_values && a.values.dtype != a.in.dtype) {
        return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "sort: values dtype %d is not in's %d", a.values.dtype, a.in.dtype);
    }
    int64_t total = 1;
    for (int d = 0; d < a.in.ndim; ++d) total *= a.in.shape[d];
    if (total == 0 || k == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    plan->n = n;
    plan->k = k;
    plan->lines = total / n;
    return submit(stream, [plan] {
        switch (plan->a.in.dtype) {
            case INFINI_DTYPE_F32: run<float, float>(*plan); break;
            case INFINI_DTYPE_F16: run<f16, float>(*plan); break;
            case INFINI_DTYPE_BF16: run<bf16, float>(*plan); break;
            case INFINI_DTYPE_F64: run<double, double>(*plan); break;
            case INFINI_DTYPE_I64: run<int64_t, int64_t>(*plan); break;
            case INFINI_DTYPE_I32: run<int32_t, int64_t>(*plan); break;
            case INFINI_DTYPE_I16: run<int16_t, int64_t>(*plan); break;
            case INFINI_DTYPE_I8: run<int8_t, int64_t>(*plan); break;
            case INFINI_DTYPE_U8: run<uint8_t, int64_t>(*plan); break;
            default: run<bool, int64_t>(*plan); break;  // BOOL (the core admits only known dtypes)
        }
    });
}

}  // namespace infini::cpu::families
