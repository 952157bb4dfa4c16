// families.cpp: the generic kernel families' entry points (families.h): checks what every family states in
// general, then forwards to the backend that made the handle.
#include <infini/backend.h>

#include "../common/error.h"
#include "live_set.h"
#include "loader.h"

using infini::fail;

namespace infini::core {
namespace {

bool knownDtype(infiniDtype_t t) { return t > INFINI_DTYPE_INVALID && t < INFINI_DTYPE_COUNT && infiniSizeOf(t) > 0; }

// constants_from: operands from this index on may have NULL data (pointwise constants); -1: none may.
infiniStatus_t checkIter(const char *api, const infiniopIter_t &it, int min_operands, int constants_from = -1) {
    if (it.ndim < 0 || it.ndim > INFINIOP_MAX_DIMS) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d dims (at most %d)", api, it.ndim, INFINIOP_MAX_DIMS);
    }
    if (it.noperands < min_operands || it.noperands > INFINIOP_MAX_OPERANDS) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d operands (%d to %d)", api, it.noperands, min_operands,
                    INFINIOP_MAX_OPERANDS);
    }
    bool empty = false;
    for (int d = 0; d < it.ndim; ++d) {
        if (it.shape[d] < 0)
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: extent %lld of dim %d", api,
                        static_cast<long long>(it.shape[d]), d);
        empty = empty || it.shape[d] == 0;
    }
    for (int k = 0; k < it.noperands; ++k) {
        if (!knownDtype(it.dtype[k])) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: operand %d has dtype %d", api, k, it.dtype[k]);
        }
        bool constant = constants_from >= 0 && k >= constants_from;
        if (!empty && !constant && it.data[k] == nullptr) {
            return fail(INFINI_STATUS_NULL_POINTER, "%s: operand %d is NULL", api, k);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkTensor(const char *api, const char *name, const infiniopTensor_t &t, bool optional) {
    if (optional && t.data == nullptr) return INFINI_STATUS_SUCCESS;
    if (t.ndim < 0 || t.ndim > INFINIOP_MAX_DIMS) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s has %d dims (at most %d)", api, name, t.ndim, INFINIOP_MAX_DIMS);
    }
    if (!knownDtype(t.dtype)) return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: %s has dtype %d", api, name, t.dtype);
    bool empty = false;
    for (int d = 0; d < t.ndim; ++d) {
        if (t.shape[d] < 0)
            return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "%s: %s has extent %lld", api, name,
                        static_cast<long long>(t.shape[d]));
        empty = empty || t.shape[d] == 0;
    }
    if (!empty && t.data == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", api, name);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t forward(const char *api, infiniopHandle_t handle, infiniopFamily_t family, const void *args,
                       infinirtStream_t stream) {
    if (!liveHandles().contains(handle)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "%s: %p is not a live handle", api, (void *)handle);
    }
    const infiniBackend_t *b = backendFor(handle->device);
    if (b == nullptr || b->struct_size < INFINI_BACKEND_FAMILY_SIZE || b->family == nullptr) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend provides no kernel families", api,
                    b ? b->name : "unknown");
    }
    infiniStatus_t s = b->family(handle, family, args, stream);
    if (s != INFINI_STATUS_SUCCESS) return fail(s, "%s: %s", api, b->last_error_message());
    return INFINI_STATUS_SUCCESS;
}

}  // namespace
}  // namespace infini::core

using infini::core::checkIter;
using infini::core::checkTensor;
using infini::core::forward;

#define INFINI_FAMILY_PROLOGUE(api)     \
    INFINI_CHECK_NOT_NULL(api, handle); \
    INFINI_CHECK_NOT_NULL(api, args)

INFINI_API infiniStatus_t infiniopPointwise(infiniopHandle_t handle, const infiniopPointwiseArgs_t *args,
                                            infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopPointwise");
    if (args->op < 0 || args->op >= INFINIOP_PW_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopPointwise: %d is not an op", args->op);
    }
    if (args->noutputs < 1 || args->noutputs > args->iter.noperands) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopPointwise: %d outputs of %d operands", args->noutputs,
                    args->iter.noperands);
    }
    INFINI_RETURN_IF_ERROR(checkIter("infiniopPointwise", args->iter, 1, args->noutputs));
    return forward("infiniopPointwise", handle, INFINIOP_FAMILY_POINTWISE, args, stream);
}

INFINI_API infiniStatus_t infiniopReduce(infiniopHandle_t handle, const infiniopReduceArgs_t *args,
                                         infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopReduce");
    if (args->op < 0 || args->op >= INFINIOP_REDUCE_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopReduce: %d is not an op", args->op);
    }
    if (args->noutputs < 1 || args->noutputs > 2 || args->iter.noperands != args->noutputs + 1) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopReduce: %d outputs and %d operands", args->noutputs,
                    args->iter.noperands);
    }
    INFINI_RETURN_IF_ERROR(checkIter("infiniopReduce", args->iter, 2));
    return forward("infiniopReduce", handle, INFINIOP_FAMILY_REDUCE, args, stream);
}

INFINI_API infiniStatus_t infiniopScan(infiniopHandle_t handle, const infiniopScanArgs_t *args,
                                       infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopScan");
    if (args->op < 0 || args->op >= INFINIOP_SCAN_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopScan: %d is not an op", args->op);
    }
    INFINI_RETURN_IF_ERROR(checkIter("infiniopScan", args->iter, 2));
    if (args->dim < 0 || args->dim >= (args->iter.ndim > 0 ? args->iter.ndim : 1)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopScan: dim %d of %d", args->dim, args->iter.ndim);
    }
    return forward("infiniopScan", handle, INFINIOP_FAMILY_SCAN, args, stream);
}

INFINI_API infiniStatus_t infiniopSort(infiniopHandle_t handle, const infiniopSortArgs_t *args,
                                       infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopSort");
    if (args->op < 0 || args->op >= INFINIOP_SORT_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopSort: %d is not an op", args->op);
    }
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSort", "in", args->in, false));
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSort", "values", args->values, true));
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSort", "indices", args->indices, false));
    if (args->dim < 0 || args->dim >= (args->in.ndim > 0 ? args->in.ndim : 1)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopSort: dim %d of %d", args->dim, args->in.ndim);
    }
    return forward("infiniopSort", handle, INFINIOP_FAMILY_SORT, args, stream);
}

INFINI_API infiniStatus_t infiniopIndex(infiniopHandle_t handle, const infiniopIndexArgs_t *args,
                                        infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopIndex");
    if (args->op < 0 || args->op >= INFINIOP_INDEX_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopIndex: %d is not an op", args->op);
    }
    if (args->nindices < 0 || args->nindices > INFINIOP_MAX_INDICES || args->iter.noperands != 2 + args->nindices) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopIndex: %d indices and %d operands", args->nindices,
                    args->iter.noperands);
    }
    INFINI_RETURN_IF_ERROR(checkIter("infiniopIndex", args->iter, 2));
    for (int k = 0; k < args->nindices; ++k) {
        infiniDtype_t t = args->iter.dtype[2 + k];
        if (t != INFINI_DTYPE_I32 && t != INFINI_DTYPE_I64) {
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "infiniopIndex: index %d is not I32 or I64", k);
        }
    }
    return forward("infiniopIndex", handle, INFINIOP_FAMILY_INDEX, args, stream);
}

INFINI_API infiniStatus_t infiniopNonzero(infiniopHandle_t handle, const infiniopNonzeroArgs_t *args,
                                          infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopNonzero");
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopNonzero", "in", args->in, false));
    if (args->count < 0) return fail(INFINI_STATUS_BAD_PARAM, "infiniopNonzero: count %lld", (long long)args->count);
    if (args->count > 0 && args->out == nullptr)
        return fail(INFINI_STATUS_NULL_POINTER, "infiniopNonzero: out is NULL");
    return forward("infiniopNonzero", handle, INFINIOP_FAMILY_NONZERO, args, stream);
}

INFINI_API infiniStatus_t infiniopRandom(infiniopHandle_t handle, const infiniopRandomArgs_t *args,
                                         infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopRandom");
    if (args->op < 0 || args->op >= INFINIOP_RANDOM_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopRandom: %d is not an op", args->op);
    }
    INFINI_RETURN_IF_ERROR(checkIter("infiniopRandom", args->iter, 1));
    return forward("infiniopRandom", handle, INFINIOP_FAMILY_RANDOM, args, stream);
}

INFINI_API infiniStatus_t infiniopRows(infiniopHandle_t handle, const infiniopRowsArgs_t *args,
                                       infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopRows");
    if (args->op < 0 || args->op >= INFINIOP_ROWS_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopRows: %d is not an op", args->op);
    }
    if (args->outer < 0 || args->n < 0 || args->inner < 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopRows: negative extent");
    }
    return forward("infiniopRows", handle, INFINIOP_FAMILY_ROWS, args, stream);
}

INFINI_API infiniStatus_t infiniopNorm(infiniopHandle_t handle, const infiniopNormArgs_t *args,
                                       infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopNorm");
    if (args->op < 0 || args->op >= INFINIOP_NORM_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopNorm: %d is not an op", args->op);
    }
    if (args->rows < 0 || args->cols < 0) return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopNorm: negative extent");
    return forward("infiniopNorm", handle, INFINIOP_FAMILY_NORM, args, stream);
}

INFINI_API infiniStatus_t infiniopNllLoss(infiniopHandle_t handle, const infiniopNllLossArgs_t *args,
                                          infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopNllLoss");
    if (args->n < 0 || args->c < 0 || args->d < 0) {
        return fail(INFINI_STATUS_BAD_TENSOR_SHAPE, "infiniopNllLoss: negative extent");
    }
    return forward("infiniopNllLoss", handle, INFINIOP_FAMILY_NLL_LOSS, args, stream);
}

INFINI_API infiniStatus_t infiniopSdpa(infiniopHandle_t handle, const infiniopSdpaArgs_t *args,
                                       infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopSdpa");
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSdpa", "q", args->q, false));
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSdpa", "k", args->k, false));
    INFINI_RETURN_IF_ERROR(checkTensor("infiniopSdpa", "v", args->v, false));
    return forward("infiniopSdpa", handle, INFINIOP_FAMILY_SDPA, args, stream);
}

INFINI_API infiniStatus_t infiniopWindow(infiniopHandle_t handle, const infiniopWindowArgs_t *args,
                                         infinirtStream_t stream) {
    INFINI_FAMILY_PROLOGUE("infiniopWindow");
    if (args->op < 0 || args->op >= INFINIOP_WINDOW_OP_END) {
        return fail(INFINI_STATUS_BAD_PARAM, "infiniopWindow: %d is not an op", args->op);
    }
    return forward("infiniopWindow", handle, INFINIOP_FAMILY_WINDOW, args, stream);
}
