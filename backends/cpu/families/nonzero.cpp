// nonzero.cpp: the nonzero family on the cpu backend: the coordinates of the nonzero elements of a strided tensor,
// in row-major order. Two passes over the same split of the elements: each piece counts its nonzeros, then,
// knowing where its rows start, writes them. A float element is nonzero unless it is +0 or -0 (NaN is nonzero),
// tested on its bits so that the counting loop vectorizes.
#include <algorithm>
#include <memory>
#include <vector>

#include "../../common/error.h"
#include "family.h"
#include "strided.h"

namespace infini::cpu::families {
namespace {

using ops::avx2::parallelism;

struct Plan {
    infiniopNonzeroArgs_t a;
    infiniopIter_t it;  // the tensor as an iteration space: dim 0 is its last dim
};

// Nonzero test on the bits of one element (U: an unsigned type of the element's size; mask clears a float's sign).
template <class U>
inline bool nz(const char *p, U mask) {
    return (*reinterpret_cast<const U *>(p) & mask) != 0;
}

template <class U>
int64_t countRun(const char *p, int64_t stride, int64_t n, U mask) {
    int64_t c = 0;
    if (stride == static_cast<int64_t>(sizeof(U))) {
        const U *q = reinterpret_cast<const U *>(p);
        for (int64_t j = 0; j < n; ++j) c += (q[j] & mask) != 0 ? 1 : 0;
        return c;
    }
    for (int64_t j = 0; j < n; ++j) c += nz<U>(p + j * stride, mask) ? 1 : 0;
    return c;
}

template <class U>
void nonzeroTyped(const Plan &plan, U mask) {
    const infiniopIter_t &it = plan.it;
    const int nd = plan.a.in.ndim;
    const int64_t total = numel(it);
    constexpr int64_t kMinPiece = 16384;  // elements: a piece's setup stays small next to its work
    const int64_t pieces = std::max<int64_t>(
        1, std::min<int64_t>(static_cast<int64_t>(parallelism()), (total + kMinPiece - 1) / kMinPiece));
    std::vector<int64_t> first(pieces + 1, 0);  // pass 1: counts; then where each piece's rows begin
    auto range = [&](int64_t t, int64_t *b, int64_t *e) {
        *b = total * t / pieces;
        *e = total * (t + 1) / pieces;
    };
    parallelFor(static_cast<size_t>(pieces), static_cast<size_t>(total / pieces + 1), [&](size_t tb, size_t te) {
        for (size_t t = tb; t < te; ++t) {
            int64_t b, e, c = 0;
            range(static_cast<int64_t>(t), &b, &e);
            forEachRun(it, b, e,
                       [&](char **p, const int64_t *s0, int64_t n) { c += countRun<U>(p[0], s0[0], n, mask); });
            first[t + 1] = c;
        }
    });
    for (int64_t t = 0; t < pieces; ++t) first[t + 1] += first[t];
    const int64_t count = plan.a.count;
    int64_t *out = plan.a.out;
    parallelFor(static_cast<size_t>(pieces), static_cast<size_t>(total / pieces + 1) * 2, [&](size_t tb, size_t te) {
        for (size_t t = tb; t < te; ++t) {
            int64_t b, e;
            range(static_cast<int64_t>(t), &b, &e);
            int64_t row = first[t];
            int64_t idx[INFINIOP_MAX_DIMS] = {};  // coordinates in tensor order
            int64_t pos = b;
            forEachRun(it, b, e, [&](char **p, const int64_t *s0, int64_t n) {
                int64_t rest = pos;  // coordinates of the run's first element
                for (int d = nd - 1; d >= 0; --d) {
                    idx[d] = rest % plan.a.in.shape[d];
                    rest /= plan.a.in.shape[d];
                }
                for (int64_t j = 0; j < n && row < count; ++j) {
                    if (!nz<U>(p[0] + j * s0[0], mask)) continue;
                    int64_t *o = out + row * nd;
                    for (int d = 0; d + 1 < nd; ++d) o[d] = idx[d];
                    o[nd - 1] = idx[nd - 1] + j;
                    ++row;
                }
                pos += n;
            });
        }
    });
}

void run(const Plan &plan) {
    if (plan.a.in.ndim == 0) return;  // rows of no coordinates: nothing to write
    switch (plan.a.in.dtype) {
        case INFINI_DTYPE_F64: nonzeroTyped<uint64_t>(plan, 0x7fffffffffffffffull); return;
        case INFINI_DTYPE_I64: nonzeroTyped<uint64_t>(plan, ~uint64_t(0)); return;
        case INFINI_DTYPE_F32: nonzeroTyped<uint32_t>(plan, 0x7fffffffu); return;
        case INFINI_DTYPE_I32: nonzeroTyped<uint32_t>(plan, ~uint32_t(0)); return;
        case INFINI_DTYPE_F16:
        case INFINI_DTYPE_BF16: nonzeroTyped<uint16_t>(plan, static_cast<uint16_t>(0x7fff)); return;
        case INFINI_DTYPE_I16: nonzeroTyped<uint16_t>(plan, static_cast<uint16_t>(0xffff)); return;
        default: nonzeroTyped<uint8_t>(plan, static_cast<uint8_t>(0xff)); return;
    }
}

}  // namespace

infiniStatus_t nonzero(const infiniopNonzeroArgs_t &a, infinirtStream_t stream) {
    if (a.count == 0) return INFINI_STATUS_SUCCESS;
    auto plan = std::make_shared<Plan>();
    plan->a = a;
    infiniopIter_t &it = plan->it;
    it.ndim = a.in.ndim;
    it.noperands = 1;
    it.data[0] = a.in.data;
    it.dtype[0] = a.in.dtype;
    for (int d = 0; d < a.in.ndim; ++d) {
        it.shape[d] = a.in.shape[a.in.ndim - 1 - d];
        it.strides[0][d] = a.in.strides[a.in.ndim - 1 - d];
    }
    if (numel(it) == 0) return INFINI_STATUS_SUCCESS;
    return submit(stream, [plan] { run(*plan); });
}

}  // namespace infini::cpu::families
