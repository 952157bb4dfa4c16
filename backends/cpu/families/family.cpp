#include "family.h"

#include <exception>

#include "../../common/error.h"
#include "../runtime.h"

namespace infini::cpu::families {

infiniStatus_t submit(infinirtStream_t stream, std::function<void()> work) {
    if (stream == INFINIRT_STREAM_CALLER) {
        try {
            work();
        } catch (const std::exception &e) {  // a check that needs the data (an index out of range)
            return fail(INFINI_STATUS_BAD_PARAM, "%s", e.what());
        }
        return INFINI_STATUS_SUCCESS;
    }
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    s->enqueue(std::move(work));
    return INFINI_STATUS_SUCCESS;
}

// A family not built into this library answers NOT_IMPLEMENTED (the glue then falls back to the CPU path).
#define INFINI_CPU_FAMILY_STUB(fn, Args)                                                      \
    __attribute__((weak)) infiniStatus_t fn(const Args &, infinirtStream_t) {                 \
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "the cpu backend has no " #fn " kernels"); \
    }
INFINI_CPU_FAMILY_STUB(pointwise, infiniopPointwiseArgs_t)
INFINI_CPU_FAMILY_STUB(reduce, infiniopReduceArgs_t)
INFINI_CPU_FAMILY_STUB(scan, infiniopScanArgs_t)
INFINI_CPU_FAMILY_STUB(sort, infiniopSortArgs_t)
INFINI_CPU_FAMILY_STUB(index, infiniopIndexArgs_t)
INFINI_CPU_FAMILY_STUB(nonzero, infiniopNonzeroArgs_t)
INFINI_CPU_FAMILY_STUB(random, infiniopRandomArgs_t)
INFINI_CPU_FAMILY_STUB(rows, infiniopRowsArgs_t)
INFINI_CPU_FAMILY_STUB(norm, infiniopNormArgs_t)
INFINI_CPU_FAMILY_STUB(nllLoss, infiniopNllLossArgs_t)
INFINI_CPU_FAMILY_STUB(sdpa, infiniopSdpaArgs_t)
INFINI_CPU_FAMILY_STUB(window, infiniopWindowArgs_t)
#undef INFINI_CPU_FAMILY_STUB

infiniStatus_t family(infiniopHandle_t, infiniopFamily_t family, const void *args, infinirtStream_t stream) {
    switch (family) {
        case INFINIOP_FAMILY_POINTWISE: return pointwise(*static_cast<const infiniopPointwiseArgs_t *>(args), stream);
        case INFINIOP_FAMILY_REDUCE: return reduce(*static_cast<const infiniopReduceArgs_t *>(args), stream);
        case INFINIOP_FAMILY_SCAN: return scan(*static_cast<const infiniopScanArgs_t *>(args), stream);
        case INFINIOP_FAMILY_SORT: return sort(*static_cast<const infiniopSortArgs_t *>(args), stream);
        case INFINIOP_FAMILY_INDEX: return index(*static_cast<const infiniopIndexArgs_t *>(args), stream);
        case INFINIOP_FAMILY_NONZERO: return nonzero(*static_cast<const infiniopNonzeroArgs_t *>(args), stream);
        case INFINIOP_FAMILY_RANDOM: return random(*static_cast<const infiniopRandomArgs_t *>(args), stream);
        case INFINIOP_FAMILY_ROWS: return rows(*static_cast<const infiniopRowsArgs_t *>(args), stream);
        case INFINIOP_FAMILY_NORM: return norm(*static_cast<const infiniopNormArgs_t *>(args), stream);
        case INFINIOP_FAMILY_NLL_LOSS: return nllLoss(*static_cast<const infiniopNllLossArgs_t *>(args), stream);
        case INFINIOP_FAMILY_SDPA: return sdpa(*static_cast<const infiniopSdpaArgs_t *>(args), stream);
        case INFINIOP_FAMILY_WINDOW: return window(*static_cast<const infiniopWindowArgs_t *>(args), stream);
        default: return fail(INFINI_STATUS_NOT_IMPLEMENTED, "family %d is not provided by the cpu backend", family);
    }
}

}  // namespace infini::cpu::families
