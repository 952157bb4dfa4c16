// cache.cpp: paged_caching, the KV-cache write of paged attention: token t's k/v rows go to block
// slot / block_size, row slot % block_size; a negative slot is skipped (a padding token).
#include <cstring>
#include <stdexcept>
#include <string>

#include "../../common/dtype.h"
#include "op_base.h"
#include "parallel.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

infiniStatus_t makePagedCaching(const infiniopOpParams_t &p, Kernel *k) {
    const char *op = "paged_caching";
    Layout kc = layoutOf(p.tensors[0]), vc = layoutOf(p.tensors[1]), kk = layoutOf(p.tensors[2]),
           vv = layoutOf(p.tensors[3]), slots = layoutOf(p.tensors[4]);
    INFINI_RETURN_IF_ERROR(checks::pagedCaching(kc, vc, kk, vv, slots));
    size_t tokens = kk.shape[0], heads = kk.shape[1], d = kk.shape[2], block = kc.shape[2];
    int64_t capacity = static_cast<int64_t>(kc.shape[0] * block);
    size_t elem = dtypeSize(kk.dtype);
    bool i64 = slots.dtype == INFINI_DTYPE_I64;
    *k = [=](void *const *data) {
        char *pkc = static_cast<char *>(data[0]);
        char *pvc = static_cast<char *>(data[1]);
        const char *pk = static_cast<const char *>(data[2]);
        const char *pv = static_cast<const char *>(data[3]);
        auto slotAt = [&](size_t t) {
            ptrdiff_t off = static_cast<ptrdiff_t>(t) * slots.strides[0];
            return i64 ? static_cast<const int64_t *>(data[4])[off]
                       : static_cast<int64_t>(static_cast<const int32_t *>(data[4])[off]);
        };
        for (size_t t = 0; t < tokens; ++t) {  // check first: an error leaves the caches untouched
            int64_t s = slotAt(t);
            if (s >= capacity) {
                throw std::runtime_error(std::string(op) + ": index " + std::to_string(s) +
                                         " in slot_mapping is out of range [0, " + std::to_string(capacity) + ")");
            }
        }
        parallelFor(tokens * heads, d, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
                size_t t = r / heads, h = r % heads;
                int64_t s = slotAt(t);
                if (s < 0) continue;
                ptrdiff_t blk = s / static_cast<int64_t>(block), row = s % static_cast<int64_t>(block);
                ptrdiff_t src_k = static_cast<ptrdiff_t>(t) * kk.strides[0] + static_cast<ptrdiff_t>(h) * kk.strides[1];
                ptrdiff_t src_v = static_cast<ptrdiff_t>(t) * vv.strides[0] + static_cast<ptrdiff_t>(h) * vv.strides[1];
                ptrdiff_t dk = blk * kc.strides[0] + static_cast<ptrdiff_t>(h) * kc.strides[1] + row * kc.strides[2];
                ptrdiff_t dv = blk * vc.strides[0] + static_cast<ptrdiff_t>(h) * vc.strides[1] + row * vc.strides[2];
                std::memcpy(pkc + dk * elem, pk + src_k * elem, d * elem);
                std::memcpy(pvc + dv * elem, pv + src_v * elem, d * elem);
            }
        });
    };
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
