// gather.cpp: embedding (row gather) and rotary position embedding; both check indices while they
// run and raise (CPU path) or leave a stream error (device path) naming the op and the argument.
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../common/dtype.h"
#include "convert.h"
#include "nontemporal.h"
#include "op_base.h"
#include "parallel.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {
namespace {

template <typename I>
inline int64_t indexAt(const void *p, ptrdiff_t off) {
    return static_cast<int64_t>(static_cast<const I *>(p)[off]);
}

// Copies a row while the next row's lines are brought toward the core (one prefetch per 64-byte line
// copied): the rows sit at random places in a large table, so the hardware's stream prefetchers only
// find each row after its first misses (a plain memcpy per row is up to 1.5x slower).
inline void copyRowPrefetchingNext(char *dst, const char *src, const char *next, size_t bytes) {
    size_t i = 0;
    if (next != nullptr) {
        for (; i + 64 <= bytes; i += 64) {
            __builtin_prefetch(next + i, 0, 2);
            std::memcpy(dst + i, src + i, 64);
        }
    }
    if (i < bytes) std::memcpy(dst + i, src + i, bytes - i);
}

[[noreturn]] void outOfRange(const char *op, const char *arg, int64_t v, int64_t limit) {
    throw std::runtime_error(std::string(op) + ": index " + std::to_string(v) + " in " + arg + " is out of range [0, " +
                             std::to_string(limit) + ")");
}

}  // namespace

infiniStatus_t makeEmbedding(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "embedding";
    Layout y = layoutOf(p.tensors[0]), idx = layoutOf(p.tensors[1]), w = layoutOf(p.tensors[2]);
    INFINI_RETURN_IF_ERROR(checks::embedding(y, idx, w));
    size_t dim = w.shape[1], elem = dtypeSize(w.dtype);
    int64_t vocab = static_cast<int64_t>(w.shape[0]);
    bool i64 = idx.dtype == INFINI_DTYPE_I64;
    // the indices, flattened row-major, as element offsets
    Layout ix = idx;
    ix.shape.push_back(1);
    ix.strides.push_back(1);
    // Streaming stores only where the output alone reaches the last-level cache (4x nontemporal.h's
    // threshold): an embedding's output is read at once by the next op (a norm), which finds it in the
    // cache after plain stores (streaming stores make a 4 MiB output slower, not faster).
    const bool stream = ix.rows() * dim * elem >= 4 * streamingStoreBytes();
    *k = [=](void *const *data) {
        char *py = static_cast<char *>(data[0]);
        const void *pi = data[1];
        const char *pw = static_cast<const char *>(data[2]);
        size_t n = ix.rows();
        for (size_t r = 0; r < n; ++r) {  // check first: an error leaves the output untouched
            int64_t v = i64 ? indexAt<int64_t>(pi, ix.rowOffset(r)) : indexAt<int32_t>(pi, ix.rowOffset(r));
            if (v < 0 || v >= vocab) outOfRange(op, "indices", v, vocab);
        }
        parallelFor(n, dim, [&](size_t begin, size_t end) {
            auto rowOf = [&](size_t r) {
                int64_t v = i64 ? indexAt<int64_t>(pi, ix.rowOffset(r)) : indexAt<int32_t>(pi, ix.rowOffset(r));
                return pw + v * w.strides[0] * elem;
            };
            const char *src = begin < end ? rowOf(begin) : nullptr;
            for (size_t r = begin; r < end; ++r) {
                const char *next = r + 1 < end ? rowOf(r + 1) : nullptr;
                char *dst = py + y.rowOffset(r) * elem;
                if (stream)
                    streamCopy(dst, src, dim * elem);
                else
                    copyRowPrefetchingNext(dst, src, next, dim * elem);
                src = next;
            }
        });
    };
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t makeRoPE(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "rope";
    Layout y = layoutOf(p.tensors[0]), x = layoutOf(p.tensors[1]), pos = layoutOf(p.tensors[2]),
           sin = layoutOf(p.tensors[3]), cos = layoutOf(p.tensors[4]);
    int64_t algo = p.i[0];
    INFINI_RETURN_IF_ERROR(checks::rope(y, x, pos, sin, cos, algo));
    size_t d = x.last(), heads = x.shape[x.ndim() - 2], seq = x.shape[x.ndim() - 3];
    size_t batch = x.ndim() == 4 ? x.shape[0] : 1;
    int64_t max_pos = static_cast<int64_t>(sin.shape[0]);
    bool i64 = pos.dtype == INFINI_DTYPE_I64;
    return dispatchFloat(x.dtype, op, [&](auto t) {
        using T = decltype(t);
        auto build = [&](auto tt) {
            using S = decltype(tt);
            *k = [=](void *const *data) {
                T *py = static_cast<T *>(data[0]);
                const T *px = static_cast<const T *>(data[1]);
                const void *pp = data[2];
                const S *ps = static_cast<const S *>(data[3]);
                const S *pc = static_cast<const S *>(data[4]);
                size_t tokens = batch * seq, half = d / 2;
                auto posOf = [&](size_t token) {
                    ptrdiff_t off = pos.ndim() == 1 ? static_cast<ptrdiff_t>(token) * pos.strides[0]
                                                    : static_cast<ptrdiff_t>(token / seq) * pos.strides[0] +
                                                          static_cast<ptrdiff_t>(token % seq) * pos.strides[1];
                    return i64 ? indexAt<int64_t>(pp, off) : indexAt<int32_t>(pp, off);
                };
                for (size_t tok = 0; tok < tokens; ++tok) {
                    int64_t v = posOf(tok);
                    if (v < 0 || v >= max_pos) outOfRange(op, "pos_ids", v, max_pos);
                }
                parallelFor(tokens * heads, d * 4, [&](size_t begin, size_t end) {
                    for (size_t r = begin; r < end; ++r) {
                        size_t tok = r / heads;
                        int64_t v = posOf(tok);
                        const S *rs = ps + v * sin.strides[0];
                        const S *rc = pc + v * cos.strides[0];
                        const T *rx = px + x.rowOffset(r);
                        T *ry = py + y.rowOffset(r);
                        if (algo == 0) {
                            for (size_t j = 0; j < half; ++j) {
                                float a = toFloat(rx[j]), b = toFloat(rx[j + half]);
                                float s = toFloat(rs[j]), c = toFloat(rc[j]);
                                ry[j] = fromFloat<T>(a * c - b * s);
                                ry[j + half] = fromFloat<T>(b * c + a * s);
                            }
                        } else {
                            for (size_t j = 0; j < half; ++j) {
                                float a = toFloat(rx[2 * j]), b = toFloat(rx[2 * j + 1]);
                                float s = toFloat(rs[j]), c = toFloat(rc[j]);
                                ry[2 * j] = fromFloat<T>(a * c - b * s);
                                ry[2 * j + 1] = fromFloat<T>(b * c + a * s);
                            }
                        }
                    }
                });
            };
        };
        if (sin.dtype == INFINI_DTYPE_F32) {
            build(float{});
        } else {
            build(t);
        }
    });
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
